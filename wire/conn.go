package wire

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// ErrNoResponse is wrapped by every error of a request that was (or may
// have been) written and got no usable response: the broker may or may
// not have applied it. Any other error means nothing was sent.
var ErrNoResponse = errors.New("wire: no response, outcome unknown")

// ErrConnClosed is returned (wrapping ErrNoResponse) when the broker closed
// the connection instead of answering: a broker does that to a request it
// does not serve, and then it applied nothing, but from outside a closed
// connection cannot be told from a crash after the request was applied.
var ErrConnClosed = fmt.Errorf("%w: the broker closed the connection", ErrNoResponse)

const (
	// DefaultTimeout bounds a dial, a write and a wait for a response when
	// Options.Timeout is 0.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxResponseSize is the response frame cap when
	// Options.MaxResponseSize is 0: far above any response of the apis
	// ghostcheck speaks, far below what would hurt the checking process.
	DefaultMaxResponseSize = 16 << 20
)

// Options shape a connection.
type Options struct {
	// Timeout bounds the dial and, later, each write and each wait for a
	// response (0: DefaultTimeout). A wait may get between half of it and
	// all of it: deadlines are renewed at half-life.
	Timeout time.Duration
	// MaxResponseSize caps a response frame, checked against its size
	// prefix before anything is allocated (0: DefaultMaxResponseSize).
	MaxResponseSize int
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxResponseSize <= 0 {
		o.MaxResponseSize = DefaultMaxResponseSize
	}
	return o
}

// Conn is one Kafka connection that speaks in codec types: it frames
// requests, reads responses, and matches their correlation ids. It is not
// safe for concurrent use.
type Conn struct {
	nc   net.Conn
	br   *bufio.Reader
	opts Options
	wbuf []byte
	rbuf []byte
	// pending are the requests written (or buffered) and not yet
	// received, oldest first; the slice's storage is reused.
	pending []sent
	// rh is ReceiveInto's response header, reused.
	rh codec.ResponseHeader
	// rdl, wdl are the deadlines set; renewed once half of the timeout
	// has passed, not on every request.
	rdl, wdl Deadline
	// broken is the transport error that left the stream unusable; every
	// later call returns it.
	broken error
}

// sent is what a response is matched and decoded against.
type sent struct {
	key     codec.APIKey
	version int16
	corr    int32
}

// Dial connects to a broker at addr.
func Dial(addr string, o Options) (*Conn, error) {
	o = o.withDefaults()
	nc, err := net.DialTimeout("tcp", addr, o.Timeout)
	if err != nil {
		return nil, err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	return NewConn(nc, o), nil
}

// NewConn speaks Kafka over an established connection (a proxy's
// accepted socket, a test's pipe). The Conn owns nc from then on.
func NewConn(nc net.Conn, o Options) *Conn {
	return &Conn{nc: nc, br: bufio.NewReaderSize(nc, 16<<10), opts: o.withDefaults()}
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// NetConn is the underlying connection, for tests that misbehave on it.
func (c *Conn) NetConn() net.Conn { return c.nc }

// Pending is the number of requests sent or buffered and not yet received.
func (c *Conn) Pending() int { return len(c.pending) }

func (c *Conn) readDeadline() {
	if at, due := c.rdl.Renew(c.opts.Timeout); due {
		_ = c.nc.SetReadDeadline(at)
	}
}

func (c *Conn) writeDeadline() {
	if at, due := c.wdl.Renew(c.opts.Timeout); due {
		_ = c.nc.SetWriteDeadline(at)
	}
}

// Deadline is a socket deadline renewed at half-life: a new one is due
// only once less than half of its timeout remains, so a connection busy
// at full speed pays a timer update every half timeout, not one per
// request. Conn keeps its deadlines so, and so does the proxy.
type Deadline struct{ at time.Time }

// Renew returns the deadline timeout from now, and true, when less than
// half of timeout remains of the last one (the caller then sets it on its
// socket); else false.
func (d *Deadline) Renew(timeout time.Duration) (time.Time, bool) {
	now := time.Now()
	if d.at.Sub(now) >= timeout/2 {
		return time.Time{}, false
	}
	d.at = now.Add(timeout)
	return d.at, true
}

// Reset forgets the last deadline, so the next Renew is due: the caller
// set another deadline on the socket meanwhile, or cleared it.
func (d *Deadline) Reset() { d.at = time.Time{} }

// errBuffered is Send's refusal while requests wait in the buffer: they
// would be written after this one, out of order.
var errBuffered = errors.New("wire: Send with requests buffered; Flush first")

// Send writes one request frame. Requests may be pipelined: Send several,
// then Receive each, in order. A request refused before it is written
// (requests buffered, or one codec cannot encode) is not pending; one
// whose write failed is (its outcome is unknown, and the connection is
// broken).
func (c *Conn) Send(h *codec.RequestHeader, req codec.Message) error {
	if c.broken != nil {
		return c.broken
	}
	if len(c.wbuf) > 0 {
		return errBuffered
	}
	b, err := codec.AppendRequest(c.wbuf[:0], h, req)
	if err != nil {
		return err
	}
	c.wbuf = b[:0]
	c.pending = append(c.pending, sent{h.RequestApiKey, h.RequestApiVersion, h.CorrelationId})
	return c.write(b)
}

// Buffer appends one request frame to the output without writing it;
// Flush writes everything buffered at once (pipelining in one write).
func (c *Conn) Buffer(h *codec.RequestHeader, req codec.Message) error {
	if c.broken != nil {
		return c.broken
	}
	b, err := codec.AppendRequest(c.wbuf, h, req)
	if err != nil {
		return err
	}
	c.wbuf = b
	c.pending = append(c.pending, sent{h.RequestApiKey, h.RequestApiVersion, h.CorrelationId})
	return nil
}

// Flush writes the buffered requests.
func (c *Conn) Flush() error {
	if c.broken != nil {
		return c.broken
	}
	if len(c.wbuf) == 0 {
		return nil
	}
	err := c.write(c.wbuf)
	c.wbuf = c.wbuf[:0]
	return err
}

// write writes b; a failed write may have sent part of a frame, so the
// connection is broken from then on.
func (c *Conn) write(b []byte) error {
	c.writeDeadline()
	if _, err := c.nc.Write(b); err != nil {
		c.broken = fmt.Errorf("%w: write: %w", ErrNoResponse, err)
		return c.broken
	}
	return nil
}

// WriteRaw writes bytes as they are (for tests that send malformed input).
func (c *Conn) WriteRaw(b []byte) error {
	if c.broken != nil {
		return c.broken
	}
	return c.write(b)
}

// ReadFrame reads one response frame (without its size prefix) without
// matching it to a request: for tests that read what a raw write brought.
// The frame is valid until the next read.
func (c *Conn) ReadFrame() ([]byte, error) {
	if c.broken != nil {
		return nil, c.broken
	}
	c.readDeadline()
	b, err := readFrame(c.br, c.rbuf[:0], c.opts.MaxResponseSize)
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF || errors.Is(err, net.ErrClosed) || isReset(err) {
			c.broken = ErrConnClosed
		} else {
			c.broken = fmt.Errorf("%w: %w", ErrNoResponse, err)
		}
		return nil, c.broken
	}
	c.rbuf = b
	return b, nil
}

// PeerClosed reports, without waiting, whether the broker has closed this
// idle connection: a client that keeps connections between requests asks
// before reusing one, since brokers close idle ones
// (connections.max.idle.ms), and a request written into a closed
// connection would come back as an unknown outcome although nothing was
// applied. Bytes the broker sent unasked leave the stream unframed, so
// they count as closed too; either way the connection is broken from then
// on. It is false while requests are pending (their answers may be on the
// way).
//
// On a TCP socket (under TLS or not) it peeks at the socket without
// reading; on any other net.Conn (a wrapped one) it reads with a deadline
// of a millisecond.
func (c *Conn) PeerClosed() bool {
	if c.broken != nil {
		return true
	}
	if len(c.pending) > 0 || len(c.wbuf) > 0 {
		return false
	}
	if c.br.Buffered() > 0 {
		return c.unasked()
	}
	nc, overTLS := c.nc, false
	if tc, ok := nc.(*tls.Conn); ok {
		nc, overTLS = tc.NetConn(), true
	}
	switch peekSocket(nc) {
	case peerIdle:
		return false
	case peerGone:
		c.broken = ErrConnClosed
		return true
	case peerSent:
		if !overTLS {
			return c.unasked()
		}
		// A TLS record: a session ticket, or an alert closing the
		// connection. Reading tells.
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(peekWait))
	_, err := c.br.Peek(1)
	c.rdl.Reset() // the next read sets its own deadline
	var ne net.Error
	switch {
	case err == nil:
		return c.unasked()
	case errors.As(err, &ne) && ne.Timeout():
		return false
	}
	c.broken = ErrConnClosed
	return true
}

// peekWait bounds PeerClosed's read where it cannot peek.
const peekWait = time.Millisecond

func (c *Conn) unasked() bool {
	c.broken = fmt.Errorf("%w: the broker sent bytes unasked", ErrNoResponse)
	return true
}

// peerState is what a look at a socket found.
type peerState uint8

const (
	peerUnknown peerState = iota // the socket cannot be peeked at
	peerIdle                     // open, nothing to read
	peerGone                     // closed or reset by the peer
	peerSent                     // bytes wait to be read
)

// isReset reports a connection error other than a timeout (a reset, a
// broken pipe): the peer is gone.
func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

// next takes the oldest pending request and reads the frame answering it.
func (c *Conn) next(op string) (sent, []byte, error) {
	if len(c.pending) == 0 {
		return sent{}, nil, fmt.Errorf("wire: %s with no request outstanding", op)
	}
	p := c.pending[0]
	// Shift down so that the slice's storage is reused (a few requests
	// are pending at most).
	n := copy(c.pending, c.pending[1:])
	c.pending = c.pending[:n]
	frame, err := c.ReadFrame()
	return p, frame, err
}

// Receive reads the response to the oldest request sent and not yet
// received. An ApiVersions response that does not decode at the request's
// version is decoded at v0 (a broker answers a version it does not know
// with a v0 body, KIP-511).
func (c *Conn) Receive() (codec.Message, error) {
	p, frame, err := c.next("Receive")
	if err != nil {
		return nil, err
	}
	h, resp, err := codec.DecodeResponse(frame, p.key, p.version, codec.DecodeOptions{})
	if err != nil && p.key == codec.ApiVersions && p.version > 0 {
		h, resp, err = codec.DecodeResponse(frame, p.key, 0, codec.DecodeOptions{})
	}
	if err != nil {
		return nil, undecodable(p, err)
	}
	if h.CorrelationId != p.corr {
		return nil, mismatched(p, h.CorrelationId)
	}
	return resp, nil
}

// ReceiveInto is Receive into the caller's response m, which must be of
// the oldest pending request's api, reusing m's storage: a client reading
// a stream of heartbeat responses allocates nothing.
func (c *Conn) ReceiveInto(m codec.Message) error {
	if len(c.pending) > 0 && m.Key() != c.pending[0].key {
		return fmt.Errorf("wire: ReceiveInto a %v response, but the oldest request is %v", m.Key(), c.pending[0].key)
	}
	p, frame, err := c.next("ReceiveInto")
	if err != nil {
		return err
	}
	err = codec.DecodeResponseInto(frame, &c.rh, m, p.version, codec.DecodeOptions{})
	if err != nil && p.key == codec.ApiVersions && p.version > 0 {
		err = codec.DecodeResponseInto(frame, &c.rh, m, 0, codec.DecodeOptions{})
	}
	if err != nil {
		return undecodable(p, err)
	}
	if c.rh.CorrelationId != p.corr {
		return mismatched(p, c.rh.CorrelationId)
	}
	return nil
}

func undecodable(p sent, err error) error {
	return fmt.Errorf("%w: undecodable %v v%d response: %w", ErrNoResponse, p.key, p.version, err)
}

func mismatched(p sent, got int32) error {
	return fmt.Errorf("%w: %v response carries correlation id %d, want %d", ErrNoResponse, p.key, got, p.corr)
}

// RoundTrip sends one request and returns its response. A refused Send
// (requests buffered, say) leaves the requests pending as they were.
func (c *Conn) RoundTrip(h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	if err := c.Send(h, req); err != nil {
		return nil, err
	}
	return c.Receive()
}
