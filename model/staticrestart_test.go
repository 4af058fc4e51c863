package model_test

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
)

// sm is a member as StaticRestartTracker sees it: id, instance id ("" for a
// dynamic member), epoch and target ("a0 b1", "-" = not visible), on
// topics a and b unless changed.
func sm(id, instance string, epoch int32, target string) model.MemberSnapshot {
	m := model.MemberSnapshot{MemberID: id, InstanceID: instance, Epoch: epoch,
		SubscribedTopicNames: []string{"a", "b"}}
	if target != "-" {
		m.Target = []model.TopicPartition{}
		for _, t := range topicsOf(parts(target)) {
			for _, p := range parts(target)[t] {
				m.Target = append(m.Target, tp(t, p))
			}
		}
	}
	return m
}

func subscribed(m model.MemberSnapshot, names ...string) model.MemberSnapshot {
	m.SubscribedTopicNames = names
	return m
}

// TestStaticRestartTracker: pairs of observations of group g, the first
// with static member m1 (instance i1) parked beside m2 at group epoch 2.
// The rule binds only when the static rejoin is the only change the two
// observations show.
func TestStaticRestartTracker(t *testing.T) {
	parked := grp("g", 2, sm("m1", "i1", -2, m1Of2), sm("m2", "", 2, m2Of2))
	took := func(epoch int32, ms ...model.MemberSnapshot) model.GroupSnapshot { return grp("g", epoch, ms...) }
	cases := []struct {
		name string
		cur  model.GroupSnapshot
		rule string
	}{
		{"a takeover that keeps the epoch and every target", took(2, sm("m2", "", 2, m2Of2), sm("m3", "i1", 2, m1Of2)), ""},
		{"a takeover still reconciling at epoch 0", took(2, sm("m2", "", 2, m2Of2), sm("m3", "i1", 0, m1Of2)), ""},
		{"a takeover that moved the group epoch", took(3, sm("m2", "", 2, m2Of2), sm("m3", "i1", 3, m1Of2)), "StaticRestartKeepsAssignment"},
		{"a takeover that moved another member's target", took(2, sm("m2", "", 2, m1Of2), sm("m3", "i1", 2, m2Of2)), "StaticRestartKeepsAssignment"},
		{"a takeover that did not get the instance's target", took(2, sm("m2", "", 2, m2Of2), sm("m3", "i1", 2, "a0")), "StaticRestartKeepsAssignment"},
		{"a takeover whose member parked again, epoch moved", took(3, sm("m2", "", 2, m2Of2), sm("m3", "i1", -2, m1Of2)), "StaticRestartKeepsAssignment"},
		{"the parked member resuming under its own id, epoch kept", took(2, sm("m1", "i1", 2, m1Of2), sm("m2", "", 2, m2Of2)), ""},
		{"the parked member resuming under its own id, epoch moved", took(3, sm("m1", "i1", 3, m1Of2), sm("m2", "", 2, m2Of2)), "StaticRestartKeepsAssignment"},
		{"targets not visible: only the epoch is held", took(2, sm("m2", "", 2, "-"), sm("m3", "i1", 2, "-")), ""},
		{"targets not visible, epoch moved", took(3, sm("m2", "", 2, "-"), sm("m3", "i1", 3, "-")), "StaticRestartKeepsAssignment"},
		// Other changes in between move the epoch legitimately.
		{"another member joined too", took(3, sm("m2", "", 2, "a1"), sm("m3", "i1", 3, "a0 a2"), sm("m4", "", 3, "b0 b1")), ""},
		{"another member left too", took(3, sm("m3", "i1", 3, allAB)), ""},
		{"another member's subscription changed", took(3, subscribed(sm("m2", "", 2, "a1"), "a"), sm("m3", "i1", 3, "a0 a2 b0 b1")), ""},
		{"the takeover changed the subscription", took(3, sm("m2", "", 2, "a1 b0 b1"), subscribed(sm("m3", "i1", 0, "a0 a2"), "a")), ""},
		// Two or more steps are not judged: a pair of hidden changes.
		{"another member left and joined again (two steps)", took(4, sm("m2", "", 4, m2Of2), sm("m3", "i1", 4, m1Of2)), ""},
		{"the parked member expired and its successor joined afresh (two steps)", took(4, sm("m2", "", 2, m2Of2), sm("m3", "i1", 4, m1Of2)), ""},
		// One step is never a hidden pair, whoever moved with it.
		{"one step, another member at the new epoch too", took(3, sm("m2", "", 3, m2Of2), sm("m3", "i1", 3, m1Of2)), "StaticRestartKeepsAssignment"},
		// No static rejoin at all.
		{"still parked, epoch moved for another reason", took(3, sm("m1", "i1", -2, m1Of2), sm("m2", "", 3, allAB)), ""},
		{"the parked member expired", took(3, sm("m2", "", 3, allAB)), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tr model.StaticRestartTracker
			wantRule(t, "the first observation", tr.Observe([]model.GroupSnapshot{parked}), "")
			wantRule(t, "the second observation", tr.Observe([]model.GroupSnapshot{c.cur}), c.rule)
		})
	}
}

func TestStaticRestartTrackerAcrossObservations(t *testing.T) {
	t.Run("groups are tracked apart, each against its own last observation", func(t *testing.T) {
		var tr model.EpochTracker
		h := grp("h", 7, sm("x", "", 7, "a0"))
		steps := [][]model.GroupSnapshot{
			{grp("g", 2, sm("m1", "i1", -2, m1Of2), sm("m2", "", 2, m2Of2))},
			{h}, // g not observed this time
			{grp("g", 2, sm("m2", "", 2, m2Of2), sm("m3", "i1", 2, m1Of2)), h},
		}
		for i, s := range steps {
			wantRule(t, "observation", tr.StaticRestarts(s), "")
			if err := tr.Observe(s); err != nil {
				t.Fatalf("observation %d: %v", i, err)
			}
		}
	})
	t.Run("a rebalancing takeover is reported with the ids, the instance and the epochs", func(t *testing.T) {
		var tr model.EpochTracker
		_ = tr.StaticRestarts([]model.GroupSnapshot{grp("g", 2, sm("m1", "i1", -2, m1Of2), sm("m2", "", 2, m2Of2))})
		err := tr.StaticRestarts([]model.GroupSnapshot{grp("g", 3, sm("m2", "", 2, m2Of2), sm("m3", "i1", 3, m1Of2))})
		wantRule(t, "the takeover", err, "StaticRestartKeepsAssignment")
		for _, s := range []string{"m1", "m3", "i1", "from 2 to 3"} {
			if err == nil || !strings.Contains(err.Error(), s) {
				t.Errorf("report %v does not name %q", err, s)
			}
		}
	})
}

// The coordinator's own snapshots through a takeover keep the rule, and a
// Describe of them gives the tracker the same view.
func TestStaticRestartTrackerOnTheModel(t *testing.T) {
	tc := newCoordTest(t)
	twoStable(tc, true)
	tc.ok(1, leave(group1, "m1", -2, "i1"))
	var fromSnap, fromDescribe model.StaticRestartTracker
	describe := func() []model.GroupSnapshot {
		resp := tc.send(1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group1}}).(*codec.ConsumerGroupDescribeResponse)
		return model.SnapshotFromDescribe(resp)
	}
	wantRule(t, "parked (snapshot)", fromSnap.Observe(tc.c.Snapshot()), "")
	wantRule(t, "parked (describe)", fromDescribe.Observe(describe()), "")
	tc.ok(1, staticJoin(group1, "m3", "i1", "a", "b"))
	wantRule(t, "taken over (snapshot)", fromSnap.Observe(tc.c.Snapshot()), "")
	wantRule(t, "taken over (describe)", fromDescribe.Observe(describe()), "")
	got := tc.c.Snapshot()[0].Members[1]
	if got.MemberID != "m3" || len(got.Target) != 3 || !slicesEqual(got.SubscribedTopicNames, ab) {
		t.Errorf("snapshot of m3 = %+v, want its target a0 a2 b1 and topics a b", got)
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }
