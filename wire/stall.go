package wire

import (
	"context"
	"crypto/rand"
	"sync"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// stallTick is a StallWatch's period: short enough that a stall shows
// within a few milliseconds of its length, long enough to cost nothing
// (a broker watched gets an ApiVersions v0 each tick).
const stallTick = 10 * time.Millisecond

// StallWatch measures how late a broker over real time may fire a timer
// with nothing in a history to show it: the largest gap, beyond its
// period, between two runs of a ticker that each time, when a broker is
// watched, asks it for its ApiVersions on a connection of its own and
// waits for the answer. A gap is this process stopped (a loaded machine,
// a long pause) or the broker not answering (stopped, starved, in a
// collection pause).
//
// A history's own clock readings see a stall only while a request of it
// is in flight. One that falls in a sleep (the driver waiting for the
// next round, or out a session timeout) goes unseen: the checker wakes
// when it meant to, and its next request may reach a broker that has just
// woken too and answers it before firing the session timers that fell due
// while it slept. The watch sees it: either its ticker ran late, or its
// ping waited for the broker.
type StallWatch struct {
	mu   sync.Mutex
	last time.Time // the end of the ticker's last run
	max  time.Duration
	stop chan struct{} // nil once stopped
	done chan struct{}
	ping *pinger
}

// WatchStalls starts a StallWatch of this process alone; Stop ends it.
func WatchStalls() *StallWatch { return watch(nil) }

// WatchBroker starts a StallWatch that also pings the broker at addr
// (timeout bounds the dial and each answer). If a ping fails the watch
// goes on without pinging: a broker that stopped answering is the
// history's to report.
func WatchBroker(addr string, timeout time.Duration) *StallWatch {
	return watch(&pinger{addr: addr, timeout: timeout})
}

// WatchBroker is wire.WatchBroker on connections d makes (TLS, SASL):
// for a broker whose listener takes nothing else. d's Options.Timeout
// bounds the dial and each answer.
func (d *Dialer) WatchBroker(addr string) *StallWatch {
	return watch(&pinger{addr: addr, timeout: d.Options.withDefaults().Timeout, dialer: d})
}

func watch(p *pinger) *StallWatch {
	w := &StallWatch{last: time.Now(), stop: make(chan struct{}), done: make(chan struct{}), ping: p}
	go w.run(w.stop)
	return w
}

func (w *StallWatch) run(stop <-chan struct{}) {
	defer close(w.done)
	tk := time.NewTicker(stallTick)
	defer tk.Stop()
	p := w.ping
	for {
		select {
		case <-stop:
			return
		case <-tk.C:
		}
		if p != nil && p.do() != nil {
			p.close()
			p = nil
		}
		w.mu.Lock()
		if w.stop != nil {
			w.note(time.Now())
		}
		w.mu.Unlock()
	}
}

// note records the gap since the ticker last ran, at now (w.mu held).
func (w *StallWatch) note(now time.Time) {
	if d := now.Sub(w.last) - stallTick; d > w.max {
		w.max = d
	}
	w.last = now
}

// Max is the longest stall seen so far, one going on now included (until
// Stop).
func (w *StallWatch) Max() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.max
	if now := time.Since(w.last) - stallTick; w.stop != nil && now > d {
		d = now
	}
	return d
}

// Stop ends the watch (and its ping connection); Max stays what it was
// then.
func (w *StallWatch) Stop() {
	w.mu.Lock()
	if w.stop == nil {
		w.mu.Unlock()
		return
	}
	close(w.stop)
	w.stop = nil
	w.note(time.Now())
	w.mu.Unlock()
	if w.ping != nil {
		w.ping.close() // a ping in flight returns at once
	}
	<-w.done
}

// pinger asks a broker for its ApiVersions (v0, which every broker
// answers) on a connection of its own.
type pinger struct {
	addr    string
	timeout time.Duration
	dialer  *Dialer // nil: plaintext
	hm      *Headers

	mu     sync.Mutex
	c      *Conn
	closed bool
}

func (p *pinger) do() error {
	p.mu.Lock()
	c, closed := p.c, p.closed
	p.mu.Unlock()
	if closed {
		return ErrConnClosed
	}
	if c == nil {
		instance, err := NewInstanceID(rand.Reader)
		if err != nil {
			return err
		}
		if p.hm, err = NewHeaders(codec.Str("ghostcheck-stall-watch"), instance); err != nil {
			return err
		}
		if p.dialer != nil {
			c, _, err = p.dialer.Dial(context.Background(), p.addr, p.hm)
		} else {
			c, err = Dial(p.addr, Options{Timeout: p.timeout})
		}
		if err != nil {
			return err
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			return ErrConnClosed
		}
		p.c = c
		p.mu.Unlock()
	}
	_, err := c.RoundTrip(p.hm.Next(codec.ApiVersions, 0), &codec.ApiVersionsRequest{})
	return err
}

func (p *pinger) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.c != nil {
		p.c.Close()
	}
}
