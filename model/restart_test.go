package model_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// A coordinator restart (Coordinator.Restart): persisted state survives,
// timers start afresh, per-connection and telemetry state is lost.
func TestRestart(t *testing.T) {
	t.Run("every session starts afresh: a member outlives its old deadline by the time of the restart", func(t *testing.T) {
		tc := newCoordTest(t)
		m1Alone(tc) // session deadline 45000
		tc.advance(30000)
		tc.c.Restart()
		tc.advance(74999)
		tc.wantDescribe("there past 45000, until 30000+45000", group1, alone)
		tc.advance(75000)
		tc.wantDescribe("gone at 75000", group1, wantGroup{state: model.GroupStateEmpty, epoch: 2})
	})
	t.Run("a member whose session ended before the restart stays gone", func(t *testing.T) {
		tc := newCoordTest(t)
		m1Alone(tc)
		tc.advance(45000)
		tc.c.Restart()
		tc.wantDescribe("expired at 45000, not revived", group1, wantGroup{state: model.GroupStateEmpty, epoch: 2})
	})
	t.Run("a parked static member's session starts afresh too", func(t *testing.T) {
		tc := newCoordTest(t)
		m1StaticAlone(tc)
		tc.advance(10000)
		tc.want("m1 parks at 10000", 1, tc.heartbeat(1, testreq.Leave(group1, "m1", -2, "i1")), left("m1", -2))
		tc.advance(40000)
		tc.c.Restart()
		tc.advance(84999)
		tc.wantDescribe("parked until 40000+45000", group1, *parkedAlone())
		tc.advance(85000)
		tc.wantDescribe("expired at 85000", group1, wantGroup{state: model.GroupStateEmpty, epoch: 2})
	})
	t.Run("a member waiting for revocations gets a fresh rebalance timeout", func(t *testing.T) {
		// As in TestRebalanceTimeout: m1's timer runs from 200 to 1200.
		tc := newCoordTest(t)
		tc.ok(1, testreq.Join(group1, "m1", 1000, "a", "b"))
		tc.advance(100)
		tc.ok(1, testreq.Join(group1, "m2", rebalanceMs, "a", "b"))
		tc.advance(200)
		tc.want("m1 must revoke a1 b0", 1, tc.heartbeat(1, testreq.Heartbeat(group1, "m1", 1, allAB)), success("m1", 1, m1Of2))
		tc.advance(1100)
		tc.c.Restart()
		revoking := wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
			{id: "m1", epoch: 1, assigned: m1Of2, target: m1Of2, topics: ab},
			{id: "m2", epoch: 2, target: m2Of2, topics: ab},
		}}
		tc.advance(2099)
		tc.wantDescribe("m1 still revoking past 1200, until 1100+1000", group1, revoking)
		tc.advance(2100)
		tc.wantDescribe("m1 removed at 2100", group1, wantGroup{state: model.GroupStateReconciling, epoch: 3, members: []wantMember{
			{id: "m2", epoch: 2, target: allAB, topics: ab},
		}})
	})
	t.Run("a stable member gets no rebalance timer", func(t *testing.T) {
		tc := newCoordTest(t)
		twoStable(tc, false)
		tc.c.Restart()
		tc.advance(44000)
		tc.wantDescribe("both still there after any rebalance timeout", group1, stableTwo(false))
	})
	t.Run("groups, epochs and assignments persist; members carry on at their epochs", func(t *testing.T) {
		tc := newCoordTest(t)
		twoStable(tc, true)
		before := tc.c.Snapshot()
		tc.advance(1000)
		tc.c.Restart()
		if !sameSnapshots(before, tc.c.Snapshot()) {
			t.Fatalf("state changed across the restart:\n%s\n%s", dump(before), dump(tc.c.Snapshot()))
		}
		tc.want("m1 heartbeats at its epoch", 1, tc.heartbeat(1, testreq.StaticHeartbeat(group1, "m1", "i1", 2, m1Of2)), success("m1", 2, "-"))
	})
	t.Run("the connection's ClientId is forgotten: a request without one is attributed to none", func(t *testing.T) {
		tc := newCoordTest(t)
		m1Alone(tc) // the connection's first request carried the test ClientId
		tc.c.Restart()
		tc.ok(1, testreq.Heartbeat(group1, "m1", 1, allAB)) // no ClientId: not the connection's first request
		if got := tc.describeGroup(1, group1).Members[0].ClientId; got != "" {
			t.Fatalf("ClientId %q after the restart, want the empty string (the new first request carried none)", got)
		}
	})
	t.Run("telemetry client state is lost: a push needs the subscription fetched again", func(t *testing.T) {
		tc := newCoordTest(t)
		tc.want("subscribed", 1, get(tc, 1, codec.SomeUUID(clientA), codec.UUID{}), subscription(codec.UUID{}))
		tc.c.Restart()
		tc.want("unknown after the restart", 1, pushV1(tc, clientA, goodPush), pushed(codec.UnknownSubscriptionID))
	})
}

// sameSnapshots compares two snapshots by their rendering.
func sameSnapshots(a, b []rules.GroupSnapshot) bool { return dump(a) == dump(b) }
