package targets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/plan"
)

// rewrite writes the corpus file name with edit applied to its text.
func rewrite(t *testing.T, name string, edit func(string) string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../corpus/histories", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A history whose bug is gone replays as fixed, not as reproduced and not
// as an error; histories ghostcheck cannot run say what can.
func TestReplayOutcomes(t *testing.T) {
	header := func(s string) string { h, _, _ := strings.Cut(s, "\n"); return h + "\n" }
	for _, tc := range []struct {
		name, file  string
		edit        func(string) string
		pass, fixed bool
		err         string
	}{
		{"reproduced", "mutant-early-handoff.jsonl", func(s string) string { return s }, true, false, ""},
		{"fixed: the mutant is gone", "mutant-early-handoff.jsonl",
			func(s string) string { return strings.Replace(s, `"mutant":"early-handoff",`, "", 1) }, false, true, ""},
		{"no operations", "mutant-early-handoff.jsonl", header, false, false, "holds no operations"},
		{"a go test's history", "v0-lost-join-response-ghost.jsonl",
			func(s string) string {
				return strings.Replace(s, `"target":"impl"`, `"target":"go test example.com/mine -run '^TestMine$'"`, 1)
			}, false, false, "written by ghostchecktest in a go test: replay it there: go test example.com/mine -run '^TestMine$' -ghostcheck.replay=/"},
		{"a broker's history without --bootstrap", "v0-lost-join-response-ghost.jsonl",
			func(s string) string { return strings.Replace(s, `"target":"impl"`, `"target":"127.0.0.1:9092"`, 1) },
			false, false, "history of ghostcheck check against the broker at 127.0.0.1:9092: replay it against a running broker with --bootstrap HOST:PORT"},
		{"an unknown target", "v0-lost-join-response-ghost.jsonl",
			func(s string) string { return strings.Replace(s, `"target":"impl"`, `"target":"kafka"`, 1) },
			false, false, `target "kafka" is not one ghostcheck builds (impl, model) nor a broker's address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rr, err := Replay(rewrite(t, tc.file, tc.edit), ReplayOptions{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil || rr.Pass != tc.pass || rr.Fixed != tc.fixed {
				t.Fatalf("err %v, pass %v (want %v), fixed %v (want %v): %+v", err, rr.Pass, tc.pass, rr.Fixed, tc.fixed, rr.Got)
			}
		})
	}
}

// A history of ghostcheck check replays against a broker given by
// address: reproduced against the broker with the bug, fixed against one
// without.
func TestReplayCheckHistoryAgainstABroker(t *testing.T) {
	start := func(muts impl.Mutants) string {
		coord := impl.New(impl.Config{
			Topics:           []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}, {Name: "beta", ID: model.TopicIDFor("beta"), Partitions: 3}, {Name: "gamma", ID: model.TopicIDFor("gamma"), Partitions: 2}},
			SessionTimeoutMs: 800, HeartbeatIntervalMs: 100, Mutants: muts,
			Telemetry: impl.TelemetryConfig{SubscriptionID: 1, TelemetryMaxBytes: 1 << 20, AcceptedCompressionTypes: []int8{0}},
		})
		addr, _ := servertest.Start(t, coord, server.Config{})
		return addr
	}
	buggy := start(impl.Mutants{}.With(impl.MutV1EmptyMemberID))
	o := conformance.DefaultHistoryOptions()
	o.Rounds = 20
	seed := uint64(1)
	for ; !probesEmptyID(plan.New(seed, o), 12); seed++ {
	}
	dir := t.TempDir()
	peer := conformance.Peer{Bootstrap: []string{buggy}, SessionTimeout: 800 * time.Millisecond, HeartbeatInterval: 100 * time.Millisecond}
	rep, err := conformance.RunHistories(conformance.HistoryConfig{Peer: peer, Seed: seed, Histories: 1, Options: o, Out: dir}, nil)
	if err != nil || len(rep.Histories) != 1 || rep.Histories[0].File == "" {
		t.Fatalf("the check's history: %v %+v", err, rep)
	}
	file := rep.Histories[0].File
	t.Logf("seed %d: %s %s", seed, rep.Histories[0].Status, rep.Histories[0].Rule)
	if _, err := Replay(file, ReplayOptions{}); err == nil || !strings.Contains(err.Error(), "--bootstrap") {
		t.Fatalf("without --bootstrap: %v", err)
	}
	rr, err := Replay(file, ReplayOptions{Bootstrap: []string{buggy}})
	if err != nil || !rr.Pass || rr.Target != buggy {
		t.Fatalf("against the buggy broker: %v, %+v %s", err, rr.Got, rr.Detail)
	}
	rr, err = Replay(file, ReplayOptions{Bootstrap: []string{start(impl.Mutants{})}})
	if err != nil || rr.Pass || !rr.Fixed || rr.Report.Level != check.LevelObservable {
		t.Fatalf("against a correct broker: %v, %+v %s", err, rr.Got, rr.Detail)
	}
}

// probesEmptyID reports whether the plan's prober sends a v1 join with an
// empty member id before round before.
func probesEmptyID(p plan.Plan, before int) bool {
	for _, pr := range p.Probes {
		if pr.Kind == plan.ProbeEmptyMemberID && pr.Round < before {
			return true
		}
	}
	return false
}
