// Package server serves an impl.Coordinator over TCP in Kafka's framing.
//
// It answers ApiVersions, ConsumerGroupHeartbeat, ConsumerGroupDescribe,
// LeaveGroup, GetTelemetrySubscriptions and PushTelemetry, and the classic
// group protocol's JoinGroup, SyncGroup, Heartbeat and DescribeGroups, at
// the versions the coordinator advertises; anything else is treated as a
// real broker treats it (docs/PROTOCOL.md §B1.1): the connection is closed
// without a response.
//
// A classic JoinGroup or SyncGroup the coordinator holds (impl.ErrParked)
// holds its connection as Kafka's muted socket does (§B8.5): nothing more
// is read from it until the answer comes (impl.Coordinator.Released, which
// the server routes to the waiting connection after every request and
// timer tick) and is written. A held request the coordinator will never
// answer (Dropped) closes its connection, as does a shutdown while one
// waits. An ApiVersions request of a version the coordinator does not
// know is answered with a v0 body holding UNSUPPORTED_VERSION and the
// ApiVersions range (§B7.1, KIP-511).
//
// One goroutine serves each connection, reading through a buffer: requests
// are handled in the order they arrive, and responses are appended to an
// output buffer that is written when no further complete request is
// waiting in the input, so pipelined requests are answered in order with
// one write for the batch, not one per response.
//
// Limits, each a Config field: the frame size (checked on the size prefix,
// before anything is allocated), a deadline for the rest of a frame once
// its first byte has arrived (a half-sent frame cannot hold a connection
// forever), an idle timeout, a write timeout (a peer that does not read its
// responses is dropped), and a cap on connections (over it, a new
// connection is closed at once). Shutdown stops accepting, answers every
// request whose bytes have fully arrived, flushes, and closes.
//
// KIP-1313 per-connection context is the coordinator's: each connection has
// an id that is never reused, the coordinator remembers the first ClientId
// it carried, and forgets it (Disconnect) when the connection closes. The
// client instance id travels in each request header (tag 0).
package server

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
)

// Defaults of Config's limits.
const (
	// DefaultMaxFrameSize is above Kafka's default telemetry.max.bytes
	// (1 MiB, serve's TelemetryMaxBytes): a push over that limit is read
	// and refused TELEMETRY_TOO_LARGE, as Kafka (socket.request.max.bytes
	// 100 MiB) does, instead of closing the connection.
	DefaultMaxFrameSize   = 2 << 20
	DefaultFrameTimeout   = 10 * time.Second
	DefaultIdleTimeout    = 10 * time.Minute // Kafka's connections.max.idle.ms
	DefaultWriteTimeout   = 10 * time.Second
	DefaultMaxConns       = 4096
	DefaultExpireInterval = 10 * time.Millisecond
)

// readBufferSize is each connection's input buffer: large enough for a
// window of pipelined heartbeats, small enough that thousands of idle
// connections cost little. Larger frames are read into a separate buffer.
const readBufferSize = 8 << 10

// flushAt is the size of pending output that is written even while more
// requests wait, so output does not grow without bound.
const flushAt = 64 << 10

// Config configures a Server. Only Coordinator is required.
type Config struct {
	Coordinator *impl.Coordinator
	// MaxFrameSize bounds a request frame (size prefix excluded); a larger
	// or negative prefix closes the connection. 0: DefaultMaxFrameSize.
	MaxFrameSize int
	// FrameTimeout is how long the rest of a frame may take once its
	// first byte has arrived. 0: DefaultFrameTimeout.
	FrameTimeout time.Duration
	// IdleTimeout closes a connection that sends nothing for this long.
	// 0: DefaultIdleTimeout.
	IdleTimeout time.Duration
	// WriteTimeout bounds one write of responses. 0: DefaultWriteTimeout.
	WriteTimeout time.Duration
	// MaxConns caps open connections. 0: DefaultMaxConns.
	MaxConns int
	// ExpireInterval is how often the coordinator's session and rebalance
	// timers are fired. 0: DefaultExpireInterval; negative: never (tests
	// that fire them by hand).
	ExpireInterval time.Duration
	// Logf receives one line per notable event (a connection refused or
	// closed for a protocol error). nil: silent.
	Logf func(format string, args ...any)
}

// Stats are counters of a server's life.
type Stats struct {
	Accepted, Refused, Open int64 // connections: accepted, closed at once over the cap, open now
	Requests                int64 // requests answered
	ProtocolClosed          int64 // connections closed for a bad or unserved request
	TimedOut                int64 // connections closed by a frame, idle or write timeout
}

// Server serves one coordinator on any number of listeners.
type Server struct {
	cfg    Config
	coord  *impl.Coordinator
	served [128][2]int16 // min, max+1 per api key; max+1 == 0: not served

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	closing   bool
	wg        sync.WaitGroup // connection and accept goroutines
	stopTimer chan struct{}
	timerDone chan struct{}

	// Held requests (see the package doc): every request's delivery
	// number; the connections waiting for an answer, by delivery; answers
	// that came before their connection waited; deliveries whose
	// connection gave up waiting (their answers are dropped).
	delivery atomic.Uint64
	waitMu   sync.Mutex
	waiting  map[uint64]chan impl.Release
	early    map[uint64]impl.Release
	gone     map[uint64]bool
	stopWait chan struct{}

	connSeq atomic.Uint64
	nconns  atomic.Int64
	// handleDelay slows every request down, for the tests of a loaded
	// machine (export_test.go); 0 in every real use.
	handleDelay time.Duration
	stats       struct {
		accepted, refused, requests, protocolClosed, timedOut atomic.Int64
	}
}

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = errors.New("server: closed")

// New returns a server for cfg.Coordinator and starts its timer goroutine
// (stopped by Shutdown or Close).
func New(cfg Config) (*Server, error) {
	if cfg.Coordinator == nil {
		return nil, errors.New("server: Config.Coordinator is required")
	}
	if cfg.MaxFrameSize <= 0 {
		cfg.MaxFrameSize = DefaultMaxFrameSize
	}
	if cfg.FrameTimeout <= 0 {
		cfg.FrameTimeout = DefaultFrameTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.ExpireInterval == 0 {
		cfg.ExpireInterval = DefaultExpireInterval
	}
	s := &Server{cfg: cfg, coord: cfg.Coordinator, listeners: map[net.Listener]struct{}{}, conns: map[*conn]struct{}{},
		stopTimer: make(chan struct{}), timerDone: make(chan struct{}),
		waiting: map[uint64]chan impl.Release{}, early: map[uint64]impl.Release{}, gone: map[uint64]bool{}, stopWait: make(chan struct{})}
	for _, k := range s.coord.AdvertisedVersions() {
		if k.ApiKey >= 0 && int(k.ApiKey) < len(s.served) {
			s.served[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion + 1}
		}
	}
	go s.runTimers()
	return s, nil
}

// Coordinator is the coordinator the server serves.
func (s *Server) Coordinator() *impl.Coordinator { return s.coord }

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// Stats returns the server's counters.
func (s *Server) Stats() Stats {
	return Stats{Accepted: s.stats.accepted.Load(), Refused: s.stats.refused.Load(), Open: s.nconns.Load(),
		Requests: s.stats.requests.Load(), ProtocolClosed: s.stats.protocolClosed.Load(), TimedOut: s.stats.timedOut.Load()}
}

func (s *Server) runTimers() {
	defer close(s.timerDone)
	if s.cfg.ExpireInterval < 0 {
		<-s.stopTimer
		return
	}
	t := time.NewTicker(s.cfg.ExpireInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stopTimer:
			return
		case <-t.C:
			s.coord.Expire()
			s.route()
		}
	}
}

// ListenAndServe listens on addr (e.g. "127.0.0.1:9092") and serves until
// Shutdown or Close.
func (s *Server) ListenAndServe(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// Serve accepts connections on ln until Shutdown or Close, and returns
// ErrServerClosed then (or the listener's error). It closes ln.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
		ln.Close()
	}()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) || isTemporary(err) {
				// Out of file descriptors and the like: wait and retry,
				// as net/http does.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.logf("accept: %v; retrying in %v", err, backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		s.stats.accepted.Add(1)
		if s.nconns.Add(1) > int64(s.cfg.MaxConns) {
			s.nconns.Add(-1)
			s.stats.refused.Add(1)
			nc.Close()
			continue
		}
		c := s.newConn(nc)
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			s.nconns.Add(-1)
			nc.Close()
			return ErrServerClosed
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go c.serve()
	}
}

func isTemporary(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "too many open files") || strings.Contains(msg, "resource temporarily unavailable")
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// Shutdown stops the server gracefully: it closes the listeners, lets each
// connection answer every request whose bytes have fully arrived, flushes
// the responses, and closes it once its peer has sent nothing for drainWait
// (however long answering what had arrived took). If ctx ends first, the
// remaining connections are closed at once and ctx's error is returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.beginClose()
	s.mu.Lock()
	for c := range s.conns {
		c.drain()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.closeConns()
		<-done
		return ctx.Err()
	}
}

// Close stops the server at once: listeners and connections are closed
// without draining.
func (s *Server) Close() error {
	s.beginClose()
	s.closeConns()
	s.wg.Wait()
	return nil
}

func (s *Server) beginClose() {
	s.mu.Lock()
	first := !s.closing
	s.closing = true
	for ln := range s.listeners {
		ln.Close()
	}
	s.mu.Unlock()
	if first {
		close(s.stopWait)
		close(s.stopTimer)
		<-s.timerDone
	}
}

func (s *Server) closeConns() {
	s.mu.Lock()
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
}

// conn is one client connection. Only its goroutine touches its buffers.
type conn struct {
	s    *Server
	nc   net.Conn
	id   impl.Conn
	br   *bufio.Reader
	out  []byte
	big  []byte // frames larger than the read buffer
	hdr  codec.RequestHeader
	hb   codec.ConsumerGroupHeartbeatRequest
	hbr  codec.ConsumerGroupHeartbeatResponse
	opts codec.DecodeOptions

	draining atomic.Bool
	deadline time.Time // the read deadline currently set
	wdl      time.Time // the write deadline currently set
}

func (s *Server) newConn(nc net.Conn) *conn {
	c := &conn{s: s, nc: nc, opts: codec.DecodeOptions{OneCopy: true}}
	c.br = bufio.NewReaderSize(input{c}, readBufferSize)
	c.id = impl.Conn{ID: s.connSeq.Add(1), Host: clientHost(nc.RemoteAddr())}
	return c
}

// clientHost renders the peer's address as Kafka's ClientHost does
// ("/127.0.0.1").
func clientHost(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return "/" + ta.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return "/" + a.String()
	}
	return "/" + host
}

// drainWait is how long a draining connection waits for more input: what
// the peer had sent before the shutdown (in the kernel's buffers or on the
// way) is read and answered, and the connection closes once a read has
// waited drainWait for nothing (twice: see input); a frame still
// incomplete then is dropped unanswered (and so unapplied). The wait is counted from each read, not
// from the drain: on a loaded machine answering what arrived may take
// longer than drainWait, and bytes that had arrived must not be dropped
// for it.
const drainWait = 50 * time.Millisecond

// drain asks the connection to stop: it answers what has arrived and
// closes once its peer is quiet (drainWait). The new read deadline wakes a
// blocked read.
func (c *conn) drain() {
	c.draining.Store(true)
	_ = c.nc.SetReadDeadline(time.Now().Add(drainWait))
}

// drainDeadline gives a draining connection's next read drainWait from
// now.
func (c *conn) drainDeadline() error {
	return c.nc.SetReadDeadline(time.Now().Add(drainWait))
}

// input is a connection's bytes as its reader sees them. A draining read
// that times out having read nothing is tried once more, with a fresh
// deadline, before it counts as the peer's silence: a deadline can pass
// while the process is starved of CPU (the Go runtime may run an expired
// timer before it polls the network), and such a read fails with the
// peer's bytes already in the kernel's buffer. The second read takes them
// without waiting; only a second timeout is quiet.
type input struct{ c *conn }

func (in input) Read(p []byte) (int, error) {
	c := in.c
	n, err := c.nc.Read(p)
	if n == 0 && err != nil && c.draining.Load() && errors.Is(err, os.ErrDeadlineExceeded) {
		if c.drainDeadline() == nil {
			n, err = c.nc.Read(p)
		}
	}
	return n, err
}

// errClose ends a connection without a response (the request was not
// served); errDone ends it after a drain.
var (
	errClose = errors.New("server: closing connection")
	errDone  = errors.New("server: drained")
)

func (c *conn) serve() {
	s := c.s
	defer s.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			// Nothing on the wire should get here (the codec never
			// panics); if something does, this connection ends and the
			// server stays up.
			s.logf("conn %d: panic: %v", c.id.ID, r)
		}
		c.nc.Close()
		s.coord.Disconnect(c.id.ID)
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.nconns.Add(-1)
	}()
	for {
		frame, err := c.nextFrame()
		if err != nil {
			c.finish(err)
			return
		}
		if err := c.handle(frame); err != nil {
			s.stats.protocolClosed.Add(1)
			s.logf("conn %d (%s): %v", c.id.ID, c.nc.RemoteAddr(), err)
			_ = c.flush() // answer what came before, then close
			return
		}
		if len(c.out) >= flushAt {
			if err := c.flush(); err != nil {
				c.finish(err)
				return
			}
		}
	}
}

// finish ends a connection whose reading stopped: on a drain or a clean
// end of input it first flushes what was answered.
func (c *conn) finish(err error) {
	switch {
	case errors.Is(err, errDone), err == io.EOF:
		_ = c.flush()
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.s.stats.timedOut.Add(1)
	case errors.Is(err, errClose):
		c.s.stats.protocolClosed.Add(1)
	}
}

// setDeadline sets the read deadline to at, unless it is already close or
// the connection is draining (then the next read gets drainWait).
func (c *conn) setDeadline(at time.Time) error {
	if c.draining.Load() {
		return c.drainDeadline()
	}
	if d := at.Sub(c.deadline); d > -time.Millisecond && d < time.Millisecond {
		return nil
	}
	c.deadline = at
	err := c.nc.SetReadDeadline(at)
	if c.draining.Load() {
		// drain ran meanwhile and may have been overwritten: restore.
		_ = c.nc.SetReadDeadline(time.Now().Add(drainWait))
	}
	return err
}

// nextFrame returns the next request frame (without its size prefix). The
// frame is valid until the next call. Before blocking for input it writes
// the pending responses, so a batch of pipelined requests is answered with
// one write.
func (c *conn) nextFrame() ([]byte, error) {
	if c.br.Buffered() == 0 {
		if err := c.flush(); err != nil {
			return nil, err
		}
		// The idle deadline is renewed only once half of it has passed:
		// setting a deadline on every request costs more than the request.
		// A draining connection gives each read drainWait.
		if c.draining.Load() {
			if err := c.drainDeadline(); err != nil {
				return nil, err
			}
		} else if now := time.Now(); c.deadline.Sub(now) < c.s.cfg.IdleTimeout/2 || c.deadline.Sub(now) > c.s.cfg.IdleTimeout {
			if err := c.setDeadline(now.Add(c.s.cfg.IdleTimeout)); err != nil {
				return nil, err
			}
		}
		if _, err := c.br.Peek(1); err != nil {
			return nil, c.readErr(err)
		}
	}
	// A frame has begun: the rest must come within FrameTimeout, unless
	// it is already here.
	if c.br.Buffered() < 4 {
		if err := c.frameDeadline(); err != nil {
			return nil, err
		}
	}
	p, err := c.br.Peek(4)
	if err != nil {
		return nil, c.readErr(err)
	}
	n := int(int32(binary.BigEndian.Uint32(p)))
	if n < 0 || n > c.s.cfg.MaxFrameSize {
		return nil, fmt.Errorf("%w: frame size %d, maximum %d", errClose, n, c.s.cfg.MaxFrameSize)
	}
	if 4+n <= c.br.Size() {
		if c.br.Buffered() < 4+n {
			if err := c.frameDeadline(); err != nil {
				return nil, err
			}
		}
		b, err := c.br.Peek(4 + n)
		if err != nil {
			return nil, c.readErr(err)
		}
		_, _ = c.br.Discard(4 + n) // b stays valid until the next read
		return b[4:], nil
	}
	if err := c.frameDeadline(); err != nil {
		return nil, err
	}
	b, err := codec.ReadFrame(c.br, c.big[:0], c.s.cfg.MaxFrameSize)
	if err != nil {
		return nil, c.readErr(err)
	}
	// Keep a modest buffer for the next large frame; let a huge one go
	// once it has been handled, so idle connections stay small.
	if cap(b) <= 64<<10 {
		c.big = b[:0]
	} else {
		c.big = nil
	}
	return b, nil
}

func (c *conn) frameDeadline() error {
	return c.setDeadline(time.Now().Add(c.s.cfg.FrameTimeout))
}

// readErr maps a read error: a deadline during a drain is the drain.
func (c *conn) readErr(err error) error {
	if c.draining.Load() && errors.Is(err, os.ErrDeadlineExceeded) {
		return errDone
	}
	if err == io.ErrUnexpectedEOF {
		return errClose
	}
	return err
}

// flush writes the pending responses.
func (c *conn) flush() error {
	if len(c.out) == 0 {
		return nil
	}
	// Like the idle deadline, the write deadline is renewed once half
	// of it has passed: a write may then take between half and all of
	// WriteTimeout before the peer is dropped.
	if now := time.Now(); c.wdl.Sub(now) < c.s.cfg.WriteTimeout/2 {
		c.wdl = now.Add(c.s.cfg.WriteTimeout)
		_ = c.nc.SetWriteDeadline(c.wdl)
	}
	_, err := c.nc.Write(c.out)
	if cap(c.out) > 4*flushAt {
		c.out = nil // let a burst's buffer go
	} else {
		c.out = c.out[:0]
	}
	return err
}

// handle serves one request frame, appending its response to c.out. An
// error means the connection must close without a response to it.
func (c *conn) handle(frame []byte) error {
	s := c.s
	if s.handleDelay > 0 {
		time.Sleep(s.handleDelay)
	}
	h := &c.hdr
	off, err := codec.ParseRequestHeader(frame, h, c.opts)
	if err != nil {
		return fmt.Errorf("request header: %w", err)
	}
	key, v := h.RequestApiKey, h.RequestApiVersion
	r := s.served[key] // key < 128: ParseRequestHeader knows the key
	if v < r[0] || v >= r[1] {
		if key == codec.ApiVersions && v >= 0 {
			// KIP-511: the body is not parsed; a v0 answer lists the
			// ApiVersions range so the client can retry.
			c.out, err = codec.AppendResponse(c.out, h.CorrelationId, 0, s.coord.UnsupportedApiVersionsResponse())
			s.stats.requests.Add(1)
			return err
		}
		return fmt.Errorf("%v v%d is not served", key, v)
	}
	body := frame[off:]
	if key == codec.ConsumerGroupHeartbeat {
		// The fast path: reused request and response, no allocation for
		// a steady heartbeat.
		if err := c.hb.Decode(body, v, c.opts); err != nil {
			return err
		}
		if err := s.coord.HandleHeartbeat(c.id, h, &c.hb, &c.hbr); err != nil {
			return err
		}
		c.out, err = codec.AppendResponse(c.out, h.CorrelationId, v, &c.hbr)
		s.stats.requests.Add(1)
		return err
	}
	req := codec.Lookup(key).NewMessage(false)
	if err := codec.DecodeBody(req, body, v, c.opts); err != nil {
		return err
	}
	c.id.Delivery = s.delivery.Add(1)
	resp, err := s.coord.Handle(c.id, h, req)
	s.route()
	if errors.Is(err, impl.ErrParked) {
		resp, err = c.await(c.id.Delivery)
	}
	if err != nil {
		return err
	}
	c.out, err = codec.AppendResponse(c.out, h.CorrelationId, v, resp)
	s.stats.requests.Add(1)
	return err
}

// errDropped ends a connection whose held request will never be answered.
var errDropped = errors.New("server: the held request will never be answered")

// await waits for the answer to held request d: its connection reads
// nothing meanwhile. What was answered so far is written first.
func (c *conn) await(d uint64) (codec.Message, error) {
	s := c.s
	if err := c.flush(); err != nil {
		s.abandon(d)
		return nil, err
	}
	ch := make(chan impl.Release, 1)
	s.waitMu.Lock()
	r, ok := s.early[d]
	if ok {
		delete(s.early, d)
	} else {
		s.waiting[d] = ch
	}
	s.waitMu.Unlock()
	if !ok {
		select {
		case r = <-ch:
		case <-s.stopWait:
			s.abandon(d)
			return nil, errClose
		}
	}
	if r.Dropped {
		return nil, errDropped
	}
	return r.Response, nil
}

// abandon gives up waiting for d: its answer, if it comes, is dropped.
func (s *Server) abandon(d uint64) {
	s.waitMu.Lock()
	delete(s.waiting, d)
	if _, ok := s.early[d]; ok {
		delete(s.early, d)
	} else {
		s.gone[d] = true
	}
	s.waitMu.Unlock()
}

// route hands the coordinator's answers to held requests to the
// connections waiting for them.
func (s *Server) route() {
	rs := s.coord.Released()
	if len(rs) == 0 {
		return
	}
	s.waitMu.Lock()
	defer s.waitMu.Unlock()
	for _, r := range rs {
		switch ch, ok := s.waiting[r.Delivery]; {
		case ok:
			delete(s.waiting, r.Delivery)
			ch <- r // buffered: never blocks
		case s.gone[r.Delivery]:
			delete(s.gone, r.Delivery)
		default:
			s.early[r.Delivery] = r
		}
	}
}
