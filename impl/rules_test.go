package impl_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
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
			tc := newRestartTest(t, impl.Mutants{})
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
		tc := newRestartTest(t, impl.Mutants{})
		twoStable(tc, true)
		top, codes := tc.leaveGroup(5, restartGroup, lgEntry("m1", "i1"), lgEntry("", "i1"), lgEntry("", "i1"), lgEntry("m2", ""))
		if want := fmt.Sprint([]codec.ErrorCode{codec.None, codec.UnknownMemberID, codec.UnknownMemberID, codec.None}); top != codec.None || fmt.Sprint(codes) != want {
			t.Fatalf("top %v, members %v; want NONE, %s", top, codes, want)
		}
		tc.wantGroup("both gone, one bump", "Empty epoch 3")
	})
	t.Run("two of three removed: one bump, one recomputation", func(t *testing.T) {
		tc := newRestartTest(t, impl.Mutants{})
		twoStable(tc, true)
		tc.ok(testreq.Join(restartGroup, "m3", 60000, "a", "b"))
		tc.leaveGroup(3, restartGroup, lgEntry("", "i1"), lgEntry("m2", ""))
		tc.wantGroup("epoch 4, m3's target everything", "Reconciling epoch 4: m3@3 owns - target "+allAB)
		if r := tc.ok(testreq.Heartbeat(restartGroup, "m3", 3, "")); r.MemberEpoch != 4 || r.Assignment == nil || len(r.Assignment.TopicPartitions) != 2 {
			t.Fatalf("m3 moves on: epoch %d, assignment %+v; want epoch 4 and a and b", r.MemberEpoch, r.Assignment)
		}
	})
	t.Run("a batch removing nobody keeps the epoch", func(t *testing.T) {
		tc := newRestartTest(t, impl.Mutants{})
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
				tc := newRestartTest(t, impl.Mutants{})
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
		tc := newRestartTest(t, impl.Mutants{})
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
	tc.ok(testreq.Leave(restartGroup, "m1", -2, "i1"))
}

// parkedThenJoined: m1 (i1) alone owns everything and parks; m2 joins
// (group epoch 2) and waits for a1 b0, which the parked m1 still owns.
func parkedThenJoined(tc *restartTest) {
	tc.ok(testreq.StaticJoin(restartGroup, "m1", "i1", 60000, "a", "b"))
	tc.ok(testreq.Leave(restartGroup, "m1", -2, "i1"))
	tc.ok(testreq.Join(restartGroup, "m2", 60000, "a", "b"))
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
		{"no group-epoch bump: the old target at the current epoch, other targets kept", impl.Mutants{}, parkedOfTwo, testreq.StaticJoin(restartGroup, "m3", "i1", 60000, "a", "b"), 2, m1Of2,
			"Stable epoch 2: m2@2 owns " + m2Of2 + " target " + m2Of2 + "; m3@2 owns " + m1Of2 + " target " + m1Of2},
		{"inherited partitions outside the target are revoked first, at epoch 0", impl.Mutants{}, parkedThenJoined, testreq.StaticJoin(restartGroup, "m3", "i1", 60000, "a", "b"), 0, m1Of2,
			"Reconciling epoch 2: m2@2 owns - target " + m2Of2 + "; m3@0 owns " + m1Of2 + " pending " + m2Of2 + " target " + m1Of2},
		{"a changed subscription bumps the epoch", impl.Mutants{}, parkedOfTwo,
			func() *codec.ConsumerGroupHeartbeatRequest {
				r := testreq.StaticJoin(restartGroup, "m3", "i1", 60000, "a", "b")
				r.SubscribedTopicNames = []string{"a"}
				return r
			}(), 0, "a0 a2",
			"Reconciling epoch 3: m2@2 owns " + m2Of2 + " target a1 b0 b1; m3@0 owns a0 a2 pending b1 target a0 a2"},
		{"with the static-restart-rebalances mutant, the takeover moves the epoch", impl.Mutants{}.With(impl.MutStaticRestartRebalances),
			parkedOfTwo, testreq.StaticJoin(restartGroup, "m3", "i1", 60000, "a", "b"), 3, m1Of2,
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
		tc := newRestartTest(t, impl.Mutants{})
		tc.ok(testreq.StaticJoin(restartGroup, "m1", "i1", 60000, "a", "b"))
		tc.advance(10000)
		tc.ok(testreq.Leave(restartGroup, "m1", -2, "i1"))
		tc.advance(40000)
		tc.ok(testreq.StaticJoin(restartGroup, "m3", "i1", 60000, "a", "b"))
		tc.advance(45000)
		took := "Stable epoch 1: m3@1 owns " + allAB + " target " + allAB
		tc.wantGroup("m1's deadline passes", took)
		old := testreq.Heartbeat(restartGroup, "m1", 1, allAB)
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
		{"a takeover of a parked instance in a full group succeeds", true, testreq.StaticJoin(restartGroup, "m3", "i1", 60000, "a", "b"), codec.None,
			"Stable epoch 1: m3@1 owns " + allAB + " target " + allAB},
		{"a join for a held, active instance is UNRELEASED_INSTANCE_ID", false, testreq.StaticJoin(restartGroup, "m3", "i1", 60000, "a", "b"), codec.UnreleasedInstanceID, aloneM1},
		{"a join for an instance nobody holds is GROUP_MAX_SIZE_REACHED", false, testreq.StaticJoin(restartGroup, "m3", "i2", 60000, "a", "b"), codec.GroupMaxSizeReached, aloneM1},
		{"a dynamic join is GROUP_MAX_SIZE_REACHED, a parked member counting", true, testreq.Join(restartGroup, "m3", 60000, "a", "b"), codec.GroupMaxSizeReached,
			"Reconciling epoch 1: m1@-2 owns " + allAB + " target " + allAB},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := newRestartTestWith(t, impl.Mutants{}, full)
			tc.ok(testreq.StaticJoin(restartGroup, "m1", "i1", 60000, "a", "b"))
			if c.park {
				tc.ok(testreq.Leave(restartGroup, "m1", -2, "i1"))
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
			tc := newRestartTest(t, impl.Mutants{})
			tc.ok(testreq.StaticJoin(restartGroup, c.static, c.instance, 60000, "a", "b"))
			tc.ok(testreq.Join(restartGroup, "m2", 60000, "a", "b"))
			tc.wantGroup("targets by key", c.want)
		})
	}
}

// A5.7: a regex subscription makes a heartbeat full too.
func TestFullRequestByRegex(t *testing.T) {
	tc := newRestartTest(t, impl.Mutants{})
	j := testreq.Join(restartGroup, "m1", 60000, "a", "b")
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
		r := testreq.Heartbeat(restartGroup, "m1", 1, "a0 a1 a2 c0")
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

// The rules the equivalence property reaches only by luck, on impl case
// for case as model's rule tests, each with the mutant that breaks it.

// A5.4, as model's TestEpochCheck: from a stable group at epoch 2 in which
// m1 went from epoch 1 to 2 (its previous epoch is 1) and owns a0 a2 b1.
func TestEpochCheck(t *testing.T) {
	nullOwned := func(r *codec.ConsumerGroupHeartbeatRequest) *codec.ConsumerGroupHeartbeatRequest {
		r.TopicPartitions = nil
		return r
	}
	unknownTopic := testreq.Heartbeat(restartGroup, "m1", 1, "")
	unknownTopic.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{{TopicId: model.TopicIDFor("zzz"), Partitions: []int32{0}}}
	for _, c := range []struct {
		name string
		mut  impl.Mutants
		req  *codec.ConsumerGroupHeartbeatRequest
		code codec.ErrorCode
	}{
		{"the previous epoch with owned partitions a subset of the assignment is accepted (lost response)", impl.Mutants{}, testreq.Heartbeat(restartGroup, "m1", 1, "a0 b1"), codec.None},
		{"the previous epoch reporting the whole assignment is accepted", impl.Mutants{}, testreq.Heartbeat(restartGroup, "m1", 1, m1Of2), codec.None},
		{"the previous epoch without owned partitions is FENCED_MEMBER_EPOCH", impl.Mutants{}, nullOwned(testreq.Heartbeat(restartGroup, "m1", 1, "")), codec.FencedMemberEpoch},
		{"... which the prev-epoch-without-owned mutant accepts", impl.Mutants{}.With(impl.MutPrevEpochWithoutOwned), nullOwned(testreq.Heartbeat(restartGroup, "m1", 1, "")), codec.None},
		{"the previous epoch with a partition outside the assignment is FENCED_MEMBER_EPOCH", impl.Mutants{}, testreq.Heartbeat(restartGroup, "m1", 1, "a0 a1"), codec.FencedMemberEpoch},
		{"the previous epoch with an unknown topic is FENCED_MEMBER_EPOCH", impl.Mutants{}, unknownTopic, codec.FencedMemberEpoch},
		{"an epoch above the member's is FENCED_MEMBER_EPOCH", impl.Mutants{}, testreq.Heartbeat(restartGroup, "m1", 3, m1Of2), codec.FencedMemberEpoch},
		{"m2's previous epoch is 0: a heartbeat at epoch 1 is FENCED_MEMBER_EPOCH", impl.Mutants{}, testreq.Heartbeat(restartGroup, "m2", 1, m2Of2), codec.FencedMemberEpoch},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := newRestartTest(t, c.mut)
			twoStable(tc, false)
			r := tc.send(1, codec.NullableUUID{}, c.req).(*codec.ConsumerGroupHeartbeatResponse)
			if r.ErrorCode != c.code {
				t.Fatalf("%v %q, want %v", r.ErrorCode, r.ErrorMessage.Value, c.code)
			}
			if c.code == codec.None && (r.MemberEpoch != 2 || r.Assignment != nil) {
				t.Fatalf("accepted at epoch %d with assignment %+v, want epoch 2 and none (nothing changed)", r.MemberEpoch, r.Assignment)
			}
			if c.code != codec.None || !c.mut.Any() {
				tc.wantGroup("unchanged", stableTwo)
			}
		})
	}
}

// §B4.4: parking at -2 drops the member's pending revocations (the new
// owner may take them at once) and stops its rebalance timer, which would
// otherwise remove it for not revoking; as model's parking rules.
func TestParkingClearsPendingRevocations(t *testing.T) {
	for _, c := range []struct {
		name   string
		mut    impl.Mutants
		parked string // after m2 heartbeats
		later  string // past m1's rebalance timeout, before its session's end
	}{
		{"pending released, timer stopped", impl.Mutants{},
			"Reconciling epoch 2: m1@-2 owns " + m1Of2 + " target " + m1Of2 + "; m2@2 owns " + m2Of2 + " target " + m2Of2,
			"Reconciling epoch 2: m1@-2 owns " + m1Of2 + " target " + m1Of2 + "; m2@2 owns " + m2Of2 + " target " + m2Of2},
		{"the park-keeps-pending mutant keeps both", impl.Mutants{}.With(impl.MutParkKeepsPending),
			"Reconciling epoch 2: m1@-2 owns " + m1Of2 + " pending " + m2Of2 + " target " + m1Of2 + "; m2@2 owns - target " + m2Of2,
			"Reconciling epoch 3: m2@2 owns - target " + allAB},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := newRestartTest(t, c.mut)
			j := testreq.StaticJoin(restartGroup, "m1", "i1", 60000, "a", "b")
			j.RebalanceTimeoutMs = 5000
			tc.ok(j)
			tc.ok(testreq.Join(restartGroup, "m2", 60000, "a", "b"))
			h := testreq.Heartbeat(restartGroup, "m1", 1, allAB)
			h.InstanceId = codec.Str("i1")
			if r := tc.ok(h); r.MemberEpoch != 1 {
				t.Fatalf("m1 must first revoke a1 b0: epoch %d", r.MemberEpoch)
			}
			tc.ok(testreq.Leave(restartGroup, "m1", -2, "i1"))
			tc.ok(testreq.Heartbeat(restartGroup, "m2", 2, ""))
			tc.wantGroup("parked, m2 heartbeats", c.parked)
			tc.advance(6000)
			tc.wantGroup("past m1's 5000 ms rebalance timeout", c.later)
		})
	}
}

// A5.2 and A5.5: a takeover under a new member id that sorts on the other
// side of the other members keeps every target, at the takeover and at the
// next rebalance, because the assignor keys a static member by its
// instance id; keyed by member id (the takeover-keys-by-member-id mutant)
// the next rebalance moves them.
func TestTakeoverWithChangedMemberIDOrder(t *testing.T) {
	for _, c := range []struct {
		name, newID string
		mut         impl.Mutants
		targets     string // after m4 joins: by member id
	}{
		{"a new id sorting first", "a0-new", impl.Mutants{}, "a0-new: a0 b0; m2: a1 b1; m4: a2"},
		{"a new id sorting last", "z9-new", impl.Mutants{}, "m2: a1 b1; m4: a2; z9-new: a0 b0"},
		{"a new id sorting last, keyed by member id", "z9-new", impl.Mutants{}.With(impl.MutTakeoverKeysByMemberID), "m2: a0 b0; m4: a1 b1; z9-new: a2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := newRestartTest(t, c.mut)
			twoStable(tc, true)
			tc.ok(testreq.Leave(restartGroup, "m1", -2, "i1"))
			r := tc.ok(testreq.StaticJoin(restartGroup, c.newID, "i1", 60000, "a", "b"))
			if r.MemberEpoch != 2 || partsOfHB(r.Assignment) != m1Of2 {
				t.Fatalf("takeover: epoch %d assignment %s, want epoch 2 with %s", r.MemberEpoch, partsOfHB(r.Assignment), m1Of2)
			}
			tc.ok(testreq.Join(restartGroup, "m4", 60000, "a", "b"))
			if got := tc.targets(); got != c.targets {
				t.Fatalf("targets after m4 joined: %s, want %s", got, c.targets)
			}
		})
	}
}

// targets renders each member's target, members in id order.
func (tc *restartTest) targets() string {
	var out []string
	for _, m := range tc.describe().Members {
		out = append(out, m.MemberId+": "+partsOf(m.TargetAssignment))
	}
	return strings.Join(out, "; ")
}

// A3.2: a LeaveGroup removing two members moves the group epoch once; the
// leavegroup-bump-per-member mutant moves it twice.
func TestLeaveGroupBatchOneBump(t *testing.T) {
	for _, c := range []struct {
		mut   impl.Mutants
		epoch int32
	}{{impl.Mutants{}, 3}, {impl.Mutants{}.With(impl.MutLeaveGroupBumpPerMember), 4}} {
		tc := newRestartTest(t, c.mut)
		twoStable(tc, true)
		top, codes := tc.leaveGroup(3, restartGroup, lgEntry("", "i1"), lgEntry("m2", ""))
		if top != codec.None || len(codes) != 2 || codes[0] != codec.None || codes[1] != codec.None {
			t.Fatalf("mutants %v: top %v members %v, want NONE [NONE NONE]", c.mut, top, codes)
		}
		if d := tc.describe(); d.GroupEpoch != c.epoch || len(d.Members) != 0 {
			t.Fatalf("mutants %v: epoch %d with %d members, want %d and none", c.mut, d.GroupEpoch, len(d.Members), c.epoch)
		}
	}
}

// A5.3 step 2, as the model's reconciliation: a member with pending
// revocations waits, even when the target moves again under it; what it
// must give up for the newer target waits until its revocations are done.
// m1 revokes a1 b0 for m2, then m3 joins (epoch 3) while m1 still reports
// them: m1's next heartbeat changes nothing and carries no assignment.
func TestRevokingMemberWaits(t *testing.T) {
	for _, c := range []struct {
		name    string
		mut     impl.Mutants
		revokes bool // the answer carries a smaller assignment
	}{
		{"the revoking member waits", impl.Mutants{}, false},
		{"the revoking-takes-new-target mutant revokes against the new target at once", impl.Mutants{}.With(impl.MutRevokingTakesNewTarget), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := newRestartTest(t, c.mut)
			tc.ok(testreq.Join(restartGroup, "m1", 60000, "a", "b"))
			tc.ok(testreq.Heartbeat(restartGroup, "m1", 1, allAB))
			tc.ok(testreq.Join(restartGroup, "m2", 60000, "a", "b"))
			if r := tc.ok(testreq.Heartbeat(restartGroup, "m1", 1, allAB)); partsOfHB(r.Assignment) != m1Of2 {
				t.Fatalf("setup: m1 keeps %s, want %s", partsOfHB(r.Assignment), m1Of2)
			}
			tc.ok(testreq.Join(restartGroup, "m3", 60000, "a", "b"))
			r := tc.ok(testreq.Heartbeat(restartGroup, "m1", 1, allAB))
			if got := r.Assignment != nil; got != c.revokes {
				t.Fatalf("m1 still revoking after the target moved: assignment %q, want one: %v", partsOfHB(r.Assignment), c.revokes)
			}
		})
	}
}
