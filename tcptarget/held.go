package tcptarget

// Held requests: a broker holds a classic JoinGroup until its join phase
// completes and a SyncGroup until the leader's arrives (docs/PROTOCOL.md
// B8.5), and reads nothing more from that connection meanwhile. The
// driver cannot wait for such an answer (the other clients' requests
// complete the phase), so a JoinGroup or SyncGroup not answered within
// HoldAfter is parked (driver.ErrParked): a reader goroutine of its own
// waits for the answer and hands it to Released. A request the driver
// sends on that process meanwhile is parked too, without being sent (the
// broker would not read it before answering the held one anyway, and a
// classic client sends nothing else while it waits for its join or sync);
// the reader sends it once the held answer is in, held again if it is a
// JoinGroup or SyncGroup the broker holds, and so on until the process
// has nothing waiting. A process the driver closes while a request is
// held gives no answer to it or to what waited behind it (as a broker's
// answer to a closed socket goes nowhere): those stay parked, unreleased.
//
// In a cluster a held request goes to its group's coordinator as any
// other (route.go); an answer that comes late with a coordinator error
// (the group moved while the broker held the request: Kafka answers a
// held JoinGroup NOT_COORDINATOR when it unloads the group) is sent again
// through the cluster, never handed to the driver.

import (
	"context"
	"errors"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/wire"
)

// DefaultHoldAfter is how long a JoinGroup or SyncGroup's answer is
// awaited before it is taken as held: a round trip on a quiet machine is
// well under it, and a phase that completes at once answers in it.
const DefaultHoldAfter = 25 * time.Millisecond

// maxResends bounds how often one held request is sent again after a
// late coordinator error.
const maxResends = 8

// queued is a request parked behind a held one, not yet sent.
type queued struct {
	delivery uint64
	h        codec.RequestHeader
	req      codec.Message
}

// pending is the held request the reader waits for: on the process's
// connection s to broker, its answer to come on answer.
type pending struct {
	queued
	broker  int32
	s       *brokerSock
	sent    time.Time
	answer  chan heldAnswer
	resends int
}

type heldAnswer struct {
	resp codec.Message
	err  error
}

// errHeld is holdTrip's: the request was sent and its answer is late;
// c.wait is what to wait for.
var errHeld = errors.New("tcptarget: request held by the broker")

// holdable reports whether the broker may hold a request of key.
func holdable(key codec.APIKey) bool { return key == codec.JoinGroup || key == codec.SyncGroup }

// connTimeout bounds each wait for a response on a driver connection: a
// held JoinGroup waits for its whole join phase.
func (t *Target) connTimeout() time.Duration { return max(t.timeout, t.HeldTimeout) }

func (t *Target) holdAfter() time.Duration {
	if t.HoldAfter > 0 {
		return t.HoldAfter
	}
	return DefaultHoldAfter
}

// dial opens a process's connection to b with the cluster's dialer, each
// wait for a response bounded by connTimeout. A failure is a
// *wire.DialError: nothing sent, tried again by the cluster.
func (t *Target) dial(ctx context.Context, b wire.Broker, hm *wire.Headers) (*wire.Conn, error) {
	d := t.dialer
	d.Timeout = t.connTimeout()
	w, _, err := d.Dial(ctx, b.Addr, hm)
	if err != nil {
		return nil, &wire.DialError{Broker: b.ID, Err: err}
	}
	return w, nil
}

// maybeHold routes a JoinGroup or SyncGroup as any request, but parks it
// when its answer does not come within HoldAfter, leaving the wait to a
// reader. The caller holds c.mu.
func (t *Target) maybeHold(c *tcpConn, delivery uint64, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	var w *pending
	resp, err := t.route(c, h, req, t.holdTrip(&w))
	if errors.Is(err, errHeld) {
		w.queued = queued{delivery: delivery, h: *h, req: req}
		c.held = true
		t.readers.Add(1)
		go t.read(c, w)
		return nil, driver.ErrParked
	}
	return resp, err
}

// holdTrip is a trip that sends the request and waits HoldAfter for its
// answer: then it is roundTrip's; else errHeld, *w what to wait for.
func (t *Target) holdTrip(w **pending) trip {
	return func(c *tcpConn, broker int32, s *brokerSock, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
		c.cur, c.route.Broker = broker, broker
		sent := time.Now()
		if err := s.w.Send(t.firstOnNew(c, s, broker, h), req); err != nil {
			c.dropBroker(broker)
			return nil, err
		}
		answer := make(chan heldAnswer, 1)
		go func() {
			resp, err := s.w.Receive()
			answer <- heldAnswer{resp, err}
		}()
		select {
		case a := <-answer:
			if a.err != nil {
				c.dropSock(broker, s)
				return nil, a.err
			}
			t.noteRTT(h.RequestApiKey, time.Since(sent))
			return a.resp, nil
		case <-time.After(t.holdAfter()):
		}
		*w = &pending{broker: broker, s: s, sent: sent, answer: answer}
		return nil, errHeld
	}
}

// dropSock closes the process's connection to broker if it is still s
// (c.mu held).
func (c *tcpConn) dropSock(broker int32, s *brokerSock) {
	if c.ws[broker] == s {
		c.dropBroker(broker)
		return
	}
	s.w.Close()
}

// queueBehind parks a request of a process whose earlier request is
// held. The caller holds c.mu.
func (t *Target) queueBehind(c *tcpConn, delivery uint64, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	c.queue = append(c.queue, queued{delivery: delivery, h: *h, req: req})
	c.route = nil // not sent yet: no way to record
	return nil, driver.ErrParked
}

// read waits for the held request's answer, releases it, then sends and
// answers what waited behind it, one at a time, until nothing does.
func (t *Target) read(c *tcpConn, w *pending) {
	defer t.readers.Done()
	for w != nil {
		a := <-w.answer
		c.mu.Lock()
		w = t.readOne(c, w, a)
		c.mu.Unlock()
	}
}

// readOne takes the answer a of the held request w and returns the next
// request to wait for, if any (c.mu held).
func (t *Target) readOne(c *tcpConn, w *pending, a heldAnswer) *pending {
	switch {
	case c.gone:
		// Closed by the driver: the answer went nowhere.
		c.held, c.queue = false, nil
		return nil
	case a.err != nil:
		// The broker closed the connection (or a cluster fault reset
		// it): nothing parked on it will be answered.
		c.dropSock(w.broker, w.s)
		t.release(driver.Release{Delivery: w.delivery, Dropped: true})
		for _, q := range c.queue {
			t.release(driver.Release{Delivery: q.delivery, Dropped: true})
		}
		c.held, c.queue = false, nil
		return nil
	}
	t.noteRTT(w.h.RequestApiKey, time.Since(w.sent))
	if next, again := t.resend(c, w, a.resp); again {
		return next
	}
	t.release(driver.Release{Delivery: w.delivery, Response: a.resp})
	for len(c.queue) > 0 {
		q := c.queue[0]
		c.queue = c.queue[1:]
		if next := t.sendQueued(c, q); next != nil {
			return next
		}
	}
	c.held = false
	return nil
}

// resend sends w again through the cluster when its late answer resp is
// a coordinator error (the group moved while the broker held it), as the
// routed send of a request answered at once would: again reports that it
// did, next what to wait for then (nil: the new answer is released).
func (t *Target) resend(c *tcpConn, w *pending, resp codec.Message) (next *pending, again bool) {
	group, _ := codec.GroupOf(w.req)
	switch wire.GroupErrorCode(resp, group) {
	case codec.NotCoordinator, codec.CoordinatorNotAvailable, codec.CoordinatorLoadInProgress:
	default:
		return nil, false
	}
	if w.resends >= maxResends {
		return nil, false // as the cluster's retries running out: the driver sees the error
	}
	next = t.sendQueued(c, w.queued)
	if next != nil {
		next.resends = w.resends + 1
	}
	return next, true
}

// sendQueued sends q, a request that waited behind a held one, as Handle
// would have: its answer released, or what to wait for when the broker
// holds it too (c.mu held).
func (t *Target) sendQueued(c *tcpConn, q queued) *pending {
	// The op was recorded when it was parked: this route is not kept.
	c.route = &history.Route{Broker: -1}
	var w *pending
	var resp codec.Message
	var err error
	if holdable(q.h.RequestApiKey) {
		resp, err = t.route(c, &q.h, q.req, t.holdTrip(&w))
	} else {
		resp, err = t.route(c, &q.h, q.req, t.roundTrip)
	}
	switch {
	case errors.Is(err, errHeld):
		w.queued = q
		return w
	case err != nil:
		// Unsent or unanswered: the driver will never see its answer.
		t.release(driver.Release{Delivery: q.delivery, Dropped: true})
	default:
		if d, ok := resp.(*codec.ConsumerGroupDescribeResponse); ok {
			nameTopics(d)
		}
		t.release(driver.Release{Delivery: q.delivery, Response: resp})
	}
	return nil
}

func (t *Target) release(r driver.Release) {
	t.relMu.Lock()
	t.released = append(t.released, r)
	t.relMu.Unlock()
}

// Released implements driver.Parker: the answers read for parked
// requests since the last call, in the order they were read.
func (t *Target) Released() []driver.Release {
	t.relMu.Lock()
	defer t.relMu.Unlock()
	out := t.released
	t.released = nil
	return out
}
