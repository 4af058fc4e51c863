package conformance

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The classic group protocol's cases: docs/PROTOCOL.md A6 (KIP-394's
// pending ids, KIP-345's static members, LeaveGroup and the two
// protocols' group ids) and B8 (JoinGroup, SyncGroup, Heartbeat,
// DescribeGroups, the timers, group.max.size), and B5's classic part. A
// broker that advertises no classic api gets N/A (it serves no classic
// groups); one that lacks the version a rule is about (JoinGroup v4 for
// KIP-394, v5 for KIP-345) gets SKIP. Each case's Source names the first
// release that ships its rule, which --kafka-version reads.

// Sources the classic cases share.
const (
	srcKIP394        = "KIP-394, Kafka 2.2"
	srcKIP345Classic = "KIP-345, Kafka 2.3"
	srcKIP345Fence   = "KIP-345, Kafka 2.3 (KAFKA-8225)"
)

// casesClassic: A6.1-A6.4, B8.4-B8.13 and B5 against classic groups.
func casesClassic() []Case {
	return slices.Concat([]Case{
		{Name: "A6.1/member-id-required", Source: srcKIP394, Rule: "JoinGroup v4+ with MemberId \"\" and no instance id: MEMBER_ID_REQUIRED carrying a member id; the id is pending, not a member (DescribeGroups lists nobody)", run: caseMemberIDRequired},
		{Name: "A6.1/member-id-required-v4", Source: srcKIP394, Rule: "JoinGroup exactly v4 with MemberId \"\" and no instance id: MEMBER_ID_REQUIRED with a member id (KIP-394 starts at v4, not at a later version)", run: caseMemberIDRequiredV4},
		{Name: "A6.1/v3-member-added", Source: srcEvery, Rule: "JoinGroup v0-v3 with MemberId \"\": a member at once, answered NONE with its id when the join phase completes", run: caseV3MemberAdded},
		{Name: "A6.1/pending-joins", Source: srcKIP394, Rule: "a JoinGroup naming the pending id MEMBER_ID_REQUIRED gave makes it a member under that id", run: casePendingJoins},
		{Name: "A6.1/pending-not-member", Source: srcKIP394, Rule: "a pending id's Heartbeat and SyncGroup are UNKNOWN_MEMBER_ID, and making it does not rebalance the group", run: casePendingNotMember},
		{Name: "A6.1/pending-expired", Source: srcKIP394, Rule: "a pending id never used is dropped one session timeout after it was made: joining with it then is UNKNOWN_MEMBER_ID", Slow: true, run: casePendingExpired(pendingRebalanceShort)},
		{Name: "A6.1/pending-expires-by-session", Source: srcKIP394, Rule: "a pending id lives for the session timeout of the JoinGroup that made it, not its rebalance timeout: made with a rebalance timeout twice the wait, joining with it one session timeout later is UNKNOWN_MEMBER_ID", Slow: true, run: casePendingExpired(pendingRebalanceLong)},
		{Name: "A6.2/new-static-member", Source: srcKIP345Classic, Rule: "JoinGroup v5+ with MemberId \"\" and an instance nobody holds: a static member at once (no MEMBER_ID_REQUIRED), listed with its instance id", run: caseNewStaticMember},
		{Name: "A6.2/replaced-stable", Source: srcKIP345Classic, Rule: "a static member's restart (MemberId \"\", its instance) into a Stable group: a new member id at the current generation, no rebalance, and the old member's assignment from SyncGroup", run: caseReplacedStable},
		{Name: "A6.2/replaced-leader-skip-assignment", Source: "KIP-814, Kafka 3.2", Rule: "JoinGroup v9: a restarted static leader is answered as leader, with the members and SkipAssignment true", run: caseReplacedLeaderSkip},
		{Name: "A6.2/old-member-fenced", Source: srcKIP345Fence, Rule: "after a static restart the replaced member id with its instance id is FENCED_INSTANCE_ID (without it, UNKNOWN_MEMBER_ID)", run: caseOldMemberFenced},
		{Name: "A6.2/new-member-serves", Source: srcKIP345Classic, Rule: "after a static restart the instance is the new member id's: its Heartbeat at the generation is NONE", run: caseNewMemberServes},
		{Name: "A6.2/static-kept-not-rejoined", Source: srcKIP345Classic, Rule: "a static member that does not rejoin a rebalance stays in the next generation", run: caseCompletion(completionStaticKept, true)},
		{Name: "A6.3/admin-removal", Source: srcKIP345, Rule: "LeaveGroup v3+ {MemberId \"\", a held instance} to a classic group removes the static member, NONE", run: caseClassicAdminRemoval},
		{Name: "A6.3/pending-dropped", Source: srcKIP394, Rule: "LeaveGroup naming a pending id: NONE, and the id is gone (joining with it is UNKNOWN_MEMBER_ID)", run: caseClassicPendingLeave},
		{Name: "A6.3/fenced-instance", Source: srcKIP345, Rule: "LeaveGroup v3+ {another member id, a held instance}: FENCED_INSTANCE_ID, the holder stays", run: caseClassicLeaveEntry(leaveFenced)},
		{Name: "A6.3/unknown-instance", Source: srcKIP345, Rule: "LeaveGroup v3+ {a member id, an instance nobody holds}: UNKNOWN_MEMBER_ID", run: caseClassicLeaveEntry(leaveUnknownInstance)},
		{Name: "A6.3/member-removed", Source: srcEvery, Rule: "LeaveGroup naming a classic member's id removes it, NONE, and the group rebalances (the other member's Heartbeat: REBALANCE_IN_PROGRESS)", run: caseClassicMemberRemoved},
		{Name: "A6.3/removed-join-answered", Source: srcEvery, Rule: "a member removed by LeaveGroup while its JoinGroup waits has that JoinGroup answered UNKNOWN_MEMBER_ID", run: caseRemovedJoinAnswered},
		{Name: "A6.4/heartbeat-consumer-group", Source: srcKafka40, Rule: "a classic Heartbeat naming a member of a consumer group: UNKNOWN_MEMBER_ID", run: caseClassicToConsumerGroup},
		{Name: "A6.4/describe-consumer-group", Source: srcKafka40, Rule: "DescribeGroups of a consumer group answers as for a missing group (v6 GROUP_ID_NOT_FOUND, v0-v5 Dead)", run: caseDescribeConsumerGroup},
		{Name: "A6.4/consumer-heartbeat-classic-group", Source: srcKafka40, Rule: "a ConsumerGroupHeartbeat at epoch > 0 to a classic group: GROUP_ID_NOT_FOUND", run: caseConsumerHeartbeatClassic},
		{Name: "A6.4/join-replaces-consumer-group", Source: srcKafka40, Rule: "a JoinGroup with MemberId \"\" to a consumer group left with no member replaces it with a classic group: the join goes on as to a new group, answered NONE, the member leading alone", run: caseJoinReplacesConsumerGroup},
		{Name: "A6.4/heartbeat-replaces-classic-group", Source: srcKafka40, Rule: "a ConsumerGroupHeartbeat join to a classic group left Empty replaces it with a consumer group: NONE, a member at epoch 1 or above", run: caseHeartbeatReplacesClassicGroup},
		{Name: "B5/classic-member-v0-v2", Source: srcEvery, Rule: "LeaveGroup v0-v2 naming a classic member removes it: top-level NONE", run: caseClassicLeaveOld},
		{Name: "B8.4/invalid-group-id", Source: srcEvery, Rule: "JoinGroup, SyncGroup and Heartbeat with GroupId \"\": INVALID_GROUP_ID", run: caseClassicEmptyGroupID},
		{Name: "B8.4/invalid-session-timeout", Source: srcEvery, Rule: "JoinGroup with SessionTimeoutMs 1 (below group.min.session.timeout.ms): INVALID_SESSION_TIMEOUT", run: caseInvalidSessionTimeout},
		{Name: "B8.4/session-min-accepted", Source: srcEvery, Rule: "JoinGroup with SessionTimeoutMs exactly group.min.session.timeout.ms is accepted (the bound is inclusive); one millisecond below it: INVALID_SESSION_TIMEOUT", run: caseSessionBound(false)},
		{Name: "B8.4/session-above-max-refused", Source: srcEvery, Rule: "JoinGroup with SessionTimeoutMs one millisecond above group.max.session.timeout.ms: INVALID_SESSION_TIMEOUT; exactly at it: accepted (the bound is inclusive)", run: caseSessionBound(true)},
		{Name: "B8.4/v0-rebalance-timeout", Source: srcEvery, Rule: "a JoinGroup v0, which carries no RebalanceTimeoutMs, times the phases of its group by its session timeout: the leader's SyncGroup right after a v0 join is answered NONE; a new member's v0 join waits for a member that joined at v0 to rejoin a quarter of that session later, and both are answered at the next generation", run: caseV0RebalanceTimeout},
		{Name: "B8.4/sync-null-protocol", Source: "KIP-559, Kafka 2.5", Rule: "SyncGroup v5 with ProtocolType null: INCONSISTENT_GROUP_PROTOCOL", run: caseSyncNullProtocol},
		{Name: "B8.4/member-unknown-instance", Source: srcKIP345Classic, Rule: "a Heartbeat naming a member with an instance id nobody holds: UNKNOWN_MEMBER_ID", run: caseUnknownInstanceHeartbeat},
		{Name: "B8.6/missing-group-unknown-member", Source: srcEvery, Rule: "JoinGroup with a member id to a group that does not exist: UNKNOWN_MEMBER_ID", run: caseJoinMissingGroup},
		{Name: "B8.6/inconsistent-protocol", Source: srcEvery, Rule: "JoinGroup with another ProtocolType, or no protocol name in common with the group: INCONSISTENT_GROUP_PROTOCOL", run: caseInconsistentProtocol},
		{Name: "B8.6/existing-completing-same", Source: srcEvery, Rule: "a member rejoining unchanged while the group awaits the leader's SyncGroup (CompletingRebalance) gets the current generation at once (Members for the leader only) and starts no rebalance: the leader's SyncGroup then completes the generation", run: caseCompletingRejoinSame},
		{Name: "B8.6/stable-follower-same", Source: srcEvery, Rule: "a follower rejoining a Stable group unchanged gets the current generation at once: no rebalance", run: caseFollowerRejoinsSame},
		{Name: "B8.6/stable-leader-rejoins", Source: srcEvery, Rule: "the leader rejoining a Stable group starts a rebalance: the follower's Heartbeat is REBALANCE_IN_PROGRESS", run: caseLeaderRejoins},
		{Name: "B8.7/dynamic-removed-not-rejoined", Source: srcEvery, Rule: "a dynamic member that does not rejoin a rebalance is removed when the join phase completes", run: caseCompletion(completionDynamicRemoved, true)},
		{Name: "B8.7/leader-moved", Source: srcEvery, Rule: "when the leader does not rejoin a rebalance, a member that did leads the next generation", run: caseCompletion(completionLeaderMoved, false)},
		{Name: "B8.8/follower-waits-for-leader", Source: srcEvery, Rule: "a follower's SyncGroup waits for the leader's, then gets the bytes the leader gave its id", run: caseSyncPhase(syncFollowerWaits)},
		{Name: "B8.8/missing-assignment-empty", Source: srcEvery, Rule: "a member the leader's SyncGroup gives no entry gets empty bytes", run: caseSyncPhase(syncMissingEmpty)},
		{Name: "B8.8/illegal-generation", Source: srcEvery, Rule: "SyncGroup at a generation other than the group's: ILLEGAL_GENERATION", run: caseSyncIllegalGeneration},
		{Name: "B8.8/stable-current", Source: srcEvery, Rule: "in a Stable group, a follower's SyncGroup at its generation, sent after the leader's, gets the bytes the leader gave it at once", run: caseSyncStableCurrent},
		{Name: "B8.8/rebalancing", Source: srcEvery, Rule: "SyncGroup while the group prepares a rebalance: REBALANCE_IN_PROGRESS", run: caseRebalancing(true)},
		{Name: "B8.9/unknown-group", Source: srcEvery, Rule: "Heartbeat to a group that does not exist: UNKNOWN_MEMBER_ID", run: caseHeartbeatMissingGroup},
		{Name: "B8.9/illegal-generation", Source: srcEvery, Rule: "Heartbeat at a generation other than the group's (above or below): ILLEGAL_GENERATION", run: caseHeartbeatIllegalGeneration},
		{Name: "B8.9/rebalancing", Source: srcEvery, Rule: "Heartbeat while the group prepares a rebalance: REBALANCE_IN_PROGRESS", run: caseRebalancing(false)},
		{Name: "B8.9/error-does-not-refresh-session", Source: srcEvery, Rule: "a Heartbeat answered ILLEGAL_GENERATION does not refresh the session: the member is removed one session timeout after its last good one", Slow: true, run: caseClassicErrorNoRefresh},
		{Name: "B8.10/session-expired", Source: srcEvery, Rule: "a member that stops heartbeating is removed after its session timeout; one that heartbeats stays", Slow: true, run: caseClassicSessionExpiry},
		{Name: "B8.10/sync-expired", Source: "KAFKA-12890, Kafka 3.0", Rule: "a member that does not send its SyncGroup within the rebalance timeout is removed; a member that did stays", Slow: true, run: judged(caseSyncExpired)},
		{Name: "B8.11/group-full", Source: "KIP-389, Kafka 2.2", Rule: "with group.max.size members, a new member's JoinGroup: GROUP_MAX_SIZE_REACHED", run: caseClassicGroupFull},
		{Name: "B8.11/pending-not-counted", Source: "KIP-389, Kafka 2.2; KIP-394, Kafka 2.2", Rule: "pending ids do not count toward group.max.size: a pending id joining the last place is accepted", run: casePendingNotCounted},
		{Name: "B8.13/described-stable", Source: srcEvery, Rule: "DescribeGroups of a Stable classic group: Stable, its protocol, each member with its metadata and the assignment SyncGroup gave it", run: caseDescribedStable},
		{Name: "B8.13/not-found-v6", Source: "KIP-1043, Kafka 4.0", Rule: "DescribeGroups v6 of a missing group: GROUP_ID_NOT_FOUND, state Dead", run: caseDescribeMissingClassic(true)},
		{Name: "B8.13/dead-v0-v5", Source: srcEvery, Rule: "DescribeGroups v0-v5 of a missing group: NONE, state Dead, no members", run: caseDescribeMissingClassic(false)},
	}, casesClassicLeave(), casesClassicSync())
}

// --- A6.1: KIP-394 ---

func caseMemberIDRequired(p *probe) verdict {
	p.needsJoin(4, "KIP-394")
	m := p.member(p.id("g"), "")
	r := m.join()
	notAdopted394(r, "join")
	d := p.describeClassic(m.c, m.group, r.ErrorCode == codec.MemberIDRequired && r.MemberId != "", "join: "+jgString(r), "MEMBER_ID_REQUIRED with a member id")
	obs := "join: " + jgString(r) + "; " + dgString(d)
	return want(r.ErrorCode == codec.MemberIDRequired && r.MemberId != "" && len(d.Members) == 0, obs, "MEMBER_ID_REQUIRED with a member id, and no member listed")
}

// caseMemberIDRequiredV4 joins at exactly v4, the first version of
// KIP-394. A broker that makes the member at once there is N/A only if it
// does so at its highest version too (KIP-394 not adopted); one that
// answers MEMBER_ID_REQUIRED only above v4 gates KIP-394 at the wrong
// version, and a v4 client of it leaves a member for each lost answer.
func caseMemberIDRequiredV4(p *probe) verdict {
	p.needsJoin(4, "KIP-394")
	m := p.member(p.id("g"), "")
	r := m.c.send(codec.JoinGroup, 4, m.joinReq()).answer().(*codec.JoinGroupResponse)
	obs := "join v4: " + jgString(r)
	if r.ErrorCode == codec.None && r.MemberId != "" {
		if p.jv() == 4 {
			notAdopted394(r, "join v4")
		}
		top := p.member(p.id("g"), "").join()
		notAdopted394(top, fmt.Sprintf("join v4: %s; join v%d", jgString(r), p.jv()))
		obs += fmt.Sprintf("; join v%d: %s", p.jv(), jgString(top))
	}
	return want(r.ErrorCode == codec.MemberIDRequired && r.MemberId != "", obs, "MEMBER_ID_REQUIRED with a member id at v4, as at every later version")
}

func caseV3MemberAdded(p *probe) verdict {
	p.needsClassic()
	if !p.offers(codec.JoinGroup, 3) {
		return skip("needs JoinGroup v3; the broker offers " + p.offered(codec.JoinGroup))
	}
	m := p.member(p.id("g"), "")
	r := m.c.send(codec.JoinGroup, 3, m.joinReq()).answer().(*codec.JoinGroupResponse)
	ok := r.ErrorCode == codec.None && r.MemberId != "" && r.GenerationId >= 1
	d := p.describeClassic(m.c, m.group, ok, "join v3: "+jgString(r), "NONE with a member id")
	obs := "join v3: " + jgString(r) + "; " + dgString(d)
	return want(ok && slices.Equal(classicMembers(d), []string{r.MemberId}), obs, "NONE with the id of a member made at once, listed")
}

func casePendingJoins(p *probe) verdict {
	p.needsJoin(4, "KIP-394")
	m := p.member(p.id("g"), "")
	first := m.join()
	notAdopted394(first, "first join")
	if first.ErrorCode != codec.MemberIDRequired {
		return fail("first join: "+jgString(first), "MEMBER_ID_REQUIRED")
	}
	m.id = first.MemberId
	r := m.join()
	obs := "first: " + jgString(first) + "; rejoin: " + jgString(r)
	return want(r.ErrorCode == codec.None && r.MemberId == first.MemberId && r.GenerationId >= 1 && r.Leader == first.MemberId, obs,
		"NONE under the pending id, which leads its generation")
}

func casePendingNotMember(p *probe) verdict {
	p.needsJoin(4, "KIP-394")
	ms := p.stable(p.id("g"), 1)
	x := p.member(ms[0].group, "")
	first := x.join()
	notAdopted394(first, "first join")
	if first.ErrorCode != codec.MemberIDRequired {
		return fail("first join: "+jgString(first), "MEMBER_ID_REQUIRED")
	}
	x.id, x.gen = first.MemberId, ms[0].gen
	hb := x.heartbeat()
	sy := x.c.do(codec.SyncGroup, p.sv(), x.syncReq(nil)).(*codec.SyncGroupResponse).ErrorCode
	own := ms[0].heartbeat()
	obs := fmt.Sprintf("pending id's heartbeat %s, sync %s; the member's heartbeat %s", hb, sy, own)
	return want(hb == codec.UnknownMemberID && sy == codec.UnknownMemberID && own == codec.None, obs,
		"UNKNOWN_MEMBER_ID to both, the member's heartbeat NONE")
}

// pendingRebalanceShort and pendingRebalanceLong are the rebalance
// timeouts casePendingExpired's joins send, from the wait it makes
// before it uses the pending id (a session timeout and its grace): the
// suite's (half a session), and twice the wait, so that a broker that
// timed the pending id by its rebalance timeout would still hold it.
func pendingRebalanceShort(p *probe, wait time.Duration) int32 { return p.classicRebalanceMs() }

func pendingRebalanceLong(p *probe, wait time.Duration) int32 {
	return int32(min(2*wait.Milliseconds(), math.MaxInt32))
}

// casePendingExpired makes a pending id with a JoinGroup whose rebalance
// timeout is rebalance's, waits a session timeout and its grace, and
// joins with it: the id must be gone.
func casePendingExpired(rebalance func(p *probe, wait time.Duration) int32) func(p *probe) verdict {
	return func(p *probe) verdict {
		return pendingExpired(p, rebalance)
	}
}

func pendingExpired(p *probe, rebalance func(p *probe, wait time.Duration) int32) verdict {
	p.needsJoin(4, "KIP-394")
	m := p.member(p.id("g"), "")
	wait := p.peer.ClassicSessionTimeout + expiryGrace(p.peer.ClassicSessionTimeout)
	m.rebalanceMs = rebalance(p, wait)
	first := m.join()
	notAdopted394(first, "first join")
	if first.ErrorCode != codec.MemberIDRequired {
		return fail("first join: "+jgString(first), "MEMBER_ID_REQUIRED")
	}
	made := time.Now()
	time.Sleep(time.Until(made.Add(wait)))
	m.id = first.MemberId
	r := m.c.send(codec.JoinGroup, p.jv(), m.joinReq())
	resp, err, ok := r.within(p.peer.Timeout)
	if !ok {
		return fail(fmt.Sprintf("the pending id, %v after it was made, joined: its JoinGroup is held", wait.Round(time.Millisecond)), "UNKNOWN_MEMBER_ID: the id dropped at its session timeout")
	}
	if err != nil {
		return fail("rejoin: "+err.Error(), "a response")
	}
	jr := resp.(*codec.JoinGroupResponse)
	return want(jr.ErrorCode == codec.UnknownMemberID, fmt.Sprintf("rejoin with the pending id %v after it was made (session %v, rebalance timeout %dms): %s",
		wait.Round(time.Millisecond), p.peer.ClassicSessionTimeout, m.rebalanceMs, jgString(jr)),
		"UNKNOWN_MEMBER_ID: the id dropped at its session timeout")
}

// notAdopted394 ends a KIP-394 case as N/A when r, the answer to a first
// JoinGroup v4+ with MemberId "" and no instance id, is NONE with a member
// id: the broker made the member at once, as JoinGroup v0-v3 does, so it
// implements none of KIP-394 (no pending ids at all), which breaks none of
// its rules (a client takes its member id from either answer). A broker
// that answers MEMBER_ID_REQUIRED is held to all of them.
func notAdopted394(r *codec.JoinGroupResponse, what string) {
	if r.ErrorCode == codec.None && r.MemberId != "" {
		panic(abort{verdict{NotApplicable, what + ": " + jgString(r) + ": KIP-394 not adopted (the member made at once, as JoinGroup v0-v3 does; no pending id)", "MEMBER_ID_REQUIRED"}})
	}
}

// expiryGrace is how long past a classic session timeout a case waits
// before it holds the broker to the expiry: a broker fires its timers on
// its own clock, in steps.
func expiryGrace(session time.Duration) time.Duration {
	return min(max(session/2, 300*time.Millisecond), 3*time.Second)
}

// --- A6.2: KIP-345 ---

func caseNewStaticMember(p *probe) verdict {
	p.needsJoin(5, "KIP-345")
	inst := p.id("i")
	m := p.member(p.id("g"), inst)
	r := m.join()
	ok := r.ErrorCode == codec.None && r.MemberId != ""
	d := p.describeClassic(m.c, m.group, ok, "join: "+jgString(r), "NONE with a member id")
	listed := len(d.Members) == 1 && d.Members[0].MemberId == r.MemberId && (p.dv() < 4 || d.Members[0].GroupInstanceId == codec.Str(inst))
	return want(ok && listed, "join: "+jgString(r)+"; "+dgString(d), "NONE at once (no MEMBER_ID_REQUIRED), the member listed with its instance id")
}

// restart replaces static member old by a new process of its instance:
// a JoinGroup with MemberId "" and the instance, on a connection of its
// own. It returns the new member (its id and generation from the
// answer, if NONE) and the answer.
func (p *probe) restart(old *cmember) (*cmember, *codec.JoinGroupResponse) {
	n := p.member(old.group, old.instance.Value)
	n.meta = old.meta
	r := n.join()
	return n, r
}

func caseReplacedStable(p *probe) verdict {
	p.needsJoin(5, "KIP-345")
	ms := p.stable(p.id("g"), 1, p.id("i"))
	d, s := ms[0], ms[1]
	n, r := p.restart(s)
	obs := "restart: " + jgString(r)
	if r.ErrorCode != codec.None || r.GenerationId != s.gen || r.MemberId == s.id || r.MemberId == "" {
		return fail(obs, fmt.Sprintf("NONE at the current generation %d under a new member id", s.gen))
	}
	other := d.heartbeat()
	sy := n.c.do(codec.SyncGroup, p.sv(), n.syncReq(nil)).(*codec.SyncGroupResponse)
	obs += fmt.Sprintf("; the other member's heartbeat %s; the new member's sync %s, old assignment %v", other, sy.ErrorCode, sameBytes(sy.Assignment, s.id))
	return want(other == codec.None && sy.ErrorCode == codec.None && sameBytes(sy.Assignment, s.id), obs,
		"no rebalance (the other member's heartbeat NONE) and the replaced member's assignment from SyncGroup")
}

func caseReplacedLeaderSkip(p *probe) verdict {
	p.needsJoin(9, "KIP-814")
	ms := p.stable(p.id("g"), 0, p.id("i"))
	_, r := p.restart(ms[0])
	in := slices.ContainsFunc(r.Members, func(m codec.JoinGroupResponseMember) bool { return m.MemberId == r.MemberId })
	return want(r.ErrorCode == codec.None && r.GenerationId == ms[0].gen && r.Leader == r.MemberId && r.SkipAssignment && in, "restart of the leader: "+jgString(r),
		fmt.Sprintf("NONE at generation %d, leader the new id, SkipAssignment, the members listed", ms[0].gen))
}

// replaced forms a group of one static member and restarts it, aborting
// unless the restart is answered NONE.
func (p *probe) replaced() (old, n *cmember) {
	p.needsJoin(5, "KIP-345")
	ms := p.stable(p.id("g"), 0, p.id("i"))
	n, r := p.restart(ms[0])
	if r.ErrorCode != codec.None {
		panic(abort{fail("restart: "+jgString(r), "the static restart to succeed")})
	}
	return ms[0], n
}

func caseOldMemberFenced(p *probe) verdict {
	old, _ := p.replaced()
	fenced := old.heartbeat()
	anon := *old
	anon.instance = codec.Null
	unknown := anon.heartbeat()
	return want(fenced == codec.FencedInstanceID && unknown == codec.UnknownMemberID,
		fmt.Sprintf("the replaced id's heartbeat with its instance %s, without %s", fenced, unknown), "FENCED_INSTANCE_ID, and UNKNOWN_MEMBER_ID without the instance")
}

func caseNewMemberServes(p *probe) verdict {
	old, n := p.replaced()
	e := n.heartbeat()
	return want(e == codec.None && n.id != old.id, fmt.Sprintf("the new member's heartbeat at generation %d: %s", n.gen, e), "NONE")
}

// --- B8.7 and A6.2: a join phase's completion ---

// completion is what a rebalance showed that only one member (rejoined,
// a dynamic follower) rejoined: a static leader and a dynamic member
// did not.
type completion struct {
	static, dynamic, rejoined *cmember
	answer                    *codec.JoinGroupResponse
	described                 codec.DescribeGroupsGroup
	obs                       string
}

type completionCheck func(c completion) verdict

func completionStaticKept(c completion) verdict {
	return want(slices.Contains(classicMembers(c.described), c.static.id), c.obs, "the static member, which did not rejoin, still listed")
}

func completionDynamicRemoved(c completion) verdict {
	return want(!slices.Contains(classicMembers(c.described), c.dynamic.id), c.obs, "the dynamic member that did not rejoin not listed")
}

func completionLeaderMoved(c completion) verdict {
	obs := c.obs
	if c.answer.Leader == c.static.id {
		obs += "; the leader that did not rejoin still leads"
	}
	return want(c.answer.Leader == c.rejoined.id, obs, "the member that rejoined leads (the leader did not rejoin)")
}

// caseCompletion forms a group led by a static member (it joins first),
// with two dynamic members; one of these rejoins with a changed
// subscription, the others do not; the join phase completes at its
// timer, and check judges what the rejoined member was told and (describe)
// what DescribeGroups then shows. A check that needs DescribeGroups SKIPs
// before the setup when the broker lacks it: nothing the setup shows is
// judged.
func caseCompletion(check completionCheck, describe bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needsJoin(5, "KIP-345")
		if describe {
			p.needs(codec.DescribeGroups)
		}
		g := p.id("g")
		s := p.member(g, p.id("i"))
		p.form(s)
		a, b := p.member(g, ""), p.member(g, "")
		p.form(s, a, b)
		if s.leader != s.id {
			return skip(fmt.Sprintf("the broker made %s leader, not the static member that joined first: the case needs a static leader", short(s.leader)))
		}
		a.meta = p.subscription("changed")
		r := a.join()
		if r.ErrorCode != codec.None {
			return fail("the rejoin: "+jgString(r), "NONE at the next generation")
		}
		c := completion{static: s, dynamic: b, rejoined: a, answer: r, obs: fmt.Sprintf("rejoin of %s: %s", short(a.id), jgString(r))}
		if describe {
			d := p.describeClassic(a.c, g, true, "rejoin: "+jgString(r), "")
			c.described = d
			c.obs += fmt.Sprintf("; %s (static %s listed: %v, other dynamic %s listed: %v)", dgString(d),
				short(s.id), slices.Contains(classicMembers(d), s.id), short(b.id), slices.Contains(classicMembers(d), b.id))
		}
		return check(c)
	}
}

// --- A6.3 and B5: LeaveGroup ---

func caseClassicAdminRemoval(p *probe) verdict {
	p.needsJoin(5, "KIP-345")
	if p.lv() < 3 {
		return skip("needs LeaveGroup v3; the broker offers " + p.offered(codec.LeaveGroup))
	}
	ms := p.stable(p.id("g"), 1, p.id("i"))
	s := ms[1]
	r := ms[0].c.leaveGroup(p.lv(), s.group, codec.LeaveGroupMember{MemberId: "", GroupInstanceId: s.instance})
	ok := r.ErrorCode == codec.None && len(r.Members) == 1 && r.Members[0].ErrorCode == codec.None
	d := p.describeClassic(ms[0].c, s.group, ok, lgString(r), "NONE for the entry")
	return want(ok && !slices.Contains(classicMembers(d), s.id), lgString(r)+"; "+dgString(d), "NONE, and the static member gone")
}

func caseClassicPendingLeave(p *probe) verdict {
	p.needsJoin(4, "KIP-394")
	ms := p.stable(p.id("g"), 1)
	x := p.member(ms[0].group, "")
	first := x.join()
	notAdopted394(first, "first join")
	if first.ErrorCode != codec.MemberIDRequired {
		return fail("first join: "+jgString(first), "MEMBER_ID_REQUIRED")
	}
	r := ms[0].c.leaveGroup(p.lv(), x.group, codec.LeaveGroupMember{MemberId: first.MemberId})
	e := r.ErrorCode
	if p.lv() >= 3 && len(r.Members) == 1 {
		e = r.Members[0].ErrorCode
	}
	x.id = first.MemberId
	h := x.c.send(codec.JoinGroup, p.jv(), x.joinReq())
	resp, err, answered := h.within(p.peer.Timeout)
	obs := "leave: " + lgString(r)
	switch {
	case !answered:
		obs += "; joining with the id left: held (the id still pending)"
	case err != nil:
		obs += "; joining with the id left: " + err.Error()
	default:
		obs += "; joining with the id left: " + jgString(resp.(*codec.JoinGroupResponse))
	}
	return want(e == codec.None && answered && err == nil && resp.(*codec.JoinGroupResponse).ErrorCode == codec.UnknownMemberID, obs,
		"NONE, then UNKNOWN_MEMBER_ID for a join with the id")
}

// leaveEntry makes the one LeaveGroup entry of a case from a Stable
// group's static member s, and says what the entry must get.
type leaveEntry func(p *probe, s *cmember) (codec.LeaveGroupMember, codec.ErrorCode)

func leaveFenced(p *probe, s *cmember) (codec.LeaveGroupMember, codec.ErrorCode) {
	return codec.LeaveGroupMember{MemberId: p.id("m"), GroupInstanceId: s.instance}, codec.FencedInstanceID
}

func leaveUnknownInstance(p *probe, s *cmember) (codec.LeaveGroupMember, codec.ErrorCode) {
	return codec.LeaveGroupMember{MemberId: s.id, GroupInstanceId: codec.Str(p.id("i"))}, codec.UnknownMemberID
}

// caseClassicLeaveEntry sends one LeaveGroup v3+ entry to a group of one
// static member: the entry's code must be the one expected, and the
// member must stay (its Heartbeat NONE).
func caseClassicLeaveEntry(entry leaveEntry) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needsJoin(5, "KIP-345")
		if p.lv() < 3 {
			return skip("needs LeaveGroup v3; the broker offers " + p.offered(codec.LeaveGroup))
		}
		ms := p.stable(p.id("g"), 0, p.id("i"))
		s := ms[0]
		e, code := entry(p, s)
		r := s.c.leaveGroup(p.lv(), s.group, e)
		got := codec.ErrorCode(-2)
		if len(r.Members) == 1 {
			got = r.Members[0].ErrorCode
		}
		hb := s.heartbeat()
		return want(r.ErrorCode == codec.None && got == code && hb == codec.None, fmt.Sprintf("%s; the member's heartbeat %s", lgString(r), hb),
			fmt.Sprintf("top NONE, the entry %s, the member kept", code))
	}
}

func caseClassicMemberRemoved(p *probe) verdict {
	p.needsClassic()
	ms := p.stable(p.id("g"), 2)
	gone, stays := ms[1], ms[0]
	r := stays.c.leaveGroup(p.lv(), gone.group, codec.LeaveGroupMember{MemberId: gone.id})
	e := r.ErrorCode
	if p.lv() >= 3 && len(r.Members) == 1 {
		e = r.Members[0].ErrorCode
	}
	hb := stays.heartbeat()
	d := p.describeClassic(stays.c, gone.group, e == codec.None && hb == codec.RebalanceInProgress, lgString(r), "NONE and a rebalance")
	obs := fmt.Sprintf("%s; the other member's heartbeat %s; %s", lgString(r), hb, dgString(d))
	return want(e == codec.None && hb == codec.RebalanceInProgress && !slices.Contains(classicMembers(d), gone.id), obs,
		"NONE, the member gone, the other member told REBALANCE_IN_PROGRESS")
}

func caseRemovedJoinAnswered(p *probe) verdict {
	p.needsClassic()
	ms := p.stable(p.id("g"), 2)
	f := followerOf(ms)
	other := leaderOf(ms)
	f.meta = p.subscription("changed")
	h := f.c.send(codec.JoinGroup, p.jv(), f.joinReq())
	if resp, err, ok := h.within(100 * time.Millisecond); ok {
		return fail(fmt.Sprintf("the rejoin was answered at once (%v, %v)", resp, err), "a JoinGroup waiting for the leader to rejoin")
	}
	r := other.c.leaveGroup(p.lv(), f.group, codec.LeaveGroupMember{MemberId: f.id})
	resp, err, ok := h.within(p.peer.Timeout)
	obs := "leave: " + lgString(r)
	switch {
	case !ok:
		return fail(obs+fmt.Sprintf("; the removed member's JoinGroup unanswered after %v", p.peer.Timeout), "UNKNOWN_MEMBER_ID to the waiting JoinGroup")
	case err != nil:
		return fail(obs+"; the waiting JoinGroup: "+err.Error(), "UNKNOWN_MEMBER_ID to the waiting JoinGroup")
	}
	jr := resp.(*codec.JoinGroupResponse)
	return want(jr.ErrorCode == codec.UnknownMemberID, obs+"; the waiting JoinGroup: "+jgString(jr), "UNKNOWN_MEMBER_ID to the waiting JoinGroup")
}

func caseClassicLeaveOld(p *probe) verdict {
	p.needsClassic()
	v := min(p.lv(), 2)
	if v < 0 {
		return skip("needs LeaveGroup, which the broker does not offer")
	}
	ms := p.stable(p.id("g"), 2)
	r := ms[0].c.leaveGroup(v, ms[1].group, codec.LeaveGroupMember{MemberId: ms[1].id})
	hb := ms[0].heartbeat()
	return want(r.ErrorCode == codec.None && hb == codec.RebalanceInProgress, fmt.Sprintf("LeaveGroup v%d: %s; the other member's heartbeat %s", v, r.ErrorCode, hb),
		"top-level NONE and a rebalance")
}

// --- A6.4: a group id's protocol ---

func caseClassicToConsumerGroup(p *probe) verdict {
	p.needsClassic()
	p.needs(codec.ConsumerGroupHeartbeat)
	c := p.conn()
	g, mid := p.id("g"), p.id("m")
	j := c.mustJoin(p.joinReq(g, mid))
	id := memberIDOf(j, mid)
	e := c.do(codec.Heartbeat, p.hv(), &codec.HeartbeatRequest{GroupId: g, GenerationId: j.MemberEpoch, MemberId: id}).(*codec.HeartbeatResponse).ErrorCode
	return want(e == codec.UnknownMemberID, "classic heartbeat to the consumer group's member: "+e.String(), "UNKNOWN_MEMBER_ID")
}

func caseDescribeConsumerGroup(p *probe) verdict {
	p.needsClassic()
	p.needs(codec.ConsumerGroupHeartbeat)
	p.needs(codec.DescribeGroups)
	c := p.conn()
	g := p.id("g")
	c.mustJoin(p.joinReq(g, p.id("m")))
	d := p.describeClassic(c, g, true, "", "")
	ok := len(d.Members) == 0 && d.GroupState == "Dead" && (p.dv() >= 6 && d.ErrorCode == codec.GroupIDNotFound || p.dv() < 6 && d.ErrorCode == codec.None)
	return want(ok, fmt.Sprintf("DescribeGroups v%d: %s", p.dv(), dgString(d)), "as a missing group: v6 GROUP_ID_NOT_FOUND, v0-v5 NONE; Dead, no members")
}

func caseConsumerHeartbeatClassic(p *probe) verdict {
	p.needsClassic()
	p.needs(codec.ConsumerGroupHeartbeat)
	ms := p.stable(p.id("g"), 1)
	r := ms[0].c.hb(p.hbv(), keepalive(ms[0].group, p.id("m"), 1))
	return want(r.ErrorCode == codec.GroupIDNotFound, "ConsumerGroupHeartbeat at epoch 1 to the classic group: "+hbString(r), "GROUP_ID_NOT_FOUND")
}

// caseJoinReplacesConsumerGroup makes a consumer group of one member,
// which leaves (epoch -1): the group stays, Empty. A classic member's
// JoinGroup (MemberId "", again with the id MEMBER_ID_REQUIRED gives) must
// then be taken as a join to a new classic group (A6.4: the empty consumer
// group removed): NONE, the member leading a generation of its own.
// INCONSISTENT_GROUP_PROTOCOL would leave the id to a group nobody is in.
func caseJoinReplacesConsumerGroup(p *probe) verdict {
	p.needsClassic()
	p.needs(codec.ConsumerGroupHeartbeat)
	c := p.conn()
	g, mid := p.id("g"), p.id("m")
	j := c.mustJoin(p.joinReq(g, mid))
	id := memberIDOf(j, mid)
	if lr := c.hb(p.hbv(), leave(g, id, -1)); lr.ErrorCode != codec.None {
		return fail("the setup's consumer member leaving (epoch -1): "+hbString(lr), "NONE")
	}
	m := p.member(g, "")
	r, what := joinAnswer(m.joinAsNew(), p.classicWait())
	return want(r != nil && r.ErrorCode == codec.None && r.Leader == r.MemberId && len(r.Members) == 1,
		"a consumer group left with no member; a classic JoinGroup with MemberId \"\": "+what,
		"NONE: the empty consumer group replaced by a classic group the member leads alone")
}

// caseHeartbeatReplacesClassicGroup forms a classic group of one member,
// which leaves (LeaveGroup): the join phase that follows completes with
// nobody at once, and the group is Empty, which DescribeGroups must show
// within a join phase's wait (a group that never gets there fails: A6.3
// and B8.7). A ConsumerGroupHeartbeat join must then
// replace the empty classic group with a consumer group (A6.4): NONE and
// a member epoch of 1 or more. GROUP_ID_NOT_FOUND would leave the id to a
// group nobody is in.
func caseHeartbeatReplacesClassicGroup(p *probe) verdict {
	p.needsClassic()
	p.needs(codec.ConsumerGroupHeartbeat)
	p.needs(codec.LeaveGroup)
	p.needs(codec.DescribeGroups)
	m := p.stable(p.id("g"), 1)[0]
	lr := m.c.leaveGroup(p.lv(), m.group, codec.LeaveGroupMember{MemberId: m.id})
	if lr.ErrorCode != codec.None || len(lr.Members) > 0 && lr.Members[0].ErrorCode != codec.None {
		return fail("the setup's classic member leaving: "+lgString(lr), "NONE")
	}
	var d codec.DescribeGroupsGroup
	for deadline := time.Now().Add(p.classicWait()); ; time.Sleep(20 * time.Millisecond) {
		if d = p.describeClassic(m.c, m.group, true, "", ""); d.GroupState == "Empty" {
			break
		}
		if time.Now().After(deadline) {
			return fail(fmt.Sprintf("the classic group its one member left, %v later: %s", p.classicWait(), dgString(d)),
				"Empty (A6.3: the leave rebalances; B8.7: a join phase left with nobody completes at once), then a ConsumerGroupHeartbeat join NONE")
		}
	}
	c := p.conn()
	r := c.hb(p.hbv(), p.joinReq(m.group, p.id("m")))
	return want(r.ErrorCode == codec.None && r.MemberEpoch >= 1, "the classic group left Empty; a ConsumerGroupHeartbeat join: "+hbString(r),
		"NONE at member epoch 1 or above: the empty classic group replaced by a consumer group")
}

// --- B8.4: before the group ---

func caseClassicEmptyGroupID(p *probe) verdict {
	p.needsClassic()
	m := p.member("", "")
	j := m.c.do(codec.JoinGroup, p.jv(), m.joinReq()).(*codec.JoinGroupResponse).ErrorCode
	m.id, m.gen = p.id("m"), 1
	s := m.c.do(codec.SyncGroup, p.sv(), m.syncReq(nil)).(*codec.SyncGroupResponse).ErrorCode
	h := m.heartbeat()
	return want(j == codec.InvalidGroupID && s == codec.InvalidGroupID && h == codec.InvalidGroupID,
		fmt.Sprintf("JoinGroup %s, SyncGroup %s, Heartbeat %s", j, s, h), "INVALID_GROUP_ID to each")
}

func caseInvalidSessionTimeout(p *probe) verdict {
	p.needsClassic()
	m := p.member(p.id("g"), "")
	req := m.joinReq()
	req.SessionTimeoutMs = 1
	r := m.c.do(codec.JoinGroup, p.jv(), req).(*codec.JoinGroupResponse)
	return want(r.ErrorCode == codec.InvalidSessionTimeout, "join with a 1 ms session: "+jgString(r), "INVALID_SESSION_TIMEOUT")
}

// caseSessionBound joins, each in a group of its own and side by side, at
// a session-timeout bound of the broker (the peer's; upper: the maximum,
// else the minimum) and one millisecond past it: Kafka's bounds are
// inclusive, so the first is accepted (MEMBER_ID_REQUIRED, or NONE when
// the join phase completes) and the second refused.
func caseSessionBound(upper bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needsClassic()
		name, flag, bound, step := "group.min.session.timeout.ms", "--classic-min-session-timeout", p.peer.ClassicMinSessionTimeout, int64(-1)
		if upper {
			name, flag, bound, step = "group.max.session.timeout.ms", "--classic-max-session-timeout", p.peer.ClassicMaxSessionTimeout, 1
		}
		at := bound.Milliseconds()
		if at <= 0 || at+step > math.MaxInt32 {
			return skip(fmt.Sprintf("the broker's %s is unknown (check %s)", name, flag))
		}
		joins := map[int64]*held{}
		for _, ms := range []int64{at, at + step} {
			m := p.member(p.id("g"), "")
			req := m.joinReq()
			req.SessionTimeoutMs = int32(ms)
			joins[ms] = m.c.send(codec.JoinGroup, p.jv(), req)
		}
		in := joins[at].answer().(*codec.JoinGroupResponse)
		out := joins[at+step].answer().(*codec.JoinGroupResponse)
		accepted := in.ErrorCode == codec.MemberIDRequired || in.ErrorCode == codec.None
		return want(accepted && out.ErrorCode == codec.InvalidSessionTimeout,
			fmt.Sprintf("join with SessionTimeoutMs %d (%s): %s; with %d: %s", at, name, jgString(in), at+step, jgString(out)),
			fmt.Sprintf("the first accepted (MEMBER_ID_REQUIRED or NONE), the second INVALID_SESSION_TIMEOUT (is %s the broker's %s?)", flag, name))
	}
}

// caseV0RebalanceTimeout makes a group of one member at JoinGroup v0
// (its first join phase, then its SyncGroup, which the sync phase's timer,
// the rebalance timeout, must not have beaten), then joins a second member
// at v0: a rebalance, whose timer is the greatest rebalance timeout of
// the members, at v0 their session timeout. The first member heartbeats
// (REBALANCE_IN_PROGRESS) and rejoins a quarter of a session later: the
// phase must still wait for it, so the new member is not answered before
// and both are answered NONE at the next generation. A broker that takes
// a v0 join's rebalance timeout as the field's default (-1) or as 0 ends
// each phase at once: the leader's SyncGroup finds it removed, or the
// phase ends without the first member.
func caseV0RebalanceTimeout(p *probe) verdict {
	p.needsClassic()
	if !p.offers(codec.JoinGroup, 0) {
		return skip("needs JoinGroup v0; the broker offers " + p.offered(codec.JoinGroup))
	}
	g := p.id("g")
	a, b := p.member(g, ""), p.member(g, "")
	first, what := joinAnswer(a.c.send(codec.JoinGroup, 0, a.joinReq()), p.classicWait())
	if first == nil || first.ErrorCode != codec.None || first.Leader != first.MemberId {
		return fail("the setup's first join at v0: "+what, "NONE, the member leading")
	}
	a.took(first)
	if s := a.c.do(codec.SyncGroup, p.sv(), a.syncReq(a.leaderAssignments())).(*codec.SyncGroupResponse); s.ErrorCode != codec.None {
		return fail(fmt.Sprintf("the first join at v0: %s; the leader's SyncGroup right after: %s", what, s.ErrorCode),
			"NONE: the sync phase, too, waits a session timeout at v0")
	}
	session := time.Duration(p.classicSessionMs()) * time.Millisecond
	bh := b.c.send(codec.JoinGroup, 0, b.joinReq())
	time.Sleep(session / 4)
	early, _ := joinAnswer(bh, 0)
	hb := a.heartbeat()
	ar, awhat := joinAnswer(a.c.send(codec.JoinGroup, 0, a.joinReq()), p.classicWait())
	br, bwhat := joinAnswer(bh, p.classicWait())
	obs := fmt.Sprintf("session %v; generation %d; a new member joined at v0; %v later, answered yet: %v; the first member's heartbeat: %s, its rejoin at v0: %s; the new member's join: %s",
		session, a.gen, session/4, early != nil, hb, awhat, bwhat)
	return want(early == nil && hb == codec.RebalanceInProgress && ar != nil && ar.ErrorCode == codec.None && ar.GenerationId == a.gen+1 &&
		br != nil && br.ErrorCode == codec.None && br.GenerationId == ar.GenerationId, obs,
		fmt.Sprintf("the new member's join held, REBALANCE_IN_PROGRESS, then both answered NONE at generation %d", a.gen+1))
}

func caseSyncNullProtocol(p *probe) verdict {
	p.needsClassic()
	if p.sv() < 5 {
		return skip("needs SyncGroup v5; the broker offers " + p.offered(codec.SyncGroup))
	}
	ms := p.stable(p.id("g"), 1)
	req := ms[0].syncReq(nil)
	req.ProtocolType = codec.Null
	e := ms[0].c.do(codec.SyncGroup, 5, req).(*codec.SyncGroupResponse).ErrorCode
	return want(e == codec.InconsistentGroupProtocol, "a Stable member's SyncGroup v5 with ProtocolType null: "+e.String(), "INCONSISTENT_GROUP_PROTOCOL")
}

func caseUnknownInstanceHeartbeat(p *probe) verdict {
	p.needsJoin(5, "KIP-345")
	if p.hv() < 3 {
		return skip("needs Heartbeat v3; the broker offers " + p.offered(codec.Heartbeat))
	}
	ms := p.stable(p.id("g"), 1)
	x := *ms[0]
	x.instance = codec.Str(p.id("i"))
	e := x.heartbeat()
	return want(e == codec.UnknownMemberID, "a member's heartbeat with an instance nobody holds: "+e.String(), "UNKNOWN_MEMBER_ID")
}

// --- B8.6: JoinGroup ---

func caseJoinMissingGroup(p *probe) verdict {
	p.needsClassic()
	m := p.member(p.id("g"), "")
	m.id = p.id("m")
	r := m.c.do(codec.JoinGroup, p.jv(), m.joinReq()).(*codec.JoinGroupResponse)
	return want(r.ErrorCode == codec.UnknownMemberID, "join with a member id to a missing group: "+jgString(r), "UNKNOWN_MEMBER_ID")
}

func caseInconsistentProtocol(p *probe) verdict {
	p.needsClassic()
	ms := p.stable(p.id("g"), 1)
	x := p.member(ms[0].group, "")
	typ := x.joinReq()
	typ.ProtocolType = "connect"
	a := x.c.do(codec.JoinGroup, p.jv(), typ).(*codec.JoinGroupResponse).ErrorCode
	name := x.joinReq()
	name.Protocols[0].Name = "no-such-assignor"
	b := x.c.do(codec.JoinGroup, p.jv(), name).(*codec.JoinGroupResponse).ErrorCode
	return want(a == codec.InconsistentGroupProtocol && b == codec.InconsistentGroupProtocol,
		fmt.Sprintf("another ProtocolType: %s; no protocol in common: %s", a, b), "INCONSISTENT_GROUP_PROTOCOL to both")
}

// caseCompletingRejoinSame brings a Stable group of two into
// CompletingRebalance (the leader rejoins, then the follower, and nobody
// syncs), then each rejoins unchanged, the follower first: each is
// answered at once with the generation it holds, and the leader's
// SyncGroup then completes it. A broker that rebalances instead holds the
// rejoin until its join phase ends, which answers it at a later
// generation (or not at all). How long each answer took is reported, not
// judged (the generation tells).
func caseCompletingRejoinSame(p *probe) verdict {
	p.needsClassic()
	l, f := p.completing(p.id("g"), true)
	gen := l.gen
	expected := fmt.Sprintf("both answered NONE at once at generation %d (the follower with no members, the leader with both), then the leader's sync NONE", gen)
	obs := fmt.Sprintf("generation %d awaiting the leader's sync", gen)
	var answers []*codec.JoinGroupResponse
	for _, x := range []struct {
		m   *cmember
		who string
	}{{f, "the follower"}, {l, "the leader"}} {
		// A broker that rebalances holds the rejoin for its join phase:
		// wait that out, so that the answer's generation tells.
		sent := time.Now()
		resp, err, ok := x.m.c.send(codec.JoinGroup, p.jv(), x.m.joinReq()).within(p.classicWait())
		switch {
		case !ok:
			return fail(fmt.Sprintf("%s; %s's unchanged rejoin not answered within %v", obs, x.who, p.classicWait()), expected)
		case err != nil:
			return fail(fmt.Sprintf("%s; %s's unchanged rejoin: %v", obs, x.who, err), expected)
		}
		r := resp.(*codec.JoinGroupResponse)
		answers = append(answers, r)
		obs += fmt.Sprintf("; %s's unchanged rejoin (answered after %v): %s", x.who, time.Since(sent).Round(time.Millisecond), jgString(r))
		if r.ErrorCode != codec.None || r.GenerationId != gen {
			if r.GenerationId > gen {
				obs += ": a later generation, the rejoin started a rebalance"
			}
			return fail(obs, expected)
		}
	}
	fr, lr2 := answers[0], answers[1]
	sy := l.c.do(codec.SyncGroup, p.sv(), l.syncReq(l.leaderAssignments())).(*codec.SyncGroupResponse)
	obs += "; the leader's sync " + sy.ErrorCode.String()
	return want(fr.Leader == l.id && len(fr.Members) == 0 && len(lr2.Members) == 2 && sy.ErrorCode == codec.None, obs, expected)
}

func caseFollowerRejoinsSame(p *probe) verdict {
	p.needsClassic()
	ms := p.stable(p.id("g"), 2)
	f, l := followerOf(ms), leaderOf(ms)
	gen := f.gen
	h := f.c.send(codec.JoinGroup, p.jv(), f.joinReq())
	resp, err, ok := h.within(p.peer.Timeout)
	if !ok || err != nil {
		return fail(fmt.Sprintf("the follower's unchanged rejoin: answered %v, %v", ok, err), "the current generation at once")
	}
	r := resp.(*codec.JoinGroupResponse)
	hb := l.heartbeat()
	return want(r.ErrorCode == codec.None && r.GenerationId == gen && hb == codec.None, fmt.Sprintf("rejoin: %s; the leader's heartbeat %s", jgString(r), hb),
		fmt.Sprintf("NONE at generation %d, and no rebalance", gen))
}

func caseLeaderRejoins(p *probe) verdict {
	p.needsClassic()
	ms := p.stable(p.id("g"), 2)
	f, l := followerOf(ms), leaderOf(ms)
	gen := l.gen
	h := l.c.send(codec.JoinGroup, p.jv(), l.joinReq())
	time.Sleep(20 * time.Millisecond)
	hb := f.heartbeat()
	f.join()
	lr := h.answer().(*codec.JoinGroupResponse)
	return want(hb == codec.RebalanceInProgress && lr.ErrorCode == codec.None && lr.GenerationId > gen,
		fmt.Sprintf("the follower's heartbeat %s; the leader's rejoin %s", hb, jgString(lr)), fmt.Sprintf("REBALANCE_IN_PROGRESS, then a generation above %d", gen))
}

// --- B8.8: SyncGroup ---

// syncPhase is a sync phase seen: the follower's SyncGroup sent before
// the leader's, whether it was answered before the leader's, and both
// answers.
type syncPhase struct {
	leader, follower *cmember
	early            bool
	lr, fr           *codec.SyncGroupResponse
	obs              string
}

func syncFollowerWaits(s syncPhase) verdict {
	return want(!s.early && s.fr.ErrorCode == codec.None && sameBytes(s.fr.Assignment, s.follower.id), s.obs,
		"the follower's SyncGroup answered after the leader's, with the bytes the leader gave it")
}

func syncMissingEmpty(s syncPhase) verdict {
	return want(s.lr.ErrorCode == codec.None && len(s.lr.Assignment) == 0, s.obs, "the leader, given no entry by itself, gets empty bytes")
}

// completing forms a Stable group of two and rebalances it into
// CompletingRebalance: the leader rejoins, then the follower, and both are
// answered (the new generation taken); nobody has synced. It ends the case
// (FAIL) unless both rejoins are answered NONE and, when stillLeading,
// the leader still leads.
func (p *probe) completing(group string, stillLeading bool) (l, f *cmember) {
	return p.rebalanced(p.stable(group, 2), stillLeading)
}

// rebalanced is completing from ms, a Stable group of two already formed.
func (p *probe) rebalanced(ms []*cmember, stillLeading bool) (l, f *cmember) {
	l, f = leaderOf(ms), followerOf(ms)
	h := l.c.send(codec.JoinGroup, p.jv(), l.joinReq())
	time.Sleep(20 * time.Millisecond)
	if r := f.join(); r.ErrorCode != codec.None {
		panic(abort{fail("the follower's rejoin: "+jgString(r), "NONE")})
	}
	r := h.answer().(*codec.JoinGroupResponse)
	switch {
	case r.ErrorCode != codec.None:
		panic(abort{fail("the leader's rejoin: "+jgString(r), "NONE")})
	case stillLeading && r.Leader != l.id:
		panic(abort{fail("the leader's rejoin: "+jgString(r), "NONE, still leading")})
	}
	l.took(r)
	return l, f
}

// caseSyncPhase starts a rebalance of a Stable group of two (the leader
// rejoins, then the follower), then the follower syncs first and the
// leader second, assigning the follower only.
func caseSyncPhase(check func(syncPhase) verdict) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needsClassic()
		l, f := p.completing(p.id("g"), true)
		fs := f.c.send(codec.SyncGroup, p.sv(), f.syncReq(nil))
		_, _, early := fs.within(100 * time.Millisecond)
		lr := l.c.do(codec.SyncGroup, p.sv(), l.syncReq([]codec.SyncGroupRequestAssignment{{MemberId: f.id, Assignment: assignmentFor(f.id)}})).(*codec.SyncGroupResponse)
		fr := fs.answer().(*codec.SyncGroupResponse)
		obs := fmt.Sprintf("the follower's sync answered before the leader's: %v; leader's %s %d bytes; follower's %s, its bytes %v", early, lr.ErrorCode, len(lr.Assignment), fr.ErrorCode, sameBytes(fr.Assignment, f.id))
		return check(syncPhase{leader: l, follower: f, early: early, lr: lr, fr: fr, obs: obs})
	}
}

func caseSyncIllegalGeneration(p *probe) verdict {
	p.needsClassic()
	ms := p.stable(p.id("g"), 1)
	m := *ms[0]
	m.gen++
	e := m.c.do(codec.SyncGroup, p.sv(), m.syncReq(nil)).(*codec.SyncGroupResponse).ErrorCode
	return want(e == codec.IllegalGeneration, fmt.Sprintf("SyncGroup at generation %d (the group's %d): %s", m.gen, ms[0].gen, e), "ILLEGAL_GENERATION")
}

// caseSyncStableCurrent forms a Stable group of two, whose follower then
// sends its SyncGroup at its generation again, as a client does whose
// answer was lost: the group is Stable, so it gets the bytes the leader
// gave it, at once (B8.8/stable-current).
func caseSyncStableCurrent(p *probe) verdict {
	p.needsClassic()
	f := followerOf(p.stable(p.id("g"), 2))
	r := f.c.do(codec.SyncGroup, p.sv(), f.syncReq(nil)).(*codec.SyncGroupResponse)
	return want(r.ErrorCode == codec.None && sameBytes(r.Assignment, f.id),
		fmt.Sprintf("the follower's SyncGroup again at generation %d: %s, its bytes %v", f.gen, r.ErrorCode, sameBytes(r.Assignment, f.id)),
		"NONE and the bytes the leader gave it")
}

// caseRebalancing starts a rebalance (a follower rejoins with a changed
// subscription) and sends the leader's SyncGroup (sync) or Heartbeat at
// its generation: REBALANCE_IN_PROGRESS.
func caseRebalancing(sync bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needsClassic()
		ms := p.stable(p.id("g"), 2)
		f, l := followerOf(ms), leaderOf(ms)
		f.meta = p.subscription("changed")
		f.c.send(codec.JoinGroup, p.jv(), f.joinReq())
		time.Sleep(20 * time.Millisecond)
		what, e := "Heartbeat", codec.ErrorCode(0)
		if sync {
			what = "SyncGroup"
			e = l.c.do(codec.SyncGroup, p.sv(), l.syncReq(l.leaderAssignments())).(*codec.SyncGroupResponse).ErrorCode
		} else {
			e = l.heartbeat()
		}
		return want(e == codec.RebalanceInProgress, fmt.Sprintf("the leader's %s while a follower's rejoin waits: %s", what, e), "REBALANCE_IN_PROGRESS")
	}
}

// --- B8.9: Heartbeat ---

func caseHeartbeatMissingGroup(p *probe) verdict {
	p.needsClassic()
	c := p.conn()
	e := c.do(codec.Heartbeat, p.hv(), &codec.HeartbeatRequest{GroupId: p.id("g"), GenerationId: 1, MemberId: p.id("m")}).(*codec.HeartbeatResponse).ErrorCode
	return want(e == codec.UnknownMemberID, "Heartbeat to a missing group: "+e.String(), "UNKNOWN_MEMBER_ID")
}

func caseHeartbeatIllegalGeneration(p *probe) verdict {
	p.needsClassic()
	ms := p.stable(p.id("g"), 1)
	m := *ms[0]
	m.gen = ms[0].gen + 1
	above := m.heartbeat()
	m.gen = ms[0].gen - 1
	below := m.heartbeat()
	return want(above == codec.IllegalGeneration && below == codec.IllegalGeneration,
		fmt.Sprintf("at generation %d: %s; at %d: %s (the group's %d)", ms[0].gen+1, above, ms[0].gen-1, below, ms[0].gen), "ILLEGAL_GENERATION to both")
}

func caseClassicErrorNoRefresh(p *probe) verdict {
	p.needsClassic()
	ms := p.stable(p.id("g"), 1)
	last := time.Now()
	// A broker stopped for a while fires its timer that much late, and
	// may take the good heartbeat first: the wait grows by the longest
	// stall seen of this process or of the broker's answers to a ping.
	clock := p.sessionClock()
	defer clock.stop()
	bad := *ms[0]
	bad.gen++
	end := last.Add(p.peer.ClassicSessionTimeout + expiryGrace(p.peer.ClassicSessionTimeout))
	var seen []codec.ErrorCode
	for time.Now().Before(end.Add(clock.stalls.Max())) {
		if e := bad.heartbeat(); len(seen) == 0 || seen[len(seen)-1] != e {
			seen = append(seen, e)
		}
		time.Sleep(p.classicHeartbeat())
	}
	e := ms[0].heartbeat()
	return want(e == codec.UnknownMemberID, fmt.Sprintf("heartbeats at the wrong generation for %v answered %v; then at the right one: %s",
		time.Since(last).Round(time.Millisecond), seen, e), "UNKNOWN_MEMBER_ID: the session ran from the last good heartbeat")
}

// --- B8.10: timers ---

func caseClassicSessionExpiry(p *probe) verdict {
	p.needsClassic()
	p.needs(codec.DescribeGroups)
	ms := p.stable(p.id("g"), 2)
	live, quiet := ms[0], ms[1]
	end := time.Now().Add(p.peer.ClassicSessionTimeout + expiryGrace(p.peer.ClassicSessionTimeout)/2)
	for time.Now().Before(end) {
		live.heartbeat()
		time.Sleep(p.classicHeartbeat())
	}
	d := p.describeClassic(live.c, live.group, true, "", "")
	ids := classicMembers(d)
	return want(slices.Contains(ids, live.id) && !slices.Contains(ids, quiet.id), fmt.Sprintf("after %v: %s (heartbeating %s, quiet %s)", p.peer.ClassicSessionTimeout, dgString(d), short(live.id), short(quiet.id)),
		"the quiet member gone, the heartbeating one listed")
}

func caseSyncExpired(p *probe) verdict {
	p.needsClassic()
	p.needs(codec.DescribeGroups)
	ms := p.stable(p.id("g"), 2)
	started := time.Now() // no join phase of theirs completes before this
	l, f := p.rebalanced(ms, false)
	completed := time.Now()
	if s := l.c.do(codec.SyncGroup, p.sv(), l.syncReq(l.leaderAssignments())).(*codec.SyncGroupResponse); s.ErrorCode != codec.None {
		return fail("the leader's sync: "+s.ErrorCode.String(), "NONE")
	}
	// Both heartbeat meanwhile, so no session ends: only the sync
	// timer may remove the follower.
	rebalance := time.Duration(p.classicRebalanceMs()) * time.Millisecond
	for end := completed.Add(rebalance + expiryGrace(rebalance)); time.Now().Before(end); time.Sleep(p.classicHeartbeat()) {
		l.heartbeat()
		f.heartbeat()
	}
	d := p.describeClassic(l.c, l.group, true, "", "")
	ids := classicMembers(d)
	obs := fmt.Sprintf("%v after the join phase, both heartbeating, the follower never synced: %s (leader listed: %v, follower listed: %v)",
		time.Since(completed).Round(time.Millisecond), dgString(d), slices.Contains(ids, l.id), slices.Contains(ids, f.id))
	if !slices.Contains(ids, l.id) && !time.Now().Before(started.Add(2*rebalance)) {
		// The follower's removal starts a rebalance, whose join phase
		// may rightly remove the leader (its case heartbeats, and does
		// not rejoin) one rebalance timeout later: a Describe answered
		// that late, on a stalled machine, judges nothing.
		return tooSlowTo("the Describe was answered after the rebalance the follower's removal starts could have ended: " + obs)
	}
	return want(slices.Contains(ids, l.id) && !slices.Contains(ids, f.id), obs, "the follower removed, the leader (synced) listed")
}

// --- B8.11: group.max.size ---

func caseClassicGroupFull(p *probe) verdict {
	p.needsClassic()
	n := p.peer.ClassicMaxGroupSize
	if n <= 0 {
		return skip("the broker's group.max.size is unknown (check --classic-max-group-size)")
	}
	ms := p.stable(p.id("g"), n)
	x := p.member(ms[0].group, "")
	r := x.c.send(codec.JoinGroup, p.jv(), x.joinReq())
	resp, err, ok := r.within(p.peer.Timeout)
	if !ok || err != nil {
		return fail(fmt.Sprintf("a new member's join to a group of %d: answered %v, %v", n, ok, err), "GROUP_MAX_SIZE_REACHED")
	}
	jr := resp.(*codec.JoinGroupResponse)
	return want(jr.ErrorCode == codec.GroupMaxSizeReached, fmt.Sprintf("a new member's join to a group of %d: %s", n, jgString(jr)), "GROUP_MAX_SIZE_REACHED")
}

func casePendingNotCounted(p *probe) verdict {
	p.needsJoin(4, "KIP-394")
	n := p.peer.ClassicMaxGroupSize
	if n <= 1 {
		return skip("needs the broker's group.max.size, 2 or more (check --classic-max-group-size)")
	}
	ms := p.stable(p.id("g"), n-1)
	var pending []*cmember
	var first time.Time // when the first pending id's session may have begun
	for i := 0; i < 2; i++ {
		x := p.member(ms[0].group, "")
		if i == 0 {
			first = time.Now()
		}
		r := x.join()
		if i == 0 {
			notAdopted394(r, "a first join")
		}
		if r.ErrorCode != codec.MemberIDRequired {
			return fail(fmt.Sprintf("a first join to a group of %d under a cap of %d: %s", n-1, n, jgString(r)), "MEMBER_ID_REQUIRED")
		}
		x.id = r.MemberId
		pending = append(pending, x)
	}
	pending[0].keepID = true
	why, _ := p.formOnce(append(ms, pending[0]))
	if late := pending[0].joinAnswered.Sub(first); why != "" && late >= p.peer.ClassicSessionTimeout {
		// The broker may have taken the join after the pending id's
		// session ended, and rightly forgotten it.
		return tooSlowTo(fmt.Sprintf("the pending id's join was answered %v after the id was asked for, past its session: %s", late.Round(time.Millisecond), why))
	}
	return want(why == "", fmt.Sprintf("%d members and 2 pending ids under a cap of %d; one pending id joins: %s", n-1, n, orNone(why, "settled at one generation")),
		"the pending id accepted into the last place")
}

// --- B8.13: DescribeGroups ---

func caseDescribedStable(p *probe) verdict {
	p.needsClassic()
	p.needs(codec.DescribeGroups)
	ms := p.stable(p.id("g"), 2)
	d := p.describeClassic(ms[0].c, ms[0].group, true, "", "")
	ok := d.ErrorCode == codec.None && d.GroupState == "Stable" && d.ProtocolType == "consumer" && d.ProtocolData == "range" && len(d.Members) == 2
	for _, dm := range d.Members {
		i := slices.IndexFunc(ms, func(m *cmember) bool { return m.id == dm.MemberId })
		ok = ok && i >= 0 && bytes.Equal(dm.MemberMetadata, ms[i].meta) && sameBytes(dm.MemberAssignment, dm.MemberId)
	}
	return want(ok, dgString(d)+fmt.Sprintf(" (metadata and assignments as given: %v)", ok), "Stable, consumer, range, both members with their metadata and assignment")
}

func caseDescribeMissingClassic(v6 bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needsClassic()
		p.needs(codec.DescribeGroups)
		v := min(p.dv(), 5)
		if v6 {
			if p.dv() < 6 {
				return skip("needs DescribeGroups v6; the broker offers " + p.offered(codec.DescribeGroups))
			}
			v = 6
		}
		c := p.conn()
		r := c.do(codec.DescribeGroups, v, &codec.DescribeGroupsRequest{Groups: []string{p.id("g")}}).(*codec.DescribeGroupsResponse)
		if len(r.Groups) != 1 {
			return fail(fmt.Sprintf("%d groups for one", len(r.Groups)), "one group")
		}
		g := r.Groups[0]
		code := codec.None
		if v6 {
			code = codec.GroupIDNotFound
		}
		return want(g.ErrorCode == code && g.GroupState == "Dead" && len(g.Members) == 0, fmt.Sprintf("DescribeGroups v%d: %s", v, dgString(g)), code.String()+", Dead, no members")
	}
}
