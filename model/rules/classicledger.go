package rules

import (
	"maps"
	"slices"
	"strings"
)

// ClassicLedger is what a harness knows, from the requests and answers of a
// run alone, of the classic groups' sessions and generations: the grace
// events of NoGhosts' classic form (docs/PROTOCOL.md Part C) — the requests
// that may have started a member's session again, its group's join
// completions, the coordinator's restarts and the leaves it processed —
// the pending ids the coordinator made and when each must be gone, the
// requests the coordinator holds, and what MonotonicEpochs and
// StaticRestartKeepsAssignment need of the generations (the last one a
// restart may step back to, the members that synced).
//
// Every time it keeps is the latest the coordinator may have used, never
// an earlier one, so a grace computed from it can only be too long: a
// coordinator that keeps a member longer than the ledger allows kept it
// longer than the protocol does. The zero value is ready to use; the
// harness feeds it as the run goes (the methods below) and hands it to
// the invariants in every Observation (Observation.Classic).
type ClassicLedger struct {
	// SlackMs widens every classic grace: how much later than the
	// harness's clock the coordinator may have started a timer (a broker
	// over TCP: its lag, its stalls and its timer granularity); 0 for a
	// coordinator on the harness's clock.
	SlackMs int64
	// SessionMs is the session timeout taken for a member whose own
	// neither the snapshot nor the ledger shows: the longest a plan's
	// classic client joins with.
	SessionMs int64

	restarts []int64
	groups   map[string]*ledgerGroup
}

// ledgerGroup is a classic group's part of the ledger.
type ledgerGroup struct {
	// completed is the time of the group's last JoinGroup answered NONE
	// (-1 none): a join phase's completion starts every member's
	// session again (B8.7), and the harness takes every JoinGroup NONE
	// for one, a later bound.
	completed int64
	// joinSeenOver is when an outside observer last saw a join phase of
	// the group over (JoinPhaseSeenOver; -1 never): a later bound on a
	// completion whose JoinGroup answers it never saw.
	joinSeenOver int64
	members      map[string]*ledgerMember
	// pending are the pending ids (A6.1) the coordinator made, each with
	// the time it must be gone by: its MEMBER_ID_REQUIRED answer's time
	// plus the session timeout of the JoinGroup that made it.
	pending map[string]int64
	// unnamed counts the JoinGroups v0-v3 with MemberId "" the
	// coordinator holds: each made a member whose id no answer has
	// carried yet.
	unnamed int
	// floor is the generation a coordinator restart may step the group
	// back to, and no lower (MonotonicEpochs, B8.14): the highest of a
	// SyncGroup answered NONE, a join phase ended Empty and a static
	// replacement answered in Stable.
	floor int32
}

// ledgerMember is a classic member's part of the ledger.
type ledgerMember struct {
	// touched is the time of the last request naming the member that
	// may have started its session again (a Heartbeat answered NONE or
	// REBALANCE_IN_PROGRESS, a SyncGroup answered, a JoinGroup answered
	// NONE), or of the answer that made it.
	touched int64
	// leftAt is when the coordinator answered NONE to a leave of the
	// member (-1 none): from then on it must be gone.
	leftAt    int64
	sessionMs int64
	static    bool
	// waiting counts its JoinGroups and SyncGroups the coordinator holds.
	waiting int
	// protocols are the protocol names of its last JoinGroup, in order,
	// joined by commas ("" unknown).
	protocols string
	// synced is the generation its last SyncGroup was answered NONE at
	// (-1 none).
	synced int32
	// upgradeAnswered is when a failed upgrade answered its waiting
	// JoinGroup REBALANCE_IN_PROGRESS (-1 never; A7.4's grace).
	upgradeAnswered int64
}

func (l *ClassicLedger) group(g string) *ledgerGroup {
	if l.groups == nil {
		l.groups = map[string]*ledgerGroup{}
	}
	lg := l.groups[g]
	if lg == nil {
		lg = &ledgerGroup{completed: -1, joinSeenOver: -1, members: map[string]*ledgerMember{}, pending: map[string]int64{}}
		l.groups[g] = lg
	}
	return lg
}

func (lg *ledgerGroup) member(id string) *ledgerMember {
	m := lg.members[id]
	if m == nil {
		m = &ledgerMember{touched: -1, leftAt: -1, synced: -1, upgradeAnswered: -1}
		lg.members[id] = m
	}
	return m
}

// Restarted records a coordinator restart at time at: every session starts
// again, and members removed since their group's last record come back
// (B8.14), each with the recorded protocol alone, so the protocols the
// ledger saw a member list are no longer what it lists: unknown until it
// joins again (a static restart may then change the selected protocol).
func (l *ClassicLedger) Restarted(at int64) {
	l.restarts = append(l.restarts, at)
	for _, lg := range l.groups {
		for _, m := range lg.members {
			m.protocols = ""
		}
	}
}

// Restarts is how many coordinator restarts the ledger has recorded.
func (l *ClassicLedger) Restarts() int { return len(l.restarts) }

// LastRestart is the time of the last restart at or before now (-1
// none): a grace counted from it is the shortest a member may have.
func (l *ClassicLedger) LastRestart(now int64) int64 { return l.lastRestart(now) }

// lastRestart is the time of the last restart at or before now (-1 none).
func (l *ClassicLedger) lastRestart(now int64) int64 {
	for i := len(l.restarts) - 1; i >= 0; i-- {
		if l.restarts[i] <= now {
			return l.restarts[i]
		}
	}
	return -1
}

// Touched records a request naming member of group, handled at time at,
// that may have started its session again.
func (l *ClassicLedger) Touched(group, member string, at int64) {
	if member == "" {
		return
	}
	m := l.group(group).member(member)
	m.touched = max(m.touched, at)
}

// Joined records a JoinGroup naming member of group (or the answer that
// made it) at time at: its session timeout, whether it is static, and its
// protocols' names in order. It touches the member too.
func (l *ClassicLedger) Joined(group, member string, at int64, sessionMs int32, static bool, protocols []string) {
	if member == "" {
		return
	}
	m := l.group(group).member(member)
	m.touched = max(m.touched, at)
	m.sessionMs = max(m.sessionMs, int64(sessionMs))
	m.static = m.static || static
	m.protocols = strings.Join(protocols, ",")
}

// Completed records a JoinGroup of group answered NONE at time at: a join
// phase may have completed then, starting every member's session again.
func (l *ClassicLedger) Completed(group string, at int64) {
	lg := l.group(group)
	lg.completed = max(lg.completed, at)
}

// PendingMade records the pending id (A6.1) a MEMBER_ID_REQUIRED answer
// carried at time at, for a JoinGroup with that session timeout.
func (l *ClassicLedger) PendingMade(group, id string, at int64, sessionMs int32) {
	if id == "" {
		return
	}
	lg := l.group(group)
	if t, ok := lg.pending[id]; !ok || at+int64(sessionMs) > t {
		lg.pending[id] = at + int64(sessionMs)
	}
}

// Left records a leave of member the coordinator answered NONE at time
// at: from then on the member must be gone, until a restart brings it
// back.
func (l *ClassicLedger) Left(group, member string, at int64) {
	if member == "" {
		return
	}
	m := l.group(group).member(member)
	m.leftAt = max(m.leftAt, at)
}

// Wait records that the coordinator now holds (delta 1) or no longer
// holds (delta -1) a JoinGroup or SyncGroup naming member; member ""
// stands for a JoinGroup v0-v3 with MemberId "", whose member no answer
// has named yet.
func (l *ClassicLedger) Wait(group, member string, delta int) {
	lg := l.group(group)
	if member == "" {
		lg.unnamed = max(lg.unnamed+delta, 0)
		return
	}
	m := lg.member(member)
	m.waiting = max(m.waiting+delta, 0)
}

// Synced records a SyncGroup of member answered NONE at generation gen.
func (l *ClassicLedger) Synced(group, member string, gen int32) {
	if member == "" {
		return
	}
	l.group(group).member(member).synced = gen
}

// SyncedAt reports whether member's last SyncGroup was answered NONE at
// generation gen.
func (l *ClassicLedger) SyncedAt(group, member string, gen int32) bool {
	lg := l.groups[group]
	if lg == nil || lg.members[member] == nil {
		return false
	}
	return lg.members[member].synced == gen
}

// Protocols is the protocol names member's last JoinGroup listed, in
// order, joined by commas; "" when the ledger does not know.
func (l *ClassicLedger) Protocols(group, member string) string {
	if lg := l.groups[group]; lg != nil && lg.members[member] != nil {
		return lg.members[member].protocols
	}
	return ""
}

// Recorded raises the generation a restart may step group back to
// (MonotonicEpochs): gen was written to the group's record (B8.14).
func (l *ClassicLedger) Recorded(group string, gen int32) {
	lg := l.group(group)
	lg.floor = max(lg.floor, gen)
}

// Floor is the generation a restart may step group back to, and no lower.
func (l *ClassicLedger) Floor(group string) int32 {
	if lg := l.groups[group]; lg != nil {
		return lg.floor
	}
	return 0
}

// UpgradeAnswered records that an upgrade (docs/PROTOCOL.md A7.4) answered
// member's waiting JoinGroup REBALANCE_IN_PROGRESS at time at, and the
// group stayed classic: the member stays without a session of its own
// until its join phase completes, or, a new member, its new-member timer
// runs out (A7.4's grace, not a ghost).
func (l *ClassicLedger) UpgradeAnswered(group, member string, at int64) {
	l.group(group).member(member).upgradeAnswered = at
}

// Converted records that group became a classic group by a downgrade
// (A7.5) at time at, or no later: every member's session starts then.
func (l *ClassicLedger) Converted(group string, at int64) {
	lg := l.group(group)
	lg.completed = max(lg.completed, at)
}

// JoinPhaseSeenOver records that an observer that sees the group only
// through DescribeGroups saw its join phase over at time at, having seen
// it running (PreparingRebalance) before: the phase completed no later,
// and its completion started every member's session again (B8.7), though
// no JoinGroup answer the observer saw showed it (one held on a
// connection that closed, or answered after the run stopped reading).
// Only NoGhosts' grace counts from it: it is no completion that ends
// A7.4's grace (the phase may have completed before the upgrade).
func (l *ClassicLedger) JoinPhaseSeenOver(group string, at int64) {
	lg := l.group(group)
	lg.joinSeenOver = max(lg.joinSeenOver, at)
}

// upgradeGrace reports whether member m of group, in a group in state
// state, is within A7.4's grace: a failed upgrade answered its waiting
// JoinGroup, and its join phase has not completed since (the group is
// still preparing a rebalance), or it is a new member whose new-member
// timer (B8.10) may still run.
func (l *ClassicLedger) upgradeGrace(group string, m MemberSnapshot, state string, now int64) bool {
	lg := l.groups[group]
	if lg == nil || lg.members[m.MemberID] == nil {
		return false
	}
	at := lg.members[m.MemberID].upgradeAnswered
	switch {
	case at < 0:
		return false
	case state == ClassicPreparingRebalance && lg.completed < at:
		return true
	}
	return m.Classic != nil && m.Classic.New && now < at+NewMemberTimeoutMs+l.SlackMs
}

// NewMemberTimeoutMs is Kafka's classic new-member timeout (B8.10,
// CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS).
const NewMemberTimeoutMs = 5 * 60 * 1000

// Forget drops what the ledger knows of group: its id now names a group
// of the other protocol, or a classic group made afresh (A6.4).
func (l *ClassicLedger) Forget(group string) { delete(l.groups, group) }

// Len is how many groups the ledger holds anything of.
func (l *ClassicLedger) Len() int { return len(l.groups) }

// Knows reports whether the ledger holds anything of group.
func (l *ClassicLedger) Knows(group string) bool {
	_, ok := l.groups[group]
	return ok
}

// Clone is a copy of l that later changes to either leave the other as it
// is.
func (l *ClassicLedger) Clone() *ClassicLedger {
	if l == nil {
		return nil
	}
	c := *l
	c.restarts = slices.Clone(l.restarts)
	c.groups = make(map[string]*ledgerGroup, len(l.groups))
	for id, lg := range l.groups {
		g := *lg
		g.members = make(map[string]*ledgerMember, len(lg.members))
		for mid, m := range lg.members {
			mm := *m
			g.members[mid] = &mm
		}
		g.pending = maps.Clone(lg.pending)
		c.groups[id] = &g
	}
	return &c
}

// waiting reports whether the coordinator holds a request of member m of
// group: as its snapshot shows, or as the ledger knows (a JoinGroup or
// SyncGroup naming it held; or, for a member no request has named yet, a
// JoinGroup v0-v3 with MemberId "").
func (l *ClassicLedger) waiting(group string, m MemberSnapshot) bool {
	if m.Classic != nil && m.Classic.Waiting != "" {
		return true
	}
	lg := l.groups[group]
	if lg == nil {
		return false
	}
	if lm := lg.members[m.MemberID]; lm != nil {
		return lm.waiting > 0
	}
	return lg.unnamed > 0
}

// sessionMs is member m's session timeout: the longest of what its
// snapshot shows, what the ledger saw it join with, and SessionMs when
// neither shows one.
func (l *ClassicLedger) sessionMs(group string, m MemberSnapshot) int64 {
	var ms int64
	if m.Classic != nil {
		ms = int64(m.Classic.SessionTimeoutMs)
	}
	if lg := l.groups[group]; lg != nil && lg.members[m.MemberID] != nil {
		ms = max(ms, lg.members[m.MemberID].sessionMs)
	}
	if ms == 0 {
		ms = l.SessionMs
	}
	return ms
}

// graceUntil is the time before which member m of group, belonging to no
// live process, may still be held (NoGhosts' classic grace): one session
// timeout, and the slack, after the latest of the last request that may
// have started its session, its group's last join completion and the last
// restart; but a leave the coordinator answered ends it at once, unless a
// restart came after it.
func (l *ClassicLedger) graceUntil(group string, m MemberSnapshot, now int64) int64 {
	start := l.lastRestart(now)
	lg := l.groups[group]
	if lg != nil {
		start = max(start, lg.completed, lg.joinSeenOver)
		if lm := lg.members[m.MemberID]; lm != nil {
			// A leave answered at a restart's very time may have come
			// before it (answered by the timers fired up to that time,
			// which the harness advances before it restarts): the
			// restart may then have brought the member back, and the
			// leave ends no grace.
			if lm.leftAt >= 0 && lm.leftAt > l.lastRestart(now) {
				return lm.leftAt
			}
			start = max(start, lm.touched)
		}
	}
	if start < 0 {
		// Nothing the ledger saw started its session: a member made
		// for a request it never saw answered. Judged from the start of
		// the run.
		start = 0
	}
	return start + l.sessionMs(group, m) + l.SlackMs
}

// broughtBack reports whether member m of group may be one a coordinator
// restart brought back (B8.14): a restart came less than its session
// timeout, and the slack, before now.
func (l *ClassicLedger) broughtBack(group string, m MemberSnapshot, now int64) bool {
	r := l.lastRestart(now)
	return r >= 0 && now < r+l.sessionMs(group, m)+l.SlackMs
}

// isStatic reports whether member m is static: its snapshot shows an
// instance id, or a request that named or made it carried one.
func (l *ClassicLedger) isStatic(group string, m MemberSnapshot) bool {
	if m.InstanceID != "" {
		return true
	}
	lg := l.groups[group]
	return lg != nil && lg.members[m.MemberID] != nil && lg.members[m.MemberID].static
}

// pendingUntil is the time by which pending id must be gone, and whether
// the ledger saw it made.
func (l *ClassicLedger) pendingUntil(group, id string) (int64, bool) {
	lg := l.groups[group]
	if lg == nil {
		return 0, false
	}
	t, ok := lg.pending[id]
	return t + l.SlackMs, ok
}
