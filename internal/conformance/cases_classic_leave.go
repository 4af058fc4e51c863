package conformance

import (
	"fmt"
	"slices"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The classic LeaveGroup cases beyond cases_classic.go's (docs/PROTOCOL.md
// A6.3): the entries that name nobody, a static member removed by its
// member id alone, and what a removal does to the requests its group holds
// (a waiting SyncGroup dropped; a join phase left with only waiting
// members completed).

// casesClassicLeave: A6.3's rows and consequences no other case reaches.
func casesClassicLeave() []Case {
	return []Case{
		{Name: "A6.3/empty-unknown", Source: srcKIP345, Rule: "LeaveGroup v3+ entries {MemberId \"\", null} and {MemberId \"\", an instance nobody holds} to a classic group: UNKNOWN_MEMBER_ID each, the member stays", run: caseClassicLeaveEmptyUnknown},
		{Name: "A6.3/unknown-member", Source: srcEvery, Rule: "LeaveGroup naming a member id nobody holds (no instance id) to a classic group: UNKNOWN_MEMBER_ID, the member stays", run: caseClassicLeaveUnknownMember},
		{Name: "A6.3/static-removed-by-id", Source: srcKIP345Classic, Rule: "LeaveGroup naming a static member by its member id alone (no instance id) removes it, NONE, and the group rebalances", run: caseClassicStaticRemovedByID},
		{Name: "A6.3/removed-sync-unanswered", Source: srcEvery, Rule: "a member removed by LeaveGroup while its SyncGroup waits for the leader's never has that SyncGroup answered", run: caseRemovedSyncUnanswered},
		{Name: "A6.3/leave-completes-join", Source: srcEvery, Rule: "a LeaveGroup during a rebalance that leaves only members whose JoinGroups wait completes the join phase at once, not at its rebalance timeout", run: caseLeaveCompletesJoin},
	}
}

// leaveCode is the code a LeaveGroup answer gives its one entry: the
// entry's from v3, the top level's below.
func leaveCode(v int16, r *codec.LeaveGroupResponse) codec.ErrorCode {
	if v >= 3 {
		if len(r.Members) != 1 {
			return codec.ErrorCode(-2) // no single entry: never a code a rule wants
		}
		return r.Members[0].ErrorCode
	}
	return r.ErrorCode
}

// caseClassicLeaveEmptyUnknown sends one LeaveGroup v3+ with the two
// entries of MemberId "" that name nobody, to a group of one static
// member: each is UNKNOWN_MEMBER_ID (neither is the administrative
// removal), and the member stays.
func caseClassicLeaveEmptyUnknown(p *probe) verdict {
	p.needsJoin(5, "KIP-345")
	if p.lv() < 3 {
		return skip("needs LeaveGroup v3; the broker offers " + p.offered(codec.LeaveGroup))
	}
	s := p.stable(p.id("g"), 0, p.id("i"))[0]
	r := s.c.leaveGroup(p.lv(), s.group, codec.LeaveGroupMember{MemberId: "", GroupInstanceId: codec.Null},
		codec.LeaveGroupMember{MemberId: "", GroupInstanceId: codec.Str(p.id("i"))})
	ok := r.ErrorCode == codec.None && len(r.Members) == 2
	for _, m := range r.Members {
		ok = ok && m.ErrorCode == codec.UnknownMemberID
	}
	hb := s.heartbeat()
	return want(ok && hb == codec.None, fmt.Sprintf("entries {\"\", null} and {\"\", an unheld instance}: %s; the member's heartbeat %s", lgString(r), hb),
		"top NONE, UNKNOWN_MEMBER_ID for each entry, the member kept")
}

// caseClassicLeaveUnknownMember names a member id nobody holds, without
// an instance id, at the broker's highest LeaveGroup version (v0-v2: the
// top-level code): UNKNOWN_MEMBER_ID, and the group's member stays.
func caseClassicLeaveUnknownMember(p *probe) verdict {
	p.needsClassic()
	v := p.lv()
	if v < 0 {
		return skip("needs LeaveGroup, which the broker does not offer")
	}
	m := p.stable(p.id("g"), 1)[0]
	r := m.c.leaveGroup(v, m.group, codec.LeaveGroupMember{MemberId: p.id("m"), GroupInstanceId: codec.Null})
	e := leaveCode(v, r)
	hb := m.heartbeat()
	return want(e == codec.UnknownMemberID && hb == codec.None, fmt.Sprintf("LeaveGroup v%d naming an id nobody holds: %s; the member's heartbeat %s", v, lgString(r), hb),
		"UNKNOWN_MEMBER_ID, the member kept")
}

// caseClassicStaticRemovedByID removes a static member by its member id
// with no instance id (as Kafka's Java client leaves, and as LeaveGroup
// v0-v2 can only say): the member check passes without an instance, so
// the member is removed, NONE, and the other member is told to rejoin.
func caseClassicStaticRemovedByID(p *probe) verdict {
	p.needsJoin(5, "KIP-345")
	v := p.lv()
	if v < 0 {
		return skip("needs LeaveGroup, which the broker does not offer")
	}
	ms := p.stable(p.id("g"), 1, p.id("i"))
	d, s := ms[0], ms[1]
	r := d.c.leaveGroup(v, s.group, codec.LeaveGroupMember{MemberId: s.id, GroupInstanceId: codec.Null})
	e := leaveCode(v, r)
	hb := d.heartbeat()
	obs := fmt.Sprintf("LeaveGroup v%d naming the static member's id, no instance: %s; the other member's heartbeat %s", v, lgString(r), hb)
	g := p.describeClassic(d.c, s.group, e == codec.None && hb == codec.RebalanceInProgress, obs, "NONE and a rebalance")
	return want(e == codec.None && hb == codec.RebalanceInProgress && !slices.Contains(classicMembers(g), s.id), obs+"; "+dgString(g),
		"NONE, the static member gone, the other member told REBALANCE_IN_PROGRESS")
}

// caseRemovedSyncUnanswered brings a group of two into CompletingRebalance,
// has the follower's SyncGroup wait for the leader's, and removes the
// follower by LeaveGroup: its SyncGroup must stay unanswered (Kafka drops
// it; its client times out), for twice the rebalance timeout, in which
// the group's join phase ends without it. A broker that answers it (with
// an error or an assignment) gives a removed member an answer Kafka never
// gives; one that closes the connection instead (ghostcheck serve, which
// frees the connection so) answers nothing, as Kafka.
func caseRemovedSyncUnanswered(p *probe) verdict {
	p.needsClassic()
	l, f := p.completing(p.id("g"), true)
	fs := f.c.send(codec.SyncGroup, p.sv(), f.syncReq(nil))
	if resp, err, ok := fs.within(100 * time.Millisecond); ok {
		return fail(fmt.Sprintf("the follower's SyncGroup answered before the leader's (%s)", syncAnswerString(resp, err)), "a follower's SyncGroup waiting for the leader's")
	}
	r := l.c.leaveGroup(p.lv(), f.group, codec.LeaveGroupMember{MemberId: f.id, GroupInstanceId: codec.Null})
	obs := "the follower's SyncGroup waits; leave naming it: " + lgString(r)
	if e := leaveCode(p.lv(), r); e != codec.None {
		return fail(obs, "NONE to the leave")
	}
	wait := max(2*time.Duration(p.classicRebalanceMs())*time.Millisecond, time.Second)
	resp, err, ok := fs.within(wait)
	switch {
	case ok && err == nil:
		return fail(fmt.Sprintf("%s; the removed member's SyncGroup then answered: %s", obs, syncAnswerString(resp, err)), "the removed member's SyncGroup never answered")
	case ok:
		// No answer: the broker closed the connection, or the wait ran
		// into the connection's own timeout.
		return pass(fmt.Sprintf("%s; the removed member's SyncGroup got no answer (%v)", obs, err))
	}
	return pass(fmt.Sprintf("%s; the removed member's SyncGroup unanswered %v later", obs, wait))
}

// syncAnswerString puts a held SyncGroup's answer in words.
func syncAnswerString(resp codec.Message, err error) string {
	if err != nil {
		return err.Error()
	}
	r := resp.(*codec.SyncGroupResponse)
	return fmt.Sprintf("%s, %d bytes", r.ErrorCode, len(r.Assignment))
}

// longRebalanceMs is the RebalanceTimeoutMs of members whose case must
// tell a join phase completed by a request from one completed by its
// timer: four times what the case waits, so the timer cannot end the
// phase within the wait however slow the machine.
func longRebalanceMs(wait time.Duration) int32 {
	return int32(min(4*wait.Milliseconds(), 1<<30))
}

// caseLeaveCompletesJoin forms a group of two whose members join with a
// rebalance timeout four times the case's wait; the follower rejoins with
// a changed subscription, starting a rebalance the leader does not join;
// LeaveGroup then removes the leader, which leaves only the follower, and
// it waits: the phase must complete at once, answering the follower's
// JoinGroup with the next generation, which it leads alone. A broker that
// waits for the timer answers it only after the case's wait.
func caseLeaveCompletesJoin(p *probe) verdict {
	p.needsClassic()
	g := p.id("g")
	ms := []*cmember{p.member(g, ""), p.member(g, "")}
	wait := p.peer.Timeout
	for _, m := range ms {
		m.rebalanceMs = longRebalanceMs(wait)
	}
	p.form(ms...)
	l, f := leaderOf(ms), followerOf(ms)
	gen := f.gen
	f.meta = p.subscription("changed")
	h := f.c.send(codec.JoinGroup, p.jv(), f.joinReq())
	if resp, err, ok := h.within(100 * time.Millisecond); ok {
		return fail(fmt.Sprintf("the follower's changed rejoin answered at once (%v, %v)", resp, err), "a JoinGroup waiting for the leader to rejoin")
	}
	r := l.c.leaveGroup(p.lv(), g, codec.LeaveGroupMember{MemberId: l.id, GroupInstanceId: codec.Null})
	obs := fmt.Sprintf("generation %d; the follower's changed rejoin waits; leave naming the leader: %s", gen, lgString(r))
	if e := leaveCode(p.lv(), r); e != codec.None {
		return fail(obs, "NONE to the leave")
	}
	left := time.Now()
	expected := fmt.Sprintf("the follower's JoinGroup answered at once: NONE at a generation above %d, led by the follower alone", gen)
	resp, err, ok := h.within(wait)
	switch {
	case !ok:
		return fail(fmt.Sprintf("%s; the follower's JoinGroup unanswered %v later (the phase's timer is %dms)", obs, wait, f.rebalanceMs), expected)
	case err != nil:
		return fail(obs+"; the follower's JoinGroup: "+err.Error(), expected)
	}
	jr := resp.(*codec.JoinGroupResponse)
	obs += fmt.Sprintf("; the follower's JoinGroup answered %v later: %s", time.Since(left).Round(time.Millisecond), jgString(jr))
	return want(jr.ErrorCode == codec.None && jr.GenerationId > gen && jr.Leader == f.id && len(jr.Members) == 1, obs, expected)
}
