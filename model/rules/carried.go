package rules

// Epochs carried across a conversion (docs/PROTOCOL.md A7): Kafka builds a
// converted group out of the one it replaces, and what it carries over
// only goes forward from there. The upgrade makes the classic generation
// the consumer group's epoch and every converted member's epoch
// (ConsumerGroup.fromClassicGroup); the downgrade makes the group epoch the
// classic generation (ClassicGroup.fromConsumerGroup). A harness that
// follows a group through its conversions hands what the old kind's
// tracker saw last to the new kind's: EpochTracker.Carried to
// GenerationTracker.Carry at a downgrade, GenerationTracker.Carried to
// EpochTracker.Carry at an upgrade. An empty group replaced by a group of
// the other kind (A6.4) is a new group: nothing is carried.

// Carried is the group epoch the tracker last saw of group (ok false: it
// saw none). The members' epochs are not carried to a downgraded group:
// none is above the group epoch, which its generation starts at.
func (t *EpochTracker) Carried(group string) (epoch int32, ok bool) {
	epoch, ok = t.group[group]
	return epoch, ok
}

// Carry starts group, just upgraded from a classic group whose generation
// was at least gen (and each member's at least its value in members), at
// those epochs: from now on the group epoch and the converted members'
// epochs may not go below them (A7.4 step 4). Call it after Forget.
func (t *EpochTracker) Carry(group string, gen int32, members map[string]int32) {
	if t.member == nil {
		t.member, t.group = map[groupMember]int32{}, map[string]int32{}
	}
	t.group[group] = gen
	for m, e := range members {
		if e > 0 {
			t.member[groupMember{group, m}] = min(e, gen)
		}
	}
	if t.carried == nil {
		t.carried = map[string]int32{}
	}
	t.carried[group] = gen
}

// carriedNote is what a violation of group adds while its epoch is still
// the one its upgrade carried.
func (t *EpochTracker) carriedNote(group string, last int32) string {
	if gen, ok := t.carried[group]; ok && gen == last {
		return " (the epoch its upgrade carried over from the classic generation, A7.4)"
	}
	return ""
}

// Carried is the generation group may not go below from now on, by what
// the tracker saw (its last generation, or the ledger's floor when the
// coordinator restarted since, B8.14), and each member's likewise (at
// most the group's); ok false when it saw no generation of group.
func (t *GenerationTracker) Carried(l *ClassicLedger, group string) (gen int32, members map[string]int32, ok bool) {
	g := t.groups[group]
	if g == nil || g.last.gen < 0 {
		return 0, nil, false
	}
	restarts, floor := l.Restarts(), l.Floor(group)
	least := func(s genSeen) int32 {
		if s.restarts != restarts {
			return min(s.gen, floor)
		}
		return s.gen
	}
	gen = least(g.last)
	members = make(map[string]int32, len(g.members))
	for m, s := range g.members {
		members[m] = min(least(s), gen)
	}
	return gen, members, true
}

// Carry starts group, just downgraded from a consumer group whose epoch
// was at least epoch, at that generation: the downgrade writes the
// classic group's record at the group epoch (A7.5), so the generation may
// not go below it, even across a coordinator restart (the ledger's
// floor). Call it after Forget (the tracker's and the ledger's).
func (t *GenerationTracker) Carry(l *ClassicLedger, group string, epoch int32) {
	g := t.group(group)
	g.last, g.carried = genSeen{epoch, l.Restarts()}, true
	l.Recorded(group, epoch)
}

// what names group in a violation: with a note while its generation is
// still the one its downgrade carried.
func (g *genGroup) what(group string) string {
	if g.carried {
		return "group " + group + " (at the generation its downgrade carried over from the group epoch, A7.5)"
	}
	return "group " + group
}
