package conformance

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The cases of static membership: KIP-345's promise (A5.5) and the
// assignment key a static takeover keeps (A5.2), the size cap a static
// takeover skips (KAFKA-20601), the full request (A5.7), and the session
// a static leave leaves running (§B4.4).

// pmember is one member a case keeps heartbeating: its ids, the epoch the
// broker gave it and what it owns.
type pmember struct {
	id, inst string
	epoch    int32
	owned    []codec.ConsumerGroupHeartbeatTopicPartitions
}

// beat sends m's keepalive, reporting what it owns, and takes the answer;
// an error ends the case. A member the broker left at epoch 0 (librdkafka's
// mock does so until the partitions it is to get are free) is still
// joining: it sends the full join again, as a client does.
func (c *pconn) beat(g string, m *pmember) {
	req := keepalive(g, m.id, m.epoch)
	if m.epoch == 0 {
		req = c.p.joinReq(g, m.id)
	}
	if m.inst != "" {
		static(req, m.inst)
	}
	req.TopicPartitions = m.owned
	r := c.hb(c.p.hbv(), req)
	if r.ErrorCode != codec.None {
		panic(abort{fail(fmt.Sprintf("setup heartbeat of %s: %s", short(m.id), hbString(r)), "the setup heartbeats to succeed")})
	}
	m.epoch = r.MemberEpoch
	if r.Assignment != nil {
		m.owned = owned(r.Assignment)
	}
}

// quietly keeps m alive (up to ten keepalives) until an answer carries no
// assignment, taking its epoch and partitions; false if every answer
// carried one. An error ends the case.
func (c *pconn) quietly(g string, m *pmember) bool {
	for i := 0; i < 10; i++ {
		r := c.hb(c.p.hbv(), keepalive(g, m.id, m.epoch))
		if r.ErrorCode != codec.None {
			panic(abort{fail("keepalive: "+hbString(r), "the setup heartbeats to succeed")})
		}
		m.epoch = r.MemberEpoch
		if r.Assignment == nil {
			return true
		}
		m.owned = owned(r.Assignment)
	}
	return false
}

// joinAll joins every member to group g, static ones with their instance
// id, and takes each one's epoch and assignment.
func (c *pconn) joinAll(p *probe, g string, ms ...*pmember) {
	for _, m := range ms {
		req := p.joinReq(g, m.id)
		if m.inst != "" {
			static(req, m.inst)
		}
		j := c.mustJoin(req)
		m.epoch, m.owned = j.MemberEpoch, owned(j.Assignment)
	}
}

// settle heartbeats every member until Describe shows the group at rest:
// every member at the group epoch, owning exactly its target. It ends the
// case as SKIP if the group does not settle in 20 rounds.
func (c *pconn) settle(g string, ms ...*pmember) codec.DescribedGroup {
	for i := 0; i < 20; i++ {
		for _, m := range ms {
			c.beat(g, m)
		}
		if d := c.describe(g); settled(d) {
			return d
		}
	}
	panic(abort{skip("the group did not settle (every member at the group epoch, owning its target) in 20 rounds of heartbeats")})
}

func settled(d codec.DescribedGroup) bool {
	if d.ErrorCode != codec.None || d.AssignmentEpoch != d.GroupEpoch {
		return false
	}
	for _, m := range d.Members {
		if m.MemberEpoch != d.GroupEpoch || !slices.Equal(describedKeys(m.Assignment), describedKeys(m.TargetAssignment)) {
			return false
		}
	}
	return true
}

// tpKeys lists a heartbeat assignment's partitions as "topic id-partition",
// sorted.
func tpKeys(tps []codec.ConsumerGroupHeartbeatTopicPartitions) []string {
	out := []string{}
	for _, t := range tps {
		for _, p := range t.Partitions {
			out = append(out, fmt.Sprintf("%s-%d", t.TopicId, p))
		}
	}
	sort.Strings(out)
	return out
}

// describedKeys is tpKeys of an assignment Describe shows.
func describedKeys(a codec.DescribedAssignment) []string {
	tps := make([]codec.ConsumerGroupHeartbeatTopicPartitions, len(a.TopicPartitions))
	for i, t := range a.TopicPartitions {
		tps[i] = codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: t.TopicId, Partitions: t.Partitions}
	}
	return tpKeys(tps)
}

// target is member id's target assignment in d, and whether d lists it.
func target(d codec.DescribedGroup, id string) ([]string, bool) {
	for _, m := range d.Members {
		if m.MemberId == id {
			return describedKeys(m.TargetAssignment), true
		}
	}
	return nil, false
}

// caseStaticRestart is KIP-345's promise (A5.5): a static member m1 and a
// dynamic member m2 settle; m1 leaves at -2 (its process ends) and a new
// process joins under a new member id m3 with m1's instance id. The group
// epoch must not move, m3's join response must carry m1's partitions at
// that epoch, and m2's target must not change.
func caseStaticRestart(p *probe) verdict { return staticRejoin(p, false) }

// caseStaticResume is caseStaticRestart with the parked member resuming
// under its own member id: the same promise.
func caseStaticResume(p *probe) verdict { return staticRejoin(p, true) }

// staticRejoin is caseStaticRestart (resume: m1 rejoins under its own
// member id, m3 is m1).
func staticRejoin(p *probe, resume bool) verdict {
	p.needs(codec.ConsumerGroupDescribe)
	c := p.conn()
	g := p.id("g")
	m1, m2 := &pmember{id: p.id("m"), inst: p.id("i")}, &pmember{id: p.id("m")}
	c.joinAll(p, g, m1, m2)
	before := c.settle(g, m1, m2)
	t1, _ := target(before, m1.id)
	t2, _ := target(before, m2.id)
	if r := c.hb(p.hbv(), static(leave(g, m1.id, -2), m1.inst)); r.ErrorCode != codec.None {
		return fail("static leave: "+hbString(r), "the setup static leave to succeed")
	}
	m3 := m1.id
	if !resume {
		m3 = p.id("m")
	}
	r := c.hb(p.hbv(), static(p.joinReq(g, m3), m1.inst))
	after := c.describe(g)
	got := tpKeys(owned(r.Assignment))
	t3, listed := target(after, m3)
	t2after, _ := target(after, m2.id)
	_, oldListed := target(after, m1.id)
	if resume {
		oldListed = false // m1 is m3
	}
	var bad []string
	check := func(ok bool, what string) {
		if !ok {
			bad = append(bad, what)
		}
	}
	check(r.ErrorCode == codec.None, "the join was not NONE")
	check(after.GroupEpoch == before.GroupEpoch, fmt.Sprintf("the group epoch moved from %d to %d", before.GroupEpoch, after.GroupEpoch))
	check(r.MemberEpoch == before.GroupEpoch, fmt.Sprintf("the join answered epoch %d, not the group's %d", r.MemberEpoch, before.GroupEpoch))
	check(r.Assignment != nil && slices.Equal(got, t1), fmt.Sprintf("the join carried %s, m1 had %s", partitionList(got, r.Assignment != nil), partitionList(t1, true)))
	check(slices.Equal(t2after, t2), fmt.Sprintf("m2's target moved from %s to %s", partitionList(t2, true), partitionList(t2after, true)))
	check(listed && !oldListed && slices.Equal(t3, t1), "Describe does not list the new member in m1's place with m1's target")
	obs := fmt.Sprintf("join %s; group epoch %d before, %d after; %s", hbString(r), before.GroupEpoch, after.GroupEpoch, describeString(after))
	if len(bad) > 0 {
		obs = strings.Join(bad, "; ") + ": " + obs
	}
	return want(len(bad) == 0, obs, fmt.Sprintf("NONE at epoch %d with m1's %d partitions; group epoch and m2's target unchanged", before.GroupEpoch, len(t1)))
}

func partitionList(ps []string, present bool) string {
	if !present {
		return "no assignment"
	}
	return fmt.Sprintf("%d partitions", len(ps))
}

// caseTakeoverFullGroup fills the group to group.consumer.max.size with
// one static member and dynamic ones, parks the static member, and has a
// new member id take its instance over: the takeover replaces a member,
// so the size cap does not apply (KAFKA-20601).
func caseTakeoverFullGroup(p *probe) verdict {
	n := p.peer.MaxGroupSize
	if v, cannot := cannotFill(n); cannot {
		return v
	}
	c := p.conn()
	g, m1, inst := p.id("g"), p.id("m"), p.id("i")
	c.mustJoin(static(p.joinReq(g, m1), inst))
	for i := 1; i < n; i++ {
		c.mustJoin(p.joinReq(g, p.id("m")))
	}
	if r := c.hb(p.hbv(), static(leave(g, m1, -2), inst)); r.ErrorCode != codec.None {
		return fail("static leave: "+hbString(r), "the setup static leave to succeed")
	}
	m2 := p.id("m")
	r := c.hb(p.hbv(), static(p.joinReq(g, m2), inst))
	obs := fmt.Sprintf("%d members, one parked; takeover: %s", n, hbString(r))
	d := c.describeFor(g, r.ErrorCode == codec.None, obs, "NONE, the new member in the parked one's place")
	ms := members(d)
	_, old := ms[m1]
	_, now := ms[m2]
	return want(r.ErrorCode == codec.None && now && !old && len(ms) == n, obs+"; "+describeString(d), "NONE, the new member in the parked one's place")
}

// caseRegexFull: a member subscribed by regex heartbeats until an answer
// carries no assignment (nothing changed), then sends a full request
// naming its subscription by regex only (names null): the answer must
// carry the assignment (A5.7: Kafka's full-request test counts the
// regex).
func caseRegexFull(p *probe) verdict {
	c := p.conn()
	g, m := p.id("g"), p.id("m")
	re := "^" + regexp.QuoteMeta(p.peer.Topic) + "$"
	join := p.joinReq(g, m)
	join.SubscribedTopicNames, join.SubscribedTopicRegex = nil, codec.Str(re)
	j := c.mustJoin(join)
	pm := &pmember{id: m, epoch: j.MemberEpoch, owned: owned(j.Assignment)}
	if !c.quietly(g, pm) {
		return skip("every keepalive carried an assignment (it kept changing): a full request cannot be told apart")
	}
	full := keepalive(g, m, pm.epoch)
	full.RebalanceTimeoutMs, full.SubscribedTopicRegex, full.TopicPartitions = 30000, codec.Str(re), pm.owned
	r := c.hb(p.hbv(), full)
	return want(r.ErrorCode == codec.None && r.Assignment != nil, "after a keepalive without assignment, the full request: "+hbString(r), "NONE with the assignment")
}

// --- §B4.4: the session of a parked member ---

// caseStaticLeaveKeepsSession: a static member parks at -2 late in its
// session (at 70 % of it). The leave does not refresh the session
// (§B4.4), so the member is gone one session timeout after its join,
// which Describe checks shortly before one session timeout after the
// leave: a broker that re-armed the session at the leave still lists it
// then. The check comes at least expiryMargin after the join's deadline,
// and later by the stalls seen meanwhile (sessionClock), so a correct
// broker is never failed for timer lag; a Describe that finds the member
// gone only once a session the leave re-armed could have ended too (a
// stalled machine) judges nothing, and the case is run again (judged).
func caseStaticLeaveKeepsSession(p *probe) verdict {
	s := p.peer.SessionTimeout
	if s <= 0 {
		return skip("the broker's session timeout was not given (--session-timeout)")
	}
	p.needs(codec.ConsumerGroupDescribe) // before waiting a session out
	const guard = 100 * time.Millisecond
	margin := p.expiryMargin()
	parkAfter := max(s*7/10, margin+guard)
	if parkAfter >= s*9/10 {
		return skip(fmt.Sprintf("a session timeout of %v is too short to park late in it and still tell a refreshed session apart", s))
	}
	c := p.conn()
	g, m, inst := p.id("g"), p.id("m"), p.id("i")
	clock := p.sessionClock() // timed from what the case saw (expiry.go)
	defer clock.stop()
	clock.arm(func() { c.mustJoin(static(p.joinReq(g, m), inst)) })
	joined := clock.armed // the broker's session began before this
	time.Sleep(time.Until(joined.Add(parkAfter)))
	parked := time.Now()
	r := c.hb(p.hbv(), static(leave(g, m, -2), inst))
	switch {
	case r.ErrorCode == codec.UnknownMemberID && time.Since(joined) > s*8/10:
		return skip(fmt.Sprintf("the leave came %v after the join, and the member's session had ended (the machine is too slow for this timing)", time.Since(joined).Round(time.Millisecond)))
	case r.ErrorCode != codec.None:
		return fail("static leave: "+hbString(r), "the setup static leave to succeed")
	}
	at := parked.Add(s - guard) // a re-armed session still runs
	time.Sleep(time.Until(at))
	clock.waitGone()
	still, d := present(c, g, m)
	obs := fmt.Sprintf("parked %v after the join; %v after the join: %s", parked.Sub(joined).Round(time.Millisecond), time.Since(joined).Round(time.Millisecond), d)
	if !still && !time.Now().Before(parked.Add(s)) {
		return clock.tooSlow("the Describe was answered after a session the leave re-armed could have ended: " + obs)
	}
	return want(!still, obs, fmt.Sprintf("gone one session timeout (%v) after its join: the leave does not refresh the session", s))
}

// --- A5.5: the assignment key ---

// caseRestartThenRebalance: two twin groups, each of a static member s
// (instance i) and a dynamic member d, settle alike. In the first, s's
// process restarts: a new member id t takes its instance over. Then, in
// both, a third member x joins, and both settle again. The restart must
// have changed nothing: every member's target is the one its twin gets
// (t's is s's). The ids cross (s < i < d < x < t): a broker that keys a
// static member by its member id rather than its instance id (A5.2) puts t
// last and moves the others' partitions.
func caseRestartThenRebalance(p *probe) verdict {
	p.needs(codec.ConsumerGroupDescribe)
	c := p.conn()
	base := p.id("m")
	sID, inst, dID, xID, tID := base+"-1", base+"-2", base+"-5", base+"-7", base+"-9"
	gA, gB := p.id("g"), p.id("g")
	twin := func(g string) (s, d *pmember) {
		s, d = &pmember{id: sID, inst: inst}, &pmember{id: dID}
		c.joinAll(p, g, s, d)
		c.settle(g, s, d)
		return s, d
	}
	sA, dA := twin(gA)
	sB, dB := twin(gB)
	if r := c.hb(p.hbv(), static(leave(gA, sA.id, -2), inst)); r.ErrorCode != codec.None {
		return fail("static leave: "+hbString(r), "the setup static leave to succeed")
	}
	j := c.hb(p.hbv(), static(p.joinReq(gA, tID), inst))
	if j.ErrorCode != codec.None {
		return fail("takeover: "+hbString(j), "the takeover to succeed")
	}
	tA := &pmember{id: tID, inst: inst, epoch: j.MemberEpoch, owned: owned(j.Assignment)}
	xA, xB := &pmember{id: xID}, &pmember{id: xID}
	for _, x := range []struct {
		g string
		m *pmember
	}{{gA, xA}, {gB, xB}} {
		r := c.mustJoin(p.joinReq(x.g, x.m.id))
		x.m.epoch, x.m.owned = r.MemberEpoch, owned(r.Assignment)
	}
	a := c.settle(gA, tA, dA, xA)
	b := c.settle(gB, sB, dB, xB)
	var bad, both []string
	for _, pair := range [][3]string{{tID, sID, "t (s restarted)"}, {dID, dID, "d"}, {xID, xID, "x"}} {
		ta, _ := target(a, pair[0])
		tb, _ := target(b, pair[1])
		name := pair[2]
		both = append(both, fmt.Sprintf("%s %s/%s", name, partitionNumbers(ta), partitionNumbers(tb)))
		if !slices.Equal(ta, tb) {
			bad = append(bad, name)
		}
	}
	obs := "targets after x joined, restarted group/twin: " + strings.Join(both, ", ")
	if len(bad) > 0 {
		obs = "the restart moved the targets of " + strings.Join(bad, ", ") + ": " + obs
	}
	return want(len(bad) == 0, obs, "every target as in the twin group without the restart")
}

// partitionNumbers shows tpKeys as partition numbers, "[0 3]".
func partitionNumbers(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k[strings.LastIndex(k, "-")+1:]
	}
	return "[" + strings.Join(out, " ") + "]"
}
