package model

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Conn identifies the connection a request arrived on. The coordinator keeps
// per-connection context for KIP-1313: the ClientId of the connection's
// first request.
type Conn struct {
	ID uint64
	// Host is what ConsumerGroupDescribe shows as ClientHost, e.g.
	// "/127.0.0.1".
	Host string
}

// ErrUnsupportedRequest is returned by Handle for a request the coordinator
// does not serve (an api key it does not implement, or a version above what
// it advertises). A Kafka broker closes the connection then, without a
// response; a transport should do the same.
var ErrUnsupportedRequest = errors.New("model: unsupported api key or version")

// Coordinator is the reference group coordinator. It is not safe for
// concurrent use: it is a sequential specification.
type Coordinator struct {
	cfg    Config
	topics []Topic // in name order
	// firstOfName[i] is the index of the first topic named as topics[i]
	// (i itself, unless a name is listed twice): a tp's topic.
	firstOfName []int32
	apis        []codec.ApiVersionsKey // what ApiVersions advertises (see advertised)
	now         int64
	groups      map[string]*group
	// conns holds the ClientId of each connection's first request.
	conns map[uint64]string
	// telemetry state per client instance id
	telemetry map[codec.UUID]*telemetryClient
}

// NewCoordinator returns a coordinator at logical time 0.
func NewCoordinator(cfg Config) *Coordinator {
	if cfg.NewID == nil {
		cfg.NewID = SeededIDs(0)
	}
	topics := sortedTopics(cfg.Topics)
	return &Coordinator{
		cfg:         cfg,
		topics:      topics,
		firstOfName: firstOfName(topics),
		groups:      map[string]*group{},
		conns:       map[uint64]string{},
		telemetry:   map[codec.UUID]*telemetryClient{},
	}
}

// Now is the coordinator's logical time in milliseconds.
func (c *Coordinator) Now() int64 { return c.now }

// Config returns the configuration the coordinator runs with.
func (c *Coordinator) Config() Config { return c.cfg }

// Handle serves one request that arrived on conn and returns its response
// body, to be encoded at the request's version. It returns
// ErrUnsupportedRequest, and changes nothing, for a request the coordinator
// does not serve.
func (c *Coordinator) Handle(conn Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	if req == nil || req.IsResponse() || req.Key() != h.RequestApiKey {
		return nil, fmt.Errorf("model: request body does not match header %v", h.RequestApiKey)
	}
	if !c.serves(h.RequestApiKey, h.RequestApiVersion) {
		c.hit("B1.1/unsupported-request")
		return nil, ErrUnsupportedRequest
	}
	clientID := c.connContext(conn, h)
	switch r := req.(type) {
	case *codec.ApiVersionsRequest:
		return c.apiVersions(h.RequestApiVersion, r), nil
	case *codec.ConsumerGroupHeartbeatRequest:
		return c.heartbeat(conn, clientID, h.RequestApiVersion, r), nil
	case *codec.ConsumerGroupDescribeRequest:
		return c.describe(h.RequestApiVersion, r), nil
	case *codec.LeaveGroupRequest:
		return c.leaveGroup(h.RequestApiVersion, r), nil
	case *codec.GetTelemetrySubscriptionsRequest:
		return c.getTelemetrySubscriptions(h, r), nil
	case *codec.PushTelemetryRequest:
		return c.pushTelemetry(h, r), nil
	}
	return nil, ErrUnsupportedRequest
}

// connContext records the KIP-1313 per-connection context and returns the
// ClientId the request is attributed to (docs/PROTOCOL.md A2): the broker
// remembers the ClientId of a connection's first request (null reads as "")
// and uses it for every later request whose ClientId is null. A later
// request that does send a ClientId is attributed to its own, and the
// connection keeps remembering its first.
func (c *Coordinator) connContext(conn Conn, h *codec.RequestHeader) string {
	first, seen := c.conns[conn.ID]
	if !seen {
		c.hit("A2/first-clientid-remembered")
		first = h.ClientId.Value
		c.conns[conn.ID] = first
	}
	if h.ClientId.Valid {
		if seen {
			c.hit("A2/later-clientid-own")
		}
		return h.ClientId.Value
	}
	if seen {
		c.hit("A2/null-clientid-attributed-first")
	}
	return first
}

// ConnClientID returns the ClientId the coordinator attributes to conn, and
// whether the connection has sent a request.
func (c *Coordinator) ConnClientID(conn uint64) (string, bool) {
	id, ok := c.conns[conn]
	return id, ok
}

// Disconnect forgets a connection's context. A new connection with the same
// id starts afresh.
func (c *Coordinator) Disconnect(conn uint64) {
	if _, ok := c.conns[conn]; ok {
		c.hit("A2/disconnect-forgets")
	}
	delete(c.conns, conn)
}

// Restart is a restart (or failover) of the broker hosting the coordinator,
// at the current time; call Advance first, so that the timers due by then
// have fired. What the coordinator persists survives: groups, epochs,
// targets, members with their subscriptions, epochs, assignments and
// pending revocations (Kafka writes them to __consumer_offsets and replays
// them on load). What lives only in memory is lost: every connection's
// KIP-1313 context (clients reconnect, and their next first request
// carries ClientId again) and the telemetry client state. Timers are not
// persisted either: as Kafka's coordinator does when it loads a group,
// every member's session timer starts afresh (a full session timeout from
// now, parked static members included), and a member waiting for
// revocations (UNREVOKED_PARTITIONS) gets a fresh rebalance timeout.
func (c *Coordinator) Restart() {
	clear(c.conns)
	clear(c.telemetry)
	c.hit("B4.4/restart-restarts-timers")
	for _, g := range c.groups {
		for _, m := range g.members {
			m.sessionDeadline = c.now + c.cfg.SessionTimeoutMs
			if m.state == stateUnrevokedPartitions {
				m.rebalanceDeadline = c.now + max(int64(m.rebalanceTimeoutMs), 0)
			}
		}
	}
}

// Advance moves logical time forward to t (never backward) and fires, in
// order of deadline, every session and rebalance timeout due at or before
// t. Each fires at its own deadline: time is set to the deadline first.
func (c *Coordinator) Advance(t int64) {
	for {
		g, m, kind, at, ok := c.nextTimer(t)
		if !ok {
			break
		}
		c.now = at
		switch kind {
		case timerSession:
			if m.epoch == rules.StaticLeaveEpoch {
				c.hit("B4.4/parked-session-timeout")
			} else {
				c.hit("B4.4/session-timeout")
			}
			c.removeMember(g, m)
		case timerRebalance:
			m.rebalanceDeadline = noDeadline
			if len(m.pending) > 0 {
				c.hit("A5.6/rebalance-timeout-removes")
				c.removeMember(g, m)
			}
		}
	}
	if t > c.now {
		c.now = t
	}
}

// NextDeadline is the time of the earliest timer set (a session or
// rebalance timeout), which Advance fires when it reaches it; ok is false
// when no timer is set. It may be now: a timeout of zero fires at the next
// Advance. The explorer (package explore) moves time from deadline to
// deadline.
func (c *Coordinator) NextDeadline() (at int64, ok bool) {
	_, _, _, at, ok = c.nextTimer(1<<63 - 1)
	return at, ok
}

// Timers calls f for every member's timers, groups in id order and members
// in id order: its session deadline and its rebalance deadline, -1 for
// one not set. What Snapshot does not show of a member but decides its
// future: the explorer (package explore) holds impl's to them
// (impl.Coordinator.Timers).
func (c *Coordinator) Timers(f func(group, member string, session, rebalance int64)) {
	for _, id := range slices.Sorted(maps.Keys(c.groups)) {
		for _, m := range c.groups[id].members {
			f(id, m.id, m.sessionDeadline, m.rebalanceDeadline)
		}
	}
}

type timerKind int

const (
	timerSession timerKind = iota
	timerRebalance
)

const noDeadline = int64(-1)

// nextTimer finds the earliest due timer. Ties break by group id, then
// member id, then session before rebalance, so every implementation fires
// them in the same order.
func (c *Coordinator) nextTimer(limit int64) (*group, *member, timerKind, int64, bool) {
	var (
		bg   *group
		bm   *member
		bk   timerKind
		best int64
		ok   bool
	)
	consider := func(g *group, m *member, k timerKind, at int64) {
		if at == noDeadline || at > limit {
			return
		}
		if !ok || at < best || (at == best && (g.id < bg.id || (g.id == bg.id && (m.id < bm.id || (m.id == bm.id && k < bk))))) {
			bg, bm, bk, best, ok = g, m, k, at, true
		}
	}
	for _, g := range c.groups {
		for _, m := range g.members {
			consider(g, m, timerSession, m.sessionDeadline)
			consider(g, m, timerRebalance, m.rebalanceDeadline)
		}
	}
	return bg, bm, bk, best, ok
}

// serves reports whether the coordinator implements key at version and
// advertises it.
func (c *Coordinator) serves(key codec.APIKey, version int16) bool {
	for _, a := range c.advertised() {
		if a.ApiKey == key {
			return version >= a.MinVersion && version <= a.MaxVersion
		}
	}
	return false
}

// advertised is the ApiVersions list: every api the model implements, in
// key order, capped by Config.MaxVersions. It is computed once; callers
// copy it before handing it out.
func (c *Coordinator) advertised() []codec.ApiVersionsKey {
	if c.apis == nil {
		c.apis = AdvertisedVersions(c.cfg.MaxVersions)
	}
	return c.apis
}

// AdvertisedVersions is what a coordinator implementing the model's scope
// advertises, capped by maxVersions.
func AdvertisedVersions(maxVersions map[codec.APIKey]int16) []codec.ApiVersionsKey {
	var out []codec.ApiVersionsKey
	for _, a := range codec.APIs() {
		k := codec.ApiVersionsKey{ApiKey: a.Key, MinVersion: a.MinVersion, MaxVersion: a.MaxVersion}
		if m, ok := maxVersions[a.Key]; ok && m < k.MaxVersion {
			k.MaxVersion = m
		}
		if k.MaxVersion < k.MinVersion {
			continue
		}
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b codec.ApiVersionsKey) int { return cmp.Compare(a.ApiKey, b.ApiKey) })
	return out
}
