package impl_test

import (
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
)

// The rules of docs/PROTOCOL.md A3 (LeaveGroup against consumer groups,
// A3.1-A3.3), A5.2 (assignment keys), A5.5 (static takeover) and A5.7 (full
// requests) on impl, case for case as model's rule tests, with the same
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

// parkedOfTwo: twoStable with m1 static, then m1 parked at -2.
func parkedOfTwo(tc *restartTest) {
	twoStable(tc, true)
	tc.ok(parkReq("m1", "i1"))
}

// parkedThenJoined: m1 (i1) alone owns everything and parks; m2 joins
// (group epoch 2) and waits for a1 b0, which the parked m1 still owns.
func parkedThenJoined(tc *restartTest) {
	tc.ok(staticJoinReq("m1", "i1"))
	tc.ok(parkReq("m1", "i1"))
	tc.ok(joinReq("m2", 60000))
}

func TestStaticTakeover(t *testing.T) {
	for _, c := range []struct {
		name     string
		mut      impl.Mutants
		setup    func(*restartTest)
		req      *codec.ConsumerGroupHeartbeatRequest
		epoch    int32  // in the join response
		assigned string // in the join response
		after    string
	}{
		{"no group-epoch bump: the old target at the current epoch, other targets kept", 0, parkedOfTwo, staticJoinReq("m3", "i1"), 2, m1Of2,
			"Stable epoch 2: m2@2 owns " + m2Of2 + " target " + m2Of2 + "; m3@2 owns " + m1Of2 + " target " + m1Of2},
		{"inherited partitions outside the target are revoked first, at epoch 0", 0, parkedThenJoined, staticJoinReq("m3", "i1"), 0, m1Of2,
			"Reconciling epoch 2: m2@2 owns - target " + m2Of2 + "; m3@0 owns " + m1Of2 + " pending " + m2Of2 + " target " + m1Of2},
		{"a changed subscription bumps the epoch", 0, parkedOfTwo,
			func() *codec.ConsumerGroupHeartbeatRequest {
				r := staticJoinReq("m3", "i1")
				r.SubscribedTopicNames = []string{"a"}
				return r
			}(), 0, "a0 a2",
			"Reconciling epoch 3: m2@2 owns " + m2Of2 + " target a1 b0 b1; m3@0 owns a0 a2 pending b1 target a0 a2"},
		{"with the static-restart-rebalances mutant, the takeover moves the epoch", impl.Mutants(0).With(impl.MutStaticRestartRebalances),
			parkedOfTwo, staticJoinReq("m3", "i1"), 3, m1Of2,
			"Reconciling epoch 3: m2@2 owns " + m2Of2 + " target " + m2Of2 + "; m3@3 owns " + m1Of2 + " target " + m1Of2},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := newRestartTest(t, c.mut)
			c.setup(tc)
			r := tc.ok(c.req)
			if r.MemberEpoch != c.epoch || r.Assignment == nil || partsOfHB(r.Assignment) != c.assigned {
				t.Fatalf("join response: epoch %d, assignment %+v; want epoch %d with %s", r.MemberEpoch, r.Assignment, c.epoch, c.assigned)
			}
			tc.wantGroup("afterwards", c.after)
		})
	}
	t.Run("the new member's session starts at its join; the old id is gone", func(t *testing.T) {
		tc := newRestartTest(t, 0)
		tc.ok(staticJoinReq("m1", "i1"))
		tc.advance(10000)
		tc.ok(parkReq("m1", "i1"))
		tc.advance(40000)
		tc.ok(staticJoinReq("m3", "i1"))
		tc.advance(45000)
		took := "Stable epoch 1: m3@1 owns " + allAB + " target " + allAB
		tc.wantGroup("m1's deadline passes", took)
		old := hbReq("m1", 1, allAB)
		old.InstanceId = codec.Str("i1")
		if r := tc.send(1, codec.NullableUUID{}, old).(*codec.ConsumerGroupHeartbeatResponse); r.ErrorCode != codec.FencedInstanceID {
			t.Fatalf("the old id naming i1: %v, want FENCED_INSTANCE_ID", r.ErrorCode)
		}
		tc.advance(84999)
		tc.wantGroup("m3's session runs from 40000", took)
		tc.advance(85000)
		tc.wantGroup("m3 expires at 85000", emptyAt2)
	})
}

// partsOfHB renders a heartbeat's assignment as partsOf does.
func partsOfHB(a *codec.ConsumerGroupHeartbeatAssignment) string {
	name := map[codec.UUID]string{}
	for _, n := range []string{"a", "b", "c"} {
		name[model.TopicIDFor(n)] = n
	}
	d := codec.DescribedAssignment{}
	for _, t := range a.TopicPartitions {
		d.TopicPartitions = append(d.TopicPartitions, codec.DescribedTopicPartitions{TopicName: name[t.TopicId], Partitions: t.Partitions})
	}
	return partsOf(d)
}

func TestGroupSizeCapSkipsAHeldInstance(t *testing.T) {
	full := func(c *impl.Config) { c.MaxGroupSize = 1 }
	for _, c := range []struct {
		name  string
		park  bool
		req   *codec.ConsumerGroupHeartbeatRequest
		code  codec.ErrorCode
		after string
	}{
		{"a takeover of a parked instance in a full group succeeds", true, staticJoinReq("m3", "i1"), codec.None,
			"Stable epoch 1: m3@1 owns " + allAB + " target " + allAB},
		{"a join for a held, active instance is UNRELEASED_INSTANCE_ID", false, staticJoinReq("m3", "i1"), codec.UnreleasedInstanceID, aloneM1},
		{"a join for an instance nobody holds is GROUP_MAX_SIZE_REACHED", false, staticJoinReq("m3", "i2"), codec.GroupMaxSizeReached, aloneM1},
		{"a dynamic join is GROUP_MAX_SIZE_REACHED, a parked member counting", true, joinReq("m3", 60000), codec.GroupMaxSizeReached,
			"Reconciling epoch 1: m1@-2 owns " + allAB + " target " + allAB},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := newRestartTestWith(t, 0, full)
			tc.ok(staticJoinReq("m1", "i1"))
			if c.park {
				tc.ok(parkReq("m1", "i1"))
			}
			if r := tc.send(1, codec.NullableUUID{}, c.req).(*codec.ConsumerGroupHeartbeatResponse); r.ErrorCode != c.code {
				t.Fatalf("%v %q, want %v", r.ErrorCode, r.ErrorMessage.Value, c.code)
			}
			tc.wantGroup("afterwards", c.after)
		})
	}
}

// A5.2: subscribers sorted by assignment key (instance id of a static
// member), member ids breaking ties.
func TestAssignorSortsByAssignmentKey(t *testing.T) {
	for _, c := range []struct{ static, instance, want string }{
		{"a-static", "z9", "Reconciling epoch 2: a-static@1 owns " + allAB + " target " + m2Of2 + "; m2@2 owns - target " + m1Of2},
		{"s1", "m2", "Reconciling epoch 2: m2@2 owns - target " + m1Of2 + "; s1@1 owns " + allAB + " target " + m2Of2},
		{"z-static", "a0", "Reconciling epoch 2: m2@2 owns - target " + m2Of2 + "; z-static@1 owns " + allAB + " target " + m1Of2},
	} {
		t.Run(c.static+" as "+c.instance, func(t *testing.T) {
			tc := newRestartTest(t, 0)
			tc.ok(staticJoinReq(c.static, c.instance))
			tc.ok(joinReq("m2", 60000))
			tc.wantGroup("targets by key", c.want)
		})
	}
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
