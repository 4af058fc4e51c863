package conformance

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The cases of pending revocations: what a null TopicPartitions and a
// static leave do to the partitions a member was asked to give up (A5.3,
// §B4.4).

// pendingSetup makes m1 (static when inst != "") own partitions alone, then
// has m2 join, and m1 heartbeat once more reporting everything it owns:
// the broker asks it to give some up, which it does not. It returns the
// two members (m1 still owning everything) and the partitions m1 was asked
// to give up. The case ends as SKIP when m1 is given nothing or asked to
// give up nothing.
func (p *probe) pendingSetup(c *pconn, g, inst string) (m1, m2 *pmember, asked map[[2]any]bool) {
	return p.pendingSetupTimed(c, g, inst, p.joinReq(g, "").RebalanceTimeoutMs)
}

// pendingSetupTimed is pendingSetup with m1 joined at RebalanceTimeoutMs
// rebalanceMs.
func (p *probe) pendingSetupTimed(c *pconn, g, inst string, rebalanceMs int32) (m1, m2 *pmember, asked map[[2]any]bool) {
	m1, m2 = &pmember{id: p.id("m"), inst: inst}, &pmember{id: p.id("m")}
	req := p.joinReq(g, m1.id)
	req.RebalanceTimeoutMs = rebalanceMs
	if inst != "" {
		static(req, inst)
	}
	j := c.mustJoin(req)
	m1.epoch, m1.owned = j.MemberEpoch, owned(j.Assignment)
	for i := 0; i < 5 && len(partitionSet(m1.owned)) == 0; i++ {
		c.beat(g, m1)
	}
	all := partitionSet(m1.owned)
	if len(all) == 0 {
		panic(abort{skip("the broker gave the group's only member no partitions")})
	}
	r := c.mustJoin(p.joinReq(g, m2.id))
	m2.epoch, m2.owned = r.MemberEpoch, owned(r.Assignment)
	asked = map[[2]any]bool{}
	for i := 0; i < 10 && len(asked) == 0; i++ {
		req := keepalive(g, m1.id, m1.epoch)
		if inst != "" {
			static(req, inst)
		}
		req.TopicPartitions = m1.owned // it keeps reporting everything
		r := c.hb(p.hbv(), req)
		if r.ErrorCode != codec.None {
			panic(abort{fail("setup heartbeat of m1: "+hbString(r), "the setup heartbeats to succeed")})
		}
		m1.epoch = r.MemberEpoch
		if r.Assignment != nil {
			keep := partitionSet(owned(r.Assignment))
			for k := range all {
				if !keep[k] {
					asked[k] = true
				}
			}
		}
	}
	if len(asked) == 0 {
		panic(abort{skip("m1 was asked to give up none of its partitions in 10 heartbeats after m2 joined")})
	}
	return m1, m2, asked
}

// given heartbeats m2 once, reporting what it owns, and returns the
// partitions of asked it now holds.
func (c *pconn) given(g string, m2 *pmember, asked map[[2]any]bool) ([]string, string) {
	c.beat(g, m2)
	var got []string
	for k := range partitionSet(m2.owned) {
		if asked[k] {
			got = append(got, fmt.Sprint(k[1]))
		}
	}
	sort.Strings(got)
	return got, fmt.Sprintf("m2 epoch %d owns %d", m2.epoch, len(partitionSet(m2.owned)))
}

// caseNullOwnedKeepsPending: m1, asked to give up partitions, heartbeats
// with TopicPartitions null ("unchanged", A5.3 step 1): they stay pending,
// so m2 is given none of them. m1 heartbeats before each of m2's
// heartbeats, so its session cannot end meanwhile (an ended session would
// free the partitions: then the case skips).
func caseNullOwnedKeepsPending(p *probe) verdict {
	c := p.conn()
	g := p.id("g")
	m1, m2, asked := p.pendingSetup(c, g, "")
	var seen []string
	for i := 0; i < 4; i++ {
		r := c.hb(p.hbv(), keepalive(g, m1.id, m1.epoch))
		if r.ErrorCode == codec.UnknownMemberID {
			return skip("m1's session ended while the case ran (the machine is too slow for it): " + hbString(r))
		}
		if r.ErrorCode != codec.None {
			return fail("m1's heartbeat with TopicPartitions null: "+hbString(r), "NONE")
		}
		m1.epoch = r.MemberEpoch
		got, s := c.given(g, m2, asked)
		seen = append(seen, s)
		if len(got) > 0 {
			return fail(fmt.Sprintf("m2 was given partitions %s that m1 was asked to give up and still owns (its heartbeats sent TopicPartitions null); %s", strings.Join(got, ","), strings.Join(seen, "; ")),
				"none of m1's pending partitions for m2 while m1 reports nothing")
		}
	}
	return pass(fmt.Sprintf("m1 asked to give up %d partitions, heartbeating with TopicPartitions null; m2 given none of them: %s", len(asked), strings.Join(seen, "; ")))
}

// caseParkDropsPending: m1, a static member asked to give up partitions,
// leaves at -2 without giving them up. The leave drops its pending
// revocations (§B4.4), so m2 is given them at once, long before m1's
// session could end.
func caseParkDropsPending(p *probe) verdict {
	c := p.conn()
	g, inst := p.id("g"), p.id("i")
	m1, m2, asked := p.pendingSetup(c, g, inst)
	if r := c.hb(p.hbv(), static(leave(g, m1.id, -2), inst)); r.ErrorCode != codec.None {
		return fail("static leave: "+hbString(r), "the setup static leave to succeed")
	}
	var seen []string
	var got []string
	for i := 0; i < 5 && len(got) < len(asked); i++ {
		if i > 0 {
			time.Sleep(20 * time.Millisecond)
		}
		var s string
		got, s = c.given(g, m2, asked)
		seen = append(seen, s)
	}
	obs := fmt.Sprintf("m1 asked to give up %d partitions, parked at -2 without giving them up; m2 then given %d of them (%s): %s", len(asked), len(got), strings.Join(got, ","), strings.Join(seen, "; "))
	return want(len(got) == len(asked), obs, "m2 given every partition m1 was asked to give up, at once")
}
