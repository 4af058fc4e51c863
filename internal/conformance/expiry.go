package conformance

import (
	"fmt"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/wire"
)

// sessionClock times a case that waits out a member's session in real
// time, from what the case saw rather than from when it meant to act, so
// that a loaded machine raises no false alarm and a broker that keeps the
// member is still caught:
//
//   - the session can end no earlier than one session timeout after the
//     first request that may have armed it was sent (sent): only a
//     Describe that returned before then must list the member;
//   - it must have ended by one session timeout after the last request
//     that may have armed it returned (armed: the broker armed it no
//     later), plus expiryMargin for the broker's timer, plus the longest
//     stall meanwhile of this process or of the broker's answers to a
//     ping (wire.StallWatch: a broker stopped that long may fire its
//     timer that much late, and answer the case's Describe first).
type sessionClock struct {
	p      *probe
	stalls *wire.StallWatch
	sent   time.Time
	armed  time.Time
}

// sessionClock starts timing a session (stop ends it).
func (p *probe) sessionClock() *sessionClock {
	d := p.peer.Dialer
	return &sessionClock{p: p, stalls: d.WatchBroker(p.homeBroker().Addr)}
}

func (c *sessionClock) stop() { c.stalls.Stop() }

// arm runs f, a request that may (re)arm the member's session.
func (c *sessionClock) arm(f func()) {
	if c.sent.IsZero() {
		c.sent = time.Now()
	}
	f()
	c.armed = time.Now()
}

// ended reports whether the session may have ended by t (a Describe that
// returned at t may rightly not list the member).
func (c *sessionClock) ended(t time.Time) bool {
	return !t.Before(c.sent.Add(c.p.peer.SessionTimeout))
}

// waitGone sleeps until the member must be gone, counting the stall seen
// up to then (a stall while sleeping lengthens the wait).
func (c *sessionClock) waitGone() {
	for {
		d := time.Until(c.armed.Add(c.p.peer.SessionTimeout + c.p.expiryMargin() + c.stalls.Max()))
		if d <= 0 {
			return
		}
		time.Sleep(d)
	}
}

// tooSlowPrefix starts the observation of a tooSlow verdict.
const tooSlowPrefix = "too slow to judge: "

// tooSlow is the case's verdict when the machine was too slow to judge
// it (judged runs it again).
func (c *sessionClock) tooSlow(what string) verdict {
	return skip(fmt.Sprintf("%s%s (stalls up to %v)", tooSlowPrefix, what, c.stalls.Max().Round(time.Millisecond)))
}

// tooSlowTo is the verdict of a case whose timing this machine missed
// (what says how), not timed by a sessionClock.
func tooSlowTo(what string) verdict { return skip(tooSlowPrefix + what) }

// TooSlow reports whether the case could not judge the broker because
// this machine was too slow for its timing (a SKIP after judgedAttempts
// tries, the observation starting "too slow to judge: "): a verdict on
// the machine, never on the broker.
func (r Result) TooSlow() bool {
	return r.Status == Skip && strings.HasPrefix(r.Observed, tooSlowPrefix)
}

// judgedAttempts is how often judged runs a case that was too slow to
// judge.
const judgedAttempts = 3

// judged runs a case timed by a sessionClock again, with fresh ids, while
// the machine was too slow for it to tell (a passing stall is likely
// over by the next attempt); the last attempt's verdict stands, SKIP if
// it too could not tell.
func judged(run func(*probe) verdict) func(*probe) verdict {
	return func(p *probe) verdict {
		var v verdict
		for i := 0; i < judgedAttempts; i++ {
			if v = run(p); v.status != Skip || !strings.HasPrefix(v.observed, tooSlowPrefix) {
				return v
			}
		}
		return v
	}
}
