package clients_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
)

// franz-go's kgo (v1.22.3), a real KIP-848 client, through the recording
// proxy to an in-process kfake cluster of three brokers, one scenario per
// test: kgo is held to the client rules of docs/PROTOCOL.md Part C. What
// kgo does not implement yet (KIP-1313: no tag 0 in its headers, ClientId
// on every request) is NOT ADOPTED; where it breaks a rule it adopted, the
// violation is a known finding (kgoFindings, docs/findings.md's G rows) with the
// behaviour observed: a finding that stops reproducing, or a violation
// that is not one, fails the test.

// The kgo scenarios wait on real time (kgo's heartbeats every 100 ms and
// its fetches, over kfake): they run side by side, t.Parallel, more at
// once than GOMAXPROCS.
func TestMain(m *testing.M) {
	nettest.ParallelWaits()
	goleak.VerifyTestMain(m)
}

var (
	// G1: after UNKNOWN_MEMBER_ID kgo abandons its member id and rejoins
	// under a fresh one (consumer_group_848.go, manage848), so the member
	// its old id names is left to its session timeout, and one process
	// has had two ids.
	findingNewIDAfterUnknownMember = finding{id: "G1", rule: rules.RuleStableMemberID, detail: "its previous heartbeat got UNKNOWN_MEMBER_ID (injected by the proxy)"}
	// G2: a static member's leave (close) is epoch -2 without InstanceId
	// (leave848 sets no InstanceID), which Kafka refuses (INVALID_REQUEST,
	// §B4.2): the member is not parked and its successor is fenced.
	findingStaticLeaveNoInstance = finding{id: "G2", rule: rules.RuleStaticLeaveWithInstanceID, detail: "at epoch -2 without InstanceId (instance static-1)"}
)

// kgoEnv is a scenario's world: three kfake brokers (1 s consumer
// sessions, 100 ms heartbeats) and the proxy in front of them.
type kgoEnv struct{ *proxyEnv }

func newKgoEnv(t *testing.T, faults proxy.Injector) *kgoEnv {
	t.Helper()
	e := newProxyEnv(t, faults, kfake.NumBrokers(3), kfaketest.GroupTimers(time.Second, 100*time.Millisecond))
	e.target, e.client = "kfake (3 brokers, in-process)", "franz-go kgo v1.22.3"
	e.keepName = "kgo-" + strings.ReplaceAll(e.group, "g-TestKgo", "")
	return &kgoEnv{e}
}

// produce writes ten records to alpha, straight to the cluster.
func produce(t *testing.T, seeds []string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic("alpha"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := 0; i < 10; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte{byte(i)}}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// consumer is a KIP-848 kgo consumer of alpha through the proxy (KIP-848
// is opt-in: a cooperative-sticky balancer and ServerSideBalancer).
func (e *kgoEnv) consumer(clientID string, extra ...kgo.Opt) *kgo.Client {
	e.t.Helper()
	opts := append([]kgo.Opt{kgo.SeedBrokers(e.proxy.Addr()), kgo.ClientID(clientID), kgo.ConsumerGroup(e.group),
		kgo.ConsumeTopics("alpha"), kgo.Balancers(kgo.CooperativeStickyBalancer()), kgo.ServerSideBalancer(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.RequestTimeoutOverhead(2 * time.Second),
		kgo.RetryBackoffFn(func(int) time.Duration { return 50 * time.Millisecond })}, extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	return cl
}

// consume polls for d and returns how many records came.
func consume(cl *kgo.Client, d time.Duration) int { return consumeAtLeast(cl, d, 0) }

// consumeAtLeast is consume that goes on past d until want records came,
// for at most a minute: on a loaded machine kgo takes longer to join and
// fetch, and a test that needs every record must not need an idle one.
func consumeAtLeast(cl *kgo.Client, d time.Duration, want int) int {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := 0
	for ctx.Err() == nil && (time.Since(start) < d || n < want) {
		poll, stop := context.WithTimeout(ctx, max(d-time.Since(start), 100*time.Millisecond))
		n += cl.PollFetches(poll).NumRecords()
		stop()
	}
	return n
}

// expect holds a kgo client to its outcomes: every violation one of the
// findings (each of which must reproduce), KIP-1082's first rule PASS,
// KIP-1313's header rules NOT ADOPTED (kgo v1.22.3 implements none).
func expect(t *testing.T, c rules.ClientResult, findings ...finding) {
	t.Helper()
	expectFindings(t, c, findings)
	if r := c.Result(rules.RuleMemberIDFromFirstHeartbeat); r.Outcome != rules.OutcomePass {
		t.Errorf("MemberIDFromFirstHeartbeat %s %s", r.Outcome, r.Detail)
	}
	for _, rule := range []rules.Rule{rules.RuleClientInstanceIDInHeader, rules.RuleClientIDOnFirstRequest} {
		if r := c.Result(rule); r.Outcome != rules.OutcomeNotAdopted {
			t.Errorf("%s: %s %s; kgo v1.22.3 does not send KIP-1313 headers", rule, r.Outcome, r.Detail)
		}
	}
}

func isJoin(r proxy.GroupRequest) bool { return r.Heartbeat != nil && r.Heartbeat.MemberEpoch == 0 }
func isHeartbeat(r proxy.GroupRequest) bool {
	return r.Heartbeat != nil && r.Heartbeat.MemberEpoch > 0
}

// Steady join and consume: kgo joins through the proxy (its coordinator
// is one of three brokers), consumes every record, heartbeats, and leaves
// on close, keeping every rule it adopted.
func TestKgoSteady(t *testing.T) {
	t.Parallel()
	e := newKgoEnv(t, nil)
	cl := e.consumer("kgo-steady")
	if n := consumeAtLeast(cl, 2*time.Second, 10); n != 10 {
		t.Errorf("consumed %d records, want 10", n)
	}
	cl.Close()
	v, _ := e.verdicts()
	c := v["kgo-steady"]
	expect(t, c)
	if len(c.Brokers) != 3 {
		t.Errorf("kgo reached %d brokers through the proxy, want 3: %v", len(c.Brokers), c.Brokers)
	}
}

// close() of the consumer: kgo's last heartbeat is its leave, at epoch -1
// under its own member id, and nothing under that id follows.
func TestKgoClose(t *testing.T) {
	t.Parallel()
	e := newKgoEnv(t, nil)
	cl := e.consumer("kgo-close")
	consume(cl, time.Second)
	cl.Close()
	e.proxy.Close()
	var last *codec.ConsumerGroupHeartbeatRequest
	var member string
	for _, r := range e.proxy.Recording() {
		if hb, ok := r.Request.(*codec.ConsumerGroupHeartbeatRequest); ok {
			if member == "" {
				member = hb.MemberId
			}
			last = hb
		}
	}
	if last == nil || last.MemberEpoch != -1 || last.MemberId != member {
		t.Fatalf("the last heartbeat %+v, want a leave at -1 under %s", last, member)
	}
	v, _ := e.verdicts()
	c := v["kgo-close"]
	expect(t, c)
	if r := c.Result(rules.RuleNoHeartbeatAfterLeave); r.Outcome != rules.OutcomePass {
		t.Errorf("NoHeartbeatAfterLeave %s %s", r.Outcome, r.Detail)
	}
}

// The first heartbeat's answer is lost (the broker made the member): kgo
// reconnects and rejoins under the same member id.
func TestKgoFirstHeartbeatAnswerLost(t *testing.T) {
	t.Parallel()
	e := newKgoEnv(t, onceFor(isJoin, proxy.Fault{Kind: proxy.DropResponse}))
	cl := e.consumer("kgo-lost")
	consume(cl, 2*time.Second)
	cl.Close()
	v, _ := e.verdicts()
	c := v["kgo-lost"]
	e.faulted()
	expect(t, c)
	if r := c.Result(rules.RuleStableMemberID); r.Outcome != rules.OutcomePass {
		t.Errorf("StableMemberID %s %s", r.Outcome, r.Detail)
	}
}

// The connection is closed right after the join is forwarded (mid-join):
// kgo rejoins under the same member id.
func TestKgoConnectionClosedMidJoin(t *testing.T) {
	t.Parallel()
	e := newKgoEnv(t, onceFor(isJoin, proxy.Fault{Kind: proxy.CloseAfterForward}))
	cl := e.consumer("kgo-closed")
	consume(cl, 2*time.Second)
	cl.Close()
	v, _ := e.verdicts()
	c := v["kgo-closed"]
	e.faulted()
	expect(t, c)
}

// Each error the proxy answers to kgo's first heartbeat after its join.
// UNKNOWN_MEMBER_ID makes kgo take a new member id (G1); the others it
// survives under its id.
func TestKgoInjectedErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code     codec.ErrorCode
		findings []finding
		rejoin   bool // the next heartbeat must be a rejoin at epoch 0
	}{
		{codec.CoordinatorNotAvailable, nil, false},
		{codec.NotCoordinator, nil, false},
		{codec.UnknownMemberID, []finding{findingNewIDAfterUnknownMember}, true},
		{codec.FencedMemberEpoch, nil, true},
	} {
		t.Run(tc.code.String(), func(t *testing.T) {
			t.Parallel()
			e := newKgoEnv(t, onceFor(isHeartbeat, proxy.Fault{Kind: proxy.AnswerError, Code: tc.code}))
			cl := e.consumer("kgo-error")
			consume(cl, 2*time.Second)
			cl.Close()
			v, _ := e.verdicts()
			c := v["kgo-error"]
			e.faulted()
			expect(t, c, tc.findings...)
			if tc.rejoin {
				rejoined(t, e.proxy.Recording())
			}
		})
	}
}

// A static member restarted: the first process closes (its leave at -2
// lacks InstanceId, G2), a second process with the same instance id joins
// and consumes. Each process has its own ClientId, so the proxy tells
// them apart (kgo sends no client instance id).
func TestKgoStaticMemberRestarted(t *testing.T) {
	t.Parallel()
	e := newKgoEnv(t, nil)
	first := e.consumer("kgo-static-a", kgo.InstanceID("static-1"))
	consume(first, 1500*time.Millisecond)
	first.Close()
	second := e.consumer("kgo-static-b", kgo.InstanceID("static-1"))
	consume(second, 1500*time.Millisecond)
	second.Close()
	got, _ := e.verdicts()
	for _, id := range []string{"kgo-static-a", "kgo-static-b"} {
		t.Run(id, func(t *testing.T) { expect(t, got[id], findingStaticLeaveNoInstance) })
	}
}

// afterFault is the client's first ConsumerGroupHeartbeat after the one
// the proxy faulted, and the faulted one's member id.
func afterFault(reqs []rules.ClientRequest) (next *codec.ConsumerGroupHeartbeatRequest, faultedID string) {
	for _, r := range reqs {
		hb, ok := r.Request.(*codec.ConsumerGroupHeartbeatRequest)
		switch {
		case !ok:
		case r.Fault != "" && faultedID == "":
			faultedID = hb.MemberId
		case faultedID != "":
			return hb, faultedID
		}
	}
	return nil, faultedID
}

// rejoined fails the test unless the client's heartbeat after the faulted
// one is a rejoin (epoch 0), and says under which member id.
func rejoined(t *testing.T, reqs []rules.ClientRequest) {
	t.Helper()
	next, id := afterFault(reqs)
	switch {
	case next == nil:
		t.Error("no heartbeat after the fault")
	case next.MemberEpoch != 0:
		t.Errorf("after the error the client heartbeats at epoch %d, not a rejoin at 0", next.MemberEpoch)
	case next.MemberId == id:
		t.Logf("rejoined at epoch 0 under the same member id %s", id)
	default:
		t.Logf("rejoined at epoch 0 under a new member id %s (was %s)", next.MemberId, id)
	}
}
