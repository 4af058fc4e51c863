package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The checks of the client rules (clientrules.go), one function per rule,
// each beside its rule's id and meaning. Every check reads one client's
// requests in arrival order and returns its outcome; docs/PROTOCOL.md
// Part C has each rule's section.

// RuleMemberIDFromFirstHeartbeat is the rule checkMemberIDFromFirstHeartbeat
// reports.
const (
	RuleMemberIDFromFirstHeartbeat    Rule = "MemberIDFromFirstHeartbeat"
	meaningMemberIDFromFirstHeartbeat      = "a KIP-1082 client sends its own non-empty member id on every ConsumerGroupHeartbeat v1+, the first (the join) included"
)

// checkMemberIDFromFirstHeartbeat: every ConsumerGroupHeartbeat v1+ carries
// a non-blank member id. A client that speaks only v0 lets the broker make
// its id: KIP-1082 is not adopted.
func checkMemberIDFromFirstHeartbeat(v *clientView) RuleResult {
	n, v0 := 0, 0
	var bad string
	v.heartbeats(func(r *ClientRequest, hb *codec.ConsumerGroupHeartbeatRequest) {
		if r.Header.RequestApiVersion < 1 {
			v0++
			return
		}
		n++
		if bad == "" && strings.TrimSpace(hb.MemberId) == "" {
			bad = fmt.Sprintf("%s at epoch %d carries MemberId %q", where(r), hb.MemberEpoch, hb.MemberId)
		}
	})
	if n == 0 && v0 > 0 {
		return RuleResult{Outcome: OutcomeNotAdopted, Judged: v0,
			Detail: "sends ConsumerGroupHeartbeat v0 only (" + strconv.Itoa(v0) + " requests): the broker makes its member ids"}
	}
	return judged(n, bad, strconv.Itoa(n)+" v1 heartbeats, each with a member id")
}

// checkStableMemberID holds a KIP-1082 client (ConsumerGroupHeartbeat v1)
// to RuleStableMemberID: one member id per group for the client's whole
// life, across lost responses, retries, reconnects, fencing, leave and
// rejoin. The detail says what the client saw just before it changed.
func checkStableMemberID(v *clientView) RuleResult {
	// Per group (a client has few: a list), the first member id and the
	// previous heartbeat.
	type group struct {
		id, first string
		before    *ClientRequest
	}
	var groups []group
	n, v0 := 0, 0
	var bad string
	v.heartbeats(func(r *ClientRequest, hb *codec.ConsumerGroupHeartbeatRequest) {
		if r.Header.RequestApiVersion < 1 {
			v0++
			return
		}
		if strings.TrimSpace(hb.MemberId) == "" {
			return
		}
		n++
		i := slices.IndexFunc(groups, func(g group) bool { return g.id == hb.GroupId })
		if i < 0 {
			groups = append(groups, group{id: hb.GroupId, first: hb.MemberId, before: r})
			return
		}
		g := &groups[i]
		if g.first != hb.MemberId && bad == "" {
			bad = fmt.Sprintf("group %s: %s at epoch %d sends member id %s, not %s; its previous heartbeat got %s at epoch %d",
				g.id, where(r), hb.MemberEpoch, hb.MemberId, g.first, outcomeOf(g.before), g.before.Request.(*codec.ConsumerGroupHeartbeatRequest).MemberEpoch)
		}
		g.before = r
	})
	if n == 0 && v0 > 0 {
		return RuleResult{Outcome: OutcomeNotAdopted, Judged: v0, Detail: "ConsumerGroupHeartbeat v0 only: the broker's member ids may change"}
	}
	return judged(n, bad, "one member id per group over "+strconv.Itoa(n)+" heartbeats")
}

// AnswerCode is the error code of the group answer the client received
// (to a ConsumerGroupHeartbeat, LeaveGroup, JoinGroup, SyncGroup or
// Heartbeat), and whether there is one: false for no answer or another
// api's.
func (r *ClientRequest) AnswerCode() (codec.ErrorCode, bool) {
	switch resp := r.Response.(type) {
	case *codec.ConsumerGroupHeartbeatResponse:
		return resp.ErrorCode, true
	case *codec.LeaveGroupResponse:
		return resp.ErrorCode, true
	case *codec.JoinGroupResponse:
		return resp.ErrorCode, true
	case *codec.SyncGroupResponse:
		return resp.ErrorCode, true
	case *codec.HeartbeatResponse:
		return resp.ErrorCode, true
	}
	return codec.None, false
}

// outcomeOf says what the client got for a request: the proxy's fault, the
// response's error code, or that nothing came.
func outcomeOf(r *ClientRequest) string {
	code, _ := r.AnswerCode()
	answered := r.Response != nil
	switch {
	case strings.HasPrefix(r.Fault, "answered "):
		return strings.TrimPrefix(r.Fault, "answered ") + " (injected by the proxy)"
	case r.Fault != "" && !strings.HasPrefix(r.Fault, "response delayed"):
		return "no response (" + r.Fault + ")"
	case !answered:
		return "no response"
	}
	return code.String()
}

// memberOwners maps each member id (in its group) any client's heartbeats
// carried to the clients that carried it, in order of first use.
func memberOwners(views []*clientView) map[groupMember][]string {
	owners := map[groupMember][]string{}
	for _, v := range views {
		var last groupMember // a client's heartbeats mostly repeat its member
		v.heartbeats(func(r *ClientRequest, hb *codec.ConsumerGroupHeartbeatRequest) {
			k := groupMember{hb.GroupId, hb.MemberId}
			if k == last || strings.TrimSpace(hb.MemberId) == "" {
				return
			}
			last = k
			if !contains(owners[k], v.key) {
				owners[k] = append(owners[k], v.key)
			}
		})
	}
	return owners
}

// checkUniqueMemberIDs holds a client to RuleUniqueMemberIDs on the wire: no
// other client sent a member id it sent, in the same group.
func checkUniqueMemberIDs(v *clientView, owners map[groupMember][]string) RuleResult {
	n := 0
	seen := map[groupMember]bool{}
	var last groupMember // seen (or blank): a client's heartbeats mostly repeat its member
	var bad string
	v.heartbeats(func(r *ClientRequest, hb *codec.ConsumerGroupHeartbeatRequest) {
		k := groupMember{hb.GroupId, hb.MemberId}
		if k == last {
			return
		}
		last = k
		if strings.TrimSpace(hb.MemberId) == "" || seen[k] {
			return
		}
		seen[k] = true
		n++
		for _, o := range owners[k] {
			if o != v.key && bad == "" {
				bad = fmt.Sprintf("group %s: member id %s (%s) is also sent by %s (two processes, or one process sending two client instance ids)",
					hb.GroupId, hb.MemberId, where(r), o)
			}
		}
	})
	return judged(n, bad, strconv.Itoa(n)+" member ids, none shared with another client")
}

// RuleNoHeartbeatAfterLeave is the rule checkNoHeartbeatAfterLeave reports.
const (
	RuleNoHeartbeatAfterLeave    Rule = "NoHeartbeatAfterLeave"
	meaningNoHeartbeatAfterLeave      = "after a client leaves (epoch -1 or -2, or LeaveGroup) it sends no heartbeat under that member id until it rejoins at epoch 0"
)

// checkNoHeartbeatAfterLeave: once the client sent a leave for a member id
// (a ConsumerGroupHeartbeat at epoch -1 or -2, or a LeaveGroup naming it),
// its next ConsumerGroupHeartbeat under that id is a rejoin (epoch 0) or
// another leave, never a heartbeat at a positive epoch.
func checkNoHeartbeatAfterLeave(v *clientView) RuleResult {
	left := map[groupMember]*ClientRequest{}
	n := 0
	var bad string
	for _, r := range v.reqs {
		switch m := r.Request.(type) {
		case *codec.ConsumerGroupHeartbeatRequest:
			k := groupMember{m.GroupId, m.MemberId}
			switch l, isLeft := left[k]; {
			case m.MemberEpoch < 0:
				left[k] = r
				n++
			case m.MemberEpoch == 0:
				delete(left, k)
			case isLeft && bad == "":
				bad = fmt.Sprintf("%s heartbeats member %s of group %s at epoch %d after its leave %s, without a rejoin at epoch 0",
					where(r), m.MemberId, m.GroupId, m.MemberEpoch, where(l))
			}
		case *codec.LeaveGroupRequest:
			for _, id := range leaveGroupMembers(r.Header.RequestApiVersion, m) {
				left[groupMember{m.GroupId, id}] = r
				n++
			}
		}
	}
	return judged(n, bad, strconv.Itoa(n)+" leaves, none followed by a heartbeat before a rejoin")
}

// leaveGroupMembers are the member ids a LeaveGroup request names.
func leaveGroupMembers(version int16, m *codec.LeaveGroupRequest) []string {
	if version < 3 {
		return []string{m.MemberId}
	}
	var ids []string
	for _, e := range m.Members {
		if e.MemberId != "" {
			ids = append(ids, e.MemberId)
		}
	}
	return ids
}

// checkInstanceIDInHeader holds a client to RuleClientInstanceIDInHeader:
// once it sends tag 0, every request header v2 carries it, never zero,
// and one value on each connection. A client none of whose v2 headers
// carries tag 0 has not adopted KIP-1313.
func checkInstanceIDInHeader(v *clientView) RuleResult {
	n, with := 0, 0
	perConn := map[uint64]codec.UUID{}
	var bad string
	var missing, carrier *ClientRequest
	for _, r := range v.reqs {
		if r.HeaderVersion < 2 {
			continue
		}
		n++
		t := r.Header.ClientInstanceId
		if !t.Valid {
			if missing == nil {
				missing = r
			}
			continue
		}
		with++
		if carrier == nil {
			carrier = r
		}
		u, ok := perConn[r.Conn]
		if ok && u != t.UUID && bad == "" {
			bad = fmt.Sprintf("%s carries client instance id %s, after %s on the same connection", where(r), t.UUID, u)
		}
		if !ok || u != t.UUID { // mostly the same id: no second lookup
			perConn[r.Conn] = t.UUID
		}
		if t.UUID.IsZero() && bad == "" {
			bad = fmt.Sprintf("%s carries the zero UUID in tag 0", where(r))
		}
	}
	if with == 0 {
		if n == 0 {
			return RuleResult{Outcome: OutcomeNotSeen}
		}
		return RuleResult{Outcome: OutcomeNotAdopted, Judged: n, Detail: "none of its " + strconv.Itoa(n) + " v2 headers carries tag 0"}
	}
	if bad == "" && missing != nil {
		bad = fmt.Sprintf("%s has no tag 0, while %s carried %s", where(missing), where(carrier), carrier.Header.ClientInstanceId.UUID)
	}
	return judged(n, bad, "tag 0 on all "+strconv.Itoa(n)+" v2 headers")
}

// checkClientZeroUUIDs holds a client to RuleNoZeroUUIDs on the wire: no
// header's tag 0 and no member id it sends is the zero UUID.
func checkClientZeroUUIDs(v *clientView) RuleResult {
	n := 0
	var bad string
	for _, r := range v.reqs {
		if t := r.Header.ClientInstanceId; t.Valid {
			n++
			if t.UUID.IsZero() && bad == "" {
				bad = fmt.Sprintf("%s carries the zero UUID as client instance id", where(r))
			}
		}
		if hb, ok := r.Request.(*codec.ConsumerGroupHeartbeatRequest); ok && hb.MemberId != "" {
			n++
			if IsZeroUUIDString(hb.MemberId) && bad == "" {
				bad = fmt.Sprintf("%s sends member id %q, the zero UUID", where(r), hb.MemberId)
			}
		}
	}
	return judged(n, bad, strconv.Itoa(n)+" ids, none zero")
}

// checkClientIDOnFirstRequest holds a client to RuleClientIDOnFirstRequest:
// once it sends a null ClientId after a connection's first request, it
// does so on every connection, and sends its ClientId on each one's first.
// A client that repeats ClientId on every request has not adopted
// KIP-1313.
func checkClientIDOnFirstRequest(v *clientView) RuleResult {
	firsts := map[uint64]*ClientRequest{}
	adopted, later := false, 0
	for _, r := range v.reqs {
		if r.Seq == 0 {
			firsts[r.Conn] = r
			continue
		}
		later++
		if adopted {
			continue // known: the rest are only counted
		}
		if f := firsts[r.Conn]; f != nil && f.Header.ClientId.Valid && !r.Header.ClientId.Valid {
			adopted = true
		}
	}
	if !adopted {
		if later == 0 {
			return RuleResult{Outcome: OutcomeNotSeen}
		}
		return RuleResult{Outcome: OutcomeNotAdopted, Judged: later, Detail: "every later request of its connections repeats ClientId (" + strconv.Itoa(later) + " requests)"}
	}
	var bad string
	for _, r := range v.reqs {
		switch {
		case bad != "":
		case r.Seq == 0 && !r.Header.ClientId.Valid:
			bad = fmt.Sprintf("the first request of its connection, %s, carries a null ClientId", where(r))
		case r.Seq > 0 && r.Header.ClientId.Valid:
			bad = fmt.Sprintf("%s, request %d of its connection, repeats ClientId %q", where(r), r.Seq+1, r.Header.ClientId.Value)
		}
	}
	return judged(later+len(firsts), bad, "ClientId on the first request of each of "+strconv.Itoa(len(firsts))+" connections only")
}

// RuleTelemetryInstanceID is the rule checkTelemetryInstanceID reports.
const (
	RuleTelemetryInstanceID    Rule = "TelemetryInstanceID"
	meaningTelemetryInstanceID      = "telemetry v1 requests carry the client instance id in the header only; a KIP-1313 client at v0 puts its own id in the body (KIP-1313)"
)

// checkTelemetryInstanceID: a GetTelemetrySubscriptions or PushTelemetry v1
// request (which has no body id) carries a non-zero tag 0; at v0 a client
// that sends tag 0 puts the same id in the body. A client at v0 without tag
// 0 uses KIP-714's broker-assigned id: KIP-1313 is not adopted.
func checkTelemetryInstanceID(v *clientView) RuleResult {
	n, v1 := 0, 0
	var bad string
	for _, r := range v.reqs {
		var body codec.UUID
		switch m := r.Request.(type) {
		case *codec.GetTelemetrySubscriptionsRequest:
			body = m.ClientInstanceId
		case *codec.PushTelemetryRequest:
			body = m.ClientInstanceId
		default:
			continue
		}
		n++
		t := r.Header.ClientInstanceId
		switch {
		case bad != "":
		case r.Header.RequestApiVersion >= 1:
			v1++
			if !t.Valid || t.UUID.IsZero() {
				bad = fmt.Sprintf("%s has no usable client instance id in its header, and v1 has none in the body", where(r))
			}
		case v.adoptedTag0 && t.Valid && body != t.UUID:
			bad = fmt.Sprintf("%s sends %s in the body, not its instance id %s", where(r), body, t.UUID)
		}
	}
	if n > 0 && v1 == 0 && !v.adoptedTag0 {
		return RuleResult{Outcome: OutcomeNotAdopted, Judged: n, Detail: "telemetry v0 only, with KIP-714's id in the body (" + strconv.Itoa(n) + " requests)"}
	}
	return judged(n, bad, strconv.Itoa(n)+" telemetry requests")
}

// RuleStaticLeaveWithInstanceID is the rule checkStaticLeave reports.
const (
	RuleStaticLeaveWithInstanceID    Rule = "StaticLeaveWithInstanceID"
	meaningStaticLeaveWithInstanceID      = "a static member leaves with its InstanceId: at epoch -2 on close, -1 only to leave for good; never -2 without InstanceId (KIP-345)"
)

// checkStaticLeave: a ConsumerGroupHeartbeat leave (epoch -1 or -2) of a
// static member (one whose heartbeats carried InstanceId) names its
// instance id, and epoch -2 always carries one.
func checkStaticLeave(v *clientView) RuleResult {
	n, forGood := 0, 0
	var bad string
	v.heartbeats(func(r *ClientRequest, hb *codec.ConsumerGroupHeartbeatRequest) {
		if hb.MemberEpoch != -1 && hb.MemberEpoch != -2 {
			return
		}
		inst, static := v.instances[groupMember{hb.GroupId, hb.MemberId}]
		if !static && hb.MemberEpoch == -1 {
			return
		}
		n++
		if hb.MemberEpoch == -1 {
			forGood++
		}
		switch {
		case bad != "":
		case !hb.InstanceId.Valid && hb.MemberEpoch == -2:
			bad = fmt.Sprintf("%s leaves member %s at epoch -2 without InstanceId (%s)", where(r), hb.MemberId, staticName(inst, static))
		case !hb.InstanceId.Valid:
			bad = fmt.Sprintf("%s: static member %s (%s) leaves at epoch -1 without its InstanceId", where(r), hb.MemberId, staticName(inst, static))
		case static && hb.InstanceId.Value != inst:
			bad = fmt.Sprintf("%s: member %s leaves naming instance %q, its heartbeats named %q", where(r), hb.MemberId, hb.InstanceId.Value, inst)
		}
	})
	return judged(n, bad, strconv.Itoa(n)+" static leaves with the instance id ("+strconv.Itoa(forGood)+" of them at -1, for good)")
}

func staticName(inst string, static bool) string {
	if !static {
		return "no heartbeat of it named an instance"
	}
	return "instance " + inst
}

// RuleLeaveGroupInstanceID is the rule checkLeaveGroupInstanceID reports.
const (
	RuleLeaveGroupInstanceID    Rule = "LeaveGroupInstanceID"
	meaningLeaveGroupInstanceID      = "each LeaveGroup v3+ entry names a member: a static member by its GroupInstanceId, never MemberId \"\" with no instance (KIP-345)"
)

// checkLeaveGroupInstanceID: every entry of a LeaveGroup v3+ request names
// someone (an entry with MemberId "" and no GroupInstanceId names nobody),
// and an entry for a member id whose heartbeats carried an instance id
// carries that instance id.
func checkLeaveGroupInstanceID(v *clientView) RuleResult {
	n := 0
	var bad string
	for _, r := range v.reqs {
		lg, ok := r.Request.(*codec.LeaveGroupRequest)
		if !ok || r.Header.RequestApiVersion < 3 {
			continue
		}
		for _, e := range lg.Members {
			n++
			inst, static := v.instances[groupMember{lg.GroupId, e.MemberId}]
			switch {
			case bad != "":
			case e.MemberId == "" && !e.GroupInstanceId.Valid:
				bad = fmt.Sprintf("%s has an entry with MemberId \"\" and no GroupInstanceId: it names no member", where(r))
			case static && (!e.GroupInstanceId.Valid || e.GroupInstanceId.Value != inst):
				bad = fmt.Sprintf("%s names static member %s with GroupInstanceId %v, not its instance %q", where(r), e.MemberId, e.GroupInstanceId, inst)
			}
		}
	}
	return judged(n, bad, strconv.Itoa(n)+" LeaveGroup entries")
}

// RuleLeaveGroupDowngrade is the rule checkLeaveGroupDowngrade reports.
const (
	RuleLeaveGroupDowngrade    Rule = "LeaveGroupDowngrade"
	meaningLeaveGroupDowngrade      = "LeaveGroup v0-v2 only to a broker without v3, one request per dynamic member; a static member is never left below v3 (KIP-345)"
)

// brokerVersions maps each broker to the highest LeaveGroup version its
// ApiVersions answers (seen on any connection) offered, -1 for none.
func brokerVersions(reqs []ClientRequest) map[string]int16 {
	out := map[string]int16{}
	for i := range reqs {
		resp, ok := reqs[i].Response.(*codec.ApiVersionsResponse)
		if !ok || resp.ErrorCode != codec.None {
			continue
		}
		max := int16(-1)
		for _, k := range resp.ApiKeys {
			if k.ApiKey == codec.LeaveGroup {
				max = k.MaxVersion
			}
		}
		out[reqs[i].Broker] = max
	}
	return out
}

// checkLeaveGroupDowngrade: a LeaveGroup below v3 goes only to a broker
// whose ApiVersions offered no v3 (a broker never seen answering
// ApiVersions is given the benefit of the doubt), and never names a static
// member, which only v3+ can name by its instance id (docs/PROTOCOL.md A3).
//
// A client that shows nothing of KIP-345 (no LeaveGroup v3+, no JoinGroup
// v5+, no ConsumerGroupHeartbeat, no KIP-1313 tag 0: an old classic
// client, as segmentio's
// kafka-go, which sends LeaveGroup v0 whatever the broker offers) has not
// adopted it: NOT ADOPTED.
func checkLeaveGroupDowngrade(v *clientView, brokers map[string]int16) RuleResult {
	if n, adopted := kip345Shown(v); !adopted && n > 0 {
		return RuleResult{Outcome: OutcomeNotAdopted, Judged: n,
			Detail: "LeaveGroup below v3 only (" + strconv.Itoa(n) + " requests), no static JoinGroup, ConsumerGroupHeartbeat or tag 0: KIP-345's LeaveGroup v3 not implemented"}
	}
	n := 0
	var bad string
	for _, r := range v.reqs {
		lg, ok := r.Request.(*codec.LeaveGroupRequest)
		if !ok {
			continue
		}
		n++
		ver := r.Header.RequestApiVersion
		if ver >= 3 || bad != "" {
			continue
		}
		if max, known := brokers[r.Broker]; known && max >= 3 {
			bad = fmt.Sprintf("%s to a broker that offers LeaveGroup v%d: a client downgrades only below v3", where(r), max)
		} else if inst, static := v.instances[groupMember{lg.GroupId, lg.MemberId}]; static {
			bad = fmt.Sprintf("%s leaves static member %s (instance %q) below v3, which cannot name its instance", where(r), lg.MemberId, inst)
		}
	}
	return judged(n, bad, strconv.Itoa(n)+" LeaveGroup requests at versions the broker offers")
}

// kip345Shown counts the client's LeaveGroups and reports whether any of
// its requests shows LeaveGroup v3 (KIP-345's batch leave, Kafka 2.4)
// adopted: a LeaveGroup v3+, a ConsumerGroupHeartbeat, KIP-1313's tag 0
// (both later), or a static classic member (a JoinGroup naming an
// instance), which only v3+ can leave by name.
func kip345Shown(v *clientView) (leaves int, adopted bool) {
	adopted = len(v.hbs) > 0 || v.adoptedTag0
	for _, r := range v.reqs {
		switch m := r.Request.(type) {
		case *codec.LeaveGroupRequest:
			leaves++
			adopted = adopted || r.Header.RequestApiVersion >= 3
		case *codec.JoinGroupRequest:
			adopted = adopted || m.GroupInstanceId.Valid
		}
	}
	return leaves, adopted
}
