package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/google/uuid"

	"github.com/ghostcheck/ghostcheck/codec"
)

// ClientConfig configures a reference consumer process.
type ClientConfig struct {
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

// ClientState is where a consumer stands in its group.
type ClientState int

const (
	Unjoined ClientState = iota // not a member; the next heartbeat is a join
	Joining                     // a join was sent, its response not yet seen
	Joined                      // a member: it heartbeats at its epoch
	Leaving                     // a leave was sent
	Left                        // left the group (the process may live on)
	Closed                      // the process has ended
)

var clientStateNames = [...]string{"Unjoined", "Joining", "Joined", "Leaving", "Left", "Closed"}

func (s ClientState) String() string {
	if int(s) < len(clientStateNames) {
		return clientStateNames[s]
	}
	return fmt.Sprintf("ClientState(%d)", int(s))
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
//     response arrives (epoch -1, or -2 for a static member).
//
// A v0 client behaves as consumers did before KIP-1082: its member id is ""
// until a join response brings the broker's, and it forgets the id on
// UNKNOWN_MEMBER_ID. A lost join response then leaves a ghost behind.
type Client struct {
	cfg        ClientConfig
	instanceID codec.UUID
	memberID   string

	state ClientState
	epoch int32
	// owned are the partitions the client owns: topics in id order, each
	// topic's partitions sorted, in arrays of the client's own.
	owned    []codec.ConsumerGroupHeartbeatTopicPartitions
	needFull bool // the last heartbeat failed or went unanswered

	hbVersion int16 // negotiated
	lgVersion int16 // highest LeaveGroup version the broker speaks
	maxSeen   map[codec.APIKey]int16
	corr      int32

	clientID string // the ClientId it sends (SetClientID changes it)
	// The subscription: subGen counts changes (Resubscribe); ackedGen is
	// the one a successful response acknowledged, sentGen the one the
	// heartbeat in flight carries (-1: none). A heartbeat carries the
	// subscription until it is acknowledged. clearNames and clearRegex
	// clear the other kind of subscription when it changes kind.
	subGen, ackedGen, sentGen int
	clearNames, clearRegex    bool
	// sentOwned is what the last heartbeat reported as owned (ownedKey,
	// for NullOwnedWhenUnchanged); empty after a join or a failure.
	// nextKey is the buffer the next heartbeat's key is made in: the two
	// swap when the heartbeat reports its owned partitions.
	sentOwned, nextKey []byte
}

// NewClient makes a client process. The client instance id (and, for a
// KIP-1082 client, the member id) is made here, before any connection.
func NewClient(cfg ClientConfig) (*Client, error) {
	if cfg.HeartbeatVersion < 0 || cfg.HeartbeatVersion > 1 {
		return nil, fmt.Errorf("model: HeartbeatVersion %d: want 0 or 1", cfg.HeartbeatVersion)
	}
	if cfg.Rand == nil {
		return nil, errors.New("model: ClientConfig.Rand is required (runs replay from seeds)")
	}
	if cfg.RebalanceTimeoutMs <= 0 {
		cfg.RebalanceTimeoutMs = 300000
	}
	if cfg.Regex != "" && cfg.HeartbeatVersion < 1 {
		return nil, errors.New("model: a regex subscription needs ConsumerGroupHeartbeat v1")
	}
	c := &Client{cfg: cfg, hbVersion: cfg.HeartbeatVersion, lgVersion: maxLeaveGroupVersion,
		clientID: cfg.ClientID, sentGen: -1}
	id, err := newUUID(cfg.Rand)
	if err != nil {
		return nil, err
	}
	c.instanceID = codec.UUID(id)
	if cfg.HeartbeatVersion >= MemberIDRequiredVersion {
		mid, err := newUUID(cfg.Rand)
		if err != nil {
			return nil, err
		}
		c.memberID = mid.String()
	}
	return c, nil
}

// newUUID draws a version-4 UUID with google/uuid, never the zero UUID.
func newUUID(r io.Reader) (uuid.UUID, error) {
	for i := 0; i < 8; i++ {
		u, err := uuid.NewRandomFromReader(r)
		if err != nil {
			return uuid.Nil, fmt.Errorf("model: making a uuid: %w", err)
		}
		if u != uuid.Nil {
			return u, nil
		}
	}
	return uuid.Nil, errors.New("model: the random source keeps yielding the zero UUID")
}

// InstanceID is the client instance id (KIP-1313).
func (c *Client) InstanceID() codec.UUID { return c.instanceID }

// MemberID is the member id the client holds ("" for a v0 client that has
// not learned one).
func (c *Client) MemberID() string { return c.memberID }

// ClientID is the ClientId the client sends now.
func (c *Client) ClientID() string { return c.clientID }

// SetClientID changes the ClientId the client sends from its next request
// on: a KIP-1313 client on its next connection's first request, an
// old-style one (ClientIDEveryRequest) on every request.
func (c *Client) SetClientID(id string) { c.clientID = id }

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
	c.cfg.Topics = append([]string(nil), topics...)
	c.cfg.Regex = regex
	c.subGen++
}

// State, Epoch and Config describe the client.
func (c *Client) State() ClientState   { return c.state }
func (c *Client) Epoch() int32         { return c.epoch }
func (c *Client) Config() ClientConfig { return c.cfg }

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

// ClientConn is the client's side of one connection: it knows whether the
// connection has carried a request yet (KIP-1313: ClientId on the first
// request only). A reset connection is a new ClientConn.
type ClientConn struct {
	sent int
}

// Fresh reports whether no request was built on the connection yet.
func (c *ClientConn) Fresh() bool { return c.sent == 0 }

// Header builds the header of the next request on conn: a fresh
// correlation id, ClientId on the connection's first request only, and the
// client instance id in tag 0 whenever the header is v2.
func (c *Client) Header(conn *ClientConn, key codec.APIKey, version int16) codec.RequestHeader {
	c.corr++
	h := codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: c.corr}
	if conn.sent == 0 || c.cfg.ClientIDEveryRequest {
		h.ClientId = codec.Str(c.clientID)
	}
	conn.sent++
	if hv, err := codec.RequestHeaderVersion(key, version); err == nil && hv >= 2 {
		h.ClientInstanceId = codec.SomeUUID(c.instanceID)
	}
	return h
}

// ApiVersionsRequest is the first request a client sends on a connection.
func (c *Client) ApiVersionsRequest() (*codec.ApiVersionsRequest, int16) {
	return &codec.ApiVersionsRequest{ClientSoftwareName: "ghostcheck-model", ClientSoftwareVersion: "1.0"}, 4
}

// OnApiVersions negotiates: the client uses, per api, the lower of its own
// highest version and the broker's. Each negotiation starts again from the
// client's own highest versions, so a newer broker is spoken to at them.
func (c *Client) OnApiVersions(resp *codec.ApiVersionsResponse) {
	if resp.ErrorCode != codec.None {
		return
	}
	if c.maxSeen == nil {
		c.maxSeen = make(map[codec.APIKey]int16, len(resp.ApiKeys))
	}
	clear(c.maxSeen) // every connection asks: the map is reused
	for _, k := range resp.ApiKeys {
		c.maxSeen[k.ApiKey] = k.MaxVersion
	}
	c.hbVersion, c.lgVersion = c.cfg.HeartbeatVersion, maxLeaveGroupVersion
	if m, ok := c.maxSeen[codec.ConsumerGroupHeartbeat]; ok && m < c.hbVersion {
		c.hbVersion = m
	}
	if m, ok := c.maxSeen[codec.LeaveGroup]; ok && m < c.lgVersion {
		c.lgVersion = m
	}
}

// maxLeaveGroupVersion is the highest LeaveGroup version the client speaks.
const maxLeaveGroupVersion = 5

// BrokerMaxVersion is the broker's highest version of key as last
// negotiated, and whether it advertised key at all.
func (c *Client) BrokerMaxVersion(key codec.APIKey) (int16, bool) {
	v, ok := c.maxSeen[key]
	return v, ok
}

// NextHeartbeat builds the client's next ConsumerGroupHeartbeat: a join
// while not a member (repeating the same member id after a lost response),
// a heartbeat at its epoch otherwise. A member the coordinator keeps at
// epoch 0 (one that took over, or resumed, a parked static member and must
// first revoke what it inherited, docs/PROTOCOL.md A5) sends joins too: a
// request at epoch 0 is a join and must be full (§B3.4, §B4.2). It returns
// the request and its version; the client then awaits OnHeartbeat or
// OnHeartbeatLost.
func (c *Client) NextHeartbeat() (*codec.ConsumerGroupHeartbeatRequest, int16) {
	r := &codec.ConsumerGroupHeartbeatRequest{
		GroupId:            c.cfg.GroupID,
		MemberId:           c.memberID,
		MemberEpoch:        c.epoch,
		RebalanceTimeoutMs: -1,
	}
	if c.cfg.InstanceID != "" {
		r.InstanceId = codec.Str(c.cfg.InstanceID)
	}
	c.sentGen = -1
	switch {
	case c.state == Unjoined || c.state == Joining || c.state == Left || c.state == Joined && c.epoch == 0:
		c.state = Joining
		c.epoch = 0
		r.MemberEpoch = 0
		r.RebalanceTimeoutMs = c.cfg.RebalanceTimeoutMs
		c.subscription(r)
		r.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{}
		c.sentOwned = c.sentOwned[:0]
		if c.cfg.RackID != "" {
			r.RackId = codec.Str(c.cfg.RackID)
		}
		if c.cfg.ServerAssignor != "" {
			r.ServerAssignor = codec.Str(c.cfg.ServerAssignor)
		}
	default:
		owned := c.Owned()
		c.nextKey = appendOwnedKey(c.nextKey[:0], owned)
		if c.needFull || !c.cfg.NullOwnedWhenUnchanged || !bytes.Equal(c.nextKey, c.sentOwned) {
			r.TopicPartitions = owned
			c.sentOwned, c.nextKey = c.nextKey, c.sentOwned
		}
		if c.needFull {
			r.RebalanceTimeoutMs = c.cfg.RebalanceTimeoutMs
		}
		if c.needFull || c.subGen != c.ackedGen {
			c.subscription(r)
		}
	}
	return r, c.hbVersion
}

// subscription puts the client's subscription on r: its topic names, or
// its regex (names then stay null, so a full heartbeat is full by its
// regex alone, A5.7), with the clearing of the other kind while a change
// of kind is unacknowledged.
func (c *Client) subscription(r *codec.ConsumerGroupHeartbeatRequest) {
	if c.cfg.Regex != "" {
		r.SubscribedTopicRegex = codec.Str(c.cfg.Regex)
		if c.clearNames {
			r.SubscribedTopicNames = []string{}
		}
	} else {
		r.SubscribedTopicNames = append([]string{}, c.cfg.Topics...)
		if c.clearRegex {
			r.SubscribedTopicRegex = codec.Str("")
		}
	}
	c.sentGen = c.subGen
}

// appendOwnedKey appends a set of owned partitions (as Owned lists them)
// as comparable bytes, its key: each topic id and its partitions,
// length-prefixed, after a mark that keeps it apart from the empty key
// (nothing sent yet). It is made at every heartbeat, so it is built by
// hand, in a buffer the client reuses, rather than printed.
func appendOwnedKey(b []byte, owned []codec.ConsumerGroupHeartbeatTopicPartitions) []byte {
	b = append(b, 'o')
	for _, t := range owned {
		b = append(b, t.TopicId[:]...)
		b = binary.AppendUvarint(b, uint64(len(t.Partitions)))
		for _, p := range t.Partitions {
			b = binary.BigEndian.AppendUint32(b, uint32(p))
		}
	}
	return b
}

// OnHeartbeat absorbs the response to a join or heartbeat.
func (c *Client) OnHeartbeat(resp *codec.ConsumerGroupHeartbeatResponse) {
	if c.state != Joining && c.state != Joined {
		return // a late response after leave or close changes nothing
	}
	switch resp.ErrorCode {
	case codec.None:
		if c.memberID == "" && resp.MemberId.Valid {
			c.memberID = resp.MemberId.Value // v0: the broker's id
		}
		c.epoch = resp.MemberEpoch
		if resp.Assignment != nil {
			c.owned = nil
			for _, t := range resp.Assignment.TopicPartitions {
				if len(t.Partitions) == 0 {
					continue
				}
				ps := append([]int32(nil), t.Partitions...)
				slices.Sort(ps)
				// A topic listed twice owns its last list.
				if i := slices.IndexFunc(c.owned, func(o codec.ConsumerGroupHeartbeatTopicPartitions) bool { return o.TopicId == t.TopicId }); i >= 0 {
					c.owned[i].Partitions = ps
					continue
				}
				c.owned = append(c.owned, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: t.TopicId, Partitions: ps})
			}
			slices.SortFunc(c.owned, func(a, b codec.ConsumerGroupHeartbeatTopicPartitions) int {
				return bytes.Compare(a.TopicId[:], b.TopicId[:]) // no reflection
			})
		}
		c.state = Joined
		c.needFull = false
		if c.sentGen == c.subGen {
			c.ackedGen = c.subGen
			c.clearNames, c.clearRegex = false, false
		}
	case codec.FencedMemberEpoch, codec.UnknownMemberID:
		// Abandon the partitions and rejoin at epoch 0 with the same id (a
		// v0 client forgets an id the broker no longer knows).
		c.owned = nil
		c.epoch = 0
		c.state = Unjoined
		if resp.ErrorCode == codec.UnknownMemberID && c.cfg.HeartbeatVersion < MemberIDRequiredVersion {
			c.memberID = ""
		}
	default:
		// Retriable or not, the next attempt sends everything again.
		c.needFull = true
		if c.state == Joining {
			c.state = Unjoined
		}
	}
}

// OnHeartbeatLost records that the response to the last join or heartbeat
// never came. A join is retried as a join with the same member id; a
// heartbeat is retried in full at the same epoch.
func (c *Client) OnHeartbeatLost() {
	c.needFull = true
}

// Leave builds the leave heartbeat: epoch -1, or -2 when a static member
// leaves temporarily. It is sent with the client's own member id whatever
// the state, even before a join response (KIP-1082's fix for KAFKA-17116).
// The leave completes on any response or on its loss (OnLeaveDone).
func (c *Client) Leave(temporary bool) (*codec.ConsumerGroupHeartbeatRequest, int16) {
	epoch := LeaveEpoch
	if temporary && c.cfg.InstanceID != "" {
		epoch = StaticLeaveEpoch
	}
	r := &codec.ConsumerGroupHeartbeatRequest{
		GroupId:            c.cfg.GroupID,
		MemberId:           c.memberID,
		MemberEpoch:        epoch,
		RebalanceTimeoutMs: -1,
	}
	if c.cfg.InstanceID != "" {
		r.InstanceId = codec.Str(c.cfg.InstanceID)
	}
	c.state = Leaving
	return r, c.hbVersion
}

// OnLeaveDone completes a leave, whatever became of it: the client is no
// longer a member. It keeps its member id (a KIP-1082 client reuses it if
// it joins again).
func (c *Client) OnLeaveDone() {
	c.state = Left
	c.epoch = 0
	c.owned = nil
	c.needFull = false
}

// Close ends the process. If it is a member (or joining), the caller sends
// the returned leave first; a nil request means nothing needs sending.
func (c *Client) Close() (*codec.ConsumerGroupHeartbeatRequest, int16) {
	var r *codec.ConsumerGroupHeartbeatRequest
	var v int16
	if c.state == Joining || c.state == Joined {
		r, v = c.Leave(c.cfg.InstanceID != "")
	}
	c.state = Closed
	return r, v
}

// Crash ends the process without a leave.
func (c *Client) Crash() { c.state = Closed }

// GetTelemetrySubscriptions builds the client's telemetry subscription
// request at version: at v1 the id travels only in the header; at v0 the
// body carries the client's own id (never zero).
func (c *Client) GetTelemetrySubscriptions(version int16) *codec.GetTelemetrySubscriptionsRequest {
	r := &codec.GetTelemetrySubscriptionsRequest{}
	if version == 0 {
		r.ClientInstanceId = c.instanceID
	}
	return r
}

// PushTelemetry builds a push at version.
func (c *Client) PushTelemetry(version int16, subscriptionID int32, terminating bool, metrics []byte) *codec.PushTelemetryRequest {
	r := &codec.PushTelemetryRequest{SubscriptionId: subscriptionID, Terminating: terminating, Metrics: metrics}
	if version == 0 {
		r.ClientInstanceId = c.instanceID
	}
	return r
}

// LeaveGroupCall is one LeaveGroup request of a removal, with the indexes of
// the members (in the caller's list) it carries.
type LeaveGroupCall struct {
	Version int16
	Request *codec.LeaveGroupRequest
	Members []int
}

// PlanLeaveGroup builds the LeaveGroup requests that remove members, for a
// broker whose highest LeaveGroup version is brokerMax (KIP-345 and
// docs/PROTOCOL.md A3). At v3+ it is one batch at min(brokerMax, 5). Below v3 a
// request names one member id, so it is one request per member with a
// member id; a member named only by instance id cannot be removed and gets
// UNSUPPORTED_VERSION in the returned per-member results (other entries are
// None until the calls are answered).
func PlanLeaveGroup(groupID string, members []codec.LeaveGroupMember, brokerMax int16) ([]LeaveGroupCall, []codec.ErrorCode) {
	results := make([]codec.ErrorCode, len(members))
	v := brokerMax
	if v > 5 {
		v = 5
	}
	if v >= 3 {
		req := &codec.LeaveGroupRequest{GroupId: groupID}
		call := LeaveGroupCall{Version: v, Request: req}
		for i, m := range members {
			if v < 5 {
				m.Reason = codec.Null
			}
			req.Members = append(req.Members, m)
			call.Members = append(call.Members, i)
		}
		return []LeaveGroupCall{call}, results
	}
	var calls []LeaveGroupCall
	for i, m := range members {
		if m.MemberId == "" || m.GroupInstanceId.Valid {
			results[i] = codec.UnsupportedVersion
			continue
		}
		calls = append(calls, LeaveGroupCall{Version: v, Request: &codec.LeaveGroupRequest{GroupId: groupID, MemberId: m.MemberId}, Members: []int{i}})
	}
	return calls, results
}
