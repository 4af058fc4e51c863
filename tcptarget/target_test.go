package tcptarget_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/brokertest"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
	"github.com/ghostcheck/ghostcheck/tcptarget"
	"github.com/ghostcheck/ghostcheck/wire"
)

// apiVersionsOnly is a broker on 127.0.0.1 that answers ApiVersions
// (offering ConsumerGroupHeartbeat v0-v1) and closes the connection on
// anything else, as a broker does to a request it cannot parse.
func apiVersionsOnly(t *testing.T) string {
	t.Helper()
	return nettest.Serve(t, func(nc net.Conn) {
		_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
		for {
			frame, err := codec.ReadFrame(nc, nil, 1<<20)
			if err != nil {
				return
			}
			var h codec.RequestHeader
			if _, err := codec.ParseRequestHeader(frame, &h, codec.DecodeOptions{}); err != nil || h.RequestApiKey != codec.ApiVersions {
				return
			}
			r := codec.NewApiVersionsResponse()
			r.ApiKeys = []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MaxVersion: 4}, {ApiKey: codec.ConsumerGroupHeartbeat, MaxVersion: 1}}
			out, err := codec.AppendResponse(nil, h.CorrelationId, h.RequestApiVersion, r)
			if err != nil {
				return
			}
			if _, err := nc.Write(out); err != nil {
				return
			}
		}
	})
}

// The TCP target's errors keep the driver's meaning: a request the broker
// closed the connection on has an unknown outcome (ErrNoResponse, and
// wire's ErrConnClosed), one above the versions offered is refused
// locally, unsent (not ErrNoResponse).
func TestTargetErrors(t *testing.T) {
	target, err := tcptarget.Dial(context.Background(), []string{apiVersionsOnly(t)}, wire.ClusterOptions{Dialer: wire.Dialer{Options: wire.Options{Timeout: 2 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	if got := target.Versions().Max(codec.ConsumerGroupHeartbeat); got != 1 {
		t.Fatalf("the negotiated versions should offer ConsumerGroupHeartbeat up to v1, say v%d", got)
	}
	hb := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", RebalanceTimeoutMs: -1}
	h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 2, CorrelationId: 1, ClientInstanceId: codec.SomeUUID(codec.UUID{1})}
	_, err = target.Handle(driver.Conn{ID: 1}, h, hb)
	if !errors.Is(err, tcptarget.ErrVersionNotOffered) || errors.Is(err, driver.ErrNoResponse) {
		t.Fatalf("a version above the broker's should be refused locally, unsent: %v", err)
	}
	h.RequestApiVersion = 1
	_, err = target.Handle(driver.Conn{ID: 1}, h, hb)
	if !errors.Is(err, driver.ErrNoResponse) || !errors.Is(err, wire.ErrConnClosed) {
		t.Fatalf("a closed connection should be an unknown outcome: %v", err)
	}
}

// startImpl serves ghostcheck's coordinator (800 ms sessions, 100 ms
// heartbeats) with mutants on 127.0.0.1 until the test ends.
func startImpl(t *testing.T, muts impl.Mutants) string {
	t.Helper()
	coord := impl.New(impl.Config{
		Topics:              []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}, {Name: "beta", ID: model.TopicIDFor("beta"), Partitions: 3}, {Name: "gamma", ID: model.TopicIDFor("gamma"), Partitions: 2}},
		SessionTimeoutMs:    800,
		HeartbeatIntervalMs: 100,
		Telemetry:           impl.TelemetryConfig{SubscriptionID: 1, PushIntervalMs: 30000, TelemetryMaxBytes: 1 << 20, AcceptedCompressionTypes: []int8{0}, RequestedMetrics: []string{""}},
		Mutants:             muts,
	})
	addr, _ := servertest.Start(t, coord, server.Config{})
	return addr
}

// A broker whose ApiVersions v3+ replies do not parse is negotiated with
// at v2, and the target says how.
func TestTargetNegotiationNotes(t *testing.T) {
	p := brokertest.Start(t, startImpl(t, impl.Mutants{}), brokertest.Options{GarbleApiVersionsFrom: 3})
	target, err := tcptarget.Dial(context.Background(), []string{p.Addr()}, wire.ClusterOptions{Dialer: wire.Dialer{Options: wire.Options{Timeout: 2 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	n := target.Negotiation()
	if n.Version != 2 || len(n.Notes) != 2 || !strings.Contains(n.Notes[0], "v4 reply did not parse") || !strings.Contains(n.Notes[1], "fell back to v2") {
		t.Fatalf("settled at v%d, notes %q; want v2 after two fallbacks", n.Version, n.Notes)
	}
	if target.Versions().Max(codec.ConsumerGroupHeartbeat) != 1 {
		t.Fatalf("versions %v", target.Versions())
	}
	// The driver's clients ask at v4; the target asks at v2, which works,
	// so they can go on and join.
	h := &codec.RequestHeader{RequestApiKey: codec.ApiVersions, RequestApiVersion: 4, CorrelationId: 1, ClientId: codec.Str("c"), ClientInstanceId: codec.SomeUUID(codec.UUID{1})}
	resp, err := target.Handle(driver.Conn{ID: 1}, h, &codec.ApiVersionsRequest{ClientSoftwareName: "c", ClientSoftwareVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if r := resp.(*codec.ApiVersionsResponse); r.ErrorCode != codec.None || len(r.ApiKeys) == 0 || h.RequestApiVersion != 4 {
		t.Fatalf("ApiVersions v4 through the target: %v %d keys (the driver's header says v%d)", r.ErrorCode, len(r.ApiKeys), h.RequestApiVersion)
	}
}

// runTCP runs the plan of seed against the broker at addr and checks it at
// the observable level.
func runTCP(t *testing.T, addr string, seed uint64) (*tcptarget.Target, *check.Report) {
	t.Helper()
	target, err := tcptarget.Dial(context.Background(), []string{addr}, wire.ClusterOptions{Dialer: wire.Dialer{Options: wire.Options{Timeout: 2 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	o := plan.DefaultOptions()
	o.Rounds, o.Restarts = 30, false
	p := plan.ForRealTime(seed, o, plan.RealTime{SessionTimeoutMs: 800, HeartbeatIntervalMs: 100})
	res, err := driver.Run(target, p)
	target.Close()
	if err != nil {
		t.Fatal(err)
	}
	return target, check.Check(res, check.Options{Level: check.LevelObservable, LagMs: target.MaxLagMs(), SessionTimeoutMs: 800})
}

// Without ConsumerGroupDescribe a history is judged from the responses
// alone: a ghost that only Describe shows (a parked static member that
// never expires) is not reported, and the target lists the rules it could
// not check; with Describe the same broker is caught.
func TestTargetWithoutDescribe(t *testing.T) {
	addr := startImpl(t, impl.Mutants{}.With(impl.MutParkedNeverExpires))
	seed := uint64(0)
	for s := uint64(1); s <= 6 && seed == 0; s++ {
		target, rep := runTCP(t, addr, s)
		if len(target.Unchecked()) != 0 {
			t.Fatalf("a broker with Describe: unchecked %v", target.Unchecked())
		}
		if rep.Rule == string(rules.RuleNoGhosts) {
			seed = s
		}
	}
	if seed == 0 {
		t.Fatal("no history in 6 caught the parked member that never expires")
	}
	p := brokertest.Start(t, addr, brokertest.Options{Hide: []codec.APIKey{codec.ConsumerGroupDescribe}})
	target, rep := runTCP(t, p.Addr(), seed)
	if rep.Verdict != history.Ok {
		t.Fatalf("seed %d without Describe: %s %s: %s (nothing the responses show is wrong)", seed, rep.Verdict, rep.Rule, rep.Detail)
	}
	un := target.Unchecked()
	if !slices.Contains(un, rules.RuleNoGhosts) || !slices.Contains(un, rules.RuleQuiescentMembership) || slices.Contains(un, rules.RuleObservableResponse) {
		t.Fatalf("unchecked without Describe: %v", un)
	}
}
