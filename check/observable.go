package check

import (
	"fmt"
	"sort"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// The observable check (docs/DESIGN.md, level 3) holds a broker we did not
// write only to what the protocol promises a client can see, never to the
// reference model's assignor, messages or internals:
//
//   - the invariants the driver observed through ConsumerGroupDescribe
//     (no ghosts, one member per process, no partition owned twice, epochs
//     only forward, quiescent membership);
//   - each response on its own (ObservableResponse): error codes the API
//     allows; at ConsumerGroupHeartbeat v1 an empty member id is
//     INVALID_REQUEST (KIP-1082); a success echoes the member id (or makes
//     a non-zero one at v0), never moves an epoch back, echoes -1/-2 on
//     leaves and carries a heartbeat interval; a heartbeat at an epoch the
//     broker never gave is fenced; LeaveGroup answers an instance id no
//     client ever used with UNKNOWN_MEMBER_ID; a v1 telemetry request
//     without a usable header instance id is INVALID_REQUEST;
//   - membership over time (MemberVanished): a member the history shows
//     present leaves the group only by a leave, a LeaveGroup removal (by
//     member id or by instance id), a static takeover, or a timer. Real
//     time makes timers nondeterministic within a window, so a member may
//     vanish only once its session timeout has passed since its last
//     successful heartbeat, or once a rebalance timeout has passed since
//     it was first asked to revoke (or since a coordinator restart found
//     it parked with revocations pending: Kafka's reload arms that timer
//     again), allowing for how far real time ran ahead of the history's
//     logical times (Options.LagMs). Requests whose outcome is
//     unknown make the members they name uncertain, and uncertain members
//     may vanish;
//   - KIP-345's promise (StaticRestartKeepsAssignment, observable_static.go):
//     a static takeover is not a rebalance;
//   - classic groups (observable_classic.go): each JoinGroup, SyncGroup,
//     Heartbeat and DescribeGroups answer on its own, KIP-394's promise
//     among them (a dynamic JoinGroup v4+ without a member id is never
//     made a member at once); the classic invariants the driver judged on
//     DescribeGroups and on what members were told.
//
// Within those windows the check cannot tell a correct broker from an
// early timer; it passes them rather than raise a false alarm.
//
// Concurrency. Operations whose intervals overlap (a parallel run, or a
// broker over TCP) happened in an order the history does not record. The
// check therefore walks the history's events in time: an operation is
// judged at its call, against what the operations that had returned by
// then established, and its effects are taken at its return. A member is
// not reported gone when an operation still in flight, or called before
// the judged one returned, may have removed it (a leave, a LeaveGroup, a
// takeover): that one may have come first.

// heartbeatErrors are the codes ConsumerGroupHeartbeat may answer (§B3.3).
var heartbeatErrors = map[codec.ErrorCode]bool{
	codec.None: true, codec.GroupAuthorizationFailed: true, codec.NotCoordinator: true, codec.CoordinatorNotAvailable: true,
	codec.CoordinatorLoadInProgress: true, codec.InvalidRequest: true, codec.GroupIDNotFound: true, codec.UnknownMemberID: true,
	codec.FencedMemberEpoch: true, codec.UnsupportedAssignor: true, codec.UnreleasedInstanceID: true, codec.GroupMaxSizeReached: true,
	codec.TopicAuthorizationFailed: true, codec.InvalidRegularExpression: true, codec.FencedInstanceID: true, codec.UnknownServerError: true,
}

// partSet is a set of partitions, keyed by topic id and partition.
type partSet map[[2]any]bool

type obsMember struct {
	id        string
	definite  bool   // known present (false: may or may not be)
	born      int64  // event time its entry was made: a describe called before it could not list it
	lastOK    int64  // At of its last successful join or heartbeat
	revokeAt  int64  // At it was first asked to revoke, -1 none
	instance  string // "" dynamic
	highEpoch int32  // highest positive epoch seen for it
	// given is the assignment the broker last sent it, at givenEpoch:
	// what the broker takes it to own until it reports otherwise.
	given      partSet
	givenEpoch int32
	// parked: its static leave (epoch -2) was answered; parkRevoking: it
	// had been asked to revoke when it parked.
	parked, parkRevoking bool
	subs                 subscription // as its requests set it
}

type obsGroup struct {
	members map[string]*obsMember
	// changes counts the calls and returns of requests that may have
	// changed the membership (joins, leaves, removals, new
	// subscriptions); open counts those called and not returned (one
	// whose outcome is unknown stays open). StaticRestartKeepsAssignment
	// only compares what was seen with no change in between.
	changes, open int
	// epoch is the group's epoch as the last Describe showed it, while no
	// change came after it; watch is a static takeover being followed.
	epoch *groupEvidence
	watch *takeoverWatch
}

type observer struct {
	plan      *plan.Plan
	sessionMs int64
	rebalMs   int64
	lagMs     int64
	groups    map[string]*obsGroup
	instances map[string]bool // every instance id a plan's process uses
	// classic are the plan's classic groups: their JoinGroup, SyncGroup,
	// Heartbeat and DescribeGroups answers are judged each on its own
	// (observable_classic.go), and A3's LeaveGroup rows hold for them as
	// A6.3 amends them.
	classic map[string]bool
	// restarts counts the coordinator restarts walked so far;
	// classicProtocols is the protocol each classic generation's
	// members were told since the last (observable_classic.go).
	restarts         int
	classicProtocols map[classicGeneration]string
	// ops are the history's operations by call; inflight are those
	// called and not returned (one whose outcome is unknown stays);
	// changing are the groups whose membership each op may change.
	ops      []*history.Op
	next     int // the index in ops of the next call
	inflight map[int]*history.Op
	changing map[int]string
	// atCall keeps, for what is judged at its call and applied at its
	// return, what the call saw (observable_static.go).
	atCall map[int]any
	// firsts are the first violation of each rule broken, in order: a
	// report shows them all, so a rule set aside as known (check --known)
	// hides no other.
	firsts []driver.RoundViolation
	// setAside says which violations are known findings' (Options);
	// known are the first of each rule it set aside.
	setAside func(rule, what string) bool
	known    []driver.RoundViolation
	count    int
}

// checkObservable is Check at LevelObservable.
func checkObservable(res *driver.Result, opts Options) *Report {
	rep := &Report{Invariants: res.Violations, budget: opts.timeout()}
	if errs := append(append([]string(nil), res.HarnessErrors...), assumptions(res.History)...); len(errs) > 0 {
		rep.Verdict, rep.Rule, rep.Detail = history.Unknown, string(rules.RuleHarnessAssumption), errs[0]
		return rep
	}
	o := newObserver(res, opts)
	o.walk(res.History)
	rep.SetAside = o.known
	switch {
	case len(res.Violations) > 0:
		v := res.Violations[0]
		rep.Verdict, rep.Rule = history.Illegal, v.Rule
		rep.Detail = fmt.Sprintf("round %d (t=%d ms): %s", v.Round, v.At, v.What)
		if len(o.firsts) > 0 {
			rep.Invariants = append(append([]driver.RoundViolation(nil), res.Violations...), o.firsts...)
		}
	case len(o.firsts) > 0:
		first := o.firsts[0]
		rep.Verdict, rep.Rule = history.Illegal, first.Rule
		rep.Detail = fmt.Sprintf("t=%d ms: %s", first.At, first.What)
		rep.Invariants = o.firsts
	default:
		rep.Verdict = history.Ok
	}
	return rep
}

func newObserver(res *driver.Result, opts Options) *observer {
	o := &observer{plan: &res.Plan, groups: map[string]*obsGroup{}, instances: map[string]bool{}, setAside: opts.SetAside,
		inflight: map[int]*history.Op{}, changing: map[int]string{}, atCall: map[int]any{}}
	o.sessionMs = opts.SessionTimeoutMs
	if o.sessionMs <= 0 {
		o.sessionMs = res.Plan.SessionTimeoutMs
	}
	o.rebalMs = int64(res.Plan.ClientRebalanceTimeoutMs()) // the driver's clients' RebalanceTimeoutMs
	o.lagMs = opts.LagMs + res.Plan.RoundMs
	if res.Plan.HasConnectWorker() {
		o.instances[plan.ProbeConnectInstance] = true // the prober's Connect worker's
	}
	for _, c := range res.Plan.Clients {
		if c.InstanceID != "" {
			o.instances[c.InstanceID] = true
		}
		if c.Classic != nil {
			if o.classic == nil {
				o.classic = map[string]bool{}
			}
			o.classic[c.Group] = true
		}
	}
	return o
}

// obsEvent is an operation's call or return.
type obsEvent struct {
	at   int64
	idx  int // in observer.ops
	call bool
}

// walk takes the history's events in time order: each operation is
// judged at its call and applied at its return (or, if its outcome is
// unknown, made uncertain at its call).
func (o *observer) walk(h history.History) {
	for i := range h {
		o.ops = append(o.ops, &h[i])
	}
	sort.SliceStable(o.ops, func(i, j int) bool { return o.ops[i].Call < o.ops[j].Call })
	events := make([]obsEvent, 0, 2*len(o.ops))
	for i, op := range o.ops {
		events = append(events, obsEvent{op.Call, i, true})
		if op.Return != history.Never {
			events = append(events, obsEvent{op.Return, i, false})
		}
	}
	sort.SliceStable(events, func(i, j int) bool {
		if events[i].at != events[j].at {
			return events[i].at < events[j].at
		}
		return events[i].call && !events[j].call
	})
	for _, e := range events {
		op := o.ops[e.idx]
		if e.call {
			o.next = e.idx + 1
			o.onCall(op)
		} else {
			o.onReturn(op)
		}
	}
}

func (o *observer) onCall(op *history.Op) {
	o.inflight[op.ID] = op
	if op.Restart {
		o.restart(op)
		return
	}
	if op.Refused {
		return
	}
	if g := o.changeOf(op); g != "" {
		o.changing[op.ID] = g
		grp := o.group(g)
		grp.changes++
		grp.open++
	}
	if op.Return == history.Never || op.Response == nil {
		o.uncertain(op)
		return
	}
	if o.classicAnswer(op) {
		return
	}
	switch req := op.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		o.heartbeat(op, req, op.Response.(*codec.ConsumerGroupHeartbeatResponse))
	case *codec.ConsumerGroupDescribeRequest:
		o.describe(op, op.Response.(*codec.ConsumerGroupDescribeResponse))
	case *codec.LeaveGroupRequest:
		o.leaveGroup(op, req, op.Response.(*codec.LeaveGroupResponse))
	case *codec.GetTelemetrySubscriptionsRequest:
		o.telemetry(op, op.Response.(*codec.GetTelemetrySubscriptionsResponse).ErrorCode)
	case *codec.PushTelemetryRequest:
		o.telemetry(op, op.Response.(*codec.PushTelemetryResponse).ErrorCode)
	}
}

func (o *observer) onReturn(op *history.Op) {
	delete(o.inflight, op.ID)
	if op.Restart || op.Refused || op.Response == nil {
		return
	}
	if g, ok := o.changing[op.ID]; ok {
		grp := o.group(g)
		grp.changes++
		grp.open--
	}
	switch req := op.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		o.applyHeartbeat(op, req, op.Response.(*codec.ConsumerGroupHeartbeatResponse))
	case *codec.ConsumerGroupDescribeRequest:
		o.applyDescribe(op, op.Response.(*codec.ConsumerGroupDescribeResponse))
	case *codec.LeaveGroupRequest:
		o.applyLeaveGroup(op, req, op.Response.(*codec.LeaveGroupResponse))
	}
	delete(o.atCall, op.ID)
}

// violate records a broken rule at op, if it is the rule's first. It
// takes a rules.Rule, so the id is a declared one (a test holds the calls
// to the constants of Rules).
func (o *observer) violate(op *history.Op, rule rules.Rule, format string, args ...any) {
	o.count++
	v := driver.RoundViolation{Round: op.Sent, At: op.At, Rule: string(rule), What: fmt.Sprintf("op %d (%s): ", op.ID, history.Describe(op)) + fmt.Sprintf(format, args...)}
	list := &o.firsts
	if o.setAside != nil && o.setAside(v.Rule, v.What) {
		list = &o.known
	}
	for _, f := range *list {
		if f.Rule == v.Rule {
			return
		}
	}
	*list = append(*list, v)
}

func (o *observer) group(id string) *obsGroup {
	g := o.groups[id]
	if g == nil {
		g = &obsGroup{members: map[string]*obsMember{}}
		o.groups[id] = g
	}
	return g
}

// mayVanish: the broker may have removed m by a timer at op time t.
func (o *observer) mayVanish(m *obsMember, t int64) bool {
	if !m.definite {
		return true
	}
	if t+o.lagMs >= m.lastOK+o.sessionMs {
		return true
	}
	return m.revokeAt >= 0 && t+o.lagMs >= m.revokeAt+o.rebalMs
}

// concurrent lists the operations that may have taken effect before op
// although op's call came first in the history or they had not returned
// by then: those in flight at op's call, and those called before op
// returned.
func (o *observer) concurrent(op *history.Op) []*history.Op {
	var out []*history.Op
	for _, c := range o.inflight {
		if c != op {
			out = append(out, c)
		}
	}
	for j := o.next; j < len(o.ops) && o.ops[j].Call < op.Return; j++ {
		out = append(out, o.ops[j])
	}
	return out
}

// vanish reports member id of group gone at op (how says what showed it),
// unless a timer may have removed it or a removal may have come first.
func (o *observer) vanish(op *history.Op, g *obsGroup, group, id, how string) {
	m := g.members[id]
	if m == nil || o.mayVanish(m, op.At) {
		return
	}
	for _, c := range o.concurrent(op) {
		if mayRemove(c, group, id, m.instance) {
			return
		}
	}
	o.violate(op, rules.RuleMemberVanished, "member %s of group %s is gone (%s) %d ms after its last successful heartbeat or coordinator restart, before its session timeout (%d ms)",
		id, group, how, op.At-m.lastOK, o.sessionMs)
}

// mayRemove reports whether c, whose outcome is unknown or which
// succeeded, may have removed member id (of instance inst, "" none) from
// group: its leave, its removal by LeaveGroup, or a takeover of its
// instance.
func mayRemove(c *history.Op, group, id, inst string) bool {
	switch req := c.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		resp, _ := c.Response.(*codec.ConsumerGroupHeartbeatResponse)
		if req.GroupId != group || resp != nil && resp.ErrorCode != codec.None {
			return false
		}
		return req.MemberEpoch == rules.LeaveEpoch && req.MemberId == id ||
			req.MemberEpoch == rules.JoinEpoch && inst != "" && req.InstanceId.Valid && req.InstanceId.Value == inst
	case *codec.LeaveGroupRequest:
		if req.GroupId != group {
			return false
		}
		if req.MemberId == id && id != "" {
			return true
		}
		for _, e := range req.Members {
			if e.MemberId == id && id != "" || inst != "" && e.GroupInstanceId.Valid && e.GroupInstanceId.Value == inst {
				return true
			}
		}
	}
	return false
}

// restart: a coordinator restart starts afresh the session of every member
// it finds, and the rebalance timer of every member it finds revoking, so
// none of them may vanish sooner than before. A member parked while
// revoking gets a rebalance timer again (Kafka's reload arms one for every
// member still in UNREVOKED_PARTITIONS, and a static leave does not change
// that state). A member whose session or rebalance timeout had already run
// out by the restart may be gone (the timers due at the restart's time
// fire before it): it is left as it was.
//
// A coordinator move (a cluster fault, op.Fault) restarts the timers of
// the groups the next coordinator loads too (docs/PROTOCOL.md B4.5), but
// a broker whose timers run on across it (kfake's, which moves nothing)
// loses no live member by it either: a member may vanish once its session
// has passed since its last heartbeat, as before the move. (A dead
// process's member may stay one session past the move: the driver's
// NoGhosts counts from it.) The move watch starts here.
func (o *observer) restart(op *history.Op) {
	o.restarts++    // a move reloads classic groups from their records too (B8.14)
	o.watchMove(op) // before the timers restart: quiet reads them as they were
	if op.Fault != "" {
		return
	}
	for _, g := range o.groups {
		for _, m := range g.members {
			if o.mayVanish(m, op.At) {
				continue
			}
			m.lastOK = op.At
			if m.revokeAt >= 0 || m.parked && m.parkRevoking {
				m.revokeAt = op.At
			}
		}
	}
}

// uncertain: an op that may or may not have taken effect makes what it
// names uncertain.
func (o *observer) uncertain(op *history.Op) {
	switch req := op.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		g := o.group(req.GroupId)
		if m := g.members[req.MemberId]; m != nil {
			m.definite = false
		} else if req.MemberEpoch == 0 && req.MemberId != "" {
			g.members[req.MemberId] = &obsMember{id: req.MemberId, born: op.Call, revokeAt: -1}
		}
		if req.MemberEpoch == 0 && req.InstanceId.Valid {
			for _, m := range g.members {
				if m.instance == req.InstanceId.Value {
					m.definite = false // it may have been taken over
				}
			}
		}
	case *codec.LeaveGroupRequest:
		for _, m := range o.group(req.GroupId).members {
			m.definite = false
		}
	}
}

func (o *observer) telemetry(op *history.Op, code codec.ErrorCode) {
	if op.Header.RequestApiVersion >= 1 && (!op.Header.ClientInstanceId.Valid || op.Header.ClientInstanceId.UUID.IsZero()) && code != codec.InvalidRequest {
		o.violate(op, rules.RuleObservableResponse, "a v1 telemetry request without a usable header client instance id must be INVALID_REQUEST, got %v", code)
	}
}

func zeroUUIDString(s string) bool {
	return rules.IsZeroUUIDString(s)
}
