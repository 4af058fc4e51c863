package conformance

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The classic join phase's cases: how a JoinGroup makes a group and a
// member (B8.6), how a member's JoinGroup is taken in each state (B8.6), a
// static member's restart while the group rebalances (A6.2), a pending id
// with an instance id (A6.1), when a join phase starts and ends and what
// its generation is (B8.7), and the two timers only a join phase arms for
// (B8.10: a new member's, and the sync phase's for an id a restart
// replaced). Each builds the state its rule is about over TCP, as a
// client can, and judges only what a client sees.

// casesClassicJoin: the join phase's cases, beside casesClassic.
func casesClassicJoin() []Case {
	return []Case{
		{Name: "A6.1/pending-with-instance", Source: "KIP-394, Kafka 4.0", Rule: "a JoinGroup naming a pending id with a GroupInstanceId: UNKNOWN_SERVER_ERROR, and the id is not made a member", run: casePendingWithInstance},
		{Name: "A6.2/replaced-completing", Source: srcKIP345Classic, Rule: "a static member's restart while the group awaits the leader's SyncGroup (CompletingRebalance) rebalances: the restart's JoinGroup waits and is answered at the next generation", run: caseReplacedRebalancing(true)},
		{Name: "A6.2/replaced-preparing", Source: srcKIP345Classic, Rule: "a static member's restart while the group prepares a rebalance waits in the join phase like any member's JoinGroup: the phase then completes, answering it at the next generation", run: caseReplacedRebalancing(false)},
		{Name: "A6.2/old-request-fenced", Source: srcKIP345Classic, Rule: "a static member's JoinGroup still waiting when a restart of its instance replaces it is answered FENCED_INSTANCE_ID", run: caseOldRequestFenced},
		{Name: "A6.2/replaced-protocol-changes", Source: srcKIP345Classic, Rule: "a static member's restart into a Stable group with protocols that change the group's selected one rebalances: the restart's JoinGroup is answered at the next generation, with the protocol it now selects", run: caseReplacedProtocolChanges},
		{Name: "A6.5/superseded-not-coordinator", Source: "KAFKA-20938, trunk only", Rule: "a member's JoinGroup waiting when a second JoinGroup of the same member arrives is answered NOT_COORDINATOR", run: caseSecondJoin(false)},
		{Name: "B8.6/group-created", Source: srcEvery, Rule: "a new group is made at generation 0: its first join phase completes at generation 1", run: caseGroupCreated},
		{Name: "B8.6/missing-group-not-made", Source: srcEvery, Rule: "a JoinGroup with a member id to a group that does not exist makes no group: DescribeGroups then finds none (Dead)", run: caseMissingGroupNotMade},
		{Name: "B8.6/member-id-made", Source: srcEvery, Rule: "a dynamic member's id is its ClientId, \"-\" and a unique text; a static member's its instance id, \"-\" and a unique text", run: caseMemberIDMade},
		{Name: "B8.6/new-member-added", Source: srcEvery, Rule: "a new member's JoinGroup to a Stable group starts a rebalance (the member's Heartbeat: REBALANCE_IN_PROGRESS) and is answered when the phase completes", run: caseNewMemberAdded},
		{Name: "B8.6/existing-preparing", Source: srcEvery, Rule: "a member's JoinGroup while the group prepares a rebalance stores its protocols: the leader's Members carry the metadata it sent then", run: caseExistingPreparing},
		{Name: "B8.6/existing-completing-changed", Source: srcEvery, Rule: "a member rejoining with changed protocols while the group awaits the leader's SyncGroup starts a rebalance: its JoinGroup waits and is answered at the next generation", run: caseExistingCompletingChanged},
		{Name: "B8.6/join-replaced", Source: srcEvery, Rule: "a member's second JoinGroup while its first waits takes the first's place: it waits and is answered at the next generation, one member", run: caseSecondJoin(true)},
		{Name: "B8.7/rebalance-started", Source: srcEvery, Rule: "a rebalance started from CompletingRebalance answers every waiting SyncGroup REBALANCE_IN_PROGRESS at once", run: caseRebalanceStarted},
		{Name: "B8.7/completed-all-joined", Source: srcEvery, Rule: "a join phase (not a group's first) completes as soon as every member rejoined, long before its rebalance timeout", run: caseCompletedAllJoined},
		{Name: "B8.7/nobody-rejoined", Source: srcKIP345Classic, Rule: "a join phase whose timer fires with members left of which none rejoined (a static member kept) does not complete: no new generation, the group still rebalancing", Slow: true, run: caseNobodyRejoined},
		{Name: "B8.7/generation-empty", Source: srcEvery, Rule: "a join phase that completes with no member left still counts a generation: the group's next join phase is two generations on", Slow: true, run: caseGenerationEmpty},
		{Name: "B8.10/new-member-expired", Source: "KAFKA-7610, Kafka 2.2", Rule: "a new member waiting in a join phase is timed by the new-member timeout (5 minutes), not its session timeout: it is still there, and answered NONE, after its session timeout", Slow: true, run: caseNewMemberWaits},
		{Name: "B8.10/sync-expired-replaced-id", Source: "KAFKA-12890, Kafka 3.0", Rule: "a member id a static restart replaced before it sent its SyncGroup stays awaited: the sync timer rebalances the group one rebalance timeout after the join phase, although every member synced", Slow: true, run: caseSyncExpiredReplacedID},
	}
}

// joinAsNew sends a new dynamic member's JoinGroup, and again under the id
// if it is answered MEMBER_ID_REQUIRED (KIP-394): the held JoinGroup that
// makes m a member. A first answer other than MEMBER_ID_REQUIRED, or none
// yet (a broker that makes the member at once holds the JoinGroup for its
// join phase), is the one returned.
func (m *cmember) joinAsNew() *held {
	p := m.c.p
	h := m.c.send(codec.JoinGroup, p.jv(), m.joinReq())
	resp, err, ok := h.within(p.peer.Timeout)
	if !ok || err != nil {
		return h
	}
	if r := resp.(*codec.JoinGroupResponse); r.ErrorCode == codec.MemberIDRequired {
		m.id = r.MemberId
		return m.c.send(codec.JoinGroup, p.jv(), m.joinReq())
	}
	return h
}

// joinAnswer waits up to d for a held JoinGroup's answer: the answer, or
// nil and what happened instead.
func joinAnswer(h *held, d time.Duration) (*codec.JoinGroupResponse, string) {
	resp, err, ok := h.within(d)
	switch {
	case !ok:
		return nil, fmt.Sprintf("not answered within %v", d.Round(time.Millisecond))
	case err != nil:
		return nil, err.Error()
	}
	r := resp.(*codec.JoinGroupResponse)
	return r, jgString(r)
}

// rejoinAll brings a Stable group's members ms into CompletingRebalance:
// its leader rejoins first, unchanged (a rebalance), then every other
// member; each is answered NONE at the next generation, which each takes,
// and nobody syncs. It ends the case (FAIL) otherwise.
func (p *probe) rejoinAll(ms []*cmember) {
	l := leaderOf(ms)
	if l == nil {
		panic(abort{fail("no member of the setup's group leads it", "a leader")})
	}
	hs := map[*cmember]*held{l: l.c.send(codec.JoinGroup, p.jv(), l.joinReq())}
	time.Sleep(20 * time.Millisecond)
	for _, m := range ms {
		if m != l {
			hs[m] = m.c.send(codec.JoinGroup, p.jv(), m.joinReq())
		}
	}
	for _, m := range ms {
		r, what := joinAnswer(hs[m], p.classicWait())
		if r == nil || r.ErrorCode != codec.None {
			panic(abort{fail(fmt.Sprintf("the setup's rejoin of %s: %s", short(m.id), what), "NONE at the next generation")})
		}
		m.took(r)
	}
}

// patientRebalanceMs is the rebalance timeout of the members of a case
// whose steps must all come before a join or sync phase's timer fires:
// four times the suite's, so that a machine stalled for a while does not
// let the timer end the phase (removing a member that had yet to rejoin
// or sync) and make a correct broker look wrong.
func (p *probe) patientRebalanceMs() int32 { return 4 * p.classicRebalanceMs() }

// patient gives ms the patient rebalance timeout, for the JoinGroups they
// send from then on.
func (p *probe) patient(ms ...*cmember) []*cmember {
	for _, m := range ms {
		m.rebalanceMs = p.patientRebalanceMs()
	}
	return ms
}

// patientStable is stable with n dynamic members of the patient rebalance
// timeout.
func (p *probe) patientStable(n int) []*cmember {
	g := p.id("g")
	var ms []*cmember
	for i := 0; i < n; i++ {
		ms = append(ms, p.member(g, ""))
	}
	p.form(p.patient(ms...)...)
	return ms
}

// patientCompleting is completing with members of the patient rebalance
// timeout: a Stable group of two rebalanced into CompletingRebalance, its
// leader and follower answered at the next generation, nobody synced.
func (p *probe) patientCompleting() (l, f *cmember) {
	ms := p.patientStable(2)
	p.rejoinAll(ms)
	return leaderOf(ms), followerOf(ms)
}

// staticAndDynamic forms a group of a dynamic member d, which leads, and
// a static member s; patient gives both the patient rebalance timeout. d
// forms the group alone; s's join then waits for d, which rejoins at once
// (as its client would on the rebalance s's join starts, but without
// waiting for a Heartbeat to say so), so the phase completes with both
// and d, the first member, still leads; both sync. The setup so depends
// on no Heartbeat and on no timer. Should the two not be answered at one
// generation (a machine stalled between the two joins), they settle as
// clients do (form).
func (p *probe) staticAndDynamic(patient bool) (d, s *cmember) {
	g := p.id("g")
	d, s = p.member(g, ""), p.member(g, p.id("i"))
	if patient {
		p.patient(d, s)
	}
	p.form(d)
	sh := s.c.send(codec.JoinGroup, p.jv(), s.joinReq())
	time.Sleep(20 * time.Millisecond)
	dh := d.c.send(codec.JoinGroup, p.jv(), d.joinReq())
	dr, _ := joinAnswer(dh, p.classicWait())
	sr, _ := joinAnswer(sh, p.classicWait())
	if dr != nil && dr.ErrorCode == codec.None && sr != nil && sr.ErrorCode == codec.None && dr.GenerationId == sr.GenerationId {
		d.took(dr)
		s.took(sr)
		if l := leaderOf([]*cmember{d, s}); l != nil {
			l.syncQuietly(l.leaderAssignments())
			followerOf([]*cmember{d, s}).syncQuietly(nil)
		}
	}
	// Either way, as clients do: form returns once both have synced at one
	// generation, rejoining if they have not.
	p.form(d, s)
	return d, s
}

// syncQuietly sends m's SyncGroup and leaves what it got to form, which
// follows: an answer that does not parse (L28's null assignment) costs m
// its connection, as it costs a client, and m redials.
func (m *cmember) syncQuietly(as []codec.SyncGroupRequestAssignment) {
	p := m.c.p
	if _, err := m.c.try(m.c.header(codec.SyncGroup, p.sv()), m.syncReq(as)); err != nil {
		m.redial()
	}
}

// --- A6.1 ---

func casePendingWithInstance(p *probe) verdict {
	p.needsJoin(5, "KIP-345")
	m := p.member(p.id("g"), "")
	first := m.join()
	notAdopted394(first, "first join")
	if first.ErrorCode != codec.MemberIDRequired {
		return fail("first join: "+jgString(first), "MEMBER_ID_REQUIRED")
	}
	m.id, m.instance = first.MemberId, codec.Str(p.id("i"))
	expected := "UNKNOWN_SERVER_ERROR, and no member made"
	r, what := joinAnswer(m.c.send(codec.JoinGroup, p.jv(), m.joinReq()), p.classicWait())
	obs := "the pending id's join with an instance id: " + what
	if r == nil || r.ErrorCode != codec.UnknownServerError {
		return fail(obs, expected)
	}
	if p.max(codec.DescribeGroups) < 0 {
		return want(true, obs, expected)
	}
	d := p.describeClassic(m.c, m.group, true, "", "")
	return want(len(d.Members) == 0, obs+"; "+dgString(d), expected)
}

// --- A6.2 ---

// caseReplacedRebalancing restarts the static member of a group of a
// dynamic and a static member while the group rebalances: in
// CompletingRebalance (completing: both rejoined, nobody synced), where
// the restart starts a rebalance that the dynamic member's rejoin then
// completes; or in PreparingRebalance (the dynamic member rejoined with a
// changed subscription), where the restart is the last join the phase
// waits for. Either way the restart is answered at the next generation,
// never at once at the current one.
func caseReplacedRebalancing(completing bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needsJoin(5, "KIP-345")
		d, s := p.staticAndDynamic(true)
		var dh *held
		state := "PreparingRebalance"
		if completing {
			state = "CompletingRebalance"
			p.rejoinAll([]*cmember{d, s})
		} else {
			d.meta = p.subscription("changed")
			dh = d.c.send(codec.JoinGroup, p.jv(), d.joinReq())
			if r, what := joinAnswer(dh, 100*time.Millisecond); r != nil {
				return fail("the dynamic member's changed rejoin: "+what, "a JoinGroup waiting for the static member")
			}
		}
		gen := s.gen
		n := p.member(s.group, s.instance.Value)
		n.meta = s.meta
		nh := n.c.send(codec.JoinGroup, p.jv(), n.joinReq())
		obs := fmt.Sprintf("generation %d in %s; the static member's restart", gen, state)
		if completing {
			// The restart waits for the rebalance it started: the
			// dynamic member is told, and its rejoin completes the phase.
			time.Sleep(20 * time.Millisecond)
			hb := d.heartbeat()
			obs += "; the dynamic member's heartbeat " + hb.String()
			dh = d.c.send(codec.JoinGroup, p.jv(), d.joinReq())
		}
		r, what := joinAnswer(nh, p.classicWait())
		obs += ": " + what
		_, dwhat := joinAnswer(dh, p.classicWait())
		obs += "; the dynamic member's join: " + dwhat
		return want(r != nil && r.ErrorCode == codec.None && r.GenerationId > gen, obs,
			fmt.Sprintf("the restart answered NONE at a later generation than %d (not at once at %d)", gen, gen))
	}
}

func caseOldRequestFenced(p *probe) verdict {
	p.needsJoin(5, "KIP-345")
	d, s := p.staticAndDynamic(true)
	// The static member rejoins changed: a rebalance, its JoinGroup
	// waiting for the dynamic member's.
	s.meta = p.subscription("changed")
	sh := s.c.send(codec.JoinGroup, p.jv(), s.joinReq())
	if r, what := joinAnswer(sh, 100*time.Millisecond); r != nil {
		return fail("the static member's changed rejoin: "+what, "a JoinGroup waiting for the other member")
	}
	n := p.member(s.group, s.instance.Value)
	n.meta = s.meta
	nh := n.c.send(codec.JoinGroup, p.jv(), n.joinReq())
	old, what := joinAnswer(sh, p.peer.Timeout)
	obs := "the replaced member's waiting join, after the restart: " + what
	// The dynamic member's rejoin completes the phase, so nothing of the
	// case is left waiting.
	d.join()
	_, nwhat := joinAnswer(nh, p.classicWait())
	obs += "; the restart's join: " + nwhat
	return want(old != nil && old.ErrorCode == codec.FencedInstanceID, obs, "FENCED_INSTANCE_ID to the replaced member's waiting JoinGroup")
}

// caseReplacedProtocolChanges forms a group of one static member
// offering range alone, then restarts it (MemberId "", its instance)
// offering roundrobin first and range second. range stays a protocol
// every member lists (so the join is taken), but the one member now votes
// roundrobin: the selected protocol would change, so the restart must
// rebalance (A6.2) and be answered at the next generation, its
// ProtocolName roundrobin. A broker that answers at once at the current
// generation leaves the group on a protocol nobody votes for.
func caseReplacedProtocolChanges(p *probe) verdict {
	p.needsJoin(5, "KIP-345")
	s := p.member(p.id("g"), p.id("i"))
	p.form(p.patient(s)...)
	gen := s.gen
	n := p.member(s.group, s.instance.Value)
	p.patient(n)
	req := n.joinReq()
	req.Protocols = []codec.JoinGroupRequestProtocol{{Name: "roundrobin", Metadata: s.meta}, {Name: "range", Metadata: s.meta}}
	r, what := joinAnswer(n.c.send(codec.JoinGroup, p.jv(), req), p.classicWait())
	obs := fmt.Sprintf("a group of one static member at generation %d on range; its restart offering roundrobin, then range: %s", gen, what)
	if r != nil {
		obs += fmt.Sprintf(" protocol=%q", r.ProtocolName.Value)
	}
	return want(r != nil && r.ErrorCode == codec.None && r.GenerationId > gen && r.ProtocolName.Value == "roundrobin", obs,
		fmt.Sprintf("NONE at a generation above %d (a rebalance, not an answer at once), protocol roundrobin", gen))
}

// --- A6.5 and B8.6: a member's second JoinGroup ---

// caseSecondJoin has a follower of a Stable group of two rejoin with a
// changed subscription (its JoinGroup waits for the leader's), then send
// the same join again on a connection of its own, and the leader rejoin.
// replaced judges the second JoinGroup (B8.6: it waits in the first's
// place and is answered at the next generation); otherwise the first
// (A6.5: answered NOT_COORDINATOR, as Kafka's trunk does; released Kafka
// never answers it, which --kafka-version makes N/A).
func caseSecondJoin(replaced bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		p.needsClassic()
		ms := p.patientStable(2)
		f, l := followerOf(ms), leaderOf(ms)
		gen := f.gen
		f.meta = p.subscription("changed")
		first := f.c.send(codec.JoinGroup, p.jv(), f.joinReq())
		if r, what := joinAnswer(first, 100*time.Millisecond); r != nil {
			return fail("the follower's changed rejoin: "+what, "a JoinGroup waiting for the leader")
		}
		again := p.member(f.group, "")
		again.id, again.meta, again.rebalanceMs = f.id, f.meta, f.rebalanceMs
		second := again.c.send(codec.JoinGroup, p.jv(), again.joinReq())
		early, ewhat := joinAnswer(second, 200*time.Millisecond)
		obs := fmt.Sprintf("generation %d; the follower's second join", gen)
		if early != nil {
			obs += " answered before the leader rejoined: " + ewhat
		}
		lr := l.join()
		obs += "; the leader's rejoin: " + jgString(lr)
		if replaced {
			r, what := joinAnswer(second, p.classicWait())
			obs += "; the second join: " + what
			return want(r != nil && r.ErrorCode == codec.None && r.GenerationId > gen && r.MemberId == f.id && lr.ErrorCode == codec.None && len(lr.Members) == 2, obs,
				fmt.Sprintf("the second join answered NONE at generation %d under the follower's id, the leader's Members listing 2", gen+1))
		}
		r, what := joinAnswer(first, p.peer.Timeout)
		obs += "; the first join: " + what
		return want(r != nil && r.ErrorCode == codec.NotCoordinator, obs, "NOT_COORDINATOR to the first join once the second arrived")
	}
}

// --- B8.6 ---

func caseGroupCreated(p *probe) verdict {
	p.needsClassic()
	m := p.member(p.id("g"), "")
	r, what := joinAnswer(m.joinAsNew(), p.classicWait())
	return want(r != nil && r.ErrorCode == codec.None && r.GenerationId == 1, "the first member's join to a new group: "+what, "NONE at generation 1 (the group made at 0)")
}

func caseMissingGroupNotMade(p *probe) verdict {
	p.needsClassic()
	p.needs(codec.DescribeGroups)
	m := p.member(p.id("g"), "")
	m.id = p.id("m")
	r, what := joinAnswer(m.c.send(codec.JoinGroup, p.jv(), m.joinReq()), p.classicWait())
	obs := "join with a member id to a missing group: " + what
	if r == nil || r.ErrorCode != codec.UnknownMemberID {
		return fail(obs, "UNKNOWN_MEMBER_ID")
	}
	d := p.describeClassic(m.c, m.group, true, "", "")
	code := codec.None
	if p.dv() >= 6 {
		code = codec.GroupIDNotFound
	}
	return want(d.GroupState == "Dead" && d.ErrorCode == code && len(d.Members) == 0, obs+"; "+dgString(d),
		fmt.Sprintf("no group made: DescribeGroups v%d %s, Dead", p.dv(), code))
}

// caseMemberIDMade makes a dynamic member and a static one and reads the
// ids the broker made. A dynamic id is judged only when the JoinGroup's
// own header carried the ClientId: the suite's connections send it on
// their first request only (KIP-1313), and over SASL that is the
// exchange's ApiVersions, so a released broker makes the id from a
// JoinGroup with no ClientId.
func caseMemberIDMade(p *probe) verdict {
	p.needsClassic()
	m := p.member(p.id("g"), "")
	h := m.c.header(codec.JoinGroup, p.jv())
	resp, err := m.c.try(h, m.joinReq())
	if err != nil {
		return failOrOwn("JoinGroup", err, "a member id")
	}
	r := resp.(*codec.JoinGroupResponse)
	obs := "a new dynamic member's join: " + jgString(r)
	if r.MemberId == "" {
		return fail(obs, "a member id")
	}
	ok, judged := true, false
	if h.ClientId.Valid {
		obs = fmt.Sprintf("ClientId %q, %s (id %q)", h.ClientId.Value, obs, r.MemberId)
		ok, judged = madeFrom(r.MemberId, h.ClientId.Value), true
	} else {
		obs += fmt.Sprintf(" (id %q; the JoinGroup carried no ClientId, its connection's first request did: not judged)", r.MemberId)
	}
	if p.jv() >= 5 {
		inst := p.id("i")
		s := p.member(p.id("g"), inst)
		sr, swhat := joinAnswer(s.c.send(codec.JoinGroup, p.jv(), s.joinReq()), p.classicWait())
		obs += fmt.Sprintf("; instance %q, a new static member's join: %s", inst, swhat)
		if sr == nil || sr.MemberId == "" {
			return fail(obs, "a member id")
		}
		obs += fmt.Sprintf(" (id %q)", sr.MemberId)
		ok, judged = ok && madeFrom(sr.MemberId, inst), true
	}
	if !judged {
		return skip(obs + "; and static members need JoinGroup v5, which the broker does not offer")
	}
	return want(ok, obs, "each id its ClientId (dynamic) or instance id (static), \"-\", and more")
}

// madeFrom reports whether id is prefix, "-" and something more.
func madeFrom(id, prefix string) bool {
	rest, ok := strings.CutPrefix(id, prefix+"-")
	return ok && rest != ""
}

func caseNewMemberAdded(p *probe) verdict {
	p.needsClassic()
	ms := p.stable(p.id("g"), 1)
	l := ms[0]
	gen := l.gen
	x := p.patient(p.member(l.group, ""))[0]
	h := x.joinAsNew()
	if r, what := joinAnswer(h, 100*time.Millisecond); r != nil {
		return fail("the new member's join: "+what, "a JoinGroup waiting for the rebalance it starts")
	}
	hb := l.heartbeat()
	obs := fmt.Sprintf("generation %d; while the new member's join waits, the member's heartbeat %s", gen, hb)
	lr := l.join()
	obs += "; its rejoin " + jgString(lr)
	r, what := joinAnswer(h, p.classicWait())
	obs += "; the new member's join " + what
	return want(hb == codec.RebalanceInProgress && r != nil && r.ErrorCode == codec.None && r.GenerationId > gen, obs,
		fmt.Sprintf("REBALANCE_IN_PROGRESS, then the new member answered NONE at generation %d", gen+1))
}

func caseExistingPreparing(p *probe) verdict {
	p.needsClassic()
	ms := p.patientStable(2)
	l, f := leaderOf(ms), followerOf(ms)
	lh := l.c.send(codec.JoinGroup, p.jv(), l.joinReq())
	time.Sleep(20 * time.Millisecond)
	f.meta = p.subscription("changed")
	fr := f.join()
	lr, what := joinAnswer(lh, p.classicWait())
	obs := "the leader's unchanged rejoin: " + what + "; then the follower's changed rejoin: " + jgString(fr)
	var members []codec.JoinGroupResponseMember
	for _, r := range []*codec.JoinGroupResponse{lr, fr} {
		if r != nil && len(r.Members) > 0 {
			members = r.Members
		}
	}
	i := slices.IndexFunc(members, func(m codec.JoinGroupResponseMember) bool { return m.MemberId == f.id })
	changed := i >= 0 && bytes.Equal(members[i].Metadata, f.meta)
	obs += fmt.Sprintf("; the follower in the leader's Members: %v, with the metadata it sent last: %v", i >= 0, changed)
	return want(fr.ErrorCode == codec.None && changed, obs, "the follower listed to the leader with the changed metadata")
}

func caseExistingCompletingChanged(p *probe) verdict {
	p.needsClassic()
	l, f := p.patientCompleting()
	gen := l.gen
	f.meta = p.subscription("changed")
	fh := f.c.send(codec.JoinGroup, p.jv(), f.joinReq())
	time.Sleep(20 * time.Millisecond)
	hb := l.heartbeat()
	obs := fmt.Sprintf("generation %d awaiting the leader's sync; after the follower's changed rejoin the leader's heartbeat %s", gen, hb)
	lr := l.join()
	obs += "; the leader's rejoin " + jgString(lr)
	r, what := joinAnswer(fh, p.classicWait())
	obs += "; the follower's changed rejoin " + what
	return want(hb == codec.RebalanceInProgress && r != nil && r.ErrorCode == codec.None && r.GenerationId > gen, obs,
		fmt.Sprintf("a rebalance: REBALANCE_IN_PROGRESS, then the changed rejoin answered NONE at generation %d", gen+1))
}

// --- B8.7 ---

func caseRebalanceStarted(p *probe) verdict {
	p.needsClassic()
	l, f := p.patientCompleting()
	fs := f.c.send(codec.SyncGroup, p.sv(), f.syncReq(nil))
	if _, _, early := fs.within(100 * time.Millisecond); early {
		return fail("the follower's SyncGroup answered before the leader's", "a SyncGroup waiting for the leader's (B8.8)")
	}
	l.meta = p.subscription("changed")
	lh := l.c.send(codec.JoinGroup, p.jv(), l.joinReq())
	resp, err, ok := fs.within(p.peer.Timeout)
	obs := fmt.Sprintf("generation %d, the follower's SyncGroup waiting; the leader rejoins changed; the SyncGroup: ", l.gen)
	switch {
	case !ok:
		obs += fmt.Sprintf("not answered within %v", p.peer.Timeout)
	case err != nil:
		obs += err.Error()
	default:
		obs += resp.(*codec.SyncGroupResponse).ErrorCode.String()
	}
	// The follower's rejoin completes the phase the leader's started.
	f.join()
	joinAnswer(lh, p.classicWait())
	return want(ok && err == nil && resp.(*codec.SyncGroupResponse).ErrorCode == codec.RebalanceInProgress, obs, "REBALANCE_IN_PROGRESS at once")
}

// completedAllJoinedRebalance is the rebalance timeout
// caseCompletedAllJoined's members send: a phase that waited for its timer
// would last this long, and one that completes when every member joined
// takes a round trip.
const completedAllJoinedRebalance = 20 * time.Second

func caseCompletedAllJoined(p *probe) verdict {
	p.needsClassic()
	g := p.id("g")
	ms := []*cmember{p.member(g, ""), p.member(g, "")}
	for _, m := range ms {
		m.rebalanceMs = int32(completedAllJoinedRebalance.Milliseconds())
	}
	p.form(ms...)
	l, f := leaderOf(ms), followerOf(ms)
	gen := l.gen
	lh := l.c.send(codec.JoinGroup, p.jv(), l.joinReq())
	time.Sleep(20 * time.Millisecond)
	sent := time.Now()
	fh := f.c.send(codec.JoinGroup, p.jv(), f.joinReq())
	limit := completedAllJoinedRebalance / 2
	fr, fwhat := joinAnswer(fh, limit)
	took := time.Since(sent)
	lr, lwhat := joinAnswer(lh, p.peer.Timeout)
	obs := fmt.Sprintf("rebalance timeout %v; the leader rejoined, then the follower, answered %v after it: %s; the leader's: %s",
		completedAllJoinedRebalance, took.Round(time.Millisecond), fwhat, lwhat)
	return want(fr != nil && fr.ErrorCode == codec.None && fr.GenerationId > gen && lr != nil && lr.ErrorCode == codec.None && lr.GenerationId == fr.GenerationId, obs,
		fmt.Sprintf("both answered NONE at generation %d within %v of the last rejoin (long before the timer)", gen+1, limit))
}

// leave removes m by its own LeaveGroup (ending the case unless NONE).
func (m *cmember) leave() {
	p := m.c.p
	if p.max(codec.LeaveGroup) < 0 {
		panic(abort{skip("needs LeaveGroup, which the broker does not offer")})
	}
	r := m.c.leaveGroup(p.lv(), m.group, codec.LeaveGroupMember{MemberId: m.id, GroupInstanceId: m.instance})
	e := r.ErrorCode
	if p.lv() >= 3 && len(r.Members) == 1 && e == codec.None {
		e = r.Members[0].ErrorCode
	}
	if e != codec.None {
		panic(abort{fail("the setup's LeaveGroup: "+lgString(r), "NONE")})
	}
}

// caseNobodyRejoined forms a group of a dynamic and a static member; the
// dynamic one leaves (a rebalance) and the static one heartbeats (so its
// session lasts) but never rejoins. Past the phase's timer it is still the
// group's only member and nobody rejoined: the phase must not complete, so
// the static member's Heartbeat at its generation is still
// REBALANCE_IN_PROGRESS, not ILLEGAL_GENERATION.
func caseNobodyRejoined(p *probe) verdict {
	p.needsJoin(5, "KIP-345")
	d, s := p.staticAndDynamic(false)
	gen := s.gen
	d.leave()
	left := time.Now()
	rebalance := time.Duration(p.classicRebalanceMs()) * time.Millisecond
	var seen []codec.ErrorCode
	for end := left.Add(rebalance + expiryGrace(rebalance)); time.Now().Before(end); time.Sleep(p.classicHeartbeat()) {
		if e := s.heartbeat(); len(seen) == 0 || seen[len(seen)-1] != e {
			seen = append(seen, e)
		}
	}
	e := s.heartbeat()
	obs := fmt.Sprintf("generation %d; the dynamic member left; the static member, not rejoining, heartbeated for %v: %v; then %s",
		gen, time.Since(left).Round(time.Millisecond), seen, e)
	return want(e == codec.RebalanceInProgress && !slices.Contains(seen, codec.IllegalGeneration), obs,
		fmt.Sprintf("REBALANCE_IN_PROGRESS throughout: no generation after %d while nobody rejoined", gen))
}

// caseGenerationEmpty forms a group of two dynamic members at generation
// G; one leaves (a rebalance) and the other never rejoins, so the phase's
// timer removes it and completes with nobody: generation G+1, Empty. A new
// member's join then completes the next phase at G+2.
func caseGenerationEmpty(p *probe) verdict {
	p.needsClassic()
	ms := p.stable(p.id("g"), 2)
	gone, quiet := ms[0], ms[1]
	gen := gone.gen
	gone.leave()
	left := time.Now()
	rebalance := time.Duration(p.classicRebalanceMs()) * time.Millisecond
	time.Sleep(rebalance + expiryGrace(rebalance))
	// The quiet member is gone once the phase's timer fired (or its
	// session ended): poll for it, as its client would.
	e := quiet.heartbeat()
	for end := time.Now().Add(p.classicWait()); e != codec.UnknownMemberID && time.Now().Before(end); time.Sleep(p.classicHeartbeat()) {
		e = quiet.heartbeat()
	}
	obs := fmt.Sprintf("generation %d; one member left, the other never rejoined: its heartbeat %v after the leave %s", gen, time.Since(left).Round(time.Millisecond), e)
	if e != codec.UnknownMemberID {
		return fail(obs, "the member that did not rejoin removed")
	}
	x := p.member(gone.group, "")
	r, what := joinAnswer(x.joinAsNew(), p.classicWait())
	obs += "; a new member's join: " + what
	return want(r != nil && r.ErrorCode == codec.None && r.GenerationId == gen+2, obs,
		fmt.Sprintf("NONE at generation %d (the empty phase counted %d)", gen+2, gen+1))
}

// --- B8.10 ---

// newMemberRebalanceSessions is how many session timeouts the new member
// of caseNewMemberWaits gives as its rebalance timeout: the phase it
// starts must outlast its session by far, so that only the new-member
// timeout keeps it.
const newMemberRebalanceSessions = 4

// caseNewMemberWaits adds a new member to a Stable group of one, with a
// rebalance timeout of several sessions; the old member heartbeats, not
// rejoining, for the new member's session timeout and a grace, then
// rejoins: the new member's JoinGroup, waiting all that time, must be
// answered NONE (a broker that timed it by its session removed it,
// answering UNKNOWN_MEMBER_ID).
func caseNewMemberWaits(p *probe) verdict {
	p.needsClassic()
	ms := p.stable(p.id("g"), 1)
	l := ms[0]
	gen := l.gen
	x := p.member(l.group, "")
	x.rebalanceMs = int32(newMemberRebalanceSessions * p.peer.ClassicSessionTimeout.Milliseconds())
	h := x.joinAsNew()
	added := time.Now()
	var seen []codec.ErrorCode
	for end := added.Add(p.peer.ClassicSessionTimeout + expiryGrace(p.peer.ClassicSessionTimeout)); time.Now().Before(end); time.Sleep(p.classicHeartbeat()) {
		if e := l.heartbeat(); len(seen) == 0 || seen[len(seen)-1] != e {
			seen = append(seen, e)
		}
	}
	waited := time.Since(added)
	lr := l.join()
	r, what := joinAnswer(h, p.classicWait())
	obs := fmt.Sprintf("session %v, the new member's rebalance timeout %dms; the old member heartbeated %v for %v, then rejoined: %s; the new member's join: %s",
		p.peer.ClassicSessionTimeout, x.rebalanceMs, seen, waited.Round(time.Millisecond), jgString(lr), what)
	return want(r != nil && r.ErrorCode == codec.None && r.GenerationId > gen, obs,
		fmt.Sprintf("the new member's join answered NONE at generation %d: kept past its session", gen+1))
}

// caseSyncExpiredReplacedID forms a group led by a dynamic member with a
// static follower, rebalances it into CompletingRebalance, and has the
// leader sync (Stable) but restarts the static follower before it syncs;
// the restart (answered at the current generation) syncs, and both
// heartbeat. The replaced id was still awaited: one rebalance timeout
// after the join phase the group must rebalance (a Heartbeat
// REBALANCE_IN_PROGRESS), although every member synced.
func caseSyncExpiredReplacedID(p *probe) verdict {
	p.needsJoin(5, "KIP-345")
	d, s := p.staticAndDynamic(true)
	if d.leader != d.id {
		return skip(fmt.Sprintf("the broker made %s leader, not the dynamic member that made the group: the case needs a static follower", short(d.leader)))
	}
	p.rejoinAll([]*cmember{d, s})
	completed := time.Now()
	if sy := d.c.do(codec.SyncGroup, p.sv(), d.syncReq(d.leaderAssignments())).(*codec.SyncGroupResponse); sy.ErrorCode != codec.None {
		return fail("the leader's sync: "+sy.ErrorCode.String(), "NONE")
	}
	n := p.member(s.group, s.instance.Value)
	n.meta = s.meta
	r := n.join()
	if r.ErrorCode != codec.None || r.GenerationId != s.gen {
		return fail("the restart of the static follower before it synced: "+jgString(r), fmt.Sprintf("NONE at the current generation %d (A6.2)", s.gen))
	}
	sy := n.c.do(codec.SyncGroup, p.sv(), n.syncReq(nil)).(*codec.SyncGroupResponse)
	obs := fmt.Sprintf("generation %d; the leader synced, the static follower restarted before it synced: %s; the restart's sync %s", s.gen, jgString(r), sy.ErrorCode)
	rebalance := time.Duration(p.patientRebalanceMs()) * time.Millisecond
	var seen []string
	rebalanced := false
	for end := completed.Add(rebalance + expiryGrace(rebalance)); !rebalanced && time.Now().Before(end); time.Sleep(p.classicHeartbeat()) {
		for _, m := range []*cmember{d, n} {
			e := m.heartbeat()
			if e == codec.RebalanceInProgress {
				rebalanced = true
			}
			if s := e.String(); len(seen) == 0 || seen[len(seen)-1] != s {
				seen = append(seen, s)
			}
		}
	}
	if !rebalanced {
		// The last heartbeat may have been sent before the deadline on a
		// stalled machine: one more, sent after it, judges.
		e := d.heartbeat()
		rebalanced = e == codec.RebalanceInProgress
		seen = append(seen, e.String())
	}
	obs += fmt.Sprintf("; heartbeats for %v after the join phase: %v", time.Since(completed).Round(time.Millisecond), seen)
	return want(sy.ErrorCode == codec.None && rebalanced, obs, "REBALANCE_IN_PROGRESS once the sync timer fired: the replaced id still awaited")
}
