package proxy_test

import (
	"bufio"
	"errors"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/clients"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
	"github.com/ghostcheck/ghostcheck/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// serveCoordinator starts ghostcheck's server (1 s sessions, 100 ms
// heartbeat interval, telemetry v0-v1) for the test and returns its
// address.
func serveCoordinator(t testing.TB) string {
	t.Helper()
	coord := impl.New(impl.Config{
		Topics:              []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}},
		SessionTimeoutMs:    1000,
		HeartbeatIntervalMs: 100,
		Telemetry: impl.TelemetryConfig{SubscriptionID: 1, PushIntervalMs: 100, TelemetryMaxBytes: 1 << 20,
			AcceptedCompressionTypes: []int8{0}, RequestedMetrics: []string{""}},
	})
	addr, _ := servertest.Start(t, coord, server.Config{})
	return addr
}

// startProxy starts a proxy in front of upstream, closed when the test
// ends.
func startProxy(t testing.TB, cfg proxy.Config) *proxy.Proxy {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	if cfg.Logf == nil {
		cfg.Logf = t.Logf
	}
	p, err := proxy.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func newConsumer(t *testing.T, bootstrap, clientID, instance string, bug clients.Bug) *clients.Consumer {
	t.Helper()
	c, err := clients.New(clients.Config{Bootstrap: bootstrap, Group: "g", Topics: []string{"alpha"}, ClientID: clientID, InstanceID: instance, Bug: bug})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// heartbeat sends n heartbeats, failing the test on an answer that is not
// NONE.
func heartbeat(t *testing.T, c *clients.Consumer, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if code, err := c.Heartbeat(); err != nil || code != codec.None {
			t.Fatalf("heartbeat %d: %v %v", i, code, err)
		}
	}
}

// verdicts checks the recording and returns each client's results by its
// ClientId.
func verdicts(t *testing.T, p *proxy.Proxy) map[string]rules.ClientResult {
	t.Helper()
	p.Close()
	out := map[string]rules.ClientResult{}
	for _, c := range rules.CheckClients(p.Recording()) {
		out[c.ClientID] = c
	}
	return out
}

// The transparent run: two clients that keep every rule (a dynamic one
// that leaves and rejoins, a static one that leaves at -2 and comes back,
// both asking for telemetry) through the proxy to ghostcheck's
// coordinator pass every rule they exercise, and adopt every change.
func TestTransparentRunPassesEveryRule(t *testing.T) {
	p := startProxy(t, proxy.Config{Upstream: serveCoordinator(t)})
	dyn := newConsumer(t, p.Addr(), "dynamic", "", clients.NoBug)
	st := newConsumer(t, p.Addr(), "static", "host-1", clients.NoBug)
	for _, c := range []*clients.Consumer{dyn, st} {
		heartbeat(t, c, 3)
		if code, err := c.Telemetry(); err != nil || code != codec.None {
			t.Fatalf("telemetry: %v %v", code, err)
		}
		if code, err := c.Leave(); err != nil || code != codec.None {
			t.Fatalf("leave: %v %v", code, err)
		}
		heartbeat(t, c, 2) // a rejoin on a new connection, then a heartbeat
	}
	got := verdicts(t, p)
	if len(got) != 2 {
		t.Fatalf("clients %v", got)
	}
	for name, c := range got {
		for _, r := range c.Results {
			if r.Outcome == rules.OutcomeViolated || r.Outcome == rules.OutcomeNotAdopted {
				t.Errorf("%s: %s %s: %s", name, r.Rule, r.Outcome, r.Detail)
			}
		}
		for _, rule := range []rules.Rule{rules.RuleMemberIDFromFirstHeartbeat, rules.RuleStableMemberID, rules.RuleUniqueMemberIDs,
			rules.RuleNoHeartbeatAfterLeave, rules.RuleClientInstanceIDInHeader, rules.RuleClientIDOnFirstRequest, rules.RuleTelemetryInstanceID} {
			if r := c.Result(rule); r.Outcome != rules.OutcomePass {
				t.Errorf("%s: %s %s, want PASS", name, rule, r.Outcome)
			}
		}
		if len(c.Conns) < 2 {
			t.Errorf("%s: %d connections recorded, want the one before and the one after the leave", name, len(c.Conns))
		}
	}
	if r := got["static"].Result(rules.RuleStaticLeaveWithInstanceID); r.Outcome != rules.OutcomePass {
		t.Errorf("static: %s %s", r.Outcome, r.Detail)
	}
}

// dropFirstJoin drops the answer to each connection's first
// ConsumerGroupHeartbeat at epoch 0, once per client id: the broker has
// made the member, the client does not know.
func dropFirstJoin() proxy.Injector {
	var mu sync.Mutex
	done := map[string]bool{}
	return proxy.InjectorFunc(func(r proxy.GroupRequest) proxy.Fault {
		mu.Lock()
		defer mu.Unlock()
		if hb := r.Heartbeat; hb != nil && hb.MemberEpoch == 0 && !done[hb.GroupId] {
			done[hb.GroupId] = true
			return proxy.Fault{Kind: proxy.DropResponse}
		}
		return proxy.Fault{}
	})
}

// A planted client bug is caught: after the join's answer is lost, a
// client that makes a new member id breaks StableMemberID, with the lost
// answer named; the same client without the bug keeps its id.
func TestPlantedBugCaught(t *testing.T) {
	for _, tc := range []struct {
		bug  clients.Bug
		want rules.Outcome
	}{
		{clients.NoBug, rules.OutcomePass},
		{clients.NewIDAfterLostResponse, rules.OutcomeViolated},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			p := startProxy(t, proxy.Config{Upstream: serveCoordinator(t), Faults: dropFirstJoin()})
			c := newConsumer(t, p.Addr(), "c1", "", tc.bug)
			if _, err := c.Heartbeat(); !errors.Is(err, wire.ErrNoResponse) {
				t.Fatalf("the first join: %v, want its answer lost", err)
			}
			heartbeat(t, c, 3)
			r := verdicts(t, p)["c1"].Result(rules.RuleStableMemberID)
			if r.Outcome != tc.want {
				t.Fatalf("StableMemberID %s (%s), want %s", r.Outcome, r.Detail, tc.want)
			}
			if tc.want == rules.OutcomeViolated && !strings.Contains(r.Detail, "no response (response dropped (the broker answered NONE)) at epoch 0") {
				t.Errorf("the detail does not name the lost answer: %s", r.Detail)
			}
		})
	}
}

// Each fault does what it says, to the client and in the recording.
func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fault     proxy.Fault
		wantCode  codec.ErrorCode
		wantErr   error
		wantFault string
		minDelay  time.Duration
	}{
		{"drop", proxy.Fault{Kind: proxy.DropResponse}, 0, wire.ErrNoResponse, "response dropped (the broker answered NONE)", 0},
		{"close", proxy.Fault{Kind: proxy.CloseAfterForward}, 0, wire.ErrNoResponse, "connection closed after forwarding", 0},
		{"delay", proxy.Fault{Kind: proxy.DelayResponse, Delay: 150 * time.Millisecond}, codec.None, nil, "response delayed 150ms", 150 * time.Millisecond},
		{"coordinator-not-available", proxy.Fault{Kind: proxy.AnswerError, Code: codec.CoordinatorNotAvailable}, codec.CoordinatorNotAvailable, nil, "answered COORDINATOR_NOT_AVAILABLE", 0},
		{"not-coordinator", proxy.Fault{Kind: proxy.AnswerError, Code: codec.NotCoordinator}, codec.NotCoordinator, nil, "answered NOT_COORDINATOR", 0},
		{"unknown-member-id", proxy.Fault{Kind: proxy.AnswerError, Code: codec.UnknownMemberID}, codec.UnknownMemberID, nil, "answered UNKNOWN_MEMBER_ID", 0},
		{"fenced-member-epoch", proxy.Fault{Kind: proxy.AnswerError, Code: codec.FencedMemberEpoch}, codec.FencedMemberEpoch, nil, "answered FENCED_MEMBER_EPOCH", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inj := proxy.InjectorFunc(func(r proxy.GroupRequest) proxy.Fault {
				if r.Heartbeat != nil && r.Heartbeat.MemberEpoch > 0 && r.N == 1 {
					return tc.fault // the first heartbeat after the join
				}
				return proxy.Fault{}
			})
			p := startProxy(t, proxy.Config{Upstream: serveCoordinator(t), Faults: inj})
			c := newConsumer(t, p.Addr(), "c1", "", clients.NoBug)
			heartbeat(t, c, 1)
			start := time.Now()
			code, err := c.Heartbeat()
			if took := time.Since(start); !errors.Is(err, tc.wantErr) && !(err == nil && tc.wantErr == nil) || code != tc.wantCode || took < tc.minDelay {
				t.Fatalf("the faulted heartbeat: %v %v after %v", code, err, took)
			}
			heartbeat(t, c, 2) // the client carries on (rejoining where it must)
			p.Close()
			var faults []string
			for _, r := range p.Recording() {
				if r.Fault != "" {
					faults = append(faults, r.Fault)
				}
			}
			if len(faults) != 1 || faults[0] != tc.wantFault {
				t.Errorf("recorded faults %q, want [%q]", faults, tc.wantFault)
			}
			if st := p.Stats(); st.Faults != 1 {
				t.Errorf("stats count %d faults", st.Faults)
			}
		})
	}
}

// An error the proxy answers itself takes its place among the answers the
// broker still owes on the connection: pipelined heartbeats are answered
// in order, under their own correlation ids, whichever of them is the
// proxy's.
func TestInjectedAnswersKeepTheOrder(t *testing.T) {
	for _, injectAt := range []int{0, 1, 2} {
		inj := proxy.InjectorFunc(func(r proxy.GroupRequest) proxy.Fault {
			if r.Heartbeat != nil && r.Heartbeat.MemberEpoch == int32(100+injectAt) {
				return proxy.Fault{Kind: proxy.AnswerError, Code: codec.NotCoordinator}
			}
			return proxy.Fault{}
		})
		p := startProxy(t, proxy.Config{Upstream: serveCoordinator(t), Faults: inj})
		w, err := wire.Dial(p.Addr(), wire.Options{Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		hm, _ := wire.NewHeaders(codec.Str("pipe"), codec.UUID{1})
		for i := 0; i < 3; i++ {
			// Heartbeats at epochs 100-102 to a group that does not exist:
			// the coordinator answers GROUP_ID_NOT_FOUND, the proxy
			// NOT_COORDINATOR.
			if err := w.Buffer(hm.Next(codec.ConsumerGroupHeartbeat, 1), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", MemberEpoch: int32(100 + i), RebalanceTimeoutMs: -1}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			resp, err := w.Receive() // wire checks the correlation ids
			if err != nil {
				t.Fatalf("inject at %d: answer %d: %v", injectAt, i, err)
			}
			want := codec.GroupIDNotFound
			if i == injectAt {
				want = codec.NotCoordinator
			}
			if got := resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode; got != want {
				t.Errorf("inject at %d: answer %d is %v, want %v", injectAt, i, got, want)
			}
		}
		w.Close()
		p.Close()
	}
}

// Past MaxConns a connection is closed at once; past MaxRecords requests
// are forwarded and counted, not recorded.
func TestLimits(t *testing.T) {
	p := startProxy(t, proxy.Config{Upstream: serveCoordinator(t), MaxConns: 1, MaxRecords: 3})
	c := newConsumer(t, p.Addr(), "c1", "", clients.NoBug)
	heartbeat(t, c, 5)
	w, err := wire.Dial(p.Addr(), wire.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	hm, _ := wire.NewHeaders(codec.Str("x"), codec.UUID{1})
	if _, err := w.Negotiate(hm, wire.NegotiateOptions{}); err == nil {
		t.Error("a connection over MaxConns was served")
	}
	c.Close()
	p.Close()
	st := p.Stats()
	if n := len(p.Recording()); n != 3 || st.Unrecorded != 3 || st.Refused != 1 || st.Requests != 6 {
		t.Errorf("%d recorded, stats %+v", n, st)
	}
}

// The same under many patterns and timings: requests written one by one
// or several at once, the proxy answering some of them, the broker the
// rest; every answer comes in order under its request's correlation id.
func TestInjectedAnswersKeepTheOrderRandom(t *testing.T) {
	inj := proxy.InjectorFunc(func(r proxy.GroupRequest) proxy.Fault {
		if r.Heartbeat != nil && r.Heartbeat.MemberEpoch >= 200 {
			return proxy.Fault{Kind: proxy.AnswerError, Code: codec.NotCoordinator}
		}
		return proxy.Fault{}
	})
	p := startProxy(t, proxy.Config{Upstream: serveCoordinator(t), Faults: inj})
	w, err := wire.Dial(p.Addr(), wire.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	hm, _ := wire.NewHeaders(codec.Str("pipe"), codec.UUID{1})
	rng := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 200; round++ {
		n := 1 + rng.IntN(8)
		want := make([]codec.ErrorCode, n)
		for i := range want {
			epoch := int32(100)
			want[i] = codec.GroupIDNotFound
			if rng.IntN(2) == 0 {
				epoch, want[i] = 200, codec.NotCoordinator
			}
			req := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", MemberEpoch: epoch, RebalanceTimeoutMs: -1}
			if err := w.Buffer(hm.Next(codec.ConsumerGroupHeartbeat, 1), req); err != nil {
				t.Fatal(err)
			}
			if rng.IntN(3) == 0 {
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			resp, err := w.Receive()
			if err != nil {
				t.Fatalf("round %d, answer %d: %v", round, i, err)
			}
			if got := resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode; got != want[i] {
				t.Fatalf("round %d, answer %d is %v, want %v", round, i, got, want[i])
			}
		}
	}
}

// CloseAfterForward closes the connection without the answer, however
// fast the broker answers: the answer to the faulted request, read before
// the connection closed, was sometimes relayed (1 in 100 runs of
// TestFaults/close), and the client saw what the recording says it did
// not.
func TestCloseAfterForwardNeverAnswers(t *testing.T) {
	up := fakeBroker(t, func(nc net.Conn) {
		br := bufio.NewReader(nc)
		for {
			corr, _, _ := readRequest(br)
			if corr < 0 {
				return
			}
			b, _ := codec.AppendResponse(nil, corr, 1, &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("m"), MemberEpoch: 2})
			nc.Write(b)
		}
	})
	inj := proxy.InjectorFunc(func(r proxy.GroupRequest) proxy.Fault { return proxy.Fault{Kind: proxy.CloseAfterForward} })
	p := startProxy(t, proxy.Config{Upstream: up, Faults: inj})
	const n = 500
	answered := 0
	for i := 0; i < n; i++ {
		w, err := wire.Dial(p.Addr(), wire.Options{Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		hm, _ := wire.NewHeaders(codec.Str("c"), codec.UUID{1})
		if _, err := w.RoundTrip(hm.Next(codec.ConsumerGroupHeartbeat, 1), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", MemberEpoch: 1, RebalanceTimeoutMs: -1}); err == nil {
			answered++
		} else if !errors.Is(err, wire.ErrNoResponse) {
			t.Fatal(err)
		}
		w.Close()
	}
	if answered > 0 {
		t.Errorf("%d of %d requests closed after forwarding were answered", answered, n)
	}
}
