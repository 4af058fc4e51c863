package model_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
)

// Session and rebalance timeouts on logical time (A4, A5, §B4.4 "Timers").
// A timer fires inside Advance at its deadline: at deadline-1 the member is
// there, at the deadline it is gone.

func TestSessionTimeout(t *testing.T) {
	t.Run("a member is removed exactly one session timeout after its last successful heartbeat", func(t *testing.T) {
		tc := newCoordTest(t)
		m1Alone(tc)
		tc.advance(20000)
		tc.ok(1, testreq.Heartbeat(group1, "m1", 1, allAB))
		tc.advance(64999)
		tc.wantDescribe("still there 1 ms before", group1, alone)
		tc.advance(65000)
		tc.wantDescribe("gone at 20000+45000; the group epoch moves on", group1, wantGroup{state: model.GroupStateEmpty, epoch: 2})
		if tc.c.Now() != 65000 {
			t.Errorf("Now() = %d, want 65000", tc.c.Now())
		}
	})
	t.Run("error responses do not refresh the session", func(t *testing.T) {
		tc := newCoordTest(t)
		m1Alone(tc)
		tc.advance(20000)
		tc.wantHeartbeatError("a fenced heartbeat", tc.heartbeat(1, testreq.Heartbeat(group1, "m1", 7, allAB)), codec.FencedMemberEpoch)
		tc.want("an invalid request", 1, tc.heartbeat(1, with(testreq.Heartbeat(group1, "m1", 1, allAB), func(r *codec.ConsumerGroupHeartbeatRequest) {
			r.RackId = codec.Str(" ")
		})), invalid("RackId can't be empty."))
		tc.advance(30000)
		tc.wantHeartbeatError("another fenced heartbeat at 30000", tc.heartbeat(1, testreq.Heartbeat(group1, "m1", 9, allAB)), codec.FencedMemberEpoch)
		tc.advance(44999)
		tc.wantDescribe("there until the join's 0+45000", group1, alone)
		tc.advance(45000)
		tc.wantDescribe("gone at 45000, not 65000 or 75000", group1, wantGroup{state: model.GroupStateEmpty, epoch: 2})
	})
	t.Run("a parked member expires at its session deadline, counted from its last heartbeat, not its leave", func(t *testing.T) {
		tc := newCoordTest(t)
		m1StaticAlone(tc)
		tc.advance(10000)
		tc.want("m1 parks at 10000", 1, tc.heartbeat(1, testreq.Leave(group1, "m1", -2, "i1")), left("m1", -2))
		tc.advance(44999)
		tc.wantDescribe("parked, listed with epoch -2", group1, *parkedAlone())
		tc.advance(45000)
		tc.wantDescribe("expired at 0+45000", group1, wantGroup{state: model.GroupStateEmpty, epoch: 2})
	})
	t.Run("expiry frees the partitions for the others", func(t *testing.T) {
		tc := newCoordTest(t)
		m1Alone(tc)
		tc.advance(1000)
		tc.want("m2 waits for m1", 1, tc.heartbeat(1, testreq.Join(group1, "m2", rebalanceMs, "a", "b")), success("m2", 2, ""))
		tc.advance(45000)
		tc.want("m1 expired at 45000: m2, at epoch 2 below the group's 3, takes its new target at once", 1,
			tc.heartbeat(1, testreq.Heartbeat(group1, "m2", 2, "")), success("m2", 3, allAB))
	})
	t.Run("Advance never moves time backward", func(t *testing.T) {
		tc := newCoordTest(t)
		tc.advance(5000)
		tc.advance(3000)
		if tc.c.Now() != 5000 {
			t.Errorf("Now() = %d after Advance(5000), Advance(3000); want 5000", tc.c.Now())
		}
	})
}

func TestRebalanceTimeout(t *testing.T) {
	// m1 (rebalance timeout 1000) owns everything; m2 joins at 100; m1's
	// heartbeat at 200 puts a1 b0 in pending revocation: the timer runs to
	// 1200.
	start := func(t *testing.T, static bool) *coordTest {
		tc := newCoordTest(t)
		j, h := testreq.Join(group1, "m1", 1000, "a", "b"), testreq.Heartbeat(group1, "m1", 1, allAB)
		if static {
			j.InstanceId, h.InstanceId = codec.Str("i1"), codec.Str("i1")
		}
		tc.ok(1, j)
		tc.advance(100)
		tc.ok(1, testreq.Join(group1, "m2", rebalanceMs, "a", "b"))
		tc.advance(200)
		tc.want("m1 must revoke a1 b0", 1, tc.heartbeat(1, h), success("m1", 1, m1Of2))
		return tc
	}
	t.Run("a member that does not revoke within its rebalance timeout is removed", func(t *testing.T) {
		tc := start(t, false)
		tc.advance(1199)
		tc.wantDescribe("m1 still revoking at 1199", group1, wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
			{id: "m1", epoch: 1, assigned: m1Of2, target: m1Of2, topics: ab},
			{id: "m2", epoch: 2, target: m2Of2, topics: ab},
		}})
		tc.advance(1200)
		tc.wantDescribe("m1 removed at 1200; group epoch 3 gives m2 everything", group1, wantGroup{state: model.GroupStateReconciling, epoch: 3, members: []wantMember{
			{id: "m2", epoch: 2, target: allAB, topics: ab},
		}})
	})
	t.Run("a member that revokes in time keeps its place", func(t *testing.T) {
		tc := start(t, false)
		tc.advance(1100)
		tc.want("m1 revoked at 1100", 1, tc.heartbeat(1, testreq.Heartbeat(group1, "m1", 1, m1Of2)), success("m1", 2, "-"))
		tc.advance(1200)
		tc.want("m2 collects", 1, tc.heartbeat(1, testreq.Heartbeat(group1, "m2", 2, "")), success("m2", 2, m2Of2))
		tc.wantDescribe("stable after 1200", group1, stableTwo(false))
	})
	t.Run("parking clears pending revocations, so the rebalance timer cannot remove a parked member", func(t *testing.T) {
		tc := start(t, true)
		tc.advance(300)
		tc.want("m1 parks at 300", 1, tc.heartbeat(1, testreq.Leave(group1, "m1", -2, "i1")), left("m1", -2))
		tc.want("a1 b0 are free at once", 1, tc.heartbeat(1, testreq.Heartbeat(group1, "m2", 2, "")), success("m2", 2, m2Of2))
		tc.advance(1200)
		tc.wantDescribe("m1 still parked after 1200", group1, wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
			{id: "m1", instance: "i1", epoch: -2, assigned: m1Of2, target: m1Of2, topics: ab},
			{id: "m2", epoch: 2, assigned: m2Of2, target: m2Of2, topics: ab},
		}})
		tc.advance(45199)
		tc.wantDescribe("m1 still parked at 45199", group1, wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
			{id: "m1", instance: "i1", epoch: -2, assigned: m1Of2, target: m1Of2, topics: ab},
			{id: "m2", epoch: 2, assigned: m2Of2, target: m2Of2, topics: ab},
		}})
		tc.advance(45200)
		tc.wantDescribe("m1's session (last heartbeat at 200) ended at 45200", group1, wantGroup{state: model.GroupStateReconciling, epoch: 3, members: []wantMember{
			{id: "m2", epoch: 2, assigned: m2Of2, target: allAB, topics: ab},
		}})
	})
	t.Run("a rebalance timeout of zero or below fires at the next Advance, at the current time", func(t *testing.T) {
		for _, rt := range []int32{0, -2, -50} {
			tc := newCoordTest(t)
			tc.advance(1)
			tc.ok(1, testreq.Join(group1, "m1", rt, "a", "b"))
			tc.ok(1, testreq.Join(group1, "m2", rebalanceMs, "a", "b"))
			tc.want("m1 must revoke", 1, tc.heartbeat(1, testreq.Heartbeat(group1, "m1", 1, allAB)), success("m1", 1, m1Of2))
			tc.advance(1)
			tc.wantDescribe("m1 removed", group1, wantGroup{state: model.GroupStateReconciling, epoch: 3, members: []wantMember{
				{id: "m2", epoch: 2, target: allAB, topics: ab},
			}})
			if tc.c.Now() != 1 {
				t.Errorf("rebalance timeout %d: Now() = %d, want 1", rt, tc.c.Now())
			}
		}
	})
}

// A5.5: what a static takeover keeps of the parked member, and what it
// does not: the settings (here the rack, which the new process's join does
// not send) and the assignment stay; the parked member's session timer
// does not (the new member's starts at its join); the old member id is gone.
func TestStaticTakeoverKeepsSettingsNotTimers(t *testing.T) {
	tc := newCoordTest(t)
	tc.ok(1, with(testreq.StaticJoin(group1, "m1", "i1", rebalanceMs, "a", "b"), func(r *codec.ConsumerGroupHeartbeatRequest) { r.RackId = codec.Str("r1") }))
	tc.advance(10000)
	tc.ok(1, testreq.Leave(group1, "m1", -2, "i1")) // parked; its session still ends at 0+45000
	tc.advance(40000)
	tc.want("m3 takes over at 40000, at epoch 1 with everything", 1,
		tc.heartbeat(1, testreq.StaticJoin(group1, "m3", "i1", rebalanceMs, "a", "b")), success("m3", 1, allAB))
	took := wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
		{id: "m3", instance: "i1", rack: "r1", epoch: 1, assigned: allAB, target: allAB, topics: ab},
	}}
	tc.wantDescribe("m3 holds i1 with m1's rack, at the unchanged epoch 1", group1, took)
	tc.advance(45000)
	tc.wantDescribe("m1's session deadline passes: nothing happens", group1, took)
	tc.wantHeartbeatError("the old member id naming i1 is fenced", tc.heartbeat(1, testreq.StaticHeartbeat(group1, "m1", "i1", 1, allAB)),
		codec.FencedInstanceID, "m1", "i1", "m3")
	tc.wantHeartbeatError("the old member id alone is unknown", tc.heartbeat(1, testreq.Heartbeat(group1, "m1", 1, allAB)),
		codec.UnknownMemberID, "m1")
	tc.advance(84999)
	tc.wantDescribe("m3's own session runs from its join", group1, took)
	tc.advance(85000)
	tc.wantDescribe("m3 expires at 40000+45000", group1, wantGroup{state: model.GroupStateEmpty, epoch: 2})
}
