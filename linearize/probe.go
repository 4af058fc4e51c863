package linearize

import (
	"github.com/ghostcheck/ghostcheck/codec"
)

// The prober sends requests a well-behaved client never sends (an empty
// member id at v1, a zero or missing client instance id, a heartbeat with
// someone else's member id and a wrong epoch). A coordinator must answer
// each by the rules and change nothing; the porcupine check holds it to the
// model's answers, and a refreshed session shows up as a member outliving
// its crashed process.

// probeHeader is set by actProber for the next request: how to spoil the
// header's client instance id.
func (d *driver) probeHeader(h *codec.RequestHeader) {
	switch d.nextProbeHeader {
	case ProbeZeroInstanceID:
		h.ClientInstanceId = codec.SomeUUID(codec.UUID{})
	case ProbeNoInstanceID:
		h.ClientInstanceId = codec.NullableUUID{}
	}
	d.nextProbeHeader = ""
}

func (d *driver) actProber(p *proc) {
	for _, pr := range d.plan.Probes {
		if pr.Round != d.round {
			continue
		}
		switch pr.Kind {
		case ProbeEmptyMemberID:
			req := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberEpoch: 0, RebalanceTimeoutMs: 30000,
				SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
			p.others = append(p.others, d.send(p, codec.ConsumerGroupHeartbeat, 1, req))
		case ProbeZeroInstanceID:
			d.nextProbeHeader = pr.Kind
			p.others = append(p.others, d.send(p, codec.GetTelemetrySubscriptions, 1, &codec.GetTelemetrySubscriptionsRequest{}))
		case ProbeNoInstanceID:
			d.nextProbeHeader = pr.Kind
			req := &codec.PushTelemetryRequest{SubscriptionId: 1, Metrics: []byte("m")}
			p.others = append(p.others, d.send(p, codec.PushTelemetry, 1, req))
		case ProbeStaleHeartbeat:
			id, epoch, ok := d.lastDescribed(pr.Group, pr.Pick)
			if !ok {
				continue
			}
			req := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: id, MemberEpoch: epoch + 1000, RebalanceTimeoutMs: -1}
			p.others = append(p.others, d.send(p, codec.ConsumerGroupHeartbeat, 1, req))
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
