package linearize

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"sort"
	"strings"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
)

// ActionKind is something a client process does at a chosen round.
type ActionKind string

// What a client process can be told to do.
const (
	// Join makes the process want membership: it joins, then heartbeats
	// every heartbeat interval.
	Join ActionKind = "join"
	// Leave leaves the group for good (epoch -1); the process lives on.
	Leave ActionKind = "leave"
	// StaticLeave leaves temporarily (epoch -2, static members only).
	StaticLeave ActionKind = "static-leave"
	// Close ends the process cleanly: a leave is sent with the client's own
	// id if it is a member or joining (even before the join response).
	Close ActionKind = "close"
	// Crash ends the process without a leave.
	Crash ActionKind = "crash"
	// Reset closes the process's connection; the next request opens a new
	// one (which carries ClientId again).
	Reset ActionKind = "reset"
	// Telemetry fetches the metrics subscription, or pushes if it has one.
	Telemetry ActionKind = "telemetry"
	// Resubscribe changes the subscription to Action.Topics, or to the
	// regular expression Action.Regex (v1 clients only).
	Resubscribe ActionKind = "resubscribe"
	// RenameClient changes the ClientId the process sends (KIP-1313: a
	// client sends it on a connection's first request; an old-style one,
	// ClientPlan.ClientIDEvery, on every request).
	RenameClient ActionKind = "rename-client"
)

// Action is one scheduled action of a client process.
type Action struct {
	Round int        `json:"round"`
	Kind  ActionKind `json:"kind"`
	// Topics and Regex are a Resubscribe's new subscription.
	Topics []string `json:"topics,omitempty"`
	Regex  string   `json:"regex,omitempty"`
}

// ClientPlan describes one client process.
type ClientPlan struct {
	Name  string `json:"name"`
	Group string `json:"group"`
	// InstanceID makes it a static member.
	InstanceID string `json:"instanceId,omitempty"`
	// HeartbeatVersion is 1 for a KIP-1082 client, 0 for an old one.
	HeartbeatVersion int16    `json:"heartbeatVersion"`
	Topics           []string `json:"topics"`
	// Seed feeds the client's UUIDs.
	Seed    uint64   `json:"seed"`
	Actions []Action `json:"actions"`
	// ClientIDEvery makes an old-style client, from before KIP-1313: it
	// sends its ClientId on every request.
	ClientIDEvery bool `json:"clientIdEvery,omitempty"`
	// NullOwned makes the client send TopicPartitions null on a heartbeat
	// whose owned partitions did not change, as Java's consumer does.
	NullOwned bool `json:"nullOwned,omitempty"`
	// RackID and ServerAssignor, when set, go on the client's joins (a
	// rack-aware client; one naming the coordinator's assignor).
	RackID         string `json:"rackId,omitempty"`
	ServerAssignor string `json:"serverAssignor,omitempty"`
}

// FaultKind is a way the simulated network mistreats one request.
type FaultKind string

// The network faults.
const (
	// LostRequest: the request never reaches the coordinator.
	LostRequest FaultKind = "lost-request"
	// LostResponse: the coordinator processes the request, the client
	// never sees the response (it times out and retries with the same id).
	LostResponse FaultKind = "lost-response"
	// Duplicate: the request is delivered twice.
	Duplicate FaultKind = "duplicate"
	// DelayRequest: the request reaches the coordinator Delay rounds late,
	// after requests sent later on other connections.
	DelayRequest FaultKind = "delay-request"
	// DelayResponse: the response reaches the client Delay rounds late.
	DelayResponse FaultKind = "delay-response"
)

// FaultKinds lists every network fault kind.
func FaultKinds() []FaultKind {
	return []FaultKind{LostRequest, LostResponse, Duplicate, DelayRequest, DelayResponse}
}

// ParseFaultKind accepts a fault kind's name.
func ParseFaultKind(s string) (FaultKind, error) {
	for _, k := range FaultKinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown fault %q (known: %v)", s, FaultKinds())
}

// Fault applies to one request: the Request-th (1-based) a process sends.
type Fault struct {
	Client  int       `json:"client"`
	Request int       `json:"request"`
	Kind    FaultKind `json:"kind"`
	Delay   int       `json:"delay,omitempty"` // rounds, for the delay kinds
}

// AdminRemoval is a KIP-345 administrative LeaveGroup: remove static
// members of a group by instance id (InstanceIDs, each an entry {"", id}),
// or members named by Entries, resolved when the round comes. Without a
// Version the admin sends the highest version the broker offers, and below
// v3 downgrades as a client must (rules.PlanLeaveGroup: one request per
// member id, none for an entry named by its instance id); with one it sends
// that version (capped at the broker's), below v3 one request per entry
// naming its member id alone.
type AdminRemoval struct {
	Round       int          `json:"round"`
	Group       string       `json:"group"`
	InstanceIDs []string     `json:"instanceIds"`
	Entries     []LeaveEntry `json:"entries,omitempty"`
	Version     *int16       `json:"version,omitempty"`
}

// LeaveName says how a LeaveGroup entry fills one of its two names, from
// the client process it picks: "" (MemberId "" or GroupInstanceId null),
// "own" (the picked client's member id, or its instance id: null for a
// dynamic client), "other" (another client's member id, or the instance id
// of another static client of the group), "unknown" (a name nobody has).
type LeaveName string

// The names a LeaveGroup entry can use; with the two fields of an entry
// they reach every row of docs/PROTOCOL.md A3's table.
const (
	NameNone    LeaveName = ""
	NameOwn     LeaveName = "own"
	NameOther   LeaveName = "other"
	NameUnknown LeaveName = "unknown"
)

// LeaveEntry is one member of a LeaveGroup request, as the plan draws it:
// Client picks a client process of the group (modulo how many it has, in
// plan order), Member and Instance how the entry names it.
type LeaveEntry struct {
	Client   int       `json:"client"`
	Member   LeaveName `json:"member,omitempty"`
	Instance LeaveName `json:"instance,omitempty"`
}

// ProbeKind is a request a well-behaved client never sends, which a
// coordinator must still answer by the rules: the prober sends them.
type ProbeKind string

// The probes.
const (
	// ProbeEmptyMemberID: a ConsumerGroupHeartbeat v1 join with an empty
	// member id (KIP-1082: INVALID_REQUEST, and no member made).
	ProbeEmptyMemberID ProbeKind = "v1-join-empty-member-id"
	// ProbeZeroInstanceID: GetTelemetrySubscriptions v1 whose header
	// carries the zero UUID as client instance id (INVALID_REQUEST).
	ProbeZeroInstanceID ProbeKind = "telemetry-zero-instance-id"
	// ProbeNoInstanceID: PushTelemetry v1 whose header carries no client
	// instance id (INVALID_REQUEST).
	ProbeNoInstanceID ProbeKind = "telemetry-no-instance-id"
	// ProbeStaleHeartbeat: a heartbeat for a member the observer last saw,
	// with an epoch far ahead (FENCED_MEMBER_EPOCH; an error must not
	// refresh the member's session).
	ProbeStaleHeartbeat ProbeKind = "stale-heartbeat"
	// ProbePreviousEpoch: a heartbeat for a member the observer last saw,
	// one epoch behind, with TopicPartitions null: only a report of owned
	// partitions may excuse the previous epoch (A5.4), so it is fenced.
	ProbePreviousEpoch ProbeKind = "previous-epoch-null-owned"
	// ProbeInvalidHeartbeat: a ConsumerGroupHeartbeat that breaks a rule
	// of §B4.2 or §B4.4 without changing anything (Probe.Variant picks
	// which: invalidHeartbeats).
	ProbeInvalidHeartbeat ProbeKind = "invalid-heartbeat"
	// ProbeOtherInstance: a join naming the member id of a live member
	// with an instance id it does not hold (A1: INVALID_REQUEST).
	ProbeOtherInstance ProbeKind = "join-member-other-instance"
	// ProbeTelemetry: a telemetry request with a reserved or zero id at v0
	// or v1, or a short sequence under a fresh instance id that meets one
	// of §B6's refusals (Probe.Variant picks which: telemetryProbes).
	ProbeTelemetry ProbeKind = "telemetry"
	// ProbeOddRequest: a Describe or LeaveGroup of the empty or a missing
	// group, an ApiVersions with a bad software name, or a request above a
	// version the broker caps (Probe.Variant picks which: oddRequests).
	ProbeOddRequest ProbeKind = "odd-request"
	// ProbeInstanceAsMemberID: a valid join whose member id is a live
	// static member's instance id, then its leave: the assignor orders
	// the two by member id when their keys tie (A5.2).
	ProbeInstanceAsMemberID ProbeKind = "join-instance-as-member-id"
	// ProbePreviousEpochUnknownTopic: ProbePreviousEpoch reporting an
	// owned partition of a topic the coordinator does not know: not a
	// subset of the assignment, so it is fenced (A5.4).
	ProbePreviousEpochUnknownTopic ProbeKind = "previous-epoch-unknown-topic"
)

// ProbeKinds lists every probe.
func ProbeKinds() []ProbeKind {
	return append(append(baseProbeKinds(), moreProbeKinds()...), extraProbeKinds()...)
}

// baseProbeKinds are the probes drawProbes draws from (its draws index
// this list, so it never grows: a seed keeps its plan).
func baseProbeKinds() []ProbeKind {
	return []ProbeKind{ProbeEmptyMemberID, ProbeZeroInstanceID, ProbeNoInstanceID, ProbeStaleHeartbeat}
}

// moreProbeKinds are the probes drawMoreProbes draws from.
func moreProbeKinds() []ProbeKind {
	return []ProbeKind{ProbePreviousEpoch, ProbeInvalidHeartbeat, ProbeOtherInstance, ProbeTelemetry, ProbeOddRequest}
}

// Probe is one request of the prober.
type Probe struct {
	Round int       `json:"round"`
	Kind  ProbeKind `json:"kind"`
	Group string    `json:"group"`
	// Pick chooses the member (of those last described) a stale
	// heartbeat names.
	Pick int `json:"pick,omitempty"`
	// Variant chooses among a probe kind's variants.
	Variant int `json:"variant,omitempty"`
}

// Plan is a complete, replayable description of one run.
type Plan struct {
	// Seed is what the plan was drawn from (informational: a plan
	// replays from its own content, on any commit).
	Seed uint64 `json:"seed"`
	// Coordinator configuration; the target must be built with the same.
	Topics              []PlanTopic `json:"topics"`
	SessionTimeoutMs    int64       `json:"sessionTimeoutMs"`
	HeartbeatIntervalMs int32       `json:"heartbeatIntervalMs"`
	MaxGroupSize        int         `json:"maxGroupSize,omitempty"`
	// Simulation.
	Rounds         int   `json:"rounds"`
	RoundMs        int64 `json:"roundMs"`
	RequestTimeout int   `json:"requestTimeoutRounds"`
	DescribeEvery  int   `json:"describeEvery"`
	// Parallel delivers each round's requests concurrently (exercises a
	// concurrent target; the order within a round is then the target's).
	Parallel bool           `json:"parallel,omitempty"`
	Clients  []ClientPlan   `json:"clients"`
	Admin    []AdminRemoval `json:"admin,omitempty"`
	Probes   []Probe        `json:"probes,omitempty"`
	Faults   []Fault        `json:"faults,omitempty"`
	// Restarts are the rounds at whose start the coordinator restarts
	// (ascending): every connection closes, what is in flight on them is
	// lost, timers start afresh (model.Coordinator.Restart). They need a
	// target that can restart (CanRestart).
	Restarts []int `json:"restarts,omitempty"`
	// SubRoundMs, when positive, delivers each request at a multiple of it
	// within its round instead of at the round's start (subRoundOffset),
	// so that requests land off the round grid; 0 keeps them on it.
	SubRoundMs int64 `json:"subRoundMs,omitempty"`
	// RebalanceTimeoutMs is the clients' rebalance timeout; 0 is four
	// request timeouts.
	RebalanceTimeoutMs int32 `json:"rebalanceTimeoutMs,omitempty"`
	// MaxVersions caps the coordinator's versions of some apis (an older
	// broker: model.Config.MaxVersions); the clients negotiate down.
	MaxVersions map[codec.APIKey]int16 `json:"maxVersions,omitempty"`
	// TelemetryMaxBytes is the telemetry subscription's payload limit; 0
	// keeps the model's default.
	TelemetryMaxBytes int32 `json:"telemetryMaxBytes,omitempty"`
	// ReuseConnIDs gives a new connection the lowest id of a closed one
	// (as a broker keying connections by socket does) instead of a fresh
	// id, so that a coordinator that keeps a closed connection's context
	// (its first ClientId, KIP-1313) misattributes the new one's requests.
	ReuseConnIDs bool `json:"reuseConnIds,omitempty"`
	// DescribeOps has the observer's Describes ask for the groups'
	// authorized operations.
	DescribeOps bool `json:"describeOps,omitempty"`
}

// PlanTopic is a topic of the coordinator's configuration.
type PlanTopic struct {
	Name       string `json:"name"`
	Partitions int32  `json:"partitions"`
}

// ModelConfig is the model configuration the plan's coordinator must have.
// Topic ids derive from names (model.TopicIDFor).
func (p *Plan) ModelConfig() model.Config {
	cfg := model.DefaultConfig(p.Seed)
	cfg.Topics = nil
	for _, t := range p.Topics {
		cfg.Topics = append(cfg.Topics, model.Topic{Name: t.Name, ID: model.TopicIDFor(t.Name), Partitions: t.Partitions})
	}
	cfg.SessionTimeoutMs = p.SessionTimeoutMs
	cfg.HeartbeatIntervalMs = p.HeartbeatIntervalMs
	cfg.MaxGroupSize = p.MaxGroupSize
	if len(p.MaxVersions) > 0 {
		cfg.MaxVersions = maps.Clone(p.MaxVersions)
	}
	if p.TelemetryMaxBytes > 0 {
		cfg.Telemetry.TelemetryMaxBytes = p.TelemetryMaxBytes
	}
	return cfg
}

// clientRebalanceTimeoutMs is the rebalance timeout the plan's clients
// send.
func (p *Plan) clientRebalanceTimeoutMs() int32 {
	if p.RebalanceTimeoutMs > 0 {
		return p.RebalanceTimeoutMs
	}
	return int32(4 * p.RoundMs * int64(p.RequestTimeout))
}

// Groups lists the plan's group ids in order.
func (p *Plan) Groups() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range p.Clients {
		if !seen[c.Group] {
			seen[c.Group] = true
			out = append(out, c.Group)
		}
	}
	sort.Strings(out)
	return out
}

// Validate checks that the plan is well formed (as a corpus file may not be).
func (p *Plan) Validate() error {
	switch {
	case p.Rounds <= 0 || p.Rounds > 100000:
		return fmt.Errorf("plan: rounds %d out of range", p.Rounds)
	case p.RoundMs <= 0:
		return fmt.Errorf("plan: roundMs %d must be positive", p.RoundMs)
	case p.SessionTimeoutMs <= 0:
		return fmt.Errorf("plan: sessionTimeoutMs %d must be positive", p.SessionTimeoutMs)
	case p.RequestTimeout <= 0:
		return fmt.Errorf("plan: requestTimeoutRounds must be positive")
	case len(p.Clients) == 0 || len(p.Clients) > 10000:
		return fmt.Errorf("plan: %d clients", len(p.Clients))
	}
	for i, c := range p.Clients {
		if c.Group == "" || c.Name == "" {
			return fmt.Errorf("plan: client %d needs a name and a group", i)
		}
		if c.HeartbeatVersion != 0 && c.HeartbeatVersion != 1 {
			return fmt.Errorf("plan: client %s heartbeat version %d", c.Name, c.HeartbeatVersion)
		}
	}
	for i, r := range p.Restarts {
		if r < 1 || r >= p.Rounds || i > 0 && r <= p.Restarts[i-1] {
			return fmt.Errorf("plan: restarts %v must ascend within rounds 1 to %d", p.Restarts, p.Rounds-1)
		}
	}
	for _, f := range p.Faults {
		if f.Client < 0 || f.Client >= len(p.Clients) || f.Request < 1 {
			return fmt.Errorf("plan: fault %+v names no request", f)
		}
		if _, err := ParseFaultKind(string(f.Kind)); err != nil {
			return err
		}
	}
	return p.validateMore()
}

// Options shape the plans a generator draws.
type Options struct {
	Clients int
	Groups  int
	Rounds  int
	// HeartbeatVersion: 0 or 1 for every client, -1 for a mix.
	HeartbeatVersion int
	// StaticPercent of clients are static members.
	StaticPercent int
	// Faults is the chance in percent, per request, of each fault kind
	// (at most one fault hits a request). The first requests of a client
	// (its ApiVersions and join) are hit three times as often, as they are
	// where ghosts are made.
	Faults map[FaultKind]int
	// Crashes, Leaves, Resets, Telemetry and Admin turn those actions on;
	// Probes adds a prober sending requests no good client sends.
	Crashes, Leaves, Resets, Telemetry, Admin, Probes bool
	Parallel                                          bool
	// Restarts restarts the coordinator now and then (about once every
	// 45 rounds); only for targets that can (CanRestart).
	Restarts bool
	// StaticRestarts restarts about half the static clients' processes
	// once (KIP-345): the process closes, which parks its member at -2,
	// and a new process with member ids of its own joins under the same
	// instance id a round or two later (drawStaticRestarts).
	StaticRestarts bool
	// The rest broaden what the plans reach (plan_more.go); each is drawn
	// after everything above, so a plan without them is the one its seed
	// gave before them.
	//
	// StaticCrashes turns about a third of the static restarts into a
	// crash and a redeploy: the new process's join meets an active holder
	// (UNRELEASED_INSTANCE_ID) until the old session expires.
	StaticCrashes bool
	// Resubscribes has some clients change their subscription mid-life,
	// to other topic names or (v1) to a regular expression and back.
	Resubscribes bool
	// OldClients makes some clients old-style (ClientId on every request)
	// and renames some clients' ClientId mid-life.
	OldClients bool
	// NullOwned makes some clients send TopicPartitions null on plain
	// heartbeats, as Java's consumer does.
	NullOwned bool
	// LeaveGroups adds administrative LeaveGroup requests whose entries
	// reach every row of A3's table, in mixed batches, at v0 to v5.
	LeaveGroups bool
	// Caps plays an older or smaller broker now and then: LeaveGroup below
	// v3 (the admin downgrades), telemetry or Describe at v0, a group size
	// cap.
	Caps bool
	// MoreProbes adds the probes of moreProbeKinds.
	MoreProbes bool
	// OffGrid delivers requests at 100 ms steps within their round and
	// draws session and rebalance timeouts off the round grid, so that a
	// deadline off by a millisecond shows.
	OffGrid bool
	// ReuseConnIDs has about half the plans give a new connection the id
	// of a closed one.
	ReuseConnIDs bool
}

// DefaultOptions is a small, busy run: 6 clients in 2 groups over 60
// rounds of 500 ms with 10 % of requests mistreated, a coordinator restart
// now and then (turn Restarts off for a target that cannot restart:
// CanRestart) and static restarts of static clients.
func DefaultOptions() Options {
	return Options{Clients: 6, Groups: 2, Rounds: 60, HeartbeatVersion: 1, StaticPercent: 30,
		Faults: UniformFaults(10), Crashes: true, Leaves: true, Resets: true, Telemetry: true, Admin: true, Probes: true,
		Restarts: true, StaticRestarts: true,
		StaticCrashes: true, Resubscribes: true, OldClients: true, NullOwned: true, LeaveGroups: true,
		Caps: true, MoreProbes: true, OffGrid: true, ReuseConnIDs: true}
}

// UniformFaults spreads percent evenly over every fault kind.
func UniformFaults(percent int) map[FaultKind]int {
	m := map[FaultKind]int{}
	for _, k := range FaultKinds() {
		m[k] = percent / len(FaultKinds())
		if m[k] == 0 && percent > 0 {
			m[k] = 1
		}
	}
	return m
}

// OnlyFault puts percent on one fault kind.
func OnlyFault(k FaultKind, percent int) map[FaultKind]int { return map[FaultKind]int{k: percent} }

// drawer is the source of a generator's choices: rapid (so failing plans
// shrink) or a seeded PRNG (so the command can run without rapid).
type drawer interface {
	intn(label string, n int) int // in [0, n)
}

type rapidDrawer struct{ t *rapid.T }

func (d rapidDrawer) intn(label string, n int) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(d.t, label)
}

type randDrawer struct{ r *rand.Rand }

func (d randDrawer) intn(_ string, n int) int {
	if n <= 1 {
		return 0
	}
	return d.r.IntN(n)
}

// DrawPlan draws a plan with rapid; a failing property shrinks it.
func DrawPlan(t *rapid.T, o Options) Plan {
	seed := uint64(rapid.Uint32().Draw(t, "seed"))
	return generate(rapidDrawer{t}, o, seed)
}

// NewPlan draws a plan from a seed, deterministically.
func NewPlan(seed uint64, o Options) Plan {
	return generate(randDrawer{rand.New(rand.NewPCG(seed, 0x706c616e))}, o, seed)
}

// generate draws a plan. The order of the draws is part of what a seed
// means: each step draws after the previous one, so a seed gives the same
// plan on every commit that keeps the order.
func generate(d drawer, o Options, seed uint64) Plan {
	if o.Clients <= 0 {
		o.Clients = 1
	}
	if o.Groups <= 0 {
		o.Groups = 1
	}
	if o.Rounds < 10 {
		o.Rounds = 10
	}
	p := Plan{
		Seed:                seed,
		Topics:              []PlanTopic{{"alpha", 6}, {"beta", 3}, {"gamma", 2}},
		SessionTimeoutMs:    6000,
		HeartbeatIntervalMs: 1000,
		Rounds:              o.Rounds,
		RoundMs:             500,
		RequestTimeout:      3,
		DescribeEvery:       4,
		Parallel:            o.Parallel,
	}
	p.Clients = drawClients(d, o, p.Rounds)
	if o.Admin {
		p.Admin = drawAdmin(d, p.Clients, p.Rounds)
	}
	if o.Probes {
		p.Probes = drawProbes(d, p.Groups(), p.Rounds)
	}
	p.Faults = drawFaults(d, o.Faults, len(p.Clients), p.Rounds)
	// Drawn last, so that turning restarts on leaves the rest of the plan
	// a seed gives unchanged.
	if o.Restarts {
		p.Restarts = drawRestarts(d, p.Rounds)
	}
	// Drawn after everything else, for the same reason: a plan without
	// them is the one the seed gave before they existed.
	if o.StaticRestarts {
		p.Clients = drawStaticRestarts(d, p.Clients, p.Rounds)
	}
	drawMore(d, o, &p)
	return p
}

// drawClients draws the client processes: their topics, UUID seeds,
// heartbeat versions, static instance ids and lives.
func drawClients(d drawer, o Options, rounds int) []ClientPlan {
	topicSets := [][]string{{"alpha"}, {"alpha", "beta"}, {"beta", "gamma"}, {"alpha", "beta", "gamma"}}
	var clients []ClientPlan
	for i := 0; i < o.Clients; i++ {
		c := ClientPlan{
			Name:             fmt.Sprintf("c%d", i),
			Group:            fmt.Sprintf("g%d", i%o.Groups),
			HeartbeatVersion: 1,
			Topics:           topicSets[d.intn("topics", len(topicSets))],
			Seed:             uint64(d.intn("client seed", 1<<30)) + 1,
		}
		switch o.HeartbeatVersion {
		case 0:
			c.HeartbeatVersion = 0
		case -1:
			c.HeartbeatVersion = int16(d.intn("version", 2))
		}
		if d.intn("static", 100) < o.StaticPercent {
			c.InstanceID = fmt.Sprintf("inst-%d", i)
		}
		c.Actions = drawActions(d, o, c.InstanceID != "", rounds)
		clients = append(clients, c)
	}
	return clients
}

// drawAdmin draws KIP-345 administrative removals of static members
// (sometimes naming an unknown instance too), about one every 80 rounds.
func drawAdmin(d drawer, clients []ClientPlan, rounds int) []AdminRemoval {
	var out []AdminRemoval
	for r := 0; r < rounds; r += 10 + d.intn("admin gap", 20) {
		if d.intn("admin", 4) != 0 {
			continue
		}
		var static []ClientPlan
		for _, c := range clients {
			if c.InstanceID != "" {
				static = append(static, c)
			}
		}
		if len(static) == 0 {
			break
		}
		c := static[d.intn("admin target", len(static))]
		ids := []string{c.InstanceID}
		if d.intn("admin unknown", 3) == 0 {
			ids = append(ids, "inst-unknown")
		}
		out = append(out, AdminRemoval{Round: r, Group: c.Group, InstanceIDs: ids})
	}
	return out
}

// drawProbes draws the prober's requests, one every few rounds.
func drawProbes(d drawer, groups []string, rounds int) []Probe {
	var out []Probe
	for r := 2 + d.intn("probe start", 4); r < rounds; r += 2 + d.intn("probe gap", 5) {
		kinds := baseProbeKinds()
		out = append(out, Probe{Round: r, Kind: kinds[d.intn("probe kind", len(kinds))],
			Group: groups[d.intn("probe group", len(groups))], Pick: d.intn("probe pick", 16)})
	}
	return out
}

// drawFaults draws at most one fault for each of a client's first
// requests (about one request per client per two rounds), at the rates of
// rates; a client's first four requests are hit three times as often.
func drawFaults(d drawer, rates map[FaultKind]int, clients, rounds int) []Fault {
	total := 0
	for _, k := range FaultKinds() {
		total += rates[k]
	}
	if total <= 0 {
		return nil
	}
	var out []Fault
	perClient := rounds / 2
	for ci := 0; ci < clients; ci++ {
		for req := 1; req <= perClient; req++ {
			scale := 1
			if req <= 4 {
				scale = 3
			}
			roll := d.intn("fault?", 100)
			for _, k := range FaultKinds() {
				pct := rates[k] * scale
				if roll >= pct {
					roll -= pct
					continue
				}
				f := Fault{Client: ci, Request: req, Kind: k}
				if k == DelayRequest || k == DelayResponse {
					f.Delay = 1 + d.intn("delay", 4)
				}
				out = append(out, f)
				break
			}
		}
	}
	return out
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

// drawStaticRestarts draws KIP-345 static restarts: about half the static
// clients are restarted once. The client's process closes at a round drawn
// after its join (its actions from then on are dropped; a close parks a
// static member at -2), and a new process, appended to the clients, joins
// one or two rounds later under the same group, instance id, topics and
// heartbeat version, with UUIDs of its own: a new member id taking over the
// parked instance well within the session timeout, which must not
// rebalance (A5.5). A client whose life ends too soon is left alone.
func drawStaticRestarts(d drawer, clients []ClientPlan, rounds int) []ClientPlan {
	out := clients
	for i, c := range clients {
		if c.InstanceID == "" || d.intn("static restart", 2) != 0 {
			continue
		}
		start, end := c.Actions[0].Round, rounds-4
		if last := c.Actions[len(c.Actions)-1]; last.Kind == Close || last.Kind == Crash {
			end = min(end, last.Round)
		}
		at := start + 2 + d.intn("static restart round", max(end-start-2, 1))
		gap := 1 + d.intn("static restart gap", 2)
		seed := uint64(d.intn("client seed", 1<<30)) + 1
		if at >= end {
			continue
		}
		var acts []Action
		for _, a := range c.Actions {
			if a.Round < at {
				acts = append(acts, a)
			}
		}
		clients[i].Actions = append(acts, Action{Round: at, Kind: Close})
		out = append(out, ClientPlan{Name: fmt.Sprintf("c%d", len(out)), Group: c.Group, InstanceID: c.InstanceID,
			HeartbeatVersion: c.HeartbeatVersion, Topics: c.Topics, Seed: seed, Actions: []Action{{Round: at + gap, Kind: Join}}})
	}
	return out
}

// drawActions draws a process's life: it joins early, then perhaps leaves
// and rejoins, leaves temporarily (static), resets its connection, uses
// telemetry, and ends by closing or crashing (or lives to the end, when the
// driver closes it).
func drawActions(d drawer, o Options, static bool, rounds int) []Action {
	r := d.intn("join round", rounds/4)
	acts := []Action{{Round: r, Kind: Join}}
	// A close right after the join (before its response, with a delayed
	// response fault) is KAFKA-17116's race.
	if d.intn("early close", 10) == 0 {
		return append(acts, Action{Round: r + 1, Kind: Close})
	}
	for r < rounds-4 {
		r += 2 + d.intn("gap", rounds/3)
		if r >= rounds-1 {
			break
		}
		switch d.intn("action", 8) {
		case 0:
			if o.Leaves {
				acts = append(acts, Action{Round: r, Kind: Leave}, Action{Round: r + 1 + d.intn("rejoin gap", 6), Kind: Join})
				r = acts[len(acts)-1].Round
			}
		case 1:
			if static && o.Leaves {
				acts = append(acts, Action{Round: r, Kind: StaticLeave}, Action{Round: r + 1 + d.intn("rejoin gap", 4), Kind: Join})
				r = acts[len(acts)-1].Round
			}
		case 2:
			if o.Resets {
				acts = append(acts, Action{Round: r, Kind: Reset})
			}
		case 3:
			if o.Telemetry {
				acts = append(acts, Action{Round: r, Kind: Telemetry})
			}
		case 4:
			if o.Crashes {
				return append(acts, Action{Round: r, Kind: Crash})
			}
		case 5:
			return append(acts, Action{Round: r, Kind: Close})
		}
	}
	return acts
}

// String is a one-line summary of the plan.
func (p *Plan) String() string {
	v := map[int16]int{}
	static := 0
	for _, c := range p.Clients {
		v[c.HeartbeatVersion]++
		if c.InstanceID != "" {
			static++
		}
	}
	kinds := map[FaultKind]int{}
	for _, f := range p.Faults {
		kinds[f.Kind]++
	}
	var ks []string
	for _, k := range FaultKinds() {
		if kinds[k] > 0 {
			ks = append(ks, fmt.Sprintf("%s=%d", k, kinds[k]))
		}
	}
	if len(p.Restarts) > 0 {
		ks = append(ks, fmt.Sprintf("restarts=%d", len(p.Restarts)))
	}
	return fmt.Sprintf("%d clients (v0=%d v1=%d, static=%d) in %d groups, %d rounds, faults: %s",
		len(p.Clients), v[0], v[1], static, len(p.Groups()), p.Rounds, strings.Join(ks, " "))
}
