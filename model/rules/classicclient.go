package rules

import (
	"fmt"
	"strconv"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The client rules of the classic protocol (JoinGroup, SyncGroup,
// Heartbeat): KIP-394's rejoin with the member id MEMBER_ID_REQUIRED gave,
// and KIP-345's instance id on every request of a static member and its
// stop once fenced. docs/PROTOCOL.md Part C has each rule's section and A6
// the Java client they follow.
//
// A proxy sees no process end. A rule that holds "until the client closes"
// takes a close from the traffic: the request comes on a connection that
// began after the moment in question, and none of the client's connections
// open at that moment carried anything since (they all fell silent, as a
// process that ended leaves them). A client that really broke the rule
// across such a reconnect is missed, never one that kept it flagged.

// RuleMemberIDRequiredRejoin is the rule checkMemberIDRequiredRejoin
// reports.
const (
	RuleMemberIDRequiredRejoin    Rule = "MemberIDRequiredRejoin"
	meaningMemberIDRequiredRejoin      = "after a JoinGroup answered MEMBER_ID_REQUIRED, the client's next JoinGroup for the group carries the member id the answer gave, not \"\" (KIP-394)"
)

// RuleClassicStaticInstanceID is the rule checkClassicStaticInstanceID
// reports.
const (
	RuleClassicStaticInstanceID    Rule = "ClassicStaticInstanceID"
	meaningClassicStaticInstanceID      = "a static classic member names its one instance id on every JoinGroup (v5+), SyncGroup (v3+) and Heartbeat (v3+) of its group until it closes (KIP-345)"
)

// RuleNoRejoinAfterFencedInstance is the rule
// checkNoRejoinAfterFencedInstance reports.
const (
	RuleNoRejoinAfterFencedInstance    Rule = "NoRejoinAfterFencedInstance"
	meaningNoRejoinAfterFencedInstance      = "a client told FENCED_INSTANCE_ID (on a JoinGroup, a SyncGroup, a ConsumerGroupHeartbeat, or a Heartbeat at its latest generation) sends no further group request naming that instance (KIP-345)"
)

// classicJoins counts the client's JoinGroups and their highest version
// (-1: none).
func classicJoins(v *clientView) (n int, max int16) {
	max = -1
	for _, r := range v.reqs {
		if _, ok := r.Request.(*codec.JoinGroupRequest); ok {
			n++
			max = maxInt16(max, r.Header.RequestApiVersion)
		}
	}
	return n, max
}

func maxInt16(a, b int16) int16 {
	if a > b {
		return a
	}
	return b
}

// connSpans are where each connection of a client begins and ends in its
// requests (indexes into v.reqs), for closedSince.
type connSpans map[uint64][2]int

func spansOf(v *clientView) connSpans {
	s := connSpans{}
	for i, r := range v.reqs {
		sp, ok := s[r.Conn]
		if !ok {
			sp[0] = i
		}
		sp[1] = i
		s[r.Conn] = sp
	}
	return s
}

// closedSince reports whether the request at index i looks like a new
// process of the client after the request at index at: its connection
// began after at, and every connection begun by at carried nothing after
// it (see the file's comment).
func (s connSpans) closedSince(v *clientView, at, i int) bool {
	if s[v.reqs[i].Conn][0] <= at {
		return false
	}
	for _, sp := range s {
		if sp[0] <= at && sp[1] > at {
			return false
		}
	}
	return true
}

// joinsBelow is the NOT ADOPTED result of a client whose JoinGroups are all
// below version minV (why says what minV brings), and whether it is one: a
// rule of that version cannot hold such a client to anything.
func joinsBelow(v *clientView, minV int16, why string) (RuleResult, bool) {
	joins, maxV := classicJoins(v)
	if joins == 0 || maxV >= minV {
		return RuleResult{}, false
	}
	return RuleResult{Outcome: OutcomeNotAdopted, Judged: joins,
		Detail: "JoinGroup up to v" + strconv.Itoa(int(maxV)) + " only (" + strconv.Itoa(joins) + " requests): " + why}, true
}

// checkMemberIDRequiredRejoin: a JoinGroup answered MEMBER_ID_REQUIRED
// (the answer delivered: a dropped one is recorded without it) with
// member id X is followed, for that group, by a JoinGroup with MemberId X
// (the first sent once the answer reached it), unless the client closed or
// sent a LeaveGroup for the group in between. A client
// that never sends JoinGroup v4+ cannot be told MEMBER_ID_REQUIRED: KIP-394
// is not adopted.
func checkMemberIDRequiredRejoin(v *clientView) RuleResult {
	if r, below := joinsBelow(v, 4, "KIP-394's MEMBER_ID_REQUIRED needs v4"); below {
		return r
	}
	type given struct {
		id string
		at int
	}
	pending := map[string]given{}
	var spans connSpans
	n := 0
	var bad string
	for i, r := range v.reqs {
		if lg, ok := r.Request.(*codec.LeaveGroupRequest); ok {
			// A client that leaves the group gives the id up (Kafka's
			// client resets its member id with the LeaveGroup): its next
			// JoinGroup starts afresh.
			delete(pending, lg.GroupId)
			continue
		}
		jg, ok := r.Request.(*codec.JoinGroupRequest)
		if !ok {
			continue
		}
		if g, ok := pending[jg.GroupId]; ok && r.At >= answeredAt(v.reqs[g.at]) {
			delete(pending, jg.GroupId)
			if spans == nil {
				spans = spansOf(v)
			}
			if !spans.closedSince(v, g.at, i) {
				n++
				if jg.MemberId != g.id && bad == "" {
					bad = fmt.Sprintf("%s joins group %s with MemberId %q after %s was answered MEMBER_ID_REQUIRED with member id %q",
						where(r), jg.GroupId, jg.MemberId, where(v.reqs[g.at]), g.id)
				}
			}
		}
		if resp, ok := r.Response.(*codec.JoinGroupResponse); ok && resp.ErrorCode == codec.MemberIDRequired {
			pending[jg.GroupId] = given{resp.MemberId, i}
		}
	}
	return judged(n, bad, strconv.Itoa(n)+" rejoins after MEMBER_ID_REQUIRED, each with the member id given")
}

// classicInstance is the instance id a classic group request names, and
// whether its version can carry one.
func classicInstance(r *ClientRequest) (group string, inst codec.NullableString, carries bool) {
	v := r.Header.RequestApiVersion
	switch m := r.Request.(type) {
	case *codec.JoinGroupRequest:
		return m.GroupId, m.GroupInstanceId, v >= 5
	case *codec.SyncGroupRequest:
		return m.GroupId, m.GroupInstanceId, v >= 3
	case *codec.HeartbeatRequest:
		return m.GroupId, m.GroupInstanceId, v >= 3
	}
	return "", codec.NullableString{}, false
}

// checkClassicStaticInstanceID: once a JoinGroup of the client named
// instance I for a group, every later JoinGroup (v5+), SyncGroup (v3+) and
// Heartbeat (v3+) of the group names I, until the client closes. A client
// that never sends JoinGroup v5+ cannot be static: KIP-345 is not adopted.
// Its LeaveGroups are not judged here: Kafka's client leaves by member id
// alone, and a static member may be asked to leave (KIP-1092).
func checkClassicStaticInstanceID(v *clientView) RuleResult {
	if r, below := joinsBelow(v, 5, "a static member needs v5"); below {
		return r
	}
	type named struct {
		inst string
		at   int
	}
	static := map[string]named{}
	var spans connSpans
	n := 0
	var bad string
	for i, r := range v.reqs {
		group, inst, carries := classicInstance(r)
		if !carries {
			continue
		}
		s, ok := static[group]
		if ok {
			if spans == nil {
				spans = spansOf(v)
			}
			if spans.closedSince(v, s.at, i) {
				delete(static, group)
				ok = false
			}
		}
		if ok {
			n++
			switch {
			case bad != "":
			case !inst.Valid:
				bad = fmt.Sprintf("%s for group %s has no GroupInstanceId, after %s named instance %q", where(r), group, where(v.reqs[s.at]), s.inst)
			case inst.Value != s.inst:
				bad = fmt.Sprintf("%s for group %s names instance %q, after %s named %q", where(r), group, inst.Value, where(v.reqs[s.at]), s.inst)
			}
		}
		if _, isJoin := r.Request.(*codec.JoinGroupRequest); isJoin && inst.Valid {
			static[group] = named{inst.Value, i}
		}
	}
	return judged(n, bad, strconv.Itoa(n)+" requests of a static member, each naming its instance")
}

// groupInstances appends to insts the instance ids a group request names
// (a classic request's GroupInstanceId, a ConsumerGroupHeartbeat's
// InstanceId, the GroupInstanceIds of a LeaveGroup v3+'s entries) and
// returns its group. The caller's list is reused from request to request:
// a static member names its instance in every heartbeat.
func groupInstances(r *ClientRequest, insts []string) (group string, _ []string) {
	switch m := r.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		if m.InstanceId.Valid {
			return m.GroupId, append(insts, m.InstanceId.Value)
		}
	case *codec.LeaveGroupRequest:
		for _, e := range m.Members {
			if e.GroupInstanceId.Valid {
				insts = append(insts, e.GroupInstanceId.Value)
			}
		}
		return m.GroupId, insts
	default:
		if g, inst, carries := classicInstance(r); carries && inst.Valid {
			return g, append(insts, inst.Value)
		}
	}
	return "", insts
}

// fencedAnswer reports whether r, naming an instance, was answered
// FENCED_INSTANCE_ID in a way the client must take as final: a JoinGroup,
// SyncGroup or ConsumerGroupHeartbeat so answered (Java's KIP-848 consumer
// fails on it as its classic one does), or a Heartbeat at the latest
// generation the client joined (gen, known).
func fencedAnswer(r *ClientRequest, gen int32, known bool) bool {
	switch m := r.Response.(type) {
	case *codec.ConsumerGroupHeartbeatResponse:
		return m.ErrorCode == codec.FencedInstanceID
	case *codec.JoinGroupResponse:
		return m.ErrorCode == codec.FencedInstanceID
	case *codec.SyncGroupResponse:
		return m.ErrorCode == codec.FencedInstanceID
	case *codec.HeartbeatResponse:
		hb, ok := r.Request.(*codec.HeartbeatRequest)
		return m.ErrorCode == codec.FencedInstanceID && ok && known && hb.GenerationId == gen
	}
	return false
}

// generationLost reports whether r's answer made Kafka's client give up
// its generation: a classic group request answered UNKNOWN_MEMBER_ID or
// ILLEGAL_GENERATION.
func generationLost(r *ClientRequest) bool {
	switch r.Response.(type) {
	case *codec.JoinGroupResponse, *codec.SyncGroupResponse, *codec.HeartbeatResponse:
	default:
		return false
	}
	code, _ := codec.GroupErrorCode(r.Response)
	return code == codec.UnknownMemberID || code == codec.IllegalGeneration
}

// answeredAt is when r's response reached the client (Answered, or At
// when not recorded).
func answeredAt(r *ClientRequest) int64 {
	return max(r.Answered, r.At)
}

// checkNoRejoinAfterFencedInstance: after a final FENCED_INSTANCE_ID
// (fencedAnswer) for instance I of a group, no request of the client names
// I in that group, until the client closes. A client whose JoinGroups all
// go below v5 cannot be a static classic member: KIP-345 is not adopted; a
// client without JoinGroups is judged on its ConsumerGroupHeartbeats.
func checkNoRejoinAfterFencedInstance(v *clientView) RuleResult {
	if r, below := joinsBelow(v, 5, "a static member needs v5"); below {
		return r
	}
	gens := map[string]int32{} // the generation of the latest join answered NONE, by group
	fenced := map[groupMember]int{}
	var spans connSpans
	n := 0
	var bad string
	var insts []string
	for i, r := range v.reqs {
		var group string
		group, insts = groupInstances(r, insts[:0])
		for _, inst := range insts {
			k := groupMember{group, inst}
			at, ok := fenced[k]
			if !ok || r.At < answeredAt(v.reqs[at]) {
				continue // sent before the client had the fencing answer
			}
			if spans == nil {
				spans = spansOf(v)
			}
			if spans.closedSince(v, at, i) {
				delete(fenced, k)
				continue
			}
			if bad == "" {
				bad = fmt.Sprintf("%s names instance %q of group %s after %s was answered FENCED_INSTANCE_ID", where(r), inst, group, where(v.reqs[at]))
			}
		}
		// The generation is the group's, whether or not the request
		// names an instance (group is "" when it names none).
		classicGroup, _, _ := classicInstance(r)
		if resp, ok := r.Response.(*codec.JoinGroupResponse); ok && resp.ErrorCode == codec.None {
			gens[classicGroup] = resp.GenerationId
		}
		if generationLost(r) {
			// Kafka's client drops its generation on UNKNOWN_MEMBER_ID or
			// ILLEGAL_GENERATION; a Heartbeat's fence answered after that
			// is of a generation it left, and it ignores it.
			delete(gens, classicGroup)
		}
		gen, known := gens[classicGroup]
		if len(insts) == 1 && fencedAnswer(r, gen, known) {
			n++
			fenced[groupMember{group, insts[0]}] = i
		}
	}
	return judged(n, bad, strconv.Itoa(n)+" FENCED_INSTANCE_ID answers, none followed by a request naming the instance")
}
