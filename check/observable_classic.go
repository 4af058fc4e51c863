package check

// The observable check's part for classic groups (docs/PROTOCOL.md B8,
// A6): each JoinGroup, SyncGroup, Heartbeat and DescribeGroups answer on
// its own, held only to what Kafka's protocol lets a client see, never to
// the model's member ids, leader choice, protocol vote, member order or
// timing. The invariants on the classic groups themselves (ghosts, one
// member per process, generations only forward, no partition handed out
// twice in a generation, a static restart in Stable kept) the driver
// judges from DescribeGroups and from what members were told
// (driver/classicjudge.go); this is what a single answer breaks.

import (
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Error codes each classic api may answer (docs/PROTOCOL.md Part C,
// ObservableResponse's classic items): the coordinator codes of B4.3,
// GROUP_AUTHORIZATION_FAILED and UNKNOWN_SERVER_ERROR besides each api's
// own; INVALID_GROUP_ID for a blank group id (B8.4).
var (
	classicCommonErrors = []codec.ErrorCode{codec.None, codec.GroupAuthorizationFailed, codec.CoordinatorNotAvailable,
		codec.NotCoordinator, codec.CoordinatorLoadInProgress, codec.InvalidGroupID, codec.UnknownMemberID, codec.FencedInstanceID,
		codec.UnknownServerError}
	joinGroupErrors = errorSet(classicCommonErrors, codec.MemberIDRequired, codec.InconsistentGroupProtocol, codec.InvalidSessionTimeout,
		codec.RebalanceInProgress, codec.GroupMaxSizeReached)
	syncGroupErrors        = errorSet(classicCommonErrors, codec.IllegalGeneration, codec.RebalanceInProgress, codec.InconsistentGroupProtocol)
	classicHeartbeatErrors = errorSet(classicCommonErrors, codec.IllegalGeneration, codec.RebalanceInProgress)
	describeGroupsErrors   = errorSet([]codec.ErrorCode{codec.None, codec.GroupAuthorizationFailed, codec.CoordinatorNotAvailable,
		codec.NotCoordinator, codec.CoordinatorLoadInProgress, codec.InvalidGroupID, codec.GroupIDNotFound})
)

func errorSet(base []codec.ErrorCode, more ...codec.ErrorCode) map[codec.ErrorCode]bool {
	s := map[codec.ErrorCode]bool{}
	for _, c := range append(base, more...) {
		s[c] = true
	}
	return s
}

// classicAnswer judges op's classic answer on its own (ObservableResponse);
// it reports whether op was a classic request.
func (o *observer) classicAnswer(op *history.Op) bool {
	v := op.Header.RequestApiVersion
	if code, instance, ok := classicCodeAndInstance(op); ok && code == codec.FencedInstanceID && !instance {
		o.violate(op, rules.RuleObservableResponse, "FENCED_INSTANCE_ID to a request that named no instance id: only a static member is fenced (A6.2, B8.4)")
		return true
	}
	switch req := op.Request.(type) {
	case *codec.JoinGroupRequest:
		o.joinGroupAnswer(op, v, req, op.Response.(*codec.JoinGroupResponse))
	case *codec.SyncGroupRequest:
		resp := op.Response.(*codec.SyncGroupResponse)
		switch {
		case !syncGroupErrors[resp.ErrorCode]:
			o.violate(op, rules.RuleObservableResponse, "SyncGroup may not answer %v", resp.ErrorCode)
		case resp.ErrorCode == codec.None && v >= 5 && (req.ProtocolType.Valid && resp.ProtocolType.Valid && req.ProtocolType.Value != resp.ProtocolType.Value ||
			req.ProtocolName.Valid && resp.ProtocolName.Valid && req.ProtocolName.Value != resp.ProtocolName.Value):
			o.violate(op, rules.RuleObservableResponse, "SyncGroup v%d answered NONE with protocol %s/%s to a request naming %s/%s: a mismatch is INCONSISTENT_GROUP_PROTOCOL (B8.8)",
				v, resp.ProtocolType.Value, resp.ProtocolName.Value, req.ProtocolType.Value, req.ProtocolName.Value)
		}
	case *codec.HeartbeatRequest:
		if code := op.Response.(*codec.HeartbeatResponse).ErrorCode; !classicHeartbeatErrors[code] {
			o.violate(op, rules.RuleObservableResponse, "Heartbeat may not answer %v", code)
		}
	case *codec.DescribeGroupsRequest:
		o.describeGroupsAnswer(op, req, op.Response.(*codec.DescribeGroupsResponse))
	default:
		return false
	}
	return true
}

// joinGroupAnswer: the codes JoinGroup may answer; KIP-394's promise (a
// dynamic JoinGroup v4+ without a member id gets MEMBER_ID_REQUIRED with
// the id to use, never a member at once, and no version below 4 ever gets
// MEMBER_ID_REQUIRED); and a success's shape: a member id (the request's
// own when it named one), a generation past 0, a leader, the protocol
// from v7, and the member list for the leader only (B8.6, B8.7, A6.1,
// A6.2).
func (o *observer) joinGroupAnswer(op *history.Op, v int16, req *codec.JoinGroupRequest, resp *codec.JoinGroupResponse) {
	dynamicNew := req.MemberId == "" && !req.GroupInstanceId.Valid
	switch {
	case !joinGroupErrors[resp.ErrorCode]:
		o.violate(op, rules.RuleObservableResponse, "JoinGroup may not answer %v", resp.ErrorCode)
	case resp.ErrorCode == codec.MemberIDRequired && v < 4:
		o.violate(op, rules.RuleObservableResponse, "JoinGroup v%d answered MEMBER_ID_REQUIRED, which only v4+ clients understand (KIP-394, A6.1)", v)
	case resp.ErrorCode == codec.MemberIDRequired && !dynamicNew:
		o.violate(op, rules.RuleObservableResponse, "JoinGroup answered MEMBER_ID_REQUIRED to a request with member id %q or an instance id: only a dynamic member without an id is asked for one (KIP-394, A6.1)", req.MemberId)
	case resp.ErrorCode == codec.MemberIDRequired && (resp.MemberId == "" || zeroUUIDString(resp.MemberId)):
		o.violate(op, rules.RuleObservableResponse, "JoinGroup answered MEMBER_ID_REQUIRED without a usable member id (%q) to join with (KIP-394, A6.1)", resp.MemberId)
	case resp.ErrorCode != codec.None:
	case dynamicNew && v >= 4:
		o.violate(op, rules.RuleObservableResponse, "JoinGroup v%d without a member id or instance id answered NONE, member %s made at once: KIP-394 requires MEMBER_ID_REQUIRED first, so a lost answer leaves no member nobody owns (A6.1)", v, resp.MemberId)
	case resp.MemberId == "" || zeroUUIDString(resp.MemberId):
		o.violate(op, rules.RuleObservableResponse, "JoinGroup answered NONE without a usable member id (%q)", resp.MemberId)
	case req.MemberId != "" && resp.MemberId != req.MemberId:
		o.violate(op, rules.RuleObservableResponse, "JoinGroup of member %s answered NONE for another member id %s (B8.6)", req.MemberId, resp.MemberId)
	case resp.Leader == "" && o.plan.MigrationPolicy != "" && len(resp.Members) == 0 && resp.GenerationId >= 0 &&
		(!resp.ProtocolType.Valid || resp.ProtocolType.Value == "consumer"):
		// A classic member of a consumer group (A7.1 step 8): it never
		// leads, its generation is its member epoch (0 for a static
		// member that replaced its instance's holder, step 5), and its
		// protocol is its own first, not a generation's.
	case resp.GenerationId < 1:
		o.violate(op, rules.RuleObservableResponse, "JoinGroup answered NONE at generation %d: a join phase that completes moves the generation past 0 (B8.7)", resp.GenerationId)
	case resp.Leader == "":
		o.violate(op, rules.RuleObservableResponse, "JoinGroup answered NONE naming no leader (B8.7)")
	case v >= 7 && !resp.ProtocolName.Valid:
		o.violate(op, rules.RuleObservableResponse, "JoinGroup v%d answered NONE with no protocol name (B8.7)", v)
	case len(resp.Members) > 0 && resp.MemberId != resp.Leader:
		o.violate(op, rules.RuleObservableResponse, "JoinGroup answered follower %s the member list, which only the leader (%s) gets (B8.7)", resp.MemberId, resp.Leader)
	default:
		o.generationProtocol(op, req.GroupId, resp.GenerationId, resp.ProtocolName)
	}
}

// describeGroupsAnswer: the codes a group may be answered, and every group
// asked answered once (B8.13; in any order, Kafka may reorder).
func (o *observer) describeGroupsAnswer(op *history.Op, req *codec.DescribeGroupsRequest, resp *codec.DescribeGroupsResponse) {
	want := map[string]int{}
	for _, g := range req.Groups {
		want[g]++
	}
	for _, g := range resp.Groups {
		if !describeGroupsErrors[g.ErrorCode] {
			o.violate(op, rules.RuleObservableResponse, "DescribeGroups may not answer group %s %v", g.GroupId, g.ErrorCode)
			return
		}
		if want[g.GroupId] == 0 {
			o.violate(op, rules.RuleObservableResponse, "DescribeGroups answered group %s, which it was not asked for, or answered it twice", g.GroupId)
			return
		}
		want[g.GroupId]--
	}
	for g, n := range want {
		if n > 0 {
			o.violate(op, rules.RuleObservableResponse, "DescribeGroups left group %s unanswered", g)
			return
		}
	}
}

// classicCodeAndInstance is a classic JoinGroup's, SyncGroup's or
// Heartbeat's answer code and whether the request named an instance id.
func classicCodeAndInstance(op *history.Op) (codec.ErrorCode, bool, bool) {
	switch req := op.Request.(type) {
	case *codec.JoinGroupRequest:
		return op.Response.(*codec.JoinGroupResponse).ErrorCode, req.GroupInstanceId.Valid, true
	case *codec.SyncGroupRequest:
		return op.Response.(*codec.SyncGroupResponse).ErrorCode, req.GroupInstanceId.Valid, true
	case *codec.HeartbeatRequest:
		return op.Response.(*codec.HeartbeatResponse).ErrorCode, req.GroupInstanceId.Valid, true
	}
	return 0, false, false
}

// generationProtocol holds ObservableResponse's item that every member
// answered NONE at one generation of a group, between two coordinator
// restarts, is told the same protocol (B8.7: a join phase selects one).
// Not the same leader: a static leader's replacement below v9 is told the
// leader before it (A6.2).
func (o *observer) generationProtocol(op *history.Op, group string, gen int32, protocol codec.NullableString) {
	if !protocol.Valid {
		return
	}
	if o.classicProtocols == nil {
		o.classicProtocols = map[classicGeneration]string{}
	}
	k := classicGeneration{group, gen, o.restarts}
	if p, ok := o.classicProtocols[k]; ok && p != protocol.Value {
		o.violate(op, rules.RuleObservableResponse, "JoinGroup answered NONE at generation %d of group %s with protocol %s; another member was told %s at that generation (B8.7)", gen, group, protocol.Value, p)
		return
	}
	o.classicProtocols[k] = protocol.Value
}

// endClassicGenerations forgets the protocols group's classic generations
// were told: a consumer-protocol join was answered NONE, so the group is a
// consumer group now. Had it been a classic one, it was Empty and is gone
// (A6.4: the consumer join replaces it), and a classic group made under
// the same id later counts its generations from the start again, each
// free to select another protocol (B8.7 holds within one group's life).
func (o *observer) endClassicGenerations(group string) {
	for k := range o.classicProtocols {
		if k.group == group {
			delete(o.classicProtocols, k)
		}
	}
}

// classicGeneration is one generation of a classic group between two
// coordinator restarts (a restart may hand a generation number out again,
// B8.14).
type classicGeneration struct {
	group    string
	gen      int32
	restarts int
}
