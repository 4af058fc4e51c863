package conformance_test

import (
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/brokertest"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/plan"
)

// check's robustness: brokers whose ApiVersions replies do not parse,
// brokers without ConsumerGroupDescribe, brokers that die or hang in the
// middle of a case or a history, and findings already known. Each broker
// here is ghostcheck's own server behind a brokertest proxy that makes it
// differ in one way.

// startMutant serves impl with mutants, configured as startServe.
func startMutant(t testing.TB, muts impl.Mutants) string {
	t.Helper()
	coord := impl.New(impl.Config{
		Topics:              []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}, {Name: "beta", ID: model.TopicIDFor("beta"), Partitions: 3}, {Name: "gamma", ID: model.TopicIDFor("gamma"), Partitions: 2}},
		SessionTimeoutMs:    sessionTimeout.Milliseconds(),
		HeartbeatIntervalMs: int32(heartbeatInterval.Milliseconds()),
		MaxGroupSize:        maxGroupSize,
		Telemetry:           impl.TelemetryConfig{SubscriptionID: 1, PushIntervalMs: 30000, TelemetryMaxBytes: 1 << 20, AcceptedCompressionTypes: []int8{0}, RequestedMetrics: []string{""}},
		Mutants:             muts,
	})
	addr, _ := servertest.Start(t, coord, server.Config{})
	return addr
}

func differing(t testing.TB, o brokertest.Options) *brokertest.Proxy {
	return brokertest.Start(t, startServe(t), o)
}

func byName(rs []conformance.Result) map[string]conformance.Result {
	m := map[string]conformance.Result{}
	for _, r := range rs {
		m[r.Name] = r
	}
	return m
}

// A broker that answers ApiVersions v3 and v4 with garbage is negotiated
// with at v2, and the run says so; the cases still run.
func TestRunReportsApiVersionsFallback(t *testing.T) {
	t.Parallel()
	p := differing(t, brokertest.Options{GarbleApiVersionsFrom: 3})
	rep, err := conformance.Run(peer(p.Addr()), conformance.Select([]string{"B7.1/advertises", "A1/v1-join-empty"}, false, false), conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Negotiation) != 2 || !strings.Contains(rep.Negotiation[0], "v4 reply did not parse") || !strings.Contains(rep.Negotiation[1], "v3 reply did not parse") ||
		!strings.Contains(rep.Negotiation[1], "fell back to v2") {
		t.Fatalf("negotiation notes %q, want v4 and v3 not parsing, then v2", rep.Negotiation)
	}
	for _, r := range rep.Results {
		if r.Status != conformance.Pass {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Observed)
		}
	}
	h, err := conformance.RunHistories(conformance.HistoryConfig{Peer: peer(p.Addr()), Seed: 1, Histories: 1, Options: shortHistories()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Negotiation) != 2 || h.Histories[0].Status != "Ok" {
		t.Fatalf("histories: negotiation %q, %+v", h.Negotiation, h.Histories)
	}
}

func shortHistories() plan.Options {
	o := conformance.DefaultHistoryOptions()
	o.Rounds = 20
	return o
}

// Against a broker without ConsumerGroupDescribe, a case that needs it is
// SKIP with the reason, never FAIL; one whose answer already breaks the
// rule still FAILs; histories are judged from the responses and say what
// they could not check.
func TestRunWithoutDescribe(t *testing.T) {
	t.Parallel()
	hide := brokertest.Options{Hide: []codec.APIKey{codec.ConsumerGroupDescribe}}
	p := differing(t, hide)
	rep, err := conformance.Run(peer(p.Addr()), conformance.Select(nil, true, false), conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := byName(rep.Results)
	for _, r := range rep.Results {
		// The one case about advertising Describe fails, rightly.
		if (r.Status == conformance.Fail) != (r.Name == "B7.1/advertises-group-apis") || r.Status == conformance.Crash {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Observed)
		}
	}
	for name, reason := range map[string]string{
		"A1/v1-join-empty-member-id":   "INVALID_REQUEST; the rest of the rule needs ConsumerGroupDescribe, which the broker does not offer",
		"A2/first-clientid-remembered": "needs ConsumerGroupDescribe, which the broker does not offer",
		"B7.2/describe-missing-group":  "needs ConsumerGroupDescribe, which the broker does not offer",
	} {
		if r := rs[name]; r.Status != conformance.Skip || r.Observed != reason {
			t.Errorf("%s: %s %q, want SKIP %q", name, r.Status, r.Observed, reason)
		}
	}
	for _, name := range []string{"A1/join-existing-member-other-instance", "A2/header-tags-ignorable", "B1.1/trailing-bytes-ignored", "B1.1/unknown-api-key-closes"} {
		if rs[name].Status != conformance.Pass {
			t.Errorf("%s: %s %s, want PASS without Describe", name, rs[name].Status, rs[name].Observed)
		}
	}
	// A broker that makes a member for an empty v1 id: the answer alone
	// fails the case.
	bad := brokertest.Start(t, startMutant(t, impl.Mutants{}.With(impl.MutV1EmptyMemberID)), hide)
	rep, err = conformance.Run(peer(bad.Addr()), conformance.Select([]string{"A1/v1-join-empty"}, false, false), conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; r.Status != conformance.Fail || !strings.HasPrefix(r.Observed, "NONE member=") {
		t.Errorf("a member made for an empty v1 id, without Describe: %s %s, want FAIL", r.Status, r.Observed)
	}
	h, err := conformance.RunHistories(conformance.HistoryConfig{Peer: peer(p.Addr()), Seed: 1, Histories: 1, Options: shortHistories()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.Histories[0].Status != "Ok" || !slices.Contains(h.Unchecked, "NoGhosts") {
		t.Fatalf("history without Describe: %+v, unchecked %v", h.Histories[0], h.Unchecked)
	}
}

// testBroker is a broker a test launched.
type testBroker struct{ addr string }

func (b testBroker) Addr() string { return b.addr }

func (testBroker) Stop() {}

func (testBroker) Exit() (string, string) { return "", "" }

func launcher(t *testing.T, o brokertest.Options, n *atomic.Int32) conformance.Launcher {
	return func() (conformance.Launched, error) {
		n.Add(1)
		return testBroker{differing(t, o).Addr()}, nil
	}
}

// minusThree is a heartbeat at epoch -3: librdkafka's mock aborts on it.
func minusThree(_ *codec.RequestHeader, req codec.Message) bool {
	hb, ok := req.(*codec.ConsumerGroupHeartbeatRequest)
	return ok && hb.MemberEpoch < -2
}

// A broker that dies in the middle of a case: the case is CRASH with the
// request that killed it, written where `ghostcheck decode` reads it. With
// no way to start another broker the run stops there; with a launcher
// every later case runs on a fresh broker and the table is complete.
func TestRunBrokerGoneMidCase(t *testing.T) {
	t.Parallel()
	cases := conformance.Select([]string{"B4.2/"}, false, false)
	crashAt := slices.IndexFunc(cases, func(c conformance.Case) bool { return c.Name == "B4.2/epoch-below-minus-two" })
	if crashAt < 0 || crashAt == len(cases)-1 {
		t.Fatal("B4.2/epoch-below-minus-two is not a middle case of B4.2")
	}
	for _, hang := range []bool{false, true} {
		o := brokertest.Options{DieOn: minusThree, Hang: hang}
		out := t.TempDir()
		pr := peer(differing(t, o).Addr())
		pr.Timeout = 500 * time.Millisecond
		b, err := conformance.NewBroker(pr.Bootstrap, nil, 300*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := conformance.Run(pr, cases, conformance.Options{Broker: b, Out: out})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Results) != crashAt+1 || len(rep.NotRun) != len(cases)-crashAt-1 || !strings.Contains(rep.Stopped, "stopped answering during B4.2/epoch-below-minus-two") {
			t.Fatalf("hang %v: %d results, not run %v, stopped %q", hang, len(rep.Results), rep.NotRun, rep.Stopped)
		}
		r := rep.Results[crashAt]
		if r.Status != conformance.Crash || !r.Failed() || !strings.Contains(r.Observed, `the broker stopped answering after ConsumerGroupHeartbeat v1 {"GroupId"`) {
			t.Fatalf("hang %v: %s %s", hang, r.Status, r.Observed)
		}
		frame, err := os.ReadFile(r.FrameFile)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := hex.DecodeString(strings.TrimSpace(string(frame)))
		if err != nil || strings.TrimSpace(string(frame)) != r.Frame {
			t.Fatalf("frame file %q: %v", frame, err)
		}
		_, req, err := codec.DecodeRequest(raw[4:], codec.DecodeOptions{})
		if err != nil || !minusThree(nil, req) {
			t.Fatalf("the frame written is not the heartbeat at epoch -3: %v %v", req, err)
		}
	}

	var n atomic.Int32
	b, err := conformance.NewBroker(nil, launcher(t, brokertest.Options{DieOn: minusThree}, &n), 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := conformance.Run(peer(b.Addr()), cases, conformance.Options{Broker: b, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != len(cases) || rep.Stopped != "" || !b.Fresh() {
		t.Fatalf("with a launcher: %d results of %d, stopped %q", len(rep.Results), len(cases), rep.Stopped)
	}
	for i, r := range rep.Results {
		if (i == crashAt) != (r.Status == conformance.Crash) || r.Status == conformance.Fail {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Observed)
		}
	}
	if want := int32(1 + len(cases) - crashAt - 1); n.Load() != want {
		t.Errorf("%d brokers started, want %d (the first, then one per case after the crash)", n.Load(), want)
	}
}

// A broker that dies during a history: the history is CRASH; without a
// launcher the run stops, with one the next history gets a fresh broker.
func TestHistoriesBrokerGone(t *testing.T) {
	t.Parallel()
	var beats atomic.Int32
	dies := brokertest.Options{DieOn: func(_ *codec.RequestHeader, req codec.Message) bool {
		_, ok := req.(*codec.ConsumerGroupHeartbeatRequest)
		return ok && beats.Add(1) == 10
	}}
	cfg := conformance.HistoryConfig{Peer: peer(differing(t, dies).Addr()), Seed: 1, Histories: 2, Options: shortHistories()}
	cfg.Peer.Timeout = 500 * time.Millisecond
	rep, err := conformance.RunHistories(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Histories) != 1 || rep.Histories[0].Status != conformance.HistoryCrash || !rep.Histories[0].Failed() || rep.Stopped == "" {
		t.Fatalf("%+v, stopped %q", rep.Histories, rep.Stopped)
	}
	beats.Store(0)
	var n atomic.Int32
	cfg.Peer.Bootstrap = []string{differing(t, dies).Addr()}
	cfg.Broker, err = conformance.NewBroker(cfg.Peer.Bootstrap, func() (conformance.Launched, error) {
		n.Add(1)
		return testBroker{differing(t, brokertest.Options{}).Addr()}, nil
	}, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = conformance.RunHistories(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Histories) != 2 || rep.Histories[0].Status != conformance.HistoryCrash || rep.Histories[1].Status != "Ok" || n.Load() != 1 {
		t.Fatalf("with a launcher: %+v, %d started", rep.Histories, n.Load())
	}
}

// A history in which no client could join checked nothing: it is
// Unknown, not Ok.
func TestHistoryWhereNobodyJoinedIsUnknown(t *testing.T) {
	t.Parallel()
	p := differing(t, brokertest.Options{Hide: []codec.APIKey{codec.ConsumerGroupHeartbeat}})
	rep, err := conformance.RunHistories(conformance.HistoryConfig{Peer: peer(p.Addr()), Seed: 1, Histories: 1, Options: shortHistories()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := rep.Histories[0]; h.Status != "Unknown" || h.Rule != "HarnessAssumption" || !h.Failed() {
		t.Fatalf("%+v", h)
	}
}

// After a history crashed the broker, a later Run (check's risky cases)
// starts on a fresh broker, without asking the dead one its versions.
func TestRunAfterHistoryCrash(t *testing.T) {
	t.Parallel()
	var beats atomic.Int32
	dies := brokertest.Options{DieOn: func(_ *codec.RequestHeader, req codec.Message) bool {
		_, ok := req.(*codec.ConsumerGroupHeartbeatRequest)
		return ok && beats.Add(1) == 10
	}}
	var n atomic.Int32
	b, err := conformance.NewBroker([]string{differing(t, dies).Addr()}, launcher(t, brokertest.Options{}, &n), 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	pr := peer(b.Addr())
	if _, err := conformance.Run(pr, conformance.Select([]string{"B7.1/advertises"}, false, false), conformance.Options{Broker: b}); err != nil {
		t.Fatal(err)
	}
	o := shortHistories()
	o.Rounds = 10
	h, err := conformance.RunHistories(conformance.HistoryConfig{Peer: pr, Seed: 1, Histories: 1, Options: o, Broker: b}, nil)
	if err != nil || h.Histories[0].Status != conformance.HistoryCrash {
		t.Fatalf("%v %+v", err, h)
	}
	rep, err := conformance.Run(pr, conformance.Select([]string{"B4.2/join-null-regex"}, true, false), conformance.Options{Broker: b})
	if err != nil || len(rep.Results) != 1 || rep.Results[0].Status != conformance.Pass || n.Load() != 1 {
		t.Fatalf("the risky case after the crash: %v %+v, %d started", err, rep, n.Load())
	}
}
