package model

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Conn identifies the connection a request arrived on. The coordinator keeps
// per-connection context for KIP-1313: the ClientId of the connection's
// first request; and holds a connection's requests behind one it holds
// (parked.go).
type Conn struct {
	ID uint64
	// Host is what ConsumerGroupDescribe and DescribeGroups show as
	// ClientHost, e.g. "/127.0.0.1".
	Host string
	// Delivery is the caller's number for this request, unique in a run:
	// a held request's answer comes back through Released under it.
	Delivery uint64
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
	served      *[128]versionRange     // apis by key, for serves; shared by clones
	now         int64
	groups      map[string]*group
	// classic are the classic groups (classic_group.go); a group id is in
	// groups or in classic, never both. It and holds are made at their
	// first entry: most coordinators (a clone per step of a check) have
	// none.
	classic map[string]*classicGroup
	// holds are the connections with a held request (parked.go); released
	// the answers given to held requests since Released last ran; resume
	// the connections whose held request was answered, whose requests
	// behind it are served next.
	holds    map[uint64]*connHold
	released []Release
	resume   []uint64
	// self is the held record of the request being served, while it
	// waits: its answer, if it comes within its own step, is selfAnswer;
	// selfDropped, if it is dropped.
	self        *parked
	selfAnswer  codec.Message
	selfDropped bool
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
	c := &Coordinator{
		cfg:         cfg,
		topics:      topics,
		firstOfName: firstOfName(topics),
		groups:      map[string]*group{},
		conns:       map[uint64]string{},
		telemetry:   map[codec.UUID]*telemetryClient{},
	}
	// The versions are a function of the configuration: computed here,
	// they are shared by every clone (a clone of a coordinator that has
	// served nothing yet would otherwise compute its own).
	c.advertised()
	return c
}

// Now is the coordinator's logical time in milliseconds.
func (c *Coordinator) Now() int64 { return c.now }

// Config returns the configuration the coordinator runs with.
func (c *Coordinator) Config() Config { return c.cfg }

// Handle serves one request that arrived on conn and returns its response
// body, to be encoded at the request's version. It returns
// ErrUnsupportedRequest, and changes nothing, for a request the coordinator
// does not serve, and ErrParked for a request it holds: a classic JoinGroup
// or SyncGroup that must wait, or any request behind a held one on its
// connection (parked.go). The answers to held requests come through
// Released.
func (c *Coordinator) Handle(conn Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	return c.handle(conn, h, req, nil)
}

// DescribeInto answers a ConsumerGroupDescribe or DescribeGroups request
// as Handle does (the same answer, encoded at any version; the same
// effects on the connection's context, the same clauses counted, the same
// errors), but writes the answer into resp: a
// *codec.ConsumerGroupDescribeResponse or *codec.DescribeGroupsResponse,
// the one that matches the request. resp's earlier contents are
// overwritten, and its lists (groups, members, their assignments, topics,
// partitions, subscriptions and bytes) reused where they are long enough:
// a caller that describes at every step (the explorer, package explore)
// answers again into the same response without allocating. An empty list
// may then be empty where Handle's answer has nil; both encode alike.
//
// resp must be one DescribeInto or Handle filled, or one decoded
// (without codec.DecodeOptions.NoCopy), or new: none of its lists may
// share memory with another, nor with anything its caller still uses.
// Another request, or a response of another kind or nil, is an error,
// and changes nothing. A request held behind a held one (ErrParked)
// leaves resp as it was: the coordinator keeps req, and its answer comes,
// as Handle's would, in a new response through Released.
func (c *Coordinator) DescribeInto(conn Conn, h *codec.RequestHeader, req codec.Message, resp codec.Message) error {
	ok := false
	switch r := req.(type) {
	case *codec.ConsumerGroupDescribeRequest:
		into, _ := resp.(*codec.ConsumerGroupDescribeResponse)
		ok = r != nil && into != nil
	case *codec.DescribeGroupsRequest:
		into, _ := resp.(*codec.DescribeGroupsResponse)
		ok = r != nil && into != nil
	}
	if !ok || h == nil {
		return fmt.Errorf("model: DescribeInto answers a ConsumerGroupDescribe or DescribeGroups request into its response, not %T into %T", req, resp)
	}
	_, err := c.handle(conn, h, req, resp)
	return err
}

// handle is Handle, answering into into when it is not nil (DescribeInto).
func (c *Coordinator) handle(conn Conn, h *codec.RequestHeader, req, into codec.Message) (codec.Message, error) {
	if req == nil || req.IsResponse() || req.Key() != h.RequestApiKey {
		return nil, fmt.Errorf("model: request body does not match header %v", h.RequestApiKey)
	}
	if hold := c.holds[conn.ID]; hold != nil && hold.active {
		c.hit("B8.5/connection-held")
		hold.queue = append(hold.queue, heldRequest{conn: conn, header: *h, req: req})
		return nil, ErrParked
	}
	resp, err := c.serve(conn, h, req, into)
	if len(c.resume) > 0 {
		c.resumeHeld()
	}
	return resp, err
}

// serve is Handle for a request its connection lets through; a Describe
// is answered into into when it is the response that matches it, else
// into a new one.
func (c *Coordinator) serve(conn Conn, h *codec.RequestHeader, req, into codec.Message) (codec.Message, error) {
	if !c.serves(h.RequestApiKey, h.RequestApiVersion) {
		c.hit("B1.1/unsupported-request")
		return nil, ErrUnsupportedRequest
	}
	clientID := c.connContext(conn, h)
	switch r := req.(type) {
	case *codec.ApiVersionsRequest:
		return c.apiVersions(h.RequestApiVersion, r), nil
	case *codec.ConsumerGroupHeartbeatRequest:
		return c.heartbeat(conn, clientID, h.RequestApiVersion, r)
	case *codec.ConsumerGroupDescribeRequest:
		resp, _ := into.(*codec.ConsumerGroupDescribeResponse)
		if resp == nil {
			resp = newDescribeResponse(len(r.GroupIds))
		}
		c.describe(h.RequestApiVersion, r, resp)
		return resp, nil
	case *codec.LeaveGroupRequest:
		return c.leaveGroup(h.RequestApiVersion, r), nil
	case *codec.GetTelemetrySubscriptionsRequest:
		return c.getTelemetrySubscriptions(h, r), nil
	case *codec.PushTelemetryRequest:
		return c.pushTelemetry(h, r), nil
	case *codec.JoinGroupRequest:
		return c.waitable(conn, func() (codec.Message, error) { return c.joinGroup(conn, clientID, h.RequestApiVersion, r) })
	case *codec.SyncGroupRequest:
		return c.waitable(conn, func() (codec.Message, error) { return c.syncGroup(conn, h.RequestApiVersion, r) })
	case *codec.HeartbeatRequest:
		return c.classicHeartbeat(r), nil
	case *codec.DescribeGroupsRequest:
		resp, _ := into.(*codec.DescribeGroupsResponse)
		if resp == nil {
			resp = &codec.DescribeGroupsResponse{}
		}
		c.describeGroups(h.RequestApiVersion, r, resp)
		return resp, nil
	}
	return nil, ErrUnsupportedRequest
}

// waitable serves a request that may be held (a classic JoinGroup or
// SyncGroup): serve returns its answer, or nil when it parked the request
// (parkRequest); the answer may then still come within the step
// (selfAnswer). A request still waiting at the end holds its connection.
func (c *Coordinator) waitable(conn Conn, serve func() (codec.Message, error)) (codec.Message, error) {
	c.self, c.selfAnswer, c.selfDropped = nil, nil, false
	resp, err := serve()
	self, answer, dropped := c.self, c.selfAnswer, c.selfDropped
	c.self, c.selfAnswer, c.selfDropped = nil, nil, false
	switch {
	case err != nil || resp != nil:
		return resp, err
	case self != nil:
		c.hold(conn)
		return nil, ErrParked
	case answer != nil:
		return answer, nil
	case dropped:
		return nil, ErrParked
	}
	return nil, fmt.Errorf("model: %v served without an answer", conn)
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
		if c.conns == nil { // a clone of a coordinator with none has no map
			c.conns = map[uint64]string{}
		}
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
//
// A request the connection had held unread behind a held one is Dropped
// (Released); a held JoinGroup or SyncGroup of it still waits, and is
// answered as if the connection were open (A6.5).
func (c *Coordinator) Disconnect(conn uint64) {
	if _, ok := c.conns[conn]; ok {
		c.hit("A2/disconnect-forgets")
	}
	delete(c.conns, conn)
	if len(c.holds) > 0 {
		c.disconnectHeld(conn)
	}
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
//
// Classic groups survive as their last record says (B8.14,
// classic_restart.go): their held requests are answered NOT_COORDINATOR
// (Released), and the requests held behind them are then served.
func (c *Coordinator) Restart() {
	c.closeHeld()
	clear(c.conns)
	clear(c.telemetry)
	c.hit("B4.4/restart-restarts-timers")
	for _, g := range c.groups {
		for _, m := range g.members {
			m.sessionDeadline = c.now + c.cfg.SessionTimeoutMs
			if m.classic != nil {
				// A classic member's session is its own (A7.1); its join
				// and sync timers are not persisted.
				c.hit("A7.1/restart-classic-session")
				m.sessionDeadline = c.delay(int64(m.classic.sessionMs))
				m.classic.joinDeadline, m.classic.syncDeadline = noDeadline, noDeadline
			}
			if m.state == stateUnrevokedPartitions {
				m.rebalanceDeadline = c.now + max(int64(m.rebalanceTimeoutMs), 0)
			}
		}
	}
	c.restartClassic()
	c.resumeHeld()
}

// Advance moves logical time forward to t (never backward) and fires, in
// order of deadline, every timer due at or before t: the consumer groups'
// session and rebalance timeouts and the classic groups' timers
// (classic_timers.go), in one order (A6.5). Each fires at its own
// deadline: time is set to the deadline first. Requests held behind a
// request a timer answered are served after the last timer, at t
// (parked.go).
func (c *Coordinator) Advance(t int64) {
	for {
		g, m, kind, at, ok := c.nextTimer(t)
		var ct classicTimer
		cok := false
		if len(c.classic) > 0 {
			ct, cok = c.nextClassicTimer(t)
		}
		if cok && (!ok || ct.at < at || ct.at == at && ct.g.id < g.id) {
			c.now = ct.at
			c.fireClassic(ct)
			continue
		}
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
			c.fence(g, m)
		case timerRebalance:
			m.rebalanceDeadline = noDeadline
			if len(m.pending) > 0 {
				c.hit("A5.6/rebalance-timeout-removes")
				c.fence(g, m)
			}
		case timerClassicJoin:
			c.hit("A7.1/join-timer-removes")
			c.fence(g, m)
		case timerClassicSync:
			c.hit("A7.1/sync-timer-removes")
			c.fence(g, m)
		}
	}
	if t > c.now {
		c.now = t
	}
	if len(c.resume) > 0 {
		c.resumeHeld()
	}
}

// NextDeadline is the time of the earliest timer set (a consumer group's
// session or rebalance timeout; a classic group's join or sync phase
// timer, a member's session, a pending id's expiry), which Advance fires
// when it reaches it; ok is false when no timer is set. It may be now: a
// timeout of zero fires at the next Advance. The explorer (package
// explore) moves time from deadline to deadline.
func (c *Coordinator) NextDeadline() (at int64, ok bool) {
	_, _, _, at, ok = c.nextTimer(1<<63 - 1)
	if ct, cok := c.nextClassicTimer(1<<63 - 1); cok && (!ok || ct.at < at) {
		at, ok = ct.at, true
	}
	return at, ok
}

// Timers calls f for every member's timers, groups in id order and members
// in id order: its session deadline and its rebalance deadline, -1 for
// one not set. What Snapshot does not show of a member but decides its
// future: the explorer (package explore) holds impl's to them
// (impl.Coordinator.Timers).
func (c *Coordinator) Timers(f func(group, member string, session, rebalance int64)) {
	var buf [4]string
	for _, id := range sortedKeys(c.groups, buf[:0]) {
		for _, m := range c.groups[id].members {
			f(id, m.id, m.sessionDeadline, m.rebalanceDeadline)
		}
	}
}

type timerKind int

const (
	timerSession timerKind = iota
	timerRebalance
	// A classic member's join and sync timers (A7.1).
	timerClassicJoin
	timerClassicSync
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
			if m.classic != nil {
				consider(g, m, timerClassicJoin, m.classic.joinDeadline)
				consider(g, m, timerClassicSync, m.classic.syncDeadline)
			}
		}
	}
	return bg, bm, bk, best, ok
}

// serves reports whether the coordinator implements key at version and
// advertises it.
func (c *Coordinator) serves(key codec.APIKey, version int16) bool {
	if c.served == nil {
		c.advertised()
	}
	if key < 0 || int(key) >= len(c.served) {
		return false
	}
	r := c.served[key]
	return r.ok && version >= r.min && version <= r.max
}

// advertised is the ApiVersions list: every api the model implements, in
// key order, capped by Config.MaxVersions. It is computed once; callers
// copy it before handing it out.
func (c *Coordinator) advertised() []codec.ApiVersionsKey {
	if c.apis == nil {
		c.apis = AdvertisedVersions(c.cfg.MaxVersions)
		c.served = new([128]versionRange)
		for _, a := range c.apis {
			if a.ApiKey >= 0 && int(a.ApiKey) < len(c.served) {
				c.served[a.ApiKey] = versionRange{true, a.MinVersion, a.MaxVersion}
			}
		}
	}
	return c.apis
}

// versionRange is the versions of one api the coordinator serves (ok).
type versionRange struct {
	ok       bool
	min, max int16
}

// AdvertisedVersions is what a coordinator implementing the model's scope
// advertises, capped by maxVersions: the apis ghostcheck checks
// (codec.APIs) and the classic group protocol's (API.Classic), which Kafka
// 4.x serves beside them. A cap below an api's lowest version leaves it
// out: {codec.JoinGroup: 3} plays a broker without KIP-394, {codec.JoinGroup:
// -1} one without classic groups.
func AdvertisedVersions(maxVersions map[codec.APIKey]int16) []codec.ApiVersionsKey {
	out := make([]codec.ApiVersionsKey, 0, 16)     // a dozen apis: one allocation
	for key := codec.APIKey(0); key < 128; key++ { // the table itself: AllAPIs would allocate a list
		a := codec.Lookup(key)
		if a == nil || a.Routing || a.Auth {
			continue
		}
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
