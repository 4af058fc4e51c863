package rules

// RuleMonotonicEpochs is the rule EpochTracker reports.
const (
	RuleMonotonicEpochs    Rule = "MonotonicEpochs"
	meaningMonotonicEpochs      = "member and group epochs never go backwards"
)

// EpochTracker checks, across observations, that member epochs and group
// epochs never go backwards (a member's positive epochs only grow; -2 while
// parked and 0 while rejoining are not epochs of progress).
//
// It also carries a StaticRestartTracker (StaticRestarts), the other rule
// about how the group epoch may move across observations, so that an
// observer holding one EpochTracker checks both.
type EpochTracker struct {
	member   map[groupMember]int32 // highest positive epoch
	group    map[string]int32
	restarts StaticRestartTracker
	// carried is the epoch each group's upgrade carried over (Carry), for
	// the violations' words.
	carried map[string]int32
}

// StaticRestarts records groups for StaticRestartKeepsAssignment and
// reports its first violation (StaticRestartTracker.Observe). Call it on
// the same observations as Observe.
func (t *EpochTracker) StaticRestarts(groups []GroupSnapshot) error {
	return t.restarts.Observe(groups)
}

// Observe records groups and reports the first epoch that went backwards.
func (t *EpochTracker) Observe(groups []GroupSnapshot) error {
	if t.member == nil {
		t.member, t.group = map[groupMember]int32{}, map[string]int32{}
	}
	for _, g := range groups {
		last, ok := t.group[g.GroupID]
		if ok && g.Epoch < last {
			return violation(RuleMonotonicEpochs, "group %s epoch went from %d to %d%s", g.GroupID, last, g.Epoch, t.carriedNote(g.GroupID, last))
		}
		if !ok || g.Epoch != last { // epochs mostly stay: no second lookup
			t.group[g.GroupID] = g.Epoch
		}
		for _, m := range g.Members {
			if m.Epoch <= 0 {
				continue
			}
			key := groupMember{g.GroupID, m.MemberID}
			last, ok := t.member[key]
			if ok && m.Epoch < last {
				return violation(RuleMonotonicEpochs, "member %s of group %s went from epoch %d to %d%s", m.MemberID, g.GroupID, last, m.Epoch, t.carriedNote(g.GroupID, t.group[g.GroupID]))
			}
			if !ok || m.Epoch != last {
				t.member[key] = m.Epoch
			}
		}
	}
	return nil
}

// RuleStableMemberID is the rule MemberIDTracker reports.
const (
	RuleStableMemberID    Rule = "StableMemberID"
	meaningStableMemberID      = "a KIP-1082 process keeps one member id for its whole life"
)

// MemberIDTracker checks that a KIP-1082 process keeps one member id for its
// whole life, across leave, rejoin and fencing.
type MemberIDTracker struct {
	first map[string]string
}

// Observe records the process's current member id. It reads *p only (a
// pointer: the driver observes every process of every round).
func (t *MemberIDTracker) Observe(p *Process) error {
	if t.first == nil {
		t.first = map[string]string{}
	}
	if p.MemberID == "" {
		return nil
	}
	f, ok := t.first[p.Name]
	if ok && f != p.MemberID {
		return violation(RuleStableMemberID, "process %s changed its member id from %s to %s", p.Name, f, p.MemberID)
	}
	if !ok {
		t.first[p.Name] = p.MemberID
	}
	return nil
}

// Forget drops what the tracker knows of group: its id now names a group
// of the other protocol (A6.4), whose epochs start afresh.
func (t *EpochTracker) Forget(group string) {
	delete(t.group, group)
	delete(t.carried, group)
	for k := range t.member {
		if k.group == group {
			delete(t.member, k)
		}
	}
	t.restarts.forget(group)
}

// Knows reports whether the tracker has seen group.
func (t *EpochTracker) Knows(group string) bool {
	_, ok := t.group[group]
	return ok
}
