package linearize

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
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
//     present leaves the group only by a leave, a LeaveGroup removal, a
//     static takeover, or a timer. Real time makes timers nondeterministic
//     within a window, so a member may vanish only once its session
//     timeout has passed since its last successful heartbeat, or once a
//     rebalance timeout has passed since it was first asked to revoke,
//     allowing for how far real time ran ahead of the history's logical
//     times (CheckOptions.LagMs). Requests whose outcome is unknown make
//     the members they name uncertain, and uncertain members may vanish.
//
// Within those windows the check cannot tell a correct broker from an
// early timer; it passes them rather than raise a false alarm.

// The rules the observable check reports besides the driver's invariants
// and model.RuleMonotonicEpochs (Rules lists them all).
const (
	// RuleObservableResponse is broken by a response the protocol does
	// not allow for its request.
	RuleObservableResponse    model.Rule = "ObservableResponse"
	meaningObservableResponse            = "each response is one the protocol allows for its request: error codes the API may answer, member ids and epochs echoed as promised, INVALID_REQUEST where KIP-1082 and KIP-1313 demand it"

	// RuleMemberVanished is broken by a member that left its group
	// without a leave, a removal, a takeover or a timer that may have
	// fired.
	RuleMemberVanished    model.Rule = "MemberVanished"
	meaningMemberVanished            = "a member leaves its group only by a leave, an administrative removal, a static takeover, or a session or rebalance timeout that has passed"
)

// CheckLevel is how much a check demands.
type CheckLevel int

const (
	// LevelAuto (the zero value) decides from the run: LevelExact for a
	// target that declares itself model-exact (ModelExacter), else
	// LevelObservable.
	LevelAuto CheckLevel = iota
	// LevelExact holds the target to the reference model (porcupine).
	LevelExact
	// LevelObservable holds it only to what the protocol promises.
	LevelObservable
)

// heartbeatErrors are the codes ConsumerGroupHeartbeat may answer (§B3.3).
var heartbeatErrors = map[codec.ErrorCode]bool{
	codec.None: true, codec.GroupAuthorizationFailed: true, codec.NotCoordinator: true, codec.CoordinatorNotAvailable: true,
	codec.CoordinatorLoadInProgress: true, codec.InvalidRequest: true, codec.GroupIDNotFound: true, codec.UnknownMemberID: true,
	codec.FencedMemberEpoch: true, codec.UnsupportedAssignor: true, codec.UnreleasedInstanceID: true, codec.GroupMaxSizeReached: true,
	codec.TopicAuthorizationFailed: true, codec.InvalidRegularExpression: true, codec.FencedInstanceID: true, codec.UnknownServerError: true,
}

type obsMember struct {
	definite  bool   // known present (false: may or may not be)
	lastOK    int64  // At of its last successful join or heartbeat
	revokeAt  int64  // At it was first asked to revoke, -1 none
	instance  string // "" dynamic
	highEpoch int32  // highest positive epoch seen for it
	// given is the assignment the broker last sent it: what the broker
	// takes it to own until it reports otherwise.
	given map[[2]any]bool
}

type obsGroup struct {
	members map[string]*obsMember
}

type observer struct {
	plan      *Plan
	sessionMs int64
	rebalMs   int64
	lagMs     int64
	groups    map[string]*obsGroup
	instances map[string]bool // every instance id a plan client uses
	// firsts are the first violation of each rule broken, in order: a
	// report shows them all, so a rule set aside as known (check --known)
	// hides no other.
	firsts []RoundViolation
	// setAside says which violations are known findings' (CheckOptions);
	// known are the first of each rule it set aside.
	setAside func(rule, what string) bool
	known    []RoundViolation
	count    int
}

// checkObservable is Check at LevelObservable.
func checkObservable(res *Result, opts CheckOptions) *Report {
	rep := &Report{Invariants: res.Violations, budget: opts.timeout()}
	if errs := append(append([]string(nil), res.HarnessErrors...), CheckAssumptions(res.History)...); len(errs) > 0 {
		rep.Verdict, rep.Rule, rep.Detail = VerdictUnknown, string(RuleHarnessAssumption), errs[0]
		return rep
	}
	o := &observer{plan: &res.Plan, groups: map[string]*obsGroup{}, instances: map[string]bool{}, setAside: opts.SetAside}
	o.sessionMs = opts.SessionTimeoutMs
	if o.sessionMs <= 0 {
		o.sessionMs = res.Plan.SessionTimeoutMs
	}
	o.rebalMs = 4 * res.Plan.RoundMs * int64(res.Plan.RequestTimeout) // the driver's clients' RebalanceTimeoutMs
	o.lagMs = opts.LagMs + res.Plan.RoundMs
	for _, c := range res.Plan.Clients {
		if c.InstanceID != "" {
			o.instances[c.InstanceID] = true
		}
	}
	ops := append(History(nil), res.History...)
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	for i := range ops {
		o.step(&ops[i])
	}
	rep.SetAside = o.known
	switch {
	case len(res.Violations) > 0:
		v := res.Violations[0]
		rep.Verdict, rep.Rule = Illegal, v.Rule
		rep.Detail = fmt.Sprintf("round %d (t=%d ms): %s", v.Round, v.At, v.What)
		if len(o.firsts) > 0 {
			rep.Invariants = append(append([]RoundViolation(nil), res.Violations...), o.firsts...)
		}
	case len(o.firsts) > 0:
		first := o.firsts[0]
		rep.Verdict, rep.Rule = Illegal, first.Rule
		rep.Detail = fmt.Sprintf("t=%d ms: %s", first.At, first.What)
		rep.Invariants = o.firsts
	default:
		rep.Verdict = Ok
	}
	return rep
}

// violate records a broken rule at op, if it is the rule's first. It
// takes a model.Rule, so the id is a declared one (a test holds the calls
// to the constants of Rules).
func (o *observer) violate(op *Op, rule model.Rule, format string, args ...any) {
	o.count++
	v := RoundViolation{Round: op.Sent, At: op.At, Rule: string(rule), What: fmt.Sprintf("op %d (%s): ", op.ID, describeOp(op)) + fmt.Sprintf(format, args...)}
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

func (o *observer) vanish(op *Op, g *obsGroup, group, id, how string) {
	if m := g.members[id]; m != nil && !o.mayVanish(m, op.At) {
		o.violate(op, RuleMemberVanished, "member %s of group %s is gone (%s) %d ms after its last successful heartbeat or coordinator restart, before its session timeout (%d ms)",
			id, group, how, op.At-m.lastOK, o.sessionMs)
	}
	delete(g.members, id)
}

func (o *observer) step(op *Op) {
	if op.Restart {
		o.restart(op)
		return
	}
	if op.Refused {
		return
	}
	if op.Return == Unknown || op.Response == nil {
		o.uncertain(op)
		return
	}
	switch req := op.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		o.heartbeat(op, req, op.Response.(*codec.ConsumerGroupHeartbeatResponse))
	case *codec.ConsumerGroupDescribeRequest:
		o.describe(op, req, op.Response.(*codec.ConsumerGroupDescribeResponse))
	case *codec.LeaveGroupRequest:
		o.leaveGroup(op, req, op.Response.(*codec.LeaveGroupResponse))
	case *codec.GetTelemetrySubscriptionsRequest:
		o.telemetry(op, op.Response.(*codec.GetTelemetrySubscriptionsResponse).ErrorCode)
	case *codec.PushTelemetryRequest:
		o.telemetry(op, op.Response.(*codec.PushTelemetryResponse).ErrorCode)
	}
}

// restart: a coordinator restart starts afresh the session of every member
// it finds, and the rebalance timer of every member it finds revoking, so
// none of them may vanish sooner than before. A member whose session or
// rebalance timeout had already run out by the restart may be gone (the
// timers due at the restart's time fire before it): it is left as it was.
func (o *observer) restart(op *Op) {
	for _, g := range o.groups {
		for _, m := range g.members {
			if o.mayVanish(m, op.At) {
				continue
			}
			m.lastOK = op.At
			if m.revokeAt >= 0 {
				m.revokeAt = op.At
			}
		}
	}
}

// uncertain: an op that may or may not have taken effect makes what it
// names uncertain.
func (o *observer) uncertain(op *Op) {
	switch req := op.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		g := o.group(req.GroupId)
		if m := g.members[req.MemberId]; m != nil {
			m.definite = false
		} else if req.MemberEpoch == 0 && req.MemberId != "" {
			g.members[req.MemberId] = &obsMember{revokeAt: -1}
		}
	case *codec.LeaveGroupRequest:
		for _, m := range o.group(req.GroupId).members {
			m.definite = false
		}
	}
}

func (o *observer) telemetry(op *Op, code codec.ErrorCode) {
	if op.Header.RequestApiVersion >= 1 && (!op.Header.ClientInstanceId.Valid || op.Header.ClientInstanceId.UUID.IsZero()) && code != codec.InvalidRequest {
		o.violate(op, RuleObservableResponse, "a v1 telemetry request without a usable header client instance id must be INVALID_REQUEST, got %v", code)
	}
}

func ownedSet(tps []codec.ConsumerGroupHeartbeatTopicPartitions) map[[2]any]bool {
	s := map[[2]any]bool{}
	for _, t := range tps {
		for _, p := range t.Partitions {
			s[[2]any{t.TopicId, p}] = true
		}
	}
	return s
}

func (o *observer) heartbeat(op *Op, req *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) {
	v := op.Header.RequestApiVersion
	if !heartbeatErrors[resp.ErrorCode] {
		o.violate(op, RuleObservableResponse, "ConsumerGroupHeartbeat may not answer %v", resp.ErrorCode)
	}
	if v >= 1 && strings.TrimSpace(req.MemberId) == "" && resp.ErrorCode != codec.InvalidRequest {
		o.violate(op, RuleObservableResponse, "KIP-1082: an empty member id at v%d must be INVALID_REQUEST, got %v", v, resp.ErrorCode)
	}
	g := o.group(req.GroupId)
	id := req.MemberId
	if resp.ErrorCode != codec.None {
		m := g.members[id]
		switch {
		case req.MemberEpoch > 0 && m != nil && m.definite && m.highEpoch > 0 && req.MemberEpoch <= m.highEpoch &&
			resp.ErrorCode == codec.UnknownMemberID && !req.InstanceId.Valid:
			o.vanish(op, g, req.GroupId, id, "the broker answered UNKNOWN_MEMBER_ID")
		case resp.ErrorCode == codec.UnknownMemberID && m != nil && !req.InstanceId.Valid:
			delete(g.members, id)
		}
		return
	}
	if v >= 1 && (!resp.MemberId.Valid || resp.MemberId.Value != id) {
		o.violate(op, RuleObservableResponse, "a v%d success must echo member id %q, got %v", v, id, resp.MemberId)
	}
	if id == "" {
		if !resp.MemberId.Valid || resp.MemberId.Value == "" || zeroUUIDString(resp.MemberId.Value) {
			o.violate(op, RuleObservableResponse, "a v0 join without an id must be given a non-empty, non-zero one, got %v", resp.MemberId)
			return
		}
		id = resp.MemberId.Value
	}
	m := g.members[id]
	switch req.MemberEpoch {
	case -1, -2:
		if resp.MemberEpoch != req.MemberEpoch {
			o.violate(op, RuleObservableResponse, "a leave at epoch %d must echo it, got %d", req.MemberEpoch, resp.MemberEpoch)
		}
		if req.MemberEpoch == -1 {
			delete(g.members, id)
		} else if m != nil {
			m.revokeAt = -1 // parked: pending revocations are cleared
		}
		return
	}
	if resp.HeartbeatIntervalMs <= 0 {
		o.violate(op, RuleObservableResponse, "a successful heartbeat must carry a heartbeat interval, got %d", resp.HeartbeatIntervalMs)
	}
	if req.MemberEpoch > 0 && resp.MemberEpoch < req.MemberEpoch {
		o.violate(op, model.RuleMonotonicEpochs, "a heartbeat at epoch %d was answered with epoch %d", req.MemberEpoch, resp.MemberEpoch)
	}
	if req.MemberEpoch > 0 && m != nil && m.definite && m.highEpoch > 0 && req.MemberEpoch > m.highEpoch {
		o.violate(op, RuleObservableResponse, "a heartbeat at epoch %d, above any epoch the broker gave member %s (%d), must be fenced", req.MemberEpoch, id, m.highEpoch)
	}
	if m == nil {
		m = &obsMember{revokeAt: -1}
		g.members[id] = m
	}
	if m.highEpoch > 0 && resp.MemberEpoch > 0 && resp.MemberEpoch < m.highEpoch {
		o.violate(op, model.RuleMonotonicEpochs, "member %s went from epoch %d to %d", id, m.highEpoch, resp.MemberEpoch)
	}
	m.highEpoch = max(m.highEpoch, resp.MemberEpoch)
	m.definite, m.lastOK = true, op.At
	if req.InstanceId.Valid {
		m.instance = req.InstanceId.Value
		for other, om := range g.members {
			if other != id && om.instance == m.instance {
				delete(g.members, other) // a static takeover
			}
		}
		if req.MemberEpoch == 0 && m.revokeAt < 0 {
			m.revokeAt = op.At // it may inherit partitions to revoke
		}
	}
	// Revocations: asked when the new assignment lacks something the
	// member owns, as it reported or as the broker last gave it (a rejoin
	// at epoch 0 reports nothing, yet the broker may still count what it
	// gave before); the rebalance timer may run from then on.
	if resp.Assignment != nil {
		now := ownedSet(resp.Assignment.TopicPartitions)
		for _, owned := range []map[[2]any]bool{ownedSet(req.TopicPartitions), m.given} {
			for p := range owned {
				if !now[p] && m.revokeAt < 0 {
					m.revokeAt = op.At
				}
			}
		}
		m.given = now
	}
}

func (o *observer) describe(op *Op, req *codec.ConsumerGroupDescribeRequest, resp *codec.ConsumerGroupDescribeResponse) {
	for _, dg := range resp.Groups {
		g := o.group(dg.GroupId)
		switch dg.ErrorCode {
		case codec.GroupIDNotFound:
			for id := range g.members {
				o.vanish(op, g, dg.GroupId, id, "the group is not found")
			}
			continue
		case codec.None:
		default:
			o.violate(op, RuleObservableResponse, "ConsumerGroupDescribe answered group %s with %v", dg.GroupId, dg.ErrorCode)
			continue
		}
		listed := map[string]int32{}
		for _, dm := range dg.Members {
			listed[dm.MemberId] = dm.MemberEpoch
		}
		for id := range g.members {
			if _, ok := listed[id]; !ok {
				o.vanish(op, g, dg.GroupId, id, "not listed by ConsumerGroupDescribe")
			}
		}
		for id, e := range listed {
			m := g.members[id]
			if m == nil {
				continue // NoGhosts judges members no process accounts for
			}
			if e > 0 && m.highEpoch > 0 && e < m.highEpoch {
				o.violate(op, model.RuleMonotonicEpochs, "ConsumerGroupDescribe lists member %s at epoch %d after it was given %d", id, e, m.highEpoch)
			}
			m.highEpoch = max(m.highEpoch, e)
			m.definite = true
		}
	}
}

func (o *observer) leaveGroup(op *Op, req *codec.LeaveGroupRequest, resp *codec.LeaveGroupResponse) {
	v := op.Header.RequestApiVersion
	if v >= 3 && resp.ErrorCode != codec.None {
		o.violate(op, RuleObservableResponse, "LeaveGroup v%d answered top-level %v, want NONE", v, resp.ErrorCode)
	}
	g := o.group(req.GroupId)
	for i, mr := range resp.Members {
		switch mr.ErrorCode {
		case codec.None, codec.UnknownMemberID, codec.FencedInstanceID:
		default:
			o.violate(op, RuleObservableResponse, "LeaveGroup member %d answered %v", i, mr.ErrorCode)
		}
		inst := mr.GroupInstanceId
		if i < len(req.Members) {
			inst = req.Members[i].GroupInstanceId
		}
		if inst.Valid && !o.instances[inst.Value] && mr.ErrorCode != codec.UnknownMemberID {
			o.violate(op, RuleObservableResponse, "LeaveGroup of instance %q, which no client ever used, must be UNKNOWN_MEMBER_ID, got %v", inst.Value, mr.ErrorCode)
		}
		if mr.ErrorCode == codec.None && inst.Valid {
			for id, m := range g.members {
				if m.instance == inst.Value {
					delete(g.members, id)
				}
			}
		}
	}
}

func zeroUUIDString(s string) bool {
	return model.IsZeroUUIDString(s)
}
