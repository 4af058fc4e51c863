package plan

import (
	"github.com/ghostcheck/ghostcheck/codec"
)

// drawLeaveGroupBeforeReason plays, in about one plan in eight that
// drawCaps left LeaveGroup uncapped, a broker from before KIP-800 (a
// LeaveGroup entry's Reason, v5): LeaveGroup capped at v3 or v4. The
// admin then sends its batch at the broker's version, its reasons
// dropped (rules.PlanLeaveGroup). Drawn last, so a seed keeps the rest of
// its plan.
func drawLeaveGroupBeforeReason(d drawer, p *Plan) {
	if _, capped := p.MaxVersions[codec.LeaveGroup]; capped || d.intn("leavegroup before reason", 8) != 0 {
		return
	}
	if p.MaxVersions == nil {
		p.MaxVersions = map[codec.APIKey]int16{}
	}
	p.MaxVersions[codec.LeaveGroup] = int16(3 + d.intn("leavegroup before reason version", 2))
}

// drawCaps plays an older or smaller broker now and then: LeaveGroup
// capped below v3 in about one plan in five (the admin downgrades, or
// sends what it can), telemetry at v0 in one in six (a KIP-1313 client
// then puts its own id in the body), Describe at v0 in one in six, and a
// group size cap of 3 in one in eight.
func drawCaps(d drawer, p *Plan) {
	caps := map[codec.APIKey]int16{}
	if lg := d.intn("cap leavegroup", 15); lg < 3 {
		caps[codec.LeaveGroup] = int16(lg)
	}
	if d.intn("cap telemetry", 6) == 0 {
		caps[codec.GetTelemetrySubscriptions], caps[codec.PushTelemetry] = 0, 0
	}
	if d.intn("cap describe", 6) == 0 {
		caps[codec.ConsumerGroupDescribe] = 0
	}
	if len(caps) > 0 {
		p.MaxVersions = caps
	}
	if d.intn("cap group size", 8) == 0 {
		p.MaxGroupSize = 3
	}
}

// drawOffGrid delivers requests at 100 ms steps within their rounds, and
// draws a session timeout of 6 s give or take up to 400 ms and a rebalance
// timeout from 3.1 s to 6.9 s, neither a multiple of the 500 ms round.
func drawOffGrid(d drawer, p *Plan) {
	p.SubRoundMs = 100
	k := int64(d.intn("session offset", 8)) - 4
	if k >= 0 {
		k++
	}
	p.SessionTimeoutMs += 100 * k
	p.RebalanceTimeoutMs = 3100 + 100*int32(d.intn("rebalance timeout", 38))
	if p.RebalanceTimeoutMs%int32(p.RoundMs) == 0 {
		p.RebalanceTimeoutMs += 100
	}
}

// drawRestarts draws coordinator restarts, about one every 45 rounds.
func drawRestarts(d drawer, rounds int) []int {
	var out []int
	for r := 5 + d.intn("restart start", 20); r < rounds; r += 15 + d.intn("restart gap", 30) {
		if d.intn("restart", 2) == 0 {
			out = append(out, r)
		}
	}
	return out
}
