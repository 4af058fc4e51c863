package tcptarget

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/wire"
)

// A client process talks to one broker at a time: a request about a group
// goes to the group's coordinator (wire.Cluster.Do: found with
// FindCoordinator, its coordinator errors retried as Kafka's clients do),
// any other to the broker the process is connected to, or the first
// broker when it is connected to none. When the coordinator is another
// broker than the one the process's connection goes to, that connection is
// closed and one to the coordinator opened, as a client opens one per
// broker; its first request carries the ClientId the process's first
// request carried (KIP-1313: the broker attributes a connection's later
// requests to its first's ClientId), which the op's route records. Under
// SASL the new connection's exchange runs first, its ApiVersions carrying
// that ClientId and the process's instance id.
//
// What routing met is the op's Route: the broker that answered, and every
// step on the way (a coordinator error, a move, a retry and its wait, a
// broker that could not be reached), never an error's text (which holds
// addresses: a history replays on another machine). A request whose
// retries ran out is returned as an unknown outcome (the driver's
// ErrNoResponse), never as the coordinator error: the driver's clients,
// and the check, never see NOT_COORDINATOR, which the protocol's model
// never answers.

// route sends req to the broker it goes to and returns the answer.
func (t *Target) route(c *tcpConn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	group, routed := groupOf(req)
	if !routed {
		return t.sendUnrouted(c, h, req)
	}
	resp, evs, err := t.cl.Do(t.ctx, group, req.Key(), func(ctx context.Context, b wire.Broker) (codec.Message, error) {
		return t.sendTo(ctx, c, b, h, req)
	})
	t.noteRoute(c, evs)
	var re *wire.RetryError
	switch {
	case err == nil:
		return resp, nil
	case errors.Is(err, wire.ErrVersionNotOffered):
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

// sendUnrouted sends a request about no group on the process's
// connection, dialling the first broker that answers when it has none.
func (t *Target) sendUnrouted(c *tcpConn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	if c.w == nil {
		var errs []error
		for _, b := range t.cl.Brokers() {
			if err := t.dial(t.ctx, c, b); err != nil {
				errs = append(errs, err)
				continue
			}
			break
		}
		if c.w == nil {
			return nil, fmt.Errorf("%w: no broker answered: %w", errDial, errors.Join(errs...))
		}
	}
	c.route.Broker = c.broker
	return t.roundTrip(c, t.firstOnNew(c, h), req)
}

// sendTo sends req to broker b (the coordinator of its group) on the
// process's connection, moving the connection to b first if it goes
// elsewhere. A dial that fails is a *wire.DialError: nothing sent, tried
// again by the cluster.
func (t *Target) sendTo(ctx context.Context, c *tcpConn, b wire.Broker, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	if c.w == nil || c.broker != b.ID {
		if c.w != nil {
			c.route.Steps = append(c.route.Steps, history.RouteStep{Kind: history.StepMoved, Broker: b.ID, From: c.broker})
			c.drop()
		}
		if err := t.dial(ctx, c, b); err != nil {
			return nil, err
		}
	}
	if vs, err := t.cl.Versions(ctx, b.ID); err == nil && !offers(vs, h) && h.RequestApiKey != codec.ApiVersions {
		return nil, fmt.Errorf("%w: %v v%d (broker %d)", wire.ErrVersionNotOffered, h.RequestApiKey, h.RequestApiVersion, b.ID)
	}
	c.route.Broker = b.ID
	return t.roundTrip(c, t.firstOnNew(c, h), req)
}

// dial opens the process's connection to b: with the process's ClientId
// and instance id in the SASL exchange's headers, if there is one.
func (t *Target) dial(ctx context.Context, c *tcpConn, b wire.Broker) error {
	hm, err := wire.NewHeaders(c.first, c.instance)
	if err != nil {
		return err
	}
	w, _, err := t.cl.Dial(ctx, b.ID, hm)
	if err != nil {
		return err
	}
	c.w, c.broker = w, b.ID
	c.fresh = true
	return nil
}

// firstOnNew is the header to send: h, except that the first request on
// a connection the target opened in place of one before (the coordinator
// moved, or the target reset it) carries the process's first ClientId
// when h carries none, as a KIP-1313 client's first request to a new
// broker does.
func (t *Target) firstOnNew(c *tcpConn, h *codec.RequestHeader) *codec.RequestHeader {
	if !c.fresh {
		return h
	}
	c.fresh = false
	again := c.dialled
	c.dialled = true
	if !again || h.ClientId.Valid || !c.first.Valid {
		return h
	}
	out := *h
	out.ClientId = c.first
	c.route.Steps = append(c.route.Steps, history.RouteStep{Kind: history.StepClientIDResent, Broker: c.broker})
	return &out
}

// roundTrip sends on the process's connection; a failure closes it (the
// next request dials again) and is the driver's unknown outcome when the
// request may have been applied.
func (t *Target) roundTrip(c *tcpConn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	sent := time.Now()
	resp, err := c.w.RoundTrip(h, req)
	if err != nil {
		c.drop()
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
			s.From = e.Previous
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

// groupOf is the group req is about, when it is one a cluster routes by:
// a group api's non-empty group id (the empty one any broker answers).
func groupOf(req codec.Message) (string, bool) {
	var g string
	switch r := req.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		g = r.GroupId
	case *codec.LeaveGroupRequest:
		g = r.GroupId
	case *codec.ConsumerGroupDescribeRequest:
		if len(r.GroupIds) == 1 {
			g = r.GroupIds[0]
		}
	case *codec.JoinGroupRequest:
		g = r.GroupId
	case *codec.SyncGroupRequest:
		g = r.GroupId
	case *codec.HeartbeatRequest:
		g = r.GroupId
	case *codec.DescribeGroupsRequest:
		if len(r.Groups) == 1 {
			g = r.Groups[0]
		}
	}
	return g, g != ""
}
