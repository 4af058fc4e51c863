package tcptarget

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Target is a broker, or a cluster of them, reached over TCP, as a
// driver.Target. Each of the driver's connections is one client process's
// connection, opened on its first request and closed by Disconnect (the
// driver's connection resets are real). The driver's other faults stay
// simulated: a lost response is one the client drops. Advance maps the
// driver's logical milliseconds onto real time (it sleeps until that much
// time has passed since the run began); the brokers fire their own timers.
//
// In a cluster (route.go) each request about a group goes to the group's
// coordinator, found and re-found as Kafka's clients do (wire.Cluster),
// with NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and
// COORDINATOR_LOAD_IN_PROGRESS retried and never handed to the driver; the
// way there is recorded in the request's op (Route). With a Control, the
// target also moves coordinators and stops and starts brokers, the
// cluster faults of a plan (faults.go).
//
// A request above the version the broker advertised is refused locally
// without being sent (a client library does the same), so a probe at a
// version the broker lacks does not cost the connection. In particular,
// against a broker without ConsumerGroupDescribe every describe is
// refused: the driver then observes nothing, and the rules it checks only
// through Describe (Unchecked) are not checked.
type Target struct {
	// Rewrite, if set before the run, gives the request to send in place
	// of req (it must not modify req): a workaround for a broker that
	// cannot take what the driver's clients send. The history keeps the
	// driver's request.
	Rewrite func(h *codec.RequestHeader, req codec.Message) codec.Message
	// Control, if set before the run, gives the target the cluster
	// faults it can play (faults.go).
	Control Control

	cl          *wire.Cluster
	dialer      wire.Dialer
	timeout     time.Duration
	negotiation *wire.Negotiation
	ctx         context.Context

	mu       sync.Mutex
	conns    map[uint64]*tcpConn
	versions wire.Versions
	start    time.Time
	started  bool
	logical  int64 // the last Advance
	maxLag   int64
	// retryWait is the time routed requests spent waiting to be tried
	// again (RetryMs): part of the lag, the cluster's and not the
	// broker's answering.
	retryWait time.Duration
	// stalls watches this process and the broker from the first Advance
	// to Close (MaxStallMs).
	stalls *wire.StallWatch
	// rtt are the round trips answered, by API, in real time (reports
	// plot their distribution).
	rtt map[codec.APIKey][]time.Duration
	// groups are the groups requests were routed about (a Control's
	// MoveCoordinators).
	groups map[string]bool

	// Held requests (held.go): the answers read for parked requests and
	// not yet drained by Released, and the readers still waiting.
	relMu    sync.Mutex
	released []driver.Release
	readers  sync.WaitGroup
	// HoldAfter is how long a JoinGroup or SyncGroup's answer is awaited
	// before it is parked (0: DefaultHoldAfter); HeldTimeout bounds the
	// wait for a parked one's answer (0: the dialer's timeout). Set both
	// before the run.
	HoldAfter   time.Duration
	HeldTimeout time.Duration
}

// tcpConn is one client process's connections: one to each broker it
// has talked to, as a client keeps one per broker.
type tcpConn struct {
	mu sync.Mutex
	// ws are the connections by broker; cur is the broker of the last
	// request (-1: none), where a request about no group goes.
	ws  map[int32]*brokerSock
	cur int32
	// dialled: a connection was opened before (a new one's first request
	// then carries the process's first ClientId).
	dialled bool
	// first is the ClientId the process's first request carried, and
	// instance its client instance id: what a new broker connection's
	// first request carries (KIP-1313).
	first    codec.NullableString
	seen     bool
	instance codec.UUID
	// route is how the last request got its answer (Route).
	route *history.Route
	// reset are the resets the target played on the connection since
	// its last request, for the next one's route.
	reset []history.RouteStep
	// held: a request of the process is parked (held.go); its reader
	// owns the process's connections until queue, the requests behind
	// it, is sent and answered. gone: Disconnect closed them meanwhile.
	held  bool
	gone  bool
	queue []queued
}

// brokerSock is a process's connection to one broker; fresh until its
// first request.
type brokerSock struct {
	w     *wire.Conn
	fresh bool
}

// Dial connects to the cluster at the bootstrap addresses (Metadata; a
// broker that offers none stands alone) and learns the api versions of
// its first broker on a connection of its own (so the driver's
// connections start fresh). o's Dialer makes every connection (its
// Options.Timeout bounds each dial and each wait for a response, 0: 5 s);
// its Seed should be the plan's, so the retries' waits replay. A refused
// authentication is an error wrapping wire.ErrAuth.
func Dial(ctx context.Context, bootstrap []string, o wire.ClusterOptions) (*Target, error) {
	if o.Dialer.Timeout <= 0 {
		o.Dialer.Timeout = 5 * time.Second
	}
	cl, err := wire.Connect(ctx, bootstrap, o)
	if err != nil {
		return nil, err
	}
	bs := cl.Brokers()
	hm, err := wire.NewHeaders(codec.Str("ghostcheck-negotiate"), cl.InstanceID())
	if err != nil {
		cl.Close()
		return nil, err
	}
	w, pre, err := o.Dialer.DialNegotiated(ctx, bs[0].Addr, hm, wire.NegotiateOptions{})
	if err != nil {
		cl.Close()
		return nil, err
	}
	w.Close()
	n := pre.Negotiation
	return &Target{cl: cl, dialer: o.Dialer, timeout: o.Dialer.Timeout, ctx: context.WithoutCancel(ctx),
		conns: map[uint64]*tcpConn{}, versions: n.Versions, negotiation: n}, nil
}

// Versions returns the first broker's advertised version ranges.
func (t *Target) Versions() wire.Versions { return t.versions }

// Negotiation says how the first broker's ApiVersions were learned: its
// Notes say which replies did not parse or did not settle it, and what
// was asked next.
func (t *Target) Negotiation() *wire.Negotiation { return t.negotiation }

// Brokers are the cluster's brokers as last known.
func (t *Target) Brokers() []wire.Broker { return t.cl.Brokers() }

// describeRules are the rules the driver checks only on what
// ConsumerGroupDescribe shows (observation.go, without a snapshot).
var describeRules = []rules.Rule{
	rules.RuleNoGhosts, rules.RuleOneMemberPerProcess, rules.RuleUniqueMemberIDs, rules.RuleNoZeroUUIDs,
	rules.RuleNoDoubleClientAssignment, rules.RuleStableMemberID, rules.RuleQuiescentMembership,
}

// Unchecked lists the rules a history against this broker cannot check:
// none when it offers ConsumerGroupDescribe; else every rule the driver
// observes only through Describe. (MonotonicEpochs and MemberVanished are
// then checked on the heartbeat answers alone.)
func (t *Target) Unchecked() []rules.Rule {
	if t.versions.Max(codec.ConsumerGroupDescribe) >= 0 {
		return nil
	}
	return append([]rules.Rule(nil), describeRules...)
}

// ErrVersionNotOffered is the local refusal of a request at a version the
// broker did not advertise (wire's).
var ErrVersionNotOffered = wire.ErrVersionNotOffered

// Handle implements Target.
func (t *Target) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	if h.RequestApiKey != codec.ApiVersions && !offers(t.versions, h) {
		return nil, fmt.Errorf("%w: %v v%d", ErrVersionNotOffered, h.RequestApiKey, h.RequestApiVersion)
	}
	c := t.conn(conn.ID)
	c.mu.Lock()
	defer c.mu.Unlock()
	defer t.noteLag()
	if !c.seen {
		c.seen, c.first = true, h.ClientId
		if h.ClientInstanceId.Valid && !h.ClientInstanceId.UUID.IsZero() {
			c.instance = h.ClientInstanceId.UUID
		} else {
			c.instance = t.cl.InstanceID()
		}
	}
	if t.Rewrite != nil {
		req = t.Rewrite(h, req)
	}
	h = t.apiVersionsAt(h)
	if c.held {
		return t.queueBehind(c, conn.Delivery, h, req)
	}
	c.route = &history.Route{Broker: -1, Steps: c.reset}
	c.reset = nil
	if holdable(h.RequestApiKey) {
		return t.maybeHold(c, conn.Delivery, h, req)
	}
	resp, err := t.route(c, h, req, t.roundTrip)
	if err != nil {
		return nil, err
	}
	if d, ok := resp.(*codec.ConsumerGroupDescribeResponse); ok {
		nameTopics(d)
	}
	return resp, nil
}

func (t *Target) conn(id uint64) *tcpConn {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.conns[id]
	if c == nil {
		c = &tcpConn{ws: map[int32]*brokerSock{}, cur: -1}
		t.conns[id] = c
	}
	return c
}

func offers(vs wire.Versions, h *codec.RequestHeader) bool {
	r, ok := vs[h.RequestApiKey]
	return ok && h.RequestApiVersion >= r[0] && h.RequestApiVersion <= r[1]
}

// Route implements driver.Router: how the last request on connID got
// its answer (nil against a broker standing alone, where there is no
// way to record).
func (t *Target) Route(connID uint64) *history.Route {
	if t.cl.Standalone() {
		return nil
	}
	t.mu.Lock()
	c := t.conns[connID]
	t.mu.Unlock()
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.route
}

// apiVersionsAt sends an ApiVersions request above the version the
// negotiation settled at (Dial's) at that version instead, as a
// client library that fell back once keeps to the version that worked:
// the driver's clients ask at their highest and cannot fall back past a
// reply that does not parse, so against a broker that garbles v3+ replies
// they would ask forever and never join. The negotiation's notes report
// the broker's replies.
func (t *Target) apiVersionsAt(h *codec.RequestHeader) *codec.RequestHeader {
	v := t.negotiation.Version
	if h.RequestApiKey != codec.ApiVersions || v < 0 || h.RequestApiVersion <= v {
		return h
	}
	lower := *h
	lower.RequestApiVersion = v
	return &lower
}

// noResponse is a wire error of unknown outcome, which is the driver's
// ErrNoResponse too (errors.Is holds for both), keeping wire's message.
type noResponse struct{ err error }

func (e noResponse) Error() string { return e.err.Error() }

func (e noResponse) Unwrap() error { return e.err }

func (e noResponse) Is(target error) bool { return target == driver.ErrNoResponse }

// nameTopics gives a described assignment's topics without a TopicName
// (a broker may leave it empty) a name made from the topic id, so that the
// invariants, which name partitions by topic, keep two topics apart. The
// conformance case B7.2/describe-topic-names reports such a broker.
func nameTopics(d *codec.ConsumerGroupDescribeResponse) {
	fix := func(a *codec.DescribedAssignment) {
		for i := range a.TopicPartitions {
			if tp := &a.TopicPartitions[i]; tp.TopicName == "" {
				tp.TopicName = "topic-id:" + tp.TopicId.String()
			}
		}
	}
	for gi := range d.Groups {
		for mi := range d.Groups[gi].Members {
			fix(&d.Groups[gi].Members[mi].Assignment)
			fix(&d.Groups[gi].Members[mi].TargetAssignment)
		}
	}
}

// Disconnect implements Target: it closes the real connection.
func (t *Target) Disconnect(connID uint64) {
	t.mu.Lock()
	c := t.conns[connID]
	delete(t.conns, connID)
	t.mu.Unlock()
	if c != nil {
		c.mu.Lock()
		c.gone, c.queue = true, nil
		c.drop()
		c.mu.Unlock()
	}
}

// drop closes every connection of the process (c.mu held).
func (c *tcpConn) drop() {
	for id := range c.ws {
		c.dropBroker(id)
	}
}

// dropBroker closes the process's connection to broker id, if any (c.mu
// held); the next request to it dials again.
func (c *tcpConn) dropBroker(id int32) bool {
	s := c.ws[id]
	if s == nil {
		return false
	}
	s.w.Close()
	delete(c.ws, id)
	return true
}

// Advance implements Target: it waits until nowMs of real time have passed
// since the first Advance.
func (t *Target) Advance(nowMs int64) error {
	t.mu.Lock()
	if !t.started {
		t.started = true
		t.start = time.Now().Add(-time.Duration(nowMs) * time.Millisecond)
		bs := t.cl.Brokers()
		t.stalls = t.dialer.WatchBroker(bs[0].Addr)
	}
	t.logical = nowMs
	at := t.start.Add(time.Duration(nowMs) * time.Millisecond)
	t.mu.Unlock()
	if d := time.Until(at); d > 0 {
		time.Sleep(d)
	}
	t.noteLag()
	return nil
}

// noteLag records how far real time has run ahead of the logical time.
func (t *Target) noteLag() {
	t.mu.Lock()
	if t.started {
		if lag := time.Since(t.start).Milliseconds() - t.logical; lag > t.maxLag {
			t.maxLag = lag
		}
	}
	t.mu.Unlock()
}

func (t *Target) noteRTT(key codec.APIKey, d time.Duration) {
	t.mu.Lock()
	if t.rtt == nil {
		t.rtt = map[codec.APIKey][]time.Duration{}
	}
	t.rtt[key] = append(t.rtt[key], d)
	t.mu.Unlock()
}

// RoundTrips are the real times from writing each answered request to
// reading its response, by API name: the broker's latency as a client on
// this machine sees it (the history's Call and Return are logical).
func (t *Target) RoundTrips() map[string][]time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string][]time.Duration, len(t.rtt))
	for k, ds := range t.rtt {
		out[k.String()] = append([]time.Duration(nil), ds...)
	}
	return out
}

// MaxLagMs is the most real time ran ahead of the driver's logical time
// while a request was handled or a round began: every operation's real
// handling time lies within [At, At+MaxLagMs]. The observable check needs
// it to judge session expiry honestly. Retries in a cluster add to it
// (RetryMs says how much they waited in all).
func (t *Target) MaxLagMs() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.maxLag
}

// RetryMs is the time routed requests waited in all before being tried
// again (a coordinator that moved, loaded or could not be reached): the
// cluster's share of the lag, not the brokers' answering.
func (t *Target) RetryMs() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.retryWait.Milliseconds()
}

// MaxStallMs is the longest the checking process was kept from running,
// or the broker from answering a ping, between the first Advance and Close
// (StallWatch). A broker timer may fire that much late with nothing in the
// history to show it: the grace NoGhosts gives a member of an ended
// process counts it on top of the lag (docs/PROTOCOL.md, NoGhosts).
func (t *Target) MaxStallMs() int64 {
	t.mu.Lock()
	w := t.stalls
	t.mu.Unlock()
	if w == nil {
		return 0
	}
	return w.Max().Milliseconds()
}

// Close closes every connection, the cluster's, and ends the stall
// watch.
func (t *Target) Close() {
	t.mu.Lock()
	if t.stalls != nil {
		t.stalls.Stop()
	}
	ids := make([]uint64, 0, len(t.conns))
	for id := range t.conns {
		ids = append(ids, id)
	}
	t.mu.Unlock()
	for _, id := range ids {
		t.Disconnect(id)
	}
	t.readers.Wait()
	t.cl.Close()
}

// errDial is a connection that could not be made for a request that goes
// to no group's coordinator: nothing was sent, nothing applied.
var errDial = errors.New("tcptarget: dial")
