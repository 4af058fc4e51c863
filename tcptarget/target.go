package tcptarget

import (
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Target is a broker reached over TCP, as a driver.Target. Each of the driver's
// connections is a real TCP connection, opened on its first request and
// closed by Disconnect (the driver's connection resets are real). The
// driver's other faults stay simulated: a lost response is one the client
// drops. Advance maps the driver's logical milliseconds onto real time (it
// sleeps until that much time has passed since the run began); the broker
// fires its own timers.
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

	addr        string
	timeout     time.Duration
	negotiation *wire.Negotiation

	mu       sync.Mutex
	conns    map[uint64]*tcpConn
	versions wire.Versions
	start    time.Time
	started  bool
	logical  int64 // the last Advance
	maxLag   int64
	// stalls watches this process and the broker from the first Advance
	// to Close (MaxStallMs).
	stalls *wire.StallWatch
	// rtt are the round trips answered, by API, in real time (reports
	// plot their distribution).
	rtt map[codec.APIKey][]time.Duration
}

type tcpConn struct {
	mu sync.Mutex
	w  *wire.Conn
}

// Dial connects to the broker at addr once to learn its api
// versions (ApiVersions on a connection of its own, so the driver's
// connections start fresh). timeout bounds each dial and each wait for a
// response.
func Dial(addr string, timeout time.Duration) (*Target, error) {
	w, err := wire.Dial(addr, wire.Options{Timeout: timeout})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	instance, err := wire.NewInstanceID(rand.Reader)
	if err != nil {
		return nil, err
	}
	hm, err := wire.NewHeaders(codec.Str("ghostcheck-negotiate"), instance)
	if err != nil {
		return nil, err
	}
	n, err := w.Negotiate(hm, wire.NegotiateOptions{})
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, n)
	}
	return &Target{addr: addr, timeout: timeout, conns: map[uint64]*tcpConn{}, versions: n.Versions, negotiation: n}, nil
}

// Versions returns the broker's advertised version ranges.
func (t *Target) Versions() wire.Versions { return t.versions }

// Negotiation says how the broker's ApiVersions were learned: its Notes
// say which replies did not parse or did not settle it, and what was
// asked next.
func (t *Target) Negotiation() *wire.Negotiation { return t.negotiation }

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
// broker did not advertise.
var ErrVersionNotOffered = errors.New("tcptarget: the broker does not offer this api version")

// Handle implements Target.
func (t *Target) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	if h.RequestApiKey != codec.ApiVersions {
		r, ok := t.versions[h.RequestApiKey]
		if !ok || h.RequestApiVersion < r[0] || h.RequestApiVersion > r[1] {
			return nil, fmt.Errorf("%w: %v v%d", ErrVersionNotOffered, h.RequestApiKey, h.RequestApiVersion)
		}
	}
	t.mu.Lock()
	c := t.conns[conn.ID]
	if c == nil {
		c = &tcpConn{}
		t.conns[conn.ID] = c
	}
	t.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	defer t.noteLag()
	if c.w == nil {
		w, err := wire.Dial(t.addr, wire.Options{Timeout: t.timeout})
		if err != nil {
			return nil, fmt.Errorf("dial: %w", err) // not sent: nothing applied
		}
		c.w = w
	}
	if t.Rewrite != nil {
		req = t.Rewrite(h, req)
	}
	h = t.apiVersionsAt(h)
	sent := time.Now()
	resp, err := c.w.RoundTrip(h, req)
	if err == nil {
		t.noteRTT(h.RequestApiKey, time.Since(sent))
	}
	if err != nil {
		// The connection is unusable now; the next request dials again.
		c.w.Close()
		c.w = nil
		if errors.Is(err, wire.ErrNoResponse) {
			return nil, noResponse{err}
		}
		return nil, err
	}
	if d, ok := resp.(*codec.ConsumerGroupDescribeResponse); ok {
		nameTopics(d)
	}
	return resp, nil
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
		if c.w != nil {
			c.w.Close()
			c.w = nil
		}
		c.mu.Unlock()
	}
}

// Advance implements Target: it waits until nowMs of real time have passed
// since the first Advance.
func (t *Target) Advance(nowMs int64) error {
	t.mu.Lock()
	if !t.started {
		t.started = true
		t.start = time.Now().Add(-time.Duration(nowMs) * time.Millisecond)
		t.stalls = wire.WatchBroker(t.addr, t.timeout)
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
// it to judge session expiry honestly.
func (t *Target) MaxLagMs() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.maxLag
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

// Close closes every connection and ends the stall watch.
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
}
