package rules

import (
	"maps"
	"slices"
	"strings"
)

// RuleStaticRestartKeepsAssignment is the rule StaticRestartTracker reports.
const (
	RuleStaticRestartKeepsAssignment    Rule = "StaticRestartKeepsAssignment"
	meaningStaticRestartKeepsAssignment      = "a static member that rejoins under its instance id within its session (a restarted process under a new member id, or the parked member itself) keeps its partitions without a rebalance: the group epoch and every other member's target stay (KIP-345)"
)

// StaticRestartTracker checks KIP-345's promise across observations
// (docs/PROTOCOL.md A5.5): a static restart is not a rebalance. Between two
// observations of a group, a *static rejoin* is a member parked at epoch -2
// in the first whose instance id, in the second, is held by a new member id
// (a restarted process took it over) or by the same member id no longer
// parked (it resumed). When the two observations show nothing else that
// changed (the same members, the rejoined ones under their new ids, and
// every member's subscription the same):
//
//   - the group epoch has not moved, and then every other member's target
//     is what it was and the rejoined member's target is the one its
//     instance had;
//   - above all it has not moved by exactly one: every change of
//     membership or subscription moves the epoch by one (a LeaveGroup
//     batch by one for all its removals, A3.2), so a single step with no
//     change to show for it is the rejoin counted as a rebalance.
//
// A move by two or more is not judged: a change hidden between the
// observations always comes in a pair, a removal and a join of the same
// member id (a member that left and joined again, or the parked member
// that expired just before its successor joined afresh), and two moves
// cannot be told from such a pair. Targets are compared only where both
// observations show one (Target non-nil).
type StaticRestartTracker struct {
	// last is each group's last observation, in group id order (a slice,
	// not a map: the explorer, package explore, makes a tracker for each
	// pair of states it checks, of a group or two).
	last []GroupSnapshot
}

// Observe records groups and reports the first static rejoin that moved
// the group epoch or another member's target.
func (t *StaticRestartTracker) Observe(groups []GroupSnapshot) error {
	var first error
	for _, g := range groups {
		i, seen := slices.BinarySearchFunc(t.last, g.GroupID, func(s GroupSnapshot, id string) int { return strings.Compare(s.GroupID, id) })
		if !seen {
			t.last = slices.Insert(t.last, i, g)
			continue
		}
		if first == nil {
			first = checkStaticRejoins(t.last[i], g)
		}
		t.last[i] = g
	}
	return first
}

// forget drops what the tracker knows of group.
func (t *StaticRestartTracker) forget(group string) {
	t.last = slices.DeleteFunc(t.last, func(g GroupSnapshot) bool { return g.GroupID == group })
}

// checkStaticRejoins holds one pair of observations of a group to the
// rule (see StaticRestartTracker).
func checkStaticRejoins(prev, cur GroupSnapshot) error {
	rejoined := staticRejoins(prev, cur)
	if len(rejoined) == 0 || !onlyRejoins(prev, cur, rejoined) {
		return nil
	}
	o := slices.Sorted(maps.Keys(rejoined))[0] // one rejoin, to name in a report
	n := rejoined[o]
	switch cur.Epoch - prev.Epoch {
	case 0:
	case 1:
		return violation(RuleStaticRestartKeepsAssignment, "group %s: static member %s rejoined as %s (instance %s) with no other change, and the group epoch went from %d to %d",
			cur.GroupID, o, n, memberOf(cur, n).InstanceID, prev.Epoch, cur.Epoch)
	default:
		return nil // no verdict (see StaticRestartTracker)
	}
	back := map[string]string{} // current id -> id in prev
	for p, c := range rejoined {
		back[c] = p
	}
	for _, m := range cur.Members {
		was := m.MemberID
		if p, ok := back[was]; ok {
			was = p
		}
		pm := memberOf(prev, was)
		if m.Target == nil || pm.Target == nil || slices.Equal(m.Target, pm.Target) {
			continue
		}
		if was != m.MemberID {
			return violation(RuleStaticRestartKeepsAssignment, "group %s: %s took over instance %s from %s with target %v, not the instance's %v",
				cur.GroupID, m.MemberID, m.InstanceID, was, m.Target, pm.Target)
		}
		return violation(RuleStaticRestartKeepsAssignment, "group %s: static member %s rejoined as %s, and member %s's target changed from %v to %v",
			cur.GroupID, o, n, m.MemberID, pm.Target, m.Target)
	}
	return nil
}

// staticRejoins finds the static rejoins between two observations: the id
// of each member parked in prev whose instance id, in cur, a new member id
// holds or the same member holds unparked, mapped to the id in cur.
func staticRejoins(prev, cur GroupSnapshot) map[string]string {
	var out map[string]string // made at the first rejoin: most pairs have none
	for _, o := range prev.Members {
		if o.InstanceID == "" || o.Epoch != StaticLeaveEpoch {
			continue
		}
		for _, n := range cur.Members {
			if n.InstanceID != o.InstanceID {
				continue
			}
			resumed := n.MemberID == o.MemberID && n.Epoch != StaticLeaveEpoch
			tookOver := n.MemberID != o.MemberID && memberOf(prev, n.MemberID).MemberID == ""
			if resumed || tookOver {
				if out == nil {
					out = map[string]string{}
				}
				out[o.MemberID] = n.MemberID
			}
		}
	}
	return out
}

// onlyRejoins reports whether the rejoins are all that the two observations
// show of a change: the same members otherwise, and the same
// subscriptions.
func onlyRejoins(prev, cur GroupSnapshot, rejoined map[string]string) bool {
	if len(prev.Members) != len(cur.Members) {
		return false
	}
	for _, p := range prev.Members {
		id, ok := rejoined[p.MemberID]
		if !ok {
			id = p.MemberID
		}
		c := memberOf(cur, id)
		if c.MemberID == "" || !slices.Equal(c.SubscribedTopicNames, p.SubscribedTopicNames) || c.SubscribedTopicRegex != p.SubscribedTopicRegex {
			return false
		}
	}
	return true
}

// memberOf finds member id in g (the zero MemberSnapshot if absent).
func memberOf(g GroupSnapshot, id string) MemberSnapshot {
	for _, m := range g.Members {
		if m.MemberID == id {
			return m
		}
	}
	return MemberSnapshot{}
}
