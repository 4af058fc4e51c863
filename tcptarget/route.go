package tcptarget

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/wire"
)

// A client process keeps a connection to each broker it talks to: a
// request about a group goes to the group's coordinator (wire.Cluster.Do:
// found with FindCoordinator, its coordinator errors retried as Kafka's
// clients do), any other to the broker the process spoke to last, or the
// first broker that answers when it has spoken to none. The first request
// on each connection after the process's first carries the ClientId the
// process's first request carried (KIP-1313: the broker attributes a
// connection's later requests to its first's ClientId, and a client sends
// it first on every connection), which the op's route records. Under SASL
// the new connection's exchange runs first, its ApiVersions carrying that
// ClientId and the process's instance id.
//
// What routing met is the op's Route: the broker that answered, and every
// step on the way (a new connection, a coordinator error, a move, a retry
// and its wait, a broker that could not be reached), never an error's text
// (which holds addresses: a history replays on another machine). A
// request whose retries ran out is returned as an unknown outcome (the
// driver's ErrNoResponse), never as the coordinator error: the driver's
// clients, and the check, never see NOT_COORDINATOR, which the protocol's
// model never answers.

// trip sends a request on the process's connection s to broker and
// returns its answer: roundTrip, or holdTrip for a request the broker may
// hold (held.go).
type trip func(c *tcpConn, broker int32, s *brokerSock, h *codec.RequestHeader, req codec.Message) (codec.Message, error)

// route sends req to the broker it goes to, by send, and returns the
// answer.
func (t *Target) route(c *tcpConn, h *codec.RequestHeader, req codec.Message, send trip) (codec.Message, error) {
	group, routed := codec.GroupOf(req)
	if !routed || group == "" { // the empty group id: any broker answers it
		return t.sendUnrouted(c, h, req, send)
	}
	t.mu.Lock()
	if t.groups == nil {
		t.groups = map[string]bool{}
	}
	t.groups[group] = true
	t.mu.Unlock()
	resp, evs, err := t.cl.Do(t.ctx, group, req.Key(), func(ctx context.Context, b wire.Broker) (codec.Message, error) {
		return t.sendTo(ctx, c, b, h, req, send)
	})
	t.noteRoute(c, evs)
	var re *wire.RetryError
	switch {
	case err == nil:
		return resp, nil
	case errors.Is(err, wire.ErrVersionNotOffered), errors.Is(err, errHeld):
		return nil, err
	case errors.As(err, &re):
		return nil, noResponse{fmt.Errorf("the coordinator could not be reached in time: %w", err)}
	case errors.Is(err, wire.ErrNoResponse):
		return nil, noResponse{err}
	}
	// Anything else ended the routed call before the request went out
	// (FindCoordinator refused, the cluster closed): unknown is the
	// honest outcome for a request that may have been sent once.
	return nil, noResponse{err}
}

// sendUnrouted sends a request about no group to the broker the process
// spoke to last, or to the first that answers when it has spoken to none
// (or the one it spoke to is gone).
func (t *Target) sendUnrouted(c *tcpConn, h *codec.RequestHeader, req codec.Message, send trip) (codec.Message, error) {
	bs := t.cl.Brokers()
	if i := slices.IndexFunc(bs, func(b wire.Broker) bool { return b.ID == c.cur }); i > 0 {
		bs[0], bs[i] = bs[i], bs[0]
	}
	var errs []error
	for _, b := range bs {
		s, err := t.sock(t.ctx, c, b)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		return send(c, b.ID, s, h, req)
	}
	return nil, fmt.Errorf("%w: no broker answered: %w", errDial, errors.Join(errs...))
}

// sendTo sends req to broker b (the coordinator of its group) on the
// process's connection to it, dialled if it has none. A dial that fails
// is a *wire.DialError: nothing sent, tried again by the cluster.
func (t *Target) sendTo(ctx context.Context, c *tcpConn, b wire.Broker, h *codec.RequestHeader, req codec.Message, send trip) (codec.Message, error) {
	s, err := t.sock(ctx, c, b)
	if err != nil {
		return nil, err
	}
	if vs, err := t.cl.Versions(ctx, b.ID); err == nil && !offers(vs, h) && h.RequestApiKey != codec.ApiVersions {
		return nil, fmt.Errorf("%w: %v v%d (broker %d)", wire.ErrVersionNotOffered, h.RequestApiKey, h.RequestApiVersion, b.ID)
	}
	return send(c, b.ID, s, h, req)
}

// sock is the process's connection to b, dialled now if it has none:
// with the process's ClientId and instance id in the SASL exchange's
// headers, if there is one.
func (t *Target) sock(ctx context.Context, c *tcpConn, b wire.Broker) (*brokerSock, error) {
	if s := c.ws[b.ID]; s != nil {
		return s, nil
	}
	hm, err := wire.NewHeaders(c.first, c.instance)
	if err != nil {
		return nil, err
	}
	w, err := t.dial(ctx, b, hm)
	if err != nil {
		return nil, err
	}
	s := &brokerSock{w: w, fresh: true}
	c.ws[b.ID] = s
	if c.dialled {
		c.route.Steps = append(c.route.Steps, history.RouteStep{Kind: history.StepNewConnection, Broker: b.ID})
	}
	return s, nil
}

// firstOnNew is the header to send on s: h, except that the first
// request on a connection after the process's first (to another broker,
// or after a reset) carries the process's first ClientId when h carries
// none, as a KIP-1313 client's first request on every connection does.
func (t *Target) firstOnNew(c *tcpConn, s *brokerSock, broker int32, h *codec.RequestHeader) *codec.RequestHeader {
	if !s.fresh {
		return h
	}
	s.fresh = false
	again := c.dialled
	c.dialled = true
	if !again || h.ClientId.Valid || !c.first.Valid {
		return h
	}
	out := *h
	out.ClientId = c.first
	c.route.Steps = append(c.route.Steps, history.RouteStep{Kind: history.StepClientIDResent, Broker: broker})
	return &out
}

// roundTrip sends on the process's connection s to broker; a failure
// closes it (the next request dials again) and is the driver's unknown
// outcome when the request may have been applied.
func (t *Target) roundTrip(c *tcpConn, broker int32, s *brokerSock, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	c.cur, c.route.Broker = broker, broker
	sent := time.Now()
	resp, err := s.w.RoundTrip(t.firstOnNew(c, s, broker, h), req)
	if err != nil {
		c.dropBroker(broker)
		return nil, err
	}
	t.noteRTT(h.RequestApiKey, time.Since(sent))
	return resp, nil
}

// noteRoute keeps what routing met in the op's route, and the time it
// waited.
func (t *Target) noteRoute(c *tcpConn, evs []wire.Event) {
	var waited time.Duration
	for _, e := range evs {
		if e.Kind == wire.CoordinatorFound && e.Previous < 0 {
			continue // the first lookup of a group: not a retry
		}
		s := history.RouteStep{Kind: e.Kind.String(), Broker: e.Broker, Attempt: e.Attempt}
		if e.Kind == wire.CoordinatorFound {
			s.From = &e.Previous
		}
		if e.Kind == wire.CoordinatorError {
			s.Code = e.Code.String()
		}
		if e.Kind == wire.Retry {
			s.WaitMs = e.Wait.Milliseconds()
			waited += e.Wait
		}
		c.route.Steps = append(c.route.Steps, s)
	}
	if waited > 0 {
		t.mu.Lock()
		t.retryWait += waited
		t.mu.Unlock()
	}
}
