package conformance

import (
	"fmt"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The cases of this file check what a request leaves behind, seen by a
// later request or by ConsumerGroupDescribe, and the bounds of a check:
// rules a coordinator can break while answering the request itself
// plausibly (impl's planted bugs of them are in docs/mutants.md).

// lgMemberUnknownInstance is A3 row 5: {a member's id, an instance nobody
// holds}: UNKNOWN_MEMBER_ID, the member kept.
func lgMemberUnknownInstance(p *probe, m, _ string) (codec.LeaveGroupMember, codec.ErrorCode, bool) {
	return codec.LeaveGroupMember{MemberId: m, GroupInstanceId: codec.Str(p.id("nobody"))}, codec.UnknownMemberID, true
}

// caseLGErrorThenRemoval: a batch whose first entry fails and whose second
// names a static member by its instance: the second is answered and
// applied on its own.
func caseLGErrorThenRemoval(p *probe) verdict {
	v, ok := p.lgv()
	if !ok {
		return skip("the broker does not offer LeaveGroup v3")
	}
	c := p.conn()
	g, m, inst, keep := p.id("g"), p.id("m"), p.id("i"), p.id("m")
	c.mustJoin(static(p.joinReq(g, m), inst))
	c.mustJoin(p.joinReq(g, keep)) // the group outlives the removal
	r := c.leaveGroup(v, g, codec.LeaveGroupMember{MemberId: p.id("stranger")}, codec.LeaveGroupMember{GroupInstanceId: codec.Str(inst)})
	ok = r.ErrorCode == codec.None && len(r.Members) == 2 && r.Members[0].ErrorCode == codec.UnknownMemberID && r.Members[1].ErrorCode == codec.None
	exp := "top NONE; the stranger UNKNOWN_MEMBER_ID, " + short(m) + " NONE and removed"
	d := c.describeFor(g, ok, lgString(r), exp)
	_, kept := members(d)[m]
	return want(ok && !kept, lgString(r)+"; "+describeString(d), exp)
}

// caseStaticJoinMovesEpoch: a new static member moves the group epoch on,
// as any new member does (A5.1); only a takeover does not (A5.5).
func caseStaticJoinMovesEpoch(p *probe) verdict {
	p.needs(codec.ConsumerGroupDescribe)
	c := p.conn()
	g := p.id("g")
	c.mustJoin(p.joinReq(g, p.id("m")))
	before := c.describe(g)
	r := c.hb(p.hbv(), static(p.joinReq(g, p.id("m")), p.id("i")))
	after := c.describe(g)
	return want(r.ErrorCode == codec.None && after.GroupEpoch == before.GroupEpoch+1,
		fmt.Sprintf("group epoch %d; a new static member's join: %s; group epoch %d", before.GroupEpoch, hbString(r), after.GroupEpoch),
		fmt.Sprintf("NONE and group epoch %d", before.GroupEpoch+1))
}

// caseSubscriptionSwitch joins a member subscribed to one topic the
// broker lacks (a name of the case's own), then has it heartbeat
// subscribed to the peer's topic instead: as many topics, other names. A
// change of subscription moves the group epoch on and recomputes the
// target (A5.1; Kafka compares the names, KIP-848), so within a few
// heartbeats the member must be at a later epoch and assigned the
// partitions of the topic it now subscribes to; alone in its group, it
// owns nothing another member must give up first. A broker that compares
// the subscriptions by their length leaves it at its epoch with nothing.
func caseSubscriptionSwitch(p *probe) verdict {
	c := p.conn()
	g, mid := p.id("g"), p.id("m")
	join := p.joinReq(g, mid)
	join.SubscribedTopicNames = []string{p.id("missing-topic")}
	j := c.mustJoin(join)
	id := memberIDOf(j, mid)
	first := j.MemberEpoch
	good := time.Now() // the last NONE answer: the member's session runs from it
	sw := &codec.ConsumerGroupHeartbeatRequest{GroupId: g, MemberId: id, MemberEpoch: first, RebalanceTimeoutMs: -1,
		SubscribedTopicNames: []string{p.peer.Topic}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
	r := c.hb(p.hbv(), sw)
	obs := fmt.Sprintf("joined at epoch %d subscribed to a topic the broker lacks (%s); subscribed to %s instead: %s", first, hbString(j), p.peer.Topic, hbString(r))
	expected := fmt.Sprintf("NONE, and within %v an epoch above %d with partitions of %s assigned", p.peer.Timeout, first, p.peer.Topic)
	epoch, assigned := r.MemberEpoch, 0
	count := func(r *codec.ConsumerGroupHeartbeatResponse) {
		if r.Assignment != nil {
			assigned = 0
			for _, t := range r.Assignment.TopicPartitions {
				assigned += len(t.Partitions)
			}
		}
	}
	count(r)
	interval := max(p.peer.HeartbeatInterval, 50*time.Millisecond)
	for deadline := time.Now().Add(p.peer.Timeout); r.ErrorCode == codec.None && (epoch <= first || assigned == 0) && time.Now().Before(deadline); {
		good = time.Now()
		time.Sleep(interval)
		if r = c.hb(p.hbv(), keepalive(g, id, epoch)); r.ErrorCode == codec.None {
			epoch = r.MemberEpoch
			count(r)
		}
	}
	obs += fmt.Sprintf("; then: %s, at epoch %d with %d partitions", hbString(r), epoch, assigned)
	if r.ErrorCode != codec.None && p.peer.SessionTimeout > 0 && time.Since(good) >= p.peer.SessionTimeout {
		return tooSlowTo("a heartbeat came after the member's session could have ended: " + obs)
	}
	return want(r.ErrorCode == codec.None && epoch > first && assigned > 0, obs, expected)
}

// caseInvalidRegexMakesNoGroup: a join subscribing by a regex that does
// not compile, to a group id nobody uses, is refused
// (INVALID_REGULAR_EXPRESSION: B4.4/invalid-regex judges which error) and
// must leave no group behind, whatever the error (Kafka makes a new group
// only from the records of a join that succeeds): Describe of the id is
// GROUP_ID_NOT_FOUND, not an Empty group. A broker that takes the join
// made its group; B4.4/invalid-regex judges that, and this case is SKIP.
func caseInvalidRegexMakesNoGroup(p *probe) verdict {
	if !p.offers(codec.ConsumerGroupHeartbeat, 1) {
		return skip("the broker does not offer ConsumerGroupHeartbeat v1 (INVALID_REGULAR_EXPRESSION is v1's)")
	}
	c := p.conn()
	g := p.id("g")
	join := p.joinReq(g, p.id("m"))
	join.SubscribedTopicNames, join.SubscribedTopicRegex = nil, codec.Str("[")
	r := c.hb(1, join)
	if r.ErrorCode == codec.None {
		return skip("the join subscribing by the regex \"[\" was answered " + hbString(r) + ": it made its group, rightly if it made a member (B4.4/invalid-regex judges the answer)")
	}
	d := c.describeFor(g, true, hbString(r), "")
	return want(d.ErrorCode == codec.GroupIDNotFound, hbString(r)+"; then "+describeString(d)+" state "+fmt.Sprintf("%q", d.GroupState),
		"GROUP_ID_NOT_FOUND: the refused join made no group")
}

// caseEpochOneAhead: a heartbeat one epoch ahead of the member's is
// FENCED_MEMBER_EPOCH (A5.4: the bound of the check).
func caseEpochOneAhead(p *probe) verdict {
	c := p.conn()
	g, m := p.id("g"), p.id("m")
	j := c.mustJoin(p.joinReq(g, m))
	r := c.hb(p.hbv(), keepalive(g, m, j.MemberEpoch+1))
	return want(r.ErrorCode == codec.FencedMemberEpoch, fmt.Sprintf("member at epoch %d, heartbeat at %d: %s", j.MemberEpoch, j.MemberEpoch+1, hbString(r)), "FENCED_MEMBER_EPOCH")
}

// caseRevocationCarriesAssignment: a heartbeat that moves partitions of
// its member to pending revocation answers with the smaller assignment
// (A5.7: the assignment changed), or its client never revokes. m1 owns
// the topic's partitions, m2 joins, and m1 heartbeats reporting them all
// until an answer carries an assignment (smaller: pass) or Describe shows
// m1's assignment smaller while no answer said so (fail); a target that
// does not move within two seconds skips the case.
func caseRevocationCarriesAssignment(p *probe) verdict {
	p.needs(codec.ConsumerGroupDescribe)
	c := p.conn()
	g, m1 := p.id("g"), p.id("m")
	j := c.mustJoin(p.joinReq(g, m1))
	count := func(tps []codec.ConsumerGroupHeartbeatTopicPartitions) int {
		k := 0
		for _, tp := range tps {
			k += len(tp.Partitions)
		}
		return k
	}
	if j.Assignment == nil || count(j.Assignment.TopicPartitions) < 2 {
		return skip("the first member was given fewer than two partitions of " + p.peer.Topic + ": nothing to share")
	}
	owned := j.Assignment.TopicPartitions
	c.mustJoin(p.joinReq(g, p.id("m")))
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		req := keepalive(g, m1, j.MemberEpoch)
		req.TopicPartitions = owned
		r := c.hb(p.hbv(), req)
		if r.ErrorCode != codec.None {
			return fail("m1's heartbeat: "+hbString(r), "NONE")
		}
		if r.Assignment != nil {
			return want(count(r.Assignment.TopicPartitions) < count(owned), fmt.Sprintf("owning %d partitions, a second member joined; m1's answer: %s", count(owned), hbString(r)),
				"an assignment smaller than what m1 owns (the partitions to revoke left out)")
		}
		for _, mm := range c.describe(g).Members {
			if mm.MemberId == m1 && describedCount(mm.Assignment) < count(owned) {
				return fail(fmt.Sprintf("Describe shows m1 with %d partitions, but its answer (%s) carried no assignment", describedCount(mm.Assignment), hbString(r)),
					"the smaller assignment in the answer to the heartbeat that made it")
			}
		}
	}
	return skip("the target did not move within 2 s of the second member's join")
}

// describedCount counts a described assignment's partitions.
func describedCount(a codec.DescribedAssignment) int {
	k := 0
	for _, tp := range a.TopicPartitions {
		k += len(tp.Partitions)
	}
	return k
}

// caseEpochBumpNoAssignment: a heartbeat that only takes a new epoch, its
// member's partitions unchanged, carries no assignment (A5.7). m1 joins
// the topic and keeps alive until an answer carries none (its assignment
// settled); m2 joins subscribed to nothing, which moves the group epoch
// (a new member) and leaves m1's target as it was; m1's next heartbeats
// take the new epoch, and none of them may carry an assignment equal to
// m1's. Skipped if the group epoch does not move, or if m1's partitions do.
func caseEpochBumpNoAssignment(p *probe) verdict {
	c := p.conn()
	g := p.id("g")
	m1 := &pmember{id: p.id("m")}
	c.joinAll(p, g, m1)
	if !c.quietly(g, m1) {
		return skip("every keepalive carried an assignment (it kept changing)")
	}
	before := m1.epoch
	join := p.joinReq(g, p.id("m"))
	join.SubscribedTopicNames = []string{}
	if r := c.hb(p.hbv(), join); r.ErrorCode != codec.None {
		return skip("the second member's join (subscribed to nothing) was answered " + hbString(r))
	}
	for i := 0; i < 10; i++ {
		req := keepalive(g, m1.id, m1.epoch)
		req.TopicPartitions = m1.owned
		r := c.hb(p.hbv(), req)
		if r.ErrorCode != codec.None {
			return fail("keepalive after the second join: "+hbString(r), "NONE")
		}
		if r.Assignment != nil {
			if !samePartitions(owned(r.Assignment), m1.owned) {
				return skip("m1's partitions moved when a member subscribed to nothing joined: " + hbString(r))
			}
			return fail(fmt.Sprintf("epoch %d to %d; the answer carries the assignment m1 already holds: %s", before, r.MemberEpoch, hbString(r)), "no assignment (m1's partitions did not change)")
		}
		if r.MemberEpoch > before {
			return pass(fmt.Sprintf("epoch %d to %d without an assignment: %s", before, r.MemberEpoch, hbString(r)))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return skip(fmt.Sprintf("m1 stayed at epoch %d: the second member's join did not move the group epoch", before))
}

// samePartitions reports whether a and b own the same partitions.
func samePartitions(a, b []codec.ConsumerGroupHeartbeatTopicPartitions) bool {
	set := func(tps []codec.ConsumerGroupHeartbeatTopicPartitions) map[string]bool {
		out := map[string]bool{}
		for _, tp := range tps {
			for _, q := range tp.Partitions {
				out[fmt.Sprintf("%s/%d", tp.TopicId, q)] = true
			}
		}
		return out
	}
	sa, sb := set(a), set(b)
	if len(sa) != len(sb) {
		return false
	}
	for k := range sa {
		if !sb[k] {
			return false
		}
	}
	return true
}

// caseDescribeRenamedClient: a member joins under one ClientId and
// heartbeats, on another connection, under another; Describe shows the
// second: the coordinator takes a member's ClientId (and host) from each
// heartbeat's request, not once at the join (Kafka 4.0 rewrites the
// member's record when they change).
func caseDescribeRenamedClient(p *probe) verdict {
	p.needs(codec.ConsumerGroupDescribe)
	g, m := p.id("g"), p.id("m")
	j := p.connAs(codec.Str("ghostcheck-joined")).mustJoin(p.joinReq(g, m))
	r := p.connAs(codec.Str("ghostcheck-renamed")).hb(p.hbv(), keepalive(g, m, j.MemberEpoch))
	if r.ErrorCode != codec.None {
		return fail("the heartbeat under the new ClientId: "+hbString(r), "NONE")
	}
	d := p.conn().describe(g)
	for _, mm := range d.Members {
		if mm.MemberId == m {
			return want(mm.ClientId == "ghostcheck-renamed", fmt.Sprintf("joined as ghostcheck-joined, heartbeat as ghostcheck-renamed: Describe shows ClientId %q", mm.ClientId), `"ghostcheck-renamed"`)
		}
	}
	return fail(describeString(d), "the member listed")
}
