// Package client is ghostcheck's reference consumer: a pure state machine
// that builds the requests a KIP-848 consumer sends (KIP-1082's own member
// id, KIP-1313's client instance id and ClientId, KIP-345's static leave)
// and absorbs the responses, so that a run drives the coordinator under
// test with clients that keep every promise of docs/PROTOCOL.md A1/A2 (or,
// at ConsumerGroupHeartbeat v0, the ones an old client kept). The caller
// moves the bytes and decides which are lost.
//
// Classic (classic.go, the leader's assignment in classic_assign.go, the
// explorer's Clone and AppendState in classic_state.go) is
// the reference classic consumer of docs/PROTOCOL.md A6.6: JoinGroup,
// SyncGroup and Heartbeat as Kafka's Java consumer sends them, KIP-394's
// MEMBER_ID_REQUIRED and KIP-345's static members included. A classic
// process uses a Client too, for its headers, ids and negotiation.
package client

import (
	"errors"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// State is where a consumer stands in its group.
type State int

const (
	Unjoined State = iota // not a member; the next heartbeat is a join
	Joining               // a join was sent, its response not yet seen
	Joined                // a member: it heartbeats at its epoch
	Leaving               // a leave was sent
	Left                  // left the group (the process may live on)
	Closed                // the process has ended
	// Fatal: told FENCED_INSTANCE_ID, the consumer failed (Java's
	// ConsumerHeartbeatRequestManager takes it as fatal): the process
	// sends nothing more, not even a leave, and ends.
	Fatal
)

var clientStateNames = [...]string{"Unjoined", "Joining", "Joined", "Leaving", "Left", "Closed", "Fatal"}

func (s State) String() string {
	if int(s) < len(clientStateNames) {
		return clientStateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Client is the reference consumer of docs/PROTOCOL.md A1/A2. It is a pure state
// machine: it builds requests and absorbs responses; the caller moves the
// bytes (and decides which are lost). Its promises:
//
//   - the client instance id is made in the constructor, before any
//     connection, is never the zero UUID, and rides in tag 0 of every
//     request header v2 (KIP-1313);
//   - a KIP-1082 client (HeartbeatVersion 1) makes its member id in the
//     constructor too and keeps it for the life of the process: across
//     retries, leave and rejoin, fencing and UNKNOWN_MEMBER_ID;
//   - ClientId is sent on the first request of each connection and null
//     after it;
//   - a join whose response was lost is retried with the same member id;
//   - a leave is sent with the client's own id even before the join's
//     response arrives (epoch -1, or -2 for a static member);
//   - a static member told FENCED_INSTANCE_ID (another process holds its
//     instance) stops (Fatal): it never names the instance again.
//
// A v0 client behaves as consumers did before KIP-1082: its member id is ""
// until a join response brings the broker's, and it forgets the id on
// UNKNOWN_MEMBER_ID. A lost join response then leaves a ghost behind.
type Client struct {
	// cfg is shared by the clones of a client (Clone copies the pointer):
	// it changes only in Resubscribe, which makes a copy first.
	cfg *Config
	// ids are shared by the clones too; a change makes a new record
	// (setMemberID, SetClientID), so that the clones keep theirs.
	ids *processIDs

	state    State
	epoch    int32
	needFull bool // the last heartbeat failed or went unanswered
	// owned are the partitions the client owns: topics in id order, each
	// topic's partitions sorted. The list is made anew at each change and
	// never changed once made (OnHeartbeat builds it from nil): clones
	// share it.
	owned []codec.ConsumerGroupHeartbeatTopicPartitions

	hbVersion int16                  // negotiated
	lgVersion int16                  // highest LeaveGroup version the broker speaks
	corr      int32                  // the last correlation id used
	maxSeen   []codec.ApiVersionsKey // the broker's last list (shared by clones: replaced, never changed)

	// The subscription: subGen counts changes (Resubscribe); ackedGen is
	// the one a successful response acknowledged, sentGen the one the
	// heartbeat in flight carries (-1: none). A heartbeat carries the
	// subscription until it is acknowledged. clearNames and clearRegex
	// clear the other kind of subscription when it changes kind.
	subGen, ackedGen, sentGen int32
	clearNames, clearRegex    bool
	// sentOwned is what the last heartbeat reported as owned (ownedKey,
	// for NullOwnedWhenUnchanged); empty after a join or a failure.
	// Replaced when it changes, never written over: clones share it. The
	// fields are in an order that packs them: the explorer (package
	// explore) copies a client at every step it tries.
	sentOwned []byte
}

// processIDs are what a client process is known by. They seldom change,
// and the explorer (package explore) copies a client at every step it
// tries: apart, they are not copied with it.
type processIDs struct {
	instanceID codec.UUID
	memberID   string
	clientID   string // the ClientId it sends (SetClientID changes it)
}

// setMemberID replaces the member id.
func (c *Client) setMemberID(id string) {
	if id != c.ids.memberID {
		ids := *c.ids
		ids.memberID = id
		c.ids = &ids
	}
}

// New makes a client process. The client instance id (and, for a
// KIP-1082 client, the member id) is made here, before any connection.
func New(cfg Config) (*Client, error) {
	if cfg.HeartbeatVersion < 0 || cfg.HeartbeatVersion > 1 {
		return nil, fmt.Errorf("client: HeartbeatVersion %d: want 0 or 1", cfg.HeartbeatVersion)
	}
	if cfg.Rand == nil {
		return nil, errors.New("client: Config.Rand is required (runs replay from seeds)")
	}
	if cfg.RebalanceTimeoutMs <= 0 {
		cfg.RebalanceTimeoutMs = 300000
	}
	if cfg.Regex != "" && cfg.HeartbeatVersion < 1 {
		return nil, errors.New("client: a regex subscription needs ConsumerGroupHeartbeat v1")
	}
	// The client and its configuration in one allocation (the explorer,
	// package explore, starts a process at many of the steps it tries).
	made := &struct {
		client Client
		cfg    Config
		ids    processIDs
	}{cfg: cfg, ids: processIDs{clientID: cfg.ClientID}}
	c := &made.client
	*c = Client{cfg: &made.cfg, ids: &made.ids, hbVersion: cfg.HeartbeatVersion, lgVersion: maxLeaveGroupVersion,
		sentGen: -1}
	id, err := newUUID(cfg.Rand)
	if err != nil {
		return nil, err
	}
	made.ids.instanceID = codec.UUID(id)
	if cfg.HeartbeatVersion >= rules.MemberIDRequiredVersion {
		mid, err := newUUID(cfg.Rand)
		if err != nil {
			return nil, err
		}
		made.ids.memberID = mid.String()
	}
	return c, nil
}

// newUUID draws a version-4 UUID with google/uuid, never the zero UUID.
func newUUID(r io.Reader) (uuid.UUID, error) {
	for i := 0; i < 8; i++ {
		u, err := uuid.NewRandomFromReader(r)
		if err != nil {
			return uuid.Nil, fmt.Errorf("client: making a uuid: %w", err)
		}
		if u != uuid.Nil {
			return u, nil
		}
	}
	return uuid.Nil, errors.New("client: the random source keeps yielding the zero UUID")
}

// InstanceID is the client instance id (KIP-1313).
func (c *Client) InstanceID() codec.UUID { return c.ids.instanceID }

// MemberID is the member id the client holds ("" for a v0 client that has
// not learned one).
func (c *Client) MemberID() string { return c.ids.memberID }

// ClientID is the ClientId the client sends now.
func (c *Client) ClientID() string { return c.ids.clientID }

// SetClientID changes the ClientId the client sends from its next request
// on: a KIP-1313 client on its next connection's first request, an
// old-style one (ClientIDEveryRequest) on every request.
func (c *Client) SetClientID(id string) {
	ids := *c.ids
	ids.clientID = id
	c.ids = &ids
}

// Resubscribe changes the subscription: to topic names, or (regex != "",
// v1 only) to a regular expression. The next heartbeats carry it until a
// response acknowledges it; a change of kind clears the other kind
// (SubscribedTopicNames [] or SubscribedTopicRegex ""), as Java's consumer
// does.
func (c *Client) Resubscribe(topics []string, regex string) {
	switch {
	case regex != "" && c.cfg.Regex == "":
		c.clearNames, c.clearRegex = true, false
	case regex == "" && c.cfg.Regex != "":
		c.clearNames, c.clearRegex = false, true
	}
	cfg := *c.cfg // the clones this one was made from keep theirs
	cfg.Topics = append([]string(nil), topics...)
	cfg.Regex = regex
	c.cfg = &cfg
	c.subGen++
}

// State, Epoch and Config describe the client.
func (c *Client) State() State   { return c.state }
func (c *Client) Epoch() int32   { return c.epoch }
func (c *Client) Config() Config { return *c.cfg }

// HeartbeatVersion is the ConsumerGroupHeartbeat version the client uses
// after negotiation.
func (c *Client) HeartbeatVersion() int16 { return c.hbVersion }

// Owned returns the partitions the client owns, topics in id order.
func (c *Client) Owned() []codec.ConsumerGroupHeartbeatTopicPartitions {
	// A copy at every heartbeat: the topics' lists share one array, each
	// capped at its end.
	n := 0
	for _, t := range c.owned {
		n += len(t.Partitions)
	}
	parts := make([]int32, 0, n)
	out := make([]codec.ConsumerGroupHeartbeatTopicPartitions, 0, len(c.owned))
	for _, t := range c.owned {
		from := len(parts)
		parts = append(parts, t.Partitions...)
		out = append(out, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: t.TopicId, Partitions: parts[from:len(parts):len(parts)]})
	}
	return out
}
