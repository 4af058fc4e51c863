package conformance

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Cases for rules a broker can break without failing the cases written
// first: a later request's own ClientId (A2), the reserved client instance
// ids of the telemetry APIs (A2, §B6), what a null TopicPartitions and a
// static leave do to pending revocations (A5.3, §B4.4), the session a
// static leave leaves running (§B4.4), and the assignment key a static
// takeover keeps (A5.2, A5.5).

// --- A2, §B6 ---

// caseLaterClientIDOwn: a connection opens with ClientId
// "ghostcheck-first"; a later join sends ClientId "ghostcheck-second".
// The join is attributed to the ClientId it sends (A2), as every Kafka
// release attributes every request.
func caseLaterClientIDOwn(p *probe) verdict {
	p.needs(codec.ConsumerGroupDescribe)
	c := p.connAs(codec.Str("ghostcheck-first"))
	c.describe(p.id("g")) // the connection's first request
	g, m := p.id("g"), p.id("m")
	req := p.joinReq(g, m)
	if p.known.Workaround(WorkaroundJoinRegex) {
		req = joinRegexEmpty(nil, req).(*codec.ConsumerGroupHeartbeatRequest)
	}
	h := c.header(codec.ConsumerGroupHeartbeat, p.hbv())
	h.ClientId = codec.Str("ghostcheck-second")
	resp, err := c.try(h, req)
	if err != nil {
		return fail(err.Error(), "a response")
	}
	if r := resp.(*codec.ConsumerGroupHeartbeatResponse); r.ErrorCode != codec.None {
		return fail("setup join of "+short(m)+": "+hbString(r), "the setup join to succeed")
	}
	d := p.conn().describe(g)
	for _, mm := range d.Members {
		if mm.MemberId == m {
			return want(mm.ClientId == "ghostcheck-second", fmt.Sprintf("Describe shows ClientId %q for a later join that sent \"ghostcheck-second\"", mm.ClientId), `"ghostcheck-second", the ClientId the join sent`)
		}
	}
	return fail(describeString(d), "the joined member listed")
}

// reservedOne is the client instance id Kafka reserves besides the zero
// UUID (Uuid.METADATA_TOPIC_ID, 00...01): never a client's (§B6).
var reservedOne = codec.UUID{15: 1}

// caseTelemetryHeaderID sends a telemetry request at v1 whose header
// carries id: a reserved id is INVALID_REQUEST (A2, §B6).
func caseTelemetryHeaderID(key codec.APIKey, id codec.UUID) func(p *probe) verdict {
	return func(p *probe) verdict {
		if !p.offers(key, 1) {
			return skip(fmt.Sprintf("the broker offers %v up to v%d (v1 is KIP-1313's)", key, p.max(key)))
		}
		c := p.conn()
		h := c.header(key, 1)
		h.ClientInstanceId = codec.SomeUUID(id)
		var req codec.Message = &codec.GetTelemetrySubscriptionsRequest{}
		if key == codec.PushTelemetry {
			req = &codec.PushTelemetryRequest{Metrics: []byte{}}
		}
		resp, err := c.try(h, req)
		if err != nil {
			return fail(err.Error(), "INVALID_REQUEST")
		}
		code := codec.None
		switch r := resp.(type) {
		case *codec.GetTelemetrySubscriptionsResponse:
			code = r.ErrorCode
		case *codec.PushTelemetryResponse:
			code = r.ErrorCode
		}
		return want(code == codec.InvalidRequest, fmt.Sprintf("%v v1 with header id %s: %s", key, id, code), "INVALID_REQUEST")
	}
}

// casePushReservedV0 pushes at v0 with the reserved id 00...01 in the
// body, with no metrics: INVALID_REQUEST, before any other check (§B6).
func casePushReservedV0(p *probe) verdict {
	if !p.offers(codec.PushTelemetry, 0) {
		return skip("the broker does not offer PushTelemetry v0")
	}
	r := p.conn().do(codec.PushTelemetry, 0, &codec.PushTelemetryRequest{ClientInstanceId: reservedOne, Metrics: []byte{}}).(*codec.PushTelemetryResponse)
	return want(r.ErrorCode == codec.InvalidRequest, fmt.Sprintf("PushTelemetry v0 with id %s: %s", reservedOne, r.ErrorCode), "INVALID_REQUEST")
}

// --- A5.3, §B4.4: pending revocations ---

// pendingSetup makes m1 (static when inst != "") own partitions alone, then
// has m2 join, and m1 heartbeat once more reporting everything it owns:
// the broker asks it to give some up, which it does not. It returns the
// two members (m1 still owning everything) and the partitions m1 was asked
// to give up. The case ends as SKIP when m1 is given nothing or asked to
// give up nothing.
func (p *probe) pendingSetup(c *pconn, g, inst string) (m1, m2 *pmember, asked map[[2]any]bool) {
	m1, m2 = &pmember{id: p.id("m"), inst: inst}, &pmember{id: p.id("m")}
	req := p.joinReq(g, m1.id)
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

// --- §B4.4: the session of a parked member ---

// caseStaticLeaveKeepsSession: a static member parks at -2 late in its
// session (at 70 % of it). The leave does not refresh the session
// (§B4.4), so the member is gone one session timeout after its join,
// which Describe checks shortly before one session timeout after the
// leave: a broker that re-armed the session at the leave still lists it
// then. The check comes at least expiryMargin after the join's deadline,
// so a correct broker is never failed for timer lag.
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
	c.mustJoin(static(p.joinReq(g, m), inst))
	joined := time.Now() // the broker's session began before this
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
	still, d := present(c, g, m)
	obs := fmt.Sprintf("parked %v after the join; %v after the join: %s", parked.Sub(joined).Round(time.Millisecond), time.Since(joined).Round(time.Millisecond), d)
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
