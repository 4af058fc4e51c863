package rules

// The classic branches of NoGhosts and OneMemberPerProcess
// (docs/PROTOCOL.md Part C, "Classic groups"): a classic group's member ids
// are the coordinator's (B8.6), its members wait in join phases, a KIP-394
// pending id is no member, every join completion and every coordinator
// restart starts every session again, and a restart brings back members
// removed since the group's last record (B8.14). What the harness knows of
// those events comes in Observation.Classic.

// classicGhost reports whether member m of classic group g is a ghost:
// it belongs to no live process and is past its grace, or it is KIP-394's
// ghost (a dynamic member made for a live process's JoinGroup whose answer
// it will never get).
func classicGhost(o Observation, l *ClassicLedger, g, state string, m MemberSnapshot) bool {
	if l.waiting(g, m) || l.upgradeGrace(g, m, state, o.Now) {
		// A member whose JoinGroup or SyncGroup the coordinator holds
		// stays as long as it waits: the join phase's timers and a new
		// member's 5-minute timeout end every wait (B8.10); so does one
		// whose wait a failed upgrade answered (A7.4's grace).
		return false
	}
	for i := range o.Processes {
		p := &o.Processes[i]
		if p.GroupID != g || !p.Live {
			continue
		}
		if !p.Left && (p.MemberID == m.MemberID && m.MemberID != "" || contains(p.InFlight, m.MemberID)) {
			return false
		}
		if contains(p.Lost, m.MemberID) && !l.isStatic(g, m) && !o.LostJoinGrace {
			// KIP-394's ghost: at once (a static member's next join
			// under its instance id replaces it, KIP-345). Under
			// LostJoinGrace, by its grace below, as a member nobody
			// holds.
			return true
		}
	}
	return o.Now >= l.graceUntil(g, m, o.Now)
}

// classicPendingGhost reports whether pending id of classic group g is a
// ghost: no live process holds it (or is about to learn it), and one
// session timeout has passed since the MEMBER_ID_REQUIRED that made it.
func classicPendingGhost(o Observation, l *ClassicLedger, g, id string) bool {
	for i := range o.Processes {
		p := &o.Processes[i]
		if p.GroupID == g && p.Live && !p.Left && (p.MemberID == id || contains(p.InFlight, id)) {
			return false
		}
	}
	until, known := l.pendingUntil(g, id)
	return known && o.Now >= until
}

// classicGhosts appends the ghosts of classic group g to out: members,
// then pending ids (Ghost.Pending), each in id order.
func classicGhosts(o Observation, g *GroupSnapshot, out []Ghost) []Ghost {
	l := o.Classic
	if l == nil {
		l = &ClassicLedger{}
	}
	state := ""
	if g.Classic != nil {
		state = g.Classic.State
	}
	for _, m := range g.Members {
		if classicGhost(o, l, g.GroupID, state, m) {
			out = append(out, Ghost{GroupID: g.GroupID, Member: m})
		}
	}
	if g.Classic != nil {
		for _, p := range g.Classic.Pending {
			if classicPendingGhost(o, l, g.GroupID, p.ID) {
				out = append(out, Ghost{GroupID: g.GroupID, Member: MemberSnapshot{MemberID: p.ID}, Pending: true})
			}
		}
	}
	return out
}

// classicMembersOf counts the members of classic group g that live
// process p accounts for: its current member id, every id a JoinGroup
// answer to it carried (AllIDs) but the ones it left or a restart may have
// brought back while they are within their grace, and, when p is the only
// process of g whose JoinGroup v0-v3 with MemberId "" the coordinator
// holds, every waiting member nobody has been told of (made for those
// JoinGroups; under Observation.LostJoinGrace, one of them and only when
// p accounts for no other member, and not the ids of Lost). It appends their ids to ids when ids is not
// nil.
func classicMembersOf(o Observation, p *Process, g *GroupSnapshot, ids *[]string) int {
	l := o.Classic
	if l == nil {
		l = &ClassicLedger{}
	}
	unnamedOwner := p.UnnamedJoins > 0
	if unnamedOwner {
		for i := range o.Processes {
			q := &o.Processes[i]
			if q != p && q.GroupID == p.GroupID && q.Live && q.UnnamedJoins > 0 {
				unnamedOwner = false // two may own them: none is counted
			}
		}
	}
	n, unnamed := 0, ""
	for _, m := range g.Members {
		mine := m.MemberID == p.MemberID && m.MemberID != ""
		switch {
		case mine:
		case o.LostJoinGrace && contains(p.Lost, m.MemberID) && !l.isStatic(g.GroupID, m):
			// A member the process will never learn: NoGhosts judges
			// it by its grace, as one nobody holds (LostJoinGrace).
			mine = false
		case contains(p.AllIDs, m.MemberID):
			// A member the process left may outlive the leave (lost,
			// or held behind its JoinGroup on a connection that then
			// closed) by its grace, and for as long as that JoinGroup
			// or a SyncGroup of it waits: a waiting member's session
			// does not run out (B8.10), the join phase's timers end the
			// wait.
			// So may one whose wait a failed upgrade answered, in its
			// A7.4 grace: the process joins again under a new id.
			excused := contains(p.Abandoned, m.MemberID) && (o.Now < l.graceUntil(g.GroupID, m, o.Now) || l.waiting(g.GroupID, m)) ||
				l.broughtBack(g.GroupID, m, o.Now) || g.Classic != nil && l.upgradeGrace(g.GroupID, m, g.Classic.State, o.Now)
			mine = !excused
		case unnamedOwner:
			mine = m.Classic != nil && m.Classic.Waiting == WaitingJoin && !l.isStatic(g.GroupID, m) && !toldOf(o, g.GroupID, m.MemberID)
			if mine && o.LostJoinGrace {
				// Only the latest of its JoinGroups will name the
				// process's member, and none if it accounts for another
				// (the others were a duplicate's, or abandoned): their
				// answers go nowhere. Counted after the others.
				if unnamed == "" {
					unnamed = m.MemberID
				}
				mine = false
			}
		}
		if mine {
			n++
			if ids != nil {
				*ids = append(*ids, m.MemberID)
			}
		}
	}
	if n == 0 && unnamed != "" {
		n = 1
		if ids != nil {
			*ids = append(*ids, unnamed)
		}
	}
	return n
}

// toldOf reports whether some process of group holds member id, has an
// answer carrying it on its way, or was made it for a request.
func toldOf(o Observation, group, id string) bool {
	for i := range o.Processes {
		p := &o.Processes[i]
		if p.GroupID == group && (p.MemberID == id || contains(p.InFlight, id) || contains(p.AllIDs, id)) {
			return true
		}
	}
	return false
}
