package conformance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The reconciliation cases of a member that does not revoke (A5.3, A5.6):
// its rebalance timer, which its heartbeats do not restart; the target it
// keeps while it still owns what it was asked to give up; and the free
// partitions another member gets meanwhile.

// revokeRebalanceMs is the RebalanceTimeoutMs of the member
// caseRebalanceTimeoutFences holds to its timer: short, so the case is
// quick, and many of the case's heartbeats long, so a timer each of them
// restarts never fires.
const revokeRebalanceMs = 1500

// caseRebalanceTimeoutFences: m1, joined with a RebalanceTimeoutMs of
// revokeRebalanceMs, owns the topic alone; m2 joins and m1 is asked to give
// partitions up; m1 goes on heartbeating (every heartbeat interval, at most
// a fifth of its rebalance timeout) reporting everything it owns, m2
// alongside. The timer started when m1 was first asked, and its heartbeats
// do not restart it: m1 must be fenced (an error to its heartbeat) by then
// plus the timer, the session check's margin and two seconds (a loaded
// broker's timer fires late).
func caseRebalanceTimeoutFences(p *probe) verdict {
	c := p.conn()
	g := p.id("g")
	m1, m2, asked := p.pendingSetupTimed(c, g, "", revokeRebalanceMs)
	since := time.Now()
	rebalance := time.Duration(revokeRebalanceMs) * time.Millisecond
	every := min(p.peer.HeartbeatInterval, rebalance/5)
	if every <= 0 {
		every = rebalance / 5
	}
	deadline := since.Add(rebalance + p.expiryMargin() + 2*time.Second)
	beats := 0
	for time.Now().Before(deadline) {
		req := keepalive(g, m1.id, m1.epoch)
		req.TopicPartitions = m1.owned // it keeps reporting everything
		r := c.hb(p.hbv(), req)
		if r.ErrorCode != codec.None {
			obs := fmt.Sprintf("m1 (rebalance timeout %v) asked to give up %d partitions, heartbeating every %v reporting them: after %d heartbeats, %v after it was asked: %s",
				rebalance, len(asked), every, beats, time.Since(since).Round(time.Millisecond), hbString(r))
			return want(r.ErrorCode == codec.UnknownMemberID || r.ErrorCode == codec.FencedMemberEpoch, obs, "UNKNOWN_MEMBER_ID or FENCED_MEMBER_EPOCH: m1 fenced at its rebalance timeout")
		}
		beats++
		m1.epoch = r.MemberEpoch
		c.beat(g, m2)
		time.Sleep(every)
	}
	return fail(fmt.Sprintf("m1 (rebalance timeout %v) asked to give up %d partitions, heartbeating every %v reporting them: every one of %d heartbeats over %v answered NONE",
		rebalance, len(asked), every, beats, time.Since(since).Round(time.Millisecond)), "m1 fenced once its rebalance timeout passed: the timer starts when it is first asked, and heartbeats do not restart it")
}

// fullHeartbeat is m's full request (A5.7: its answer carries the
// assignment) reporting owned.
func (p *probe) fullHeartbeat(g string, m *pmember, owned []codec.ConsumerGroupHeartbeatTopicPartitions) *codec.ConsumerGroupHeartbeatRequest {
	req := p.joinReq(g, m.id)
	req.MemberEpoch = m.epoch
	req.TopicPartitions = owned
	return req
}

// keysOf lists a set of partitions as tpKeys does.
func keysOf(s map[[2]any]bool) []string {
	out := []string{}
	for k := range s {
		out = append(out, fmt.Sprintf("%s-%d", k[0], k[1]))
	}
	slices.Sort(out)
	return out
}

// caseStillRevokingKeepsAssignment: m1 owns the topic alone, m2 joins, and
// m1 is asked to give partitions up (it keeps the rest, kept); m1 does not
// revoke. A third member joins, and once Describe shows m1's target moved
// off some of kept, m1's full heartbeats, still reporting everything, must
// each answer its epoch unchanged and the assignment kept: a member still
// revoking goes on revoking against the target it was given (A5.3 step
// 2), and learns the new one only once it has let go.
func caseStillRevokingKeepsAssignment(p *probe) verdict {
	p.needs(codec.ConsumerGroupDescribe)
	c := p.conn()
	g := p.id("g")
	m1, m2, asked := p.pendingSetup(c, g, "")
	all := partitionSet(m1.owned)
	kept := map[[2]any]bool{}
	for k := range all {
		if !asked[k] {
			kept[k] = true
		}
	}
	epoch := m1.epoch
	m3 := &pmember{id: p.id("m")}
	c.joinAll(p, g, m3)
	obs := fmt.Sprintf("m1 at epoch %d owns %d partitions, asked to give up %d (keeping %v); a third member joined", epoch, len(all), len(asked), keysOf(kept))
	var seen []string
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		r := c.hb(p.hbv(), p.fullHeartbeat(g, m1, m1.owned))
		if r.ErrorCode != codec.None {
			return fail(obs+"; m1's full heartbeat reporting everything: "+hbString(r), "NONE")
		}
		got := tpKeys(owned(r.Assignment))
		s := fmt.Sprintf("epoch %d assigned %v", r.MemberEpoch, got)
		if len(seen) == 0 || seen[len(seen)-1] != s {
			seen = append(seen, s)
		}
		if r.Assignment == nil || r.MemberEpoch != epoch || !slices.Equal(got, keysOf(kept)) {
			return fail(fmt.Sprintf("%s; m1's full heartbeats, still reporting everything, answered %s", obs, strings.Join(seen, "; ")),
				fmt.Sprintf("epoch %d and the assignment it keeps, %v, while it still owns what it was asked to give up", epoch, keysOf(kept)))
		}
		c.beat(g, m2)
		c.beat(g, m3)
		tgt, ok := target(c.describe(g), m1.id)
		if !ok {
			return fail(obs+"; Describe does not list m1", "m1 listed")
		}
		if slices.ContainsFunc(keysOf(kept), func(k string) bool { return !slices.Contains(tgt, k) }) {
			// The target moved off what m1 keeps: judge the next answers.
			for i := 0; i < 3; i++ {
				r := c.hb(p.hbv(), p.fullHeartbeat(g, m1, m1.owned))
				got := tpKeys(owned(r.Assignment))
				s := fmt.Sprintf("%s, epoch %d assigned %v", r.ErrorCode, r.MemberEpoch, got)
				if seen[len(seen)-1] != s {
					seen = append(seen, s)
				}
				if r.ErrorCode != codec.None || r.Assignment == nil || r.MemberEpoch != epoch || !slices.Equal(got, keysOf(kept)) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			obs += fmt.Sprintf("; Describe shows m1's target moved to %v; m1's full heartbeats, still reporting everything, answered %s", tgt, strings.Join(seen, "; "))
			last := seen[len(seen)-1]
			return want(last == fmt.Sprintf("%s, epoch %d assigned %v", codec.None, epoch, keysOf(kept)), obs,
				fmt.Sprintf("epoch %d and the assignment it keeps, %v: a member still revoking does not take a newer target", epoch, keysOf(kept)))
		}
	}
	return skip(obs + "; m1's target did not move off what it keeps within 3 s (" + strings.Join(seen, "; ") + ")")
}

// caseFreePartitionsAssigned: m1 and m3 join and settle, each owning its
// target; m2 and m4 join, and m1 keeps reporting everything it owned (it
// never revokes); m3 leaves, which frees its partitions. Once Describe
// shows m2 and m4 at the group epoch, a newcomer whose target holds both
// partitions nobody owns (m3's) and partitions m1 still owns must hold
// every free one (A5.3 step 4: the rest comes later) and none of m1's.
// With three members left, a sticky assignor gives a newcomer one of the
// partitions m1 must give up beside free ones, and a round-robin one
// mixes them too; the case is skipped when neither newcomer's target
// holds both kinds (then nothing is held back either way).
func caseFreePartitionsAssigned(p *probe) verdict {
	p.needs(codec.ConsumerGroupDescribe)
	c := p.conn()
	g := p.id("g")
	m1, m3 := &pmember{id: p.id("m")}, &pmember{id: p.id("m")}
	c.joinAll(p, g, m1, m3)
	c.settle(g, m1, m3)
	ownedBy1 := keysOf(partitionSet(m1.owned))
	keep1 := m1.owned
	if len(ownedBy1) == 0 || len(partitionSet(m3.owned)) == 0 {
		return skip(fmt.Sprintf("the two members own %d and %d partitions: the case needs both to own some", len(ownedBy1), len(partitionSet(m3.owned))))
	}
	m2, m4 := &pmember{id: p.id("m")}, &pmember{id: p.id("m")}
	c.joinAll(p, g, m2, m4)
	alive := func() {
		req := keepalive(g, m1.id, m1.epoch)
		req.TopicPartitions = keep1 // m1 never revokes
		r := c.hb(p.hbv(), req)
		if r.ErrorCode != codec.None {
			panic(abort{fail("m1's heartbeat reporting everything it owned: "+hbString(r), "NONE")})
		}
		m1.epoch = r.MemberEpoch
	}
	alive()
	if r := c.hb(p.hbv(), leave(g, m3.id, -1)); r.ErrorCode != codec.None {
		return fail("m3's leave: "+hbString(r), "NONE")
	}
	var seen []string
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		alive()
		c.beat(g, m2)
		c.beat(g, m4)
		d := c.describe(g)
		s := fmt.Sprintf("group epoch %d, %s at %d, %s at %d", d.GroupEpoch, short(m2.id), m2.epoch, short(m4.id), m4.epoch)
		if len(seen) == 0 || seen[len(seen)-1] != s {
			seen = append(seen, s)
		}
		if m2.epoch != d.GroupEpoch || m4.epoch != d.GroupEpoch || d.AssignmentEpoch != d.GroupEpoch {
			continue
		}
		obs := fmt.Sprintf("%s owns %v and never revokes; %s left; %s", short(m1.id), ownedBy1, short(m3.id), strings.Join(seen, "; "))
		judged := false
		for _, m := range []*pmember{m2, m4} {
			tgt, ok := target(d, m.id)
			if !ok {
				return fail(obs+"; Describe does not list "+short(m.id)+": "+describeString(d), "every member listed")
			}
			var free, held []string
			for _, k := range tgt {
				if slices.Contains(ownedBy1, k) {
					held = append(held, k)
				} else {
					free = append(free, k)
				}
			}
			if len(free) == 0 || len(held) == 0 {
				obs += fmt.Sprintf("; %s's target %v", short(m.id), tgt)
				continue
			}
			// m's answer may predate the target Describe showed: once
			// more, at it.
			c.beat(g, m)
			have := tpKeys(m.owned)
			obs += fmt.Sprintf("; %s's target holds free %v and %s's %v: it holds %v", short(m.id), free, short(m1.id), held, have)
			judged = true
			if slices.ContainsFunc(free, func(k string) bool { return !slices.Contains(have, k) }) || slices.ContainsFunc(held, func(k string) bool { return slices.Contains(have, k) }) {
				return fail(obs, "every free partition of its target at once, and none m1 still owns")
			}
		}
		if !judged {
			return skip(obs + ": the case needs a newcomer's target to hold both a free partition and one m1 owns")
		}
		return pass(obs)
	}
	return skip("the newcomers did not reach the group epoch within 3 s of m3's leave: " + strings.Join(seen, "; "))
}
