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
	// classicSession is the session timeout the classic cases' joins
	// send (their rebalance timeout is half of it); the brokers accept
	// sessions from 100 ms, and their first rebalance waits 100 ms.
	classicSession = 1600 * time.Millisecond
	// classicMinSession and classicMaxSession are the brokers'
	// group.min.session.timeout.ms and group.max.session.timeout.ms.
	classicMinSession = 100 * time.Millisecond
	classicMaxSession = 10 * time.Minute
)

// startServe runs ghostcheck's server (what `ghostcheck serve` runs) on
// 127.0.0.1 until the test ends.
func startServe(t testing.TB) string { return startServeMutant(t, impl.Mutants{}) }

// startServeMutant is startServe with impl's planted bugs muts (what
// `ghostcheck serve --mutant NAME` runs).
func startServeMutant(t testing.TB, muts impl.Mutants) string {
	t.Helper()
	cfg := serveConfig()
	cfg.Mutants = muts
	return startServeConfig(t, cfg)
}

// startServeConfig runs ghostcheck's server with cfg until the test ends.
func startServeConfig(t testing.TB, cfg impl.Config) string {
	t.Helper()
	addr, _ := servertest.Start(t, impl.New(cfg), server.Config{})
	return addr
}

// serveConfig is the coordinator these tests serve: three topics, short
// sessions, Kafka's classic settings shortened.
func serveConfig() impl.Config {
	return impl.Config{
		Topics:              []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}, {Name: "beta", ID: model.TopicIDFor("beta"), Partitions: 3}, {Name: "gamma", ID: model.TopicIDFor("gamma"), Partitions: 2}},
		SessionTimeoutMs:    sessionTimeout.Milliseconds(),
		HeartbeatIntervalMs: int32(heartbeatInterval.Milliseconds()),
		MaxGroupSize:        maxGroupSize,
		// Classic groups: Kafka's settings, shortened.
		ClassicMinSessionTimeoutMs: int32(classicMinSession.Milliseconds()), ClassicMaxSessionTimeoutMs: int32(classicMaxSession.Milliseconds()), InitialRebalanceDelayMs: 100,
		ClassicMaxGroupSize: maxGroupSize, NewMemberJoinTimeoutMs: 300000,
		// Mixed groups: Kafka's default policy, as `serve`'s.
		MigrationPolicy: impl.MigrationBidirectional,
		Telemetry:       impl.TelemetryConfig{SubscriptionID: 1, PushIntervalMs: 30000, TelemetryMaxBytes: 1 << 20, AcceptedCompressionTypes: []int8{0}, RequestedMetrics: []string{""}},
	}
}

func peer(addr string) conformance.Peer {
	return conformance.Peer{Bootstrap: []string{addr}, SessionTimeout: sessionTimeout, HeartbeatInterval: heartbeatInterval, MaxGroupSize: maxGroupSize,
		ClassicSessionTimeout: classicSession, ClassicMaxGroupSize: maxGroupSize,
		ClassicMinSessionTimeout: classicMinSession, ClassicMaxSessionTimeout: classicMaxSession}
}

// judgeable leaves out, saying so, the results of the cases this machine
// was too slow to judge (Result.TooSlow: a loaded machine's SKIP, never a
// verdict on the broker), so a test holds the broker to the others; a
// test left with none is skipped, as it checked nothing.
func judgeable(t *testing.T, rs []conformance.Result) []conformance.Result {
	t.Helper()
	var out []conformance.Result
	for _, r := range rs {
		if r.TooSlow() {
			t.Logf("%s left out: %s", r.Name, r.Observed)
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 && len(rs) > 0 {
		t.Skipf("this machine was too slow to judge any of the %d cases", len(rs))
	}
	return out
}

// ghostcheck's own server passes every case, but those of a cluster: it
// stands alone (no Metadata, no FindCoordinator), which they SKIP saying
// so.
func TestServePassesEveryCase(t *testing.T) {
	t.Parallel()
	rep, err := runShards(func() string { return startServe(t) }, conformance.Select(nil, true, true), conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := rep.Results
	var b strings.Builder
	conformance.Table(&b, rs)
	t.Logf("conformance of ghostcheck serve:\n%s", b.String())
	for _, r := range judgeable(t, rs) {
		cluster := strings.HasPrefix(r.Name, "B4.5/") || strings.HasSuffix(r.Name, "-every-broker")
		switch {
		case cluster && r.Status == conformance.Skip && (strings.Contains(r.Observed, "needs a cluster") || strings.Contains(r.Observed, "needs FindCoordinator")):
		case r.Status != conformance.Pass:
			t.Errorf("%s: %s: observed %s; expected %s", r.Name, r.Status, r.Observed, r.Expected)
		}
	}
	if len(rs) != len(conformance.Cases()) {
		t.Fatalf("%d results for %d cases", len(rs), len(conformance.Cases()))
	}
}

// KIP-345's promise is checked over TCP: against a coordinator that
// rebalances on a static restart (serve --mutant static-restart-rebalances)
// A5.5/static-restart-keeps-assignment fails, saying the group epoch moved;
// the takeover itself still succeeds, so B4.4/static-takeover-of-parked,
// which checks only who is listed, passes, and so does
// A5.5/static-restart-then-rebalance: the rebalance keeps the instance's
// place. The mutant rebalances on a takeover by a new member id only: a
// parked member resuming under its own (A5.5/static-resume-keeps-
// assignment) is no takeover to it, and passes.
func TestStaticRestartCaseCatchesTheMutant(t *testing.T) {
	t.Parallel()
	addr := startServeMutant(t, impl.Mutants{}.With(impl.MutStaticRestartRebalances))
	rep, err := conformance.Run(peer(addr), conformance.Select([]string{"A5.5/", "B4.4/static-takeover"}, false, false), conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	conformance.Table(&b, rep.Results)
	t.Logf("against serve --mutant static-restart-rebalances:\n%s", b.String())
	want := map[string]conformance.Status{"A5.5/static-restart-keeps-assignment": conformance.Fail,
		// The rebalance keys the static member by its instance id, so
		// the next one gives the twins the same targets.
		"A5.5/static-restart-then-rebalance":  conformance.Pass,
		"A5.5/static-resume-keeps-assignment": conformance.Pass,
		"B4.4/static-takeover-of-parked":      conformance.Pass, "B4.4/static-takeover-in-full-group": conformance.Pass}
	for _, r := range rep.Results {
		if r.Status != want[r.Name] {
			t.Errorf("%s: %s (%s), want %s", r.Name, r.Status, r.Observed, want[r.Name])
		}
		if r.Status == conformance.Fail && !strings.Contains(r.Observed, "the group epoch moved") {
			t.Errorf("%s: the failure does not say the group epoch moved: %s", r.Name, r.Observed)
		}
	}
	if len(rep.Results) != len(want) {
		t.Fatalf("%d results, want %d", len(rep.Results), len(want))
	}
}

// Each case written for a rule impl's mutants broke unseen fails against
// the coordinator with that mutant planted (what scripts/check-mutants
// measures over the whole suite), and passes without it
// (TestServePassesEveryCase).
func TestCasesCatchTheirMutants(t *testing.T) {
	t.Parallel()
	for _, tc := range []mutantCases{
		{impl.MutLaterClientIDIgnored, []string{"A2/later-clientid-attributed"}},
		{impl.MutTelemetryOneAccepted, []string{"A2/telemetry-v1-reserved-instance-id", "B6/push-reserved-instance-id"}},
		{impl.MutPushV1ZeroAccepted, []string{"A2/push-v1-zero-instance-id"}},
		{impl.MutNullOwnedReleases, []string{"A5.3/null-owned-keeps-pending"}},
		{impl.MutTakeoverKeysByMemberID, []string{"A5.5/static-restart-then-rebalance"}},
		{impl.MutParkKeepsPending, []string{"B4.4/static-leave-drops-pending"}},
		{impl.MutStaticLeaveRefreshesSession, []string{"B4.4/static-leave-keeps-session"}},
		{impl.MutLeaveGroupUnknownInstanceByID, []string{"A3/member-id-unknown-instance"}},
		{impl.MutLeaveGroupBatchStopsAtError, []string{"A3/batch-error-then-removal"}},
		{impl.MutNewStaticMemberNoBump, []string{"A5.1/static-join-moves-epoch"}},
		{impl.MutEpochOneAheadAccepted, []string{"A5.4/epoch-one-ahead-fenced"}},
		{impl.MutRevocationNotSent, []string{"A5.7/revocation-carries-assignment"}},
		{impl.MutLeaveNoBump, []string{"B4.4/leave-moves-epoch"}},
		{impl.MutStaticLeaveUnknownInstanceNone, []string{"B4.4/static-leave-unknown-instance"}},
		{impl.MutRegexNotCompiled, []string{"B4.4/invalid-regex"}},
		{impl.MutDescribeFirstClientID, []string{"B7.2/describe-renamed-client"}},
		{impl.MutEpochBumpSendsAssignment, []string{"A5.7/epoch-bump-no-assignment"}},
		{impl.MutPushSubscriptionUnchecked, []string{"B6/push-unknown-subscription"}},
		{impl.MutPushCompressionUnchecked, []string{"B6/push-unsupported-compression"}},
		{impl.MutPushNotRecorded, []string{"B6/push-throttled"}},
		{impl.MutPushTooLargeAccepted, []string{"B6/push-too-large"}},
		{impl.MutGetNotRecorded, []string{"B6/get-throttled"}},
		{impl.MutPushAfterTerminatingAccepted, []string{"B6/push-after-terminating"}},
		{impl.MutRebalanceTimerRearmed, []string{"A5.6/rebalance-timeout-fences"}},
		{impl.MutRevokingTakesNewTarget, []string{"A5.3/still-revoking-keeps-assignment"}},
		{impl.MutFreePartitionsHeldBack, []string{"A5.3/free-partitions-assigned"}},
	} {
		t.Run(tc.mutant.String(), func(t *testing.T) {
			t.Parallel()
			tc.failAgainstServe(t)
		})
	}
}

// mutantCases are cases that fail against serve with mutant planted.
type mutantCases struct {
	mutant impl.Mutant
	cases  []string
}

// failAgainstServe runs the cases against serve --mutant and holds each
// to FAIL.
func (tc mutantCases) failAgainstServe(t *testing.T) {
	t.Helper()
	addr := startServeMutant(t, impl.Mutants{}.With(tc.mutant))
	rep, err := conformance.Run(peer(addr), conformance.Select(tc.cases, false, true), conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]conformance.Status{}
	slow := map[string]bool{}
	for _, r := range rep.Results {
		got[r.Name] = r.Status
		slow[r.Name] = r.TooSlow()
		t.Logf("%s: %s: %s", r.Name, r.Status, r.Observed)
	}
	for _, name := range tc.cases {
		if got[name] != conformance.Fail && !slow[name] {
			t.Errorf("%s: %s against --mutant %s, want FAIL", name, got[name], tc.mutant)
		}
	}
}
