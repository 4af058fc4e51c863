package conformance

// What the classic cases (cases_classic.go) share: the versions they
// speak, their members (a client each, on a connection of its own), the
// requests held open by the broker (a JoinGroup waiting for its
// rebalance, a SyncGroup for the leader's), and form, which brings
// members into one Stable generation as real clients do.

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// notClassic ends a case as N/A when the broker advertises none of the
// classic group apis: it serves no classic groups, which no rule asks of
// it.
func (p *probe) needsClassic() {
	if p.max(codec.JoinGroup) < 0 && p.max(codec.SyncGroup) < 0 && p.max(codec.Heartbeat) < 0 {
		panic(abort{verdict{NotApplicable, "the broker advertises no JoinGroup, SyncGroup or Heartbeat: it serves no classic groups", ""}})
	}
	for _, k := range []codec.APIKey{codec.JoinGroup, codec.SyncGroup, codec.Heartbeat} {
		p.needs(k)
	}
}

// The versions the classic cases speak: the broker's highest, within what
// codec knows.
func (p *probe) jv() int16 {
	if p.known.Workaround(WorkaroundClassicNotFlexible) {
		return min(p.max(codec.JoinGroup), 5)
	}
	return min(p.max(codec.JoinGroup), 9)
}
func (p *probe) sv() int16 {
	if p.known.Workaround(WorkaroundClassicNotFlexible) {
		return min(p.max(codec.SyncGroup), 3)
	}
	return min(p.max(codec.SyncGroup), 5)
}
func (p *probe) hv() int16 { return min(p.max(codec.Heartbeat), 4) }
func (p *probe) dv() int16 { return min(p.max(codec.DescribeGroups), 6) }
func (p *probe) lv() int16 { return min(p.max(codec.LeaveGroup), 5) }

// needsJoin ends the case as SKIP when the broker's JoinGroup stops below
// v, the version the rule is about (why: "KIP-394", "KIP-345").
func (p *probe) needsJoin(v int16, why string) {
	p.needsClassic()
	if p.jv() < v {
		panic(abort{skip(fmt.Sprintf("needs JoinGroup v%d (%s); the broker offers %s", v, why, p.offered(codec.JoinGroup)))})
	}
}

// classicSessionMs and classicRebalanceMs are the timeouts the classic
// cases' JoinGroups send (Peer.ClassicSessionTimeout).
func (p *probe) classicSessionMs() int32 { return int32(p.peer.ClassicSessionTimeout.Milliseconds()) }

func (p *probe) classicRebalanceMs() int32 { return max(p.classicSessionMs()/2, 1) }

// classicWait bounds a wait for a held request: the request timeout,
// plus as long as a join phase may last (its rebalance timeout, or a
// first rebalance's delay: a session timeout covers both in Kafka's
// defaults and the suite's).
func (p *probe) classicWait() time.Duration {
	return p.peer.Timeout + 2*p.peer.ClassicSessionTimeout
}

// classicHeartbeat is how often the members form runs heartbeat.
func (p *probe) classicHeartbeat() time.Duration {
	return min(max(p.peer.ClassicSessionTimeout/10, 10*time.Millisecond), time.Second)
}

// cmember is one classic member: its client's connection and what the
// broker told it.
type cmember struct {
	c        *pconn
	group    string
	id       string
	instance codec.NullableString
	// proto is the protocol name it offers, meta the metadata (a
	// ConsumerProtocolSubscription tagged with tag).
	proto string
	meta  []byte
	// rebalanceMs is the RebalanceTimeoutMs its JoinGroups send (0: the
	// suite's, classicRebalanceMs).
	rebalanceMs int32
	// gen, leader and members are its last JoinGroup answer's; assigned
	// its last SyncGroup answer's.
	gen      int32
	leader   string
	members  []codec.JoinGroupResponseMember
	assigned []byte
	// keepID: the case judges whether the coordinator takes this member
	// under its id, so form's client never starts it over with a new
	// one (client).
	keepID bool
	// joinAnswered is when form's client last had an answer to its
	// JoinGroup.
	joinAnswered time.Time
}

// member makes a classic member of group on a connection of its own
// (instance "": dynamic), offering protocol "range".
func (p *probe) member(group, instance string) *cmember {
	c := p.connAs(codec.Str("ghostcheck-check"))
	// Dialled now, on the case's goroutine: form's clients then share
	// nothing of the probe's but what its lock guards.
	c.timeout = p.classicWait()
	c.wire()
	m := &cmember{c: c, group: group, proto: "range"}
	if instance != "" {
		m.instance = codec.Str(instance)
	}
	m.meta = p.subscription(instance)
	return m
}

// subscription is a ConsumerProtocolSubscription of the peer's topic,
// its user data tag (so a member's metadata is its own).
func (p *probe) subscription(tag string) []byte {
	s := codec.ConsumerProtocolSubscription{Topics: []string{p.peer.Topic}, UserData: []byte(tag), GenerationId: -1}
	b, err := s.AppendTo(nil, 0)
	if err != nil {
		panic(abort{fail("encoding a subscription: "+err.Error(), "")})
	}
	return b
}

// assignmentFor is what the suite's leaders assign member id: a
// ConsumerProtocolAssignment with no partitions whose user data is the
// id, so each member's bytes are its own.
func assignmentFor(id string) []byte {
	a := codec.ConsumerProtocolAssignment{UserData: []byte(id)}
	b, _ := a.AppendTo(nil, 0)
	return b
}

// joinReq is m's JoinGroup at the suite's timeouts.
func (m *cmember) joinReq() *codec.JoinGroupRequest {
	p := m.c.p
	r := &codec.JoinGroupRequest{GroupId: m.group, SessionTimeoutMs: p.classicSessionMs(), RebalanceTimeoutMs: p.classicRebalanceMs(),
		MemberId: m.id, GroupInstanceId: m.instance, ProtocolType: "consumer",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: m.proto, Metadata: m.meta}}}
	if m.rebalanceMs > 0 {
		r.RebalanceTimeoutMs = m.rebalanceMs
	}
	return r
}

func (m *cmember) syncReq(assignments []codec.SyncGroupRequestAssignment) *codec.SyncGroupRequest {
	r := &codec.SyncGroupRequest{GroupId: m.group, GenerationId: m.gen, MemberId: m.id, GroupInstanceId: m.instance,
		ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str(m.proto), Assignments: assignments}
	if assignments == nil {
		r.Assignments = []codec.SyncGroupRequestAssignment{}
	}
	return r
}

func (m *cmember) heartbeatReq() *codec.HeartbeatRequest {
	return &codec.HeartbeatRequest{GroupId: m.group, GenerationId: m.gen, MemberId: m.id, GroupInstanceId: m.instance}
}

// leaderAssignments are the assignments a leader sends for the members
// its JoinGroup answer listed.
func (m *cmember) leaderAssignments() []codec.SyncGroupRequestAssignment {
	var as []codec.SyncGroupRequestAssignment
	for _, x := range m.members {
		as = append(as, codec.SyncGroupRequestAssignment{MemberId: x.MemberId, Assignment: assignmentFor(x.MemberId)})
	}
	return as
}

// took records a NONE JoinGroup answer.
func (m *cmember) took(r *codec.JoinGroupResponse) {
	m.id, m.gen, m.leader, m.members = r.MemberId, r.GenerationId, r.Leader, r.Members
}

// held is a request written and not yet answered: the broker may hold
// it (a JoinGroup waiting for its rebalance, a SyncGroup for the
// leader's). Its connection is the goroutine's until the answer comes.
type held struct {
	what string
	done chan heldAnswer
	// got is the answer once within or answer read it: a broker that
	// answers early (within) must not leave answer waiting for a second.
	got *heldAnswer
}

type heldAnswer struct {
	resp codec.Message
	err  error
}

// send writes one request on c and reads its answer on a goroutine of its
// own: wait for it with answer or within. The request's version must be
// offered (do's check).
func (c *pconn) send(key codec.APIKey, v int16, req codec.Message) *held {
	if !c.p.offers(key, v) {
		panic(abort{skip(fmt.Sprintf("needs %v v%d; the broker offers %s", key, v, c.p.offered(key)))})
	}
	h := &held{what: fmt.Sprintf("%v v%d", key, v), done: make(chan heldAnswer, 1)}
	hdr := c.header(key, v) // dials c first, if not yet
	if err := c.w.Send(hdr, req); err != nil {
		h.done <- heldAnswer{nil, err}
		return h
	}
	go func() {
		resp, err := c.w.Receive()
		h.done <- heldAnswer{resp, err}
	}()
	return h
}

// within waits up to d for the answer; ok false: none came yet (the
// request is still held, or the broker never answers it).
func (h *held) within(d time.Duration) (resp codec.Message, err error, ok bool) {
	if h.got != nil {
		return h.got.resp, h.got.err, true
	}
	select {
	case a := <-h.done:
		h.got = &a
		return a.resp, a.err, true
	case <-time.After(d):
		return nil, nil, false
	}
}

// answer waits for the answer (bounded by the connection's timeout); a
// transport error fails the case.
func (h *held) answer() codec.Message {
	if h.got == nil {
		a := <-h.done
		h.got = &a
	}
	a := *h.got
	if a.err != nil {
		panic(abort{fail(h.what+": "+a.err.Error(), "a response")})
	}
	return a.resp
}

// join sends m's JoinGroup and waits for its answer, however long the
// broker holds it; NONE is recorded in m.
func (m *cmember) join() *codec.JoinGroupResponse {
	r := m.c.send(codec.JoinGroup, m.c.p.jv(), m.joinReq()).answer().(*codec.JoinGroupResponse)
	if r.ErrorCode == codec.None {
		m.took(r)
	}
	return r
}

// heartbeat sends m's Heartbeat at its generation.
func (m *cmember) heartbeat() codec.ErrorCode {
	return m.c.do(codec.Heartbeat, m.c.p.hv(), m.heartbeatReq()).(*codec.HeartbeatResponse).ErrorCode
}

// describeClassic describes group with DescribeGroups, or ends the case
// (SKIP, or FAIL when what it saw already breaks the rule: ok false)
// when the broker does not offer it.
func (p *probe) describeClassic(c *pconn, group string, ok bool, observed, expected string) codec.DescribeGroupsGroup {
	if p.max(codec.DescribeGroups) < 0 {
		if !ok {
			panic(abort{fail(observed, expected)})
		}
		panic(abort{skip(observed + "; the rest of the rule needs DescribeGroups, which the broker does not offer")})
	}
	r := c.do(codec.DescribeGroups, p.dv(), &codec.DescribeGroupsRequest{Groups: []string{group}}).(*codec.DescribeGroupsResponse)
	for _, g := range r.Groups {
		if g.GroupId == group {
			return g
		}
	}
	panic(abort{fail(fmt.Sprintf("DescribeGroups of %s answered %d other groups", short(group), len(r.Groups)), "the group asked about")})
}

// classicMembers are the member ids a description lists.
func classicMembers(g codec.DescribeGroupsGroup) []string {
	var ids []string
	for _, m := range g.Members {
		ids = append(ids, m.MemberId)
	}
	sort.Strings(ids)
	return ids
}

func dgString(g codec.DescribeGroupsGroup) string {
	var ms []string
	for _, m := range g.Members {
		s := short(m.MemberId)
		if m.GroupInstanceId.Valid {
			s += "/" + short(m.GroupInstanceId.Value)
		}
		ms = append(ms, s)
	}
	return fmt.Sprintf("describe: %s %s %s [%s]", g.ErrorCode, g.GroupState, g.ProtocolData, strings.Join(ms, " "))
}

func jgString(r *codec.JoinGroupResponse) string {
	s := r.ErrorCode.String()
	if r.MemberId != "" {
		s += " member=" + short(r.MemberId)
	}
	if r.ErrorCode == codec.None || r.GenerationId != -1 {
		s += fmt.Sprintf(" generation=%d leader=%s members=%d", r.GenerationId, short(r.Leader), len(r.Members))
	}
	if r.SkipAssignment {
		s += " skipAssignment"
	}
	return s
}

// form brings ms, all of one group, into one Stable generation as
// clients do, each on its own goroutine: join (again with the id
// MEMBER_ID_REQUIRED gave), the leader assigns every member it was told
// of assignmentFor(its id), sync, heartbeat; a SyncGroup or Heartbeat
// answered REBALANCE_IN_PROGRESS or ILLEGAL_GENERATION joins again, and
// an answer that the coordinator no longer knows the member
// (UNKNOWN_MEMBER_ID) starts it over with a new id (client). It
// returns once every member has synced at one generation and each then
// heartbeats NONE at it, and aborts the case (FAIL) if they do not
// within a few rebalances. It is the setup of a case, never what the
// case judges: on a loaded machine a member's session or rebalance
// timeout may run out between its requests, and the coordinator rightly
// removes it; a client then joins again, and so does form.
//
// An answer Kafka's consumer takes as fatal (fatalToClient) ends form at
// once: a client would stop there, not try again.
func (p *probe) form(ms ...*cmember) {
	var last string
	for attempt := 0; attempt < 3; attempt++ {
		var fatal bool
		if last, fatal = p.formOnce(ms); last == "" {
			return
		} else if fatal {
			break
		}
	}
	panic(abort{fail("the setup's members did not settle in one generation: "+last, "a Stable group")})
}

// fatalToClient are the errors after which Kafka's consumer does not
// join again (AbstractCoordinator raises them to the application).
var fatalToClient = []codec.ErrorCode{codec.GroupMaxSizeReached, codec.InconsistentGroupProtocol, codec.InvalidSessionTimeout,
	codec.InvalidGroupID, codec.GroupAuthorizationFailed, codec.FencedInstanceID}

// formOnce is one attempt of form: "" when the members settled, else why
// not, and whether a client was answered an error fatalToClient.
func (p *probe) formOnce(ms []*cmember) (string, bool) {
	stop := make(chan struct{})
	var mu sync.Mutex
	synced := map[*cmember]int32{}
	order := &syncOrder{sent: map[int32]int{}}
	errs := make(chan string, len(ms))
	var fatal atomic.Bool
	// aborts are the verdicts a client's routing ended the case with (a
	// coordinator that moved: SKIP), given on the case's goroutine.
	aborts := make(chan abort, len(ms))
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					a, ok := r.(abort)
					if !ok {
						panic(r)
					}
					aborts <- a
					errs <- short(m.id) + ": " + a.v.observed
				}
			}()
			why, final := m.client(stop, order, func(gen int32) {
				mu.Lock()
				synced[m] = gen
				mu.Unlock()
			})
			if final {
				fatal.Store(true)
			}
			if why != "" {
				errs <- short(m.id) + ": " + why
			}
		}()
	}
	settled := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if len(synced) < len(ms) {
			return false
		}
		for _, m := range ms {
			if synced[m] != synced[ms[0]] {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(p.classicWait() + 4*p.peer.ClassicSessionTimeout)
	why := ""
	for why == "" && !settled() {
		select {
		case why = <-errs:
		case <-time.After(5 * time.Millisecond):
			if time.Now().After(deadline) {
				why = "not one generation by the deadline"
			}
		}
	}
	close(stop)
	wg.Wait()
	select {
	case a := <-aborts:
		panic(a)
	default:
	}
	if why != "" {
		return why, fatal.Load()
	}
	for _, m := range ms {
		resp, err := m.c.try(m.c.header(codec.Heartbeat, p.hv()), m.heartbeatReq())
		if err != nil {
			return "heartbeat: " + err.Error(), false
		}
		if e := resp.(*codec.HeartbeatResponse).ErrorCode; e != codec.None {
			return fmt.Sprintf("%s's heartbeat at generation %d: %s", short(m.id), m.gen, e), false
		}
	}
	return "", false
}

// syncOrder has the leader of form's members send its SyncGroup after
// the followers of its generation that form runs have sent theirs (a
// little later still, for them to arrive first). Kafka answers SyncGroups
// in any order (B8.8: a follower's waits for the leader's; after it, the
// group is Stable and a follower's gets its assignment at once), but
// librdkafka's mock completes the sync phase at the leader's SyncGroup and
// answers a follower's that comes after it with an error and a null
// assignment that does not parse (docs/findings.md's L44), so its client
// joins again, which rebalances the group (L26): on a loaded machine,
// where the leader's SyncGroup overtakes its followers', a group of three
// would not settle. The order is the setup's, never what a case judges.
type syncOrder struct {
	mu   sync.Mutex
	sent map[int32]int // followers' SyncGroups sent, by generation
}

// followerSends counts a follower's SyncGroup at gen, just before it goes.
func (o *syncOrder) followerSends(gen int32) {
	o.mu.Lock()
	o.sent[gen]++
	o.mu.Unlock()
}

// syncLag is how long a leader waits after its followers' SyncGroups went
// for them to arrive before its own.
const syncLag = 50 * time.Millisecond

// leaderWaits holds the leader of gen until its followers (n of them)
// have sent their SyncGroups and syncLag has passed, or for at most
// bound (a follower that form does not run, or one that gave up, is not
// waited for longer; form's bound, a quarter of the session, leaves the
// sync phase time to complete); false when stop came first.
func (o *syncOrder) leaderWaits(stop <-chan struct{}, gen int32, n int, bound time.Duration) bool {
	deadline := time.Now().Add(bound)
	for {
		o.mu.Lock()
		sent := o.sent[gen]
		o.mu.Unlock()
		wait := 5 * time.Millisecond
		if sent >= n {
			wait = syncLag
		}
		select {
		case <-stop:
			return false
		case <-time.After(wait):
		}
		if sent >= n || time.Now().After(deadline) {
			return true
		}
	}
}

// maxRedials bounds the new connections a setup's client opens after
// answers that do not parse: against librdkafka's mock one such answer
// can lead to the next (each rejoin rebalances its group, L26, and a
// SyncGroup the rebalance cuts short is answered so again, L28).
const maxRedials = 20

// redial gives m a new connection, as a client whose connection broke
// (its first request carries the ClientId again).
func (m *cmember) redial() {
	old := m.c
	old.w.Close()
	c := old.p.connAs(codec.Str("ghostcheck-check"))
	c.timeout = old.timeout
	c.wire()
	m.c = c
}

// maxRestarts bounds the times one of form's clients starts over (a
// JoinGroup retried after REBALANCE_IN_PROGRESS, or with a new member id
// after UNKNOWN_MEMBER_ID) in one attempt: a coordinator that keeps
// answering so never lets its members settle, and the setup says so.
const maxRestarts = 4

// client runs m as a classic client until stop: join, sync, heartbeat,
// join again when told to. synced is called after each NONE SyncGroup
// with its generation. It returns why it gave up ("" at stop). It uses
// only m's connection; what would abort the case (its routing's SKIP)
// panics as on the case's goroutine, for formOnce to hand over.
//
// It answers errors as Kafka's consumer does (AbstractCoordinator):
// UNKNOWN_MEMBER_ID to a JoinGroup, SyncGroup or Heartbeat forgets the
// member id and joins as a new member (a static member keeps its
// instance id), a JoinGroup answered REBALANCE_IN_PROGRESS is sent
// again, up to maxRestarts times; but a member whose id the case judges
// (keepID) gives up instead.
func (m *cmember) client(stop <-chan struct{}, order *syncOrder, synced func(int32)) (why string, fatal bool) {
	p := m.c.p
	rt := func(key codec.APIKey, v int16, req codec.Message) (codec.Message, error) {
		return m.c.try(m.c.header(key, v), req)
	}
	joined, redials, over := false, 0, 0
	// again reports whether m starts over, forgetting its member id when
	// forget.
	again := func(forget bool) bool {
		if m.keepID || over >= maxRestarts {
			return false
		}
		over++
		if forget {
			m.id, m.gen, m.leader, m.members = "", -1, "", nil
		}
		joined = false
		return true
	}
	for {
		select {
		case <-stop:
			return "", false
		default:
		}
		if !joined {
			resp, err := rt(codec.JoinGroup, p.jv(), m.joinReq())
			m.joinAnswered = time.Now()
			if err != nil {
				return "JoinGroup: " + err.Error(), false
			}
			r := resp.(*codec.JoinGroupResponse)
			switch r.ErrorCode {
			case codec.MemberIDRequired:
				m.id = r.MemberId
				continue
			case codec.None:
				m.took(r)
			case codec.UnknownMemberID:
				// A dynamic member's first join (no id) is never
				// answered so by a broker that makes ids: not again.
				if m.id != "" && again(true) {
					continue
				}
				return "JoinGroup: " + jgString(r) + restartsSaid(over), false
			case codec.RebalanceInProgress:
				if again(false) {
					continue
				}
				return "JoinGroup: " + jgString(r) + restartsSaid(over), false
			default:
				return "JoinGroup: " + jgString(r), slices.Contains(fatalToClient, r.ErrorCode)
			}
			var as []codec.SyncGroupRequestAssignment
			if m.leader == m.id {
				as = m.leaderAssignments()
				if len(m.members) > 1 && !order.leaderWaits(stop, m.gen, len(m.members)-1, p.peer.ClassicSessionTimeout/4) {
					return "", false
				}
			} else {
				order.followerSends(m.gen)
			}
			resp, err = rt(codec.SyncGroup, p.sv(), m.syncReq(as))
			if err != nil {
				// A SyncGroup answer that does not parse (librdkafka's
				// mock gives an answer without an assignment a null
				// one, docs/findings.md's L28) is a lost answer to a
				// client, which joins again on a new connection: the
				// setup does so (within the setup's deadline), what the case judges
				// comes after it.
				var ce *codec.Error
				if !errors.As(err, &ce) || redials >= maxRedials {
					return "SyncGroup: " + err.Error(), false
				}
				redials++
				m.redial()
				continue
			}
			s := resp.(*codec.SyncGroupResponse)
			switch s.ErrorCode {
			case codec.None:
				m.assigned, joined = s.Assignment, true
				synced(m.gen)
			case codec.RebalanceInProgress, codec.IllegalGeneration:
			case codec.UnknownMemberID:
				if !again(true) {
					return "SyncGroup: " + s.ErrorCode.String() + restartsSaid(over), false
				}
			default:
				return "SyncGroup: " + s.ErrorCode.String(), slices.Contains(fatalToClient, s.ErrorCode)
			}
			continue
		}
		select {
		case <-stop:
			return "", false
		case <-time.After(p.classicHeartbeat()):
		}
		resp, err := rt(codec.Heartbeat, p.hv(), m.heartbeatReq())
		if err != nil {
			return "Heartbeat: " + err.Error(), false
		}
		switch e := resp.(*codec.HeartbeatResponse).ErrorCode; e {
		case codec.None:
		case codec.RebalanceInProgress, codec.IllegalGeneration:
			joined = false
		case codec.UnknownMemberID:
			if !again(true) {
				return "Heartbeat: " + e.String() + restartsSaid(over), false
			}
		default:
			return "Heartbeat: " + e.String(), slices.Contains(fatalToClient, e)
		}
	}
}

// restartsSaid says how often a client started over before an answer
// made it give up.
func restartsSaid(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (after starting over %d times)", n)
}

// stable forms a group of one dynamic member per name in dynamic and one
// static member per instance in static (instances named from the case),
// returning the members in that order.
func (p *probe) stable(group string, dynamic int, static ...string) []*cmember {
	var ms []*cmember
	for i := 0; i < dynamic; i++ {
		ms = append(ms, p.member(group, ""))
	}
	for _, i := range static {
		ms = append(ms, p.member(group, i))
	}
	p.form(ms...)
	return ms
}

// leaderOf is the member that leads ms's generation.
func leaderOf(ms []*cmember) *cmember {
	for _, m := range ms {
		if m.id == m.leader {
			return m
		}
	}
	return nil
}

// followerOf is a member of ms that does not lead.
func followerOf(ms []*cmember) *cmember {
	for _, m := range ms {
		if m.id != m.leader {
			return m
		}
	}
	return nil
}

// sameBytes compares an assignment with what the suite's leader gave id.
func sameBytes(got []byte, id string) bool { return bytes.Equal(got, assignmentFor(id)) }
