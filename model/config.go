package model

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"

	"github.com/google/uuid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
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

	// The classic groups' settings (docs/PROTOCOL.md B8.4, B8.7, B8.10,
	// B8.11), Kafka's defaults in DefaultConfig:
	// ClassicMinSessionTimeoutMs and ClassicMaxSessionTimeoutMs are
	// group.min.session.timeout.ms and group.max.session.timeout.ms (a
	// JoinGroup's session timeout outside them is refused);
	// InitialRebalanceDelayMs is group.initial.rebalance.delay.ms;
	// ClassicMaxGroupSize is group.max.size (0: no limit);
	// NewMemberJoinTimeoutMs is the new-member join timeout, a constant in
	// Kafka (5 minutes), a setting here only so that a test or plan can
	// reach it.
	ClassicMinSessionTimeoutMs int32
	ClassicMaxSessionTimeoutMs int32
	InitialRebalanceDelayMs    int32
	ClassicMaxGroupSize        int
	NewMemberJoinTimeoutMs     int32
	// MigrationPolicy is group.consumer.migration.policy: whether a group
	// may hold members of both protocols and convert between them
	// (docs/PROTOCOL.md A7). Its zero value, MigrationOutside, keeps mixed
	// groups outside the model as A6.5 states (Kafka's default is
	// MigrationBidirectional, which the upgrade and rollback plans set).
	MigrationPolicy MigrationPolicy
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
	// Clauses, when set, counts every clause of docs/PROTOCOL.md the
	// coordinator applies (clauses.go): what `ghostcheck run --coverage`
	// reports. nil counts nothing.
	Clauses ClauseCounter
}

// MigrationPolicy is group.consumer.migration.policy (docs/PROTOCOL.md
// A7.5), plus ghostcheck's MigrationOutside.
type MigrationPolicy uint8

const (
	// MigrationOutside: a JoinGroup to a consumer group with members and a
	// ConsumerGroupHeartbeat join to a classic group with members are
	// outside the model, which closes the connection (A6.4, A6.5).
	MigrationOutside MigrationPolicy = iota
	// MigrationDisabled, MigrationUpgrade, MigrationDowngrade and
	// MigrationBidirectional are Kafka's DISABLED, UPGRADE, DOWNGRADE and
	// BIDIRECTIONAL: classic members join consumer groups under all four
	// (A7.1); the upgrade (A7.4) needs UPGRADE or BIDIRECTIONAL, the
	// downgrade (A7.5) DOWNGRADE or BIDIRECTIONAL.
	MigrationDisabled
	MigrationUpgrade
	MigrationDowngrade
	MigrationBidirectional
)

// String is Kafka's name of the policy ("outside" for MigrationOutside).
func (p MigrationPolicy) String() string {
	switch p {
	case MigrationDisabled:
		return "disabled"
	case MigrationUpgrade:
		return "upgrade"
	case MigrationDowngrade:
		return "downgrade"
	case MigrationBidirectional:
		return "bidirectional"
	}
	return "outside"
}

// mixed reports whether classic members may join consumer groups.
func (p MigrationPolicy) mixed() bool { return p != MigrationOutside }

// upgrades reports whether a classic group may convert to a consumer group.
func (p MigrationPolicy) upgrades() bool {
	return p == MigrationUpgrade || p == MigrationBidirectional
}

// downgrades reports whether a consumer group may convert to a classic
// group.
func (p MigrationPolicy) downgrades() bool {
	return p == MigrationDowngrade || p == MigrationBidirectional
}

// uniformAssignor is the name of the only server assignor.
const uniformAssignor = "uniform"

// DefaultConfig returns Kafka's defaults (45 s sessions, 5 s heartbeats;
// for classic groups session timeouts of 6 s to 30 min, a 3 s initial
// rebalance delay and 5 min for a new member to join), three topics,
// unlimited group sizes, and a deterministic id source seeded with seed.
func DefaultConfig(seed uint64) Config {
	return Config{
		Topics: []Topic{
			{Name: "alpha", ID: TopicIDFor("alpha"), Partitions: 6},
			{Name: "beta", ID: TopicIDFor("beta"), Partitions: 3},
			{Name: "gamma", ID: TopicIDFor("gamma"), Partitions: 1},
		},
		SessionTimeoutMs:    45000,
		HeartbeatIntervalMs: 5000,

		ClassicMinSessionTimeoutMs: 6000,
		ClassicMaxSessionTimeoutMs: 1800000,
		InitialRebalanceDelayMs:    3000,
		NewMemberJoinTimeoutMs:     300000,
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
	u, _ := RandomUUID(&pcgReader{pcg: rand.NewPCG(h, 0x746f706963)}) // a pcgReader never fails
	return u
}

// SeededIDs returns a deterministic id source: RandomUUID's ids drawn from
// a PCG generator seeded with seed. Two sources from the same seed return
// the same sequence, which is what lets model and impl be compared byte for
// byte.
func SeededIDs(seed uint64) func() codec.UUID {
	r := &pcgReader{pcg: rand.NewPCG(seed, 0x6964736f75726365)}
	return func() codec.UUID {
		u, _ := RandomUUID(r) // a pcgReader never fails
		return u
	}
}

// RandomUUID draws an id from r as Kafka's Uuid.randomUuid does: a
// version-4 UUID (google/uuid) that is neither the zero UUID nor Uuid.ONE
// (no version-4 UUID is) and whose Kafka string form does not start with
// '-', which a command line would take for a flag. It fails only when r
// does. It is the one generator of coordinator-made ids: the model's, the
// command's (topic ids) and, mirrored because impl may not import model,
// impl's default (impl's tests hold the two to the same output).
func RandomUUID(r io.Reader) (codec.UUID, error) {
	for {
		u, err := uuid.NewRandomFromReader(r)
		if err != nil {
			return codec.UUID{}, fmt.Errorf("model: drawing a uuid: %w", err)
		}
		if id := codec.UUID(u); !rules.IsReservedUUID(id) && id.String()[0] != '-' {
			return id, nil
		}
	}
}

// pcgReader reads a PCG generator as bytes, each 64-bit output big-endian,
// so that ids drawn through it are the ones the generator always gave.
type pcgReader struct {
	pcg  *rand.PCG
	buf  [8]byte
	left []byte // the unread tail of buf
}

func (r *pcgReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.left) == 0 {
			binary.BigEndian.PutUint64(r.buf[:], r.pcg.Uint64())
			r.left = r.buf[:]
		}
		c := copy(p[n:], r.left)
		r.left = r.left[c:]
		n += c
	}
	return n, nil
}

// sortedTopics returns the topics in name order (the assignor's order).
func sortedTopics(ts []Topic) []Topic {
	out := append([]Topic(nil), ts...)
	// Every coordinator sorts its topics, and they are mostly given in
	// order: names strictly increasing have one order, which no sort
	// would change.
	for i := 1; i < len(out); i++ {
		if out[i-1].Name >= out[i].Name {
			sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
			break
		}
	}
	return out
}
