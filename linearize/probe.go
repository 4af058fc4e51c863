package linearize

import (
	"math/rand/v2"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/client"
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

// probeHeader applies the spoiling actProber set for the next request: a
// header client instance id that is zero, reserved, missing or fresh.
func (d *driver) probeHeader(h *codec.RequestHeader) {
	if d.spoil != nil {
		d.spoil(h)
	}
	d.spoil = nil
}

// headerID spoils the next header with instance id u (ok) or none.
func (d *driver) headerID(u codec.UUID, ok bool) {
	d.spoil = func(h *codec.RequestHeader) {
		h.ClientInstanceId = codec.NullableUUID{}
		if ok {
			h.ClientInstanceId = codec.SomeUUID(u)
		}
	}
}

func (d *driver) actProber(p *proc) {
	for i, pr := range d.plan.Probes {
		if pr.Round != d.round {
			continue
		}
		switch pr.Kind {
		case ProbeEmptyMemberID:
			req := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberEpoch: 0, RebalanceTimeoutMs: 30000,
				SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
			p.others = append(p.others, d.send(p, codec.ConsumerGroupHeartbeat, 1, req))
		case ProbeZeroInstanceID:
			d.headerID(codec.UUID{}, true)
			p.others = append(p.others, d.send(p, codec.GetTelemetrySubscriptions, 1, &codec.GetTelemetrySubscriptionsRequest{}))
		case ProbeNoInstanceID:
			d.headerID(codec.UUID{}, false)
			req := &codec.PushTelemetryRequest{SubscriptionId: 1, Metrics: []byte("m")}
			p.others = append(p.others, d.send(p, codec.PushTelemetry, 1, req))
		case ProbeStaleHeartbeat:
			id, epoch, ok := d.lastDescribed(pr.Group, pr.Pick)
			if !ok {
				continue
			}
			req := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: id, MemberEpoch: epoch + 1000, RebalanceTimeoutMs: -1}
			p.others = append(p.others, d.send(p, codec.ConsumerGroupHeartbeat, 1, req))
		case ProbePreviousEpoch:
			id, epoch, ok := d.lastDescribed(pr.Group, pr.Pick)
			if !ok || epoch < 2 {
				continue
			}
			req := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: id, MemberEpoch: epoch - 1, RebalanceTimeoutMs: -1}
			p.others = append(p.others, d.send(p, codec.ConsumerGroupHeartbeat, 1, req))
		case ProbeInvalidHeartbeat:
			if req, v := d.invalidHeartbeat(pr); req != nil {
				p.others = append(p.others, d.send(p, codec.ConsumerGroupHeartbeat, v, req))
			}
		case ProbeOtherInstance:
			// The member may be gone by the time the join arrives (its
			// process has not heard yet); then the join makes a member
			// under its id, which the leave right behind it on the same
			// connection removes again.
			if id := d.liveMember(pr.Group, pr.Pick, false); id != "" {
				req := probeJoin(pr.Group)
				req.MemberId, req.InstanceId = id, codec.Str("inst-probe-other")
				p.others = append(p.others, d.send(p, codec.ConsumerGroupHeartbeat, 1, req))
				leave := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: id, MemberEpoch: -1, RebalanceTimeoutMs: -1, InstanceId: req.InstanceId}
				p.others = append(p.others, d.send(p, codec.ConsumerGroupHeartbeat, 1, leave))
			}
		case ProbeInstanceAsMemberID, ProbePreviousEpochUnknownTopic:
			d.extraProbe(p, pr)
		case ProbeTelemetry:
			d.telemetryProbe(p, pr, i)
		case ProbeOddRequest:
			d.oddRequest(p, pr)
		}
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
// assignor; a bad regex; a v0 heartbeat without member id) or meets a
// refusal of §B4.4 (a missing group, an unknown member or instance, an
// instance held by another member). None may change anything.
func (d *driver) invalidHeartbeat(pr Probe) (*codec.ConsumerGroupHeartbeatRequest, int16) {
	r := probeJoin(pr.Group)
	beat := func(epoch int32) {
		r.MemberEpoch, r.RebalanceTimeoutMs, r.SubscribedTopicNames, r.TopicPartitions = epoch, -1, nil, nil
	}
	held := d.liveMember(pr.Group, pr.Pick, true)
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
		r.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{{TopicId: model.TopicIDFor("alpha"), Partitions: []int32{0}}}
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
	case 11:
		beat(1)
		r.MemberId = ""
		return r, 0
	case 12:
		beat(1)
		r.GroupId = "ghostcheck-probe-no-group"
	case 13:
		beat(-1)
		r.GroupId = "ghostcheck-probe-no-group"
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

// liveMember picks (by pick) a live client process of group that believes
// it is joined and returns its member id, or with instance its instance id
// (static clients only); "" if there is none.
func (d *driver) liveMember(group string, pick int, instance bool) string {
	var out []string
	for _, p := range d.procs[:len(d.plan.Clients)] {
		if p.group != group || !p.live || p.c.State() != client.Joined || p.c.MemberID() == "" {
			continue
		}
		switch {
		case !instance:
			out = append(out, p.c.MemberID())
		case p.plan.InstanceID != "":
			out = append(out, p.plan.InstanceID)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return out[pick%len(out)]
}

// reservedOne is Kafka's other reserved id, Uuid.ONE_UUID.
var reservedOne = codec.UUID{15: 1}

// telemetryProbe sends ProbeTelemetry's requests: by pr.Variant, one
// request with a zero or reserved id (v1 header or v0 body), or a sequence
// under a fresh instance id that meets one of §B6's refusals (compression,
// size, a push after a terminating one, no subscription, a wrong
// subscription id, throttling).
func (d *driver) telemetryProbe(p *proc, pr Probe, index int) {
	v := p.version(codec.GetTelemetrySubscriptions, 1)
	get := func(id codec.UUID) {
		d.headerID(id, true)
		req := &codec.GetTelemetrySubscriptionsRequest{}
		if v == 0 {
			req.ClientInstanceId = id
		}
		p.others = append(p.others, d.send(p, codec.GetTelemetrySubscriptions, v, req))
	}
	push := func(id codec.UUID, req *codec.PushTelemetryRequest) {
		d.headerID(id, true)
		if v == 0 {
			req.ClientInstanceId = id
		}
		p.others = append(p.others, d.send(p, codec.PushTelemetry, v, req))
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
		d.headerID(fresh, true)
		if n <= 4 {
			p.others = append(p.others, d.send(p, codec.GetTelemetrySubscriptions, 0, &codec.GetTelemetrySubscriptionsRequest{ClientInstanceId: id}))
		} else {
			req := metrics()
			req.ClientInstanceId = id
			p.others = append(p.others, d.send(p, codec.PushTelemetry, 0, req))
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
			req.Metrics = make([]byte, telemetryProbeMaxBytes+1)
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
func (d *driver) oddRequest(p *proc, pr Probe) {
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
		p.others = append(p.others, d.send(p, codec.ConsumerGroupDescribe, dv, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group}}))
	case 2:
		p.others = append(p.others, d.send(p, codec.LeaveGroup, lv, leave("")))
	case 3:
		p.others = append(p.others, d.send(p, codec.LeaveGroup, lv, leave(missing)))
	case 4:
		req := &codec.ApiVersionsRequest{ClientSoftwareName: "-bad name-", ClientSoftwareVersion: "1.0"}
		p.others = append(p.others, d.send(p, codec.ApiVersions, 3, req))
	case 5:
		if m, ok := p.c.BrokerMaxVersion(codec.LeaveGroup); ok && m < 5 {
			lv = m + 1
			p.others = append(p.others, d.send(p, codec.LeaveGroup, lv, leave(pr.Group)))
		} else if m, ok := p.c.BrokerMaxVersion(codec.ConsumerGroupDescribe); ok && m < 1 {
			p.others = append(p.others, d.send(p, codec.ConsumerGroupDescribe, 1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{pr.Group}}))
		}
	}
}

// lastDescribed picks a member of the group's most recent describe.
func (d *driver) lastDescribed(group string, pick int) (string, int32, bool) {
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
