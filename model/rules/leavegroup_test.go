package rules_test

import (
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

const group1 = "g"

func lgMember(memberID, instanceID string) codec.LeaveGroupMember {
	m := codec.LeaveGroupMember{MemberId: memberID, GroupInstanceId: codec.Null}
	if instanceID != "" {
		m.GroupInstanceId = codec.Str(instanceID)
	}
	return m
}

// PlanLeaveGroup: one batch at v3+ (capped at the client's v5, Reason only
// from v5); below v3 one request per member id, and a member named only by
// its instance id cannot be removed (UNSUPPORTED_VERSION).
func TestPlanLeaveGroup(t *testing.T) {
	withReason := func(m codec.LeaveGroupMember) codec.LeaveGroupMember {
		m.Reason = codec.Str("scaling down")
		return m
	}
	members := []codec.LeaveGroupMember{withReason(lgMember("", "i1")), withReason(lgMember("m2", "")), withReason(lgMember("m3", "i3"))}
	for _, c := range []struct {
		brokerMax, want int16
	}{{5, 5}, {7, 5}, {4, 4}, {3, 3}} {
		t.Run(fmt.Sprintf("broker max v%d: one batch at v%d", c.brokerMax, c.want), func(t *testing.T) {
			calls, results := rules.PlanLeaveGroup(group1, members, c.brokerMax)
			if len(calls) != 1 || calls[0].Version != c.want || fmt.Sprint(calls[0].Members) != "[0 1 2]" {
				t.Fatalf("calls %+v, want one at v%d carrying members [0 1 2]", calls, c.want)
			}
			want := &codec.LeaveGroupRequest{GroupId: group1, Members: []codec.LeaveGroupMember{lgMember("", "i1"), lgMember("m2", ""), lgMember("m3", "i3")}}
			if c.want >= 5 {
				want.Members = members // Reason exists from v5 only
			}
			if d := codectest.WireDiff(c.want, calls[0].Request, want); d != "" {
				t.Error(d)
			}
			if calls[0].Request.Members[0].Reason.Valid != (c.want >= 5) {
				t.Errorf("Reason kept: %v, want it only at v5", calls[0].Request.Members[0].Reason.Valid)
			}
			if fmt.Sprint(results) != fmt.Sprint([]codec.ErrorCode{codec.None, codec.None, codec.None}) {
				t.Errorf("results %v, want all pending (NONE)", results)
			}
		})
	}
	for _, max := range []int16{0, 1, 2} {
		t.Run(fmt.Sprintf("broker max v%d: one request per member id; instance ids cannot be expressed", max), func(t *testing.T) {
			calls, results := rules.PlanLeaveGroup(group1, members, max)
			if len(calls) != 1 || calls[0].Version != max || fmt.Sprint(calls[0].Members) != "[1]" {
				t.Fatalf("calls %+v, want one v%d request for member 1", calls, max)
			}
			if d := codectest.WireDiff(max, calls[0].Request, &codec.LeaveGroupRequest{GroupId: group1, MemberId: "m2"}); d != "" {
				t.Error(d)
			}
			want := []codec.ErrorCode{codec.UnsupportedVersion, codec.None, codec.UnsupportedVersion}
			if fmt.Sprint(results) != fmt.Sprint(want) {
				t.Errorf("results %v, want %v", results, want)
			}
		})
	}
	t.Run("below v3 several dynamic members make several requests", func(t *testing.T) {
		calls, _ := rules.PlanLeaveGroup(group1, []codec.LeaveGroupMember{lgMember("m1", ""), lgMember("m2", "")}, 2)
		if len(calls) != 2 || calls[0].Request.MemberId != "m1" || calls[1].Request.MemberId != "m2" {
			t.Errorf("calls %+v, want one per member id", calls)
		}
	})
}
