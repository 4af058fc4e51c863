package impl

import (
	"crypto/rand"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Conn identifies the connection a request arrived on, as model.Conn does.
type Conn struct {
	ID uint64
	// Host is what ConsumerGroupDescribe and DescribeGroups show as
	// ClientHost.
	Host string
	// Delivery is the caller's number for this request, unique in a run:
	// a held request's answer comes back through Released under it
	// (parked.go).
	Delivery uint64
}

// ErrUnsupportedRequest is returned by Handle for a request the coordinator
// does not serve (an api key it does not implement, or a version above what
// it advertises). A transport closes the connection then, without a
// response.
var ErrUnsupportedRequest = errors.New("impl: unsupported api key or version")

const (
	nGroupShards = 256
	nTimerShards = 64 // at most 64: Coordinator.shardsUsed is a bit per shard
	nConnShards  = 64
	nTeleShards  = 64
)

// Coordinator is the optimized group coordinator. It is safe for
// concurrent use.
type Coordinator struct {
	cfg   Config
	clock Clock
	ids   idSource
	mut   Mutants

	topics    []Topic // in name order
	base      []int32 // first global partition index of each topic
	nparts    int
	topicByID map[codec.UUID]int32

	advertised []codec.ApiVersionsKey
	served     [128]struct {
		ok       bool
		min, max int16
	}

	groups    [nGroupShards]groupShard
	live      liveGroups
	nextShard atomic.Uint32
	shards    [nTimerShards]timerShard
	// shardsUsed has bit i set once a group was given shards[i]: Expire
	// visits only those (a run with a few groups uses a few of the 64,
	// and Expire runs at every clock move). Set before the group is
	// seen, so before any timer of it is pushed.
	shardsUsed atomic.Uint64
	expireGen  atomic.Uint64
	conns      [nConnShards]connShard
	telemetry  [nTeleShards]teleShard
	// connsUsed and teleUsed have bit i set once conns[i] (its contexts
	// or its holds) or telemetry[i] made a map: CopyTo visits only those
	// (the explorer copies a coordinator on every transition it tries,
	// with a few connections in a few of the 64 shards).
	connsUsed, teleUsed atomic.Uint64
	teleSeed            maphash.Seed

	// relMu guards the answers to held requests not yet released and the
	// connections to resume (parked.go); nResume counts the latter, so
	// that a request resumes nothing without taking relMu.
	relMu     sync.Mutex
	released  []Release
	resume    []uint64
	nResume   atomic.Int32
	nReleased atomic.Int32

	// spareGroups are groups of the coordinator CopyTo copied over that
	// the copy did not need (at most maxSpareGroups): joinGroup makes a new
	// group in one (group.reuse) rather than allocate it. Nothing else
	// holds them. spareMu guards the list (joins run concurrently).
	spareMu     sync.Mutex
	spareGroups []*group
	// spareConns are connection contexts of the coordinator CopyTo copied
	// over that the copy did not need (at most maxSpareConns), for the
	// next copy's (only CopyTo, which has the coordinator to itself, uses
	// them). A connection closed by Disconnect leaves its context to its
	// shard's next new connection instead (connShard.spare).
	spareConns []*connState
}

// maxSpareConns bounds Coordinator.spareConns: the explorer's clients
// use a few connections.
const maxSpareConns = 8

// maxSpareGroups bounds the groups a recycled coordinator keeps for the
// groups it may make (Coordinator.spareGroups): a few, as an explorer's.
const maxSpareGroups = 4

// groupShard maps group ids to groups. Groups are created once and removed
// only as failed phantoms, so the lock is held just for the lookup.
type groupShard struct {
	mu sync.RWMutex
	m  map[string]*group
	_  [24]byte
}

// liveGroups lists every group that ever became live (live groups are
// never removed), so that what visits all of them (Snapshot, Restart) need
// not lock each of the 256 group shards: Snapshot runs after every round
// of a checked run. mu is a leaf lock: it may be taken under a group's.
type liveGroups struct {
	mu     sync.Mutex
	gs     []*group
	sorted bool // gs is in id order
}

// add records g, which just became live.
func (l *liveGroups) add(g *group) {
	l.mu.Lock()
	l.gs = append(l.gs, g)
	l.sorted = len(l.gs) < 2 || l.sorted && l.gs[len(l.gs)-2].id < g.id
	l.mu.Unlock()
}

// list returns the live groups in id order (a copy).
func (l *liveGroups) list() []*group { return l.appendTo(nil) }

// appendTo appends the live groups, in id order, to dst.
func (l *liveGroups) appendTo(dst []*group) []*group {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.sorted {
		slices.SortFunc(l.gs, func(a, b *group) int { return strings.Compare(a.id, b.id) })
		l.sorted = true
	}
	return append(dst, l.gs...)
}

// groupShardOf picks a shard from the id's length and last bytes (group
// ids of one application tend to differ at the end).
func (c *Coordinator) groupShardOf(id string) *groupShard {
	h := uint(len(id))
	for i := len(id) - 1; i >= 0 && i >= len(id)-4; i-- {
		h = h*131 + uint(id[i])
	}
	return &c.groups[h%nGroupShards]
}

func (c *Coordinator) loadGroup(id string) *group {
	s := c.groupShardOf(id)
	s.mu.RLock()
	g := s.m[id]
	s.mu.RUnlock()
	return g
}

// connState is what the coordinator keeps per connection.
type connState struct {
	first string // the ClientId of the connection's first request
	// group caches the live group the connection's last heartbeat went
	// to (live groups are never removed), sparing the shard lookup.
	group atomic.Pointer[group]
}

type connShard struct {
	mu sync.Mutex
	m  map[uint64]*connState
	// holds are the shard's connections with a held request (parked.go).
	holds map[uint64]*connHold
	// spare is the context of the connection last closed (Disconnect),
	// for the next new one's: the explorer opens and closes a connection
	// for its describe of every state. A request of the closed
	// connection still in flight may hold it; all it does with it is
	// cache a group, which is good for any connection (connState.group
	// is checked before use).
	spare *connState
	_     [24]byte // keep shards on separate cache lines
}

// timerShard is a heap of (deadline, group): a group is pushed when its
// earliest deadline moves earlier than what it registered, so an entry may
// be early (then the group is visited for nothing and re-registers) but
// never late.
type timerShard struct {
	mu sync.Mutex
	h  []shardTimer
	// next is h[0].at, or math.MaxInt64 when h is empty, written under mu:
	// Expire skips a shard with nothing due without taking its lock (it
	// runs at every tick, on 64 shards). A push racing with Expire is
	// then seen or not, as it is with the lock.
	next atomic.Int64
	_    [24]byte
}

type shardTimer struct {
	at int64
	g  *group
}

func (s *timerShard) push(at int64, g *group) {
	s.mu.Lock()
	s.h = append(s.h, shardTimer{at, g})
	i := len(s.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s.h[p].at <= s.h[i].at {
			break
		}
		s.h[p], s.h[i] = s.h[i], s.h[p]
		i = p
	}
	s.next.Store(s.h[0].at)
	s.mu.Unlock()
}

// popDue removes and returns the entries due at now.
func (s *timerShard) popDue(now int64, out []*group) []*group {
	if s.next.Load() > now {
		return out
	}
	s.mu.Lock()
	for len(s.h) > 0 && s.h[0].at <= now {
		out = append(out, s.h[0].g)
		n := len(s.h) - 1
		s.h[0] = s.h[n]
		s.h[n] = shardTimer{}
		s.h = s.h[:n]
		i := 0
		for {
			l := 2*i + 1
			if l >= n {
				break
			}
			m := l
			if r := l + 1; r < n && s.h[r].at < s.h[l].at {
				m = r
			}
			if s.h[i].at <= s.h[m].at {
				break
			}
			s.h[i], s.h[m] = s.h[m], s.h[i]
			i = m
		}
	}
	if len(s.h) > 0 {
		s.next.Store(s.h[0].at)
	} else {
		s.next.Store(math.MaxInt64)
	}
	s.mu.Unlock()
	return out
}

// New returns a coordinator.
func New(cfg Config) *Coordinator {
	if cfg.NewID == nil {
		cfg.NewID = randomIDs
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock
	}
	c := &Coordinator{cfg: cfg, clock: cfg.Clock, mut: cfg.Mutants, teleSeed: maphash.MakeSeed()}
	c.ids.new = cfg.NewID
	if c.mut.Has(MutSessionDeadlineEarly) {
		c.cfg.SessionTimeoutMs-- // every session deadline 1 ms short
	}
	c.topics = append([]Topic(nil), cfg.Topics...)
	sort.SliceStable(c.topics, func(i, j int) bool { return c.topics[i].Name < c.topics[j].Name })
	c.topicByID = map[codec.UUID]int32{}
	for i, t := range c.topics {
		c.base = append(c.base, int32(c.nparts))
		if t.Partitions > 0 {
			c.nparts += int(t.Partitions)
		}
		if _, dup := c.topicByID[t.ID]; !dup {
			c.topicByID[t.ID] = int32(i)
		}
	}
	c.advertised = advertisedVersions(cfg.MaxVersions, cfg.MinVersions)
	for _, a := range c.advertised {
		if a.ApiKey >= 0 && int(a.ApiKey) < len(c.served) {
			s := &c.served[a.ApiKey]
			s.ok, s.min, s.max = true, a.MinVersion, a.MaxVersion
		}
	}
	for i := range c.shards {
		c.shards[i].next.Store(math.MaxInt64)
	}
	// The other shards' maps are made at their first entry (a checked run
	// makes a coordinator per history and uses a few of its 384 maps).
	return c
}

// randomIDs is the default NewID: randomID from crypto/rand.
func randomIDs() codec.UUID { return randomID(cryptoRand{}) }

// cryptoRand reads crypto/rand.Read, which never fails: it ends the
// program instead.
type cryptoRand struct{}

func (cryptoRand) Read(b []byte) (int, error) { return rand.Read(b) }

// randomID draws an id from r as Kafka's Uuid.randomUuid does: a version-4
// UUID (google/uuid), never zero or Uuid.ONE, whose Kafka string form does
// not start with '-'. It is model.RandomUUID, which impl may not import;
// TestRandomIDIsModels holds the two to the same output. r must not fail.
func randomID(r io.Reader) codec.UUID {
	for {
		u, err := uuid.NewRandomFromReader(r)
		if id := codec.UUID(u); err == nil && !isReservedUUID(id) && id.String()[0] != '-' {
			return id
		}
	}
}

var oneUUID = codec.UUID{15: 1}

func isReservedUUID(u codec.UUID) bool { return u.IsZero() || u == oneUUID }

// Now is the coordinator's time in milliseconds.
func (c *Coordinator) Now() int64 { return c.clock.Now() }

// Config returns the configuration the coordinator runs with.
func (c *Coordinator) Config() Config { return c.cfg }

// AdvertisedVersions is the ApiVersions list the coordinator serves.
func (c *Coordinator) AdvertisedVersions() []codec.ApiVersionsKey {
	return append([]codec.ApiVersionsKey(nil), c.advertised...)
}

// advertisedVersions is model.AdvertisedVersions, which impl may not
// import: the apis ghostcheck checks and the classic group protocol's,
// capped by maxVersions, and raised to minVersions (which the model does
// not have: a release's removals).
func advertisedVersions(maxVersions, minVersions map[codec.APIKey]int16) []codec.ApiVersionsKey {
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
		if m, ok := minVersions[a.Key]; ok && m > k.MinVersion {
			k.MinVersion = m
		}
		if k.MaxVersion < k.MinVersion {
			continue
		}
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ApiKey < out[j].ApiKey })
	return out
}

func (c *Coordinator) serves(key codec.APIKey, version int16) bool {
	if key < 0 || int(key) >= len(c.served) {
		return false
	}
	s := &c.served[key]
	return s.ok && version >= s.min && (version <= s.max || version == s.max+1 && c.mut.Has(MutAboveMaxVersionServed))
}

// Handle serves one request that arrived on conn and returns its response
// body, to be encoded at the request's version. It returns
// ErrUnsupportedRequest, and changes nothing, for a request the coordinator
// does not serve, and ErrParked for one it holds (parked.go): the answer
// comes through Released.
func (c *Coordinator) Handle(conn Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	if req == nil || req.IsResponse() || req.Key() != h.RequestApiKey {
		return nil, fmt.Errorf("impl: request body does not match header %v", h.RequestApiKey)
	}
	resp, err := c.serve(conn, h, req)
	c.maybeResume()
	return resp, err
}

// serve is Handle without resuming the connections it unblocks.
func (c *Coordinator) serve(conn Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	clientID, cs, err := c.open(conn, h, req)
	switch {
	case err == errUnserved:
		if resp := unservedResponse(req); resp != nil {
			return resp, nil
		}
		return nil, ErrUnsupportedRequest
	case err != nil:
		return nil, err
	}
	switch r := req.(type) {
	case *codec.ApiVersionsRequest:
		return c.apiVersions(h.RequestApiVersion, r), nil
	case *codec.ConsumerGroupHeartbeatRequest:
		resp := &codec.ConsumerGroupHeartbeatResponse{}
		if c.heartbeat(conn, clientID, cs, h.RequestApiVersion, r, resp) {
			return nil, ErrUnsupportedRequest
		}
		return resp, nil
	case *codec.ConsumerGroupDescribeRequest:
		return c.describe(h.RequestApiVersion, r), nil
	case *codec.LeaveGroupRequest:
		return c.leaveGroup(h.RequestApiVersion, r), nil
	case *codec.GetTelemetrySubscriptionsRequest:
		return c.getTelemetrySubscriptions(h, r), nil
	case *codec.PushTelemetryRequest:
		return c.pushTelemetry(h, r), nil
	case *codec.JoinGroupRequest:
		return c.joinClassic(conn, clientID, h.RequestApiVersion, r)
	case *codec.SyncGroupRequest:
		return c.syncClassic(conn, h.RequestApiVersion, r)
	case *codec.HeartbeatRequest:
		return c.heartbeatClassic(r), nil
	case *codec.DescribeGroupsRequest:
		return c.describeGroups(h.RequestApiVersion, r), nil
	}
	return nil, ErrUnsupportedRequest
}

// maybeResume serves the requests held behind those just answered, if any.
func (c *Coordinator) maybeResume() {
	if c.nResume.Load() > 0 {
		c.resumeHeld()
	}
}

// HandleHeartbeat is the server's fast path for ConsumerGroupHeartbeat: it
// fills the caller's resp (reusing resp.Assignment's slices when it is
// non-nil and the response carries an assignment) and allocates nothing
// for a steady heartbeat of a known member. It behaves exactly as Handle;
// a heartbeat held behind another request of its connection (ErrParked)
// is answered through Released, in a response of its own.
func (c *Coordinator) HandleHeartbeat(conn Conn, h *codec.RequestHeader, req *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) error {
	if h.RequestApiKey != codec.ConsumerGroupHeartbeat {
		return fmt.Errorf("impl: request body does not match header %v", h.RequestApiKey)
	}
	clientID, cs, err := c.open(conn, h, req)
	switch {
	case err == errUnserved:
		*resp = codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.UnsupportedVersion}
		return nil
	case err != nil:
		return err
	}
	if c.heartbeat(conn, clientID, cs, h.RequestApiVersion, req, resp) {
		return ErrUnsupportedRequest
	}
	c.maybeResume()
	return nil
}

// errUnserved is open's word for a request of an api the coordinator
// advertises but does not serve (Config.Unserved): each caller answers it
// in its own form.
var errUnserved = errors.New("impl: api advertised, not served")

// open is what every request goes through first (Handle, HandleHeartbeat,
// DescribeInto): admit, then the refusals. It returns ErrParked for a
// request held behind another of its connection, ErrUnsupportedRequest
// for one the coordinator does not serve, errUnserved for one of an api
// Config.Unserved names, else the ClientId the request is attributed to
// and its connection's context.
func (c *Coordinator) open(conn Conn, h *codec.RequestHeader, req codec.Message) (string, *connState, error) {
	served := c.serves(h.RequestApiKey, h.RequestApiVersion)
	clientID, cs, held := c.admit(conn, h, req, served)
	switch {
	case held:
		return "", nil, ErrParked
	case !served:
		return "", nil, ErrUnsupportedRequest
	case c.cfg.Unserved[h.RequestApiKey]:
		return clientID, cs, errUnserved
	}
	return clientID, cs, nil
}

// admit lets a request through its connection, under the connection's
// shard lock: a request behind a held one is queued (held); one the
// coordinator serves records the KIP-1313 per-connection context and gets
// the ClientId it is attributed to (docs/PROTOCOL.md A2): the ClientId of
// a connection's first request (null reads as "") is remembered and used
// for every later request whose ClientId is null; a later request that
// sends a ClientId is attributed to its own, and the connection keeps its
// first.
func (c *Coordinator) admit(conn Conn, h *codec.RequestHeader, req codec.Message, served bool) (string, *connState, bool) {
	s := &c.conns[conn.ID%nConnShards]
	s.mu.Lock()
	if s.holds != nil && !c.mut.Has(MutHeldConnectionRead) && s.held(conn, h, req) {
		s.mu.Unlock()
		return "", nil, true
	}
	if !served {
		s.mu.Unlock()
		return "", nil, false
	}
	cs := s.m[conn.ID]
	fresh := cs == nil
	if fresh {
		if cs = s.spare; cs != nil {
			s.spare = nil
			cs.group.Store(nil)
		} else {
			cs = &connState{}
		}
		cs.first = h.ClientId.Value
		if c.mut.Has(MutFirstClientIDForgotten) {
			cs.first = ""
		}
		if s.m == nil {
			s.m = map[uint64]*connState{}
			c.connsUsed.Or(1 << (conn.ID % nConnShards))
		}
		s.m[conn.ID] = cs
	}
	first := cs.first // read under the lock: a closed connection's context is reused
	s.mu.Unlock()
	if h.ClientId.Valid && !(c.mut.Has(MutLaterClientIDIgnored) && !fresh) {
		return h.ClientId.Value, cs, false
	}
	return first, cs, false
}

// ConnClientID returns the ClientId the coordinator attributes to conn, and
// whether the connection has sent a request.
func (c *Coordinator) ConnClientID(conn uint64) (string, bool) {
	s := &c.conns[conn%nConnShards]
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs := s.m[conn]; cs != nil {
		return cs.first, true
	}
	return "", false
}

// Disconnect forgets a connection's context. A new connection with the same
// id starts afresh.
//
// A request the connection had held unread behind a held one is Dropped
// (Released); a held JoinGroup or SyncGroup of it still waits.
func (c *Coordinator) Disconnect(connID uint64) {
	c.disconnectHeld(connID)
	if c.mut.Has(MutConnContextKept) {
		return
	}
	s := &c.conns[connID%nConnShards]
	s.mu.Lock()
	if cs := s.m[connID]; cs != nil {
		delete(s.m, connID)
		s.spare = cs
	}
	s.mu.Unlock()
}

// Expire fires every timer due at the clock's current time: consumer
// groups' session and rebalance timers, classic groups' timers (each at
// its own deadline, in the model's order within its group). It visits
// only groups with a due timer and, in them, only the timers that fire.
// Then the requests held behind those the timers answered are served, at
// the current time.
func (c *Coordinator) Expire() {
	now := c.clock.Now()
	gen := c.expireGen.Add(1)
	var due []*group
	for used := c.shardsUsed.Load(); used != 0; used &= used - 1 { // in shard order
		due = c.shards[bits.TrailingZeros64(used)].popDue(now, due[:0])
		for _, g := range due {
			g.lock()
			if g.expireGen == gen {
				g.mu.Unlock()
				continue
			}
			g.expireGen = gen
			if g.kind == kindClassic || g.mx != nil { // a classic group, or classic members (mixed_timers.go)
				op := &cop{c: c, now: now}
				g.expireHeld(op, now)
				g.mu.Unlock()
				op.publish()
				continue
			}
			g.expire(now)
			g.mu.Unlock()
		}
	}
	c.maybeResume()
}

// liveGroup returns the consumer group with id, locked, or nil if there is
// none (isClassic tells a classic group's id from a missing one's).
func (c *Coordinator) liveGroup(id string) *group {
	return c.liveOf(id, kindConsumer)
}

// liveOf returns the live group with id of kind, locked, or nil.
func (c *Coordinator) liveOf(id string, kind uint8) *group {
	g := c.loadGroup(id)
	if g == nil {
		return nil
	}
	g.lock()
	if g.status != gLive || g.kind != kind {
		g.mu.Unlock()
		return nil
	}
	return g
}

// readGroup is liveOf for a path that only reads the group (Describe): its
// lock does not count as a change (group.lock), so a SnapshotCache keeps
// the group's snapshot.
func (c *Coordinator) readGroup(id string, kind uint8) *group {
	g := c.loadGroup(id)
	if g == nil {
		return nil
	}
	g.mu.Lock()
	if g.status != gLive || g.kind != kind {
		g.mu.Unlock()
		return nil
	}
	return g
}

// isClassic reports whether id names a classic group.
func (c *Coordinator) isClassic(id string) bool {
	g := c.readGroup(id, kindClassic)
	if g != nil {
		g.mu.Unlock()
	}
	return g != nil
}

// joinGroup returns the group with id, locked, creating a phantom for a
// join if it does not exist. The caller makes the phantom live if the join
// succeeds, or calls dropPhantom.
func (c *Coordinator) joinGroup(id string) *group {
	for {
		g := c.loadGroup(id)
		if g == nil {
			s := c.groupShardOf(id)
			s.mu.Lock()
			if g = s.m[id]; g == nil {
				g = c.makeGroup(id)
				i := c.nextShard.Add(1) % nTimerShards
				g.shard = &c.shards[i]
				c.shardsUsed.Or(1 << i)
				if s.m == nil {
					s.m = map[string]*group{}
				}
				s.m[id] = g
			}
			s.mu.Unlock()
		}
		g.lock()
		if g.status != gDead {
			return g
		}
		g.mu.Unlock()
	}
}

// makeGroup is newGroup, in a spare group's memory if c has one.
func (c *Coordinator) makeGroup(id string) *group {
	c.spareMu.Lock()
	var g *group
	if n := len(c.spareGroups); n > 0 {
		g = c.spareGroups[n-1]
		c.spareGroups[n-1] = nil
		c.spareGroups = c.spareGroups[:n-1]
	}
	c.spareMu.Unlock()
	if g == nil {
		return newGroup(c, id)
	}
	g.reuse(c, id)
	return g
}

// dropPhantom removes a phantom group whose join failed; g is locked.
func (c *Coordinator) dropPhantom(g *group) {
	if g.status == gPhantom {
		g.status = gDead
		s := c.groupShardOf(g.id)
		s.mu.Lock()
		if s.m[g.id] == g {
			delete(s.m, g.id)
		}
		s.mu.Unlock()
	}
}

// softwareNamePattern is what ApiVersions v3+ requires of the client's
// software name and version (§B7.1).
// validSoftwareName reports whether s is a valid ApiVersions v3+ client
// software name or version (KIP-511): letters, digits, '-' and '.', at
// least one character, beginning and ending with a letter or digit; the
// pattern ^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$ without a regexp
// (every connection's first request carries one).
func validSoftwareName(s string) bool {
	if s == "" || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !alnum(c) && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func alnum(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }

func (c *Coordinator) apiVersions(version int16, r *codec.ApiVersionsRequest) *codec.ApiVersionsResponse {
	resp := codec.NewApiVersionsResponse()
	nameOK := validSoftwareName(r.ClientSoftwareName) || c.mut.Has(MutSoftwareNameUnchecked)
	if version >= 3 && (!nameOK || !validSoftwareName(r.ClientSoftwareVersion)) {
		resp.ErrorCode = codec.InvalidRequest
		return resp
	}
	resp.ApiKeys = c.AdvertisedVersions()
	if c.mut.Has(MutAdvertisesUncapped) {
		resp.ApiKeys = advertisedVersions(nil, nil)
	}
	return resp
}

// UnsupportedApiVersionsResponse is the answer to an ApiVersions request of
// a version the coordinator does not know (KIP-511): encoded at v0, error
// UNSUPPORTED_VERSION, listing the ApiVersions range.
func (c *Coordinator) UnsupportedApiVersionsResponse() *codec.ApiVersionsResponse {
	resp := codec.NewApiVersionsResponse()
	resp.ErrorCode = codec.UnsupportedVersion
	for _, k := range c.advertised {
		if k.ApiKey == codec.ApiVersions {
			resp.ApiKeys = append(resp.ApiKeys, k)
		}
	}
	return resp
}

// Compiles only while nTimerShards fits shardsUsed's bits.
var _ [64 - nTimerShards]struct{}

// unservedResponse is the answer to a request of an api the coordinator
// advertises but does not serve (Config.Unserved), as Kafka 3.7-3.9 answer
// ConsumerGroupHeartbeat and ConsumerGroupDescribe with the consumer
// protocol off: the request's error response with UNSUPPORTED_VERSION
// (each group's, for a describe); nil for any other api, which Kafka
// never advertises without serving.
func unservedResponse(req codec.Message) codec.Message {
	switch r := req.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		return &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.UnsupportedVersion}
	case *codec.ConsumerGroupDescribeRequest:
		resp := &codec.ConsumerGroupDescribeResponse{Groups: make([]codec.DescribedGroup, 0, len(r.GroupIds))}
		unservedDescribeInto(r, resp)
		return resp
	}
	return nil
}
