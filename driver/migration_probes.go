package driver

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// The prober's requests of a fleet in the middle of an online migration
// (plan.ProbeMixedOddRequest, docs/PROTOCOL.md A7): the classic requests
// a process of another build or configuration, or a zombie of a
// restarted one, sends to a consumer group with members, a Kafka Connect
// group sharing the group id space, and a classic member switching to the
// consumer protocol under its own id. Each is sent only where the prober
// last saw what it needs (a consumer group with members, a classic member
// of it), so that it reaches the clause it is for; each a coordinator
// must refuse changes nothing, and the ones that make a member remove it
// within the round.

// The member ids and group ids of the prober's mixed requests: no client
// uses them.
const (
	// probeZombieID is the member id a zombie's static JoinGroup names:
	// never its instance's holder.
	probeZombieID = "ghostcheck-probe-zombie"
	// probeConnectGroup is the classic group of protocol type "connect"
	// the Connect worker makes its one member of, which the prober
	// removes.
	probeConnectGroup = plan.ProbeConnectGroup
	// probeConnectInstance is that member's instance id.
	probeConnectInstance = plan.ProbeConnectInstance
)

// otherAssignor is the assignor a process of another configuration
// offers: one no classic client of a migration plan lists (they offer
// client.AssignorUniform).
const otherAssignor = client.AssignorRange

// seenMember is a member of a consumer group as the prober last saw it.
type seenMember struct {
	id       string
	instance codec.NullableString
	epoch    int32
	classic  bool
}

// consumerGroupSeen is group's members as the prober last saw them, if
// it saw a consumer group with members: by the target's snapshot at the
// last round's end, or without one by the observer's last
// ConsumerGroupDescribe of it (classic members shown from v1, KIP-1099).
func (pb *prober) consumerGroupSeen(group string) ([]seenMember, bool) {
	d := pb.d
	if d.obs.snap != nil {
		for _, g := range d.obs.snap.Snapshot() {
			if g.GroupID != group {
				continue
			}
			if g.Kind == rules.KindClassic || len(g.Members) == 0 {
				return nil, false
			}
			out := make([]seenMember, 0, len(g.Members))
			for _, m := range g.Members {
				inst := codec.Null
				if m.InstanceID != "" {
					inst = codec.Str(m.InstanceID)
				}
				out = append(out, seenMember{id: m.MemberID, instance: inst, epoch: m.Epoch, classic: m.ClassicProtocol})
			}
			return out, true
		}
		return nil, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := len(d.hist) - 1; i >= 0; i-- {
		r, ok := d.hist[i].Response.(*codec.ConsumerGroupDescribeResponse)
		if !ok || len(r.Groups) != 1 || r.Groups[0].GroupId != group {
			continue
		}
		g := r.Groups[0]
		if g.ErrorCode != codec.None || len(g.Members) == 0 {
			return nil, false
		}
		out := make([]seenMember, 0, len(g.Members))
		for _, m := range g.Members {
			out = append(out, seenMember{id: m.MemberId, instance: m.InstanceId, epoch: m.MemberEpoch, classic: m.MemberType == codec.MemberTypeClassic})
		}
		return out, true
	}
	return nil, false
}

// pickMember is the member at pick of those of ms that keep, if any.
func pickMember(ms []seenMember, pick int, keep func(seenMember) bool) (seenMember, bool) {
	var kept []seenMember
	for _, m := range ms {
		if keep(m) {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return seenMember{}, false
	}
	return kept[pick%len(kept)], true
}

// mixedJoin is a classic JoinGroup to group under memberID as the
// migration plans' classic clients send it: protocol type consumer, the
// uniform assignor, a ConsumerProtocolSubscription to alpha owning
// nothing.
func mixedJoin(group, memberID string) *codec.JoinGroupRequest {
	sub := codec.ConsumerProtocolSubscription{Topics: []string{"alpha"}, OwnedPartitions: []codec.ConsumerProtocolTopicPartitions{}}
	meta, _ := sub.AppendTo(nil, 1)
	return &codec.JoinGroupRequest{GroupId: group, MemberId: memberID, SessionTimeoutMs: plan.ClassicMinSessionTimeoutMs, RebalanceTimeoutMs: 10000,
		ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: client.AssignorUniform, Metadata: meta}}}
}

// truncatedSubscription is mixedJoin's subscription cut short (its owned
// partitions' count missing): a ConsumerProtocolSubscription no
// coordinator can read, as a client of a broken build would send.
func truncatedSubscription() []byte {
	meta := mixedJoin("", "").Protocols[0].Metadata
	return meta[:len(meta)-4]
}

// mixedOddRequest sends ProbeMixedOddRequest's requests, by pr.Variant
// (plan.ProbeMixedOddRequest lists them); index is the probe's, for the
// member id a switching member takes.
func (pb *prober) mixedOddRequest(p *proc, pr plan.Probe, index int) {
	d := pb.d
	send := func(key codec.APIKey, v int16, req codec.Message) {
		p.others = append(p.others, d.net.send(p, key, v, req))
	}
	variant := pr.Variant % plan.MixedOddRequestVariants
	if variant == 3 {
		pb.connectGroupJoin(p)
		return
	}
	members, ok := pb.consumerGroupSeen(pr.Group)
	if !ok {
		return
	}
	classic := func(m seenMember) bool { return m.classic }
	jv := p.version(codec.JoinGroup, 9)
	switch variant {
	case 0:
		// A join that passed would be MEMBER_ID_REQUIRED (v4+), nothing
		// kept: only the protocols decide. Another assignor is only
		// inconsistent against classic members that do not list it.
		if jv < 4 {
			return
		}
		r := mixedJoin(pr.Group, "")
		if _, some := pickMember(members, 0, classic); some && pr.Pick%2 == 1 {
			r.Protocols[0].Name = otherAssignor
		} else {
			r.ProtocolType = "connect"
		}
		send(codec.JoinGroup, jv, r)
	case 1:
		r := mixedJoin(pr.Group, fmt.Sprintf("ghostcheck-probe-classic-%d", index))
		r.Protocols[0].Metadata = truncatedSubscription()
		send(codec.JoinGroup, jv, r)
	case 2, 5:
		m, ok := pickMember(members, pr.Pick, classic)
		sv := p.version(codec.SyncGroup, 5)
		if !ok || sv < 5 {
			return // the protocol is named from v5 on
		}
		r := &codec.SyncGroupRequest{GroupId: pr.Group, GenerationId: m.epoch, MemberId: m.id, GroupInstanceId: m.instance,
			ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str(client.AssignorUniform)}
		if variant == 2 {
			r.ProtocolName = codec.Str(otherAssignor)
		} else {
			r.GenerationId = m.epoch - 1 // epochs only go forward: never the member's now
		}
		send(codec.SyncGroup, sv, r)
	case 4:
		m, ok := pickMember(members, pr.Pick, func(m seenMember) bool { return m.instance.Valid })
		if !ok || jv < 5 {
			return
		}
		r := mixedJoin(pr.Group, probeZombieID)
		r.GroupInstanceId = m.instance
		send(codec.JoinGroup, jv, r)
	case 6:
		m, ok := pickMember(members, pr.Pick, classic)
		if !ok {
			return
		}
		hv := p.version(codec.Heartbeat, 4)
		r := &codec.HeartbeatRequest{GroupId: pr.Group, GenerationId: m.epoch - 1, MemberId: m.id}
		if hv >= 3 {
			r.GroupInstanceId = m.instance
		}
		send(codec.Heartbeat, hv, r)
	case 7:
		pb.classicMemberSwitches(p, pr, members, index)
	}
}

// classicMemberSwitches joins the prober's own classic member to the
// consumer group pr.Group, has it send ConsumerGroupHeartbeat under its
// id (a join in place: it switches to the consumer protocol, A7.3), then
// a classic Heartbeat under that id (a consumer-protocol member's:
// UNKNOWN_MEMBER_ID), then its leave, all on one connection within the
// round. Only on a target observed by its snapshot at the round's end
// (as instanceAsMemberID), and where another member uses the consumer
// protocol, so that the leave removes the member without converting the
// group (A7.5).
func (pb *prober) classicMemberSwitches(p *proc, pr plan.Probe, members []seenMember, index int) {
	d := pb.d
	if d.obs.snap == nil {
		return
	}
	if _, ok := pickMember(members, 0, func(m seenMember) bool { return !m.classic }); !ok {
		return
	}
	id := fmt.Sprintf("ghostcheck-probe-switch-%d", index)
	send := func(key codec.APIKey, v int16, req codec.Message) {
		p.others = append(p.others, d.net.send(p, key, v, req))
	}
	send(codec.JoinGroup, p.version(codec.JoinGroup, 9), mixedJoin(pr.Group, id))
	join := probeJoin(pr.Group)
	join.MemberId = id
	send(codec.ConsumerGroupHeartbeat, 1, join)
	send(codec.Heartbeat, p.version(codec.Heartbeat, 4), &codec.HeartbeatRequest{GroupId: pr.Group, GenerationId: 1, MemberId: id})
	send(codec.ConsumerGroupHeartbeat, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: id, MemberEpoch: -1, RebalanceTimeoutMs: -1})
}

// connectGroupJoin plays a Kafka Connect worker whose group id a consumer
// fleet's upgraded process also uses: the worker process's static
// JoinGroup (protocol type "connect") makes the classic group
// probeConnectGroup and waits in its first join phase; the prober's
// ConsumerGroupHeartbeat join to it is refused, GROUP_ID_NOT_FOUND, the
// group not of the consumer protocol type (A7.4), and so is its leave;
// the prober's removal of the worker's member by instance id (LeaveGroup
// v3+, A6.3) answers the worker's JoinGroup and leaves the group empty,
// all within the round. The worker has a connection of its own: a broker
// reads nothing more from a connection whose JoinGroup it holds. Only on
// a target observed by its snapshot at the round's end (the member lives
// within the round), at JoinGroup v5+ and LeaveGroup v3+; the worker's
// JoinGroup is delivered at the round's start, before the prober's
// requests.
func (pb *prober) connectGroupJoin(p *proc) {
	d := pb.d
	w := d.procs.worker()
	jv, lv := p.version(codec.JoinGroup, 9), p.version(codec.LeaveGroup, 5)
	if w == nil || !w.live || !w.versions || len(w.others) > 0 || d.obs.snap == nil || jv < 5 || lv < 3 {
		return
	}
	w.atRoundStart = true // before the prober's requests, off the grid too
	w.others = append(w.others, d.net.send(w, codec.JoinGroup, jv, &codec.JoinGroupRequest{GroupId: probeConnectGroup,
		SessionTimeoutMs: plan.ClassicMinSessionTimeoutMs, RebalanceTimeoutMs: 10000, GroupInstanceId: codec.Str(probeConnectInstance),
		ProtocolType: "connect", Protocols: []codec.JoinGroupRequestProtocol{{Name: "sessioned", Metadata: []byte{0, 1}}}}))
	send := func(key codec.APIKey, v int16, req codec.Message) {
		p.others = append(p.others, d.net.send(p, key, v, req))
	}
	send(codec.ConsumerGroupHeartbeat, 1, probeJoin(probeConnectGroup))
	// Were the group gone (the worker's join refused), the join would
	// have made a consumer group of the prober's member: its leave.
	send(codec.ConsumerGroupHeartbeat, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: probeConnectGroup, MemberId: probeMemberID, MemberEpoch: -1, RebalanceTimeoutMs: -1})
	send(codec.LeaveGroup, lv, &codec.LeaveGroupRequest{GroupId: probeConnectGroup,
		Members: []codec.LeaveGroupMember{{GroupInstanceId: codec.Str(probeConnectInstance)}}})
}
