package testreq_test

import (
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
)

// The notation of owned partitions, written out by hand: topics in name
// order whatever the order written, partitions ascending, "" the empty
// list and "-" null (the two mean different things to a coordinator).
func TestOwned(t *testing.T) {
	tp := func(topic string, ps ...int32) codec.ConsumerGroupHeartbeatTopicPartitions {
		return codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: model.TopicIDFor(topic), Partitions: ps}
	}
	for _, c := range []struct {
		in   string
		want []codec.ConsumerGroupHeartbeatTopicPartitions
	}{
		{"-", nil},
		{"", []codec.ConsumerGroupHeartbeatTopicPartitions{}},
		{"a0", []codec.ConsumerGroupHeartbeatTopicPartitions{tp("a", 0)}},
		{"b1 a2 a0", []codec.ConsumerGroupHeartbeatTopicPartitions{tp("a", 0, 2), tp("b", 1)}},
		{"alpha12 alpha3 beta0", []codec.ConsumerGroupHeartbeatTopicPartitions{tp("alpha", 3, 12), tp("beta", 0)}},
	} {
		if got := testreq.Owned(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Owned(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"a", "7", "a99999999999"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Owned(%q) did not refuse it", bad)
				}
			}()
			testreq.Owned(bad)
		}()
	}
}

// Each request is the one a KIP-848 consumer sends, field for field.
func TestRequests(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want codec.Message
	}{
		{"join", testreq.Join("g", "m1", 60000, "a", "b"), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1",
			RebalanceTimeoutMs: 60000, SubscribedTopicNames: []string{"a", "b"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}},
		{"join to no topics", testreq.Join("g", "m1", 1000), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1",
			RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}},
		{"static join", testreq.StaticJoin("g", "m1", "i1", 6000, "alpha"), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1",
			InstanceId: codec.Str("i1"), RebalanceTimeoutMs: 6000, SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}},
		{"heartbeat not reporting", testreq.Heartbeat("g", "m1", 3, "-"), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1",
			MemberEpoch: 3, RebalanceTimeoutMs: -1}},
		{"static heartbeat owning nothing", testreq.StaticHeartbeat("g", "m1", "i1", 3, ""), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g",
			MemberId: "m1", InstanceId: codec.Str("i1"), MemberEpoch: 3, RebalanceTimeoutMs: -1, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}},
		{"leave", testreq.Leave("g", "m1", -1, ""), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1", MemberEpoch: -1, RebalanceTimeoutMs: -1}},
		{"static leave", testreq.Leave("g", "m1", -2, "i1"), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1",
			InstanceId: codec.Str("i1"), MemberEpoch: -2, RebalanceTimeoutMs: -1}},
		{"describe", testreq.Describe("g", "h"), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g", "h"}}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, c.got, c.want)
		}
	}
}
