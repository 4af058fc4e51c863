package check

// The observable check's reading of each API: what a response must be, at
// the operation's call, and what it establishes, at its return
// (observable.go says why the two are apart).

import (
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

func ownedSet(tps []codec.ConsumerGroupHeartbeatTopicPartitions) partSet {
	s := partSet{}
	for _, t := range tps {
		for _, p := range t.Partitions {
			s[[2]any{t.TopicId, p}] = true
		}
	}
	return s
}

// assignedSet is a heartbeat response's assignment (none when it carries
// none).
func assignedSet(a *codec.ConsumerGroupHeartbeatAssignment) partSet {
	if a == nil {
		return partSet{}
	}
	return ownedSet(a.TopicPartitions)
}

// subscription is a member's subscription as its requests set it. Each
// of a heartbeat's two fields is "unchanged" when null (KIP-848), so the
// topic names and the regex are kept apart, and a regex of "" (what a
// client sends to drop its regex) is not the same as none: a broker may
// count it as a change and move the group epoch.
type subscription struct {
	names, regex       string
	hasNames, hasRegex bool
}

// known reports whether any request set the subscription.
func (s subscription) known() bool { return s.hasNames || s.hasRegex }

// with is s after req, and whether req changed it (any field of a
// subscription not known before counts as a change).
func (s subscription) with(req *codec.ConsumerGroupHeartbeatRequest) (subscription, bool) {
	changed := false
	if req.SubscribedTopicNames != nil {
		names := slices.Clone(req.SubscribedTopicNames)
		slices.Sort(names)
		n := strings.Join(slices.Compact(names), ",")
		changed = !s.hasNames || n != s.names
		s.names, s.hasNames = n, true
	}
	if re := req.SubscribedTopicRegex; re.Valid {
		changed = changed || !s.hasRegex || re.Value != s.regex
		s.regex, s.hasRegex = re.Value, true
	}
	return s, changed
}

// heartbeat judges a ConsumerGroupHeartbeat response at its call.
func (o *observer) heartbeat(op *history.Op, req *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) {
	v := op.Header.RequestApiVersion
	if !heartbeatErrors[resp.ErrorCode] {
		o.violate(op, rules.RuleObservableResponse, "ConsumerGroupHeartbeat may not answer %v", resp.ErrorCode)
	}
	if v >= 1 && strings.TrimSpace(req.MemberId) == "" && resp.ErrorCode != codec.InvalidRequest {
		o.violate(op, rules.RuleObservableResponse, "KIP-1082: an empty member id at v%d must be INVALID_REQUEST, got %v", v, resp.ErrorCode)
	}
	g := o.group(req.GroupId)
	id := req.MemberId
	if resp.ErrorCode != codec.None {
		m := g.members[id]
		if req.MemberEpoch > 0 && m != nil && m.definite && m.highEpoch > 0 && req.MemberEpoch <= m.highEpoch &&
			resp.ErrorCode == codec.UnknownMemberID && !req.InstanceId.Valid {
			o.vanish(op, g, req.GroupId, id, "the broker answered UNKNOWN_MEMBER_ID")
		}
		return
	}
	if v >= 1 && (!resp.MemberId.Valid || resp.MemberId.Value != id) {
		o.violate(op, rules.RuleObservableResponse, "a v%d success must echo member id %q, got %v", v, id, resp.MemberId)
	}
	if id == "" {
		if !resp.MemberId.Valid || resp.MemberId.Value == "" || zeroUUIDString(resp.MemberId.Value) {
			o.violate(op, rules.RuleObservableResponse, "a v0 join without an id must be given a non-empty, non-zero one, got %v", resp.MemberId)
			return
		}
		id = resp.MemberId.Value
	}
	if req.MemberEpoch == rules.LeaveEpoch || req.MemberEpoch == rules.StaticLeaveEpoch {
		if resp.MemberEpoch != req.MemberEpoch {
			o.violate(op, rules.RuleObservableResponse, "a leave at epoch %d must echo it, got %d", req.MemberEpoch, resp.MemberEpoch)
		}
		return
	}
	if resp.HeartbeatIntervalMs <= 0 {
		o.violate(op, rules.RuleObservableResponse, "a successful heartbeat must carry a heartbeat interval, got %d", resp.HeartbeatIntervalMs)
	}
	if req.MemberEpoch > 0 && resp.MemberEpoch < req.MemberEpoch {
		o.violate(op, rules.RuleMonotonicEpochs, "a heartbeat at epoch %d was answered with epoch %d", req.MemberEpoch, resp.MemberEpoch)
	}
	m := g.members[id]
	if req.MemberEpoch > 0 && m != nil && m.definite && m.highEpoch > 0 && req.MemberEpoch > m.highEpoch {
		o.violate(op, rules.RuleObservableResponse, "a heartbeat at epoch %d, above any epoch the broker gave member %s (%d), must be fenced", req.MemberEpoch, id, m.highEpoch)
	}
	if m != nil && m.highEpoch > 0 && resp.MemberEpoch > 0 && resp.MemberEpoch < m.highEpoch {
		o.violate(op, rules.RuleMonotonicEpochs, "member %s went from epoch %d to %d", id, m.highEpoch, resp.MemberEpoch)
	}
	o.staticHeartbeat(op, g, req, resp, id)
}

// applyHeartbeat takes what a ConsumerGroupHeartbeat response establishes,
// at its return.
func (o *observer) applyHeartbeat(op *history.Op, req *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) {
	g := o.group(req.GroupId)
	id := req.MemberId
	if resp.ErrorCode != codec.None {
		// A member the broker no longer knows is gone (vanish judged it),
		// unless it was made after this request was called: a change of
		// membership no request of the history made (a timer).
		if m := g.members[id]; resp.ErrorCode == codec.UnknownMemberID && m != nil && !req.InstanceId.Valid && m.born < op.Call {
			delete(g.members, id)
			g.changes++
		}
		return
	}
	if req.MemberEpoch == 0 {
		o.endClassicGenerations(req.GroupId)
	}
	if id == "" {
		if !resp.MemberId.Valid || resp.MemberId.Value == "" {
			return
		}
		id = resp.MemberId.Value
	}
	m := g.members[id]
	switch req.MemberEpoch {
	case rules.LeaveEpoch:
		delete(g.members, id)
		return
	case rules.StaticLeaveEpoch:
		if m != nil {
			// Parked: pending revocations are cleared (its rebalance timer
			// with them, until a restart: see restart).
			m.parked, m.parkRevoking, m.revokeAt = true, m.revokeAt >= 0, -1
		}
		return
	}
	if m == nil {
		m = &obsMember{id: id, born: op.Return, revokeAt: -1}
		g.members[id] = m
	}
	o.takeover(op, g, req, m)
	m.highEpoch = max(m.highEpoch, resp.MemberEpoch)
	m.definite, m.lastOK, m.parked = true, op.At, false
	m.subs, _ = m.subs.with(req)
	if req.InstanceId.Valid && req.MemberEpoch == 0 && m.revokeAt < 0 {
		m.revokeAt = op.At // it may inherit partitions to revoke
	}
	// Revocations: asked when the new assignment lacks something the
	// member owns, as it reported or as the broker last gave it (a rejoin
	// at epoch 0 reports nothing, yet the broker may still count what it
	// gave before); the rebalance timer may run from then on.
	if resp.Assignment != nil {
		now := assignedSet(resp.Assignment)
		for _, owned := range []partSet{ownedSet(req.TopicPartitions), m.given} {
			for p := range owned {
				if !now[p] && m.revokeAt < 0 {
					m.revokeAt = op.At
				}
			}
		}
		m.given, m.givenEpoch = now, resp.MemberEpoch
	}
}

// takeover: a static join makes its member the holder of its instance id;
// another member holding it was taken over, and is gone.
func (o *observer) takeover(op *history.Op, g *obsGroup, req *codec.ConsumerGroupHeartbeatRequest, m *obsMember) {
	if !req.InstanceId.Valid {
		return
	}
	m.instance = req.InstanceId.Value
	for other, om := range g.members {
		if other != m.id && om.instance == m.instance {
			delete(g.members, other)
		}
	}
	o.startWatch(op, g)
}

// describe judges a ConsumerGroupDescribe response at its call.
func (o *observer) describe(op *history.Op, resp *codec.ConsumerGroupDescribeResponse) {
	for _, dg := range resp.Groups {
		g := o.group(dg.GroupId)
		switch dg.ErrorCode {
		case codec.GroupIDNotFound:
			for id := range g.members {
				o.vanish(op, g, dg.GroupId, id, "the group is not found")
			}
			continue
		case codec.None:
		case codec.InvalidGroupID:
			if dg.GroupId == "" { // A3.3, §B7.2: only the empty group id
				continue
			}
			o.violate(op, rules.RuleObservableResponse, "ConsumerGroupDescribe answered group %q with %v: only the empty group id is invalid (A3.3)", dg.GroupId, dg.ErrorCode)
		default:
			o.violate(op, rules.RuleObservableResponse, "ConsumerGroupDescribe answered group %s with %v", dg.GroupId, dg.ErrorCode)
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
			// NoGhosts judges members no process accounts for.
			if m := g.members[id]; m != nil && e > 0 && m.highEpoch > 0 && e < m.highEpoch {
				o.violate(op, rules.RuleMonotonicEpochs, "ConsumerGroupDescribe lists member %s at epoch %d after it was given %d", id, e, m.highEpoch)
			}
		}
		o.staticDescribe(op, g, &dg)
	}
}

// applyDescribe takes what a ConsumerGroupDescribe response establishes,
// at its return: members it does not list are gone (unless made after it
// was called), those it lists are there.
func (o *observer) applyDescribe(op *history.Op, resp *codec.ConsumerGroupDescribeResponse) {
	for _, dg := range resp.Groups {
		if dg.ErrorCode != codec.None && dg.ErrorCode != codec.GroupIDNotFound {
			continue
		}
		g := o.group(dg.GroupId)
		listed := map[string]int32{}
		for _, dm := range dg.Members {
			listed[dm.MemberId] = dm.MemberEpoch
		}
		gone := 0
		for id, m := range g.members {
			if _, ok := listed[id]; !ok && m.born < op.Call {
				delete(g.members, id)
				gone++
			}
		}
		g.changes += gone // timers, which no request of the history shows
		for id, e := range listed {
			if m := g.members[id]; m != nil {
				m.highEpoch = max(m.highEpoch, e)
				m.definite = true
			}
		}
		o.recordEpoch(op, g, &dg, gone)
	}
}

// leaveGroup judges a LeaveGroup response at its call.
func (o *observer) leaveGroup(op *history.Op, req *codec.LeaveGroupRequest, resp *codec.LeaveGroupResponse) {
	v := op.Header.RequestApiVersion
	// Only the empty group id is refused at the top level (A3.3).
	if v >= 3 && resp.ErrorCode != codec.None && !(req.GroupId == "" && resp.ErrorCode == codec.InvalidGroupID) {
		o.violate(op, rules.RuleObservableResponse, "LeaveGroup v%d answered top-level %v, want NONE", v, resp.ErrorCode)
	}
	for i, mr := range resp.Members {
		switch mr.ErrorCode {
		case codec.None, codec.UnknownMemberID, codec.FencedInstanceID:
		default:
			o.violate(op, rules.RuleObservableResponse, "LeaveGroup member %d answered %v", i, mr.ErrorCode)
		}
		inst := mr.GroupInstanceId
		if i < len(req.Members) {
			inst = req.Members[i].GroupInstanceId
		}
		// In a classic group an entry naming a pending id drops it, NONE,
		// whatever the instance (A6.3), and no observer sees pending ids.
		pending := o.classic[req.GroupId] && i < len(req.Members) && req.Members[i].MemberId != ""
		if inst.Valid && !o.instances[inst.Value] && mr.ErrorCode != codec.UnknownMemberID && !pending {
			o.violate(op, rules.RuleObservableResponse, "LeaveGroup of instance %q, which no client ever used, must be UNKNOWN_MEMBER_ID, got %v", inst.Value, mr.ErrorCode)
		}
	}
}

// applyLeaveGroup: every member an entry answered NONE names is removed,
// by member id (Kafka 4.0, A3.1) or by instance id (KIP-345); at v0-v2 the
// request's one member id, when the top level is NONE.
func (o *observer) applyLeaveGroup(op *history.Op, req *codec.LeaveGroupRequest, resp *codec.LeaveGroupResponse) {
	g := o.group(req.GroupId)
	if op.Header.RequestApiVersion < 3 {
		if resp.ErrorCode == codec.None && req.MemberId != "" {
			delete(g.members, req.MemberId)
		}
		return
	}
	for i, mr := range resp.Members {
		if mr.ErrorCode != codec.None {
			continue
		}
		e := codec.LeaveGroupMember{MemberId: mr.MemberId, GroupInstanceId: mr.GroupInstanceId}
		if i < len(req.Members) {
			e = req.Members[i]
		}
		if e.MemberId != "" {
			delete(g.members, e.MemberId)
		}
		if e.GroupInstanceId.Valid {
			for id, m := range g.members {
				if m.instance == e.GroupInstanceId.Value {
					delete(g.members, id)
				}
			}
		}
	}
}
