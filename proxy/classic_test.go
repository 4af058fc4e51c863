package proxy_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Classic groups through the proxy: scripted clients, each a few
// JoinGroup, SyncGroup and Heartbeat requests written by hand, against
// ghostcheck's server, keeping or breaking each classic client rule
// (docs/PROTOCOL.md Part C), with the proxy's classic faults; and the
// held JoinGroup and SyncGroup answers the broker gives when a rebalance
// completes, which the proxy waits for past its IdleTimeout.

// serveClassic starts ghostcheck's server with classic groups: sessions
// from 100 ms, the first rebalance of a group delayed by delay.
func serveClassic(t testing.TB, delay time.Duration) string {
	t.Helper()
	coord := impl.New(impl.Config{
		Topics:           []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}},
		SessionTimeoutMs: 10000, HeartbeatIntervalMs: 100,
		ClassicMinSessionTimeoutMs: 100, ClassicMaxSessionTimeoutMs: 60000,
		InitialRebalanceDelayMs: int32(delay.Milliseconds()), NewMemberJoinTimeoutMs: 300000,
	})
	addr, _ := servertest.Start(t, coord, server.Config{})
	return addr
}

// script is one scripted classic client: its ClientId, its connection
// through the proxy, its member id and generation.
type script struct {
	t        *testing.T
	addr     string
	clientID string
	group    string
	instance string
	w        *wire.Conn
	hm       *wire.Headers
	member   string
	gen      int32
}

func newScript(t *testing.T, addr, clientID, group, instance string) *script {
	s := &script{t: t, addr: addr, clientID: clientID, group: group, instance: instance}
	s.dial()
	return s
}

// dial opens a new connection (the client's header instance id stays).
func (s *script) dial() {
	s.t.Helper()
	if s.w != nil {
		s.w.Close()
	}
	w, err := wire.Dial(s.addr, wire.Options{Timeout: 10 * time.Second})
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { w.Close() })
	if s.hm == nil {
		u := codec.UUID{0: 7}
		copy(u[1:], s.clientID) // one instance id per client
		s.hm, _ = wire.NewHeaders(codec.Str(s.clientID), u)
	} else {
		s.hm.Reset()
	}
	s.w = w
}

func (s *script) inst() codec.NullableString {
	if s.instance == "" {
		return codec.NullableString{}
	}
	return codec.Str(s.instance)
}

func (s *script) joinReq(member string) *codec.JoinGroupRequest {
	sub := codec.ConsumerProtocolSubscription{Topics: []string{"alpha"}, OwnedPartitions: []codec.ConsumerProtocolTopicPartitions{}}
	meta, _ := sub.AppendTo(nil, 1)
	return &codec.JoinGroupRequest{GroupId: s.group, SessionTimeoutMs: 6000, RebalanceTimeoutMs: 5000, MemberId: member,
		GroupInstanceId: s.inst(), ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: meta}}}
}

// send sends a request at version without waiting for its answer.
func (s *script) send(version int16, req codec.Message) {
	s.t.Helper()
	if err := s.w.Send(s.hm.Next(req.Key(), version), req); err != nil {
		s.t.Fatal(err)
	}
}

// recv receives the answer to the oldest request sent.
func (s *script) recv() (codec.Message, error) { return s.w.Receive() }

func (s *script) do(version int16, req codec.Message) codec.Message {
	s.t.Helper()
	s.send(version, req)
	resp, err := s.recv()
	if err != nil {
		s.t.Fatalf("%s: %v v%d: %v", s.clientID, req.Key(), version, err)
	}
	return resp
}

// join sends JoinGroup v9 with member and takes what it is told.
func (s *script) join(member string) *codec.JoinGroupResponse {
	s.t.Helper()
	resp := s.do(9, s.joinReq(member)).(*codec.JoinGroupResponse)
	if resp.ErrorCode == codec.None {
		s.member, s.gen = resp.MemberId, resp.GenerationId
	}
	return resp
}

// joinGroup joins as a Java client does: "", then the id MEMBER_ID_REQUIRED
// gives (a static member needs no second step).
func (s *script) joinGroup() {
	s.t.Helper()
	resp := s.join("")
	if resp.ErrorCode == codec.MemberIDRequired {
		resp = s.join(resp.MemberId)
	}
	if resp.ErrorCode != codec.None {
		s.t.Fatalf("%s: join %v", s.clientID, resp.ErrorCode)
	}
}

func (s *script) syncReq(instance codec.NullableString) *codec.SyncGroupRequest {
	return &codec.SyncGroupRequest{GroupId: s.group, GenerationId: s.gen, MemberId: s.member, GroupInstanceId: instance,
		ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("range"), Assignments: []codec.SyncGroupRequestAssignment{}}
}

// sync syncs (as the leader, with no assignments: the test consumes
// nothing) naming instance, and returns the code.
func (s *script) sync(instance codec.NullableString) codec.ErrorCode {
	s.t.Helper()
	return s.do(5, s.syncReq(instance)).(*codec.SyncGroupResponse).ErrorCode
}

// heartbeat heartbeats naming instance and returns the code.
func (s *script) heartbeat(instance codec.NullableString) codec.ErrorCode {
	s.t.Helper()
	return s.do(4, &codec.HeartbeatRequest{GroupId: s.group, GenerationId: s.gen, MemberId: s.member, GroupInstanceId: instance}).(*codec.HeartbeatResponse).ErrorCode
}

func wantCode(t *testing.T, what string, got, want codec.ErrorCode) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
}

// wantOutcome holds client c to an outcome of rule, its detail holding
// detail.
func wantOutcome(t *testing.T, c rules.ClientResult, rule rules.Rule, outcome rules.Outcome, detail string) {
	t.Helper()
	r := c.Result(rule)
	if r.Outcome != outcome || !strings.Contains(r.Detail, detail) {
		t.Errorf("%s %s: %s %q, want %s with %q", c.ClientID, rule, r.Outcome, r.Detail, outcome, detail)
	}
}

// classicRun plays the classic story through the proxy against
// ghostcheck's server, its clients keeping the rules, or (broken) each
// breaking one: a dynamic member joins (MEMBER_ID_REQUIRED, then its id;
// broken: "" again), a static member joins, syncs and heartbeats (broken:
// a heartbeat without its instance), a second process takes the instance
// over, and the first, told FENCED_INSTANCE_ID by the broker, stops
// (broken: joins again under the instance).
func classicRun(t *testing.T, broken bool) map[string]rules.ClientResult {
	p := startProxy(t, proxy.Config{Upstream: serveClassic(t, 0)})
	dyn := newScript(t, p.Addr(), "dynamic", "g-dyn", "")
	resp := dyn.join("")
	wantCode(t, "the first join", resp.ErrorCode, codec.MemberIDRequired)
	if broken {
		wantCode(t, "a join with an empty id again", dyn.join("").ErrorCode, codec.MemberIDRequired)
	} else {
		wantCode(t, "the join with the id given", dyn.join(resp.MemberId).ErrorCode, codec.None)
		wantCode(t, "dynamic sync", dyn.sync(codec.NullableString{}), codec.None)
		wantCode(t, "dynamic heartbeat", dyn.heartbeat(codec.NullableString{}), codec.None)
	}

	a := newScript(t, p.Addr(), "static-a", "g-static", "i1")
	a.joinGroup()
	wantCode(t, "static sync", a.sync(a.inst()), codec.None)
	if broken {
		wantCode(t, "a heartbeat without the instance", a.heartbeat(codec.NullableString{}), codec.None)
	} else {
		wantCode(t, "static heartbeat", a.heartbeat(a.inst()), codec.None)
	}
	b := newScript(t, p.Addr(), "static-b", "g-static", "i1")
	b.joinGroup()
	wantCode(t, "the taken-over member's heartbeat", a.heartbeat(a.inst()), codec.FencedInstanceID)
	want := codec.None
	if broken {
		a.join("") // takes the instance back from b
		want = codec.FencedInstanceID
	}
	wantCode(t, "the new process's heartbeat", b.heartbeat(b.inst()), want)
	return verdicts(t, p)
}

// Clients that keep the classic rules pass them.
func TestClassicRulesKept(t *testing.T) {
	got := classicRun(t, false)
	wantOutcome(t, got["dynamic"], rules.RuleMemberIDRequiredRejoin, rules.OutcomePass, "1 rejoins")
	wantOutcome(t, got["dynamic"], rules.RuleClassicStaticInstanceID, rules.OutcomeNotSeen, "")
	wantOutcome(t, got["static-a"], rules.RuleClassicStaticInstanceID, rules.OutcomePass, "3 requests")
	wantOutcome(t, got["static-a"], rules.RuleNoRejoinAfterFencedInstance, rules.OutcomePass, "1 FENCED_INSTANCE_ID")
	wantOutcome(t, got["static-b"], rules.RuleClassicStaticInstanceID, rules.OutcomePass, "1 requests")
	for name, c := range got {
		for _, r := range c.Results {
			if r.Outcome == rules.OutcomeViolated || r.Outcome == rules.OutcomeNotAdopted {
				t.Errorf("%s: %s %s: %s", name, r.Rule, r.Outcome, r.Detail)
			}
		}
	}
}

// Clients that break a classic rule are reported, with the request that
// broke it and its connection.
func TestClassicRulesBroken(t *testing.T) {
	got := classicRun(t, true)
	wantOutcome(t, got["dynamic"], rules.RuleMemberIDRequiredRejoin, rules.OutcomeViolated, `JoinGroup v9 (conn 1 to 127.0.0.1:`)
	wantOutcome(t, got["dynamic"], rules.RuleMemberIDRequiredRejoin, rules.OutcomeViolated, `joins group g-dyn with MemberId "" after JoinGroup v9`)
	wantOutcome(t, got["static-a"], rules.RuleClassicStaticInstanceID, rules.OutcomeViolated, `Heartbeat v4 (conn 2 to 127.0.0.1:`)
	wantOutcome(t, got["static-a"], rules.RuleClassicStaticInstanceID, rules.OutcomeViolated, `has no GroupInstanceId, after JoinGroup v9`)
	wantOutcome(t, got["static-a"], rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeViolated,
		`JoinGroup v9 (conn 2 to 127.0.0.1:`)
	wantOutcome(t, got["static-a"], rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeViolated,
		`names instance "i1" of group g-static after Heartbeat v4`)
	wantOutcome(t, got["static-b"], rules.RuleClassicStaticInstanceID, rules.OutcomePass, "")
}

// A client below JoinGroup v4 is NOT ADOPTED for KIP-394's rule and
// KIP-345's, not a violation.
func TestClassicOldClientNotAdopted(t *testing.T) {
	p := startProxy(t, proxy.Config{Upstream: serveClassic(t, 0)})
	s := newScript(t, p.Addr(), "old", "g-old", "")
	resp := s.do(3, s.joinReq("")).(*codec.JoinGroupResponse)
	wantCode(t, "a v3 join", resp.ErrorCode, codec.None)
	s.member, s.gen = resp.MemberId, resp.GenerationId
	wantCode(t, "v3 heartbeat", s.do(2, &codec.HeartbeatRequest{GroupId: s.group, GenerationId: s.gen, MemberId: s.member}).(*codec.HeartbeatResponse).ErrorCode, codec.None)
	got := verdicts(t, p)["old"]
	wantOutcome(t, got, rules.RuleMemberIDRequiredRejoin, rules.OutcomeNotAdopted, "JoinGroup up to v3 only")
	wantOutcome(t, got, rules.RuleClassicStaticInstanceID, rules.OutcomeNotAdopted, "")
	wantOutcome(t, got, rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeNotAdopted, "")
}

// faultOn applies f to the n-th (from 0) request of api, once.
func faultOn(api codec.APIKey, n int, f proxy.Fault) proxy.Injector {
	var mu sync.Mutex
	seen := 0
	return proxy.InjectorFunc(func(r proxy.GroupRequest) proxy.Fault {
		mu.Lock()
		defer mu.Unlock()
		if r.Header.RequestApiKey != api {
			return proxy.Fault{}
		}
		seen++
		if seen-1 == n {
			return f
		}
		return proxy.Fault{}
	})
}

// Each classic error the proxy injects reaches the client as the answer
// to its request's version, without the broker seeing the request (the
// member's next request is answered as before), and is recorded as the
// answer the client got.
func TestClassicInjectedErrors(t *testing.T) {
	for _, tc := range []struct {
		api  codec.APIKey
		code codec.ErrorCode
	}{
		{codec.JoinGroup, codec.NotCoordinator}, {codec.JoinGroup, codec.RebalanceInProgress}, {codec.JoinGroup, codec.UnknownMemberID},
		{codec.JoinGroup, codec.FencedInstanceID},
		{codec.SyncGroup, codec.RebalanceInProgress}, {codec.SyncGroup, codec.IllegalGeneration}, {codec.SyncGroup, codec.FencedInstanceID},
		{codec.Heartbeat, codec.RebalanceInProgress}, {codec.Heartbeat, codec.IllegalGeneration}, {codec.Heartbeat, codec.UnknownMemberID},
		{codec.Heartbeat, codec.FencedInstanceID}, {codec.Heartbeat, codec.NotCoordinator},
	} {
		t.Run(tc.api.String()+"/"+tc.code.String(), func(t *testing.T) {
			p := startProxy(t, proxy.Config{Upstream: serveClassic(t, 0), Faults: faultOn(tc.api, 0, proxy.Fault{Kind: proxy.AnswerError, Code: tc.code})})
			s := newScript(t, p.Addr(), "c", "g", "i1")
			var got codec.ErrorCode
			switch tc.api {
			case codec.JoinGroup:
				resp := s.join("")
				got = resp.ErrorCode
				if resp.GenerationId != -1 || resp.MemberId != "" {
					t.Errorf("injected join answer %+v", resp)
				}
				s.joinGroup() // the broker never saw the first: a static member joins at once
			case codec.SyncGroup:
				s.joinGroup()
				got = s.sync(s.inst())
				wantCode(t, "the sync after", s.sync(s.inst()), codec.None)
			case codec.Heartbeat:
				s.joinGroup()
				wantCode(t, "sync", s.sync(s.inst()), codec.None)
				got = s.heartbeat(s.inst())
				wantCode(t, "the heartbeat after", s.heartbeat(s.inst()), codec.None)
			}
			wantCode(t, "the injected answer", got, tc.code)
			p.Close()
			var faulted *rules.ClientRequest
			for _, r := range p.Recording() {
				if r.Fault != "" {
					faulted = &r
				}
			}
			if faulted == nil || faulted.Fault != "answered "+tc.code.String() || faulted.Response == nil {
				t.Fatalf("the recording of the fault: %+v", faulted)
			}
			if p.Stats().Faults != 1 {
				t.Errorf("%d faults", p.Stats().Faults)
			}
		})
	}
}

// A dropped JoinGroup or SyncGroup answer: the broker answered (the
// recording says what), the client lost its connection, and joins again
// on a new one.
func TestClassicLostAnswers(t *testing.T) {
	for _, tc := range []struct {
		api    codec.APIKey
		broker string
	}{
		{codec.JoinGroup, "response dropped (the broker answered MEMBER_ID_REQUIRED)"},
		{codec.SyncGroup, "response dropped (the broker answered NONE)"},
	} {
		t.Run(tc.api.String(), func(t *testing.T) {
			p := startProxy(t, proxy.Config{Upstream: serveClassic(t, 0), Faults: faultOn(tc.api, 0, proxy.Fault{Kind: proxy.DropResponse})})
			s := newScript(t, p.Addr(), "c", "g", "")
			var err error
			if tc.api == codec.JoinGroup {
				s.send(9, s.joinReq(""))
			} else {
				s.joinGroup()
				s.send(5, s.syncReq(codec.NullableString{}))
			}
			if _, err = s.recv(); err == nil {
				t.Fatal("an answer came through a dropped response")
			}
			s.dial()
			if tc.api == codec.JoinGroup {
				s.joinGroup()
			}
			wantCode(t, "the sync on the new connection", s.sync(codec.NullableString{}), codec.None)
			p.Close()
			var faults []string
			for _, r := range p.Recording() {
				if r.Fault != "" {
					faults = append(faults, r.Fault)
				}
			}
			if len(faults) != 1 || faults[0] != tc.broker {
				t.Errorf("faults recorded %q, want %q", faults, tc.broker)
			}
			wantOutcome(t, verdicts(t, p)["c"], rules.RuleMemberIDRequiredRejoin, rules.OutcomePass, "")
		})
	}
}

// A JoinGroup the broker holds for a rebalance (the group's first,
// delayed 600 ms) and a follower's SyncGroup held until its leader syncs
// (400 ms later) are answered through a proxy whose IdleTimeout is 150 ms:
// the proxy waits for a held answer as long as the rebalance timeout the
// client asked for, not its idle bound; a silent connection with nothing
// owed is still closed after IdleTimeout.
func TestClassicHeldAnswersOutliveIdleTimeout(t *testing.T) {
	p := startProxy(t, proxy.Config{Upstream: serveClassic(t, 600*time.Millisecond), IdleTimeout: 150 * time.Millisecond})
	a := newScript(t, p.Addr(), "a", "g", "ia")
	b := newScript(t, p.Addr(), "b", "g", "ib")
	start := time.Now()
	a.send(9, a.joinReq(""))
	b.send(9, b.joinReq(""))
	var leader, follower *script
	for _, s := range []*script{a, b} {
		m, err := s.recv()
		if err != nil {
			t.Fatalf("%s: the held join: %v (after %v)", s.clientID, err, time.Since(start))
		}
		resp := m.(*codec.JoinGroupResponse)
		wantCode(t, s.clientID+"'s join", resp.ErrorCode, codec.None)
		s.member, s.gen = resp.MemberId, resp.GenerationId
		if resp.Leader == resp.MemberId {
			leader = s
		} else {
			follower = s
		}
	}
	if waited := time.Since(start); waited < 500*time.Millisecond {
		t.Fatalf("the joins were answered after %v: not held by the initial rebalance delay", waited)
	}
	if leader == nil || follower == nil {
		t.Fatal("no leader and follower")
	}
	follower.send(5, follower.syncReq(follower.inst()))
	time.Sleep(400 * time.Millisecond)
	wantCode(t, "the leader's sync", leader.sync(leader.inst()), codec.None)
	m, err := follower.recv()
	if err != nil {
		t.Fatalf("the follower's held sync: %v", err)
	}
	wantCode(t, "the follower's sync", m.(*codec.SyncGroupResponse).ErrorCode, codec.None)

	idle := newScript(t, p.Addr(), "idle", "g2", "")
	time.Sleep(600 * time.Millisecond)
	if err := idle.w.Send(idle.hm.Next(codec.Heartbeat, 4), &codec.HeartbeatRequest{GroupId: "g2"}); err == nil {
		if _, err := idle.recv(); err == nil {
			t.Error("a connection idle past IdleTimeout was answered, not closed")
		}
	}
}
