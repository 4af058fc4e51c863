package proxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/wire"
)

// A client connection is two goroutines over two sockets. The request pump
// reads the client's frames, records each header, decides a group
// request's fault, and forwards the frames to the broker, several in one
// write when the client pipelines. The response pump reads the broker's
// frames, matches each to the oldest request still owed an answer (Kafka
// answers a connection's requests in order), rewrites routing answers,
// records what the rules read, and relays them, several in one write. An
// error answer the proxy makes itself takes its place in that order: it is
// queued behind the answers still owed, or written at once when none is.

var (
	errFrameSize   = errors.New("proxy: frame size out of range")
	errShortHeader = errors.New("proxy: frame too short for a request header")
	errUnsolicited = errors.New("proxy: the broker answered a request nobody sent")
	errCorrelation = errors.New("proxy: the broker's answer carries another correlation id")
	errInFlight    = errors.New("proxy: too many requests in flight on one connection")
	errDropped     = errors.New("proxy: response dropped (fault)")
	errFaultClosed = errors.New("proxy: connection closed after forwarding (fault)")
)

// maxInFlight bounds the requests owed an answer on one connection (Kafka
// clients keep a handful in flight).
const maxInFlight = 1024

// maxRecordedFrame bounds the answers read whole to be recorded; a larger
// one (no group answer is near it) is relayed unrecorded. Routing answers,
// which must be read to be rewritten, are bounded by MaxFrameSize only.
const maxRecordedFrame = 16 << 20

// readerSize is each side's read buffer: a frame that fits is forwarded
// from it without a copy; a larger one is streamed (or, for the few
// answers the proxy reads, read whole).
const readerSize = 32 << 10

// entry is a request owed an answer, in the order of the connection.
type entry struct {
	rec     *rec // nil when not recorded
	key     codec.APIKey
	version int16
	corr    int32
	fault   Fault
	// synthetic is an answer the proxy made (an AnswerError fault),
	// written in this place instead of reading one from the broker.
	synthetic []byte
}

// conn is one client connection and its connection to the broker.
type conn struct {
	p           *Proxy
	id          uint64
	l           *listener
	client, up  net.Conn
	creq, uresp frameReader
	cwdl, uwdl  wire.Deadline // write deadlines, renewed at half-life
	done        chan struct{}
	once        sync.Once
	mu          sync.Mutex // guards q and busy
	q, qbuf     []entry
	busy        bool // the response pump holds an answer not yet written
	recs        records
	reqArena    arena // the request pump's
	respArena   arena // the response pump's
	h           codec.RequestHeader
	hb          codec.ConsumerGroupHeartbeatRequest
	lg          codec.LeaveGroupRequest
}

// serve runs one client connection until either side ends it.
func (p *Proxy) serve(nc net.Conn, l *listener) {
	defer p.wg.Done()
	defer p.open.Add(-1)
	up, err := p.dialUpstream(l.upstream)
	if err != nil {
		p.cfg.Logf("proxy: %s: dialing %s: %v", nc.RemoteAddr(), l.upstream, err)
		nc.Close()
		return
	}
	c := &conn{p: p, id: p.nextConn.Add(1), l: l, client: nc, up: up, done: make(chan struct{})}
	c.creq = frameReader{br: bufio.NewReaderSize(nc, readerSize), nc: nc, max: p.cfg.MaxFrameSize, frameTimeout: p.cfg.FrameTimeout, idle: p.cfg.IdleTimeout}
	c.uresp = frameReader{br: bufio.NewReaderSize(up, readerSize), nc: up, max: p.cfg.MaxFrameSize, frameTimeout: p.cfg.FrameTimeout}
	for _, s := range []net.Conn{nc, up} {
		if tc, ok := s.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
	}
	if !p.register(c) {
		nc.Close()
		up.Close()
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.close(c.pumpResponses())
	}()
	c.close(c.pumpRequests())
	wg.Wait()
	p.unregister(c)
}

// dialUpstream opens a connection to the broker at addr: with
// Config.DialUpstream when set (TLS), else plain TCP; DialTimeout bounds
// it.
func (p *Proxy) dialUpstream(addr string) (net.Conn, error) {
	if p.cfg.DialUpstream == nil {
		d := net.Dialer{Timeout: p.cfg.DialTimeout}
		return d.DialContext(p.ctx, "tcp", addr)
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.DialTimeout)
	defer cancel()
	return p.cfg.DialUpstream(ctx, addr)
}

func (p *Proxy) register(c *conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// unregister forgets an ended connection, keeping a copy of its records
// (none when it recorded nothing): the conn itself, with its buffers, is
// let go.
func (p *Proxy) unregister(c *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, c)
	if c.recs.n > 0 {
		p.ended = append(p.ended, connRecord{id: c.id, broker: c.l.upstream, recs: c.recs})
	}
}

// close ends the connection (both sockets) once, for the first reason.
func (c *conn) close(why error) {
	c.once.Do(func() {
		close(c.done)
		c.client.Close()
		c.up.Close()
		switch {
		case why == nil, errors.Is(why, io.EOF), errors.Is(why, errProxyClosed), errors.Is(why, errDropped),
			errors.Is(why, errFaultClosed), errors.Is(why, net.ErrClosed):
		default:
			var ce *codec.Error
			if errors.As(why, &ce) || errors.Is(why, errFrameSize) || errors.Is(why, errShortHeader) || errors.Is(why, errUnsolicited) ||
				errors.Is(why, errCorrelation) || errors.Is(why, errInFlight) || errors.Is(why, errRewrite) || errors.Is(why, io.ErrUnexpectedEOF) {
				c.p.protocolErrors.Add(1)
			}
			c.p.cfg.Logf("proxy: conn %d (%s, to %s) closed: %v", c.id, c.client.RemoteAddr(), c.l.upstream, why)
		}
	})
}

// frameReader reads frames off one socket: the size checked against max
// before anything is allocated, an idle deadline (when idle > 0) renewed
// at half-life while waiting for a frame, and a frame deadline,
// frameTimeout, on the rest of every frame that has not arrived whole when
// its size has: it holds while the frame is streamed or read whole, and
// is lifted when the next frame is asked for. A peer that sends part of a
// frame and stops loses its connection after frameTimeout, whatever the
// frame's size.
type frameReader struct {
	br           *bufio.Reader
	nc           net.Conn
	max          int
	frameTimeout time.Duration
	idle         time.Duration
	idleDL       wire.Deadline
	armed        bool // a frame deadline is set
}

// next waits for the next frame and returns its size and its bytes, size
// prefix included: all of them when the frame fits the buffer (whole),
// else the first ones. Nothing is consumed: the caller discards or copies
// the frame before the next call.
func (f *frameReader) next() (size int, b []byte, whole bool, err error) {
	if f.armed {
		f.armed = false
		f.idleDL.Reset()
		if f.idle == 0 {
			_ = f.nc.SetReadDeadline(time.Time{})
		}
	}
	if f.idle > 0 {
		if at, due := f.idleDL.Renew(f.idle); due {
			_ = f.nc.SetReadDeadline(at)
		}
	}
	p, err := f.br.Peek(4)
	if err != nil {
		if err == io.EOF && len(p) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, false, err
	}
	size = int(int32(binary.BigEndian.Uint32(p)))
	if size < 0 || size > f.max {
		return 0, nil, false, fmt.Errorf("%w: %d, maximum %d", errFrameSize, size, f.max)
	}
	if f.br.Buffered() < 4+size {
		f.arm()
	}
	n := min(4+size, f.br.Size())
	if b, err = f.br.Peek(n); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, false, err
	}
	return size, b, n == 4+size, nil
}

// arm gives the rest of the frame next found frameTimeout from now.
func (f *frameReader) arm() {
	f.armed = true
	_ = f.nc.SetReadDeadline(time.Now().Add(f.frameTimeout))
}

// rearm renews the frame deadline, if one is set: the caller held the
// frame for a while (a delayed answer) before reading the rest.
func (f *frameReader) rearm() {
	if f.armed {
		f.arm()
	}
}

// whole returns the frame next found, whole: the peeked bytes when they
// are (consumed false: the caller discards them), else read into a new
// buffer that grows as the bytes arrive (consumed true).
func (f *frameReader) whole(size int, b []byte, whole bool) ([]byte, bool, error) {
	if whole {
		return b, false, nil
	}
	buf, err := codec.AppendFrameBytes(nil, f.br, 4+size)
	if err != nil {
		return nil, true, err
	}
	return buf, true, nil
}

// write writes b to nc with a write deadline renewed at half-life.
func write(nc net.Conn, dl *wire.Deadline, timeout time.Duration, b []byte) error {
	if at, due := dl.Renew(timeout); due {
		_ = nc.SetWriteDeadline(at)
	}
	_, err := nc.Write(b)
	return err
}
