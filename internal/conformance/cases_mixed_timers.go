package conformance

import (
	"fmt"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The timers of a classic member of a consumer group, as a client sees
// them: its Heartbeats start its session again (A7.2), and its join and
// sync timers (its rebalance timeout, A7.1) remove it however often it
// heartbeats. Each case keeps the group's consumer member alive
// throughout, and its classic member heartbeating; a machine too slow to
// keep either within its session (a gap between two of its requests, plus
// the broker's stalls, as long as the session) cannot tell a timer from a
// session's end, and the case says so (too slow to judge) instead of a
// verdict.

// casesMixedTimers: A7.1's join and sync timers, A7.2's session.
func casesMixedTimers() []Case {
	return []Case{
		{Name: "A7.1/join-timer-removes", Source: srcKafka40Mixed, Rule: "a classic member told REBALANCE_IN_PROGRESS by its Heartbeat that heartbeats on without rejoining is removed once its rebalance timeout has run (its Heartbeat UNKNOWN_MEMBER_ID)", Slow: true, run: judged(caseMixedTimerRemoves(true))},
		{Name: "A7.1/sync-timer-removes", Source: srcKafka40Mixed, Rule: "a classic member that joined and heartbeats without a SyncGroup is removed once its rebalance timeout has run (its Heartbeat UNKNOWN_MEMBER_ID)", Slow: true, run: judged(caseMixedTimerRemoves(false))},
		{Name: "A7.2/heartbeat-keeps-session", Source: srcKafka40Mixed, Rule: "a synced classic member whose Heartbeats come within its session is kept past its session timeout: each Heartbeat NONE", Slow: true, run: judged(caseMixedHeartbeatKeepsSession)},
	}
}

// mixedBeats heartbeats a consumer member and a classic member of its
// group in turn, each every beat, and keeps the gaps a session must
// cover: a gap of either (plus the broker's stalls) as long as its session
// means this machine may have let it expire.
type mixedBeats struct {
	p     *probe
	clock *sessionClock
	c     *consumerMember
	m     *cmember
	beat  time.Duration
	// lastC and lastM are when c's and m's last requests were sent; gap
	// whether a gap may have ended either's session.
	lastC, lastM time.Time
	gap          string
}

// mixedBeats starts the heartbeats of c, whose last request was sent at
// lastC, and of m, whose last was the clock's armed one.
func (p *probe) mixedBeats(c *consumerMember, m *cmember, clock *sessionClock, lastC time.Time) *mixedBeats {
	beat := p.peer.ClassicSessionTimeout / 4
	if s := p.peer.SessionTimeout; s > 0 {
		beat = min(beat, s/4)
	}
	return &mixedBeats{p: p, clock: clock, c: c, m: m, beat: max(beat, 10*time.Millisecond), lastC: lastC, lastM: clock.sent}
}

// once heartbeats c, then m: m's code. A consumer heartbeat not NONE
// ends the case (too slow to judge after a gap, else FAIL).
func (b *mixedBeats) once() codec.ErrorCode {
	stall := b.clock.stalls.Max()
	sent := time.Now()
	if s := b.p.peer.SessionTimeout; s > 0 && b.gap == "" && sent.Sub(b.lastC)+stall >= s {
		b.gap = fmt.Sprintf("the consumer member's heartbeat came %v after its last", sent.Sub(b.lastC).Round(time.Millisecond))
	}
	if r := b.c.heartbeat(nil); r.ErrorCode != codec.None {
		if b.gap != "" {
			panic(abort{b.clock.tooSlow(b.gap + "; then " + hbString(r))})
		}
		panic(abort{fail("the consumer member's heartbeat: "+hbString(r), "NONE")})
	}
	b.lastC = sent
	sent = time.Now()
	if s := b.p.peer.ClassicSessionTimeout; b.gap == "" && sent.Sub(b.lastM)+stall >= s {
		b.gap = fmt.Sprintf("the classic member's Heartbeat came %v after its last request", sent.Sub(b.lastM).Round(time.Millisecond))
	}
	e := b.m.heartbeat()
	b.lastM = sent
	return e
}

// until heartbeats both until end() or until m's answer is not keep; it
// returns m's last answer and how many Heartbeats answered keep. end is
// asked again after every beat: a stall seen meanwhile lengthens the wait.
func (b *mixedBeats) until(end func() time.Time, keep codec.ErrorCode) (codec.ErrorCode, int) {
	n := 0
	for {
		e := b.once()
		if e != keep || !time.Now().Before(end()) {
			return e, n
		}
		n++
		time.Sleep(min(b.beat, max(time.Until(end()), 0)))
	}
}

// caseMixedTimerRemoves: join, a classic member that heartbeats on after
// its Heartbeat was answered REBALANCE_IN_PROGRESS (the consumer member
// changed its subscription, moving the group epoch; the classic member
// has nothing to revoke) and never rejoins; otherwise, one that joined
// and heartbeats without ever sending its SyncGroup. Either must be
// removed once its rebalance timeout has run from the answer that armed
// the timer (the REBALANCE_IN_PROGRESS, or the JoinGroup's NONE).
func caseMixedTimerRemoves(join bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needsMixed()
		joined := time.Now()
		c := p.consumerMember(p.id("g"))
		clock := p.sessionClock()
		defer clock.stop()
		var m *cmember
		clock.arm(func() { m = p.mixedMember(c, "", join) })
		b := p.mixedBeats(c, m, clock, joined)
		rebalance := time.Duration(p.classicRebalanceMs()) * time.Millisecond
		obs := fmt.Sprintf("rebalance timeout %v; ", rebalance)
		keep := codec.None
		if join {
			sent := time.Now()
			if r := c.heartbeat([]string{absentTopic, absentTopic + "-2"}); r.ErrorCode != codec.None {
				obs += "the consumer member's new subscription: " + hbString(r)
				if s := p.peer.SessionTimeout; s > 0 && sent.Sub(joined)+clock.stalls.Max() >= s {
					// Silent since its join for a session: it may
					// have expired, rightly.
					return clock.tooSlow(fmt.Sprintf("the consumer member's heartbeat came %v after its join: %s", sent.Sub(joined).Round(time.Millisecond), obs))
				}
				return fail(obs, "NONE")
			}
			b.lastC = sent
			obs += fmt.Sprintf("the consumer member's new subscription moved it to epoch %d; ", c.epoch)
			clock.arm(func() {
				if e := b.once(); e != codec.RebalanceInProgress {
					obs += "the classic member's Heartbeat " + e.String()
					if b.gap != "" {
						panic(abort{clock.tooSlow(b.gap + ": " + obs)})
					}
					panic(abort{fail(obs, "REBALANCE_IN_PROGRESS: the group epoch moved past its own")})
				}
			})
			keep = codec.RebalanceInProgress
			obs += "its Heartbeat REBALANCE_IN_PROGRESS; "
		} else {
			obs += "joined, not synced; "
		}
		// A stall seen meanwhile lengthens the wait.
		end := func() time.Time { return clock.armed.Add(rebalance + p.expiryMargin() + clock.stalls.Max()) }
		e, n := b.until(end, keep)
		at := time.Since(clock.armed).Round(time.Millisecond)
		obs += fmt.Sprintf("%d more Heartbeats %s, then %s %v after the timer was armed", n, keep, e, at)
		if b.gap != "" {
			return clock.tooSlow(b.gap + ": " + obs)
		}
		return want(e == codec.UnknownMemberID, obs, fmt.Sprintf("UNKNOWN_MEMBER_ID once %v has run: the timer removed it", rebalance))
	}
}

// caseMixedHeartbeatKeepsSession: a synced classic member heartbeats
// (as does the consumer member) for its session timeout and the margin
// past its SyncGroup; each Heartbeat must be NONE.
func caseMixedHeartbeatKeepsSession(p *probe) verdict {
	p.needsMixed()
	joined := time.Now()
	c := p.consumerMember(p.id("g"))
	clock := p.sessionClock()
	defer clock.stop()
	var m *cmember
	clock.arm(func() { m = p.mixedMember(c, "", true) })
	b := p.mixedBeats(c, m, clock, joined)
	session := p.peer.ClassicSessionTimeout
	end := func() time.Time { return clock.armed.Add(session + p.expiryMargin() + clock.stalls.Max()) }
	e, n := b.until(end, codec.None)
	obs := fmt.Sprintf("classic session %v; %d Heartbeats NONE, then %s %v after the SyncGroup", session, n, e, time.Since(clock.armed).Round(time.Millisecond))
	if e != codec.None && b.gap != "" {
		return clock.tooSlow(b.gap + ": " + obs)
	}
	return want(e == codec.None, obs, "every Heartbeat NONE: each started the session again")
}
