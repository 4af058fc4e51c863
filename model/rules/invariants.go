package rules

import "strings"

// The invariants of docs/DESIGN.md ("Ghosts, precisely"), each a function over
// what an observer knows, returning a *Violation that says what broke.
// Their names follow what they protect. Each rule's id and its meaning in
// words are declared beside the function that checks it.

// contains reports whether ss holds s.
func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// legitimate reports whether some process accounts for member id m of
// group g: a live process holding it as its current incarnation (or about
// to learn it), or one that abandoned it less than a session timeout ago.
// o is a pointer: it is asked for every member of every observation.
func legitimate(o *Observation, g, m string) bool {
	for i := range o.Processes {
		p := &o.Processes[i] // not copied: the checks read a few fields of many processes
		if p.GroupID != g {
			continue
		}
		if p.Live && !p.Left && (p.MemberID == m && m != "" || contains(p.InFlight, m)) {
			return true
		}
		if (!p.Live || p.Left) && contains(p.AllIDs, m) && o.Now < p.GraceUntil {
			return true
		}
	}
	return false
}

// RuleNoGhosts is the rule NoGhosts reports.
const (
	RuleNoGhosts    Rule = "NoGhosts"
	meaningNoGhosts      = "every member belongs to a live process that holds its id, or to one that ended less than a session timeout ago"
)

// NoGhosts: every member belongs to a live process that holds its id as its
// current incarnation, or to a process that crashed, closed or left less
// than one session timeout ago. A member the coordinator made for a join
// whose response was lost (ConsumerGroupHeartbeat v0) is a ghost at once:
// its process is alive and will never learn the id.
func NoGhosts(o Observation) error {
	if gs := Ghosts(o); len(gs) > 0 {
		g := gs[0]
		switch {
		case g.Pending:
			return violation(RuleNoGhosts, "classic group %s holds pending member id %s past one session timeout since its MEMBER_ID_REQUIRED, and no live process holds it, at t=%d",
				g.GroupID, g.Member.MemberID, o.Now)
		case g.Classic:
			return violation(RuleNoGhosts, "classic group %s holds member %s that no live process holds, past its grace (a session timeout after its last heartbeat, join completion or coordinator restart; at once if its live process will never learn the id), at t=%d",
				g.GroupID, g.Member.MemberID, o.Now)
		}
		return violation(RuleNoGhosts, "group %s holds member %s (epoch %d) that no live process holds and no recently ended process accounts for, at t=%d",
			g.GroupID, g.Member.MemberID, g.Member.Epoch, o.Now)
	}
	return nil
}

// Ghost is a member NoGhosts objects to.
type Ghost struct {
	GroupID string
	Member  MemberSnapshot
	// Classic: the group is a classic group (its rule's classic form);
	// Pending: the ghost is a KIP-394 pending id, not a member.
	Classic, Pending bool
}

// Ghosts lists every ghost of the observation, in group and member order
// (a classic group's pending ids after its members).
func Ghosts(o Observation) []Ghost {
	var out []Ghost
	for i := range o.Groups {
		g := &o.Groups[i]
		if g.Kind == KindClassic {
			from := len(out)
			out = classicGhosts(o, g, out)
			for j := from; j < len(out); j++ {
				out[j].Classic = true
			}
			continue
		}
		for j := range g.Members {
			if m := &g.Members[j]; !legitimate(&o, g.GroupID, m.MemberID) && !mixedAccounted(&o, g.GroupID, m) {
				out = append(out, Ghost{GroupID: g.GroupID, Member: *m})
			}
		}
	}
	return out
}

// mixedAccounted reports whether member m of consumer group g, which no
// live process holds, is still accounted for by a live classic process
// (a classic member of a consumer group, docs/PROTOCOL.md A7): a static
// member made for it by a JoinGroup whose answer it never got, or named by
// one it got while not joined (a REBALANCE_IN_PROGRESS to a waiting join,
// A7.4, which the client does not take the id from), which its next join
// under the instance id replaces (KIP-345), as in a classic group; an id
// it held before, while a conversion or a restart keeps that member's
// session running (Process.OldIDsUntil); or an id it sent a LeaveGroup for
// (abandonedInGrace).
func mixedAccounted(o *Observation, g string, m *MemberSnapshot) bool {
	for i := range o.Processes {
		p := &o.Processes[i]
		if p.GroupID != g || !p.Live || p.Left {
			continue
		}
		switch {
		case m.InstanceID != "" && contains(p.Lost, m.MemberID),
			m.InstanceID != "" && p.Classic && !p.Joined && contains(p.AllIDs, m.MemberID),
			o.Now < p.OldIDsUntil && contains(p.AllIDs, m.MemberID),
			abandonedInGrace(o, p, m.MemberID):
			return true
		}
	}
	return false
}

// abandonedInGrace reports whether id is one classic process p sent a
// LeaveGroup for and its member may still be there: the leave is on its
// way or was lost, and the member's session, a session timeout after p's
// last request, runs (as the classic form's Process.Abandoned).
func abandonedInGrace(o *Observation, p *Process, id string) bool {
	return p.Classic && o.Now < p.GraceUntil && contains(p.Abandoned, id)
}

// RuleOneMemberPerProcess is the rule OneMemberPerProcess reports.
const (
	RuleOneMemberPerProcess    Rule = "OneMemberPerProcess"
	meaningOneMemberPerProcess      = "each live process accounts for at most one member"
)

// OneMemberPerProcess: each live process accounts for at most one member.
func OneMemberPerProcess(o Observation) error {
	for i := range o.Processes {
		p := &o.Processes[i]
		if !p.Live {
			continue
		}
		accounts := func(m *MemberSnapshot) bool {
			if m.MemberID == p.MemberID && m.MemberID != "" {
				return true
			}
			// An id it held before, whose member a conversion or a
			// restart kept (Process.OldIDsUntil), is its old member's
			// until that grace ends, not a second one of its own.
			return contains(p.AllIDs, m.MemberID) && (o.Now >= p.OldIDsUntil || contains(p.InFlight, m.MemberID)) && !abandonedInGrace(&o, p, m.MemberID)
		}
		// One pass over the process's groups finds a classic one (judged
		// by the rule's classic form) or counts the members it accounts
		// for; the list is made only for a report.
		n, classic := 0, (*GroupSnapshot)(nil)
		for j := range o.Groups {
			g := &o.Groups[j]
			if g.GroupID != p.GroupID {
				continue
			}
			if g.Kind == KindClassic {
				classic = g
				break
			}
			for k := range g.Members {
				if accounts(&g.Members[k]) {
					n++
				}
			}
		}
		if classic != nil {
			if classicMembersOf(o, p, classic, nil) > 1 {
				var ids []string
				classicMembersOf(o, p, classic, &ids)
				return violation(RuleOneMemberPerProcess, "process %s accounts for %d members of classic group %s: %s", p.Name, len(ids), p.GroupID, strings.Join(ids, ", "))
			}
			continue
		}
		if n > 1 {
			var ids []string
			for j := range o.Groups {
				g := &o.Groups[j]
				if g.GroupID != p.GroupID {
					continue
				}
				for k := range g.Members {
					if m := &g.Members[k]; accounts(m) {
						ids = append(ids, m.MemberID)
					}
				}
			}
			return violation(RuleOneMemberPerProcess, "process %s accounts for %d members of group %s: %s", p.Name, len(ids), p.GroupID, strings.Join(ids, ", "))
		}
	}
	return nil
}

// RuleUniqueMemberIDs is the rule UniqueMemberIDs reports.
const (
	RuleUniqueMemberIDs    Rule = "UniqueMemberIDs"
	meaningUniqueMemberIDs      = "no two live processes hold the same member id"
)

// UniqueMemberIDs: no two live processes hold the same member id (weak
// generators have produced duplicates in the field, librdkafka#5263).
func UniqueMemberIDs(o Observation) error {
	if len(o.Processes) <= smallScan {
		// The same answer as below without a map: for each process the
		// earlier one holding its id, if any.
		for i := range o.Processes {
			p := &o.Processes[i]
			if !p.Live || p.MemberID == "" {
				continue
			}
			for j := range o.Processes[:i] {
				if q := &o.Processes[j]; q.Live && q.MemberID == p.MemberID && q.GroupID == p.GroupID {
					return violation(RuleUniqueMemberIDs, "processes %s and %s both hold member id %s in group %s", q.Name, p.Name, p.MemberID, p.GroupID)
				}
			}
		}
		return nil
	}
	seen := map[groupMember]string{}
	for _, p := range o.Processes {
		if !p.Live || p.MemberID == "" {
			continue
		}
		key := groupMember{p.GroupID, p.MemberID}
		if other, ok := seen[key]; ok {
			return violation(RuleUniqueMemberIDs, "processes %s and %s both hold member id %s in group %s", other, p.Name, p.MemberID, p.GroupID)
		}
		seen[key] = p.Name
	}
	return nil
}

// smallScan is the size up to which a check compares each item with those
// before it rather than building a map: the same answer, without the
// map's allocations, for the few processes and partitions of a group an
// observation usually holds.
const smallScan = 32

// groupMember is a member id within its group, as a map key.
type groupMember struct{ group, member string }

// RuleNoZeroUUIDs is the rule NoZeroUUIDs (and CheckRequestHeader, for a header's instance id) reports.
const (
	RuleNoZeroUUIDs    Rule = "NoZeroUUIDs"
	meaningNoZeroUUIDs      = "no member id, client instance id or generated id is the zero UUID"
)

// NoZeroUUIDs: no member id in UUID form, client instance id or generated
// id is the zero UUID.
func NoZeroUUIDs(o Observation) error {
	for i := range o.Groups {
		g := &o.Groups[i]
		for j := range g.Members {
			if m := &g.Members[j]; IsZeroUUIDString(m.MemberID) {
				return violation(RuleNoZeroUUIDs, "group %s holds member id %q, the zero UUID", g.GroupID, m.MemberID)
			}
		}
	}
	for i := range o.Processes {
		p := &o.Processes[i]
		if p.ClientInstanceID.IsZero() {
			return violation(RuleNoZeroUUIDs, "process %s has the zero UUID as client instance id", p.Name)
		}
		if IsZeroUUIDString(p.MemberID) {
			return violation(RuleNoZeroUUIDs, "process %s holds member id %q, the zero UUID", p.Name, p.MemberID)
		}
	}
	for _, u := range o.GeneratedIDs {
		if u.IsZero() {
			return violation(RuleNoZeroUUIDs, "the coordinator handed out the zero UUID")
		}
	}
	return nil
}

// RuleNoDoubleClientAssignment is the rule NoDoubleClientAssignment reports.
const (
	RuleNoDoubleClientAssignment    Rule = "NoDoubleClientAssignment"
	meaningNoDoubleClientAssignment      = "no partition is owned by two members at once"
)

// NoDoubleClientAssignment: no partition is owned (assigned or pending
// revocation) by two members of a group at once.
func NoDoubleClientAssignment(groups []GroupSnapshot) error {
	var buf [smallScan]ownedBy
	seen := buf[:0] // the group's owned partitions so far, while few
	for i := range groups {
		g := &groups[i]
		seen = seen[:0]
		var owner map[TopicPartition]string // once there are many
		for j := range g.Members {
			m := &g.Members[j]
			for _, ps := range [2][]TopicPartition{m.Assigned, m.Pending} { // m.Owned(), in its order
				for _, p := range ps {
					o, ok := "", false
					if owner != nil {
						o, ok = owner[p]
					} else {
						for _, s := range seen {
							if s.p.Partition == p.Partition && s.p.Topic == p.Topic { // s.p == p, the number first
								o, ok = s.member, true
								break
							}
						}
					}
					if ok && o == m.MemberID {
						return violation(RuleNoDoubleClientAssignment, "group %s: %s-%d is listed twice in member %s's assignment", g.GroupID, p.Topic, p.Partition, o)
					}
					if ok {
						return violation(RuleNoDoubleClientAssignment, "group %s: %s-%d is owned by both %s and %s", g.GroupID, p.Topic, p.Partition, o, m.MemberID)
					}
					if owner == nil && len(seen) < smallScan {
						seen = append(seen, ownedBy{p, m.MemberID})
						continue
					}
					if owner == nil {
						owner = make(map[TopicPartition]string, 2*smallScan)
						for _, s := range seen {
							owner[s.p] = s.member
						}
					}
					owner[p] = m.MemberID
				}
			}
		}
	}
	return nil
}

// ownedBy is a partition and the member that owns it.
type ownedBy struct {
	p      TopicPartition
	member string
}

// quiescentUpgradeGrace reports whether member m of classic group g is in
// A7.4's grace (docs/PROTOCOL.md): a failed upgrade answered its waiting
// join, and the join phase it waited in still runs (a static member that
// did not rejoin stays until the phase completes with someone).
func quiescentUpgradeGrace(o *Observation, g *GroupSnapshot, m MemberSnapshot) bool {
	if o.Classic == nil || g.Kind != KindClassic || g.Classic == nil {
		return false
	}
	return o.Classic.upgradeGrace(g.GroupID, m, g.Classic.State, o.Now)
}

// RuleQuiescentMembership is the rule QuiescentMembership reports.
const (
	RuleQuiescentMembership    Rule = "QuiescentMembership"
	meaningQuiescentMembership      = "after every client stops and a session timeout passes, a group holds exactly its live joined processes"
)

// QuiescentMembership: once every process has stopped acting and one
// session timeout has passed, each group holds exactly its live, joined
// processes.
func QuiescentMembership(o Observation) error {
	want := map[string]map[string]string{}
	for _, p := range o.Processes {
		if p.Live && p.Joined && p.MemberID != "" {
			if want[p.GroupID] == nil {
				want[p.GroupID] = map[string]string{}
			}
			want[p.GroupID][p.MemberID] = p.Name
		}
	}
	for _, g := range o.Groups {
		for _, m := range g.Members {
			if _, ok := want[g.GroupID][m.MemberID]; !ok && !quiescentUpgradeGrace(&o, &g, m) {
				return violation(RuleQuiescentMembership, "after quiescence group %s still holds %s, which no live joined process holds", g.GroupID, m.MemberID)
			}
			delete(want[g.GroupID], m.MemberID)
		}
	}
	for _, p := range o.Processes { // in order, so the report is deterministic
		if name, ok := want[p.GroupID][p.MemberID]; ok {
			return violation(RuleQuiescentMembership, "after quiescence process %s believes it is member %s of group %s, which the group does not hold", name, p.MemberID, p.GroupID)
		}
	}
	return nil
}
