package driver

// What the observer keeps to judge classic groups (docs/PROTOCOL.md Part C,
// the invariants' classic forms): the ledger of grace events it feeds from
// every classic request the target handles and every answer it gives
// (rules.ClassicLedger), and the trackers of the rules judged across the
// run: generations (MonotonicEpochs), what SyncGroup hands out per
// generation (NoDoubleClientAssignment), and a static member's restart
// into a Stable group (StaticRestartKeepsAssignment), judged on the
// target's snapshots just before and just after the restart's JoinGroup.

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// classicJudge is the observer's part for classic groups.
type classicJudge struct {
	o        *observer
	ledger   rules.ClassicLedger
	gens     rules.GenerationTracker
	assigns  rules.ClassicAssignments
	restarts rules.ClassicRestartTracker
	// mixed follows the conversions of a plan that migrates (mixed.go);
	// nil in every other plan.
	mixed *conversions
	// states are the classic groups' states as DescribeGroups last
	// showed them (a target with no snapshot: joinPhasesSeen).
	states map[string]string
}

// init sets the ledger's session and slack for d's plan.
func (cj *classicJudge) init(o *observer) {
	cj.o = o
	d := o.d
	cj.ledger.SessionMs = d.plan.SessionTimeoutMs
	for _, c := range d.plan.Clients {
		if c.Classic != nil {
			cj.ledger.SessionMs = max(cj.ledger.SessionMs, int64(c.Classic.SessionTimeoutMs))
		}
	}
	if d.plan.MigrationPolicy != "" {
		cj.mixed = &conversions{kinds: map[string]rules.GroupKind{}, at: map[string]int64{}, held: map[string]bool{},
			changes: map[string]int{}, described: map[string]int{}}
	}
}

// slack is how much later than the driver's clock the target may have
// started a classic timer: nothing for a target on the driver's clock that
// shows its state; over TCP the measured lag and stall and ten rounds of
// timer granularity (as NoGhosts' consumer grace, Part C).
func (cj *classicJudge) slack() int64 {
	d := cj.o.d
	s := d.lag() + d.stall()
	if cj.o.snap == nil {
		s += 10 * d.plan.RoundMs
	}
	return s
}

// restarted records a coordinator restart at time at.
func (cj *classicJudge) restarted(at int64) { cj.ledger.Restarted(at) }

// joinNames are a JoinGroup's protocol names, in order.
func joinNames(req *codec.JoinGroupRequest) []string {
	out := make([]string, len(req.Protocols))
	for i, p := range req.Protocols {
		out[i] = p.Name
	}
	return out
}

// before is the target's snapshot of r's group just before it handles r,
// when r is a static member's JoinGroup with MemberId "" that
// StaticRestartKeepsAssignment judges (a target that shows its state, in
// order): nil otherwise.
func (cj *classicJudge) before(r *request) *rules.GroupSnapshot {
	o := cj.o
	j, ok := r.req.(*codec.JoinGroupRequest)
	if !ok || o.snap == nil || o.d.plan.Parallel || j.MemberId != "" || !j.GroupInstanceId.Valid || r.h.RequestApiVersion < 5 {
		return nil
	}
	g, _ := heldGroup(o.snap.Snapshot(), j.GroupId)
	return &g
}

// handled notes a request the target just handled (op, recorded at
// coordinator time op.At; parked when the target holds it); before is
// what before gave for it. The caller holds the driver's mu.
func (cj *classicJudge) handled(r *request, op *history.Op, before *rules.GroupSnapshot) {
	d := cj.o.d
	if op.Refused {
		return // the target answered nothing and applied nothing
	}
	if cj.mixed != nil {
		if cj.o.snap == nil && !op.Parked {
			cj.tell(r, op.Response, op.At)
		}
		if cj.consumerMember(r, op, before) {
			return
		}
	}
	// Parked and still held (not dropped within its own handling).
	parked := op.Parked && !slices.Contains(op.Releases, op.ID)
	switch req := r.req.(type) {
	case *codec.JoinGroupRequest:
		if parked {
			cj.wait(r, req.GroupId, req.MemberId, 1)
		}
		if req.MemberId == "" && op.Response != nil {
			if resp := op.Response.(*codec.JoinGroupResponse); resp.ErrorCode != codec.InvalidGroupID && resp.ErrorCode != codec.InvalidSessionTimeout {
				if cj.o.epochs.Knows(req.GroupId) {
					cj.o.epochs.Forget(req.GroupId) // a classic group now, if it was a consumer one (A6.4)
				}
			}
		}
		if before != nil {
			resp, _ := op.Response.(*codec.JoinGroupResponse)
			if b := before.Classic; b != nil && b.State == rules.ClassicStable && resp != nil && resp.ErrorCode == codec.None && resp.GenerationId == b.Generation {
				// A static replacement answered at once in Stable:
				// recorded (B8.14). (Not known over TCP, where the
				// floor stays lower: a looser check.)
				cj.ledger.Recorded(req.GroupId, resp.GenerationId)
			}
			a, _ := heldGroup(cj.o.snap.Snapshot(), req.GroupId)
			if err := cj.restarts.Restarted(&cj.ledger, rules.ClassicRestart{Request: req, Response: resp, Before: *before, After: a,
				MaxGroupSize: d.plan.MaxGroupSize, BeforeHeldGroup: before.GroupID != ""}); err != nil {
				d.violate(err)
			}
		}
	case *codec.SyncGroupRequest:
		if parked {
			cj.wait(r, req.GroupId, req.MemberId, 1)
		}
		if req.MemberId != "" && len(req.Assignments) > 0 {
			if err := rules.LeaderAssignments(req.GroupId, req.GenerationId, req.Assignments); err != nil {
				d.violate(err)
			}
		}
	case *codec.ConsumerGroupHeartbeatRequest:
		if resp, ok := op.Response.(*codec.ConsumerGroupHeartbeatResponse); ok && req.MemberEpoch == rules.JoinEpoch && resp.ErrorCode == codec.None {
			cj.forget(req.GroupId) // a consumer group now (A6.4)
		}
	}
	if !op.Parked {
		cj.answered(r, op, op.Response, op.At)
	}
}

// forget drops what the classic trackers know of group: its id names a
// consumer group now.
func (cj *classicJudge) forget(group string) {
	cj.ledger.Forget(group)
	cj.gens.Forget(group)
	cj.assigns.Forget(group)
	cj.restarts.Forget(group)
	delete(cj.states, group)
}

// wait notes a JoinGroup or SyncGroup of member the target holds (delta 1)
// or no longer holds (-1); a JoinGroup v0-v3 with MemberId "" also counts
// among its client process's UnnamedJoins.
func (cj *classicJudge) wait(r *request, group, member string, delta int) {
	cj.ledger.Wait(group, member, delta)
	if member == "" && r.h.RequestApiKey == codec.JoinGroup && r.h.RequestApiVersion < 4 && r.p.classic != nil {
		r.p.classic.unnamed = max(r.p.classic.unnamed+delta, 0)
	}
}

// released notes the answer a parked request got (resp nil: dropped) at
// coordinator time at. The caller holds the driver's mu.
func (cj *classicJudge) released(r *request, op *history.Op, resp codec.Message, at int64) {
	switch req := r.req.(type) {
	case *codec.JoinGroupRequest:
		cj.wait(r, req.GroupId, req.MemberId, -1)
	case *codec.SyncGroupRequest:
		cj.wait(r, req.GroupId, req.MemberId, -1)
		if resp != nil {
			cj.ledger.Touched(req.GroupId, req.MemberId, at) // a held SyncGroup's answer starts the session again (B8.8)
		}
	}
	if resp != nil && cj.mixed != nil && cj.o.snap == nil {
		cj.tell(r, resp, at)
	}
	if resp != nil && (cj.mixed == nil || !cj.inConsumerGroup(r)) {
		cj.answered(r, op, resp, at)
	}
}

// answered notes what an answer (nil: the outcome is unknown) given at
// coordinator time at shows of the classic group's sessions, generations
// and assignments.
func (cj *classicJudge) answered(r *request, op *history.Op, resp codec.Message, at int64) {
	d, l := cj.o.d, &cj.ledger
	switch req := r.req.(type) {
	case *codec.JoinGroupRequest:
		j, _ := resp.(*codec.JoinGroupResponse)
		switch {
		case cj.mixed != nil && j != nil && j.ErrorCode == codec.RebalanceInProgress:
			// Only an upgrade answers a waiting JoinGroup so (A7.4);
			// if the group is still classic, the upgrade failed. A
			// join with no id is answered with the one made for it.
			id := req.MemberId
			if id == "" {
				id = j.MemberId
			}
			l.UpgradeAnswered(req.GroupId, id, at)
		case j == nil:
			// It may have completed the join phase and made a member.
			l.Completed(req.GroupId, at)
			l.Touched(req.GroupId, req.MemberId, at)
		case j.ErrorCode == codec.MemberIDRequired:
			l.PendingMade(req.GroupId, j.MemberId, at, req.SessionTimeoutMs)
		case j.ErrorCode == codec.None:
			l.Completed(req.GroupId, at)
			l.Joined(req.GroupId, j.MemberId, at, req.SessionTimeoutMs, req.GroupInstanceId.Valid, joinNames(req))
			if err := cj.gens.Answered(l, req.GroupId, j.MemberId, j.GenerationId); err != nil {
				d.violate(err)
			}
		}
	case *codec.SyncGroupRequest:
		s, _ := resp.(*codec.SyncGroupResponse)
		if s == nil || s.ErrorCode == codec.None {
			l.Touched(req.GroupId, req.MemberId, at)
		}
		if s == nil || s.ErrorCode != codec.None {
			return
		}
		l.Synced(req.GroupId, req.MemberId, req.GenerationId)
		l.Recorded(req.GroupId, req.GenerationId) // the leader's assignment is recorded before any SyncGroup is answered
		owner := req.MemberId
		if req.GroupInstanceId.Valid {
			owner = "instance " + req.GroupInstanceId.Value
		}
		for _, err := range []error{
			cj.gens.Answered(l, req.GroupId, req.MemberId, req.GenerationId),
			cj.assigns.Synced(l, req.GroupId, req.GenerationId, owner, s.Assignment),
			cj.restarts.Synced(req.GroupId, req.MemberId, req.GenerationId, s.Assignment),
		} {
			if err != nil {
				d.violate(err)
			}
		}
	case *codec.HeartbeatRequest:
		h, _ := resp.(*codec.HeartbeatResponse)
		if h == nil || h.ErrorCode == codec.None || h.ErrorCode == codec.RebalanceInProgress {
			l.Touched(req.GroupId, req.MemberId, at)
		}
		if h != nil && h.ErrorCode == codec.None {
			if err := cj.gens.Answered(l, req.GroupId, req.MemberId, req.GenerationId); err != nil {
				d.violate(err)
			}
		}
	case *codec.LeaveGroupRequest:
		lg, _ := resp.(*codec.LeaveGroupResponse)
		if lg == nil || lg.ErrorCode != codec.None {
			return
		}
		if len(req.Members) == 0 { // v0-v2: the one member, its result the top level's
			l.Left(req.GroupId, req.MemberId, at)
			return
		}
		for _, m := range lg.Members {
			if m.ErrorCode == codec.None && m.MemberId != "" {
				l.Left(req.GroupId, m.MemberId, at)
			}
		}
	}
}

// observe judges the generations of the classic groups of a snapshot
// (DescribeGroups shows none), and drops what the classic trackers know of
// a group the snapshot shows as a consumer group.
func (cj *classicJudge) observe(groups []rules.GroupSnapshot) {
	for i := range groups {
		switch g := &groups[i]; {
		case g.Kind != rules.KindClassic && cj.ledger.Knows(g.GroupID):
			cj.forget(g.GroupID)
		case g.Kind == rules.KindClassic && cj.o.epochs.Knows(g.GroupID):
			cj.o.epochs.Forget(g.GroupID)
		}
	}
	if cj.o.snap == nil {
		cj.joinPhasesSeen(groups)
		return
	}
	if err := cj.gens.Observe(&cj.ledger, groups); err != nil {
		cj.o.d.violate(err)
	}
}

// joinPhasesSeen notes, for an observer that sees classic groups only
// through DescribeGroups, each group whose join phase it saw running at
// its last observation of the group and sees over now: the phase completed
// by now, starting every member's session again
// (ClassicLedger.JoinPhaseSeenOver).
func (cj *classicJudge) joinPhasesSeen(groups []rules.GroupSnapshot) {
	if cj.states == nil {
		cj.states = map[string]string{}
	}
	for i := range groups {
		g := &groups[i]
		if g.Kind != rules.KindClassic || g.Classic == nil {
			continue
		}
		if cj.states[g.GroupID] == rules.ClassicPreparingRebalance && g.Classic.State != rules.ClassicPreparingRebalance {
			cj.ledger.JoinPhaseSeenOver(g.GroupID, cj.o.d.at)
		}
		cj.states[g.GroupID] = g.Classic.State
	}
}

// process fills in what the invariants know of classic process p beyond
// any process's: the ids it will never learn, the ids it left, its held
// JoinGroups v0-v3 with MemberId "".
func (cj *classicJudge) process(p *proc, mp *rules.Process) {
	k := p.classic
	mp.UnnamedJoins = k.unnamed
	mp.Abandoned = k.abandoned
	mp.Lost = mp.Lost[:0:0]
	if !p.live {
		return
	}
	for _, id := range mp.AllIDs {
		if !k.known[id] && p.inflight[id] == 0 {
			mp.Lost = append(mp.Lost, id)
		}
	}
}
