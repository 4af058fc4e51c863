package conformance_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/model"
)

// Timing shared by every broker these tests start: short, so a history
// and the slow cases take seconds.
const (
	sessionTimeout    = 800 * time.Millisecond
	heartbeatInterval = 100 * time.Millisecond
	maxGroupSize      = 5
)

// startServe runs ghostcheck's server (what `ghostcheck serve` runs) on
// 127.0.0.1 until the test ends.
func startServe(t testing.TB) string {
	t.Helper()
	coord := impl.New(impl.Config{
		Topics:              []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}, {Name: "beta", ID: model.TopicIDFor("beta"), Partitions: 3}, {Name: "gamma", ID: model.TopicIDFor("gamma"), Partitions: 2}},
		SessionTimeoutMs:    sessionTimeout.Milliseconds(),
		HeartbeatIntervalMs: int32(heartbeatInterval.Milliseconds()),
		MaxGroupSize:        maxGroupSize,
		Telemetry:           impl.TelemetryConfig{SubscriptionID: 1, PushIntervalMs: 30000, TelemetryMaxBytes: 1 << 20, AcceptedCompressionTypes: []int8{0}, RequestedMetrics: []string{""}},
	})
	addr, _ := servertest.Start(t, coord, server.Config{})
	return addr
}

func peer(addr string) conformance.Peer {
	return conformance.Peer{Addr: addr, SessionTimeout: sessionTimeout, HeartbeatInterval: heartbeatInterval, MaxGroupSize: maxGroupSize}
}

// ghostcheck's own server passes every case.
func TestServePassesEveryCase(t *testing.T) {
	addr := startServe(t)
	rep, err := conformance.Run(peer(addr), conformance.Select(nil, true, true), conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := rep.Results
	var b strings.Builder
	conformance.Table(&b, rs)
	t.Logf("conformance of ghostcheck serve:\n%s", b.String())
	for _, r := range rs {
		if r.Status != conformance.Pass {
			t.Errorf("%s: %s: observed %s; expected %s", r.Name, r.Status, r.Observed, r.Expected)
		}
	}
	if len(rs) != len(conformance.Cases()) {
		t.Fatalf("%d results for %d cases", len(rs), len(conformance.Cases()))
	}
}
