package plan

// The classic group protocol in plans (docs/PROTOCOL.md A6): a client
// process that speaks JoinGroup, SyncGroup and Heartbeat instead of
// ConsumerGroupHeartbeat, and the plan-wide settings of classic groups.

import (
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
)

// ClassicClient makes a client process a classic consumer (A6.6): it joins
// with JoinGroup, gets its assignment by SyncGroup from the group's
// leader, and heartbeats with Heartbeat. Its group is a classic group:
// every client of a group speaks the same protocol. A static classic
// client is one with an InstanceID.
type ClassicClient struct {
	// JoinGroupMaxVersion is the highest JoinGroup version the client
	// speaks: 9 for today's client, 3 for one from before KIP-394 (the
	// control that must show ghosts: a lost answer to a first join leaves
	// a member nobody owns). Against an older broker it speaks the
	// broker's highest (the v4→v3 downgrade).
	JoinGroupMaxVersion int16 `json:"joinGroupMaxVersion"`
	// SessionTimeoutMs and RebalanceTimeoutMs are what the client's
	// JoinGroups carry. A JoinGroup is given up on after the rebalance
	// timeout and 5 s (Kafka's client's JOIN_GROUP_TIMEOUT_LAPSE), any
	// other request after RequestTimeoutMs.
	SessionTimeoutMs   int32 `json:"sessionTimeoutMs"`
	RebalanceTimeoutMs int32 `json:"rebalanceTimeoutMs"`
	RequestTimeoutMs   int32 `json:"requestTimeoutMs"`
	// SharedInstance tags a client given another live client's instance
	// id on purpose (drawSharedInstance).
	SharedInstance bool `json:"sharedInstance,omitempty"`
	// Protocols are the assignors the client offers on its JoinGroups, in
	// its order of preference (Kafka's partition.assignment.strategy
	// list), each one of client.Assignors; none means ["uniform"].
	Protocols []string `json:"protocols,omitempty"`
	// OmitEmptyAssignments makes the client, when it leads, leave out of
	// its SyncGroup every member it assigns no partition, as a custom
	// assignor may: the coordinator answers that member empty bytes
	// (docs/PROTOCOL.md B8.8).
	OmitEmptyAssignments bool `json:"omitEmptyAssignments,omitempty"`
	// RetrySync makes the client send a SyncGroup whose answer it lost
	// again, on a new connection, instead of joining again as Kafka's
	// Java consumer does: the coordinator holds the new one in the place
	// of the old, which may still wait (B8.8).
	RetrySync bool `json:"retrySync,omitempty"`
}

// MetadataChange tells a classic client that a topic it subscribes to
// changed its partition count: Kafka's Java consumer that led the last
// rebalance, which assigned from the old metadata, rejoins with its
// subscription unchanged; the others do nothing. The plan's topics keep
// their partitions (a classic coordinator never reads them), so the
// leader's new assignment is the old one: what the coordinator sees is the
// leader's unchanged rejoin (docs/PROTOCOL.md B8.6).
const MetadataChange ActionKind = "metadata-change"

// drawClassicClients draws, after everything else (a seed keeps the rest
// of its plan), what sets a plan's classic clients apart from Kafka's
// Java consumer with its defaults: the assignors each offers, in its
// order (client.Assignors), as a fleet does, half the groups "uniform"
// alone and the others two in an order, most clients of a group the
// group's choice and about one in three its own (a fleet midway through a
// change of partition.assignment.strategy: votes that change with a
// static restart, and tie); one client in two leaving out of its leader's
// SyncGroup the members it gives nothing; one in three retrying a
// SyncGroup whose answer it lost; one classic group in four stopped at
// once late in the plan (drawFleetStop); and per classic group up to two
// changes of a subscribed topic's metadata, which every client of the
// group then alive sees at one round (only the leader rejoins). Migration
// plans keep their Java consumers.
func drawClassicClients(d drawer, o Options, p *Plan) {
	if o.Protocol.Migrates() || !p.HasClassic() {
		return
	}
	orders := [][]string{nil, nil, nil, {"range", "uniform"}, {"uniform", "range"}, {"failover", "uniform"}}
	fleet := map[string][]string{}
	for _, g := range p.Groups() {
		fleet[g] = orders[d.intn("classic group protocols", len(orders))]
	}
	for i := range p.Clients {
		c := &p.Clients[i]
		if c.Classic == nil {
			continue
		}
		c.Classic.Protocols = fleet[c.Group]
		if d.intn("own protocols", 3) == 0 {
			c.Classic.Protocols = orders[d.intn("classic protocols", len(orders))]
		}
		c.Classic.OmitEmptyAssignments = d.intn("omit empty assignments", 2) == 0
		c.Classic.RetrySync = d.intn("retry sync", 3) == 0
	}
	for _, g := range p.Groups() {
		if d.intn("fleet stop", 4) == 0 {
			drawFleetStop(d, p, g)
		}
	}
	for _, g := range p.Groups() {
		n := d.intn("metadata changes", 3)
		for range n {
			at := 4 + d.intn("metadata change round", max(p.Rounds-8, 1))
			for i := range p.Clients {
				// A client that joins later learns the new metadata
				// when it joins.
				if c := &p.Clients[i]; c.Group == g && c.Classic != nil && len(c.Actions) > 0 && c.Actions[0].Round < at {
					insertAction(c, Action{Round: at, Kind: MetadataChange})
				}
			}
		}
	}
}

// JoinTimeoutMs is how long the client waits for a JoinGroup's answer.
func (c *ClassicClient) JoinTimeoutMs() int64 { return int64(c.RebalanceTimeoutMs) + 5000 }

// IsClassic reports whether the client process speaks the classic
// protocol.
func (c *ClientPlan) IsClassic() bool { return c.Classic != nil }

// HasClassic reports whether any client of the plan speaks the classic
// protocol.
func (p *Plan) HasClassic() bool {
	for i := range p.Clients {
		if p.Clients[i].Classic != nil {
			return true
		}
	}
	return false
}

// Protocol is the group protocol a plan's clients speak (Options.Protocol).
type Protocol string

// The protocols.
const (
	// ProtocolConsumer: every group is a consumer group (KIP-848's
	// ConsumerGroupHeartbeat); the zero value reads as it.
	ProtocolConsumer Protocol = "consumer"
	// ProtocolClassic: every group is a classic group.
	ProtocolClassic Protocol = "classic"
	// ProtocolMixed: each group is drawn one or the other, half and half.
	ProtocolMixed Protocol = "mixed"
)

// ParseProtocol reads consumer, classic, mixed, upgrade or rollback.
func ParseProtocol(s string) (Protocol, error) {
	switch p := Protocol(s); p {
	case ProtocolConsumer, ProtocolClassic, ProtocolMixed, ProtocolUpgrade, ProtocolRollback:
		return p, nil
	}
	return "", fmt.Errorf("protocol %q: want consumer, classic, mixed, upgrade or rollback", s)
}

// The classic clients' timeouts, sized to the plan's 500 ms rounds: the
// session at the coordinator's minimum (6 s, as the consumer clients'),
// rebalance timeouts of 3 to 10 s, and a request timeout of two thirds of
// the session (Kafka's defaults, 30 s against 45 s); the first rebalance's
// delay of one round at most, so that histories stay short.
const (
	classicSessionTimeoutMs = ClassicMinSessionTimeoutMs
	classicRequestTimeoutMs = 4000
	classicRebalanceMinMs   = 3000
	classicRebalanceSteps   = 15 // of 500 ms: up to 10 s
	classicInitialDelayStep = 500
)

// drawClassic makes the plan's groups classic (Options.Protocol: all, or
// each drawn in mixed plans), drawn after everything else so that a seed
// keeps the consumer-protocol plan it gave before classic groups existed:
// a classic group's clients become classic consumers with their own
// rebalance timeouts, their ConsumerGroupHeartbeat settings cleared and
// their actions made classic (a static leave is a leave; a regex
// subscription, which the classic client does not speak, names topics
// instead); the probes of a classic group that speak
// ConsumerGroupHeartbeat to it are dropped (the A6.4 answers are for later
// probes). Then, per plan: the first rebalance's delay; now and then a
// broker of Kafka 2.2 (JoinGroup v4, SyncGroup, Heartbeat and LeaveGroup
// v2: KIP-394 without KIP-345, so static clients stop before joining and
// the rest downgrade); rarely two processes of one instance id
// (CLASSIC.md §8's scenario 8); and with the prober, stale classic
// Heartbeats (ProbeClassicStaleHeartbeat).
//
// Options.JoinGroupVersion below 4 is the KIP-394 control: every client
// dynamic (a static member needs v5), and the v3 either the clients' own
// or, in half the plans, a broker's from before KIP-394 (JoinGroup v3)
// that clients of today downgrade to.
func drawClassic(d drawer, o Options, p *Plan) {
	classic := map[string]bool{}
	for _, g := range p.Groups() {
		classic[g] = o.Protocol == ProtocolClassic || o.Protocol == ProtocolUpgrade || d.intn("classic group", 2) == 0
	}
	maxJoin := o.JoinGroupVersion
	if maxJoin == 0 {
		maxJoin = 9
	}
	control := maxJoin < 4
	byBroker := control && d.intn("control by broker", 2) == 0
	clientJoin := maxJoin
	if byBroker {
		clientJoin = 9
	}
	for i := range p.Clients {
		c := &p.Clients[i]
		if !classic[c.Group] {
			continue
		}
		c.Classic = &ClassicClient{JoinGroupMaxVersion: clientJoin, SessionTimeoutMs: classicSessionTimeoutMs, RequestTimeoutMs: classicRequestTimeoutMs,
			RebalanceTimeoutMs: classicRebalanceMinMs + 500*int32(d.intn("classic rebalance timeout", classicRebalanceSteps))}
		if maxJoin < 5 {
			c.InstanceID = ""
		}
		c.NullOwned, c.RackID, c.ServerAssignor = false, "", ""
		for j := range c.Actions {
			a := &c.Actions[j]
			switch {
			case a.Kind == StaticLeave:
				a.Kind = Leave
			case a.Kind == Resubscribe && a.Regex != "":
				a.Regex, a.Topics = "", append([]string(nil), c.Topics...)
			}
		}
	}
	kept := p.Probes[:0]
	for _, pr := range p.Probes {
		if !classic[pr.Group] || classicSafeProbe(pr.Kind) {
			kept = append(kept, pr)
		}
	}
	p.Probes = kept
	if !p.HasClassic() {
		return
	}
	p.InitialRebalanceDelayMs = classicInitialDelayStep * int32(d.intn("initial rebalance delay", 2))
	switch {
	case byBroker:
		capBroker(p, 3)
	case !control && !o.Protocol.Migrates() && d.intn("broker of Kafka 2.2", 8) == 0:
		capBroker(p, 4)
	}
	if o.Protocol.Migrates() {
		return
	}
	if d.intn("shared instance", 20) == 0 {
		drawSharedInstance(d, p)
	}
	if o.Probes {
		drawClassicProbes(d, p)
		drawCrossKindProbes(d, p, classic)
	}
}

// ProbeCrossKind: a request of one protocol to a group of the other
// (docs/PROTOCOL.md A6.4), which Kafka answers without a change, by
// Probe.Variant: DescribeGroups of a consumer group (as a missing group),
// ConsumerGroupDescribe and a ConsumerGroupHeartbeat at a member epoch of
// a classic group (GROUP_ID_NOT_FOUND), a classic Heartbeat and SyncGroup
// naming a consumer group's live member (UNKNOWN_MEMBER_ID). Drawn in
// mixed plans only; the joins across the kinds, which may change a
// group's kind, are ProbeCrossKindJoin's.
const ProbeCrossKind ProbeKind = "cross-kind"

// CrossKindVariants is how many variants ProbeCrossKind has; the even
// ones go to a consumer group, the odd ones to a classic group.
const CrossKindVariants = 5

// ProbeCrossKindJoin: a join of one protocol to a group of the other
// (docs/PROTOCOL.md A6.4), by Probe.Variant: 0, a classic JoinGroup with
// MemberId "" to a consumer group; 1, a ConsumerGroupHeartbeat join of the
// prober's member to a classic group, with its leave right behind it.
// Mixed plans run under the `outside` policy, so against a group with
// members the coordinator closes the connection without an answer
// (join-mixed-refused, upgrade-refused); an Empty group, or one nobody
// made yet, becomes (or is made) a group of the join's kind, with no
// member left in it (a pending id, or the prober's member gone by its
// leave), which the group's own clients' next joins replace again
// (join-replaces-consumer-group, heartbeat-replaces-classic-group).
const ProbeCrossKindJoin ProbeKind = "cross-kind-join"

// drawCrossKindJoins draws, in a mixed plan with the prober and groups
// of both kinds, a cross-kind join to each group in the plan's first
// rounds, when its clients may not have joined yet, and then one about
// every 16 rounds. Drawn after everything else (generate), so that a
// plan without them is the one its seed gave before they existed.
func drawCrossKindJoins(d drawer, p *Plan) {
	kinds := map[string]bool{} // group: classic
	for _, c := range p.Clients {
		kinds[c.Group] = c.IsClassic()
	}
	var groups []string
	both := [2]bool{}
	for _, g := range p.Groups() {
		groups = append(groups, g)
		both[btoi(kinds[g])] = true
	}
	if !both[0] || !both[1] {
		return
	}
	probe := func(r int, g string) {
		p.Probes = append(p.Probes, Probe{Round: r, Kind: ProbeCrossKindJoin, Group: g, Variant: btoi(kinds[g])})
	}
	for _, g := range groups {
		probe(d.intn("cross-kind join first round", 3), g)
	}
	for r := 6 + d.intn("cross-kind joins start", 10); r < p.Rounds; r += 10 + d.intn("cross-kind joins gap", 12) {
		probe(r, groups[d.intn("cross-kind join group", len(groups))])
	}
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// drawCrossKindProbes draws a cross-kind probe about every 12 rounds in a
// plan with groups of both kinds.
func drawCrossKindProbes(d drawer, p *Plan, classic map[string]bool) {
	var kinds [2][]string // consumer, classic
	for _, g := range p.Groups() {
		if classic[g] {
			kinds[1] = append(kinds[1], g)
		} else {
			kinds[0] = append(kinds[0], g)
		}
	}
	if len(kinds[0]) == 0 || len(kinds[1]) == 0 {
		return
	}
	for r := 4 + d.intn("cross-kind probes start", 8); r < p.Rounds; r += 6 + d.intn("cross-kind probes gap", 12) {
		v := d.intn("cross-kind variant", CrossKindVariants)
		gs := kinds[v%2]
		p.Probes = append(p.Probes, Probe{Round: r, Kind: ProbeCrossKind, Group: gs[d.intn("cross-kind group", len(gs))],
			Pick: d.intn("cross-kind pick", 16), Variant: v})
	}
}

// drawAncientBroker plays, in about one classic plan in 16 (not the
// KIP-394 control's), a broker whose group apis stop at v0, as Kafka
// 0.10.0's did (JoinGroup v1 and its RebalanceTimeoutMs came with KIP-62,
// Kafka 0.10.1): every client downgrades to JoinGroup v0, whose session
// timeout stands for the rebalance timeout (docs/PROTOCOL.md B8.4), and
// static clients stop before joining. Without KIP-394 a JoinGroup whose
// answer is lost leaves a member its client never learns until the
// coordinator removes it, so the plan judges those members by their
// grace (Plan.LostJoinGrace). Drawn after everything else, so that a plan
// without it is the one its seed gave before it existed.
func drawAncientBroker(d drawer, o Options, p *Plan) {
	if !p.HasClassic() || o.JoinGroupVersion > 0 && o.JoinGroupVersion < 4 {
		return
	}
	if d.intn("broker of Kafka 0.10.0", 16) != 0 {
		return
	}
	capBroker(p, 0)
	p.LostJoinGrace = true
}

// capBroker plays a broker whose JoinGroup stops at join (0: Kafka
// 0.10.0, 3: before KIP-394, 4: Kafka 2.2), with SyncGroup, Heartbeat and
// LeaveGroup as they were then: v0 with JoinGroup v0, else v2.
func capBroker(p *Plan, join int16) {
	if p.MaxVersions == nil {
		p.MaxVersions = map[codec.APIKey]int16{}
	}
	other := int16(2)
	if join == 0 {
		other = 0
	}
	p.MaxVersions[codec.JoinGroup], p.MaxVersions[codec.SyncGroup], p.MaxVersions[codec.Heartbeat] = join, other, other
	if v, ok := p.MaxVersions[codec.LeaveGroup]; !ok || v > other {
		p.MaxVersions[codec.LeaveGroup] = other
	}
}

// classicSafeProbe reports whether a probe may go to a classic group: the
// ones that name no member and make none (telemetry, odd requests), and
// the classic probes.
func classicSafeProbe(k ProbeKind) bool {
	switch k {
	case ProbeZeroInstanceID, ProbeNoInstanceID, ProbeTelemetry, ProbeOddRequest, ProbeClassicStaleHeartbeat, ProbeClassicOddRequest, ProbeCrossKind, ProbeCrossKindJoin:
		return true
	}
	return false
}

// ProbeClassicStaleHeartbeat: a classic Heartbeat for a member the
// observer last saw (DescribeGroups), with its instance id, at a
// generation the group never had: ILLEGAL_GENERATION, and an error must
// not refresh the member's session (B8.9).
const ProbeClassicStaleHeartbeat ProbeKind = "classic-stale-heartbeat"

// ProbeClassicOddRequest: a classic request the coordinator must refuse
// without changing anything (docs/PROTOCOL.md B8.4, B8.6, B8.9, B8.13;
// Probe.Variant picks which): a JoinGroup whose session timeout is one
// below Kafka's minimum or one above its maximum, or whose group id is
// blank; a JoinGroup v0 naming a member nobody holds; a JoinGroup naming a
// member of a group that does not exist; a live member's id with a
// protocol type its group does not have; a SyncGroup v5 with a null
// protocol type; a Heartbeat to, and a DescribeGroups v6 of, a group that
// does not exist; a SyncGroup to, and a DescribeGroups v5 of, a group that
// does not exist (v5: the last version before GROUP_ID_NOT_FOUND); and,
// naming the id the group's last MEMBER_ID_REQUIRED answer made (still
// pending if its client has not rejoined with it, as when the answer was
// lost: KIP-394, A6.1), a Heartbeat, or a JoinGroup with an instance id
// nobody holds: a pending id is not a member, and one joining with an
// instance id is UNKNOWN_SERVER_ERROR; a live member's SyncGroup at the
// group's last generation naming a protocol the group does not use.
const ProbeClassicOddRequest ProbeKind = "classic-odd-request"

// ClassicOddRequestVariants is how many variants ProbeClassicOddRequest
// has.
const ClassicOddRequestVariants = 14

// The session timeout bounds of Kafka's defaults (group.min.session.timeout.ms,
// group.max.session.timeout.ms), the coordinator's of a plan: the classic
// clients join at the minimum, and ProbeClassicOddRequest steps past each.
const (
	ClassicMinSessionTimeoutMs = 6000
	ClassicMaxSessionTimeoutMs = 1800000
)

// drawClassicProbes draws a stale classic Heartbeat to a classic group
// about every 20 rounds, and a classic odd request about as often.
func drawClassicProbes(d drawer, p *Plan) {
	var groups []string
	for _, g := range p.Groups() {
		for _, c := range p.Clients {
			if c.Group == g && c.Classic != nil {
				groups = append(groups, g)
				break
			}
		}
	}
	for r := 5 + d.intn("classic probes start", 10); r < p.Rounds; r += 10 + d.intn("classic probes gap", 20) {
		p.Probes = append(p.Probes, Probe{Round: r, Kind: ProbeClassicStaleHeartbeat, Group: groups[d.intn("classic probe group", len(groups))],
			Pick: d.intn("classic probe pick", 16)})
	}
	for r := 3 + d.intn("classic odd requests start", 10); r < p.Rounds; r += 8 + d.intn("classic odd requests gap", 16) {
		p.Probes = append(p.Probes, Probe{Round: r, Kind: ProbeClassicOddRequest, Group: groups[d.intn("classic odd request group", len(groups))],
			Pick: d.intn("classic odd request pick", 16), Variant: d.intn("classic odd request variant", ClassicOddRequestVariants)})
	}
}

// drawSharedInstance gives a dynamic classic client the instance id of a
// static one of its group, both alive at once (a misconfigured deployment,
// CLASSIC.md §8's scenario 8): each join fences the other, and the fenced
// process stops (FENCED_INSTANCE_ID is fatal). The client is tagged
// (ClassicClient.SharedInstance).
func drawSharedInstance(d drawer, p *Plan) {
	var pairs [][2]int
	for i, s := range p.Clients {
		if s.Classic == nil || s.InstanceID == "" {
			continue
		}
		for j, c := range p.Clients {
			if c.Classic != nil && c.InstanceID == "" && c.Group == s.Group {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	if len(pairs) == 0 {
		return
	}
	pick := pairs[d.intn("shared instance pair", len(pairs))]
	c := &p.Clients[pick[1]]
	c.InstanceID, c.Classic.SharedInstance = p.Clients[pick[0]].InstanceID, true
}

// validateClassic checks the classic clients' settings, and that no group
// mixes the two protocols unless the plan migrates (MigrationPolicy).
func (p *Plan) validateClassic() error {
	kind := map[string]bool{}
	for i, c := range p.Clients {
		if k, seen := kind[c.Group]; seen && k != c.IsClassic() && p.MigrationPolicy == "" {
			return fmt.Errorf("plan: group %s has classic and consumer clients (client %d)", c.Group, i)
		}
		kind[c.Group] = c.IsClassic()
		if c.Classic == nil {
			continue
		}
		cc := c.Classic
		switch {
		case cc.JoinGroupMaxVersion < 0 || cc.JoinGroupMaxVersion > 9:
			return fmt.Errorf("plan: client %s JoinGroup v%d", c.Name, cc.JoinGroupMaxVersion)
		case cc.SessionTimeoutMs <= 0 || cc.RebalanceTimeoutMs < 0 || cc.RequestTimeoutMs <= 0:
			return fmt.Errorf("plan: client %s: classic session and request timeouts must be positive, the rebalance timeout not negative", c.Name)
		}
		for j, name := range cc.Protocols {
			if !slices.Contains(client.Assignors, name) || slices.Contains(cc.Protocols[:j], name) {
				return fmt.Errorf("plan: client %s: protocol %q: want each of %v at most once", c.Name, name, client.Assignors)
			}
		}
	}
	if p.MigrationPolicy != "" && p.MigrationPolicy != MigrationBidirectional {
		return fmt.Errorf("plan: migrationPolicy %q: want %q", p.MigrationPolicy, MigrationBidirectional)
	}
	if p.InitialRebalanceDelayMs < 0 {
		return fmt.Errorf("plan: initialRebalanceDelayMs %d is negative", p.InitialRebalanceDelayMs)
	}
	return nil
}

// drawFleetStop stops the classic fleet of group g at about one round (a
// deployment taking every process down): from a round in the plan's last
// third its static clients end first, each closing (sending nothing, as
// Kafka's static member does), and its dynamic ones a round or two later,
// each closing with its LeaveGroup; a client that ended before stays as
// it was. The dynamic leaves start a rebalance the stopped static members
// never rejoin, which their join phase's timer then ends while their
// sessions still run (B8.7/nobody-rejoined) if it fires first.
func drawFleetStop(d drawer, p *Plan, g string) {
	at := p.Rounds*2/3 + d.intn("fleet stop round", max(p.Rounds/4, 1))
	later := 1 + d.intn("fleet stop dynamic", 2)
	for i := range p.Clients {
		c := &p.Clients[i]
		if c.Group != g || c.Classic == nil || len(c.Actions) == 0 || c.Actions[0].Round >= at || endsBy(*c, at+later) {
			continue
		}
		end := at
		if c.InstanceID == "" {
			end = at + later
		}
		kept := c.Actions[:0]
		for _, a := range c.Actions {
			if a.Round < end {
				kept = append(kept, a)
			}
		}
		c.Actions = append(kept, Action{Round: end, Kind: Close})
	}
}

// endsBy reports whether c's process closes or crashes by round r.
func endsBy(c ClientPlan, r int) bool {
	last := c.Actions[len(c.Actions)-1]
	return (last.Kind == Close || last.Kind == Crash) && last.Round <= r
}
