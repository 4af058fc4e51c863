package conformance_test

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/internal/releases"
)

// startServeCaps is startServe with the coordinator's advertised versions
// capped (impl.Config's MaxVersions, MinVersions, Unserved).
func startServeCaps(t testing.TB, max, min map[codec.APIKey]int16, unserved map[codec.APIKey]bool) string {
	t.Helper()
	cfg := serveConfig()
	cfg.MaxVersions, cfg.MinVersions, cfg.Unserved = max, min, unserved
	addr, _ := servertest.Start(t, impl.New(cfg), server.Config{})
	return addr
}

// startServeRelease plays a default broker of r (serve --kafka-version).
func startServeRelease(t testing.TB, r releases.Release) string {
	max, min, unserved := r.ServerCaps()
	return startServeCaps(t, max, min, unserved)
}

// The cases the issue found failing against a broker of the classic
// protocol only, and those that tell a release apart: fast ones.
var releaseCases = []string{"A2/header-tags-ignorable", "B1.1/", "B7.1/", "B5/"}

// A broker that lists only the classic group apis (JoinGroup, SyncGroup,
// Heartbeat, DescribeGroups v0-v5, LeaveGroup up to v4; no consumer
// protocol, no telemetry): nothing FAILs or is ERROR for ghostcheck's own
// requests; the framing cases ask what it serves (the unsupported-version
// case an api it lists, one version above its highest); it is held to the
// newest release whose apis it offers, and says why.
func TestClassicOnlyBroker(t *testing.T) {
	t.Parallel()
	none := int16(-1)
	addr := startServeCaps(t, map[codec.APIKey]int16{codec.LeaveGroup: 4, codec.DescribeGroups: 5, codec.ConsumerGroupHeartbeat: none,
		codec.ConsumerGroupDescribe: none, codec.GetTelemetrySubscriptions: none, codec.PushTelemetry: none}, nil, nil)
	rep, err := conformance.Run(peer(addr), conformance.Select(releaseCases, true, false), conformance.Options{InferRelease: true})
	if err != nil {
		t.Fatal(err)
	}
	if h := rep.Held; h == nil || h.Profile.Name != "3.1" || !strings.Contains(h.Line(), "LeaveGroup up to v4") || !strings.Contains(h.Line(), "--kafka-version to insist") {
		t.Errorf("held to %+v, want Kafka 3.1 naming LeaveGroup up to v4", h)
	}
	rs := byName(rep.Results)
	for _, r := range judgeable(t, rep.Results) {
		if r.Status == conformance.Fail || r.Status == conformance.Error || r.Status == conformance.Crash {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Observed)
		}
	}
	for name, want := range map[string]string{
		"A2/header-tags-ignorable":        "DescribeGroups v5",
		"B1.1/trailing-bytes-ignored":     "DescribeGroups v5",
		"B1.1/unsupported-version-closes": "Heartbeat v5 (the broker lists v0-v4)",
		"B7.1/advertises-group-apis":      "LeaveGroup v0-v4",
		"B1.1/unknown-api-key-closes":     "api key 1000",
	} {
		if r := rs[name]; r.Status != conformance.Pass || !strings.Contains(r.Observed, want) {
			t.Errorf("%s: %s %q, want PASS naming %q", name, r.Status, r.Observed, want)
		}
	}
}

// Against a default Kafka 3.9 (ConsumerGroupHeartbeat and
// ConsumerGroupDescribe v0 listed, answered UNSUPPORTED_VERSION), check
// without a release holds it to 3.9, and a case that needs the consumer
// protocol SKIPs saying the broker lists it without serving it.
func TestListedButNotServed(t *testing.T) {
	t.Parallel()
	r39, err := releases.Lookup("3.9")
	if err != nil {
		t.Fatal(err)
	}
	addr := startServeRelease(t, r39)
	rep, err := conformance.Run(peer(addr), conformance.Select([]string{"A1/v0-join-empty-member-id", "B7.2/describe-missing-group", "B4.4/heartbeat-missing-group", "B1.1/unsupported-version-closes", "B7.1/"}, true, false), conformance.Options{InferRelease: true})
	if err != nil {
		t.Fatal(err)
	}
	if h := rep.Held; h == nil || h.Profile.Name != "3.9" || !h.Exact || len(h.Unserved) != 2 {
		t.Fatalf("held to %+v, want exactly Kafka 3.9 with two apis not served", h)
	}
	for _, r := range rep.Results {
		switch r.Name {
		case "A1/v0-join-empty-member-id", "B7.2/describe-missing-group", "B4.4/heartbeat-missing-group":
			if r.Status != conformance.Skip || !strings.Contains(r.Observed, "UNSUPPORTED_VERSION") {
				t.Errorf("%s: %s %q, want SKIP saying it is listed but answered UNSUPPORTED_VERSION", r.Name, r.Status, r.Observed)
			}
		default:
			if r.Status != conformance.Pass {
				t.Errorf("%s: %s %q", r.Name, r.Status, r.Observed)
			}
		}
	}
	// Insisting on 4.2 against it: B7.1/advertises-group-apis fails,
	// naming what 4.2 lists that it does not.
	rep, err = conformance.Run(peer(addr), conformance.Select([]string{"B7.1/advertises-group-apis"}, true, false), conformance.Options{KafkaVersion: "4.2"})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; r.Status != conformance.Fail || !strings.Contains(r.Observed, "ConsumerGroupHeartbeat") {
		t.Errorf("held to 4.2: %s %q, want FAIL naming ConsumerGroupHeartbeat", r.Status, r.Observed)
	}
}
