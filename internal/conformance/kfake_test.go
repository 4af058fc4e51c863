package conformance_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
)

// startKfake starts kfake as a peer, configured like the ghostcheck
// server these tests start (startServe), and returns its address.
func startKfake(t testing.TB) string {
	t.Helper()
	return startKfakeCluster(t, 1).ListenAddrs()[0]
}

// startKfakeCluster is startKfake with n brokers: kfake spreads the
// groups' coordinators over them (a hash of the group id).
func startKfakeCluster(t testing.TB, n int, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	return kfaketest.Start(t, append([]kfake.Opt{
		kfake.NumBrokers(n),
		kfake.SeedTopics(6, "alpha"),
		kfake.SeedTopics(3, "beta"),
		kfake.SeedTopics(2, "gamma"),
		kfaketest.GroupTimers(sessionTimeout, heartbeatInterval),
		kfake.GroupMinSessionTimeout(classicMinSession), // the classic cases' 1.6 s sessions
		kfake.GroupMaxSessionTimeout(classicMaxSession),
		kfake.BrokerConfigs(map[string]string{
			"group.consumer.max.size": strconv.Itoa(maxGroupSize),
			"group.max.size":          strconv.Itoa(maxGroupSize), // kfake reads this one for consumer groups too
		}),
	}, opts...)...)
}

// kfakeKnown are kfake's known deviations from docs/PROTOCOL.md
// (testdata/kfake.known, docs/findings.md): each case listed must
// fail against kfake with an observation containing the text recorded,
// and no other case may fail, so a change in kfake's behaviour shows up
// as a test failure, in either direction. `ghostcheck check --known` reads
// the same file.
func kfakeKnown(t testing.TB) *conformance.Known {
	t.Helper()
	k, err := conformance.LoadKnown("testdata/kfake.known")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// checkAgainstFindings holds results to the known findings. A case N/A
// because its rule is in no release the broker is held to (ShipsIn) must
// be one whose rule no release ships; an N/A for what the broker does not
// serve (mixed groups, A7) says so in its observation.
func checkAgainstFindings(t *testing.T, who string, rs []conformance.Result, k *conformance.Known) {
	t.Helper()
	var b strings.Builder
	conformance.Table(&b, rs)
	t.Logf("conformance of %s:\n%s", who, b.String())
	for _, m := range k.Mismatches(rs) {
		t.Error(m)
	}
	for _, r := range rs {
		if s, err := conformance.ShipsOf(r.Source); r.Status == conformance.NotApplicable && r.ShipsIn != "" && (err != nil || s.Shipped) {
			t.Errorf("%s: N/A, but its rule ships (%s)", r.Name, r.Source)
		}
	}
}

// asCheck are the options `ghostcheck check` runs with by default: the
// newest Kafka release, so a rule no release ships is N/A, not a finding.
func asCheck(k *conformance.Known) conformance.Options {
	return conformance.Options{Known: k, KafkaVersion: conformance.NewestRelease}
}

func TestKfakeConformance(t *testing.T) {
	t.Parallel()
	addr := startKfake(t)
	k := kfakeKnown(t)
	cases := conformance.Select(nil, false, true)
	rep, err := runShards(func() string { return startKfake(t) }, cases, asCheck(k))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != len(cases) {
		t.Fatalf("%d results for %d cases", len(rep.Results), len(cases))
	}
	checkAgainstFindings(t, "kfake", judgeable(t, rep.Results), k)
	// Held to every rule (--kafka-version next), the N/A ones fail: kfake
	// does what every released Kafka does there.
	next, err := conformance.Run(peer(addr), conformance.Select([]string{"A1/join-existing-member-other-instance", "A2/first-clientid-remembered"}, false, false),
		conformance.Options{Known: k, KafkaVersion: conformance.ReleaseNext})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range next.Results {
		if r.Status != conformance.Fail {
			t.Errorf("%s under --kafka-version next: %s %s, want FAIL (a rule no release ships, which kfake does not follow)", r.Name, r.Status, r.Observed)
		}
	}
}

// Against three kfake brokers, the coordinators of the cases' groups
// spread over all three, every case gives what it gives against one
// broker: the same status and the same findings, nothing new, no
// NOT_COORDINATOR judged; the cluster's own cases, which SKIP against one
// broker, run.
func TestKfakeClusterConformance(t *testing.T) {
	t.Parallel()
	k := kfakeKnown(t)
	cases := conformance.Select(nil, false, true)
	one, err := runShards(func() string { return startKfake(t) }, cases, asCheck(k))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runShards(func() string { return startKfakeCluster(t, 3).ListenAddrs()[0] }, cases, asCheck(k))
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Results) != len(cases) || len(rep.Results) != len(cases) {
		t.Fatalf("%d and %d results for %d cases", len(one.Results), len(rep.Results), len(cases))
	}
	checkAgainstFindings(t, "kfake, 3 brokers", judgeable(t, rep.Results), k)
	// Cases that wait on real time (sessions of about a second) can miss a
	// deadline on one side on a loaded machine: a case whose results
	// differ runs again alone on both sides, twice at most, and only a
	// difference that stays is one.
	one1, c := peer(startKfake(t)), startKfakeCluster(t, 3)
	for try := 0; try < 2; try++ {
		again := 0
		for i := range rep.Results {
			if len(conformance.ClusterDiffers(one.Results[i:i+1], rep.Results[i:i+1])) == 0 {
				continue
			}
			again++
			only := []conformance.Case{cases[i]}
			a, err := conformance.Run(one1, only, asCheck(k))
			if err != nil {
				t.Fatal(err)
			}
			b, err := conformance.Run(peer(c.ListenAddrs()[0]), only, asCheck(k))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s ran again alone: %s against one broker, %s against the cluster", cases[i].Name, a.Results[0].StatusText(), b.Results[0].StatusText())
			one.Results[i], rep.Results[i] = a.Results[0], b.Results[0]
		}
		if again == 0 {
			break
		}
	}
	for _, d := range conformance.ClusterDiffers(one.Results, rep.Results) {
		t.Error(d)
	}
	on := map[int32]int{}
	for _, r := range rep.Results {
		on[r.Broker]++
		for _, step := range r.Route {
			t.Logf("%s: %s", r.Name, step)
		}
	}
	t.Logf("cases per broker: %v", on)
	if on[0] == 0 || on[1] == 0 || on[2] == 0 {
		t.Errorf("the cases spoke to brokers %v: want all three", on)
	}
}

// The risky case (an unknown api key) runs against kfake in a child
// process: kfake panics on it (finding K12), which would kill this test
// binary.
func TestKfakeUnknownAPIKeyIsolated(t *testing.T) {
	t.Parallel()
	if os.Getenv("GHOSTCHECK_KFAKE_CHILD") == "1" {
		addr := startKfake(t)
		rep, err := conformance.Run(peer(addr), conformance.Select([]string{"B1.1/unknown-api-key"}, true, false), asCheck(kfakeKnown(t)))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("child: %s %s", rep.Results[0].Status, rep.Results[0].Observed)
		// The panic runs kfake's deferred Close before it kills the
		// process: wait, so the child cannot exit 0 first.
		time.Sleep(time.Second)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKfakeUnknownAPIKeyIsolated$", "-test.v")
	cmd.Env = append(os.Environ(), "GHOSTCHECK_KFAKE_CHILD=1")
	out, err := cmd.CombinedOutput()
	crashed := err != nil && strings.Contains(string(out), "nil pointer dereference")
	if !crashed {
		t.Fatalf("finding K12 no longer reproduces: kfake survived an unknown api key (err %v):\n%s", err, tail(string(out), 20))
	}
	t.Logf("finding K12 reproduced: kfake's process died:\n%s", tail(string(out), 12))
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// The history check at the observable level, against both brokers: ours
// is Ok; kfake's known findings are set aside (the prober's v1 join with
// an empty member id, which makes kfake a ghost, K1, is left out; a
// parked static member that never expires, K9, is KNOWN), and nothing
// else may fail.
func TestHistories(t *testing.T) {
	t.Parallel()
	for _, b := range []struct {
		name  string
		start func(testing.TB) string
		known func(testing.TB) *conformance.Known
	}{{"serve", startServe, func(testing.TB) *conformance.Known { return nil }}, {"kfake", startKfake, kfakeKnown}} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			addr := b.start(t)
			rep, err := conformance.RunHistories(conformance.HistoryConfig{Peer: peer(addr), Seed: 1, Histories: 2, Options: conformance.DefaultHistoryOptions(), Known: b.known(t)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: left out %v", b.name, rep.LeftOut)
			if len(rep.Histories) != 2 {
				t.Fatalf("%s: %d histories run, want 2 (stopped: %s)", b.name, len(rep.Histories), rep.Stopped)
			}
			for _, h := range rep.Histories {
				t.Logf("%s seed %d: %s %s %s known %v (%d ops, lag %d ms, stall %d ms)", b.name, h.Seed, h.Status, h.Rule, h.Detail, h.Known, h.Operations, h.LagMs, h.StallMs)
				// kfake: with K1's probe left out, what remains is K9's
				// parked members (KNOWN); nothing else.
				if h.Failed() || b.name == "serve" && h.Status != string(history.Ok) {
					t.Errorf("%s, seed %d: %s %s: %s", b.name, h.Seed, h.Status, h.Rule, h.Detail)
				}
			}
		})
	}
}

// A case whose group's coordinator moves while it runs is SKIP, saying
// so, never FAIL: kfake's coordinators are moved at every
// ConsumerGroupHeartbeat after the case's first, so its requests meet
// NOT_COORDINATOR, which the cluster retries and the result records.
func TestKfakeMoveDuringCaseIsSkip(t *testing.T) {
	c := startKfakeCluster(t, 3)
	var beats atomic.Int32
	c.ControlKey(int16(codec.ConsumerGroupHeartbeat), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if beats.Add(1) > 1 {
			group := req.(*kmsg.ConsumerGroupHeartbeatRequest).Group
			// kfake's admin calls wait for its run loop, which runs
			// this function: the move is made while it sleeps.
			c.SleepControl(func() {
				if !moveCoordinator(c, group) {
					t.Errorf("group %s: its coordinator did not move in %d rehashes", group, maxRehashes)
				}
			})
		}
		return nil, nil, false
	})
	rep, err := conformance.Run(peer(c.ListenAddrs()[0]), conformance.Select([]string{"B4.4/leave-twice"}, false, false), asCheck(kfakeKnown(t)))
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Status != conformance.Skip || !strings.Contains(r.Observed, "coordinator") || len(r.Route) == 0 {
		t.Fatalf("%s %s (route %v): want SKIP saying the coordinator moved", r.Status, r.Observed, r.Route)
	}
	t.Logf("%s: %s; route %v", r.Status, r.Observed, r.Route)
}

// maxRehashes bounds moveCoordinator: each rehash leaves a group where it
// was with a chance of one in the cluster's size.
const maxRehashes = 64

// moveCoordinator rehashes kfake's coordinators until group's is another
// broker (a rehash alone may leave it in place), at most maxRehashes
// times; false: it never moved.
func moveCoordinator(c *kfake.Cluster, group string) bool {
	old := c.CoordinatorFor(group)
	for i := 0; i < maxRehashes; i++ {
		c.RehashCoordinators()
		if c.CoordinatorFor(group) != old {
			return true
		}
	}
	return false
}
