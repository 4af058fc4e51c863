package brokertest_test

import (
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/brokertest"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
	"github.com/ghostcheck/ghostcheck/wire"
)

// The Keeper keeps exactly the members whose last heartbeat came on a
// connection that closed, at the epoch and with the partitions last given,
// and lets a member go when its own client leaves or the broker refuses
// it.
func TestKeeper(t *testing.T) {
	topic := model.TopicIDFor("alpha")
	given := &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{{TopicId: topic, Partitions: []int32{0, 1}}}}
	join := func(id string) *codec.ConsumerGroupHeartbeatRequest {
		return &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: id, RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{"alpha"}}
	}
	ok := func(id string, epoch int32) *codec.ConsumerGroupHeartbeatResponse {
		return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(id), MemberEpoch: epoch, HeartbeatIntervalMs: 100, Assignment: given}
	}
	k := brokertest.NewKeeper()
	k.Saw(1, join("m1"), ok("m1", 3))
	k.Saw(2, join("m2"), ok("m2", 3))
	k.Saw(3, join("m3"), ok("m3", 3))
	k.Saw(3, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m3", MemberEpoch: -1}, &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("m3"), MemberEpoch: -1})
	if due := k.Due(0); len(due) != 0 {
		t.Fatalf("nothing is kept while its connection is open: %d due", len(due))
	}
	k.Closed(1, 1000)
	k.Closed(3, 1000) // m3 left: not kept
	due := k.Due(1000)
	if len(due) != 1 || due[0].MemberId != "m1" || due[0].MemberEpoch != 3 || len(due[0].TopicPartitions) != 1 {
		t.Fatalf("due at 1000: %+v, want m1's heartbeat at epoch 3 reporting what it was given", due)
	}
	if again := k.Due(1050); len(again) != 0 {
		t.Fatalf("due again before the heartbeat interval: %d", len(again))
	}
	k.Answered(due[0], ok("m1", 4))
	if next := k.Due(1100); len(next) != 1 || next[0].MemberEpoch != 4 {
		t.Fatalf("due at 1100: %+v, want m1 at its new epoch 4", next)
	}
	k.Answered(due[0], &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.FencedMemberEpoch})
	if k.Kept() != 0 || len(k.Due(5000)) != 0 {
		t.Fatalf("a member the broker refused is still kept (%d)", k.Kept())
	}
}

const (
	keeperSession  = 800 * time.Millisecond
	keeperInterval = 100 * time.Millisecond
)

// keeperBackend is ghostcheck's own server with the plans' topics.
func keeperBackend(t *testing.T) string {
	coord := impl.New(impl.Config{
		Topics:              []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}, {Name: "beta", ID: model.TopicIDFor("beta"), Partitions: 3}, {Name: "gamma", ID: model.TopicIDFor("gamma"), Partitions: 2}},
		SessionTimeoutMs:    keeperSession.Milliseconds(),
		HeartbeatIntervalMs: int32(keeperInterval.Milliseconds()),
		Telemetry:           impl.TelemetryConfig{SubscriptionID: 1, PushIntervalMs: 30000, TelemetryMaxBytes: 1 << 20, AcceptedCompressionTypes: []int8{0}, RequestedMetrics: []string{""}},
	})
	addr, _ := servertest.Start(t, coord, server.Config{})
	return addr
}

// crashSeed is the first seed from 1 whose history for `check` has a
// client that crashes.
func crashSeed(t *testing.T) uint64 {
	for seed := uint64(1); seed <= 20; seed++ {
		pl := plan.ForRealTime(seed, conformance.DefaultHistoryOptions(), plan.RealTime{SessionTimeoutMs: keeperSession.Milliseconds(), HeartbeatIntervalMs: int32(keeperInterval.Milliseconds())})
		if slices.ContainsFunc(pl.Clients, func(c plan.ClientPlan) bool { return c.Actions[len(c.Actions)-1].Kind == plan.Crash }) {
			return seed
		}
	}
	t.Fatal("no history plan in seeds 1-20 has a crash")
	return 0
}

// A broker that keeps a member alive after its connection closed (here a
// proxy heartbeating for it) fails `check`'s histories with NoGhosts: the
// crashed client's connection closes, and the history runs a session
// timeout and its slack past the crash, long enough to see the member
// outlive it. The broker behind the proxy passes the same history.
func TestKeepClosedMembersFailsCheck(t *testing.T) {
	addr := keeperBackend(t)
	seed := crashSeed(t)
	run := func(addr string) conformance.HistoryResult {
		rep, err := conformance.RunHistories(conformance.HistoryConfig{
			Peer: conformance.Peer{Bootstrap: []string{addr}, SessionTimeout: keeperSession, HeartbeatInterval: keeperInterval},
			Seed: seed, Histories: 1, Options: conformance.DefaultHistoryOptions(),
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Histories[0]
	}
	if h := run(addr); h.Status != string(history.Ok) {
		t.Fatalf("seed %d against the broker: %s %s: %s", seed, h.Status, h.Rule, h.Detail)
	}
	p := brokertest.Start(t, addr, brokertest.Options{KeepClosedMembers: true})
	h := run(p.Addr())
	if h.Status != string(history.Illegal) || h.Rule != string(rules.RuleNoGhosts) {
		t.Fatalf("seed %d through a proxy keeping closed connections' members: %s %s: %s (kept %d), want Illegal NoGhosts", seed, h.Status, h.Rule, h.Detail, p.Keeper().Kept())
	}
	t.Logf("seed %d caught: %s (%d members kept)", seed, h.Detail, p.Keeper().Kept())
	// The history ran long enough after each crash to see it.
	hist := h.Run.History
	final := hist[len(hist)-1].At
	slack := 10 * h.Run.Plan.RoundMs
	for _, c := range h.Run.Plan.Clients {
		if c.Actions[len(c.Actions)-1].Kind != plan.Crash {
			continue
		}
		for _, op := range hist {
			if op.Name == c.Name && final < op.At+keeperSession.Milliseconds()+slack {
				t.Fatalf("the history ended at t=%d ms, before %s's last request (t=%d ms) plus a session timeout and slack", final, c.Name, op.At)
			}
		}
	}
}

// The keeper's own heartbeats keep KIP-1313's headers: ClientId on its
// connection's first request only, its client instance id in every one.
func TestKeeperHeaders(t *testing.T) {
	var mu sync.Mutex
	var conns [][]codec.RequestHeader
	backend := nettest.Serve(t, func(nc net.Conn) {
		mu.Lock()
		i := len(conns)
		conns = append(conns, nil)
		mu.Unlock()
		for {
			frame, err := codec.ReadFrame(nc, nil, 1<<20)
			if err != nil {
				return
			}
			h, req, err := codec.DecodeRequest(frame, codec.DecodeOptions{})
			if err != nil {
				return
			}
			mu.Lock()
			conns[i] = append(conns[i], h)
			mu.Unlock()
			hb := req.(*codec.ConsumerGroupHeartbeatRequest)
			resp := &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(hb.MemberId), MemberEpoch: max(hb.MemberEpoch, 1), HeartbeatIntervalMs: 5}
			out, err := codec.AppendResponse(nil, h.CorrelationId, h.RequestApiVersion, resp)
			if err != nil {
				return
			}
			if _, err := nc.Write(out); err != nil {
				return
			}
		}
	})
	p := brokertest.Start(t, backend, brokertest.Options{KeepClosedMembers: true})
	w, err := wire.Dial(p.Addr(), wire.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	hm, _ := wire.NewHeaders(codec.Str("client"), codec.UUID{1})
	if _, err := w.RoundTrip(hm.Next(codec.ConsumerGroupHeartbeat, 1), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{"alpha"}}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var keeper []codec.RequestHeader
	for deadline := time.Now().Add(5 * time.Second); len(keeper) < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the keeper sent %d heartbeats in 5 s, want 3", len(keeper))
		}
		mu.Lock()
		if len(conns) == 2 {
			keeper = append([]codec.RequestHeader(nil), conns[1]...)
		}
		mu.Unlock()
	}
	for i, h := range keeper {
		if want := i == 0; h.ClientId.Valid != want {
			t.Errorf("the keeper's request %d carries ClientId %v, want it on the first request only", i+1, h.ClientId)
		}
		if !h.ClientInstanceId.Valid || h.ClientInstanceId.UUID.IsZero() {
			t.Errorf("the keeper's request %d carries no client instance id", i+1)
		}
	}
}
