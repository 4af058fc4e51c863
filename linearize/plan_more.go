package linearize

// The draws that broaden plans beyond the KIP-1082 story (issue 14): static
// redeploys after a crash, resubscriptions, old-style and renamed clients,
// clients reporting owned partitions only when changed, LeaveGroup entries
// of every row of A3's table at every version, older and smaller brokers,
// more probes, requests and timeouts off the round grid, and connection ids
// reused. Each is drawn after everything of plan.go, in the order of
// drawMore, so a seed keeps the rest of its plan; each is a small share of
// a plan, so most of every history is still clients joining, heartbeating,
// leaving and crashing under network faults.

import (
	"fmt"
	"sort"

	"github.com/ghostcheck/ghostcheck/codec"
)

// drawMore draws the broadening features o turns on, in a fixed order.
func drawMore(d drawer, o Options, p *Plan) {
	base := o.Clients
	if o.StaticCrashes {
		drawStaticCrashes(d, p.Clients, base)
	}
	if o.Resubscribes {
		drawResubscribes(d, p.Clients, p.Rounds)
	}
	if o.OldClients {
		drawOldClients(d, p.Clients, p.Rounds)
	}
	if o.NullOwned {
		for i := range p.Clients {
			p.Clients[i].NullOwned = d.intn("null owned", 2) == 0
		}
	}
	if o.LeaveGroups {
		p.Admin = append(p.Admin, drawLeaveGroups(d, p.Groups(), p.Rounds)...)
	}
	if o.Caps {
		drawCaps(d, p)
	}
	if o.MoreProbes {
		p.Probes = append(p.Probes, drawMoreProbes(d, p.Groups(), p.Rounds)...)
		p.TelemetryMaxBytes = telemetryProbeMaxBytes
	}
	if o.OffGrid {
		drawOffGrid(d, p)
	}
	if o.ReuseConnIDs {
		p.ReuseConnIDs = d.intn("reuse conn ids", 2) == 0
	}
	if o.MoreProbes {
		drawExtras(d, p)
	}
	if o.Caps {
		drawLeaveGroupBeforeReason(d, p)
	}
}

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

// drawStaticCrashes turns about a third of the static restarts (a client
// of the first base whose close a later client with its instance id
// follows) into a crash: the redeployed process then meets an active
// holder, UNRELEASED_INSTANCE_ID, and joins as a new member once the old
// one's session has expired.
func drawStaticCrashes(d drawer, clients []ClientPlan, base int) {
	for j := base; j < len(clients); j++ {
		for i := 0; i < base && i < len(clients); i++ {
			c := &clients[i]
			if c.InstanceID == "" || c.InstanceID != clients[j].InstanceID || c.Group != clients[j].Group || len(c.Actions) == 0 {
				continue
			}
			if last := &c.Actions[len(c.Actions)-1]; last.Kind == Close && d.intn("static crash", 3) == 0 {
				last.Kind = Crash
			}
		}
	}
}

// resubscriptions are the subscriptions a client may change to: topic
// names, or (v1 only) a regular expression over alpha, beta and gamma.
var resubscriptions = []Action{
	{Topics: []string{"alpha"}}, {Topics: []string{"beta", "gamma"}}, {Topics: []string{"alpha", "gamma"}},
	{Regex: "a.*"}, {Regex: "(beta|gamma)"}, {Regex: ".*a"},
}

// drawResubscribes has about a third of the clients change their
// subscription once during their life, and some of those change back.
func drawResubscribes(d drawer, clients []ClientPlan, rounds int) {
	for i := range clients {
		c := &clients[i]
		pick, at, back := d.intn("resubscribe", 3*len(resubscriptions)), d.intn("resubscribe round", rounds), d.intn("resubscribe back", 2) == 0
		if pick >= len(resubscriptions) || len(c.Actions) == 0 {
			continue
		}
		a := resubscriptions[pick]
		if a.Regex != "" && c.HeartbeatVersion < 1 {
			a = resubscriptions[pick%3]
		}
		a.Round, a.Kind = at, Resubscribe
		insertAction(c, a)
		if back && at+8 < rounds {
			insertAction(c, Action{Round: at + 8, Kind: Resubscribe, Topics: append([]string(nil), c.Topics...)})
		}
	}
}

// drawOldClients makes about a quarter of the clients old-style (ClientId
// on every request, from before KIP-1313), and renames about a quarter of
// all clients once.
func drawOldClients(d drawer, clients []ClientPlan, rounds int) {
	for i := range clients {
		c := &clients[i]
		c.ClientIDEvery = d.intn("old client", 4) == 0
		if rename, at := d.intn("rename", 4) == 0, d.intn("rename round", rounds); rename && len(c.Actions) > 0 {
			insertAction(c, Action{Round: at, Kind: RenameClient})
		}
	}
}

// insertAction puts a into c's actions in round order, after the actions
// of the same round, and only within the client's life: after its first
// join and before it ends (a close or crash).
func insertAction(c *ClientPlan, a Action) {
	first := c.Actions[0].Round
	if a.Round <= first {
		a.Round = first + 1
	}
	if last := c.Actions[len(c.Actions)-1]; (last.Kind == Close || last.Kind == Crash) && a.Round >= last.Round {
		return
	}
	i := sort.Search(len(c.Actions), func(i int) bool { return c.Actions[i].Round > a.Round })
	c.Actions = append(c.Actions[:i], append([]Action{a}, c.Actions[i:]...)...)
}

// leaveRows are LeaveGroup entries, by how they name their member: with
// the entry's client picked, each reaches one row of docs/PROTOCOL.md A3's
// table (which one depends on the client: a dynamic client's "own"
// instance is null).
var leaveRows = []LeaveEntry{
	{Member: NameNone, Instance: NameOwn},        // row 1: "" + held instance (row 2 for a dynamic client)
	{Member: NameNone, Instance: NameUnknown},    // row 2: "" + unknown instance
	{Member: NameNone, Instance: NameNone},       // row 2: "" + null
	{Member: NameOwn, Instance: NameNone},        // row 3: a member's id + null
	{Member: NameUnknown, Instance: NameNone},    // row 4: not a member + null
	{Member: NameOwn, Instance: NameUnknown},     // row 5: any + unknown instance
	{Member: NameOwn, Instance: NameOther},       // row 6: another member's instance
	{Member: NameOther, Instance: NameOwn},       // row 6 again, the other way round
	{Member: NameOwn, Instance: NameOwn},         // row 7: the holder, by both names
	{Member: NameUnknown, Instance: NameUnknown}, // row 5
}

// drawLeaveGroups draws administrative LeaveGroup requests, about one
// every 25 rounds per plan: one to three entries of leaveRows, at a drawn
// version (v0 to v5) or, half the time, the highest the broker offers (a
// broker capped below v3 then sees the client's downgrade).
func drawLeaveGroups(d drawer, groups []string, rounds int) []AdminRemoval {
	var out []AdminRemoval
	for r := 5 + d.intn("leavegroup start", 20); r < rounds; r += 15 + d.intn("leavegroup gap", 20) {
		a := AdminRemoval{Round: r, Group: groups[d.intn("leavegroup group", len(groups))]}
		for n := 1 + d.intn("leavegroup entries", 3); n > 0; n-- {
			e := leaveRows[d.intn("leavegroup row", len(leaveRows))]
			e.Client = d.intn("leavegroup client", 16)
			a.Entries = append(a.Entries, e)
		}
		if v := d.intn("leavegroup version", 12); v < 6 {
			vv := int16(v)
			a.Version = &vv
		}
		out = append(out, a)
	}
	return out
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

// telemetryProbeMaxBytes is the payload limit of plans with the telemetry
// probes: above what clients push ("metrics"), below what the too-large
// probe pushes.
const telemetryProbeMaxBytes = 64

// drawMoreProbes draws the probes of moreProbeKinds, about one every six
// rounds.
func drawMoreProbes(d drawer, groups []string, rounds int) []Probe {
	var out []Probe
	kinds := moreProbeKinds()
	for r := 3 + d.intn("more probes start", 6); r < rounds; r += 3 + d.intn("more probes gap", 6) {
		out = append(out, Probe{Round: r, Kind: kinds[d.intn("more probe kind", len(kinds))],
			Group: groups[d.intn("more probe group", len(groups))], Pick: d.intn("more probe pick", 16), Variant: d.intn("more probe variant", 64)})
	}
	return out
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

// forAnyBroker drops what only a coordinator ghostcheck configures can
// play (a broker reached by address is configured by its operator):
// version caps, a group size cap and the telemetry payload limit; and the
// clients' rebalance timeout goes back to four request timeouts, which
// TCPPlan sizes against the broker's session timeout. The probes of
// moreProbeKinds are left out too: a broker's known findings
// (`ghostcheck check --known`) do not cover them yet, and the ones it
// breaks would hide everything else a history shows.
func (p *Plan) forAnyBroker() {
	p.MaxVersions, p.MaxGroupSize, p.TelemetryMaxBytes, p.RebalanceTimeoutMs = nil, 0, 0, 0
	more := map[ProbeKind]bool{}
	for _, k := range append(moreProbeKinds(), extraProbeKinds()...) {
		more[k] = true
	}
	var kept []Probe
	for _, pr := range p.Probes {
		if !more[pr.Kind] {
			kept = append(kept, pr)
		}
	}
	p.Probes = kept
}

// validateMore checks the fields of plan_more's features.
func (p *Plan) validateMore() error {
	if p.SubRoundMs < 0 || p.RebalanceTimeoutMs < 0 || p.TelemetryMaxBytes < 0 || p.MaxGroupSize < 0 {
		return fmt.Errorf("plan: subRoundMs, rebalanceTimeoutMs, telemetryMaxBytes and maxGroupSize must not be negative")
	}
	for _, c := range p.Clients {
		for _, a := range c.Actions {
			if a.Kind == Resubscribe && a.Regex != "" && c.HeartbeatVersion < 1 {
				return fmt.Errorf("plan: client %s resubscribes by regex at ConsumerGroupHeartbeat v0", c.Name)
			}
		}
	}
	for _, a := range p.Admin {
		if a.Version != nil && (*a.Version < 0 || *a.Version > 5) {
			return fmt.Errorf("plan: LeaveGroup v%d at round %d", *a.Version, a.Round)
		}
		for _, e := range a.Entries {
			for _, n := range []LeaveName{e.Member, e.Instance} {
				if n != NameNone && n != NameOwn && n != NameOther && n != NameUnknown {
					return fmt.Errorf("plan: LeaveGroup entry name %q", n)
				}
			}
		}
	}
	return nil
}

// extraProbeKinds are the probes drawExtras draws.
func extraProbeKinds() []ProbeKind {
	return []ProbeKind{ProbeInstanceAsMemberID, ProbePreviousEpochUnknownTopic}
}

// drawExtras draws, after everything else (a seed keeps the rest of its
// plan), what the run otherwise leaves out of the model: about one client
// in six rack-aware and one in six naming the assignor on its joins, the
// observer asking for authorized operations in one plan in four, and
// about one probe every 30 rounds of extraProbeKinds.
func drawExtras(d drawer, p *Plan) {
	for i := range p.Clients {
		c := &p.Clients[i]
		if d.intn("rack id", 6) == 0 {
			c.RackID = fmt.Sprintf("rack-%d", d.intn("rack", 3))
		}
		if d.intn("server assignor", 6) == 0 {
			c.ServerAssignor = "uniform"
		}
	}
	p.DescribeOps = d.intn("describe ops", 4) == 0
	kinds := extraProbeKinds()
	groups := p.Groups()
	for r := 10 + d.intn("extra probes start", 20); r < p.Rounds; r += 20 + d.intn("extra probes gap", 20) {
		p.Probes = append(p.Probes, Probe{Round: r, Kind: kinds[d.intn("extra probe kind", len(kinds))],
			Group: groups[d.intn("extra probe group", len(groups))], Pick: d.intn("extra probe pick", 16)})
	}
}

// extraProbe sends a probe of extraProbeKinds.
func (d *driver) extraProbe(p *proc, pr Probe) {
	switch pr.Kind {
	case ProbeInstanceAsMemberID:
		// The leave right behind the join on the same connection removes
		// the member in the same round. Only on a target observed by its
		// snapshot at the round's end: off the round grid, or delivered
		// in parallel, the observer's Describe may land between the two
		// and show a member no process holds.
		if inst := d.liveMember(pr.Group, pr.Pick, true); inst != "" && d.snap != nil {
			req := probeJoin(pr.Group)
			req.MemberId = inst
			p.others = append(p.others, d.send(p, codec.ConsumerGroupHeartbeat, 1, req))
			leave := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: inst, MemberEpoch: -1, RebalanceTimeoutMs: -1}
			p.others = append(p.others, d.send(p, codec.ConsumerGroupHeartbeat, 1, leave))
		}
	case ProbePreviousEpochUnknownTopic:
		id, epoch, ok := d.lastDescribed(pr.Group, pr.Pick)
		if !ok || epoch < 2 {
			return
		}
		unknown := codec.UUID{0: 0x7f, 15: 0x7f} // no topic of the coordinator's
		req := &codec.ConsumerGroupHeartbeatRequest{GroupId: pr.Group, MemberId: id, MemberEpoch: epoch - 1, RebalanceTimeoutMs: -1,
			TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{{TopicId: unknown, Partitions: []int32{0}}}}
		p.others = append(p.others, d.send(p, codec.ConsumerGroupHeartbeat, 1, req))
	}
}
