package conformance

import (
	"fmt"
	"slices"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// A7.1's checks of a classic JoinGroup to a consumer group that a client
// sees in the answer or in the group after it: the size cap, the
// protocols, the static member's id and instance, the subscription that
// does not read, and the group epoch a replacement keeps and a new
// subscription moves. Each case first makes a classic member of the
// consumer group (mixedMember), so a broker that keeps the protocols apart
// is N/A before the request the case is about.

// casesMixedJoin: A7.1's refusals and epochs.
func casesMixedJoin() []Case {
	return []Case{
		{Name: "A7.1/group-max-size", Source: srcKafka40Mixed, Rule: "with group.consumer.max.size members (a classic one among them), a new member's classic JoinGroup: GROUP_MAX_SIZE_REACHED; the classic member already in rejoins NONE", run: judged(caseMixedMaxSize)},
		{Name: "A7.1/inconsistent-protocol", Source: srcKafka40Mixed, Rule: "a classic JoinGroup of protocol type \"connect\" to a consumer group with a classic member: INCONSISTENT_GROUP_PROTOCOL, nobody added", run: inSessions(caseMixedInconsistentProtocol)},
		{Name: "A7.1/subscription-undecodable", Source: srcKafka40Mixed, Rule: "a classic JoinGroup to a consumer group whose protocol metadata is not a ConsumerProtocolSubscription: UNKNOWN_SERVER_ERROR (after MEMBER_ID_REQUIRED for a dynamic v4+ join), nobody added", run: inSessions(caseMixedSubscriptionUndecodable)},
		{Name: "A7.1/unknown-instance", Source: srcKafka40Mixed, Rule: "a static classic JoinGroup with a member id, naming an instance nobody in the consumer group holds: UNKNOWN_MEMBER_ID", run: inSessions(caseMixedStaticJoinRefused(false))},
		{Name: "A7.1/fenced-instance", Source: srcKafka40Mixed, Rule: "a static classic JoinGroup with a member id, naming an instance another classic member of the consumer group holds: FENCED_INSTANCE_ID", run: inSessions(caseMixedStaticJoinRefused(true))},
		{Name: "A7.1/static-replaced", Source: srcKafka40Mixed, Rule: "a static classic JoinGroup with MemberId \"\" naming a classic member's instance, the same subscription: NONE under a new member id that replaces the holder at once; the group epoch (ConsumerGroupDescribe) does not move", run: inSessions(caseMixedStaticReplaced)},
		{Name: "A7.1/subscription-changed", Source: srcKafka40Mixed, Rule: "a classic member's rejoin subscribing to other topics moves the group epoch on (ConsumerGroupDescribe), and the member lists its new topics", run: inSessions(caseMixedSubscriptionChanged)},
	}
}

// joinFollowingID sends m's JoinGroup req (m.joinReq, changed by the
// case) and, answered MEMBER_ID_REQUIRED, again with the id it gave: the
// observation of both and the last answer.
func (m *cmember) joinFollowingID(req *codec.JoinGroupRequest) (*codec.JoinGroupResponse, string) {
	p := m.c.p
	r := m.c.send(codec.JoinGroup, p.jv(), req).answer().(*codec.JoinGroupResponse)
	obs := "join: " + jgString(r)
	if r.ErrorCode == codec.MemberIDRequired {
		req.MemberId = r.MemberId
		r = m.c.send(codec.JoinGroup, p.jv(), req).answer().(*codec.JoinGroupResponse)
		obs += "; with the id: " + jgString(r)
	}
	if r.ErrorCode == codec.None {
		m.took(r)
	}
	return r, obs
}

// notAdded describes the consumer group of c (when the broker offers
// ConsumerGroupDescribe) and reports whether it lists no member but those
// of ids: the refused join added nobody.
func notAdded(c *consumerMember, ids ...string) (bool, string) {
	if c.c.p.max(codec.ConsumerGroupDescribe) < 0 {
		return true, ""
	}
	d := c.c.describe(c.group)
	ok := true
	for id := range members(d) {
		ok = ok && slices.Contains(ids, id)
	}
	return ok, "; " + describeString(d)
}

// caseMixedMaxSize fills a consumer group to the cap: a consumer member,
// a classic member, and consumer members for the rest, none heartbeating
// while the group fills. The classic member's Heartbeat then starts its
// (shorter) session again; a place that only a session's end could have
// freed (the consumer members silent for a consumer session, the classic
// one for its own) leaves the case too slow to judge, never FAIL.
func caseMixedMaxSize(p *probe) verdict {
	p.needsMixed()
	n := p.peer.MaxGroupSize
	if v, cannot := cannotFill(n); cannot {
		return v
	}
	if n < 2 {
		return skip(fmt.Sprintf("needs group.consumer.max.size 2 or more, for a consumer and a classic member; given %d", n))
	}
	start := time.Now()
	c := p.consumerMember(p.id("g"))
	synced := time.Now()
	m := p.mixedMember(c, "", true)
	for i := 2; i < n; i++ {
		p.consumerMember(c.group)
	}
	beat := time.Now()
	e := m.heartbeat()
	obs := fmt.Sprintf("a group of %d (a classic member, %d of the consumer protocol); the classic member's Heartbeat %s", n, n-1, e)
	x := p.member(c.group, "")
	r, joined := x.joinFollowingID(x.joinReq())
	obs += fmt.Sprintf("; member %d's %s", n+1, joined)
	again := m.mixedJoin()
	obs += "; the classic member's rejoin: " + jgString(again)
	// NONE, or REBALANCE_IN_PROGRESS since the consumer members moved
	// the group epoch on: either starts its session again (A7.2).
	kept := e == codec.None || e == codec.RebalanceInProgress
	ok := kept && r.ErrorCode == codec.GroupMaxSizeReached && again.ErrorCode == codec.None
	classicSilent := beat.Sub(synced)
	if kept {
		classicSilent = time.Since(beat)
	}
	if !ok && (p.peer.SessionTimeout > 0 && time.Since(start) >= p.peer.SessionTimeout || classicSilent >= p.peer.ClassicSessionTimeout) {
		return tooSlowTo(fmt.Sprintf("the group took %v to fill, a member silent as long as its session: %s", time.Since(start).Round(time.Millisecond), obs))
	}
	return want(ok, obs, "the classic member's Heartbeat NONE or REBALANCE_IN_PROGRESS, GROUP_MAX_SIZE_REACHED for the new member, NONE for the rejoin")
}

func caseMixedInconsistentProtocol(p *probe) verdict {
	p.needsMixed()
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", true)
	x := p.member(c.group, "")
	req := x.joinReq()
	req.ProtocolType = "connect"
	r, obs := x.joinFollowingID(req)
	if r.ErrorCode != codec.InconsistentGroupProtocol {
		return fail(obs, "INCONSISTENT_GROUP_PROTOCOL")
	}
	kept, d := notAdded(c, c.id, m.id)
	return want(kept, obs+d, "INCONSISTENT_GROUP_PROTOCOL, no member listed but the group's two")
}

// undecodableSubscription is protocol metadata that no
// ConsumerProtocolSubscription reads: version -1, below every version.
var undecodableSubscription = []byte{0xff, 0xff}

func caseMixedSubscriptionUndecodable(p *probe) verdict {
	p.needsMixed()
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", true)
	x := p.member(c.group, "")
	x.meta = undecodableSubscription
	r, obs := x.joinFollowingID(x.joinReq())
	if r.ErrorCode != codec.UnknownServerError {
		return fail(obs, "UNKNOWN_SERVER_ERROR: the metadata does not read")
	}
	kept, d := notAdded(c, c.id, m.id)
	return want(kept, obs+d, "UNKNOWN_SERVER_ERROR, no member listed but the group's two")
}

// caseMixedStaticJoinRefused: a static classic JoinGroup that names a
// member id of its own (never given by the coordinator) and an instance:
// held by nobody (UNKNOWN_MEMBER_ID) or, held, by the classic member the
// setup made (FENCED_INSTANCE_ID, and the holder stays).
func caseMixedStaticJoinRefused(held bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needsMixed()
		p.needsJoin(5, "KIP-345")
		c := p.consumerMember(p.id("g"))
		inst := p.id("i")
		holder := ""
		if held {
			holder = inst
		}
		m := p.mixedMember(c, holder, true)
		x := p.member(c.group, inst)
		x.id = p.id("m")
		r := x.c.send(codec.JoinGroup, p.jv(), x.joinReq()).answer().(*codec.JoinGroupResponse)
		obs := "the static join: " + jgString(r)
		code, expected := codec.UnknownMemberID, "UNKNOWN_MEMBER_ID: nobody holds the instance"
		if held {
			code, expected = codec.FencedInstanceID, "FENCED_INSTANCE_ID: another member id holds the instance"
		}
		if r.ErrorCode != code {
			return fail(obs, expected)
		}
		e := m.heartbeat()
		obs += "; the classic member's Heartbeat " + e.String()
		return want(e == codec.None, obs, expected+"; the classic member's Heartbeat NONE")
	}
}

func caseMixedStaticReplaced(p *probe) verdict {
	p.needsMixed()
	p.needsJoin(5, "KIP-345")
	p.needs(codec.ConsumerGroupDescribe)
	c := p.consumerMember(p.id("g"))
	inst := p.id("i")
	m := p.mixedMember(c, inst, true)
	before := c.c.describe(c.group)
	obs := fmt.Sprintf("group epoch %d; ", before.GroupEpoch)
	x := p.member(c.group, inst)
	r := x.c.send(codec.JoinGroup, p.jv(), x.joinReq()).answer().(*codec.JoinGroupResponse)
	obs += "the replacing join: " + jgString(r)
	if r.ErrorCode != codec.None || r.MemberId == m.id {
		return fail(obs, "NONE under a new member id")
	}
	after := c.c.describe(c.group)
	ids := members(after)
	_, holder := ids[m.id]
	_, copied := ids[r.MemberId]
	obs += fmt.Sprintf("; %s at group epoch %d", describeString(after), after.GroupEpoch)
	return want(after.GroupEpoch == before.GroupEpoch && copied && !holder, obs,
		fmt.Sprintf("the new id listed in the holder's place, the group epoch still %d", before.GroupEpoch))
}

func caseMixedSubscriptionChanged(p *probe) verdict {
	p.needsMixed()
	p.needs(codec.ConsumerGroupDescribe)
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", true)
	before := c.c.describe(c.group)
	obs := fmt.Sprintf("group epoch %d; ", before.GroupEpoch)
	// The rejoin lists what the member owns (a v1 subscription), so
	// nothing is revoked: only the topics change.
	var a codec.ConsumerProtocolAssignment
	_, _ = a.Decode(m.assigned, codec.DecodeOptions{})
	topics := []string{absentTopic, p.peer.Topic}
	slices.Sort(topics)
	sub := codec.ConsumerProtocolSubscription{Topics: topics, OwnedPartitions: a.AssignedPartitions, GenerationId: m.gen}
	var err error
	if m.meta, err = sub.AppendTo(nil, 1); err != nil {
		return fail("encoding a subscription: "+err.Error(), "")
	}
	r := m.mixedJoin()
	obs += "the rejoin subscribing to " + fmt.Sprint(topics) + ": " + jgString(r)
	if r.ErrorCode != codec.None {
		return fail(obs, "NONE")
	}
	after := c.c.describe(c.group)
	dm, listed := describedMember(after, m.id)
	got := slices.Clone(dm.SubscribedTopicNames)
	slices.Sort(got)
	obs += fmt.Sprintf("; %s at group epoch %d, the member subscribed to %v", describeString(after), after.GroupEpoch, got)
	return want(after.GroupEpoch > before.GroupEpoch && listed && slices.Equal(got, topics), obs,
		fmt.Sprintf("a group epoch above %d, the member subscribed to %v", before.GroupEpoch, topics))
}
