package conformance

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/wire"
)

// A case speaks to one broker of the cluster, its home: the coordinator
// of the first group it names, or, when it names none before its first
// request, a broker picked by the case's position in the run (so the
// cases spread over the brokers). Every group a case draws after that is
// drawn again, under another name, until its coordinator is home (probe.id):
// a case keeps the one connection its rule is about, as on a single
// broker, and its connection's first request and ClientId mean what they
// mean there. Each group request goes through wire.Cluster.Do, which
// retries NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and
// COORDINATOR_LOAD_IN_PROGRESS as Kafka's clients do; a coordinator error
// is never judged by itself. A group the case did not draw (a blank or
// empty group id a case is about) goes to its own coordinator, on a
// connection of the case's to that broker, as a client keeps one per
// broker. A case whose group's coordinator moved away from the broker
// that answered it before ends as SKIP, saying so: its connection is to a
// broker that no longer coordinates the group.

// maxGroupDraws bounds the names probe.id tries for a group whose
// coordinator is the case's home: with n brokers coordinating evenly, a
// name lands on home with probability 1/n, and 64 misses in a row of 3
// brokers happen once in 10^11 cases.
const maxGroupDraws = 64

var probeInstance = codec.UUID{0x67, 0x68, 0x6f, 0x73, 0x74, 0x63, 0x68, 0x65, 0x63, 0x6b, 0x2d, 0x63, 0x6f, 0x6e, 0x66, 0x31}

// pconn is one of a case's connections to its home broker, with its
// KIP-1313 headers. It is dialled on first use, so that a case that names
// its group after opening the connection still speaks to the group's
// coordinator.
type pconn struct {
	p  *probe
	w  *wire.Conn // nil until dialled
	hm *wire.Headers
	// broker is the broker w goes to (-1: home, once dialled).
	broker int32
	// others are the connection's siblings to other brokers, for groups
	// the case did not draw (same ClientId and instance id).
	others map[int32]*pconn
	// firstID is the ClientId its first request carries.
	firstID *codec.NullableString
	// timeout bounds each wait for a response (0: the peer's): a classic
	// member's waits for its held JoinGroup (classic.go).
	timeout time.Duration
}

// conn opens a connection whose first request carries ClientId
// "ghostcheck-check".
func (p *probe) conn() *pconn { return p.connAs(codec.Str("ghostcheck-check")) }

// connAs opens a connection whose first request carries clientID; it is
// dialled on its first request (a dial that fails then fails the case).
func (p *probe) connAs(clientID codec.NullableString) *pconn {
	hm, err := wire.NewHeaders(clientID, probeInstance)
	if err != nil {
		panic(abort{fail(err.Error(), "a connection")})
	}
	c := &pconn{p: p, hm: hm, broker: -1, firstID: &clientID}
	p.addConn(c)
	return c
}

// addConn keeps c among the case's connections, closed with the case.
func (p *probe) addConn(c *pconn) {
	p.mu.Lock()
	p.conns = append(p.conns, c)
	p.mu.Unlock()
}

// dial opens a connection whose first request carries clientID, now: its
// error is the case's to judge.
func (p *probe) dial(clientID codec.NullableString) (*pconn, error) {
	c := p.connAs(clientID)
	return c, c.open(nil)
}

func (p *probe) close() {
	for _, c := range p.conns {
		if c.w != nil {
			c.w.Close()
		}
	}
}

// open dials the connection if it is not yet, to the case's home broker;
// req, the request about to be sent, fixes home when nothing has yet. What
// the case writes on it is recorded (probe.sent). With SASL the exchange
// runs now, with the connection's own headers, so its first request (the
// exchange's ApiVersions) carries the connection's ClientId.
func (c *pconn) open(req codec.Message) error {
	if c.w != nil {
		return nil
	}
	if g, ok := codec.GroupOf(req); ok && c.p.home < 0 {
		c.p.settle(g)
	}
	b := c.p.homeBroker()
	if c.broker >= 0 {
		var ok bool
		if b, ok = c.p.cl.Broker(c.broker); !ok {
			return fmt.Errorf("broker %d is no longer listed", c.broker)
		}
	}
	d := c.p.peer.Dialer
	d.Timeout = c.p.peer.Timeout
	if c.timeout > 0 {
		d.Timeout = c.timeout
	}
	d.Wrap = func(nc net.Conn) net.Conn { return recorder{nc, c.p} }
	w, _, err := d.Dial(c.p.ctx, b.Addr, c.hm)
	if err != nil {
		return err
	}
	c.w, c.broker = w, b.ID
	return nil
}

// sibling is c's connection to broker id, dialled now if it is new: its
// first request carries c's ClientId, its headers c's instance id.
func (c *pconn) sibling(id int32) (*pconn, error) {
	if x := c.others[id]; x != nil {
		return x, nil
	}
	hm, err := wire.NewHeaders(c.clientID(), c.hm.InstanceID())
	if err != nil {
		return nil, err
	}
	first := c.clientID()
	x := &pconn{p: c.p, hm: hm, broker: id, firstID: &first, timeout: c.timeout}
	c.p.addConn(x)
	if err := x.open(nil); err != nil {
		return nil, err
	}
	if c.others == nil {
		c.others = map[int32]*pconn{}
	}
	c.others[id] = x
	return x, nil
}

// clientID is the ClientId the connection's first request carries.
func (c *pconn) clientID() codec.NullableString {
	if c.firstID == nil {
		return codec.Str("ghostcheck-check")
	}
	return *c.firstID
}

// wire is the dialled connection, for a case that writes raw frames on
// it; a dial that fails fails the case.
func (c *pconn) wire() *wire.Conn {
	if err := c.open(nil); err != nil {
		panic(abort{fail("dial: "+err.Error(), "a connection")})
	}
	return c.w
}

// header builds a KIP-1313 header: ClientId on the connection's first
// request only, the client instance id in tag 0 of every v2 header. The
// connection is dialled first (its SASL exchange, if any, comes before).
func (c *pconn) header(key codec.APIKey, v int16) *codec.RequestHeader {
	c.wire()
	return c.hm.Next(key, v)
}

// try sends one request and returns the response or the transport error.
// A request about a group goes to the group's coordinator through the
// cluster (its coordinator errors retried): on this connection when that
// is home, on a sibling connection to the coordinator for a group the
// case did not draw; a group whose coordinator moved away from the
// broker that answered it before ends the case as SKIP.
func (c *pconn) try(h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	w := c.wire()
	g, ok := codec.GroupOf(req)
	if !ok {
		return w.RoundTrip(h, req)
	}
	var answered int32 = -1
	resp, evs, err := c.p.cl.Do(c.p.ctx, g, req.Key(), func(_ context.Context, b wire.Broker) (codec.Message, error) {
		if prev, seen := c.p.answeredBy(g); seen && prev != b.ID {
			return nil, &movedError{group: g, from: prev, to: b.ID}
		}
		on, hh := w, h
		if b.ID != c.broker {
			x, err := c.sibling(b.ID)
			if err != nil {
				return nil, &sendError{err}
			}
			// The sibling's own correlation ids and first-request
			// ClientId; the rest of the header as the case made it.
			next := x.hm.Next(h.RequestApiKey, h.RequestApiVersion)
			cp := *h
			cp.CorrelationId, cp.ClientId = next.CorrelationId, next.ClientId
			on, hh = x.w, &cp
		}
		resp, err := on.RoundTrip(hh, req)
		if err != nil {
			return nil, &sendError{err}
		}
		answered = b.ID
		return resp, nil
	})
	c.p.note(evs)
	var se *sendError
	var me *movedError
	var re *wire.RetryError
	switch {
	case errors.As(err, &se):
		return nil, se.err // the connection's own failure: the case judges it
	case errors.As(err, &me):
		panic(abort{skip(fmt.Sprintf("the coordinator moved during the case: group %s is now coordinated by broker %d, the case spoke to broker %d (%s)",
			short(g), me.to, me.from, eventsString(evs)))})
	case errors.As(err, &re):
		panic(abort{skip(fmt.Sprintf("the coordinator of group %s kept moving or loading during the case: %v (%s)", short(g), re, eventsString(evs)))})
	case err != nil:
		// FindCoordinator refused (GROUP_AUTHORIZATION_FAILED, say), or
		// no broker answered it: the case cannot reach its group.
		panic(abort{fail(fmt.Sprintf("finding the coordinator of group %s: %v (%s)", short(g), err, eventsString(evs)), "a coordinator")})
	}
	c.p.mu.Lock()
	if c.p.answered == nil {
		c.p.answered = map[string]int32{}
	}
	c.p.answered[g] = answered
	c.p.mu.Unlock()
	return resp, nil
}

// answeredBy is the broker that answered group's requests before, if any.
func (p *probe) answeredBy(group string) (int32, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.answered[group]
	return b, ok
}

// sendError is the failure of a request on the case's connection itself
// (closed, timed out), which the case judges; it is the error it wraps to
// the cluster (ErrNoResponse: not sent again).
type sendError struct{ err error }

func (e *sendError) Error() string { return e.err.Error() }
func (e *sendError) Unwrap() error { return e.err }

// movedError is a routed request whose group's coordinator is not the
// broker the case's connection goes to.
type movedError struct {
	group    string
	from, to int32
}

func (e *movedError) Error() string {
	return fmt.Sprintf("group %s moved from broker %d to broker %d", e.group, e.from, e.to)
}

// id returns a fresh id for this case ("g", "m", "i" for groups, members,
// instances). A group is named again until its coordinator is the case's
// home broker (the first group fixes home).
func (p *probe) id(kind string) string {
	p.seq++
	name := strings.ReplaceAll(strings.ReplaceAll(p.caseName, "/", "."), " ", "")
	id := fmt.Sprintf("%s%s-%s%d", p.peer.Prefix, name, kind, p.seq)
	if kind != "g" {
		return id
	}
	if p.home < 0 {
		p.settle(id)
		return id
	}
	for i := 0; i < maxGroupDraws; i++ {
		g := id
		if i > 0 {
			g = fmt.Sprintf("%s.%d", id, i)
		}
		if p.coordinator(g) == p.home {
			return g
		}
	}
	panic(abort{skip(fmt.Sprintf("no group name of %d tried is coordinated by broker %d, the case's connection's", maxGroupDraws, p.home))})
}

// settle fixes home as group's coordinator.
func (p *probe) settle(group string) { p.home = p.coordinator(group) }

// coordinator is group's coordinator; a cluster that cannot name one
// fails the case.
func (p *probe) coordinator(group string) int32 {
	b, evs, err := p.cl.Coordinator(p.ctx, group)
	p.note(evs)
	if err != nil {
		panic(abort{fail(fmt.Sprintf("finding the coordinator of group %s: %v", short(group), err), "a coordinator")})
	}
	return b.ID
}

// homeBroker is the case's home, fixed now if nothing has fixed it: the
// broker at the case's position among the brokers known.
func (p *probe) homeBroker() wire.Broker {
	if p.home < 0 {
		bs := p.cl.Brokers()
		p.home = bs[p.position%len(bs)].ID
	}
	b, ok := p.cl.Broker(p.home)
	if !ok {
		panic(abort{skip(fmt.Sprintf("broker %d, the case's, is no longer listed by the cluster", p.home))})
	}
	return b
}

// note keeps what routing met beyond finding a coordinator the first
// time: retries, moves, errors, for the case's result.
func (p *probe) note(evs []wire.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range evs {
		if e.Kind == wire.CoordinatorFound && e.Previous < 0 {
			continue
		}
		if len(p.route) < maxRoute {
			p.route = append(p.route, e.String())
		}
	}
}

// maxRoute bounds the routing events a result keeps.
const maxRoute = 32

func eventsString(evs []wire.Event) string {
	var out []string
	for _, e := range evs {
		out = append(out, e.String())
	}
	if len(out) == 0 {
		return "no retry"
	}
	return strings.Join(out, "; ")
}
