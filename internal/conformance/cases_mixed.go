package conformance

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The mixed groups' cases (docs/PROTOCOL.md A7): classic members inside
// consumer groups, and the online upgrade and downgrade of Kafka 4.0,
// as far as a client sees them over TCP. A broker that does not serve
// both protocols gets N/A (needsClassic, and ConsumerGroupHeartbeat
// SKIP); one that serves both but keeps them apart (no mixed groups, or a
// migration policy that forbids the conversion a case is about) gets N/A
// too, saying which answer showed it (notMixed): Kafka before 4.0 and a
// broker configured with another group.consumer.migration.policy answer
// so rightly.

// srcKafka40Mixed is the source the mixed cases share: KIP-848's group
// coordinator, generally available in Kafka 4.0.
const srcKafka40Mixed = "KIP-848, Kafka 4.0"

// casesMixed: A7's cases in the order of its subsections: the A7.1 and
// A7.2 core here, A7.1's refusals and epochs (cases_mixed_join.go), A7.2's
// SyncGroup refusals (cases_mixed_sync.go), the classic members' timers
// (cases_mixed_timers.go), A7.3 and A7.4's refusal
// (cases_mixed_switch.go).
func casesMixed() []Case {
	var out []Case
	for _, section := range [][]Case{casesMixedCore(), casesMixedJoin(), casesMixedSync(), casesMixedTimers(), casesMixedSwitch()} {
		out = append(out, section...)
	}
	slices.SortStableFunc(out, func(a, b Case) int {
		sa, _, _ := strings.Cut(a.Name, "/")
		sb, _, _ := strings.Cut(b.Name, "/")
		return strings.Compare(sa, sb)
	})
	return out
}

// casesMixedCore: A7.1's join, A7.2's answers, A7.4 and A7.5.
func casesMixedCore() []Case {
	return []Case{
		{Name: "A7.1/member-id-required", Source: srcKafka40Mixed, Rule: "a dynamic JoinGroup v4+ with MemberId \"\" to a consumer group with members: MEMBER_ID_REQUIRED with a member id that is a Kafka Uuid's text, and nothing kept (ConsumerGroupDescribe lists the consumer member alone)", run: caseMixedMemberIDRequired},
		{Name: "A7.1/joined", Source: srcKafka40Mixed, Rule: "a classic JoinGroup to a consumer group with members makes a classic member of it, answered at once: NONE, GenerationId its member epoch, ProtocolType consumer, its protocol, Leader \"\", no members; ConsumerGroupDescribe lists it at that epoch (as a classic member from v1)", run: caseMixedJoined},
		{Name: "A7.1/describe-mixed-group", Source: srcKafka40Mixed, Rule: "DescribeGroups of a consumer group holding a classic member answers as for a missing group (v6 GROUP_ID_NOT_FOUND, v0-v5 Dead), as of any consumer group", run: caseMixedDescribeGroups},
		{Name: "A7.1/classic-session-own-timeout", Source: srcKafka40Mixed, Rule: "a classic member of a consumer group lives for its JoinGroup's session timeout, not the consumer protocol's: kept while only the shorter has run, removed once its own has", Slow: true, run: judged(caseMixedOwnSession)},
		{Name: "A7.2/sync-assignment", Source: srcKafka40Mixed, Rule: "a classic member's SyncGroup at its epoch: NONE, the request's protocol type and name, and the server's assignment as a ConsumerProtocolAssignment (the partitions of the topic only it subscribes to)", run: caseMixedSyncAssignment},
		{Name: "A7.2/sync-illegal-generation", Source: srcKafka40Mixed, Rule: "a classic member's SyncGroup at another generation than its epoch: ILLEGAL_GENERATION", run: caseMixedIllegalGeneration(true)},
		{Name: "A7.2/heartbeat-illegal-generation", Source: srcKafka40Mixed, Rule: "a classic member's Heartbeat at another generation than its epoch: ILLEGAL_GENERATION", run: caseMixedIllegalGeneration(false)},
		{Name: "A7.2/heartbeat-ok", Source: srcKafka40Mixed, Rule: "a synced classic member's Heartbeat while nothing moved: NONE", run: caseMixedHeartbeatOK},
		{Name: "A7.2/heartbeat-rejoin", Source: srcKafka40Mixed, Rule: "once the group epoch moves past a classic member's (the consumer member subscribes to its topic), its Heartbeat is REBALANCE_IN_PROGRESS, and rejoining (again, after revoking) brings it to a later generation", run: caseMixedHeartbeatRejoin},
		{Name: "A7.2/sync-withholds-revoked", Source: srcKafka40Mixed, Rule: "a classic member that rejoins owning partitions now another member's target gets by SyncGroup none of them: no partition in the other member's target (ConsumerGroupDescribe)", run: caseMixedSyncWithholdsRevoked},
		{Name: "A7.2/leave-group", Source: srcKafka40Mixed, Rule: "LeaveGroup naming a classic member of a consumer group removes it, NONE; the group stays a consumer group with its consumer member", run: caseMixedLeaveGroup},
		{Name: "A7.4/upgraded", Source: srcKafka40Mixed, Rule: "a ConsumerGroupHeartbeat join to a Stable classic group (protocol type consumer) converts it: NONE; ConsumerGroupDescribe lists every classic member under its id and the joiner, at a group epoch past the generation; each classic member's Heartbeat asks it to rejoin (REBALANCE_IN_PROGRESS); DescribeGroups answers as for a missing group", run: caseMixedUpgraded},
		{Name: "A7.4/waiting-answered", Source: srcKafka40Mixed, Rule: "a JoinGroup waiting in a classic group's rebalance is answered REBALANCE_IN_PROGRESS when a ConsumerGroupHeartbeat join converts the group", run: caseMixedWaitingAnswered},
		{Name: "A7.4/upgrade-failed", Source: srcKafka40Mixed, Rule: "a ConsumerGroupHeartbeat join to a classic group whose member has not synced (its assignment does not read): GROUP_ID_NOT_FOUND, and the classic group stays with its member", run: judged(caseMixedUpgradeFailed)},
		{Name: "A7.5/downgraded", Source: srcKafka40Mixed, Rule: "when the last consumer-protocol member leaves a group whose other members are classic, it becomes a classic group and rebalances: ConsumerGroupDescribe GROUP_ID_NOT_FOUND, the classic member's Heartbeat REBALANCE_IN_PROGRESS, its rejoin NONE as the leader of a later generation, DescribeGroups lists it", run: caseMixedDowngraded},
	}
}

// needsMixed ends the case as N/A unless the broker serves both
// protocols: one without ConsumerGroupHeartbeat (Kafka before 4.0 by
// default) serves no consumer group for a classic member to join.
func (p *probe) needsMixed() {
	p.needsClassic()
	if p.max(codec.ConsumerGroupHeartbeat) < 0 {
		panic(abort{verdict{NotApplicable, "the broker serves no consumer groups, so no mixed ones: the case " + p.lacks(codec.ConsumerGroupHeartbeat), ""}})
	}
}

// inSessions runs a mixed case whose members do not heartbeat while it
// runs (judged: again when too slow). A FAIL, the setup's included, that
// comes once the shorter of the two session timeouts could have run since
// the case began may be a member's rightful expiry (and, for the consumer
// member, the group's downgrade) on a loaded machine rather than the
// broker's error: too slow to judge.
func inSessions(run func(*probe) verdict) func(*probe) verdict {
	return judged(func(p *probe) (v verdict) {
		start := time.Now()
		session := p.peer.ClassicSessionTimeout
		if s := p.peer.SessionTimeout; s > 0 {
			session = min(session, s)
		}
		late := func(v verdict) verdict {
			if took := time.Since(start); v.status == Fail && took >= session {
				return tooSlowTo(fmt.Sprintf("the case took %v, as long as a session (%v) its members did not heartbeat in: %s", took.Round(time.Millisecond), session, v.observed))
			}
			return v
		}
		defer func() {
			if r := recover(); r != nil {
				a, ok := r.(abort)
				if !ok {
					panic(r)
				}
				v = late(a.v)
			}
		}()
		return late(run(p))
	})
}

// notMixedPrefix starts the observation of a notMixed verdict.
const notMixedPrefix = "the broker keeps the two protocols apart (no mixed groups, docs/PROTOCOL.md A7; Kafka before 4.0, or another group.consumer.migration.policy): "

// notMixed ends the case as N/A: an answer showed that the broker does
// not do what the case is about (why).
func notMixed(why string) {
	panic(abort{verdict{NotApplicable, notMixedPrefix + why, ""}})
}

// consumerMember is a member of the case's consumer group, on a
// connection of its own.
type consumerMember struct {
	c     *pconn
	group string
	id    string
	epoch int32
}

// absentTopic is the topic a case's consumer member subscribes to when it
// must leave the peer's topic to the classic members: a name no broker
// has (an empty subscription would do, but aborts librdkafka's mock,
// docs/findings.md L1), so it is assigned nothing.
const absentTopic = "ghostcheck-absent-topic"

// consumerMember joins group with the consumer protocol, subscribed to
// absentTopic: every partition of the peer's topic is left to the classic
// members.
func (p *probe) consumerMember(group string) *consumerMember {
	c := p.conn()
	req := p.joinReq(group, p.id("m"))
	req.SubscribedTopicNames = []string{absentTopic}
	r := c.mustJoin(req)
	id := req.MemberId
	if r.MemberId.Valid {
		id = r.MemberId.Value
	}
	return &consumerMember{c: c, group: group, id: id, epoch: r.MemberEpoch}
}

// heartbeat sends a keepalive (topics non-nil: a new subscription) and
// takes the epoch of a NONE answer.
func (m *consumerMember) heartbeat(topics []string) *codec.ConsumerGroupHeartbeatResponse {
	req := keepalive(m.group, m.id, m.epoch)
	req.SubscribedTopicNames = topics
	r := m.c.hb(m.c.p.hbv(), req)
	if r.ErrorCode == codec.None {
		m.epoch = r.MemberEpoch
	}
	return r
}

// mixedJoin sends classic member m's JoinGroup to a consumer group with
// members. An answer that shows the broker keeps the protocols apart
// ends the case as N/A: the connection closed, INCONSISTENT_GROUP_PROTOCOL
// or GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID to a join with no id, or NONE
// with a leader or members (a classic group of its own under the id).
func (m *cmember) mixedJoin() *codec.JoinGroupResponse {
	p := m.c.p
	what := fmt.Sprintf("a classic JoinGroup v%d to a consumer group with members", p.jv())
	resp, err, ok := m.c.send(codec.JoinGroup, p.jv(), m.joinReq()).within(p.classicWait())
	switch {
	case !ok:
		notMixed(fmt.Sprintf("%s was not answered within %v", what, p.classicWait()))
	case err != nil:
		notMixed(fmt.Sprintf("%s: %v", what, err))
	}
	r := resp.(*codec.JoinGroupResponse)
	switch {
	case r.ErrorCode == codec.InconsistentGroupProtocol, r.ErrorCode == codec.GroupIDNotFound, r.ErrorCode == codec.UnknownMemberID && m.id == "":
		notMixed(what + " was answered " + jgString(r))
	case r.ErrorCode == codec.None && (r.Leader != "" || len(r.Members) > 0):
		notMixed(what + " was answered as a classic group of its own: " + jgString(r))
	}
	if r.ErrorCode == codec.None {
		m.took(r)
	}
	return r
}

// mixedMember makes a classic member of the consumer group of c (it
// joins, again with the id MEMBER_ID_REQUIRED gives), and syncs it unless
// !sync. It ends the case unless each step is NONE.
func (p *probe) mixedMember(c *consumerMember, instance string, sync bool) *cmember {
	m := p.member(c.group, instance)
	r := m.mixedJoin()
	if r.ErrorCode == codec.MemberIDRequired {
		m.id = r.MemberId
		r = m.mixedJoin()
	}
	if r.ErrorCode != codec.None {
		panic(abort{fail("the setup's classic join to the consumer group: "+jgString(r), "NONE")})
	}
	if sync {
		if s := m.mixedSync(); s.ErrorCode != codec.None {
			panic(abort{fail("the setup's classic SyncGroup in the consumer group: "+s.ErrorCode.String(), "NONE")})
		}
	}
	return m
}

// mixedSync sends m's SyncGroup with no assignments (a classic member of
// a consumer group never assigns) and keeps what it is given.
func (m *cmember) mixedSync() *codec.SyncGroupResponse {
	s := m.c.do(codec.SyncGroup, m.c.p.sv(), m.syncReq(nil)).(*codec.SyncGroupResponse)
	if s.ErrorCode == codec.None {
		m.assigned = s.Assignment
	}
	return s
}

// kafkaUUIDText reports whether id is a Kafka Uuid as Uuid.toString
// writes it: 22 characters of unpadded base64url for 16 bytes.
func kafkaUUIDText(id string) bool {
	b, err := base64.RawURLEncoding.DecodeString(id)
	return len(id) == 22 && err == nil && len(b) == 16
}

// describedMember finds id in a ConsumerGroupDescribe answer.
func describedMember(g codec.DescribedGroup, id string) (codec.DescribedMember, bool) {
	for _, m := range g.Members {
		if m.MemberId == id {
			return m, true
		}
	}
	return codec.DescribedMember{}, false
}

// assignedOf reads a SyncGroup assignment as "topic-partition" names; ok
// false when it is not a ConsumerProtocolAssignment.
func assignedOf(b []byte) ([]string, bool) {
	var a codec.ConsumerProtocolAssignment
	if _, err := a.Decode(b, codec.DecodeOptions{}); err != nil {
		return nil, false
	}
	var out []string
	for _, t := range a.AssignedPartitions {
		for _, q := range t.Partitions {
			out = append(out, fmt.Sprintf("%s-%d", t.Topic, q))
		}
	}
	slices.Sort(out)
	return out, true
}

// targetOf is a described member's target assignment as "topic-partition"
// names.
func targetOf(m codec.DescribedMember) []string {
	var out []string
	for _, t := range m.TargetAssignment.TopicPartitions {
		for _, q := range t.Partitions {
			out = append(out, fmt.Sprintf("%s-%d", t.TopicName, q))
		}
	}
	slices.Sort(out)
	return out
}

// --- A7.1 ---

func caseMixedMemberIDRequired(p *probe) verdict {
	p.needsMixed()
	p.needsJoin(4, "KIP-394")
	c := p.consumerMember(p.id("g"))
	m := p.member(c.group, "")
	r := m.mixedJoin()
	obs := "join: " + jgString(r)
	if r.ErrorCode != codec.MemberIDRequired {
		return fail(obs, "MEMBER_ID_REQUIRED")
	}
	d := c.c.describeFor(c.group, true, obs, "")
	_, kept := describedMember(d, r.MemberId)
	obs += "; " + describeString(d)
	// A broker that keeps a classic group of its own under the id
	// answers MEMBER_ID_REQUIRED too: the join with the id tells.
	m.id = r.MemberId
	again := m.mixedJoin()
	obs += "; the join with it: " + jgString(again)
	if !kafkaUUIDText(r.MemberId) {
		return fail(fmt.Sprintf("%s (member id %q)", obs, r.MemberId), "MEMBER_ID_REQUIRED with a Kafka Uuid's text as the member id")
	}
	return want(!kept && len(d.Members) == 1, obs, "the consumer member listed alone: the id is not kept")
}

func caseMixedJoined(p *probe) verdict {
	p.needsMixed()
	c := p.consumerMember(p.id("g"))
	m := p.member(c.group, "")
	r := m.mixedJoin()
	if r.ErrorCode == codec.MemberIDRequired {
		m.id = r.MemberId
		r = m.mixedJoin()
	}
	obs := "join: " + jgString(r)
	expected := "NONE at once, GenerationId the member's epoch, ProtocolType consumer, ProtocolName range, Leader \"\", no members; listed by ConsumerGroupDescribe at that epoch"
	ok := r.ErrorCode == codec.None && r.GenerationId > 0 && r.Leader == "" && len(r.Members) == 0 &&
		r.ProtocolType.Value == "consumer" && r.ProtocolName.Value == m.proto
	obs += fmt.Sprintf(" protocol %s/%s", r.ProtocolType.Value, r.ProtocolName.Value)
	d := c.c.describeFor(c.group, ok, obs, expected)
	dm, listed := describedMember(d, m.id)
	obs += "; " + describeString(d)
	if listed && c.c.p.max(codec.ConsumerGroupDescribe) >= 1 {
		obs += fmt.Sprintf("; its MemberType %d", dm.MemberType)
		ok = ok && dm.MemberType == codec.MemberTypeClassic
		expected += " as a classic member (MemberType 0)"
	}
	return want(ok && listed && dm.MemberEpoch == r.GenerationId, obs, expected)
}

func caseMixedDescribeGroups(p *probe) verdict {
	p.needsMixed()
	p.needs(codec.DescribeGroups)
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", true)
	d := p.describeClassic(m.c, c.group, true, "", "")
	ok := len(d.Members) == 0 && d.GroupState == "Dead" && (p.dv() >= 6 && d.ErrorCode == codec.GroupIDNotFound || p.dv() < 6 && d.ErrorCode == codec.None)
	return want(ok, fmt.Sprintf("DescribeGroups v%d of a consumer group with a classic member: %s", p.dv(), dgString(d)), "as a missing group: v6 GROUP_ID_NOT_FOUND, v0-v5 NONE; Dead, no members")
}

// caseMixedOwnSession: a classic member joins a consumer group with a
// session timeout other than the consumer protocol's (Peer.SessionTimeout)
// and then stays silent while the consumer member heartbeats. Where its
// own is the longer, it must still be listed once the consumer
// protocol's has run (plus the margin); in any case it must be gone once
// its own has.
func caseMixedOwnSession(p *probe) verdict {
	p.needsMixed()
	p.needs(codec.ConsumerGroupDescribe)
	consumer, own := p.peer.SessionTimeout, p.peer.ClassicSessionTimeout
	if consumer <= 0 {
		return skip("needs the broker's consumer session timeout (check --session-timeout)")
	}
	if consumer == own {
		return skip(fmt.Sprintf("the classic session timeout equals the consumer one (%v): the case cannot tell them apart", own))
	}
	joined := time.Now()
	c := p.consumerMember(p.id("g"))
	clock := p.sessionClock()
	defer clock.stop()
	var m *cmember
	clock.arm(func() { m = p.mixedMember(c, "", true) })
	// The consumer member heartbeats throughout; the classic one is
	// silent from its SyncGroup on.
	beat := max(min(p.peer.HeartbeatInterval, consumer/3), 10*time.Millisecond)
	if p.peer.HeartbeatInterval <= 0 {
		beat = max(consumer/4, 10*time.Millisecond)
	}
	// good is when the last heartbeat the consumer member was answered
	// NONE to was sent: a stalled machine whose next heartbeat comes a
	// consumer session later has let it expire, rightly.
	good := joined
	until := func(t time.Time) {
		for time.Now().Before(t) {
			sent := time.Now()
			if r := c.heartbeat(nil); r.ErrorCode != codec.None {
				if !sent.Before(good.Add(consumer)) {
					panic(abort{clock.tooSlow(fmt.Sprintf("the consumer member's heartbeat came %v after its last good one, past its session: %s", sent.Sub(good).Round(time.Millisecond), hbString(r)))})
				}
				panic(abort{fail("the consumer member's heartbeat: "+hbString(r), "NONE")})
			}
			good = sent
			time.Sleep(min(beat, max(time.Until(t), 0)))
		}
	}
	obs := fmt.Sprintf("classic session %v, consumer session %v", own, consumer)
	if own > consumer {
		// Past the consumer session (and the margin), short of its own.
		at := clock.armed.Add(consumer + p.expiryMargin() + clock.stalls.Max())
		if !at.Before(clock.sent.Add(own)) {
			return skip(fmt.Sprintf("the sessions (%v, %v) are too close for the margin %v", own, consumer, p.expiryMargin()))
		}
		until(at)
		d := c.c.describe(c.group)
		seen := time.Now()
		_, listed := describedMember(d, m.id)
		obs += fmt.Sprintf("; %v after its join: %s", seen.Sub(clock.sent).Round(time.Millisecond), describeString(d))
		if !listed {
			// Gone once its own session could have run, or once the
			// consumer member's could have (the group with it): no
			// verdict.
			if !seen.Before(clock.sent.Add(own)) || !seen.Before(good.Add(consumer)) {
				return clock.tooSlow(obs)
			}
			return fail(obs, "the classic member still listed: its own session has not run")
		}
	}
	until(clock.armed.Add(own + p.expiryMargin() + clock.stalls.Max()))
	d := c.c.describe(c.group)
	_, listed := describedMember(d, m.id)
	obs += fmt.Sprintf("; past its own session: %s", describeString(d))
	return want(!listed, obs, "the classic member gone once its own session has run")
}

// --- A7.2 ---

func caseMixedSyncAssignment(p *probe) verdict {
	p.needsMixed()
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", false)
	s := m.mixedSync()
	got, reads := assignedOf(s.Assignment)
	obs := fmt.Sprintf("SyncGroup: %s protocol %s/%s assignment %v (reads: %v)", s.ErrorCode, s.ProtocolType.Value, s.ProtocolName.Value, got, reads)
	ok := s.ErrorCode == codec.None && reads && len(got) > 0 && s.ProtocolType.Value == "consumer" && s.ProtocolName.Value == m.proto
	for _, tp := range got {
		ok = ok && strings.HasPrefix(tp, p.peer.Topic+"-")
	}
	return want(ok, obs, fmt.Sprintf("NONE, consumer/%s, a ConsumerProtocolAssignment of partitions of %s", m.proto, p.peer.Topic))
}

func caseMixedIllegalGeneration(sync bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needsMixed()
		c := p.consumerMember(p.id("g"))
		m := p.mixedMember(c, "", true)
		bad := *m
		bad.gen = m.gen + 1
		what, e := "Heartbeat", codec.ErrorCode(0)
		if sync {
			what = "SyncGroup"
			e = bad.c.do(codec.SyncGroup, p.sv(), bad.syncReq(nil)).(*codec.SyncGroupResponse).ErrorCode
		} else {
			e = bad.heartbeat()
		}
		return want(e == codec.IllegalGeneration, fmt.Sprintf("the classic member's %s at generation %d (its epoch %d): %s", what, bad.gen, m.gen, e), "ILLEGAL_GENERATION")
	}
}

func caseMixedHeartbeatOK(p *probe) verdict {
	p.needsMixed()
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", true)
	e := m.heartbeat()
	return want(e == codec.None, fmt.Sprintf("the synced classic member's Heartbeat at generation %d: %s", m.gen, e), "NONE")
}

func caseMixedHeartbeatRejoin(p *probe) verdict {
	p.needsMixed()
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", true)
	gen := m.gen
	if r := c.heartbeat([]string{absentTopic, p.peer.Topic}); r.ErrorCode != codec.None {
		return fail("the consumer member's new subscription: "+hbString(r), "NONE")
	}
	e := m.heartbeat()
	obs := fmt.Sprintf("after the consumer member subscribed to %s, the classic member's Heartbeat at %d: %s", p.peer.Topic, gen, e)
	if e != codec.RebalanceInProgress {
		return fail(obs, "REBALANCE_IN_PROGRESS")
	}
	// A member that must give up partitions first rejoins at its epoch
	// and learns by its next Heartbeat to rejoin again (A5.3's
	// revocation): as a client, rejoin, sync and heartbeat until a later
	// generation, a few rounds at most.
	for round := 0; round < 4 && m.gen <= gen; round++ {
		r := m.mixedJoin()
		obs += "; its rejoin: " + jgString(r)
		if r.ErrorCode != codec.None {
			break
		}
		s := m.mixedSync()
		obs += "; SyncGroup " + s.ErrorCode.String()
		if m.gen > gen {
			break
		}
		obs += "; Heartbeat " + m.heartbeat().String()
	}
	return want(m.gen > gen, obs, fmt.Sprintf("REBALANCE_IN_PROGRESS, then rejoins NONE reaching a generation above %d", gen))
}

// caseMixedSyncWithholdsRevoked: a classic member owns every partition of
// the topic; the consumer member subscribes to it too, so some of them
// are now its target; the classic member rejoins listing what it owns
// (a v1 subscription), and its SyncGroup must hand it none of the
// consumer member's target: those it must give up first.
func caseMixedSyncWithholdsRevoked(p *probe) verdict {
	p.needsMixed()
	p.needs(codec.ConsumerGroupDescribe)
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", true)
	owned, reads := assignedOf(m.assigned)
	if !reads || len(owned) < 2 {
		return skip(fmt.Sprintf("needs the classic member to own two partitions or more of %s first; its SyncGroup gave %v", p.peer.Topic, owned))
	}
	if r := c.heartbeat([]string{absentTopic, p.peer.Topic}); r.ErrorCode != codec.None {
		return fail("the consumer member's new subscription: "+hbString(r), "NONE")
	}
	var a codec.ConsumerProtocolAssignment
	_, _ = a.Decode(m.assigned, codec.DecodeOptions{})
	sub := codec.ConsumerProtocolSubscription{Topics: []string{p.peer.Topic}, OwnedPartitions: a.AssignedPartitions, GenerationId: m.gen}
	var err error
	if m.meta, err = sub.AppendTo(nil, 1); err != nil {
		return fail("encoding a subscription: "+err.Error(), "")
	}
	r := m.mixedJoin()
	obs := fmt.Sprintf("owning %v, the rejoin: %s", owned, jgString(r))
	if r.ErrorCode != codec.None {
		return fail(obs, "NONE")
	}
	s := m.mixedSync()
	got, reads := assignedOf(s.Assignment)
	obs += fmt.Sprintf("; SyncGroup %s %v", s.ErrorCode, got)
	d := c.c.describe(c.group)
	cm, ok := describedMember(d, c.id)
	if !ok {
		return fail(obs+"; "+describeString(d), "the consumer member listed")
	}
	target := targetOf(cm)
	obs += fmt.Sprintf("; the consumer member's target %v", target)
	var both []string
	for _, tp := range got {
		if slices.Contains(target, tp) {
			both = append(both, tp)
		}
	}
	if len(both) > 0 {
		obs += fmt.Sprintf("; handed to both: %v", both)
	}
	return want((s.ErrorCode == codec.None && reads || s.ErrorCode == codec.RebalanceInProgress) && len(both) == 0, obs,
		"NONE with no partition of the consumer member's target (or REBALANCE_IN_PROGRESS, nothing handed)")
}

func caseMixedLeaveGroup(p *probe) verdict {
	p.needsMixed()
	p.needs(codec.LeaveGroup)
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", true)
	l := m.c.leaveGroup(p.lv(), c.group, codec.LeaveGroupMember{MemberId: m.id})
	obs := "LeaveGroup: " + lgString(l)
	left := l.ErrorCode == codec.None
	for _, x := range l.Members {
		left = left && x.ErrorCode == codec.None
	}
	d := c.c.describeFor(c.group, left, obs, "NONE")
	ids := members(d)
	_, still := ids[m.id]
	_, consumer := ids[c.id]
	obs += "; " + describeString(d)
	return want(left && !still && consumer && len(ids) == 1, obs, "NONE; the consumer group lists its consumer member alone")
}

// --- A7.4 ---

// upgradeJoin sends a ConsumerGroupHeartbeat join (a fresh member id) to
// classic group group, which has members. A closed connection ends the
// case as N/A, and so does GROUP_ID_NOT_FOUND when refusedNA: the broker
// does not upgrade (Kafka under migration policy DISABLED or DOWNGRADE
// answers so too).
func (p *probe) upgradeJoin(c *pconn, group string, refusedNA bool) (*codec.ConsumerGroupHeartbeatResponse, string) {
	req := p.joinReq(group, p.id("m"))
	if p.known.Workaround(WorkaroundJoinRegex) {
		req = joinRegexEmpty(nil, req).(*codec.ConsumerGroupHeartbeatRequest)
	}
	what := "a ConsumerGroupHeartbeat join to a classic group with members"
	if err := c.open(req); err != nil {
		panic(abort{fail("dial: "+err.Error(), "a connection")})
	}
	resp, err := c.try(c.header(codec.ConsumerGroupHeartbeat, p.hbv()), req)
	if err != nil {
		notMixed(fmt.Sprintf("%s: %v", what, err))
	}
	r := resp.(*codec.ConsumerGroupHeartbeatResponse)
	if r.ErrorCode == codec.GroupIDNotFound && refusedNA {
		notMixed(what + " was answered GROUP_ID_NOT_FOUND")
	}
	id := req.MemberId
	if r.MemberId.Valid {
		id = r.MemberId.Value
	}
	return r, id
}

func caseMixedUpgraded(p *probe) verdict {
	p.needsMixed()
	p.needs(codec.ConsumerGroupDescribe)
	ms := p.stable(p.id("g"), 2)
	gen := ms[0].gen
	c := p.conn()
	r, id := p.upgradeJoin(c, ms[0].group, true)
	obs := fmt.Sprintf("generation %d; the join: %s", gen, hbString(r))
	if r.ErrorCode != codec.None {
		return fail(obs, "NONE")
	}
	d := c.describe(ms[0].group)
	ids := members(d)
	obs += fmt.Sprintf("; %s at group epoch %d", describeString(d), d.GroupEpoch)
	ok := d.GroupEpoch > gen && len(ids) == 3
	for _, x := range append([]string{id}, ms[0].id, ms[1].id) {
		_, in := ids[x]
		ok = ok && in
	}
	var hbs []codec.ErrorCode
	for _, m := range ms {
		hbs = append(hbs, m.heartbeat())
		ok = ok && hbs[len(hbs)-1] == codec.RebalanceInProgress
	}
	obs += fmt.Sprintf("; the classic members' Heartbeats %v", hbs)
	if p.max(codec.DescribeGroups) >= 0 {
		dg := p.describeClassic(ms[0].c, ms[0].group, true, "", "")
		obs += fmt.Sprintf("; DescribeGroups v%d %s", p.dv(), dgString(dg))
		ok = ok && len(dg.Members) == 0 && dg.GroupState == "Dead"
	}
	return want(ok, obs, fmt.Sprintf("both classic members and the joiner listed at a group epoch above %d, each classic member's Heartbeat REBALANCE_IN_PROGRESS, DescribeGroups Dead with no members", gen))
}

func caseMixedWaitingAnswered(p *probe) verdict {
	p.needsMixed()
	ms := p.stable(p.id("g"), 2)
	l := leaderOf(ms)
	h := l.c.send(codec.JoinGroup, p.jv(), l.joinReq())
	if resp, _, ok := h.within(20 * time.Millisecond); ok {
		return fail(fmt.Sprintf("the leader's rejoin answered at once: %v", resp), "held until the follower rejoins")
	}
	r, _ := p.upgradeJoin(p.conn(), l.group, true)
	obs := "the join: " + hbString(r)
	// Kafka answers it at once; a broker that lets the classic rebalance
	// go on answers it when its join phase ends, which may be a request
	// timeout or more away (librdkafka's mock: the session less 1 s), so
	// the case waits a join phase's wait, not a request timeout, to tell
	// the two apart.
	resp, err, ok := h.within(p.classicWait())
	switch {
	case !ok:
		obs += fmt.Sprintf("; the leader's waiting JoinGroup not answered within %v", p.classicWait())
	case err != nil:
		obs += "; the leader's waiting JoinGroup: " + err.Error()
	default:
		jr := resp.(*codec.JoinGroupResponse)
		obs += "; the leader's waiting JoinGroup: " + jgString(jr)
		if r.ErrorCode == codec.None && jr.ErrorCode == codec.None && jr.Leader != "" {
			// The classic group completed its rebalance after the join
			// made a consumer group: both live under the id.
			notMixed(obs + ": the classic group went on beside the consumer group the join made")
		}
	}
	return want(r.ErrorCode == codec.None && ok && err == nil && resp.(*codec.JoinGroupResponse).ErrorCode == codec.RebalanceInProgress, obs,
		"the join NONE, the waiting JoinGroup answered REBALANCE_IN_PROGRESS")
}

func caseMixedUpgradeFailed(p *probe) verdict {
	p.needsMixed()
	p.needs(codec.DescribeGroups)
	m := p.member(p.id("g"), "")
	joinSent := time.Now()
	r := m.join()
	if r.ErrorCode == codec.MemberIDRequired {
		m.id = r.MemberId
		joinSent = time.Now()
		r = m.join()
	}
	if r.ErrorCode != codec.None {
		return fail("the setup's join: "+jgString(r), "NONE")
	}
	// The member leads and has not synced: its assignment is empty.
	hb, _ := p.upgradeJoin(p.conn(), m.group, false)
	d := p.describeClassic(m.c, m.group, true, "", "")
	obs := fmt.Sprintf("a member joined (generation %d), not synced; the ConsumerGroupHeartbeat join: %s; %s", r.GenerationId, hbString(hb), dgString(d))
	if rebalance := time.Duration(p.classicRebalanceMs()) * time.Millisecond; !time.Now().Before(joinSent.Add(rebalance)) &&
		!(hb.ErrorCode == codec.GroupIDNotFound && d.ErrorCode == codec.None && slices.Equal(classicMembers(d), []string{m.id})) {
		// The sync phase's timer may have removed the member that
		// never synced, rightly, before the join came: a stalled
		// machine's verdict judges nothing.
		return tooSlowTo("the join came after the member's sync timer could have removed it: " + obs)
	}
	return want(hb.ErrorCode == codec.GroupIDNotFound && d.ErrorCode == codec.None && slices.Equal(classicMembers(d), []string{m.id}), obs,
		"GROUP_ID_NOT_FOUND, and the classic group still lists its member")
}

// --- A7.5 ---

func caseMixedDowngraded(p *probe) verdict {
	p.needsMixed()
	p.needs(codec.ConsumerGroupDescribe)
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", true)
	gen := m.gen
	lv := c.c.hb(p.hbv(), leave(c.group, c.id, -1))
	obs := "the consumer member's leave: " + hbString(lv)
	if lv.ErrorCode != codec.None {
		return fail(obs, "NONE")
	}
	d := c.c.describe(c.group)
	obs += "; ConsumerGroupDescribe " + describeString(d)
	if d.ErrorCode == codec.None {
		notMixed(obs + ": the group stayed a consumer group")
	}
	e := m.heartbeat()
	obs += fmt.Sprintf("; the classic member's Heartbeat at %d: %s", gen, e)
	if e != codec.RebalanceInProgress {
		return fail(obs, "REBALANCE_IN_PROGRESS: the downgraded group rebalances")
	}
	r := m.join()
	obs += "; its rejoin: " + jgString(r)
	if r.ErrorCode != codec.None || r.GenerationId <= gen || r.Leader != m.id || len(r.Members) != 1 {
		return fail(obs, fmt.Sprintf("NONE at a generation above %d, leading, with itself as the one member", gen))
	}
	if p.max(codec.DescribeGroups) < 0 {
		return pass(obs)
	}
	dg := p.describeClassic(m.c, m.group, true, "", "")
	obs += "; " + dgString(dg)
	return want(dg.ErrorCode == codec.None && slices.Equal(classicMembers(dg), []string{m.id}), obs, "DescribeGroups lists the classic member")
}
