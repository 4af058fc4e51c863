// Package brokertest makes a broker that differs, for tests of the tools
// that must survive one (`ghostcheck check`, the TCP target): a proxy in
// front of a working broker (ghostcheck's own server, in tests) that
// answers ApiVersions with bytes no version parses above some version,
// hides apis from its ApiVersions answers and refuses them, or dies or
// hangs on a chosen request, as brokers we did not write do (librdkafka's
// mock cluster answers ApiVersions v3+ with a body that parses as neither
// v3 nor v0, offers no ConsumerGroupDescribe, and aborts on some requests),
// or keeps a member alive after its client's connection closed (Keeper).
//
// Only tests use it. It forwards one request at a time per connection, in
// order, so pipelined requests keep their order.
//
// The files:
//
//   - brokertest.go: the proxy that makes the working broker differ
//     (Start, Options, Proxy).
//   - keeper.go: Keeper, a broker bug that keeps a member alive after its
//     connection closed.
package brokertest

import (
	"errors"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Options say how the proxy differs from the broker behind it.
type Options struct {
	// GarbleApiVersionsFrom, when positive, answers ApiVersions requests at
	// that version or above with a frame whose body parses neither at the
	// version asked nor as KIP-511's v0 body.
	GarbleApiVersionsFrom int16
	// Hide lists apis left out of ApiVersions answers; a request of one
	// closes its connection unanswered, as a broker that does not know the
	// api does.
	Hide []codec.APIKey
	// DieOn, when it reports true for a request (decoded; requests that
	// do not decode are forwarded without asking), makes the broker die
	// before answering it: the listener and every connection close, and
	// nothing is answered again.
	DieOn func(h *codec.RequestHeader, req codec.Message) bool
	// Hang makes DieOn's request hang the broker instead: it stops
	// answering and accepting, but keeps its connections open.
	Hang bool
	// KeepClosedMembers makes the proxy heartbeat, on a connection of its
	// own, for every member whose last heartbeat came on a client
	// connection that has since closed (Keeper): a crashed client's
	// member never expires.
	KeepClosedMembers bool
}

// Proxy is a running broker that differs.
type Proxy struct {
	backend string
	o       Options
	ln      net.Listener
	wg      sync.WaitGroup

	mu    sync.Mutex
	conns []net.Conn
	dead  bool
	// hung is closed by Close: what hangs waits for it (and the keeper).
	hung     chan struct{}
	hungOnce sync.Once

	keeper  *Keeper
	start   time.Time
	connSeq uint64
	// keepConn is the keeper's own connection to the backend and
	// keepHeaders its headers (only the keep goroutine uses them).
	keepConn    *wire.Conn
	keepHeaders *wire.Headers
}

// Start runs a proxy on 127.0.0.1 in front of the broker at backend until
// the test ends.
func Start(tb testing.TB, backend string, o Options) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{backend: backend, o: o, ln: ln, hung: make(chan struct{}), start: time.Now()}
	if o.KeepClosedMembers {
		// Made before any goroutine starts: serve reads p.keeper.
		p.keeper = NewKeeper()
	}
	p.wg.Add(1)
	go p.accept()
	if p.keeper != nil {
		p.wg.Add(1)
		go p.keep()
	}
	tb.Cleanup(p.Close)
	return p
}

// Addr is the proxy's address, HOST:PORT.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Dead reports whether DieOn has fired.
func (p *Proxy) Dead() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dead
}

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() {
	p.hungOnce.Do(func() { close(p.hung) })
	p.ln.Close()
	p.closeConns()
	p.wg.Wait()
}

func (p *Proxy) closeConns() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// track keeps a new connection, and reports whether to serve it: a dead
// broker closes it, a hung one keeps it open and silent.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead && !p.o.Hang {
		c.Close()
		return false
	}
	p.conns = append(p.conns, c)
	return !p.dead
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		nc, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(nc) {
			continue
		}
		p.wg.Add(1)
		go p.serve(nc)
	}
}

// die is the broker's death (or hang) on a request.
func (p *Proxy) die() {
	p.mu.Lock()
	p.dead = true
	p.mu.Unlock()
	if p.o.Hang {
		<-p.hung // until the test ends: the connections stay open, silent
		return
	}
	p.ln.Close()
	p.closeConns()
}

// gone reports whether the broker died; a hung broker waits here until
// the test ends instead of answering.
func (p *Proxy) gone() bool {
	if !p.Dead() {
		return false
	}
	if p.o.Hang {
		<-p.hung
	}
	return true
}

// maxFrame bounds a frame either way: serve's own cap, which a push over
// Kafka's default telemetry.max.bytes (1 MiB) fits in.
const maxFrame = server.DefaultMaxFrameSize

// Keeper is the proxy's Keeper (nil without Options.KeepClosedMembers).
func (p *Proxy) Keeper() *Keeper { return p.keeper }

func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	defer client.Close()
	p.mu.Lock()
	p.connSeq++
	conn := p.connSeq
	p.mu.Unlock()
	if p.keeper != nil {
		defer func() { p.keeper.Closed(conn, p.nowMs()) }()
	}
	var backend net.Conn
	defer func() {
		if backend != nil {
			backend.Close()
		}
	}()
	for {
		// Bounded: a proxy waiting on a test that went away gives up.
		_ = client.SetReadDeadline(time.Now().Add(30 * time.Second))
		frame, err := codec.ReadFrame(client, nil, maxFrame)
		if err != nil {
			return
		}
		if p.gone() {
			return
		}
		h, req, derr := codec.DecodeRequest(frame, codec.DecodeOptions{})
		if derr == nil && p.o.DieOn != nil && p.o.DieOn(&h, req) {
			p.die()
			return
		}
		if slices.Contains(p.o.Hide, h.RequestApiKey) {
			return
		}
		if h.RequestApiKey == codec.ApiVersions && p.o.GarbleApiVersionsFrom > 0 && h.RequestApiVersion >= p.o.GarbleApiVersionsFrom {
			// The correlation id, then an error code and a truncated
			// array: no ApiVersions version parses it.
			c := h.CorrelationId
			out := []byte{0, 0, 0, 8, byte(c >> 24), byte(c >> 16), byte(c >> 8), byte(c), 0, 35, 0xff, 0x7f}
			if _, err := client.Write(out); err != nil {
				return
			}
			continue
		}
		if backend == nil {
			if backend, err = net.DialTimeout("tcp", p.backend, 5*time.Second); err != nil {
				return
			}
		}
		resp, err := roundTrip(backend, frame)
		if err != nil {
			return
		}
		if h.RequestApiKey == codec.ApiVersions && len(p.o.Hide) > 0 {
			if resp, err = p.hide(resp, &h); err != nil {
				return
			}
		}
		if hb, ok := req.(*codec.ConsumerGroupHeartbeatRequest); ok && derr == nil && p.keeper != nil {
			if _, m, err := codec.DecodeResponse(resp[4:], h.RequestApiKey, h.RequestApiVersion, codec.DecodeOptions{}); err == nil {
				p.keeper.Saw(conn, hb, m.(*codec.ConsumerGroupHeartbeatResponse))
			}
		}
		if p.gone() {
			return
		}
		if _, err := client.Write(resp); err != nil {
			return
		}
	}
}

// roundTrip forwards one request frame (without its size prefix) and
// returns the response frame, size prefix included.
func roundTrip(backend net.Conn, frame []byte) ([]byte, error) {
	_ = backend.SetDeadline(time.Now().Add(30 * time.Second))
	out, start := codec.BeginFrame(nil)
	out = codec.FinishFrame(append(out, frame...), start)
	if _, err := backend.Write(out); err != nil {
		return nil, err
	}
	resp, err := codec.ReadFrame(backend, nil, maxFrame)
	if err != nil {
		return nil, err
	}
	b, start := codec.BeginFrame(nil)
	return codec.FinishFrame(append(b, resp...), start), nil
}

var errUndecodable = errors.New("brokertest: the backend's ApiVersions answer does not decode")

// hide drops the hidden apis from an ApiVersions answer (a frame with its
// size prefix) to the request h.
func (p *Proxy) hide(resp []byte, h *codec.RequestHeader) ([]byte, error) {
	v := h.RequestApiVersion
	_, m, err := codec.DecodeResponse(resp[4:], codec.ApiVersions, v, codec.DecodeOptions{})
	if err != nil {
		if v == 0 {
			return nil, errUndecodable
		}
		v = 0 // KIP-511: an unsupported version is answered at v0
		if _, m, err = codec.DecodeResponse(resp[4:], codec.ApiVersions, 0, codec.DecodeOptions{}); err != nil {
			return nil, errUndecodable
		}
	}
	r := m.(*codec.ApiVersionsResponse)
	r.ApiKeys = slices.DeleteFunc(r.ApiKeys, func(k codec.ApiVersionsKey) bool { return slices.Contains(p.o.Hide, k.ApiKey) })
	return codec.AppendResponse(nil, h.CorrelationId, v, r)
}

func (p *Proxy) nowMs() int64 { return time.Since(p.start).Milliseconds() }

// keep sends the keeper's heartbeats, every 10 ms, until the proxy closes
// or dies.
func (p *Proxy) keep() {
	defer p.wg.Done()
	defer func() {
		if p.keepConn != nil {
			p.keepConn.Close()
		}
	}()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.hung:
			return
		case <-tick.C:
		}
		if p.Dead() {
			return
		}
		for _, req := range p.keeper.Due(p.nowMs()) {
			p.keeper.Answered(req, p.heartbeat(req))
		}
	}
}

// keeperInstance is the client instance id of the keeper's headers.
var keeperInstance = codec.UUID{0x6b, 0x65, 0x65, 0x70}

// heartbeat sends one of the keeper's heartbeats on its own connection
// (ConsumerGroupHeartbeat v1, KIP-1313 headers: ClientId on the
// connection's first request only), nil when no answer came.
func (p *Proxy) heartbeat(req *codec.ConsumerGroupHeartbeatRequest) *codec.ConsumerGroupHeartbeatResponse {
	if p.keepConn == nil {
		c, err := wire.Dial(p.backend, wire.Options{Timeout: 5 * time.Second, MaxResponseSize: maxFrame})
		if err != nil {
			return nil
		}
		hm, err := wire.NewHeaders(codec.Str("brokertest-keeper"), keeperInstance)
		if err != nil {
			c.Close()
			return nil
		}
		p.keepConn, p.keepHeaders = c, hm
	}
	resp, err := p.keepConn.RoundTrip(p.keepHeaders.Next(codec.ConsumerGroupHeartbeat, 1), req)
	if err != nil {
		p.keepConn.Close()
		p.keepConn = nil
		return nil
	}
	return resp.(*codec.ConsumerGroupHeartbeatResponse)
}
