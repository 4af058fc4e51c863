package conformance

import (
	"fmt"
	"slices"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The classic cases of the sync phase and the timers around it, beyond
// cases_classic.go's (docs/PROTOCOL.md B8.8-B8.10, B8.13): SyncGroup's
// checks before the group's state, the leader's assignment reaching the
// followers that wait, what a Heartbeat and DescribeGroups answer during
// CompletingRebalance, and what a session's end does (or must not do)
// while a group rebalances.

// casesClassicSync: B8.8-B8.10 and B8.13 rules no other case reaches.
func casesClassicSync() []Case {
	return []Case{
		{Name: "B8.8/unknown-group", Source: srcEvery, Rule: "SyncGroup to a group that does not exist: UNKNOWN_MEMBER_ID", run: caseSyncMissingGroup},
		{Name: "B8.8/inconsistent-protocol", Source: "KIP-559, Kafka 2.5", Rule: "SyncGroup v5 of a member at its generation naming another ProtocolName, or another ProtocolType, than the group's: INCONSISTENT_GROUP_PROTOCOL", run: caseSyncInconsistentProtocol},
		{Name: "B8.8/sync-replaced", Source: srcEvery, Rule: "a member's second SyncGroup while its first waits for the leader's takes the first's place: it waits, and the leader's SyncGroup answers it NONE with the member's bytes", run: caseSyncReplaced},
		{Name: "B8.8/leader-assigns", Source: srcEvery, Rule: "after a rebalance of a Stable group, the leader's SyncGroup gives the waiting follower the bytes it assigns in this generation, not the last generation's", run: caseLeaderAssigns},
		{Name: "B8.9/completing-rebalance-ok", Source: srcEvery, Rule: "a Heartbeat at the new generation while the group awaits the leader's SyncGroup (CompletingRebalance): NONE, from the leader and the follower", run: caseHeartbeatCompleting},
		{Name: "B8.10/session-kept-waiting", Source: srcEvery, Rule: "a member whose SyncGroup waits for the leader's is not removed when its session timeout passes: the leader's SyncGroup, sent later, still answers it", Slow: true, run: caseSessionKeptWaiting},
		{Name: "B8.10/expiry-rebalances", Source: srcEvery, Rule: "a member of a Stable group that stops heartbeating is removed at its session timeout and the group rebalances: the other member's Heartbeat turns REBALANCE_IN_PROGRESS, and its rejoin leads a generation alone", Slow: true, run: caseExpiryRebalances},
		{Name: "B8.10/expiry-completes-join", Source: srcEvery, Rule: "during a rebalance, the session expiry of the only member that has not rejoined (the other heartbeating while its JoinGroup waits) completes the join phase at once, not at its rebalance timeout", Slow: true, run: caseExpiryCompletesJoin},
		{Name: "B8.13/described-completing", Source: srcEvery, Rule: "DescribeGroups of a group awaiting the leader's SyncGroup: CompletingRebalance, its protocol type, both members, no protocol and no member metadata (those are shown in Stable only)", run: caseDescribedCompleting},
	}
}

// --- B8.8: SyncGroup ---

func caseSyncMissingGroup(p *probe) verdict {
	p.needsClassic()
	m := p.member(p.id("g"), "")
	m.id, m.gen = p.id("m"), 1
	e := m.c.do(codec.SyncGroup, p.sv(), m.syncReq(nil)).(*codec.SyncGroupResponse).ErrorCode
	return want(e == codec.UnknownMemberID, "SyncGroup to a missing group: "+e.String(), "UNKNOWN_MEMBER_ID")
}

// caseSyncInconsistentProtocol sends a Stable member's SyncGroup v5 at its
// generation naming, once, a protocol other than the group's ("range"
// selected: "roundrobin"), and once another protocol type: each is
// INCONSISTENT_GROUP_PROTOCOL (KIP-559 added both fields at v5).
func caseSyncInconsistentProtocol(p *probe) verdict {
	p.needsClassic()
	if p.sv() < 5 {
		return skip("needs SyncGroup v5 (KIP-559); the broker offers " + p.offered(codec.SyncGroup))
	}
	m := p.stable(p.id("g"), 1)[0]
	name := m.syncReq(nil)
	name.ProtocolName = codec.Str("roundrobin")
	byName := m.c.do(codec.SyncGroup, 5, name).(*codec.SyncGroupResponse).ErrorCode
	typ := m.syncReq(nil)
	typ.ProtocolType = codec.Str("connect")
	byType := m.c.do(codec.SyncGroup, 5, typ).(*codec.SyncGroupResponse).ErrorCode
	return want(byName == codec.InconsistentGroupProtocol && byType == codec.InconsistentGroupProtocol,
		fmt.Sprintf("SyncGroup v5 at generation %d naming roundrobin (the group's range): %s; naming type connect: %s", m.gen, byName, byType),
		"INCONSISTENT_GROUP_PROTOCOL to both")
}

// generationAssignment is what caseLeaderAssigns's leader gives member id
// at generation gen: bytes of that generation only, unlike
// assignmentFor's, which the setup's leaders gave at every generation.
func generationAssignment(id string, gen int32) []byte {
	return assignmentFor(fmt.Sprintf("%s@%d", id, gen))
}

// caseLeaderAssigns rebalances a Stable group of two, has the follower's
// SyncGroup wait, and sends the leader's with assignments of the new
// generation only: the follower must be answered with its new bytes.
// (B8.8/follower-waits-for-leader's leader assigns what the setup's did,
// so an answer from the last generation's assignment passes there.)
func caseLeaderAssigns(p *probe) verdict {
	p.needsClassic()
	l, f := p.completing(p.id("g"), true)
	fs := f.c.send(codec.SyncGroup, p.sv(), f.syncReq(nil))
	_, _, early := fs.within(100 * time.Millisecond)
	var as []codec.SyncGroupRequestAssignment
	for _, m := range l.members {
		as = append(as, codec.SyncGroupRequestAssignment{MemberId: m.MemberId, Assignment: generationAssignment(m.MemberId, l.gen)})
	}
	lr := l.c.do(codec.SyncGroup, p.sv(), l.syncReq(as)).(*codec.SyncGroupResponse)
	fr := fs.answer().(*codec.SyncGroupResponse)
	fNew := slices.Equal(fr.Assignment, generationAssignment(f.id, l.gen))
	lNew := slices.Equal(lr.Assignment, generationAssignment(l.id, l.gen))
	obs := fmt.Sprintf("generation %d; the follower's sync answered before the leader's: %v; leader's %s, this generation's bytes %v; follower's %s, this generation's bytes %v, the last generation's %v",
		l.gen, early, lr.ErrorCode, lNew, fr.ErrorCode, fNew, sameBytes(fr.Assignment, f.id))
	return want(!early && lr.ErrorCode == codec.None && fr.ErrorCode == codec.None && lNew && fNew, obs,
		"the follower's SyncGroup answered after the leader's, NONE, each member with the bytes the leader gave it in this generation")
}

// caseSyncReplaced brings a group of two (patient rebalance timeouts)
// into CompletingRebalance; the follower's SyncGroup waits, and the
// follower sends the same SyncGroup again on a connection of its own (a
// client that timed out and retried); then the leader syncs. The second
// SyncGroup must wait in the first's place and be answered, after the
// leader's, NONE with the follower's bytes (B8.8). The first is not
// judged: released Kafka never answers it, its trunk answers
// NOT_COORDINATOR (A6.5).
func caseSyncReplaced(p *probe) verdict {
	p.needsClassic()
	l, f := p.patientCompleting()
	joined := time.Now()
	// late: the sync phase's timer may have fired (a machine stalled
	// past the members' rebalance timeout), which rightly ends the wait
	// of any SyncGroup: no verdict then.
	late := func() bool { return time.Since(joined) >= time.Duration(p.patientRebalanceMs())*time.Millisecond }
	expected := "the second SyncGroup waiting until the leader's, then NONE with the follower's bytes"
	first := f.c.send(codec.SyncGroup, p.sv(), f.syncReq(nil))
	obs := fmt.Sprintf("generation %d; the follower's SyncGroup", f.gen)
	if resp, err, ok := first.within(100 * time.Millisecond); ok {
		if late() {
			return tooSlowTo(obs + " answered after the sync phase's timer could have fired: " + syncAnswerString(resp, err))
		}
		return fail(obs+" answered before the leader's: "+syncAnswerString(resp, err), "the follower's SyncGroup waiting for the leader's")
	}
	again := p.member(f.group, "")
	again.id, again.gen, again.proto = f.id, f.gen, f.proto
	second := again.c.send(codec.SyncGroup, p.sv(), again.syncReq(nil))
	obs += " waiting, its second"
	if resp, err, ok := second.within(100 * time.Millisecond); ok {
		if late() {
			return tooSlowTo(obs + " answered after the sync phase's timer could have fired: " + syncAnswerString(resp, err))
		}
		return fail(obs+" answered before the leader's SyncGroup: "+syncAnswerString(resp, err), expected)
	}
	lr := l.c.do(codec.SyncGroup, p.sv(), l.syncReq(l.leaderAssignments())).(*codec.SyncGroupResponse)
	obs += " waiting; the leader's SyncGroup " + lr.ErrorCode.String()
	resp, err, ok := second.within(p.peer.Timeout)
	if !ok {
		return fail(fmt.Sprintf("%s; the second unanswered %v after it", obs, p.peer.Timeout), expected)
	}
	obs += "; then the second: " + syncAnswerString(resp, err)
	good := err == nil && resp.(*codec.SyncGroupResponse).ErrorCode == codec.None && sameBytes(resp.(*codec.SyncGroupResponse).Assignment, f.id)
	if !(good && lr.ErrorCode == codec.None) && late() {
		return tooSlowTo("the leader's SyncGroup came after the sync phase's timer could have fired: " + obs)
	}
	return want(good && lr.ErrorCode == codec.None, obs, expected)
}

// --- B8.9: Heartbeat ---

// caseHeartbeatCompleting heartbeats both members at the new generation
// while the group awaits the leader's SyncGroup: NONE (the generation is
// decided; a member told REBALANCE_IN_PROGRESS would join yet again).
func caseHeartbeatCompleting(p *probe) verdict {
	p.needsClassic()
	l, f := p.completing(p.id("g"), true)
	lh, fh := l.heartbeat(), f.heartbeat()
	return want(lh == codec.None && fh == codec.None, fmt.Sprintf("CompletingRebalance at generation %d: the leader's heartbeat %s, the follower's %s", l.gen, lh, fh), "NONE to both")
}

// --- B8.10: timers ---

// classicExpiryWait is how long after a member's last request a case
// waits for its session to have ended: the session timeout and twice the
// grace a broker's timer steps take.
func (p *probe) classicExpiryWait() time.Duration {
	s := p.peer.ClassicSessionTimeout
	return s + 2*expiryGrace(s)
}

// stableLong forms a Stable group of two dynamic members that join with
// longRebalanceMs(wait): no join or sync phase of theirs ends by its
// timer while the case waits.
func (p *probe) stableLong(wait time.Duration) []*cmember {
	g := p.id("g")
	ms := []*cmember{p.member(g, ""), p.member(g, "")}
	for _, m := range ms {
		m.rebalanceMs = longRebalanceMs(wait)
	}
	p.form(ms...)
	return ms
}

// caseSessionKeptWaiting brings a group of two, with rebalance timeouts
// far longer than the case (so the sync phase cannot end by its timer),
// into CompletingRebalance; the follower's SyncGroup waits while the
// leader heartbeats (NONE) for the follower's session timeout and its
// grace; then the leader syncs. The follower, waiting all along, must
// still be a member: its SyncGroup answered NONE with its bytes, and no
// rebalance started meanwhile.
func caseSessionKeptWaiting(p *probe) verdict {
	p.needsClassic()
	wait := p.classicExpiryWait()
	l, f := p.rebalanced(p.stableLong(wait+p.peer.Timeout), true)
	fs := f.c.send(codec.SyncGroup, p.sv(), f.syncReq(nil))
	sent := time.Now()
	var seen []codec.ErrorCode
	for time.Since(sent) < wait {
		if e := l.heartbeat(); len(seen) == 0 || seen[len(seen)-1] != e {
			seen = append(seen, e)
		}
		time.Sleep(p.classicHeartbeat())
	}
	obs := fmt.Sprintf("the follower's SyncGroup waited %v (its session %v) while the leader's heartbeats answered %v", time.Since(sent).Round(time.Millisecond), p.peer.ClassicSessionTimeout, seen)
	if resp, err, ok := fs.within(10 * time.Millisecond); ok {
		return fail(fmt.Sprintf("%s; the follower's SyncGroup answered before the leader's: %s", obs, syncAnswerString(resp, err)), "the follower's SyncGroup waiting for the leader's")
	}
	lr := l.c.do(codec.SyncGroup, p.sv(), l.syncReq(l.leaderAssignments())).(*codec.SyncGroupResponse)
	obs += "; then the leader's sync " + lr.ErrorCode.String()
	resp, err, ok := fs.within(p.peer.Timeout / 2)
	switch {
	case !ok:
		obs += fmt.Sprintf("; the follower's SyncGroup unanswered %v after it", p.peer.Timeout/2)
	default:
		obs += "; the follower's " + syncAnswerString(resp, err)
	}
	ok = ok && err == nil && resp.(*codec.SyncGroupResponse).ErrorCode == codec.None && sameBytes(resp.(*codec.SyncGroupResponse).Assignment, f.id)
	return want(ok && lr.ErrorCode == codec.None && slices.Equal(seen, []codec.ErrorCode{codec.None}), obs,
		"the leader's heartbeats NONE throughout, then both SyncGroups NONE, the follower's with its bytes: a member waiting in SyncGroup outlives its session")
}

// caseExpiryRebalances forms a group of two (rebalance timeouts far longer
// than the case, so the leader is not removed for not rejoining), lets
// the follower fall silent, and heartbeats the leader until told
// REBALANCE_IN_PROGRESS, for at most the follower's session timeout and
// twice its grace; then the leader rejoins and must lead the next
// generation alone.
func caseExpiryRebalances(p *probe) verdict {
	p.needsClassic()
	wait := p.classicExpiryWait()
	ms := p.stableLong(wait + p.peer.Timeout)
	formed := time.Now()
	live, quiet := leaderOf(ms), followerOf(ms)
	gen := live.gen
	var seen []codec.ErrorCode
	e := codec.None
	for time.Since(formed) < wait && e == codec.None {
		time.Sleep(p.classicHeartbeat())
		if e = live.heartbeat(); len(seen) == 0 || seen[len(seen)-1] != e {
			seen = append(seen, e)
		}
	}
	obs := fmt.Sprintf("the follower silent; the leader's heartbeats over %v answered %v", time.Since(formed).Round(time.Millisecond), seen)
	expected := fmt.Sprintf("REBALANCE_IN_PROGRESS once the follower's session (%v) ended, then the leader's rejoin NONE at a generation above %d with itself alone", p.peer.ClassicSessionTimeout, gen)
	if e != codec.RebalanceInProgress {
		return fail(obs, expected)
	}
	r := live.join()
	obs += "; the leader's rejoin: " + jgString(r)
	return want(r.ErrorCode == codec.None && r.GenerationId > gen && r.Leader == live.id && len(r.Members) == 1 && r.Members[0].MemberId != quiet.id, obs, expected)
}

// caseExpiryCompletesJoin forms a group of two (rebalance timeouts four
// times the case's wait), then the follower rejoins with a changed
// subscription and the leader falls silent; the follower heartbeats on a
// second connection meanwhile (REBALANCE_IN_PROGRESS, which keeps its
// session whatever the broker does with a waiting member's). The leader's
// session ends, which leaves only the follower, waiting, and so must
// complete the join phase at once: the follower's JoinGroup answered NONE
// at the next generation, which it leads alone, within the leader's
// session timeout and twice its grace. A broker that waits for the
// phase's timer answers only long after.
func caseExpiryCompletesJoin(p *probe) verdict {
	p.needsClassic()
	wait := p.classicExpiryWait()
	ms := p.stableLong(wait + p.peer.Timeout)
	formed := time.Now()
	quiet, f := leaderOf(ms), followerOf(ms)
	gen := f.gen
	side := p.conn()
	f.meta = p.subscription("changed")
	h := f.c.send(codec.JoinGroup, p.jv(), f.joinReq())
	expected := fmt.Sprintf("the follower's JoinGroup answered once the leader's session (%v) ended: NONE at a generation above %d, led by the follower alone", p.peer.ClassicSessionTimeout, gen)
	obs := fmt.Sprintf("generation %d; the leader silent, the follower's changed rejoin", gen)
	var beats []codec.ErrorCode
	for deadline := formed.Add(wait + p.peer.Timeout/2); ; {
		resp, err, ok := h.within(p.classicHeartbeat())
		switch {
		case ok && err != nil:
			return fail(fmt.Sprintf("%s: %v (the follower's heartbeats meanwhile %v)", obs, err, beats), expected)
		case ok:
			jr := resp.(*codec.JoinGroupResponse)
			obs += fmt.Sprintf(" answered %v after the group formed: %s (the follower's heartbeats meanwhile %v)", time.Since(formed).Round(time.Millisecond), jgString(jr), beats)
			return want(jr.ErrorCode == codec.None && jr.GenerationId > gen && jr.Leader == f.id && len(jr.Members) == 1 && jr.Members[0].MemberId != quiet.id, obs, expected)
		case time.Now().After(deadline):
			return fail(fmt.Sprintf("%s unanswered %v after the group formed (the phase's timer is %dms; the follower's heartbeats meanwhile %v)",
				obs, time.Since(formed).Round(time.Millisecond), f.rebalanceMs, beats), expected)
		}
		e := side.do(codec.Heartbeat, p.hv(), f.heartbeatReq()).(*codec.HeartbeatResponse).ErrorCode
		if len(beats) == 0 || beats[len(beats)-1] != e {
			beats = append(beats, e)
		}
	}
}

// --- B8.13: DescribeGroups ---

// caseDescribedCompleting describes a group of two awaiting the leader's
// SyncGroup: CompletingRebalance, protocol type consumer, both members,
// and neither the selected protocol nor any member's metadata (every
// release shows those in Stable only). The members' assignments are not
// judged: Kafka 4.0 shows the last generation's, 3.x none (B8.15).
func caseDescribedCompleting(p *probe) verdict {
	p.needsClassic()
	p.needs(codec.DescribeGroups)
	l, f := p.completing(p.id("g"), true)
	d := p.describeClassic(l.c, l.group, true, "", "")
	noMeta := true
	for _, m := range d.Members {
		noMeta = noMeta && len(m.MemberMetadata) == 0
	}
	ids := classicMembers(d)
	both := len(ids) == 2 && slices.Contains(ids, l.id) && slices.Contains(ids, f.id)
	return want(d.ErrorCode == codec.None && d.GroupState == "CompletingRebalance" && d.ProtocolType == "consumer" && d.ProtocolData == "" && both && noMeta,
		fmt.Sprintf("%s protocol type %q (both members listed: %v, no member metadata: %v)", dgString(d), d.ProtocolType, both, noMeta),
		"NONE, CompletingRebalance, consumer, no protocol, both members without metadata")
}
