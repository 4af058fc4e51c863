package linearize

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// WireConn is one Kafka connection that speaks in codec types: it frames
// requests, reads responses, and matches their correlation ids. It is not
// safe for concurrent use.
type WireConn struct {
	nc      net.Conn
	br      *bufio.Reader
	wbuf    []byte
	rbuf    []byte
	timeout time.Duration
	// pending are the (key, version, correlation id) of requests sent and
	// not yet received, in order.
	pending []sent
	// rh is ReceiveInto's response header.
	rh codec.ResponseHeader
	// rdl, wdl are the deadlines set; renewed once half of timeout has
	// passed, not on every request (a deadline costs a timer update).
	rdl, wdl time.Time
}

func (w *WireConn) readDeadline() {
	if now := time.Now(); w.rdl.Sub(now) < w.timeout/2 {
		w.rdl = now.Add(w.timeout)
		_ = w.nc.SetReadDeadline(w.rdl)
	}
}

func (w *WireConn) writeDeadline() {
	if now := time.Now(); w.wdl.Sub(now) < w.timeout/2 {
		w.wdl = now.Add(w.timeout)
		_ = w.nc.SetWriteDeadline(w.wdl)
	}
}

type sent struct {
	key     codec.APIKey
	version int16
	corr    int32
}

// ErrConnClosed is returned (wrapping ErrNoResponse) when the broker closed
// the connection instead of answering: a broker does that to a request it
// does not serve, and then it applied nothing, but from outside a closed
// connection cannot be told from a crash after the request was applied.
var ErrConnClosed = fmt.Errorf("%w: the broker closed the connection", ErrNoResponse)

// MaxResponseSize bounds a response frame a WireConn accepts.
const MaxResponseSize = 16 << 20

// DialWire connects to a broker. timeout bounds the dial and, later, each
// write and each wait for a response (0: 10 s; a wait may get between half
// of it and all of it).
func DialWire(addr string, timeout time.Duration) (*WireConn, error) {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	return &WireConn{nc: nc, br: bufio.NewReaderSize(nc, 16<<10), timeout: timeout}, nil
}

// Close closes the connection.
func (w *WireConn) Close() error { return w.nc.Close() }

// NetConn is the underlying connection, for tests that misbehave on it.
func (w *WireConn) NetConn() net.Conn { return w.nc }

// Send writes one request frame. Requests may be pipelined: Send several,
// then Receive each, in order.
func (w *WireConn) Send(h *codec.RequestHeader, req codec.Message) error {
	if len(w.wbuf) > 0 {
		return errors.New("linearize: Send with requests buffered; Flush first")
	}
	b, err := codec.AppendRequest(w.wbuf[:0], h, req)
	if err != nil {
		return err
	}
	w.wbuf = b[:0]
	w.pending = append(w.pending, sent{h.RequestApiKey, h.RequestApiVersion, h.CorrelationId})
	w.writeDeadline()
	if _, err := w.nc.Write(b); err != nil {
		return fmt.Errorf("%w: write: %v", ErrNoResponse, err)
	}
	return nil
}

// Buffer appends one request frame to the output without writing it;
// Flush writes everything buffered at once (pipelining in one write).
func (w *WireConn) Buffer(h *codec.RequestHeader, req codec.Message) error {
	b, err := codec.AppendRequest(w.wbuf, h, req)
	if err != nil {
		return err
	}
	w.wbuf = b
	w.pending = append(w.pending, sent{h.RequestApiKey, h.RequestApiVersion, h.CorrelationId})
	return nil
}

// Flush writes the buffered requests.
func (w *WireConn) Flush() error {
	if len(w.wbuf) == 0 {
		return nil
	}
	w.writeDeadline()
	_, err := w.nc.Write(w.wbuf)
	w.wbuf = w.wbuf[:0]
	if err != nil {
		return fmt.Errorf("%w: write: %v", ErrNoResponse, err)
	}
	return nil
}

// WriteRaw writes bytes as they are (for tests that send malformed input).
func (w *WireConn) WriteRaw(b []byte) error {
	w.writeDeadline()
	_, err := w.nc.Write(b)
	return err
}

// ReadFrame reads one response frame (without its size prefix).
func (w *WireConn) ReadFrame() ([]byte, error) {
	w.readDeadline()
	b, err := codec.ReadFrame(w.br, w.rbuf[:0], MaxResponseSize)
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF || errors.Is(err, net.ErrClosed) || isReset(err) {
			return nil, ErrConnClosed
		}
		return nil, fmt.Errorf("%w: %v", ErrNoResponse, err)
	}
	w.rbuf = b
	return b, nil
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

// Receive reads the response to the oldest request sent and not yet
// received. An ApiVersions response that does not decode at the request's
// version is decoded at v0 (a broker answers a version it does not know
// with a v0 body, KIP-511).
func (w *WireConn) Receive() (codec.Message, error) {
	if len(w.pending) == 0 {
		return nil, errors.New("linearize: Receive with no request outstanding")
	}
	p := w.pending[0]
	w.popPending()
	frame, err := w.ReadFrame()
	if err != nil {
		return nil, err
	}
	h, resp, err := codec.DecodeResponse(frame, p.key, p.version, codec.DecodeOptions{})
	if err != nil && p.key == codec.ApiVersions && p.version > 0 {
		h, resp, err = codec.DecodeResponse(frame, p.key, 0, codec.DecodeOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("%w: undecodable %v v%d response: %v", ErrNoResponse, p.key, p.version, err)
	}
	if h.CorrelationId != p.corr {
		return nil, fmt.Errorf("%w: %v response carries correlation id %d, want %d", ErrNoResponse, p.key, h.CorrelationId, p.corr)
	}
	return resp, nil
}

// ReceiveInto is Receive into the caller's response m, which must be of
// the oldest pending request's api, reusing m's storage: a client reading
// a stream of heartbeat responses allocates nothing.
func (w *WireConn) ReceiveInto(m codec.Message) error {
	if len(w.pending) == 0 {
		return errors.New("linearize: ReceiveInto with no request outstanding")
	}
	p := w.pending[0]
	if m.Key() != p.key {
		return fmt.Errorf("linearize: ReceiveInto a %v response, but the oldest request is %v", m.Key(), p.key)
	}
	w.popPending()
	frame, err := w.ReadFrame()
	if err != nil {
		return err
	}
	err = codec.DecodeResponseInto(frame, &w.rh, m, p.version, codec.DecodeOptions{})
	if err != nil && p.key == codec.ApiVersions && p.version > 0 {
		err = codec.DecodeResponseInto(frame, &w.rh, m, 0, codec.DecodeOptions{})
	}
	if err != nil {
		return fmt.Errorf("%w: undecodable %v v%d response: %v", ErrNoResponse, p.key, p.version, err)
	}
	if w.rh.CorrelationId != p.corr {
		return fmt.Errorf("%w: %v response carries correlation id %d, want %d", ErrNoResponse, p.key, w.rh.CorrelationId, p.corr)
	}
	return nil
}

// popPending drops the oldest pending request, shifting the rest down so
// that the slice's storage is reused (a few requests are pending at most).
func (w *WireConn) popPending() {
	n := copy(w.pending, w.pending[1:])
	w.pending = w.pending[:n]
}

// RoundTrip sends one request and returns its response.
func (w *WireConn) RoundTrip(h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	if err := w.Send(h, req); err != nil {
		w.pending = w.pending[:0]
		return nil, err
	}
	return w.Receive()
}

// Negotiate sends ApiVersions (v3, falling back to what the broker
// offers) and returns the broker's ranges by api key.
func Negotiate(w *WireConn, clientID string, corr int32) (map[codec.APIKey][2]int16, error) {
	version := int16(3)
	for try := 0; try < 2; try++ {
		h := codec.RequestHeader{RequestApiKey: codec.ApiVersions, RequestApiVersion: version, CorrelationId: corr, ClientId: codec.Str(clientID)}
		resp, err := w.RoundTrip(&h, &codec.ApiVersionsRequest{ClientSoftwareName: "ghostcheck", ClientSoftwareVersion: "1.0"})
		if err != nil {
			return nil, err
		}
		r := resp.(*codec.ApiVersionsResponse)
		out := map[codec.APIKey][2]int16{}
		for _, k := range r.ApiKeys {
			out[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
		}
		if r.ErrorCode == codec.UnsupportedVersion {
			if av, ok := out[codec.ApiVersions]; ok && av[1] < version {
				version = av[1]
				corr++
				continue
			}
		}
		if r.ErrorCode != codec.None {
			return out, fmt.Errorf("linearize: ApiVersions answered %v", r.ErrorCode)
		}
		return out, nil
	}
	return nil, errors.New("linearize: ApiVersions negotiation did not settle")
}

// TCPTarget is a broker reached over TCP, as a Target. Each of the driver's
// connections is a real TCP connection, opened on its first request and
// closed by Disconnect (the driver's connection resets are real). The
// driver's other faults stay simulated: a lost response is one the client
// drops. Advance maps the driver's logical milliseconds onto real time (it
// sleeps until that much time has passed since the run began); the broker
// fires its own timers.
//
// A request above the version the broker advertised is refused locally
// without being sent (a client library does the same), so a probe at a
// version the broker lacks does not cost the connection.
type TCPTarget struct {
	addr    string
	timeout time.Duration

	mu       sync.Mutex
	conns    map[uint64]*tcpConn
	versions map[codec.APIKey][2]int16
	start    time.Time
	started  bool
	logical  int64 // the last Advance
	maxLag   int64
}

type tcpConn struct {
	mu sync.Mutex
	w  *WireConn
}

// NewTCPTarget connects to the broker at addr once to learn its api
// versions (ApiVersions on a connection of its own, so the driver's
// connections start fresh). timeout bounds each dial and each wait for a
// response.
func NewTCPTarget(addr string, timeout time.Duration) (*TCPTarget, error) {
	w, err := DialWire(addr, timeout)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	vs, err := Negotiate(w, "ghostcheck-negotiate", 1)
	if err != nil {
		return nil, err
	}
	return &TCPTarget{addr: addr, timeout: timeout, conns: map[uint64]*tcpConn{}, versions: vs}, nil
}

// Versions returns the broker's advertised version ranges.
func (t *TCPTarget) Versions() map[codec.APIKey][2]int16 { return t.versions }

// ErrVersionNotOffered is the local refusal of a request at a version the
// broker did not advertise.
var ErrVersionNotOffered = errors.New("linearize: the broker does not offer this api version")

// Handle implements Target.
func (t *TCPTarget) Handle(conn Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
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
		w, err := DialWire(t.addr, t.timeout)
		if err != nil {
			return nil, fmt.Errorf("dial: %w", err) // not sent: nothing applied
		}
		c.w = w
	}
	resp, err := c.w.RoundTrip(h, req)
	if err != nil {
		// The connection is unusable now; the next request dials again.
		c.w.Close()
		c.w = nil
		return nil, err
	}
	if d, ok := resp.(*codec.ConsumerGroupDescribeResponse); ok {
		nameTopics(d)
	}
	return resp, nil
}

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
func (t *TCPTarget) Disconnect(connID uint64) {
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
func (t *TCPTarget) Advance(nowMs int64) error {
	t.mu.Lock()
	if !t.started {
		t.started = true
		t.start = time.Now().Add(-time.Duration(nowMs) * time.Millisecond)
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
func (t *TCPTarget) noteLag() {
	t.mu.Lock()
	if t.started {
		if lag := time.Since(t.start).Milliseconds() - t.logical; lag > t.maxLag {
			t.maxLag = lag
		}
	}
	t.mu.Unlock()
}

// MaxLagMs is the most real time ran ahead of the driver's logical time
// while a request was handled or a round began: every operation's real
// handling time lies within [At, At+MaxLagMs]. The observable check needs
// it to judge session expiry honestly.
func (t *TCPTarget) MaxLagMs() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.maxLag
}

// Close closes every connection.
func (t *TCPTarget) Close() {
	t.mu.Lock()
	ids := make([]uint64, 0, len(t.conns))
	for id := range t.conns {
		ids = append(ids, id)
	}
	t.mu.Unlock()
	for _, id := range ids {
		t.Disconnect(id)
	}
}

// TCPOptions shape a plan for a broker over TCP, where time is real.
type TCPOptions struct {
	// SessionTimeoutMs is the broker's session timeout (it must be
	// configured so: ghostcheck serve --session-timeout, kfake's
	// group.consumer.session.timeout.ms).
	SessionTimeoutMs int64
	// HeartbeatIntervalMs is the broker's heartbeat interval.
	HeartbeatIntervalMs int32
	// RoundMs is one round of real time (0: 50).
	RoundMs int64
	// GroupPrefix starts the plan's group ids, so runs against a broker
	// that keeps its state do not meet each other's groups.
	GroupPrefix string
}

// TCPPlan draws a plan for a broker over TCP: short rounds of real time,
// the broker's session timeout and heartbeat interval, and request
// timeouts long enough that the clients' rebalance timeout (four request
// timeouts) is at least the session timeout. The plan's SessionTimeoutMs
// is the broker's plus a slack of ten rounds: the driver's invariants
// then give a crashed process's member that much longer to expire, which
// absorbs the difference between logical and real time (a stall of the
// checking process shorter than the slack cannot raise a false alarm).
func TCPPlan(seed uint64, o Options, t TCPOptions) Plan {
	p := NewPlan(seed, o)
	if t.RoundMs <= 0 {
		t.RoundMs = 50
	}
	p.RoundMs = t.RoundMs
	p.SessionTimeoutMs = t.SessionTimeoutMs + 10*t.RoundMs
	p.HeartbeatIntervalMs = t.HeartbeatIntervalMs
	p.RequestTimeout = 4
	for int64(4*p.RequestTimeout)*p.RoundMs < t.SessionTimeoutMs {
		p.RequestTimeout++
	}
	p.DescribeEvery = 2
	// A broker reached by address is not restarted by ghostcheck.
	p.Restarts = nil
	if t.GroupPrefix != "" {
		for i := range p.Clients {
			p.Clients[i].Group = t.GroupPrefix + p.Clients[i].Group
		}
		for i := range p.Admin {
			p.Admin[i].Group = t.GroupPrefix + p.Admin[i].Group
		}
		for i := range p.Probes {
			p.Probes[i].Group = t.GroupPrefix + p.Probes[i].Group
		}
	}
	return p
}
