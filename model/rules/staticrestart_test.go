package rules_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Targets on topics a (3 partitions) and b (2), as the uniform assignor
// deals them: to m1 alone, and to m1 and m2.
const (
	allAB = "a0 a1 a2 b0 b1"
	m1Of2 = "a0 a2 b1"
	m2Of2 = "a1 b0"
)

// sm is a member as StaticRestartTracker sees it: id, instance id ("" for a
// dynamic member), epoch and target ("a0 b1": topic letter and partition,
// in topic then partition order; "-" = not visible), on topics a and b
// unless changed.
func sm(id, instance string, epoch int32, target string) rules.MemberSnapshot {
	m := rules.MemberSnapshot{MemberID: id, InstanceID: instance, Epoch: epoch,
		SubscribedTopicNames: []string{"a", "b"}}
	if target != "-" {
		m.Target = []rules.TopicPartition{}
		for _, f := range strings.Fields(target) {
			p, err := strconv.Atoi(f[1:])
			if err != nil {
				panic("bad partition " + f)
			}
			m.Target = append(m.Target, tp(f[:1], int32(p)))
		}
	}
	return m
}

func subscribed(m rules.MemberSnapshot, names ...string) rules.MemberSnapshot {
	m.SubscribedTopicNames = names
	return m
}

// TestStaticRestartTracker: pairs of observations of group g, the first
// with static member m1 (instance i1) parked beside m2 at group epoch 2.
// The rule binds only when the static rejoin is the only change the two
// observations show.
func TestStaticRestartTracker(t *testing.T) {
	parked := grp("g", 2, sm("m1", "i1", -2, m1Of2), sm("m2", "", 2, m2Of2))
	took := func(epoch int32, ms ...rules.MemberSnapshot) rules.GroupSnapshot { return grp("g", epoch, ms...) }
	cases := []struct {
		name string
		cur  rules.GroupSnapshot
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
			var tr rules.StaticRestartTracker
			wantRule(t, "the first observation", tr.Observe([]rules.GroupSnapshot{parked}), "")
			wantRule(t, "the second observation", tr.Observe([]rules.GroupSnapshot{c.cur}), c.rule)
		})
	}
}

func TestStaticRestartTrackerAcrossObservations(t *testing.T) {
	t.Run("groups are tracked apart, each against its own last observation", func(t *testing.T) {
		var tr rules.EpochTracker
		h := grp("h", 7, sm("x", "", 7, "a0"))
		steps := [][]rules.GroupSnapshot{
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
		var tr rules.EpochTracker
		_ = tr.StaticRestarts([]rules.GroupSnapshot{grp("g", 2, sm("m1", "i1", -2, m1Of2), sm("m2", "", 2, m2Of2))})
		err := tr.StaticRestarts([]rules.GroupSnapshot{grp("g", 3, sm("m2", "", 2, m2Of2), sm("m3", "i1", 3, m1Of2))})
		wantRule(t, "the takeover", err, "StaticRestartKeepsAssignment")
		for _, s := range []string{"m1", "m3", "i1", "from 2 to 3"} {
			if err == nil || !strings.Contains(err.Error(), s) {
				t.Errorf("report %v does not name %q", err, s)
			}
		}
	})
}
