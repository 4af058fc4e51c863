package model

import (
	"encoding/binary"
	"math/rand/v2"
	"sort"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Topic is one topic the coordinator's assignor serves.
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

// Config configures a coordinator. The zero value is not useful; start from
// DefaultConfig.
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
	// Telemetry is the metrics subscription; PushIntervalMs 0 disables
	// throttling.
	Telemetry TelemetryConfig
	// MaxVersions caps the advertised (and accepted) version of an api, to
	// play an older broker, e.g. {codec.LeaveGroup: 2}.
	MaxVersions map[codec.APIKey]int16
	// NewID makes the ids the coordinator itself generates: member ids for
	// v0 joins with an empty MemberId, telemetry client instance ids. It
	// must never return the zero UUID. Two coordinators given sources that
	// return the same sequence behave identically.
	NewID func() codec.UUID
}

// UniformAssignor is the name of the only server assignor.
const UniformAssignor = "uniform"

// MemberIDRequiredVersion is the ConsumerGroupHeartbeat version from which
// the client must send its own member id on every request (KIP-1082).
const MemberIDRequiredVersion = 1

// DefaultConfig returns Kafka's defaults (45 s sessions, 5 s heartbeats),
// three topics, an unlimited group size, and a deterministic id source
// seeded with seed.
func DefaultConfig(seed uint64) Config {
	return Config{
		Topics: []Topic{
			{Name: "alpha", ID: TopicIDFor("alpha"), Partitions: 6},
			{Name: "beta", ID: TopicIDFor("beta"), Partitions: 3},
			{Name: "gamma", ID: TopicIDFor("gamma"), Partitions: 1},
		},
		SessionTimeoutMs:    45000,
		HeartbeatIntervalMs: 5000,
		Telemetry: TelemetryConfig{
			SubscriptionID:           1,
			PushIntervalMs:           30000,
			TelemetryMaxBytes:        1 << 20,
			AcceptedCompressionTypes: []int8{0},
			DeltaTemporality:         true,
			RequestedMetrics:         []string{""},
		},
		NewID: SeededIDs(seed),
	}
}

// TopicIDFor derives a stable, non-zero topic id from a name, so configs
// written in tests and on the command line agree without storing ids.
func TopicIDFor(name string) codec.UUID {
	var h uint64 = 1469598103934665603
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	r := rand.New(rand.NewPCG(h, 0x746f706963))
	return randomUUID(r)
}

// SeededIDs returns a deterministic id source: version-4 UUIDs drawn from a
// PCG generator seeded with seed. Like Kafka's Uuid.randomUuid it never
// returns the zero UUID or Uuid.ONE, nor one whose Kafka string form starts
// with '-'.
func SeededIDs(seed uint64) func() codec.UUID {
	r := rand.New(rand.NewPCG(seed, 0x6964736f75726365))
	return func() codec.UUID { return randomUUID(r) }
}

func randomUUID(r *rand.Rand) codec.UUID {
	for {
		var u codec.UUID
		binary.BigEndian.PutUint64(u[:8], r.Uint64())
		binary.BigEndian.PutUint64(u[8:], r.Uint64())
		u[6] = u[6]&0x0f | 0x40 // version 4
		u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
		if !u.IsZero() && u != oneUUID && u.String()[0] != '-' {
			return u
		}
	}
}

// oneUUID is Kafka's reserved Uuid.ONE_UUID (0, 1).
var oneUUID = codec.UUID{15: 1}

// IsReservedUUID reports whether u is one of Kafka's reserved ids (zero or
// one), which are never valid client instance ids.
func IsReservedUUID(u codec.UUID) bool { return u.IsZero() || u == oneUUID }

// sortedTopics returns the topics in name order (the assignor's order).
func sortedTopics(ts []Topic) []Topic {
	out := append([]Topic(nil), ts...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
