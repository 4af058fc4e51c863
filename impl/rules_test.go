package impl_test

import (
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The rules of docs/PROTOCOL.md A3 (LeaveGroup against consumer groups,
// A3.1-A3.3) and A5.7 (full requests) on impl, case for case as model's rule tests, with the same
// hand-written expectations (rendered by restartTest.render). Every step
// also checks impl's bookkeeping (restartTest.check).

const (
	m2OnlyAt3 = "Reconciling epoch 3: m2@2 owns " + m2Of2 + " target " + allAB
	m1OnlyAt3 = "Reconciling epoch 3: m1@2 owns " + m1Of2 + " target " + allAB
)

func lgEntry(member, instance string) codec.LeaveGroupMember {
	m := codec.LeaveGroupMember{MemberId: member}
	if instance != "" {
		m.GroupInstanceId = codec.Str(instance)
	}
	return m
}

// leaveGroup sends one LeaveGroup v3+ and returns the per-member codes.
func (tc *restartTest) leaveGroup(version int16, group string, entries ...codec.LeaveGroupMember) (codec.ErrorCode, []codec.ErrorCode) {
	tc.t.Helper()
	resp := tc.send(version, codec.NullableUUID{}, &codec.LeaveGroupRequest{GroupId: group, Members: entries}).(*codec.LeaveGroupResponse)
	var codes []codec.ErrorCode
	for _, m := range resp.Members {
		codes = append(codes, m.ErrorCode)
	}
	return resp.ErrorCode, codes
}

func parkReq(member, instance string) *codec.ConsumerGroupHeartbeatRequest {
	return &codec.ConsumerGroupHeartbeatRequest{GroupId: restartGroup, MemberId: member, InstanceId: codec.Str(instance), MemberEpoch: -2, RebalanceTimeoutMs: -1}
}

func TestLeaveGroupTable(t *testing.T) {
	for _, row := range []struct {
		name  string
		entry codec.LeaveGroupMember
		code  codec.ErrorCode
		after string
	}{
		{"empty member id, held instance: administrative removal", lgEntry("", "i1"), codec.None, m2OnlyAt3},
		{"empty member id, unknown instance", lgEntry("", "i9"), codec.UnknownMemberID, stableTwo},
		{"empty member id, null instance", lgEntry("", ""), codec.UnknownMemberID, stableTwo},
		{"a dynamic member's id, null instance: removed", lgEntry("m2", ""), codec.None, m1OnlyAt3},
		{"a member's id with the instance it holds: removed", lgEntry("m1", "i1"), codec.None, m2OnlyAt3},
		{"a static member's id, null instance: removed", lgEntry("m1", ""), codec.None, m2OnlyAt3},
		{"unknown member id, null instance", lgEntry("m9", ""), codec.UnknownMemberID, stableTwo},
		{"a member id with an unknown instance", lgEntry("m1", "i9"), codec.UnknownMemberID, stableTwo},
		{"a member id with an instance another member holds", lgEntry("m2", "i1"), codec.FencedInstanceID, stableTwo},
		{"an unknown member id with a held instance", lgEntry("m9", "i1"), codec.FencedInstanceID, stableTwo},
	} {
		t.Run(row.name, func(t *testing.T) {
			tc := newRestartTest(t, 0)
			twoStable(tc, true)
			top, codes := tc.leaveGroup(4, restartGroup, row.entry)
			if top != codec.None || len(codes) != 1 || codes[0] != row.code {
				t.Fatalf("top %v, members %v; want NONE, [%v]", top, codes, row.code)
			}
			tc.wantGroup("afterwards", row.after)
		})
	}
}

func TestLeaveGroupBatchesAndGroupIDs(t *testing.T) {
	t.Run("entries in order, removals fenced in one epoch", func(t *testing.T) {
		tc := newRestartTest(t, 0)
		twoStable(tc, true)
		top, codes := tc.leaveGroup(5, restartGroup, lgEntry("m1", "i1"), lgEntry("", "i1"), lgEntry("", "i1"), lgEntry("m2", ""))
		if want := fmt.Sprint([]codec.ErrorCode{codec.None, codec.UnknownMemberID, codec.UnknownMemberID, codec.None}); top != codec.None || fmt.Sprint(codes) != want {
			t.Fatalf("top %v, members %v; want NONE, %s", top, codes, want)
		}
		tc.wantGroup("both gone, one bump", "Empty epoch 3")
	})
	t.Run("two of three removed: one bump, one recomputation", func(t *testing.T) {
		tc := newRestartTest(t, 0)
		twoStable(tc, true)
		tc.ok(joinReq("m3", 60000))
		tc.leaveGroup(3, restartGroup, lgEntry("", "i1"), lgEntry("m2", ""))
		tc.wantGroup("epoch 4, m3's target everything", "Reconciling epoch 4: m3@3 owns - target "+allAB)
		if r := tc.ok(hbReq("m3", 3, "")); r.MemberEpoch != 4 || r.Assignment == nil || len(r.Assignment.TopicPartitions) != 2 {
			t.Fatalf("m3 moves on: epoch %d, assignment %+v; want epoch 4 and a and b", r.MemberEpoch, r.Assignment)
		}
	})
	t.Run("a batch removing nobody keeps the epoch", func(t *testing.T) {
		tc := newRestartTest(t, 0)
		twoStable(tc, true)
		tc.leaveGroup(3, restartGroup, lgEntry("m9", ""), lgEntry("", "i9"), lgEntry("m2", "i1"))
		tc.wantGroup("unchanged", stableTwo)
	})
	for v := int16(0); v <= 2; v++ {
		for _, c := range []struct {
			group, member string
			code          codec.ErrorCode
			after         string
		}{
			{restartGroup, "m2", codec.None, m1OnlyAt3},
			{restartGroup, "m1", codec.None, m2OnlyAt3},
			{restartGroup, "m9", codec.UnknownMemberID, stableTwo},
			{restartGroup, "", codec.UnknownMemberID, stableTwo},
			{"  ", "m1", codec.UnknownMemberID, stableTwo},
			{"", "m1", codec.InvalidGroupID, stableTwo},
		} {
			t.Run(fmt.Sprintf("v%d group %q member %q", v, c.group, c.member), func(t *testing.T) {
				tc := newRestartTest(t, 0)
				twoStable(tc, true)
				resp := tc.send(v, codec.NullableUUID{}, &codec.LeaveGroupRequest{GroupId: c.group, MemberId: c.member}).(*codec.LeaveGroupResponse)
				if resp.ErrorCode != c.code {
					t.Fatalf("top-level %v, want %v", resp.ErrorCode, c.code)
				}
				tc.wantGroup("afterwards", c.after)
			})
		}
	}
	t.Run("LeaveGroup v3 and Describe do not trim the group id", func(t *testing.T) {
		tc := newRestartTest(t, 0)
		top, codes := tc.leaveGroup(3, "  ", lgEntry("", "i1"))
		if top != codec.None || len(codes) != 1 || codes[0] != codec.UnknownMemberID {
			t.Fatalf("LeaveGroup of %q: top %v, members %v; want NONE, [UNKNOWN_MEMBER_ID]", "  ", top, codes)
		}
		if top, _ := tc.leaveGroup(3, "", lgEntry("", "i1")); top != codec.InvalidGroupID {
			t.Fatalf("LeaveGroup of \"\": top %v, want INVALID_GROUP_ID", top)
		}
		resp := tc.send(1, codec.NullableUUID{}, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"", "  "}}).(*codec.ConsumerGroupDescribeResponse)
		if resp.Groups[0].ErrorCode != codec.InvalidGroupID || resp.Groups[1].ErrorCode != codec.GroupIDNotFound ||
			resp.Groups[1].ErrorMessage.Value != "Group    not found." {
			t.Fatalf("Describe of \"\" and %q: %+v; want INVALID_GROUP_ID, then GROUP_ID_NOT_FOUND", "  ", resp.Groups)
		}
	})
}

// A5.7: a regex subscription makes a heartbeat full too.
func TestFullRequestByRegex(t *testing.T) {
	tc := newRestartTest(t, 0)
	j := joinReq("m1", 60000)
	j.SubscribedTopicNames, j.SubscribedTopicRegex = nil, codec.Str("a|c")
	tc.ok(j)
	for _, c := range []struct {
		name       string
		rt         int32
		regex      bool
		owned      bool
		assignment bool
	}{
		{"timeout, regex, owned partitions: full", 60000, true, true, true},
		{"no regex: not full", 60000, false, true, false},
		{"no timeout: not full", -1, true, true, false},
		{"owned partitions null: not full", 60000, true, false, false},
	} {
		r := hbReq("m1", 1, "a0 a1 a2 c0")
		r.RebalanceTimeoutMs = c.rt
		if c.regex {
			r.SubscribedTopicRegex = codec.Str("a|c")
		}
		if !c.owned {
			r.TopicPartitions = nil
		}
		if got := tc.ok(r).Assignment != nil; got != c.assignment {
			t.Errorf("%s: assignment sent %v, want %v", c.name, got, c.assignment)
		}
	}
}
