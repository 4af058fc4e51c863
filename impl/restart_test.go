package impl_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
)

// The restart tests drive impl through its public API on a manual clock,
// the way model's TestRestart drives the model, with the expectations
// written by hand (the same ones). The cluster is the model rule tests':
//
//	a: 3 partitions   b: 2 partitions   c: 1 partition
//
// and a session timeout of 45000 ms.
const (
	restartGroup   = "g"
	restartClient  = "rule-client"
	restartSession = 45000
	allAB          = "a0 a1 a2 b0 b1"
	m1Of2          = "a0 a2 b1"
	m2Of2          = "a1 b0"
)

// restartTest is one impl coordinator, its clock and one client connection.
type restartTest struct {
	t     *testing.T
	c     *impl.Coordinator
	clock *impl.ManualClock
	sent  bool // the connection has carried a request (KIP-1313: ClientId only on the first)
	corr  int32
}

func newRestartTest(t *testing.T, mut impl.Mutants) *restartTest {
	t.Helper()
	return newRestartTestWith(t, mut, nil)
}

// newRestartTestWith is newRestartTest with the configuration changed by
// tweak (nil: none).
func newRestartTestWith(t *testing.T, mut impl.Mutants, tweak func(*impl.Config)) *restartTest {
	t.Helper()
	clock := impl.NewManualClock(0)
	var topics []impl.Topic
	for _, tp := range []struct {
		name string
		n    int32
	}{{"c", 1}, {"a", 3}, {"b", 2}} {
		topics = append(topics, impl.Topic{Name: tp.name, ID: model.TopicIDFor(tp.name), Partitions: tp.n})
	}
	cfg := impl.Config{
		Topics:              topics,
		SessionTimeoutMs:    restartSession,
		HeartbeatIntervalMs: 5000,
		Telemetry: impl.TelemetryConfig{
			SubscriptionID: 7, PushIntervalMs: 30000, TelemetryMaxBytes: 8,
			AcceptedCompressionTypes: []int8{0, 4}, RequestedMetrics: []string{"org.apache.kafka.consumer"},
		},
		NewID:   model.SeededIDs(1),
		Clock:   clock,
		Mutants: mut,
	}
	if tweak != nil {
		tweak(&cfg)
	}
	return &restartTest{t: t, c: impl.New(cfg), clock: clock}
}

// send hands req to the coordinator on connection 1 with a KIP-1313
// header: ClientId on the connection's first request only.
func (tc *restartTest) send(version int16, instance codec.NullableUUID, req codec.Message) codec.Message {
	tc.t.Helper()
	tc.corr++
	h := &codec.RequestHeader{RequestApiKey: req.Key(), RequestApiVersion: version, CorrelationId: tc.corr, ClientInstanceId: instance}
	if !tc.sent {
		h.ClientId = codec.Str(restartClient)
	}
	tc.sent = true
	resp, err := tc.c.Handle(impl.Conn{ID: 1, Host: "/10.0.0.7"}, h, req)
	if err != nil {
		tc.t.Fatalf("Handle(%v v%d): %v", req.Key(), version, err)
	}
	tc.check()
	return resp
}

// ok sends a heartbeat that must succeed; setup steps use it.
func (tc *restartTest) ok(req *codec.ConsumerGroupHeartbeatRequest) *codec.ConsumerGroupHeartbeatResponse {
	tc.t.Helper()
	resp := tc.send(1, codec.NullableUUID{}, req).(*codec.ConsumerGroupHeartbeatResponse)
	if resp.ErrorCode != codec.None {
		tc.t.Fatalf("setup: %s epoch %d: %v %q, want success", req.MemberId, req.MemberEpoch, resp.ErrorCode, resp.ErrorMessage.Value)
	}
	return resp
}

// advance moves the clock to at and fires the timers due, as the model's
// Advance does.
func (tc *restartTest) advance(at int64) {
	tc.t.Helper()
	tc.clock.Set(at)
	tc.c.Expire()
	tc.check()
}

func (tc *restartTest) restart() {
	tc.t.Helper()
	tc.c.Restart()
	tc.check()
}

// check requires impl's bookkeeping (session list order, rebalance heap,
// registration with the timer shard) to be consistent after every step.
func (tc *restartTest) check() {
	tc.t.Helper()
	if err := tc.c.CheckInternal(); err != nil {
		tc.t.Fatalf("impl bookkeeping: %v", err)
	}
}

// wantGroup fails the test unless the group, as Describe and Snapshot show
// it, renders as want (see render).
func (tc *restartTest) wantGroup(what, want string) {
	tc.t.Helper()
	if got := tc.render(); got != want {
		tc.t.Fatalf("%s:\ngot  %s\nwant %s", what, got, want)
	}
}

// render is group g in one line: "<state> epoch <n>: <member>; ...", a
// member being "<id>@<epoch> owns <assigned> [pending <pending>] target
// <target>" ("-" for none), members in id order.
func (tc *restartTest) render() string {
	d := tc.describe()
	if d.ErrorCode != codec.None {
		return d.ErrorCode.String()
	}
	pending := map[string]string{}
	for _, g := range tc.c.Snapshot() {
		for _, m := range g.Members {
			if g.GroupID == restartGroup && len(m.Pending) > 0 {
				var ps []string
				for _, p := range m.Pending {
					ps = append(ps, fmt.Sprintf("%s%d", p.Topic, p.Partition))
				}
				pending[m.MemberID] = " pending " + strings.Join(ps, " ")
			}
		}
	}
	var ms []string
	for _, m := range d.Members {
		ms = append(ms, fmt.Sprintf("%s@%d owns %s%s target %s", m.MemberId, m.MemberEpoch, partsOf(m.Assignment), pending[m.MemberId], partsOf(m.TargetAssignment)))
	}
	out := fmt.Sprintf("%s epoch %d", d.GroupState, d.GroupEpoch)
	if len(ms) > 0 {
		out += ": " + strings.Join(ms, "; ")
	}
	return out
}

func (tc *restartTest) describe() codec.DescribedGroup {
	tc.t.Helper()
	resp := tc.send(1, codec.NullableUUID{}, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{restartGroup}}).(*codec.ConsumerGroupDescribeResponse)
	if len(resp.Groups) != 1 {
		tc.t.Fatalf("describe: %d groups, want 1", len(resp.Groups))
	}
	return resp.Groups[0]
}

func partsOf(a codec.DescribedAssignment) string {
	var ps []string
	for _, t := range a.TopicPartitions {
		for _, p := range t.Partitions {
			ps = append(ps, fmt.Sprintf("%s%d", t.TopicName, p))
		}
	}
	if len(ps) == 0 {
		return "-"
	}
	sort.Strings(ps)
	return strings.Join(ps, " ")
}

// twoStable brings m1 and m2 (both on a and b) to a stable group at epoch
// 2, as the model tests' twoStable; m1 is static (instance i1) when static
// is set.
func twoStable(tc *restartTest, static bool) {
	j1, h1, h1b := testreq.Join(restartGroup, "m1", 60000, "a", "b"), testreq.Heartbeat(restartGroup, "m1", 1, allAB), testreq.Heartbeat(restartGroup, "m1", 1, m1Of2)
	if static {
		j1 = testreq.StaticJoin(restartGroup, "m1", "i1", 60000, "a", "b")
		h1.InstanceId, h1b.InstanceId = codec.Str("i1"), codec.Str("i1")
	}
	tc.ok(j1)
	tc.ok(testreq.Join(restartGroup, "m2", 60000, "a", "b"))
	tc.ok(h1)  // m1 must revoke a1 b0
	tc.ok(h1b) // m1 revoked them: epoch 2
	tc.ok(testreq.Heartbeat(restartGroup, "m2", 2, ""))
}

const (
	aloneM1   = "Stable epoch 1: m1@1 owns " + allAB + " target " + allAB
	stableTwo = "Stable epoch 2: m1@2 owns " + m1Of2 + " target " + m1Of2 + "; m2@2 owns " + m2Of2 + " target " + m2Of2
	emptyAt2  = "Empty epoch 2"
)

// TestRestartTimers: a restart at restartAt starts every timer afresh, so
// the group is as alive at lastAlive (one millisecond before the fresh
// deadline) and as gone at goneAt. The cases are model's TestRestart ones.
func TestRestartTimers(t *testing.T) {
	for _, c := range []struct {
		name              string
		setup             func(*restartTest)
		restartAt         int64
		lastAlive, goneAt int64
		alive, gone       string
	}{
		{
			name:      "every session starts afresh: a member outlives its old deadline by the time of the restart",
			setup:     func(tc *restartTest) { tc.ok(testreq.Join(restartGroup, "m1", 60000, "a", "b")) }, // session deadline 45000
			restartAt: 30000, lastAlive: 74999, goneAt: 75000,
			alive: aloneM1, gone: emptyAt2,
		},
		{
			name: "a parked static member's session starts afresh too",
			setup: func(tc *restartTest) {
				tc.ok(testreq.StaticJoin(restartGroup, "m1", "i1", 60000, "a", "b"))
				tc.advance(10000)
				leave := &codec.ConsumerGroupHeartbeatRequest{GroupId: restartGroup, MemberId: "m1", InstanceId: codec.Str("i1"), MemberEpoch: -2, RebalanceTimeoutMs: -1}
				if r := tc.ok(leave); r.MemberEpoch != -2 {
					tc.t.Fatalf("m1 parks at 10000: epoch %d, want -2", r.MemberEpoch)
				}
			},
			restartAt: 40000, lastAlive: 84999, goneAt: 85000,
			alive: "Reconciling epoch 1: m1@-2 owns " + allAB + " target " + allAB, gone: emptyAt2,
		},
		{
			// As in model's TestRebalanceTimeout: m1's timer runs from 200
			// to 1200; the restart at 1100 moves it to 2100.
			name: "a member waiting for revocations gets a fresh rebalance timeout",
			setup: func(tc *restartTest) {
				tc.ok(testreq.Join(restartGroup, "m1", 1000, "a", "b"))
				tc.advance(100)
				tc.ok(testreq.Join(restartGroup, "m2", 60000, "a", "b"))
				tc.advance(200)
				tc.ok(testreq.Heartbeat(restartGroup, "m1", 1, allAB)) // m1 must revoke a1 b0
			},
			restartAt: 1100, lastAlive: 2099, goneAt: 2100,
			alive: "Reconciling epoch 2: m1@1 owns " + m1Of2 + " pending " + m2Of2 + " target " + m1Of2 + "; m2@2 owns - target " + m2Of2,
			gone:  "Reconciling epoch 3: m2@2 owns - target " + allAB,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := newRestartTest(t, impl.Mutants{})
			c.setup(tc)
			tc.advance(c.restartAt)
			tc.restart()
			tc.advance(c.lastAlive)
			tc.wantGroup(fmt.Sprintf("still there at %d", c.lastAlive), c.alive)
			tc.advance(c.goneAt)
			tc.wantGroup(fmt.Sprintf("timed out at %d", c.goneAt), c.gone)
		})
	}
}

// TestRestart: what survives a restart and what is lost, as in model's
// TestRestart.
func TestRestart(t *testing.T) {
	t.Run("a member whose session ended before the restart stays gone", func(t *testing.T) {
		tc := newRestartTest(t, impl.Mutants{})
		tc.ok(testreq.Join(restartGroup, "m1", 60000, "a", "b"))
		tc.advance(45000)
		tc.restart()
		tc.wantGroup("expired at 45000, not revived", emptyAt2)
	})
	t.Run("a stable member gets no rebalance timer", func(t *testing.T) {
		tc := newRestartTest(t, impl.Mutants{})
		twoStable(tc, false)
		tc.restart()
		tc.advance(44000)
		tc.wantGroup("both still there after any rebalance timeout", stableTwo)
	})
	t.Run("groups, epochs and assignments persist; members carry on at their epochs", func(t *testing.T) {
		tc := newRestartTest(t, impl.Mutants{})
		twoStable(tc, true)
		before := fmt.Sprintf("%+v", tc.c.Snapshot())
		tc.advance(1000)
		tc.restart()
		if after := fmt.Sprintf("%+v", tc.c.Snapshot()); after != before {
			t.Fatalf("state changed across the restart:\n%s\n%s", before, after)
		}
		r := testreq.Heartbeat(restartGroup, "m1", 2, m1Of2)
		r.InstanceId = codec.Str("i1")
		if resp := tc.ok(r); resp.MemberEpoch != 2 || resp.Assignment != nil {
			t.Fatalf("m1 heartbeats at its epoch: epoch %d, assignment %+v; want epoch 2 and no assignment", resp.MemberEpoch, resp.Assignment)
		}
	})
	t.Run("sessions armed at different times, and one armed at the restart's own time, end together", func(t *testing.T) {
		tc := newRestartTest(t, impl.Mutants{})
		tc.ok(testreq.Join(restartGroup, "m3", 60000, "a", "b")) // joined out of id order: the session list is m3 m1 m2
		tc.advance(100)
		tc.ok(testreq.Join(restartGroup, "m1", 60000, "a", "b"))
		tc.advance(200)
		tc.ok(testreq.Join(restartGroup, "m2", 60000, "a", "b"))
		tc.advance(1000)
		tc.restart()
		tc.ok(testreq.Heartbeat(restartGroup, "m1", 2, "")) // at 1000 too: the same deadline, 46000
		tc.advance(45999)
		if d := tc.describe(); len(d.Members) != 3 {
			t.Fatalf("at 45999: %d members, want all 3", len(d.Members))
		}
		tc.advance(46000)
		tc.wantGroup("all three expire at 46000", "Empty epoch 6")
	})
	t.Run("the connection's ClientId is forgotten: a request without one is attributed to none", func(t *testing.T) {
		tc := newRestartTest(t, impl.Mutants{})
		tc.ok(testreq.Join(restartGroup, "m1", 60000, "a", "b")) // the connection's first request carried ClientId
		if id, ok := tc.c.ConnClientID(1); !ok || id != restartClient {
			t.Fatalf("before the restart the connection is attributed %q (known %v), want %q", id, ok, restartClient)
		}
		tc.restart()
		if id, ok := tc.c.ConnClientID(1); ok {
			t.Fatalf("after the restart the connection is still attributed %q", id)
		}
		tc.ok(testreq.Heartbeat(restartGroup, "m1", 1, allAB)) // no ClientId: not the connection's first request
		if got := tc.describe().Members[0].ClientId; got != "" {
			t.Fatalf("ClientId %q after the restart, want the empty string (the new first request carried none)", got)
		}
	})
	t.Run("telemetry client state is lost: a push needs the subscription fetched again", func(t *testing.T) {
		tc := newRestartTest(t, impl.Mutants{})
		clientA := codec.SomeUUID(codec.UUID{0xaa, 15: 0xaa})
		if r := tc.send(1, clientA, &codec.GetTelemetrySubscriptionsRequest{}).(*codec.GetTelemetrySubscriptionsResponse); r.ErrorCode != codec.None || r.SubscriptionId != 7 {
			t.Fatalf("subscribed: %v, subscription %d; want NONE, 7", r.ErrorCode, r.SubscriptionId)
		}
		tc.restart()
		push := &codec.PushTelemetryRequest{SubscriptionId: 7, Metrics: make([]byte, 8)}
		if r := tc.send(1, clientA, push).(*codec.PushTelemetryResponse); r.ErrorCode != codec.UnknownSubscriptionID {
			t.Fatalf("push after the restart: %v, want UNKNOWN_SUBSCRIPTION_ID", r.ErrorCode)
		}
	})
	t.Run("with the restart-keeps-deadlines mutant, the old session deadline holds", func(t *testing.T) {
		tc := newRestartTest(t, impl.Mutants{}.With(impl.MutRestartKeepsDeadlines))
		tc.ok(testreq.Join(restartGroup, "m1", 60000, "a", "b"))
		tc.advance(30000)
		tc.restart()
		if _, ok := tc.c.ConnClientID(1); ok {
			t.Fatal("the mutant keeps the connection's context; it should forget it")
		}
		tc.advance(45000)
		tc.wantGroup("gone at the old deadline", emptyAt2)
	})
}
