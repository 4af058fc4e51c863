package driver

// The client rules' canary: the admin, the prober and the observer are
// judged by the client rules too (rules.CheckClients on their own traffic,
// apart from the plan's clients, whose member ids the prober borrows). The
// admin and the prober break client rules on purpose: an empty member id
// at v1, a zero, missing or changing instance id in the header, a static
// leave without its instance, LeaveGroup entries that name nobody or go
// below v3 to a broker that has v3, classic requests naming another
// instance than the prober's JoinGroup did (canary_classicbreaks.go). The
// harness knows what it sent, so it
// knows which rules each of them broke; the client rules must report
// exactly those, each under its own id. A rule the harness broke that is
// not reported went blind, and one reported that the harness did not break
// fires on a client that kept it: either is a failure of the harness's own
// assumptions (a harness error), not of the target. The observer breaks
// nothing. The breaks that do not fit on the live coordinator are played
// on a synthetic record set (canary_clients.go).

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// recordBreaker keeps r, just sent by the admin, the prober or the
// observer, for the canary; r.creq then names it, negative (-1 is the
// first) to keep it apart from the clients' records.
func (l *clientLog) recordBreaker(r *request) {
	hv, _ := codec.RequestHeaderVersion(r.h.RequestApiKey, r.h.RequestApiVersion)
	l.breakers = append(l.breakers, rules.ClientRequest{Conn: r.handle, Broker: "coordinator", Seq: l.seqs[r.handle], At: l.d.now,
		HeaderVersion: hv, Header: r.h, API: r.h.RequestApiKey.String(), Request: r.req})
	l.seqs[r.handle]++
	r.creq = -len(l.breakers)
}

// checkBreakers judges the admin's, the prober's and the observer's
// requests by the client rules and reports, as harness errors, every rule
// whose verdict is not the one the harness's own requests call for.
func (l *clientLog) checkBreakers() {
	d := l.d
	roles := map[codec.UUID]string{}
	for _, p := range d.procs.all[len(d.plan.Clients):] {
		roles[p.c.InstanceID()] = p.role.String()
	}
	for _, e := range canaryErrors(roles, expectedBreaks(l.breakers), rules.CheckClients(l.breakers)) {
		d.harness("%s", e)
	}
	l.checkSynth() // the breaks played on paper (canary_clients.go)
}

// canaryErrors compares the client rules' verdicts on the harness's own
// clients (roles names them by instance id) with the breaks the harness
// committed (want, by instance id): a break not reported, or a report of a
// break not committed, is an error.
func canaryErrors(roles map[codec.UUID]string, want map[codec.UUID]map[rules.Rule]string, got []rules.ClientResult) []string {
	var errs []string
	for _, c := range got {
		role, ok := roles[c.InstanceID.UUID]
		if !ok || !c.InstanceID.Valid {
			errs = append(errs, fmt.Sprintf("client rules: the admin's, prober's and observer's requests show a client %s that is none of them", c.Client))
			continue
		}
		exp := want[c.InstanceID.UUID]
		if len(exp) == 0 && !c.Violated() {
			continue // broke nothing, and judged so (the observer, mostly)
		}
		for _, r := range c.Results {
			why, broke := exp[r.Rule]
			switch reported := r.Outcome == rules.OutcomeViolated; {
			case broke && !reported:
				errs = append(errs, fmt.Sprintf("client rule %s went blind: the %s broke it on purpose (%s), and the client rules judged it %s", r.Rule, role, why, r.Outcome))
			case reported && !broke:
				errs = append(errs, fmt.Sprintf("client rule %s fired on the %s, which the harness did not make it break: %s", r.Rule, role, r.Detail))
			}
		}
	}
	return errs
}

// expectedBreaks lists, per client instance id, the client rules the
// requests reqs (in send order) break, each with the first request that
// breaks it. It is the harness's own account of what it did, written from
// docs/PROTOCOL.md Part C, not from model's checks.
func expectedBreaks(reqs []rules.ClientRequest) map[codec.UUID]map[rules.Rule]string {
	byClient := map[codec.UUID][]*rules.ClientRequest{}
	var order []codec.UUID
	connOwner := map[uint64]codec.UUID{}
	for i := range reqs {
		r := &reqs[i]
		if _, ok := connOwner[r.Conn]; !ok && r.Header.ClientInstanceId.Valid {
			connOwner[r.Conn] = r.Header.ClientInstanceId.UUID
		}
	}
	for i := range reqs {
		u := connOwner[reqs[i].Conn]
		if _, ok := byClient[u]; !ok {
			order = append(order, u)
		}
		byClient[u] = append(byClient[u], &reqs[i])
	}
	leaveGroupMax := int16(-1)
	for i := range reqs {
		if resp, ok := reqs[i].Response.(*codec.ApiVersionsResponse); ok && resp.ErrorCode == codec.None {
			leaveGroupMax = -1
			for _, k := range resp.ApiKeys {
				if k.ApiKey == codec.LeaveGroup {
					leaveGroupMax = k.MaxVersion
				}
			}
		}
	}
	users := map[string][]codec.UUID{} // group \x00 member id: who heartbeat under it
	for _, u := range order {
		for _, r := range byClient[u] {
			if hb, ok := r.Request.(*codec.ConsumerGroupHeartbeatRequest); ok && strings.TrimSpace(hb.MemberId) != "" {
				k := hb.GroupId + "\x00" + hb.MemberId
				if !slices.Contains(users[k], u) {
					users[k] = append(users[k], u)
				}
			}
		}
	}
	out := map[codec.UUID]map[rules.Rule]string{}
	for _, u := range order {
		b := &breaks{found: map[rules.Rule]string{}}
		b.client(byClient[u], leaveGroupMax, users, u)
		out[u] = b.found
	}
	return out
}

// breaks collects the rules one client broke.
type breaks struct{ found map[rules.Rule]string }

// broke notes that r broke rule, at its first request.
func (b *breaks) broke(rule rules.Rule, r *rules.ClientRequest, format string, args ...any) {
	if _, ok := b.found[rule]; !ok {
		b.found[rule] = fmt.Sprintf("%v v%d, correlation id %d: ", r.Header.RequestApiKey, r.Header.RequestApiVersion, r.Header.CorrelationId) + fmt.Sprintf(format, args...)
	}
}

// client goes through one client's requests.
func (b *breaks) client(rs []*rules.ClientRequest, leaveGroupMax int16, users map[string][]codec.UUID, self codec.UUID) {
	// A static member: the instance id the last heartbeat naming both
	// gave a member id.
	static := map[string]string{}
	tag0 := false
	for _, r := range rs {
		if hb, ok := r.Request.(*codec.ConsumerGroupHeartbeatRequest); ok && hb.InstanceId.Valid && hb.MemberId != "" {
			static[hb.GroupId+"\x00"+hb.MemberId] = hb.InstanceId.Value
		}
		tag0 = tag0 || r.Header.ClientInstanceId.Valid
	}
	b.headers(rs)
	b.classic(rs)
	firstID := map[string]string{}
	left := map[string]bool{}
	for _, r := range rs {
		switch m := r.Request.(type) {
		case *codec.ConsumerGroupHeartbeatRequest:
			b.heartbeat(r, m, static, firstID, left, users, self)
		case *codec.LeaveGroupRequest:
			b.leaveGroup(r, m, static, left, leaveGroupMax)
		case *codec.GetTelemetrySubscriptionsRequest:
			b.telemetry(r, m.ClientInstanceId, tag0)
		case *codec.PushTelemetryRequest:
			b.telemetry(r, m.ClientInstanceId, tag0)
		}
	}
}

// headers: KIP-1313's header rules (a client that ever sends tag 0 sends
// it on every v2 header, one non-zero id per connection) and ClientId on
// a connection's first request only (for a client that ever leaves a later
// one null).
func (b *breaks) headers(rs []*rules.ClientRequest) {
	tag0 := false
	for _, r := range rs {
		tag0 = tag0 || (r.HeaderVersion >= 2 && r.Header.ClientInstanceId.Valid)
	}
	onConn := map[uint64]codec.UUID{}
	firstHasID := map[uint64]bool{}
	nullLater := false
	for _, r := range rs {
		if r.Seq == 0 {
			firstHasID[r.Conn] = r.Header.ClientId.Valid
		} else if firstHasID[r.Conn] && !r.Header.ClientId.Valid {
			nullLater = true
		}
		t := r.Header.ClientInstanceId
		if t.Valid && t.UUID.IsZero() {
			b.broke(rules.RuleNoZeroUUIDs, r, "the zero UUID in tag 0")
		}
		if !tag0 || r.HeaderVersion < 2 {
			continue
		}
		switch u, seen := onConn[r.Conn]; {
		case !t.Valid:
			b.broke(rules.RuleClientInstanceIDInHeader, r, "no tag 0")
		case t.UUID.IsZero():
			b.broke(rules.RuleClientInstanceIDInHeader, r, "the zero UUID in tag 0")
		case seen && u != t.UUID:
			b.broke(rules.RuleClientInstanceIDInHeader, r, "tag 0 %s after %s on its connection", t.UUID, u)
		}
		if t.Valid {
			onConn[r.Conn] = t.UUID
		}
	}
	if !nullLater {
		return
	}
	for _, r := range rs {
		switch {
		case r.Seq == 0 && !r.Header.ClientId.Valid:
			b.broke(rules.RuleClientIDOnFirstRequest, r, "a connection's first request without ClientId")
		case r.Seq > 0 && r.Header.ClientId.Valid:
			b.broke(rules.RuleClientIDOnFirstRequest, r, "ClientId repeated on request %d of its connection", r.Seq+1)
		}
	}
}

// heartbeat: KIP-1082's member id (on every v1 heartbeat, one per group),
// no heartbeat under an id after its leave until a rejoin, and a static
// member's leave naming its instance.
func (b *breaks) heartbeat(r *rules.ClientRequest, hb *codec.ConsumerGroupHeartbeatRequest, static, firstID map[string]string,
	left map[string]bool, users map[string][]codec.UUID, self codec.UUID) {
	v := r.Header.RequestApiVersion
	blank := strings.TrimSpace(hb.MemberId) == ""
	if v >= 1 && blank {
		b.broke(rules.RuleMemberIDFromFirstHeartbeat, r, "member id %q at v%d", hb.MemberId, v)
	}
	if v >= 1 && !blank {
		if f, ok := firstID[hb.GroupId]; !ok {
			firstID[hb.GroupId] = hb.MemberId
		} else if f != hb.MemberId {
			b.broke(rules.RuleStableMemberID, r, "member id %s in group %s after %s", hb.MemberId, hb.GroupId, f)
		}
	}
	if !blank && len(users[hb.GroupId+"\x00"+hb.MemberId]) > 1 {
		b.broke(rules.RuleUniqueMemberIDs, r, "member id %s, which another of the harness's clients sends too", hb.MemberId)
	}
	if rules.IsZeroUUIDString(hb.MemberId) {
		b.broke(rules.RuleNoZeroUUIDs, r, "the zero UUID as member id")
	}
	k := hb.GroupId + "\x00" + hb.MemberId
	switch {
	case hb.MemberEpoch < 0:
		left[k] = true
	case hb.MemberEpoch == 0:
		delete(left, k)
	case left[k]:
		b.broke(rules.RuleNoHeartbeatAfterLeave, r, "member %s heartbeats at epoch %d after its leave", hb.MemberId, hb.MemberEpoch)
	}
	inst, isStatic := static[k]
	switch {
	case hb.MemberEpoch == -2 && !hb.InstanceId.Valid:
		b.broke(rules.RuleStaticLeaveWithInstanceID, r, "a leave at -2 without InstanceId")
	case hb.MemberEpoch == -1 && isStatic && !hb.InstanceId.Valid:
		b.broke(rules.RuleStaticLeaveWithInstanceID, r, "static member %s leaves at -1 without InstanceId", hb.MemberId)
	case (hb.MemberEpoch == -1 || hb.MemberEpoch == -2) && isStatic && hb.InstanceId.Value != inst:
		b.broke(rules.RuleStaticLeaveWithInstanceID, r, "member %s leaves as instance %q, not %q", hb.MemberId, hb.InstanceId.Value, inst)
	}
}

// leaveGroup: a LeaveGroup names its members (v3+: each entry someone, a
// static member by its instance), goes below v3 only to a broker without
// v3 and never for a static member, and what it names has left.
func (b *breaks) leaveGroup(r *rules.ClientRequest, lg *codec.LeaveGroupRequest, static map[string]string, left map[string]bool, leaveGroupMax int16) {
	v := r.Header.RequestApiVersion
	if v < 3 {
		left[lg.GroupId+"\x00"+lg.MemberId] = true
		_, isStatic := static[lg.GroupId+"\x00"+lg.MemberId]
		switch {
		case leaveGroupMax >= 3:
			b.broke(rules.RuleLeaveGroupDowngrade, r, "below v3 to a broker offering v%d", leaveGroupMax)
		case isStatic:
			b.broke(rules.RuleLeaveGroupDowngrade, r, "static member %s left below v3", lg.MemberId)
		}
		return
	}
	for _, e := range lg.Members {
		k := lg.GroupId + "\x00" + e.MemberId
		if e.MemberId != "" {
			left[k] = true
		}
		inst, isStatic := static[k]
		switch {
		case e.MemberId == "" && !e.GroupInstanceId.Valid:
			b.broke(rules.RuleLeaveGroupInstanceID, r, "an entry naming nobody")
		case isStatic && (!e.GroupInstanceId.Valid || e.GroupInstanceId.Value != inst):
			b.broke(rules.RuleLeaveGroupInstanceID, r, "static member %s named with instance %v, not %q", e.MemberId, e.GroupInstanceId, inst)
		}
	}
}

// telemetry: v1 has only the header's id, which must be usable; at v0 a
// client that sends tag 0 puts the same id in the body.
func (b *breaks) telemetry(r *rules.ClientRequest, body codec.UUID, tag0 bool) {
	t := r.Header.ClientInstanceId
	switch {
	case r.Header.RequestApiVersion >= 1 && (!t.Valid || t.UUID.IsZero()):
		b.broke(rules.RuleTelemetryInstanceID, r, "no usable instance id in a v1 header")
	case r.Header.RequestApiVersion == 0 && tag0 && t.Valid && body != t.UUID:
		b.broke(rules.RuleTelemetryInstanceID, r, "body id %s, header id %s", body, t.UUID)
	}
}
