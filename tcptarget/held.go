package tcptarget

// Held requests: a broker holds a classic JoinGroup until its join phase
// completes and a SyncGroup until the leader's arrives (docs/PROTOCOL.md
// B8.5), and reads nothing more from that connection meanwhile. The
// driver cannot wait for such an answer (the other clients' requests
// complete the phase), so a JoinGroup or SyncGroup not answered within
// HoldAfter is parked (driver.ErrParked): a reader goroutine of its own
// waits for the answer and hands it to Released. A request the driver
// sends on that connection meanwhile is parked too, without being sent
// (the broker would not read it before answering the held one anyway);
// the reader sends it once the held answer is in, and so on until the
// connection has nothing waiting. A connection the driver closes while a
// request is held gives no answer to it or to what waited behind it (as a
// broker's answer to a closed socket goes nowhere): those stay parked,
// unreleased.

import (
	"errors"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/wire"
)

// DefaultHoldAfter is how long a JoinGroup or SyncGroup's answer is
// awaited before it is taken as held: a round trip on a quiet machine is
// well under it, and a phase that completes at once answers in it.
const DefaultHoldAfter = 25 * time.Millisecond

// queued is a request parked behind a held one, not yet sent.
type queued struct {
	delivery uint64
	h        codec.RequestHeader
	req      codec.Message
}

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

// maybeHold sends a JoinGroup or SyncGroup on c and waits HoldAfter for
// its answer; then parks it, leaving the wait to a reader. The caller
// holds c.mu.
func (t *Target) maybeHold(c *tcpConn, delivery uint64, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	sent := time.Now()
	if err := c.w.Send(h, req); err != nil {
		c.w.Close()
		c.w = nil
		return nil, err
	}
	answer := make(chan heldAnswer, 1)
	w := c.w
	go func() {
		resp, err := w.Receive()
		answer <- heldAnswer{resp, err}
	}()
	select {
	case a := <-answer:
		return t.answered(c, h.RequestApiKey, sent, a)
	case <-time.After(t.holdAfter()):
	}
	c.held = true
	t.readers.Add(1)
	go t.read(c, delivery, h.RequestApiKey, sent, answer)
	return nil, driver.ErrParked
}

type heldAnswer struct {
	resp codec.Message
	err  error
}

// answered is an answer that came in time: as RoundTrip's.
func (t *Target) answered(c *tcpConn, key codec.APIKey, sent time.Time, a heldAnswer) (codec.Message, error) {
	if a.err != nil {
		c.w.Close()
		c.w = nil
		if errors.Is(a.err, wire.ErrNoResponse) {
			return nil, noResponse{a.err}
		}
		return nil, a.err
	}
	t.noteRTT(key, time.Since(sent))
	return a.resp, nil
}

// queueBehind parks a request on a connection whose earlier request is
// held. The caller holds c.mu.
func (t *Target) queueBehind(c *tcpConn, delivery uint64, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	c.queue = append(c.queue, queued{delivery: delivery, h: *h, req: req})
	return nil, driver.ErrParked
}

// read waits for the held request's answer, releases it, then sends and
// answers what waited behind it, one at a time, until nothing does.
func (t *Target) read(c *tcpConn, delivery uint64, key codec.APIKey, sent time.Time, answer <-chan heldAnswer) {
	defer t.readers.Done()
	a := <-answer
	for {
		c.mu.Lock()
		if c.gone {
			// Closed by the driver: the answer went nowhere.
			c.held, c.w = false, nil
			c.mu.Unlock()
			return
		}
		if a.err != nil {
			// The broker closed the connection: nothing parked on it
			// will be answered.
			t.release(driver.Release{Delivery: delivery, Dropped: true})
			for _, q := range c.queue {
				t.release(driver.Release{Delivery: q.delivery, Dropped: true})
			}
			c.w.Close()
			c.held, c.w, c.queue = false, nil, nil
			c.mu.Unlock()
			return
		}
		t.noteRTT(key, time.Since(sent))
		t.release(driver.Release{Delivery: delivery, Response: a.resp})
		if len(c.queue) == 0 {
			c.held = false
			c.mu.Unlock()
			return
		}
		q := c.queue[0]
		c.queue = c.queue[1:]
		w := c.w
		c.mu.Unlock()
		delivery, key, sent = q.delivery, q.h.RequestApiKey, time.Now()
		resp, err := w.RoundTrip(&q.h, q.req)
		a = heldAnswer{resp, err}
	}
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
