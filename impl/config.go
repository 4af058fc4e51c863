package impl

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Topic is one topic the coordinator's assignor serves. Names must be
// unique, and Partitions must not be negative.
type Topic struct {
	Name       string
	ID         codec.UUID
	Partitions int32
}

// TelemetryConfig is the client-metrics subscription the coordinator hands
// out (KIP-714). One subscription serves every client.
type TelemetryConfig struct {
	SubscriptionID           int32
	PushIntervalMs           int32
	TelemetryMaxBytes        int32
	AcceptedCompressionTypes []int8
	DeltaTemporality         bool
	RequestedMetrics         []string
}

// Config configures a coordinator. It mirrors model.Config field for field,
// plus the clock and the mutants.
type Config struct {
	// Topics are the topics that exist; subscriptions to other names are
	// kept but assign nothing.
	Topics []Topic
	// SessionTimeoutMs is group.consumer.session.timeout.ms.
	SessionTimeoutMs int64
	// HeartbeatIntervalMs is group.consumer.heartbeat.interval.ms.
	HeartbeatIntervalMs int32
	// MaxGroupSize is group.consumer.max.size; 0 means no limit.
	MaxGroupSize int
	// The classic groups' settings, as model.Config's:
	// group.min.session.timeout.ms, group.max.session.timeout.ms,
	// group.initial.rebalance.delay.ms, group.max.size (0: no limit) and
	// the new-member join timeout (5 minutes in Kafka).
	ClassicMinSessionTimeoutMs int32
	ClassicMaxSessionTimeoutMs int32
	InitialRebalanceDelayMs    int32
	ClassicMaxGroupSize        int
	NewMemberJoinTimeoutMs     int32
	// MigrationPolicy is group.consumer.migration.policy (docs/PROTOCOL.md
	// A7): whether a group may hold members of both protocols and convert
	// between them. The zero value, MigrationOutside, keeps mixed groups
	// outside, as model.Config's.
	MigrationPolicy MigrationPolicy
	// Telemetry is the metrics subscription; PushIntervalMs 0 disables
	// throttling.
	Telemetry TelemetryConfig
	// MaxVersions caps the advertised (and accepted) version of an api.
	MaxVersions map[codec.APIKey]int16
	// MinVersions raises the lowest advertised (and accepted) version of
	// an api, as a release that removed old versions does (JoinGroup v2+
	// in Kafka 4.0.0). Not in model.Config: only `serve --kafka-version`
	// sets it.
	MinVersions map[codec.APIKey]int16
	// Unserved are apis advertised but answered UNSUPPORTED_VERSION, every
	// request of them (a Kafka 3.7-3.9 broker's ConsumerGroupHeartbeat and
	// ConsumerGroupDescribe: the consumer protocol is off by default). Not
	// in model.Config: only `serve --kafka-version` sets it.
	Unserved map[codec.APIKey]bool
	// NewID makes the ids the coordinator generates (v0 member ids,
	// telemetry client instance ids). It is called under a lock, so it need
	// not be safe for concurrent use; it must never return the zero UUID.
	// nil uses random version-4 UUIDs.
	NewID func() codec.UUID
	// Clock is the coordinator's time in milliseconds; nil is RealClock.
	Clock Clock
	// Mutants are deliberately wrong behaviours for testing checkers; zero
	// (none) in every normal use.
	Mutants Mutants
}

// MigrationPolicy is group.consumer.migration.policy, with the values
// and meaning of model.MigrationPolicy (the same numbers, so that one
// converts to the other).
type MigrationPolicy uint8

// The policies: ghostcheck's MigrationOutside (mixed groups refused, as
// A6.5 says), then Kafka's DISABLED, UPGRADE, DOWNGRADE and BIDIRECTIONAL.
const (
	MigrationOutside MigrationPolicy = iota
	MigrationDisabled
	MigrationUpgrade
	MigrationDowngrade
	MigrationBidirectional
)

// mixed reports whether classic members may join consumer groups.
func (p MigrationPolicy) mixed() bool { return p != MigrationOutside }

// upgrades reports whether a classic group may become a consumer group.
func (p MigrationPolicy) upgrades() bool { return p == MigrationUpgrade || p == MigrationBidirectional }

// downgrades reports whether a consumer group may become a classic group.
func (p MigrationPolicy) downgrades() bool {
	return p == MigrationDowngrade || p == MigrationBidirectional
}

// UniformAssignor is the name of the only server assignor.
const UniformAssignor = "uniform"

// MemberIDRequiredVersion is the ConsumerGroupHeartbeat version from which
// the client must send its own member id on every request (KIP-1082).
const MemberIDRequiredVersion = 1

// Clock tells the coordinator's time in milliseconds. It must never go
// back: session deadlines rely on it (see the package doc).
type Clock interface {
	Now() int64
}

// ManualClock is a clock that moves only when told to; tests drive it.
// It is safe for concurrent use.
type ManualClock struct{ now atomic.Int64 }

// NewManualClock returns a manual clock at start.
func NewManualClock(start int64) *ManualClock {
	c := &ManualClock{}
	c.now.Store(start)
	return c
}

// Now implements Clock.
func (c *ManualClock) Now() int64 { return c.now.Load() }

// Set moves the clock to t. A t before the current time is ignored: the
// clock never goes back.
func (c *ManualClock) Set(t int64) {
	for {
		cur := c.now.Load()
		if t <= cur || c.now.CompareAndSwap(cur, t) {
			return
		}
	}
}

// Advance moves the clock forward by d milliseconds (d < 0 is ignored).
func (c *ManualClock) Advance(d int64) {
	if d > 0 {
		c.now.Add(d)
	}
}

// RealClock is wall-clock time: milliseconds since the Unix epoch, made
// monotonic by measuring elapsed time on Go's monotonic clock from the
// moment the program started.
var RealClock Clock = realClock{}

type realClock struct{}

var (
	realStart     = time.Now()
	realStartUnix = realStart.UnixMilli()
)

func (realClock) Now() int64 { return realStartUnix + time.Since(realStart).Milliseconds() }

// idSource serializes calls to the configured NewID.
type idSource struct {
	mu  sync.Mutex
	new func() codec.UUID
}

func (s *idSource) next() codec.UUID {
	s.mu.Lock()
	u := s.new()
	s.mu.Unlock()
	return u
}
