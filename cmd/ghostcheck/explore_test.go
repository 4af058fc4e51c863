package main

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/explore"
)

// explore on a bound small enough for a test: one dynamic client, one
// operation, no fault, is complete, says so, and exits 0.
func TestExploreCompleteExitsZero(t *testing.T) {
	code, out, errOut := run(t, "", "explore", "--clients", "1", "--static", "0", "--ops", "1", "--faults", "none", "--workers", "1")
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"complete: every reachable state explored (14 states, 19 transitions, depth 7)", "terminal states 2", "clauses of docs/PROTOCOL.md applied:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A v0 client whose join's answer is lost leaves the ghost KIP-1082
// removed: what v0 does, so the search completes, exits 0, and says how
// many states held one (in words and in JSON), not a violation.
func TestExploreV0GhostExpected(t *testing.T) {
	args := []string{"explore", "--clients", "1", "--v0", "1", "--faults", "lost-response", "--workers", "1"}
	code, out, errOut := run(t, "", args...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"complete: every reachable state explored", "the ghost KIP-1082 removed, as expected of ConsumerGroupHeartbeat v0:", "first at depth 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = run(t, "", append(args, "--json")...)
	var got struct {
		Result struct {
			Complete     bool
			V0Ghosts     uint64
			V0GhostDepth int
		}
		Violation any
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitOK || !got.Result.Complete || got.Result.V0Ghosts == 0 ||
		got.Result.V0GhostDepth != 4 || got.Violation != nil {
		t.Fatalf("--json: exit %d, %+v (%v)\n%s\n%s", code, got, err, out, errOut)
	}
}

// The command's default is explore.Default.
func TestExploreDefaultIsThePackages(t *testing.T) {
	ec, code := parseExploreFlags(nil, io.Discard)
	if code >= 0 {
		t.Fatalf("parsing no flags: exit %d", code)
	}
	d := explore.Default()
	ec.cfg.Workers = d.Workers
	if ec.cfg.Describe() != d.Describe() {
		t.Errorf("the command's default: %s\nexplore.Default:       %s", ec.cfg.Describe(), d.Describe())
	}
}

// A depth bound is said as one, and the run is complete up to it.
func TestExploreDepthBound(t *testing.T) {
	code, out, errOut := run(t, "", "explore", "--depth", "5", "--workers", "2")
	if code != exitOK || !strings.Contains(out, "complete: every reachable state up to depth 5 explored") {
		t.Fatalf("exit %d, want 0 and the bound said\n%s\n%s", code, out, errOut)
	}
}

// Worker processes (--processes) explore what workers in one process do:
// the same states, transitions and clauses.
func TestExploreWorkerProcesses(t *testing.T) {
	summary := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "complete:") {
				return l
			}
		}
		return ""
	}
	code, procs, errOut := run(t, "", "explore", "--protocol", "mixed", "--depth", "9", "--workers", "2", "--processes")
	if code != exitOK || summary(procs) == "" || !strings.Contains(procs, ", 2 worker processes\n") {
		t.Fatalf("worker processes: exit %d, want 0 and complete\n%s\n%s", code, procs, errOut)
	}
	code, inProc, errOut := run(t, "", "explore", "--protocol", "mixed", "--depth", "9", "--workers", "2")
	if code != exitOK || summary(inProc) != summary(procs) || !strings.Contains(inProc, ", 2 workers\n") {
		t.Fatalf("in process: exit %d; want 0 and what worker processes found\nprocesses:  %s\nin process: %s\n%s", code, summary(procs), summary(inProc), errOut)
	}
	clauses := func(out string) string { return out[strings.Index(out, "clauses of"):] }
	if clauses(procs) != clauses(inProc) {
		t.Errorf("clauses differ:\nprocesses:  %s\nin process: %s", clauses(procs), clauses(inProc))
	}
}

// A worker process given nothing on its input has nothing to do: it says
// so and fails.
func TestExploreWorkerWithoutASearch(t *testing.T) {
	code, _, errOut := run(t, "", exploreWorkerCommand)
	if code != exitFailed || !strings.Contains(errOut, "EOF") {
		t.Errorf("exit %d, stderr %q; want %d and the end of input said", code, errOut, exitFailed)
	}
}

// The classic protocol: a small bound is explored to the end, and a
// classic planted bug's reproduce line names the protocol.
func TestExploreClassic(t *testing.T) {
	code, out, errOut := run(t, "", "explore", "--protocol", "classic", "--clients", "1", "--static", "0", "--ops", "1", "--faults", "none")
	if code != exitOK || !strings.Contains(out, "complete: every reachable state explored") || !strings.Contains(out, "classic protocol") {
		t.Fatalf("exit %d, want 0 and complete\n%s\n%s", code, out, errOut)
	}
	args := []string{"explore", "--protocol", "classic", "--clients", "1", "--static", "0", "--ops", "1", "--faults", "none", "--mutant", "pending-never-expires", "--workers", "1", "--out", t.TempDir()}
	code, out, errOut = run(t, "", args...)
	want := "reproduce: ghostcheck explore --protocol classic --clients 1 --static 0 --ops 1 --faults none --max-faults 1 --mutant pending-never-expires --workers 1"
	if code != exitFailed || !strings.Contains(out, "violation: Linearizability at depth 5") || !strings.Contains(out, want) {
		t.Fatalf("exit %d, want 1, Linearizability at depth 5 and %q\n%s\n%s", code, want, out, errOut)
	}
}

// A planted bug is found: exit 1, the rule, the shortest trace and the
// command that gives it again; the JSON says the same.
func TestExploreFindsAMutant(t *testing.T) {
	dir := t.TempDir()
	args := []string{"explore", "--clients", "2", "--static", "0", "--ops", "1", "--faults", "none", "--mutant", "early-handoff", "--workers", "1", "--out", dir}
	code, out, errOut := run(t, "", args...)
	if code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	history := filepath.Join(dir, "explore-early-handoff.jsonl")
	for _, want := range []string{"violation: Linearizability", "shortest trace (", "reproduce: ghostcheck explore --clients 2 --static 0 --ops 1 --faults none --max-faults 1 --mutant early-handoff --workers 1",
		"corpus history: " + history, "replay:         ghostcheck replay " + history} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The history replays to what it stores, as the corpus does.
	if code, out, errOut := run(t, "", "replay", history); code != exitOK {
		t.Errorf("replay %s: exit %d\n%s\n%s", history, code, out, errOut)
	}
	code, out, _ = run(t, "", append(args, "--json")...)
	var v struct {
		Schema string `json:"schema"`
		Result struct {
			States uint64 `json:"states"`
		} `json:"result"`
		Violation *struct {
			Rule  string   `json:"rule"`
			Depth int      `json:"depth"`
			Trace []string `json:"trace"`
		} `json:"violation"`
		ExitStatus int `json:"exitStatus"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if code != exitFailed || v.Schema != "ghostcheck/explore/v1" || v.ExitStatus != 1 || v.Violation == nil || v.Violation.Rule != "Linearizability" ||
		v.Violation.Depth != len(v.Violation.Trace) || v.Result.States == 0 {
		t.Errorf("--json: exit %d, %+v", code, v)
	}
}

// A search stopped before it was done does not pass: exit 1, and it says
// where it stopped.
func TestExploreStoppedExitsOne(t *testing.T) {
	code, out, errOut := run(t, "", "explore", "--memory", "1KiB", "--workers", "1")
	if code != exitFailed || !strings.Contains(out, "stopped (memory)") {
		t.Fatalf("exit %d, want 1 and the memory cap named\n%s\n%s", code, out, errOut)
	}
}

func TestExploreUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--clients", "5"},
		{"--groups", "3"},
		{"--static", "3"},
		{"--faults", "lost"},
		{"--protocol", "quic"},
		{"--mutant", "nope"},
		{"--shard", "3/3"},
		{"--memory", "lots"},
		{"--ops", "0"},
		{"--strategy", "dfs"},
		{"extra"},
	} {
		code, _, errOut := run(t, "", append([]string{"explore"}, args...)...)
		if code != exitUsage || errOut == "" {
			t.Errorf("explore %v: exit %d, want 2 with a reason on stderr (%q)", args, code, errOut)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "512": 512, "1KiB": 1 << 10, "4GiB": 4 << 30, "1.5G": 3 << 29, "8 MiB": 8 << 20} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "GiB", "1PiB"} {
		if _, err := parseBytes(bad); err == nil {
			t.Errorf("parseBytes(%q): no error", bad)
		}
	}
}
