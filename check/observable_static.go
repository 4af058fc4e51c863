package check

// StaticRestartKeepsAssignment at the observable level: KIP-345's promise
// that a static restart is not a rebalance (docs/PROTOCOL.md A5.5).
//
// A static takeover is a join at epoch 0 naming an instance id whose
// member the history shows parked at -2 (its static leave answered), with
// the subscription that member had, answered NONE: a new member id takes
// the parked member's place (a restarted process), or the parked member
// resumes under its own. What a client can see of the group epoch is the
// GroupEpoch of ConsumerGroupDescribe (exact) and the member epochs of
// responses (never above it). So the check needs a Describe after which
// nothing may have changed the membership up to the takeover: no join
// other than a takeover, no leave, no removal, no new subscription, no
// request of those in flight or of unknown outcome, and no member whose
// session or rebalance timer may have fired (Options.LagMs widens
// those windows as for MemberVanished). Given the group epoch G that
// Describe showed:
//
//   - the takeover's join response is at an epoch no higher than G (a
//     broker that rebalances answers G+1, or 0 while the new member must
//     first revoke);
//   - if the parked member was last given its assignment at epoch G, the
//     join response carries all of it (partitions the parked member did
//     not yet have, released since, may come on top);
//   - until the next possible change, no response or Describe shows an
//     epoch above G, no member last given its assignment at G loses a
//     partition in a heartbeat response, and a Describe whose target
//     assignment is at G shows every member's target as the Describe
//     before the takeover did (the new member id with the parked one's).
//
// Anything less certain passes: a broker may bump the epoch for a change
// the check cannot see.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// groupEvidence is what a Describe showed of a group with no membership
// change since.
type groupEvidence struct {
	op      *history.Op
	epoch   int32
	changes int // the group's change count then
	// targets are each member's target assignment, when its epoch was the
	// group epoch (nil otherwise: Kafka's "Assigning" lags it).
	targets map[string]partSet
}

// takeoverWatch follows a static takeover, or a coordinator move (op is
// the move: instance and the ids are ""), until the next possible change.
type takeoverWatch struct {
	op                     *history.Op
	instance, oldID, newID string
	epoch                  int32
	changes                int
	targets                map[string]partSet
}

// what names the takeover, or the move, in a violation.
func (w *takeoverWatch) what() string {
	if w.op.Restart {
		return fmt.Sprintf("the coordinator move (op %d, %s)", w.op.ID, w.op.Fault)
	}
	if w.oldID == w.newID {
		return fmt.Sprintf("the static rejoin of member %s (instance %s, op %d)", w.newID, w.instance, w.op.ID)
	}
	return fmt.Sprintf("the static takeover of instance %s by member %s from parked member %s (op %d)", w.instance, w.newID, w.oldID, w.op.ID)
}

// changeOf names the group whose membership op may change, "" none: a
// join that is not a takeover (or takes over a parked member whose session
// may have ended), a leave at -1, a LeaveGroup that removed someone, a new
// subscription; succeeded or of unknown outcome.
func (o *observer) changeOf(op *history.Op) string {
	unknown := op.Return == history.Never || op.Response == nil
	switch req := op.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		resp, _ := op.Response.(*codec.ConsumerGroupHeartbeatResponse)
		if !unknown && resp.ErrorCode != codec.None {
			return ""
		}
		g := o.group(req.GroupId)
		switch req.MemberEpoch {
		case rules.LeaveEpoch:
			return req.GroupId
		case rules.StaticLeaveEpoch:
			return ""
		case rules.JoinEpoch:
			// A takeover changes nothing, unless the parked member's
			// session may have ended first (a static leave does not start
			// it afresh): then the broker may have removed it and joins
			// the takeover as a new member, two changes the history
			// shows neither of.
			if h := o.takeoverOf(g, req); !unknown && h != nil && !o.mayVanish(h, op.At) {
				return ""
			}
			return req.GroupId
		}
		var subs subscription
		if m := g.members[req.MemberId]; m != nil {
			subs = m.subs
		}
		if _, changed := subs.with(req); changed {
			return req.GroupId
		}
	case *codec.LeaveGroupRequest:
		if unknown {
			return req.GroupId
		}
		resp := op.Response.(*codec.LeaveGroupResponse)
		if op.Header.RequestApiVersion < 3 && resp.ErrorCode == codec.None {
			return req.GroupId
		}
		for _, mr := range resp.Members {
			if mr.ErrorCode == codec.None {
				return req.GroupId
			}
		}
	}
	return ""
}

// takeoverOf is the parked member a static join takes over (or resumes),
// nil if it is not a takeover: no member is known to hold its instance id
// parked, or the join changes the subscription (which may move the epoch).
func (o *observer) takeoverOf(g *obsGroup, req *codec.ConsumerGroupHeartbeatRequest) *obsMember {
	if req.MemberEpoch != rules.JoinEpoch || !req.InstanceId.Valid {
		return nil
	}
	for _, m := range g.members {
		if m.instance == req.InstanceId.Value && m.parked && m.definite {
			if _, changed := m.subs.with(req); changed && m.subs.known() {
				return nil
			}
			return m
		}
	}
	return nil
}

// quiet reports whether nothing may have changed g's membership since its
// change count was changes, up to op: no change called or returned since,
// none open, none called while op ran, no member whose timer may have
// fired by op's time.
func (o *observer) quiet(op *history.Op, g *obsGroup, group string, changes int) bool {
	if g.changes != changes || g.open != 0 {
		return false
	}
	for _, m := range g.members {
		if o.mayVanish(m, op.At) {
			return false
		}
	}
	for j := o.next; j < len(o.ops) && o.ops[j].Call < op.Return; j++ {
		if o.changeOf(o.ops[j]) == group {
			return false
		}
	}
	return true
}

// watching is the takeover g is followed for at op, nil once a change may
// have come (the watch ends there).
func (o *observer) watching(op *history.Op, g *obsGroup, group string) *takeoverWatch {
	if g.watch != nil && !o.quiet(op, g, group, g.watch.changes) {
		g.watch = nil
	}
	return g.watch
}

// staticHeartbeat judges a successful join or heartbeat (epoch >= 0) of
// member id at its call: a takeover against the Describe before it, any
// other against the takeover being followed.
func (o *observer) staticHeartbeat(op *history.Op, g *obsGroup, req *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse, id string) {
	if h := o.takeoverOf(g, req); h != nil {
		o.checkTakeover(op, g, req.GroupId, resp, id, h)
		return
	}
	w := o.watching(op, g, req.GroupId)
	if w == nil {
		return
	}
	if m := g.members[id]; m != nil && req.MemberEpoch > 0 && req.MemberEpoch < m.highEpoch {
		// A client behind its member (a response it lost): what the
		// broker does to catch it up is B4.4's to judge, not the watch's,
		// which ends here.
		g.watch = nil
		return
	}
	if resp.MemberEpoch > w.epoch {
		o.violate(op, rules.RuleStaticRestartKeepsAssignment, "after %s the group epoch moved on: member %s was answered epoch %d, the group stood at %d, with no membership change since",
			w.what(), id, resp.MemberEpoch, w.epoch)
		// The broker rebalanced: what it gives at the new epoch is that
		// rebalance's, not more of the same break (and a broker whose
		// break is known, check --known, is not judged on its echoes).
		g.watch = nil
		return
	}
	if m := g.members[id]; m != nil && m.given != nil && m.givenEpoch == w.epoch && resp.Assignment != nil {
		if lost := missing(m.given, assignedSet(resp.Assignment)); lost != "" {
			o.violate(op, rules.RuleStaticRestartKeepsAssignment, "after %s member %s lost %s, given to it at epoch %d, with no membership change since",
				w.what(), id, lost, w.epoch)
		}
	}
}

// watchMove follows every group across a coordinator move (a cluster
// fault, op): the next coordinator loads each group as its log has it
// (docs/PROTOCOL.md B4.5), so until the group's next possible change its
// epoch stays what the last Describe before the move showed, and no member
// given its assignment at that epoch loses a partition; a static member's
// parked assignment is the takeover's after the move (checkTakeover, on
// the same Describe). A group without such a Describe, or with a change
// in flight, is not followed. A coordinator restart of a target standing
// alone (no Fault) is judged as before, by its timers only.
func (o *observer) watchMove(op *history.Op) {
	if op.Fault == "" {
		return
	}
	for group, g := range o.groups {
		ev := g.epoch
		if ev == nil || !o.quiet(op, g, group, ev.changes) {
			continue
		}
		g.watch = &takeoverWatch{op: op, epoch: ev.epoch, changes: g.changes, targets: ev.targets}
	}
}

// checkTakeover judges a takeover of parked member h by member id against
// the Describe before it, and keeps what the watch that follows needs.
func (o *observer) checkTakeover(op *history.Op, g *obsGroup, group string, resp *codec.ConsumerGroupHeartbeatResponse, id string, h *obsMember) {
	g.watch = nil
	ev := g.epoch
	if ev == nil || !o.quiet(op, g, group, ev.changes) {
		return
	}
	w := &takeoverWatch{op: op, instance: h.instance, oldID: h.id, newID: id, epoch: ev.epoch, changes: g.changes, targets: ev.targets}
	if resp.MemberEpoch > ev.epoch {
		o.violate(op, rules.RuleStaticRestartKeepsAssignment, "%s moved the group epoch: its join was answered epoch %d, the group stood at %d (ConsumerGroupDescribe, op %d) with no membership change since",
			w.what(), resp.MemberEpoch, ev.epoch, ev.op.ID)
		return // a rebalance: no watch follows it (staticHeartbeat)
	}
	if h.given != nil && h.givenEpoch == ev.epoch {
		if lost := missing(h.given, assignedSet(resp.Assignment)); lost != "" {
			o.violate(op, rules.RuleStaticRestartKeepsAssignment, "%s: the join response lacks %s, which member %s was given at the current epoch %d",
				w.what(), lost, h.id, ev.epoch)
		}
	}
	o.atCall[op.ID] = w
}

// startWatch follows the takeover op judged at its call, now that it
// returned, if nothing changed while it ran.
func (o *observer) startWatch(op *history.Op, g *obsGroup) {
	if w, ok := o.atCall[op.ID].(*takeoverWatch); ok && g.changes == w.changes && g.open == 0 {
		g.watch = w
	}
}

// staticDescribe judges a Describe of a group at its call against the
// takeover being followed, and notes the group's change count for
// recordEpoch.
func (o *observer) staticDescribe(op *history.Op, g *obsGroup, dg *codec.DescribedGroup) {
	if g.open == 0 {
		at, _ := o.atCall[op.ID].(map[string]int)
		if at == nil {
			at = map[string]int{}
			o.atCall[op.ID] = at
		}
		at[dg.GroupId] = g.changes
	}
	w := o.watching(op, g, dg.GroupId)
	if w == nil {
		return
	}
	if dg.GroupEpoch > w.epoch {
		o.violate(op, rules.RuleStaticRestartKeepsAssignment, "after %s ConsumerGroupDescribe shows group epoch %d, the group stood at %d, with no membership change since",
			w.what(), dg.GroupEpoch, w.epoch)
		g.watch = nil // as in staticHeartbeat: the rest is the rebalance's
		return
	}
	if w.targets == nil || dg.AssignmentEpoch != w.epoch || dg.GroupEpoch != w.epoch {
		return
	}
	for _, dm := range dg.Members {
		key := dm.MemberId
		if key == w.newID {
			key = w.oldID
		} else if key == w.oldID {
			continue // still listed after the takeover: NoGhosts's to judge
		}
		before, ok := w.targets[key]
		if now := describedSet(dm.TargetAssignment); ok && !maps.Equal(before, now) {
			o.violate(op, rules.RuleStaticRestartKeepsAssignment, "after %s member %s's target assignment is %s, it was %s before (ConsumerGroupDescribe), with no membership change since",
				w.what(), dm.MemberId, partsString(now), partsString(before))
		}
	}
}

// recordEpoch keeps, at a Describe's return, the group epoch it showed,
// if no change may have come while it ran (besides the gone members it
// showed to have left before it) and every member it lists is one the
// history accounts for (the timers of others are unknown).
func (o *observer) recordEpoch(op *history.Op, g *obsGroup, dg *codec.DescribedGroup, gone int) {
	at, _ := o.atCall[op.ID].(map[string]int)
	changes, ok := at[dg.GroupId]
	g.epoch = nil
	if !ok || dg.ErrorCode != codec.None || g.changes != changes+gone || g.open != 0 {
		return
	}
	ev := &groupEvidence{op: op, epoch: dg.GroupEpoch, changes: g.changes}
	if dg.AssignmentEpoch == dg.GroupEpoch {
		ev.targets = map[string]partSet{}
	}
	for _, dm := range dg.Members {
		if g.members[dm.MemberId] == nil {
			return
		}
		if ev.targets != nil {
			ev.targets[dm.MemberId] = describedSet(dm.TargetAssignment)
		}
	}
	g.epoch = ev
}

func describedSet(a codec.DescribedAssignment) partSet {
	s := partSet{}
	for _, t := range a.TopicPartitions {
		for _, p := range t.Partitions {
			s[[2]any{t.TopicId, p}] = true
		}
	}
	return s
}

// missing lists what of want has lacks, "" if nothing.
func missing(want, has partSet) string {
	lost := partSet{}
	for p := range want {
		if !has[p] {
			lost[p] = true
		}
	}
	if len(lost) == 0 {
		return ""
	}
	return partsString(lost)
}

// partsString writes a partition set as [topic-id-prefix:partition ...].
func partsString(s partSet) string {
	var out []string
	for p := range s {
		id := p[0].(codec.UUID).String()
		out = append(out, fmt.Sprintf("%s:%d", id[:min(8, len(id))], p[1]))
	}
	slices.Sort(out)
	return "[" + strings.Join(out, " ") + "]"
}
