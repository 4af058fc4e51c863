package driver

import (
	"math/rand/v2"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/plan"
)

// The prober sends requests a well-behaved client never sends (an empty
// member id at v1, a zero, reserved or missing client instance id, a
// heartbeat with someone else's member id and a wrong epoch, requests that
// break each rule of §B4.2, telemetry sequences that meet each refusal of
// §B6, LeaveGroup and Describe of the empty or a missing group). A
// coordinator must answer each by the rules and change nothing; the
// porcupine check holds it to the model's answers, and a refreshed session
// shows up as a member outliving its crashed process.

// probeMemberID is the member id the prober names: never a member.
const probeMemberID = "ghostcheck-probe"

// probeNoGroup is the group id the prober names for a group nobody makes.
const probeNoGroup = "ghostcheck-probe-no-group"

// prober is what the prober process does.
type prober struct {
	d *driver
	// spoil, when set, spoils the next header the prober sends.
	spoil func(*codec.RequestHeader)
}

// spoilHeader applies the spoiling a probe set for the next request: a
// header client instance id that is zero, reserved, missing or fresh.
func (pb *prober) spoilHeader(h *codec.RequestHeader) {
	if pb.spoil != nil {
		pb.spoil(h)
	}
	pb.spoil = nil
}

// spoilID spoils the next header with instance id u (ok) or none.
func (pb *prober) spoilID(u codec.UUID, ok bool) {
	pb.spoil = func(h *codec.RequestHeader) {
		h.ClientInstanceId = codec.NullableUUID{}
		if ok {
			h.ClientInstanceId = codec.SomeUUID(u)
		}
	}
}

// act sends the probes of this round from p, the prober process.
func (pb *prober) act(p *proc) {
	for i, pr := range pb.d.plan.Probes {
		if pr.Round == pb.d.round {
			pb.probe(p, i, pr)
		}
	}
}

// probe sends probe i, pr, from p.
func (pb *prober) probe(p *proc, i int, pr plan.Probe) {
	d := pb.d
	switch pr.Kind {
	case plan.ProbeEmptyMemberID:
		req := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberEpoch: 0, RebalanceTimeoutMs: 30000,
			SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
		p.others = append(p.others, d.net.send(p, codec.ConsumerGroupHeartbeat, 1, req))
	case plan.ProbeZeroInstanceID:
		pb.spoilID(codec.UUID{}, true)
		p.others = append(p.others, d.net.send(p, codec.GetTelemetrySubscriptions, 1, &codec.GetTelemetrySubscriptionsRequest{}))
	case plan.ProbeNoInstanceID:
		pb.spoilID(codec.UUID{}, false)
		req := &codec.PushTelemetryRequest{SubscriptionId: 1, Metrics: []byte("m")}
		p.others = append(p.others, d.net.send(p, codec.PushTelemetry, 1, req))
	case plan.ProbeStaleHeartbeat:
		id, epoch, ok := pb.lastDescribed(pr.Group, pr.Pick)
		if !ok {
			return
		}
		ahead := int32(1000)
		if pr.Pick%2 == 1 && d.procs.holdsMember(pr.Group, id) {
			// The bound of the epoch check (A5.4). Only for the member of
			// a live process: the member may have moved on since the
			// Describe, and then the heartbeat is accepted and refreshes
			// its session, which for a member whose process ended would
			// keep a ghost alive.
			ahead = 1
		}
		req := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: id, MemberEpoch: epoch + ahead, RebalanceTimeoutMs: -1}
		p.others = append(p.others, d.net.send(p, codec.ConsumerGroupHeartbeat, 1, req))
	case plan.ProbePreviousEpoch:
		id, epoch, ok := pb.lastDescribed(pr.Group, pr.Pick)
		if !ok || epoch < 2 {
			return
		}
		req := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: id, MemberEpoch: epoch - 1, RebalanceTimeoutMs: -1}
		p.others = append(p.others, d.net.send(p, codec.ConsumerGroupHeartbeat, 1, req))
	case plan.ProbeInvalidHeartbeat:
		if req, v := pb.invalidHeartbeat(pr); req != nil {
			p.others = append(p.others, d.net.send(p, codec.ConsumerGroupHeartbeat, v, req))
			if req.GroupId == probeNoGroup && req.MemberEpoch == 0 {
				// A refused join makes no group (B4.4): a heartbeat right
				// behind it must find none.
				beat := &codec.ConsumerGroupHeartbeatRequest{GroupId: probeNoGroup, MemberId: probeMemberID, MemberEpoch: 1, RebalanceTimeoutMs: -1}
				p.others = append(p.others, d.net.send(p, codec.ConsumerGroupHeartbeat, 1, beat))
			}
		}
	case plan.ProbeOtherInstance:
		// The member may be gone by the time the join arrives (its
		// process has not heard yet); then the join makes a member
		// under its id, which the leave right behind it on the same
		// connection removes again.
		if id := d.procs.liveMember(pr.Group, pr.Pick, false); id != "" {
			req := probeJoin(pr.Group)
			req.MemberId, req.InstanceId = id, codec.Str("inst-probe-other")
			p.others = append(p.others, d.net.send(p, codec.ConsumerGroupHeartbeat, 1, req))
			leave := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: id, MemberEpoch: -1, RebalanceTimeoutMs: -1, InstanceId: req.InstanceId}
			p.others = append(p.others, d.net.send(p, codec.ConsumerGroupHeartbeat, 1, leave))
		}
	case plan.ProbeInstanceAsMemberID:
		pb.instanceAsMemberID(p, pr)
	case plan.ProbePreviousEpochUnknownTopic:
		pb.previousEpochUnknownTopic(p, pr)
	case plan.ProbeTelemetry:
		pb.telemetry(p, pr, i)
	case plan.ProbeOddRequest:
		pb.oddRequest(p, pr)
	case plan.ProbeClassicStaleHeartbeat:
		pb.classicStaleHeartbeat(p, pr)
	case plan.ProbeClassicOddRequest:
		pb.classicOddRequest(p, pr)
	case plan.ProbeCrossKind:
		pb.crossKind(p, pr)
	case plan.ProbeCrossKindJoin:
		pb.crossKindJoin(p, pr)
	case plan.ProbeMixedOddRequest:
		pb.mixedOddRequest(p, pr, i)
	}
}

// probeJoin is a valid join of the prober's member id to group, for the
// probes to spoil.
func probeJoin(group string) *codec.ConsumerGroupHeartbeatRequest {
	return &codec.ConsumerGroupHeartbeatRequest{GroupId: group, MemberId: probeMemberID, MemberEpoch: 0, RebalanceTimeoutMs: 30000,
		SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
}

// invalidHeartbeat is ProbeInvalidHeartbeat's request: by pr.Variant, one
// that breaks a row of §B4.2 (blank group, instance or rack id; a join
// without rebalance timeout, with TopicPartitions null or non-empty,
// without subscription; -2 without instance; epoch -3; an unknown
// assignor; a bad regex, for an odd pick to the group nobody makes, which
// the refused join must not make either: probe sends a heartbeat right
// behind it; a v0 heartbeat without member id) or meets a
// refusal of §B4.4 (a missing group, an unknown member or instance, an
// instance held by another member). None may change anything.
func (pb *prober) invalidHeartbeat(pr plan.Probe) (*codec.ConsumerGroupHeartbeatRequest, int16) {
	d := pb.d
	r := probeJoin(pr.Group)
	beat := func(epoch int32) {
		r.MemberEpoch, r.RebalanceTimeoutMs, r.SubscribedTopicNames, r.TopicPartitions = epoch, -1, nil, nil
	}
	held := d.procs.liveMember(pr.Group, pr.Pick, true)
	if held == "" {
		held = "inst-nobody"
	}
	switch pr.Variant % 20 {
	case 0:
		r.GroupId = "  "
	case 1:
		r.InstanceId = codec.Str("")
	case 2:
		r.RackId = codec.Str(" ")
	case 3:
		r.RebalanceTimeoutMs = -1
	case 4:
		r.TopicPartitions = nil
	case 5:
		r.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{{TopicId: plan.TopicID("alpha"), Partitions: []int32{0}}}
	case 6:
		r.SubscribedTopicNames = nil
	case 7:
		beat(-2)
	case 8:
		beat(-3)
	case 9:
		r.ServerAssignor = codec.Str("range")
	case 10:
		r.SubscribedTopicNames, r.SubscribedTopicRegex = nil, codec.Str("[bad")
		if pr.Pick%2 == 1 {
			// To a group nobody makes: the join, refused, must not make
			// it either (B4.4).
			r.GroupId = probeNoGroup
		}
	case 11:
		beat(1)
		r.MemberId = ""
		return r, 0
	case 12:
		beat(1)
		r.GroupId = probeNoGroup
	case 13:
		beat(-1)
		r.GroupId = probeNoGroup
	case 14:
		beat(-1)
	case 15:
		beat(-2)
		r.InstanceId = codec.Str("inst-nobody")
	case 16:
		beat(1)
		r.InstanceId = codec.Str("inst-nobody")
	case 17:
		beat(1)
		r.InstanceId = codec.Str(held)
	case 18:
		beat(-1)
		r.InstanceId = codec.Str(held)
	default:
		beat(1)
	}
	return r, 1
}

// reservedOne is Kafka's other reserved id, Uuid.ONE_UUID.
var reservedOne = codec.UUID{15: 1}

// telemetry sends ProbeTelemetry's requests: by pr.Variant, one
// request with a zero or reserved id (v1 header or v0 body), or a sequence
// under a fresh instance id that meets one of §B6's refusals (compression,
// size, a push after a terminating one, no subscription, a wrong
// subscription id, throttling).
func (pb *prober) telemetry(p *proc, pr plan.Probe, index int) {
	d := pb.d
	v := p.version(codec.GetTelemetrySubscriptions, 1)
	get := func(id codec.UUID) {
		pb.spoilID(id, true)
		req := &codec.GetTelemetrySubscriptionsRequest{}
		if v == 0 {
			req.ClientInstanceId = id
		}
		p.others = append(p.others, d.net.send(p, codec.GetTelemetrySubscriptions, v, req))
	}
	push := func(id codec.UUID, req *codec.PushTelemetryRequest) {
		pb.spoilID(id, true)
		if v == 0 {
			req.ClientInstanceId = id
		}
		p.others = append(p.others, d.net.send(p, codec.PushTelemetry, v, req))
	}
	metrics := func() *codec.PushTelemetryRequest {
		return &codec.PushTelemetryRequest{SubscriptionId: d.plan.ModelConfig().Telemetry.SubscriptionID, Metrics: []byte("m")}
	}
	fresh := freshInstanceID(d.plan.Seed, index)
	switch n := pr.Variant % 14; {
	case n < 3 && v < 1: // the v1 variants need a broker with v1
	case n == 0:
		push(codec.UUID{}, metrics())
	case n == 1:
		get(reservedOne)
	case n == 2:
		push(reservedOne, metrics())
	case n == 3 || n == 4 || n == 5 || n == 6:
		id := map[int]codec.UUID{3: {}, 4: reservedOne, 5: {}, 6: reservedOne}[n]
		pb.spoilID(fresh, true)
		if n <= 4 {
			p.others = append(p.others, d.net.send(p, codec.GetTelemetrySubscriptions, 0, &codec.GetTelemetrySubscriptionsRequest{ClientInstanceId: id}))
		} else {
			req := metrics()
			req.ClientInstanceId = id
			p.others = append(p.others, d.net.send(p, codec.PushTelemetry, 0, req))
		}
	case n == 10:
		push(fresh, metrics())
	case n == 11:
		get(fresh)
		get(fresh)
	default:
		get(fresh)
		req := metrics()
		switch n {
		case 7:
			req.CompressionType = 3
		case 8:
			req.Metrics = make([]byte, plan.TelemetryProbeMaxBytes+1)
		case 9:
			req.Terminating = true
		case 13:
			req.SubscriptionId = 99
		}
		push(fresh, req)
		if n == 9 || n == 12 {
			push(fresh, metrics())
		}
	}
}

// freshInstanceID is a client instance id of the prober's own for one
// telemetry probe: never zero or reserved, the same on every replay.
func freshInstanceID(seed uint64, index int) codec.UUID {
	r := rand.New(rand.NewPCG(seed, uint64(index)+0x7e1e))
	var u codec.UUID
	for i := range u {
		u[i] = byte(r.Uint32())
	}
	u[0] |= 0x80 // neither zero nor Uuid.ONE
	return u
}

// oddRequest sends ProbeOddRequest's request: by pr.Variant, a Describe
// of the empty or of a missing group, a LeaveGroup of either (at a drawn
// version the broker has), an ApiVersions v3 with a bad software name, or
// a request one version above what the broker caps (which it refuses
// without a response; the prober then reconnects).
func (pb *prober) oddRequest(p *proc, pr plan.Probe) {
	d := pb.d
	const missing = "ghostcheck-probe-no-group"
	lv := p.version(codec.LeaveGroup, int16(pr.Variant/6%6))
	leave := func(group string) *codec.LeaveGroupRequest {
		r := &codec.LeaveGroupRequest{GroupId: group, MemberId: probeMemberID}
		if lv >= 3 {
			r.MemberId = ""
			r.Members = []codec.LeaveGroupMember{{MemberId: probeMemberID}}
		}
		return r
	}
	dv := p.version(codec.ConsumerGroupDescribe, 1)
	switch pr.Variant % 6 {
	case 0, 1:
		group := ""
		if pr.Variant%6 == 1 {
			group = missing
		}
		p.others = append(p.others, d.net.send(p, codec.ConsumerGroupDescribe, dv, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group}}))
	case 2:
		p.others = append(p.others, d.net.send(p, codec.LeaveGroup, lv, leave("")))
	case 3:
		p.others = append(p.others, d.net.send(p, codec.LeaveGroup, lv, leave(missing)))
	case 4:
		req := &codec.ApiVersionsRequest{ClientSoftwareName: "-bad name-", ClientSoftwareVersion: "1.0"}
		p.others = append(p.others, d.net.send(p, codec.ApiVersions, 3, req))
	case 5:
		if m, ok := p.c.BrokerMaxVersion(codec.LeaveGroup); ok && m < 5 {
			lv = m + 1
			p.others = append(p.others, d.net.send(p, codec.LeaveGroup, lv, leave(pr.Group)))
		} else if m, ok := p.c.BrokerMaxVersion(codec.ConsumerGroupDescribe); ok && m < 1 {
			p.others = append(p.others, d.net.send(p, codec.ConsumerGroupDescribe, 1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{pr.Group}}))
		}
	}
}

// lastDescribed picks a member of the group's most recent describe.
func (pb *prober) lastDescribed(group string, pick int) (string, int32, bool) {
	d := pb.d
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := len(d.hist) - 1; i >= 0; i-- {
		r, ok := d.hist[i].Response.(*codec.ConsumerGroupDescribeResponse)
		if !ok || len(r.Groups) != 1 || r.Groups[0].GroupId != group {
			continue
		}
		ms := r.Groups[0].Members
		if len(ms) == 0 {
			return "", 0, false
		}
		m := ms[pick%len(ms)]
		if m.MemberEpoch < 0 {
			return m.MemberId, 0, true
		}
		return m.MemberId, m.MemberEpoch, true
	}
	return "", 0, false
}

// instanceAsMemberID sends ProbeInstanceAsMemberID's join and leave. The
// leave right behind the join on the same connection removes the member in
// the same round. Only on a target observed by its snapshot at the round's
// end: off the round grid, or delivered in parallel, the observer's
// Describe may land between the two and show a member no process holds.
func (pb *prober) instanceAsMemberID(p *proc, pr plan.Probe) {
	d := pb.d
	if inst := d.procs.liveMember(pr.Group, pr.Pick, true); inst != "" && d.obs.snap != nil {
		req := probeJoin(pr.Group)
		req.MemberId = inst
		p.others = append(p.others, d.net.send(p, codec.ConsumerGroupHeartbeat, 1, req))
		leave := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: inst, MemberEpoch: -1, RebalanceTimeoutMs: -1}
		p.others = append(p.others, d.net.send(p, codec.ConsumerGroupHeartbeat, 1, leave))
	}
}

// previousEpochUnknownTopic sends ProbePreviousEpochUnknownTopic's
// heartbeat, for a member of the group's last Describe at its previous
// epoch.
func (pb *prober) previousEpochUnknownTopic(p *proc, pr plan.Probe) {
	id, epoch, ok := pb.lastDescribed(pr.Group, pr.Pick)
	if !ok || epoch < 2 {
		return
	}
	unknown := codec.UUID{0: 0x7f, 15: 0x7f} // no topic of the coordinator's
	req := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: id, MemberEpoch: epoch - 1, RebalanceTimeoutMs: -1,
		TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{{TopicId: unknown, Partitions: []int32{0}}}}
	p.others = append(p.others, pb.d.net.send(p, codec.ConsumerGroupHeartbeat, 1, req))
}
