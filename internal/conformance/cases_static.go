package conformance

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The cases of KIP-345's promise (A5.5), the size cap a static takeover
// skips (KAFKA-20601) and the full request (A5.7).

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
func caseStaticRestart(p *probe) verdict {
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
	m3 := p.id("m")
	r := c.hb(p.hbv(), static(p.joinReq(g, m3), m1.inst))
	after := c.describe(g)
	got := tpKeys(owned(r.Assignment))
	t3, listed := target(after, m3)
	t2after, _ := target(after, m2.id)
	_, oldListed := target(after, m1.id)
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
	quiet := false
	for i := 0; i < 10 && !quiet; i++ {
		r := c.hb(p.hbv(), keepalive(g, m, pm.epoch))
		if r.ErrorCode != codec.None {
			return fail("keepalive: "+hbString(r), "the setup heartbeats to succeed")
		}
		pm.epoch, quiet = r.MemberEpoch, r.Assignment == nil
		if r.Assignment != nil {
			pm.owned = owned(r.Assignment)
		}
	}
	if !quiet {
		return skip("every keepalive carried an assignment (it kept changing): a full request cannot be told apart")
	}
	full := keepalive(g, m, pm.epoch)
	full.RebalanceTimeoutMs, full.SubscribedTopicRegex, full.TopicPartitions = 30000, codec.Str(re), pm.owned
	r := c.hb(p.hbv(), full)
	return want(r.ErrorCode == codec.None && r.Assignment != nil, "after a keepalive without assignment, the full request: "+hbString(r), "NONE with the assignment")
}
