package ghostchecktest

import (
	"maps"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// Target is a group coordinator under test, reached through the wire
// vocabulary of package codec: Handle gets one request a client sent on a
// connection and returns the response body (an error wrapping
// ErrNoResponse when the outcome is unknown, any other error when the
// coordinator refused the request without applying it); Disconnect closes
// a connection; Advance moves the coordinator's clock to a time in
// milliseconds since the run began, and fires every timer due by then.
// Handle is called from one goroutine at a time unless Options.Parallel
// is set.
type Target = driver.Target

// Conn names the connection a request travels on: its id (a closed
// connection's id may come back for a new one, as a broker keying
// connections by socket sees them), the client's host, and the request's
// delivery number (a Parker's releases name requests by it).
type Conn = driver.Conn

// Parker is a Target that parks requests (a classic JoinGroup or
// SyncGroup waiting for its group: Handle returns ErrParked); after every
// call the run drains Released, the answers given to parked requests
// since the last.
type Parker = driver.Parker

// Release is a parked request's answer (Dropped: it will never come).
type Release = driver.Release

// ErrParked is what Handle returns for a request it parks.
var ErrParked = driver.ErrParked

// Snapshotter is a Target that can show its whole state, pending
// revocations included: the invariants are then checked on its snapshot
// after every round, and every ConsumerGroupDescribe it answers must agree
// with the snapshot of that instant (DescribeAgrees). Without it they are
// checked on what ConsumerGroupDescribe shows.
type Snapshotter = driver.Snapshotter

// Restarter is a Target that can restart its coordinator (what it
// persists survives; connections, per-connection context and timers do
// not). The plans of a Target that cannot restart run without their
// restarts, and the outcome says so.
type Restarter = driver.Restarter

// ModelExacter is a Target that declares whether it answers exactly as
// ghostcheck's reference model does, byte for byte: LevelAuto then holds
// it to the model (LevelExact). Any other Target is held to what the
// protocol promises a client can see (LevelObservable).
type ModelExacter = driver.ModelExacter

// Funcs adapts plain functions to a Target (a Restarter too when
// RestartFunc is set, and model-exact when Exact is).
type Funcs = driver.Funcs

// ErrNoResponse is what a Target returns (wrapped) when a request may or
// may not have been processed, as with a connection reset after the
// request was written.
var ErrNoResponse = driver.ErrNoResponse

// GroupSnapshot is a consumer group as a Snapshotter shows it.
type GroupSnapshot = rules.GroupSnapshot

// MemberSnapshot is a member of a GroupSnapshot.
type MemberSnapshot = rules.MemberSnapshot

// TopicPartition is a partition of a MemberSnapshot's assignment.
type TopicPartition = rules.TopicPartition

// Config is what a coordinator must be configured with to run a plan:
// the plan's topics, timeouts and limits. A coordinator that makes ids
// (v0 member ids, client instance ids) may seed them with Seed, so that a
// history replays.
type Config struct {
	// Seed is the plan's seed.
	Seed uint64
	// Topics are the topics the coordinator knows.
	Topics []Topic
	// SessionTimeoutMs and HeartbeatIntervalMs are the group's.
	SessionTimeoutMs    int64
	HeartbeatIntervalMs int32
	// MaxGroupSize caps a group's members (0: no cap).
	MaxGroupSize int
	// MaxVersions caps the versions the coordinator offers of some apis
	// (an older broker); the clients negotiate down.
	MaxVersions map[codec.APIKey]int16
	// TelemetryMaxBytes is the telemetry subscription's payload limit (0:
	// the coordinator's default).
	TelemetryMaxBytes int32
	// InitialRebalanceDelayMs is how long a classic group's first join
	// phase waits for more members (group.initial.rebalance.delay.ms),
	// and ClassicMaxGroupSize caps a classic group's members
	// (group.max.size, 0: no cap).
	InitialRebalanceDelayMs int32
	ClassicMaxGroupSize     int
}

// Topic is a topic a coordinator knows: its name, its id (derived from
// the name: the one the plan's clients expect; Reference derives it when
// it is zero) and how many partitions it has.
type Topic struct {
	Name       string
	ID         codec.UUID
	Partitions int32
}

// NewTarget builds a fresh coordinator for a plan, configured by cfg.
type NewTarget func(cfg Config) Target

// Reference is ghostcheck's reference coordinator (the model every check
// is built on), configured by cfg, as a Target: a Snapshotter and a
// Restarter that declares itself model-exact. Wrap it to make a
// coordinator of your own for a test, or to see the checks pass.
func Reference(cfg Config) Target { return targets.NewModelTarget(cfg.modelConfig()) }

// configOf is the configuration a plan's coordinator must have.
func configOf(p plan.Plan) Config {
	mc := p.ModelConfig()
	cfg := Config{Seed: p.Seed, SessionTimeoutMs: p.SessionTimeoutMs, HeartbeatIntervalMs: p.HeartbeatIntervalMs,
		MaxGroupSize: p.MaxGroupSize, TelemetryMaxBytes: p.TelemetryMaxBytes,
		InitialRebalanceDelayMs: mc.InitialRebalanceDelayMs, ClassicMaxGroupSize: mc.ClassicMaxGroupSize}
	for _, t := range mc.Topics {
		cfg.Topics = append(cfg.Topics, Topic{Name: t.Name, ID: t.ID, Partitions: t.Partitions})
	}
	if len(p.MaxVersions) > 0 {
		cfg.MaxVersions = maps.Clone(p.MaxVersions)
	}
	return cfg
}

// modelConfig is the reference model's configuration for cfg, as
// plan.Plan.ModelConfig makes it for the plan cfg came from.
func (cfg Config) modelConfig() model.Config {
	p := plan.Plan{Seed: cfg.Seed, SessionTimeoutMs: cfg.SessionTimeoutMs, HeartbeatIntervalMs: cfg.HeartbeatIntervalMs,
		MaxGroupSize: cfg.MaxGroupSize, MaxVersions: cfg.MaxVersions, TelemetryMaxBytes: cfg.TelemetryMaxBytes}
	mc := p.ModelConfig()
	mc.InitialRebalanceDelayMs, mc.ClassicMaxGroupSize = cfg.InitialRebalanceDelayMs, cfg.ClassicMaxGroupSize
	mc.Topics = nil
	for _, t := range cfg.Topics {
		id := t.ID
		if id.IsZero() {
			id = plan.TopicID(t.Name)
		}
		mc.Topics = append(mc.Topics, model.Topic{Name: t.Name, ID: id, Partitions: t.Partitions})
	}
	return mc
}
