package model_test

import (
	"slices"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// The coordinator's own snapshots through a takeover keep the rule, and a
// Describe of them gives the tracker the same view.
func TestStaticRestartTrackerOnTheModel(t *testing.T) {
	tc := newCoordTest(t)
	twoStable(tc, true)
	tc.ok(1, testreq.Leave(group1, "m1", -2, "i1"))
	var fromSnap, fromDescribe rules.StaticRestartTracker
	describe := func() []rules.GroupSnapshot {
		resp := tc.send(1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group1}}).(*codec.ConsumerGroupDescribeResponse)
		return rules.SnapshotFromDescribe(resp)
	}
	pass := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v, want no violation", what, err)
		}
	}
	pass("parked (snapshot)", fromSnap.Observe(tc.c.Snapshot()))
	pass("parked (describe)", fromDescribe.Observe(describe()))
	tc.ok(1, testreq.StaticJoin(group1, "m3", "i1", rebalanceMs, "a", "b"))
	pass("taken over (snapshot)", fromSnap.Observe(tc.c.Snapshot()))
	pass("taken over (describe)", fromDescribe.Observe(describe()))
	got := tc.c.Snapshot()[0].Members[1]
	if got.MemberID != "m3" || len(got.Target) != 3 || !slices.Equal(got.SubscribedTopicNames, ab) {
		t.Errorf("snapshot of m3 = %+v, want its target a0 a2 b1 and topics a b", got)
	}
}
