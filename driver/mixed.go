package driver

// The conversions of a plan that migrates (plan.ProtocolUpgrade and
// ProtocolRollback, docs/PROTOCOL.md A7): the invariants follow a member
// through its group's conversions, not the kind of its group. A classic
// request to a consumer group (a classic member of it) feeds none of the
// classic trackers: its member is judged by its member epoch, as every
// member of a consumer group. A conversion starts every member's session
// (A7.4 step 4, A7.5): the observer notes when it saw each group change
// kind, and a member may outlive its process by one session from then.

import (
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// conversions are the kinds the observer last saw its groups in, and
// when it saw each change; held, whether it last saw each with members
// (a group of the other kind that takes its id then is its conversion,
// A7.4 and A7.5, not the replacement of an empty group, A6.4).
type conversions struct {
	kinds map[string]rules.GroupKind
	at    map[string]int64
	held  map[string]bool
	// changes counts each group's changes of kind seen; described is
	// the count when a Describe of the round first answered for the
	// group (no snapshot: toldkinds.go).
	changes, described map[string]int
}

// consumerMember reports whether the classic request r (op), just handled,
// was a classic member's of a consumer group, or made a group change kind
// (a static JoinGroup that downgraded it): the target's snapshot shows the
// group a consumer group now, or showed it one just before (before). Such
// a request feeds no classic tracker; its group's change of kind, if any,
// is noted as the observer's (observeKinds, noteKinds).
func (cj *classicJudge) consumerMember(r *request, op *history.Op, before *rules.GroupSnapshot) bool {
	g, _ := codec.GroupOf(r.req)
	if g == "" || op.Parked {
		return false
	}
	if cj.o.snap == nil {
		return cj.toldConsumer(g) // toldkinds.go
	}
	if before != nil && before.GroupID != "" && before.Kind != rules.KindClassic {
		return true
	}
	return cj.inConsumerGroup(r)
}

// inConsumerGroup reports whether the target's snapshot shows the group
// of classic request r a consumer group now: a request it released at a
// conversion (a JoinGroup read from behind one the upgrade answered) was
// served in the consumer group, as a classic member's.
func (cj *classicJudge) inConsumerGroup(r *request) bool {
	g, _ := codec.GroupOf(r.req)
	if g == "" {
		return false
	}
	if cj.o.snap == nil {
		return cj.toldConsumer(g)
	}
	h, ok := heldGroup(cj.o.snap.Snapshot(), g)
	return ok && h.Kind != rules.KindClassic
}

// handledKind notes, after the target handled r at time at, a change of
// kind of r's group (a conversion, A7.4 and A7.5, or a replacement, A6.4)
// then: two conversions within one round would escape the observation.
func (cj *classicJudge) handledKind(r *request, at int64) {
	g, _ := codec.GroupOf(r.req)
	if g == "" || cj.o.snap == nil {
		return
	}
	h, ok := heldGroup(cj.o.snap.Snapshot(), g)
	if !ok {
		return
	}
	cj.kindSeen(&h, at)
}

// kindSeen notes group g as seen at time at: if its kind changed, a group
// now classic has every member's session started then (the ledger's
// Converted) and its epochs forgotten; a group now a consumer group has its
// classic trackers forgotten. A conversion (the group had members) carries
// the old kind's epoch or generation over to the new kind's tracker, as
// Kafka carries it (carry).
func (cj *classicJudge) kindSeen(g *rules.GroupSnapshot, at int64) {
	m := cj.mixed
	k, seen := m.kinds[g.GroupID]
	held := m.held[g.GroupID]
	if h := len(g.Members) > 0; h != held {
		m.held[g.GroupID] = h
	}
	if seen && k == g.Kind {
		return
	}
	m.kinds[g.GroupID] = g.Kind
	if !seen {
		return
	}
	m.at[g.GroupID] = at
	m.changes[g.GroupID]++
	carry := cj.carry(g, held)
	cj.forget(g.GroupID)
	if g.Kind == rules.KindClassic {
		cj.o.epochs.Forget(g.GroupID)
		cj.ledger.Converted(g.GroupID, at)
	}
	if carry != nil {
		carry()
	}
}

// carry reads what the old kind's tracker saw last of group g, which just
// changed kind, and returns what hands it to the new kind's once the old
// is forgotten: the group epoch becomes the generation floor of a
// downgraded group (A7.5), the generation the epoch floor of an upgraded
// one and each member's generation its epoch's (A7.4 step 4). nil when nothing is carried:
// the group had no members (an empty group replaced, A6.4), the observer
// has no snapshot to see every conversion by (a Describe shows a group
// only between rounds), or requests are handled concurrently (a
// conversion and a replacement may interleave unseen).
func (cj *classicJudge) carry(g *rules.GroupSnapshot, held bool) func() {
	if !held || cj.o.snap == nil || cj.o.d.plan.Parallel {
		return nil
	}
	id := g.GroupID
	if g.Kind == rules.KindClassic {
		epoch, ok := cj.o.epochs.Carried(id)
		if !ok {
			return nil
		}
		return func() { cj.gens.Carry(&cj.ledger, id, epoch) }
	}
	gen, members, ok := cj.gens.Carried(&cj.ledger, id)
	if !ok {
		return nil
	}
	return func() { cj.o.epochs.Carry(id, gen, members) }
}

// observeKinds notes the groups that changed kind since the last
// observation (by a timer: handledKind sees the requests' changes), at the
// driver's time, no earlier than the change (kindSeen).
func (cj *classicJudge) observeKinds(groups []rules.GroupSnapshot) {
	for i := range groups {
		cj.kindSeen(&groups[i], cj.o.d.at)
	}
}

// noteKinds notes, in a plan that migrates, what the target's own doing
// changed in its groups between two requests, at the driver's time: a
// group its timers converted as its clock moved (a downgrade by a
// session, join or sync timer, A7.5), or a group a coordinator restart
// loaded as its record has it (a classic group back to Empty, its members
// added since the record gone, B8.14). Seen only at the round's
// observation, a downgrade undone by an upgrade within the round (a
// ConsumerGroupHeartbeat join to the classic group the timer made) would
// escape it, and with it the session both conversions started for every
// member (Kafka's convertToClassicGroup and convertToConsumerGroup): a
// crashed process's member would be judged a ghost one session after its
// last request, though the coordinator rightly keeps it one session after
// the upgrade; and a restart's Empty group, replaced at the next request
// by a new group of the other kind (A6.4), would pass for a conversion
// that carries its epochs (carry). Needs a snapshot; the caller holds the
// driver's mu.
func (o *observer) noteKinds() {
	if o.classic.mixed == nil || o.snap == nil {
		return
	}
	o.classic.observeKinds(o.snap.Snapshot())
}

// conversionGrace is the end of the grace a member of process p's group
// has from its group's last conversion: one session timeout (the longer of
// the two protocols') after it or after a coordinator restart that found
// it running, and the target's lag and stall; 0 when the
// group never converted.
func (cj *classicJudge) conversionGrace(p *proc) int64 {
	if cj.mixed == nil {
		return 0
	}
	at, ok := cj.mixed.at[p.group]
	if !ok {
		return 0
	}
	return cj.sessionEnd(at)
}

// sessionEnd is when a session of the longer of the two protocols'
// timeouts, started at t, ends (each coordinator restart that found it
// running starts it afresh), with the target's lag and stall.
func (cj *classicJudge) sessionEnd(t int64) int64 {
	d, ms := cj.o.d, cj.ledger.SessionMs
	end := t + ms
	for _, r := range d.restartAt {
		if r >= t && r < end {
			end = r + ms
		}
	}
	return end + d.lag() + d.stall()
}

// classicGrace is the end of the grace of a classic process's member in a
// consumer group: its own session timeout (its JoinGroup's, which may be
// longer than the plan's) after the process's last request.
func (cj *classicJudge) classicGrace(p *proc) int64 {
	if p.classic == nil || p.lastSeen < 0 {
		return 0
	}
	return cj.sessionEnd(p.lastSeen)
}

// oldIDsGrace is Process.OldIDsUntil for p: one session after its group's
// last conversion or the last coordinator restart, whichever is later.
func (cj *classicJudge) oldIDsGrace(p *proc) int64 {
	end := cj.conversionGrace(p)
	if n := len(cj.o.d.restartAt); n > 0 {
		end = max(end, cj.sessionEnd(cj.o.d.restartAt[n-1]))
	}
	return end
}
