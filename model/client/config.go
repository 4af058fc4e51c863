package client

import "io"

// Config configures a reference consumer process.
type Config struct {
	ClientID string
	GroupID  string
	// InstanceID makes the member static (KIP-345); "" for a dynamic one.
	InstanceID string
	Topics     []string
	// HeartbeatVersion is the highest ConsumerGroupHeartbeat version the
	// client speaks. 1 is a KIP-1082 client that makes its own member id; 0
	// is an old client that lets the broker make it.
	HeartbeatVersion   int16
	RebalanceTimeoutMs int32
	// Regex, when set, subscribes by SubscribedTopicRegex instead of
	// Topics (ConsumerGroupHeartbeat v1+ only).
	Regex string
	// ClientIDEveryRequest makes an old-style client, from before
	// KIP-1313: it sends its ClientId on every request, not only on a
	// connection's first.
	ClientIDEveryRequest bool
	// NullOwnedWhenUnchanged sends TopicPartitions null ("unchanged") on a
	// heartbeat whose owned partitions are those the last heartbeat sent,
	// as Java's consumer does; otherwise every heartbeat reports them.
	NullOwnedWhenUnchanged bool
	// RackID and ServerAssignor, when set, go on every join.
	RackID         string
	ServerAssignor string
	// Rand feeds the UUIDs the client makes (client instance id, member id),
	// so that a run replays from its seed. It must not run dry.
	Rand io.Reader
}
