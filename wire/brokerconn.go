package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"github.com/ghostcheck/ghostcheck/codec"
)

// brokerConn is a Cluster's one connection to one broker, made when first
// used and made again after it fails.
type brokerConn struct {
	Broker

	mu       sync.Mutex // one round trip at a time
	conn     *Conn
	hm       *Headers
	versions Versions

	up   atomic.Bool // a connection is open (read without mu)
	gone atomic.Bool // the cluster dropped this broker: no new connection
}

// request makes a request for a broker's versions: the version to send
// and the body, or why there is none (nothing is sent then).
type request func(vs Versions) (int16, codec.Message, error)

// fixedVersion is req at version v, refused when the broker does not
// offer it.
func fixedVersion(v int16, req codec.Message) request {
	return func(vs Versions) (int16, codec.Message, error) {
		if !vs.Offers(req.Key(), v) {
			r, ok := vs[req.Key()]
			return 0, nil, fmt.Errorf("%w: %v v%d (the broker offers %s)", ErrVersionNotOffered, req.Key(), v, rangeString(r, ok))
		}
		return v, req, nil
	}
}

func (b *brokerConn) isOpen() bool { return b.up.Load() }

// roundTrip sends the request req makes on the broker's connection,
// dialling it first when there is none, or when the broker had closed it
// while idle (redialed then says so). A transport error closes the
// connection; the next round trip dials again.
func (b *brokerConn) roundTrip(ctx context.Context, c *Cluster, req request) (resp codec.Message, redialed bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer func() {
		if b.gone.Load() && b.conn != nil {
			b.drop(c)
		}
	}()
	if b.conn != nil && b.conn.PeerClosed() {
		b.drop(c)
		redialed = true
	}
	if b.conn == nil {
		if err := b.dial(ctx, c); err != nil {
			return nil, redialed, err
		}
	}
	v, m, err := req(b.versions)
	if err != nil {
		return nil, redialed, err
	}
	resp, err = b.conn.RoundTrip(b.hm.Next(m.Key(), v), m)
	if err != nil {
		b.drop(c)
		return nil, redialed, err
	}
	return resp, redialed, nil
}

// negotiated are the broker's versions, dialling it when needed.
func (b *brokerConn) negotiated(ctx context.Context, c *Cluster) (Versions, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn != nil && b.conn.PeerClosed() {
		b.drop(c)
	}
	if b.conn == nil {
		if err := b.dial(ctx, c); err != nil {
			return nil, err
		}
	}
	return b.versions, nil
}

func (b *brokerConn) dial(ctx context.Context, c *Cluster) error {
	if b.gone.Load() {
		return fmt.Errorf("wire: broker %d at %s is no longer listed", b.ID, b.Addr)
	}
	hm, err := NewHeaders(codec.Str(c.o.ClientID), c.instance)
	if err != nil {
		return err
	}
	conn, p, err := c.o.Dialer.DialNegotiated(ctx, b.Addr, hm, c.o.Negotiate)
	if err != nil {
		return dialFailed(b.ID, err)
	}
	if !c.register(conn) {
		conn.Close()
		return ErrClusterClosed
	}
	b.conn, b.hm, b.versions = conn, hm, p.Negotiation.Versions
	b.up.Store(true)
	return nil
}

// handOver gives b's connection to nb when nb has none (the bootstrap
// connection to a broker standing alone becomes the broker's).
func (b *brokerConn) handOver(nb *brokerConn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	nb.mu.Lock()
	defer nb.mu.Unlock()
	if b.conn == nil || nb.conn != nil {
		return
	}
	nb.conn, nb.hm, nb.versions = b.conn, b.hm, b.versions
	nb.up.Store(true)
	b.conn, b.hm = nil, nil
	b.up.Store(false)
}

// drop closes the connection (b.mu held).
func (b *brokerConn) drop(c *Cluster) {
	c.unregister(b.conn)
	b.conn.Close()
	b.conn, b.hm = nil, nil
	b.up.Store(false)
}

// close retires the broker: its connection is closed now if idle, else
// when the round trip on it ends.
func (b *brokerConn) close(c *Cluster) {
	b.gone.Store(true)
	if b.mu.TryLock() {
		if b.conn != nil {
			b.drop(c)
		}
		b.mu.Unlock()
	}
}

func (c *Cluster) register(conn *Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.open[conn] = struct{}{}
	return true
}

func (c *Cluster) unregister(conn *Conn) {
	c.mu.Lock()
	delete(c.open, conn)
	c.mu.Unlock()
}

// DialError is a connection to a broker that could not be made, with its
// ApiVersions and SASL prelude: nothing of the caller's was sent.
type DialError struct {
	Broker int32
	Err    error
}

func (e *DialError) Error() string {
	return fmt.Sprintf("wire: broker %s: %v", brokerName(e.Broker), e.Err)
}
func (e *DialError) Unwrap() error { return e.Err }

func dialFailed(id int32, err error) error {
	if errors.Is(err, ErrClusterClosed) {
		return err
	}
	return &DialError{Broker: id, Err: err}
}

// transient reports a dial failure worth trying again after a backoff: the
// network's (refused, reset, timed out, closed during the prelude), not a
// certificate, a TLS alert or a refused authentication, which the next
// try would meet again.
func transient(err error) bool {
	var de *DialError
	if !errors.As(err, &de) || errors.Is(err, ErrAuth) {
		return false
	}
	var cv *tls.CertificateVerificationError
	var alert tls.AlertError
	if errors.As(err, &cv) || errors.As(err, &alert) {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Op != "remote error" // a TLS alert the broker sent
	}
	return errors.Is(err, ErrNoResponse)
}
