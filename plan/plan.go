package plan

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
)

// Plan is a complete, replayable description of one run.
type Plan struct {
	// Seed is what the plan was drawn from (informational: a plan
	// replays from its own content, on any commit).
	Seed uint64 `json:"seed"`
	// Coordinator configuration; the target must be built with the same.
	Topics              []Topic `json:"topics"`
	SessionTimeoutMs    int64   `json:"sessionTimeoutMs"`
	HeartbeatIntervalMs int32   `json:"heartbeatIntervalMs"`
	// MaxGroupSize caps every group, consumer (group.consumer.max.size)
	// and classic (group.max.size).
	MaxGroupSize int `json:"maxGroupSize,omitempty"`
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
	// ClusterFaults are the faults of a cluster of brokers played at the
	// start of their rounds (in order), by a target that can
	// (driver.ClusterFaulter; drawn only for one: RealTime.Cluster).
	ClusterFaults []ClusterFault `json:"clusterFaults,omitempty"`
	// SubRoundMs, when positive, delivers each request at a multiple of it
	// within its round instead of at the round's start (subRoundOffset),
	// so that requests land off the round grid; 0 keeps them on it.
	SubRoundMs int64 `json:"subRoundMs,omitempty"`
	// EdgeMs, when positive (with SubRoundMs), delivers about one request
	// in four EdgeMs before its step instead of at it (subRoundOffset):
	// deadlines fall on the steps, so a timer a millisecond late shows at
	// a step and one a millisecond early only just before one.
	EdgeMs int64 `json:"edgeMs,omitempty"`
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
	// InitialRebalanceDelayMs is the coordinator's
	// group.initial.rebalance.delay.ms for classic groups (plans with
	// classic clients only; classic.go).
	InitialRebalanceDelayMs int32 `json:"initialRebalanceDelayMs,omitempty"`
	// MigrationPolicy is the coordinator's group.consumer.migration.policy
	// (docs/PROTOCOL.md A7): "bidirectional" in the upgrade and rollback
	// plans (migration.go), whose groups hold members of both protocols;
	// "" keeps mixed groups outside the model, as every other plan.
	MigrationPolicy string `json:"migrationPolicy,omitempty"`
	// LostJoinGrace holds the coordinator, for a member made for a
	// JoinGroup v0-v3 with MemberId "" whose answer its live process never
	// got (KIP-394's ghost, which every Kafka before 2.2 leaves), only to
	// removing it as any member nobody holds, by its grace, instead of
	// counting it a ghost at once (rules.Observation.LostJoinGrace). Set by
	// the plans that play a broker from before KIP-394 to reach what only
	// its joins reach (drawAncientBroker); the KIP-394 control
	// (Options.JoinGroupVersion < 4) leaves it off.
	LostJoinGrace bool `json:"lostJoinGrace,omitempty"`
}

// Topic is a topic of the coordinator's configuration.
type Topic struct {
	Name       string `json:"name"`
	Partitions int32  `json:"partitions"`
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
	// Classic, when set, makes the process a classic consumer (JoinGroup,
	// SyncGroup, Heartbeat: classic.go); HeartbeatVersion, NullOwned,
	// RackID and ServerAssignor are then unused.
	Classic *ClassicClient `json:"classic,omitempty"`
}

// Action is one scheduled action of a client process.
type Action struct {
	Round int        `json:"round"`
	Kind  ActionKind `json:"kind"`
	// Topics and Regex are a Resubscribe's new subscription.
	Topics []string `json:"topics,omitempty"`
	Regex  string   `json:"regex,omitempty"`
}

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

// TopicID is the id a plan's coordinator gives the topic named name: ids
// derive from names (model.TopicIDFor), so every coordinator of a plan,
// and its clients, agree on them.
func TopicID(name string) codec.UUID { return model.TopicIDFor(name) }

// ModelConfig is the model configuration the plan's coordinator must have.
// Topic ids derive from names (TopicID).
func (p *Plan) ModelConfig() model.Config {
	cfg := model.DefaultConfig(p.Seed)
	cfg.Topics = nil
	for _, t := range p.Topics {
		cfg.Topics = append(cfg.Topics, model.Topic{Name: t.Name, ID: TopicID(t.Name), Partitions: t.Partitions})
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
	if p.HasClassic() {
		// A group size cap caps classic groups too (group.max.size).
		cfg.InitialRebalanceDelayMs, cfg.ClassicMaxGroupSize = p.InitialRebalanceDelayMs, p.MaxGroupSize
	}
	if p.MigrationPolicy == MigrationBidirectional {
		cfg.MigrationPolicy = model.MigrationBidirectional
	}
	return cfg
}

// ClientRebalanceTimeoutMs is the rebalance timeout the plan's clients
// send.
func (p *Plan) ClientRebalanceTimeoutMs() int32 {
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

// String is a one-line summary of the plan.
func (p *Plan) String() string {
	v := map[int16]int{}
	static, classic := 0, 0
	for _, c := range p.Clients {
		if c.Classic != nil {
			classic++
		} else {
			v[c.HeartbeatVersion]++
		}
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
	if len(p.ClusterFaults) > 0 {
		cf := map[ClusterFaultKind]int{}
		for _, f := range p.ClusterFaults {
			cf[f.Kind]++
		}
		for _, k := range ClusterFaultKinds() {
			if cf[k] > 0 {
				ks = append(ks, fmt.Sprintf("%s=%d", k, cf[k]))
			}
		}
	}
	if len(p.Restarts) > 0 {
		ks = append(ks, fmt.Sprintf("restarts=%d", len(p.Restarts)))
	}
	if classic > 0 {
		return fmt.Sprintf("%d clients (classic=%d v0=%d v1=%d, static=%d) in %d groups, %d rounds, faults: %s",
			len(p.Clients), classic, v[0], v[1], static, len(p.Groups()), p.Rounds, strings.Join(ks, " "))
	}
	return fmt.Sprintf("%d clients (v0=%d v1=%d, static=%d) in %d groups, %d rounds, faults: %s",
		len(p.Clients), v[0], v[1], static, len(p.Groups()), p.Rounds, strings.Join(ks, " "))
}
