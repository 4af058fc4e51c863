package codec_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// GroupOf names the group of every group api's request about one group,
// the empty id included; a describe of several groups, and any other api,
// is about none a cluster could route by.
func TestGroupOf(t *testing.T) {
	for _, tc := range []struct {
		req   codec.Message
		group string
		ok    bool
	}{
		{&codec.ConsumerGroupHeartbeatRequest{GroupId: "g"}, "g", true},
		{&codec.LeaveGroupRequest{GroupId: ""}, "", true},
		{&codec.JoinGroupRequest{GroupId: "g"}, "g", true},
		{&codec.SyncGroupRequest{GroupId: "g"}, "g", true},
		{&codec.HeartbeatRequest{GroupId: "g"}, "g", true},
		{&codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}, "g", true},
		{&codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g", "h"}}, "", false},
		{&codec.DescribeGroupsRequest{Groups: []string{"g"}}, "g", true},
		{&codec.ApiVersionsRequest{}, "", false},
	} {
		if g, ok := codec.GroupOf(tc.req); g != tc.group || ok != tc.ok {
			t.Errorf("GroupOf(%T) = %q, %v; want %q, %v", tc.req, g, ok, tc.group, tc.ok)
		}
	}
}
