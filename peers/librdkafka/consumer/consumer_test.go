package consumer_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
)

// librdkafka's consumer through the recording proxy to three kfake
// brokers, one scenario per test. What librdkafka does not implement yet
// (KIP-1313's headers) is NOT ADOPTED; where it breaks a rule it adopted,
// the violation is a known finding (docs/findings.md's R rows) with the
// behaviour observed: a finding that stops reproducing, or a violation
// that is not one, fails the test.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// finding is a rule librdkafka breaks, and how.
type finding struct {
	id     string
	rule   rules.Rule
	detail string // a substring of the violation's detail
}

// env is a scenario's world: the cluster and the proxy in front of it.
type env struct {
	t       *testing.T
	cluster *kfake.Cluster
	proxy   *proxy.Proxy
	group   string
}

// newEnv starts three kfake brokers (1 s consumer sessions, 100 ms
// heartbeats) with ten records in alpha, and the proxy with faults.
func newEnv(t *testing.T, faults proxy.Injector) *env {
	t.Helper()
	cluster := kfaketest.Start(t, kfake.NumBrokers(3), kfake.SeedTopics(6, "alpha"), kfaketest.GroupTimers(time.Second, 100*time.Millisecond))
	produce(t, cluster.ListenAddrs())
	p, err := proxy.Start(proxy.Config{Listen: "127.0.0.1:0", Upstream: cluster.ListenAddrs()[0], Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return &env{t: t, cluster: cluster, proxy: p, group: "g-" + strings.ReplaceAll(t.Name(), "/", "-")}
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

// consumer is a librdkafka KIP-848 consumer of alpha through the proxy,
// static when instance is set. Offsets are not committed, so that close()
// does not wait on commits.
func (e *env) consumer(clientID, instance string) *kafka.Consumer {
	e.t.Helper()
	cfg := &kafka.ConfigMap{"bootstrap.servers": e.proxy.Addr(), "group.id": e.group, "group.protocol": "consumer",
		"client.id": clientID, "auto.offset.reset": "earliest", "enable.auto.commit": false,
		"reconnect.backoff.ms": 20, "reconnect.backoff.max.ms": 200, "retry.backoff.ms": 20, "retry.backoff.max.ms": 200,
		"socket.connection.setup.timeout.ms": 2000, "log_level": 3}
	if instance != "" {
		(*cfg)["group.instance.id"] = instance
	}
	c, err := kafka.NewConsumer(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := c.SubscribeTopics([]string{"alpha"}, nil); err != nil {
		e.t.Fatal(err)
	}
	return c
}

// consume polls for d and returns how many records came.
func consume(c *kafka.Consumer, d time.Duration) int {
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		if _, ok := c.Poll(50).(*kafka.Message); ok {
			n++
		}
	}
	return n
}

// verdicts closes the proxy and judges the recording, by ClientId.
func (e *env) verdicts() map[string]rules.ClientResult {
	e.proxy.Close()
	out := map[string]rules.ClientResult{}
	for _, c := range rules.CheckClients(e.proxy.Recording()) {
		out[c.ClientID] = c
	}
	return out
}

// expect holds a librdkafka client to its outcomes: every violation one
// of the findings (each must reproduce), KIP-1082's first rule PASS, and
// KIP-1313's header rules NOT ADOPTED.
func expect(t *testing.T, c rules.ClientResult, findings ...finding) {
	t.Helper()
	if c.Requests == 0 {
		t.Fatal("no traffic recorded for the client")
	}
	want := map[rules.Rule]finding{}
	for _, f := range findings {
		want[f.rule] = f
	}
	for _, r := range c.Results {
		f, known := want[r.Rule]
		switch {
		case known && (r.Outcome != rules.OutcomeViolated || !strings.Contains(r.Detail, f.detail)):
			t.Errorf("finding %s (%s) did not reproduce: %s %s; want VIOLATED with %q", f.id, r.Rule, r.Outcome, r.Detail, f.detail)
		case known:
			t.Logf("known finding %s: %s: %s", f.id, r.Rule, r.Detail)
		case r.Outcome == rules.OutcomeViolated:
			t.Errorf("%s: a new violation: %s", r.Rule, r.Detail)
		default:
			t.Logf("%s: %s %s", r.Rule, r.Outcome, r.Detail)
		}
	}
	if r := c.Result(rules.RuleMemberIDFromFirstHeartbeat); r.Outcome != rules.OutcomePass {
		t.Errorf("MemberIDFromFirstHeartbeat %s %s", r.Outcome, r.Detail)
	}
	for _, rule := range []rules.Rule{rules.RuleClientInstanceIDInHeader, rules.RuleClientIDOnFirstRequest} {
		if r := c.Result(rule); r.Outcome != rules.OutcomeNotAdopted {
			t.Errorf("%s: %s %s; librdkafka 2.15.0 sends no KIP-1313 headers", rule, r.Outcome, r.Detail)
		}
	}
}

// faulted fails the test unless the proxy applied exactly one fault.
func (e *env) faulted() {
	e.t.Helper()
	if n := e.proxy.Stats().Faults; n != 1 {
		e.t.Errorf("%d faults applied, want 1", n)
	}
}

// onceFor faults the first group request pred accepts, once.
func onceFor(pred func(proxy.GroupRequest) bool, f proxy.Fault) proxy.Injector {
	var mu sync.Mutex
	done := false
	return proxy.InjectorFunc(func(r proxy.GroupRequest) proxy.Fault {
		mu.Lock()
		defer mu.Unlock()
		if !done && pred(r) {
			done = true
			return f
		}
		return proxy.Fault{}
	})
}

func isJoin(r proxy.GroupRequest) bool { return r.Heartbeat != nil && r.Heartbeat.MemberEpoch == 0 }
func isHeartbeat(r proxy.GroupRequest) bool {
	return r.Heartbeat != nil && r.Heartbeat.MemberEpoch > 0
}

// Steady join and consume, then close(): librdkafka reaches the
// coordinator through the proxy, consumes every record and leaves.
func TestSteady(t *testing.T) {
	e := newEnv(t, nil)
	c := e.consumer("rd-steady", "")
	if n := consume(c, 3*time.Second); n != 10 {
		t.Errorf("consumed %d records, want 10", n)
	}
	c.Close()
	expect(t, e.verdicts()["rd-steady"])
}

// The first heartbeat's answer is lost.
func TestFirstHeartbeatAnswerLost(t *testing.T) {
	e := newEnv(t, onceFor(isJoin, proxy.Fault{Kind: proxy.DropResponse}))
	c := e.consumer("rd-lost", "")
	consume(c, 3*time.Second)
	c.Close()
	r := e.verdicts()["rd-lost"]
	e.faulted()
	expect(t, r)
}

// The connection is closed right after the join is forwarded.
func TestConnectionClosedMidJoin(t *testing.T) {
	e := newEnv(t, onceFor(isJoin, proxy.Fault{Kind: proxy.CloseAfterForward}))
	c := e.consumer("rd-closed", "")
	consume(c, 3*time.Second)
	c.Close()
	r := e.verdicts()["rd-closed"]
	e.faulted()
	expect(t, r)
}

// Each error the proxy answers to the first heartbeat after the join.
func TestInjectedErrors(t *testing.T) {
	for _, tc := range []struct {
		code     codec.ErrorCode
		findings []finding
		rejoin   bool // the next heartbeat must be a rejoin at epoch 0
	}{
		{codec.CoordinatorNotAvailable, nil, false},
		{codec.NotCoordinator, nil, false},
		{codec.UnknownMemberID, nil, true},
		{codec.FencedMemberEpoch, nil, true},
	} {
		t.Run(tc.code.String(), func(t *testing.T) {
			e := newEnv(t, onceFor(isHeartbeat, proxy.Fault{Kind: proxy.AnswerError, Code: tc.code}))
			c := e.consumer("rd-error", "")
			consume(c, 3*time.Second)
			c.Close()
			r := e.verdicts()["rd-error"]
			e.faulted()
			expect(t, r, tc.findings...)
			if tc.rejoin {
				rejoined(t, e.proxy.Recording())
			}
		})
	}
}

// A static member restarted: the first process closes, a second with the
// same instance id joins and consumes.
func TestStaticMemberRestarted(t *testing.T) {
	e := newEnv(t, nil)
	first := e.consumer("rd-static-a", "static-1")
	consume(first, 2*time.Second)
	first.Close()
	second := e.consumer("rd-static-b", "static-1")
	consume(second, 2*time.Second)
	second.Close()
	got := e.verdicts()
	for _, id := range []string{"rd-static-a", "rd-static-b"} {
		t.Run(id, func(t *testing.T) {
			c := got[id]
			expect(t, c)
			if r := c.Result(rules.RuleStaticLeaveWithInstanceID); r.Outcome != rules.OutcomePass {
				t.Errorf("StaticLeaveWithInstanceID %s %s", r.Outcome, r.Detail)
			}
		})
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
