package conformance_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/linearize"
)

// kfake as a peer: an in-process fake cluster on 127.0.0.1, configured
// like the ghostcheck server these tests start.
func startKfake(t testing.TB) string {
	t.Helper()
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.SeedTopics(6, "alpha"),
		kfake.SeedTopics(3, "beta"),
		kfake.SeedTopics(2, "gamma"),
		kfake.BrokerConfigs(map[string]string{
			"group.consumer.session.timeout.ms":    "800",
			"group.consumer.heartbeat.interval.ms": "100",
			"group.consumer.max.size":              "5",
			"group.max.size":                       "5", // kfake reads this one for consumer groups too
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()[0]
}

// kfakeFindings are kfake's known deviations from docs/PROTOCOL.md: each case
// here must fail against kfake with an observation containing the text
// given (so a change in kfake's behaviour shows up as a test failure, in
// either direction). The README's track record lists them.
var kfakeFindings = map[string]string{
	// K1: KIP-1082 not enforced: an empty or blank member id at v1 makes
	// kfake generate an id, and a member (a ghost if the response is lost).
	"A1/v1-join-empty-member-id":      "NONE member=",
	"A1/v1-join-blank-member-id":      "NONE member=",
	"A1/v1-heartbeat-empty-member-id": "UNKNOWN_MEMBER_ID",
	// K2: a join naming an existing member id with another instance id
	// is accepted instead of INVALID_REQUEST.
	"A1/join-existing-member-other-instance": "NONE member=",
	// K3: KIP-1313 per-connection ClientId not implemented: a request
	// with a null ClientId is attributed "", not the connection's first.
	"A2/first-clientid-remembered":  `ClientId ""`,
	"A2/later-clientid-keeps-first": `ClientId ""`,
	// K4: KIP-345 LeaveGroup on a consumer group: no removal by instance
	// id (admin removal), no FENCED_INSTANCE_ID; every entry is
	// UNKNOWN_MEMBER_ID.
	"A3/admin-removal-by-instance":     "UNKNOWN_MEMBER_ID]; describe: 1 members",
	"A3/instance-held-by-other-member": "UNKNOWN_MEMBER_ID",
	"A3/batch-per-member-errors":       "i2:UNKNOWN_MEMBER_ID",
	// K5: §B4.2 validation missing: blank group, instance and rack ids,
	// a join without rebalance timeout or subscription are accepted;
	// epoch -2 without an instance and epochs below -2 are not
	// INVALID_REQUEST.
	"B4.2/blank-group-id":                 "NONE",
	"B4.2/blank-instance-id":              "NONE",
	"B4.2/blank-rack-id":                  "NONE",
	"B4.2/join-without-rebalance-timeout": "NONE",
	"B4.2/join-without-subscription":      "NONE",
	"B4.2/static-leave-null-instance":     "UNKNOWN_MEMBER_ID",
	"B4.2/epoch-below-minus-two":          "UNKNOWN_MEMBER_ID",
	// K6: a heartbeat or leave to a missing group is UNKNOWN_MEMBER_ID
	// (kfake creates the group), not GROUP_ID_NOT_FOUND.
	"B4.4/heartbeat-missing-group": "UNKNOWN_MEMBER_ID",
	"B4.4/leave-missing-group":     "UNKNOWN_MEMBER_ID",
	// K7: a leave naming another member's instance is UNKNOWN_MEMBER_ID,
	// not FENCED_INSTANCE_ID.
	"B4.4/static-leave-fenced-instance": "UNKNOWN_MEMBER_ID",
	// K8: error responses carry the heartbeat interval (§B3.3: 0).
	"B4.4/error-response-shape": "interval=100",
	// K9: a static member parked at epoch -2 never expires: its session
	// timer is stopped on the static leave (a permanent ghost).
	"B4.4/parked-member-expires": "after 1.1s: describe: 1 members",
	// K10: LeaveGroup to a missing group or a blank group id answers
	// top-level GROUP_ID_NOT_FOUND.
	"B5/missing-group-v3":    "top GROUP_ID_NOT_FOUND",
	"B5/missing-group-v0-v2": "top GROUP_ID_NOT_FOUND",
	"B5/blank-group-id":      "top GROUP_ID_NOT_FOUND",
	// K11: an ApiVersions request of an unknown version has its body
	// parsed; one that does not parse closes the connection instead of
	// the v0 UNSUPPORTED_VERSION answer (KIP-511).
	"B7.1/unknown-version-answered-v0": "closed the connection",
	// K13: ConsumerGroupDescribe leaves TopicName empty in assignments.
	"B7.2/describe-topic-names": `names [""]`,
}

// runKfakeCases runs the cases against kfake and checks each result
// against the findings: a listed case must fail as recorded, every other
// case must pass (or skip).
func checkAgainstFindings(t *testing.T, rs []conformance.Result, findings map[string]string) {
	t.Helper()
	var b strings.Builder
	conformance.Table(&b, rs, findings)
	t.Logf("conformance of kfake:\n%s", b.String())
	for _, r := range rs {
		want, known := findings[r.Name]
		switch {
		case known && r.Status != conformance.Fail:
			t.Errorf("%s: known finding no longer reproduces (%s: %s); update the findings and the README", r.Name, r.Status, r.Observed)
		case known && !strings.Contains(r.Observed, want):
			t.Errorf("%s: fails differently than recorded: observed %q, recorded %q", r.Name, r.Observed, want)
		case !known && r.Status == conformance.Fail:
			t.Errorf("%s: new finding: observed %s; expected %s", r.Name, r.Observed, r.Expected)
		}
	}
}

func TestKfakeConformance(t *testing.T) {
	addr := startKfake(t)
	rs, err := conformance.Run(peer(addr), conformance.Select(nil, false, true), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstFindings(t, rs, kfakeFindings)
}

// The risky case (an unknown api key) runs against kfake in a child
// process: kfake panics on it (finding K12), which would kill this test
// binary.
func TestKfakeUnknownAPIKeyIsolated(t *testing.T) {
	if os.Getenv("GHOSTCHECK_KFAKE_CHILD") == "1" {
		addr := startKfake(t)
		rs, err := conformance.Run(peer(addr), conformance.Select([]string{"B1.1/unknown-api-key"}, true, false), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("child: %s %s", rs[0].Status, rs[0].Observed)
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

// The history check at the observable level, against both brokers.
func TestHistories(t *testing.T) {
	for _, b := range []struct {
		name  string
		start func(testing.TB) string
	}{{"serve", startServe}, {"kfake", startKfake}} {
		t.Run(b.name, func(t *testing.T) {
			addr := b.start(t)
			hs, err := conformance.RunHistories(conformance.HistoryConfig{Peer: peer(addr), Seed: 1, Histories: 2, Options: conformance.DefaultHistoryOptions()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hs {
				t.Logf("%s seed %d: %s %s %s (%d ops, lag %d ms)", b.name, h.Seed, h.Verdict, h.Rule, h.Detail, h.Operations, h.LagMs)
				if b.name == "serve" && h.Verdict != linearize.Ok {
					t.Errorf("ghostcheck serve, seed %d: %s %s: %s", h.Seed, h.Verdict, h.Rule, h.Detail)
				}
				// kfake: the prober's v1 join with an empty member id
				// makes a member no process holds (finding K1, seen in
				// a history): a ghost.
				if b.name == "kfake" && (h.Verdict != linearize.Illegal || h.Rule != "NoGhosts") {
					t.Errorf("kfake, seed %d: %s %s, want the recorded finding (Illegal NoGhosts, K1): %s", h.Seed, h.Verdict, h.Rule, h.Detail)
				}
			}
		})
	}
}
