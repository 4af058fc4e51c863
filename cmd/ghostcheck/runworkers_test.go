package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/history"
)

// runWith parses args as run's flags and runs the phases with ctx,
// recording every history counted.
func runWith(t *testing.T, ctx context.Context, args []string, hook func(version int, h historyRecord)) (runConfig, runOutcome, map[int][]historyRecord) {
	t.Helper()
	cfg, code := parseRunFlags(append(args, "--out", t.TempDir()), io.Discard)
	if code >= 0 {
		t.Fatalf("%v: exit %d", args, code)
	}
	var mu sync.Mutex
	seen := map[int][]historyRecord{}
	cfg.onHistory = func(col column, h historyRecord) {
		mu.Lock()
		seen[col.hv] = append(seen[col.hv], h)
		mu.Unlock()
		if hook != nil {
			hook(col.hv, h)
		}
	}
	return cfg, runPhases(ctx, cfg, newProgress(io.Discard)), seen
}

// comparable is a column's summary without what depends on the clock.
func comparable(ps *phaseSummary) phaseSummary {
	c := *ps
	c.Seconds, c.series, c.first = 0, historySeries{}, nil
	if ps.Failure != nil { // its files are in each run's own directory
		f := *ps.Failure
		f.History, f.Timeline, f.Replay = "", "", ""
		c.Failure = &f
	}
	return c
}

// The same seeds give the same histories, verdicts, faults and summary on
// 1 worker and on 4: histories are independent and counted in seed order.
func TestWorkersGiveTheSameResults(t *testing.T) {
	for _, args := range [][]string{
		{"--histories", "30"},                              // v1 then the v0 control, whose histories fail
		{"--histories", "12", "--mutant", "early-handoff"}, // failures, shrunk and reported
	} {
		_, one, seen1 := runWith(t, context.Background(), append(args, "--workers", "1"), nil)
		_, four, seen4 := runWith(t, context.Background(), append(args, "--workers", "4"), nil)
		if !reflect.DeepEqual(seen1, seen4) {
			t.Fatalf("%v: the histories differ between 1 and 4 workers", args)
		}
		if len(one.phases) != len(four.phases) {
			t.Fatalf("%v: %d columns vs %d", args, len(one.phases), len(four.phases))
		}
		for i := range one.phases {
			a, b := comparable(one.phases[i]), comparable(four.phases[i])
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%v: column %s differs:\n1 worker:  %+v\n4 workers: %+v", args, a.Label, a, b)
			}
			if a.Histories == 0 {
				t.Errorf("%v: column %s checked nothing", args, a.Label)
			}
		}
	}
}

// --failfast stops at the first failing history, the same one for any
// number of workers, and counts nothing after it; the v0 control's
// expected failures do not stop it.
func TestFailfast(t *testing.T) {
	var got []int
	for _, w := range []string{"1", "3"} {
		_, out, _ := runWith(t, context.Background(), []string{"--histories", "40", "--mutant", "early-handoff", "--failfast", "--workers", w}, nil)
		p := out.phases[0]
		if out.failfast == "" || p.Failure == nil || len(p.Failing) != 1 || p.Histories != int(p.Failing[0].Seed) || out.exit() != exitFailed {
			t.Fatalf("workers %s: failfast %q, %d histories, failing %+v", w, out.failfast, p.Histories, p.Failing)
		}
		got = append(got, p.Histories)
	}
	if got[0] != got[1] {
		t.Errorf("failfast stopped after %d histories with 1 worker, %d with 3", got[0], got[1])
	}
	_, out, _ := runWith(t, context.Background(), []string{"--histories", "10", "--failfast"}, nil)
	if len(out.phases) != 2 || out.failfast != "" || out.phases[1].Histories != 10 || out.exit() != exitOK {
		t.Errorf("the v0 control stopped --failfast: %q, %d columns", out.failfast, len(out.phases))
	}
}

// SIGINT (ctx ending) stops the run: the histories in flight finish, the
// summary covers what was checked and says so, the index is written, and
// the exit status is 0 when all of that was Ok, 1 when some was not.
func TestInterruptPrintsTheSummary(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"--duration", "1m", "--heartbeat-version", "1"}, exitOK},
		{[]string{"--duration", "1m", "--mutant", "early-handoff", "--shrink", "5"}, exitFailed},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		dir := t.TempDir()
		var out bytes.Buffer
		start := time.Now()
		code := runRunCtx(ctx, append(tc.args, "--out", dir), &out, io.Discard)
		cancel()
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%v: %v after the interrupt", tc.args, d)
		}
		if code != tc.code || !strings.Contains(out.String(), "interrupted: the summary covers the ") || !strings.Contains(out.String(), "histories   ") {
			t.Errorf("%v: exit %d (want %d):\n%s", tc.args, code, tc.code, out.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
			t.Errorf("%v: no index: %v", tc.args, err)
		}
	}
}

// run --json carries its schema and options; --junit writes XML that
// parses back, a testsuite per column with a testcase per failing history.
func TestRunJSONAndJUnit(t *testing.T) {
	dir := t.TempDir()
	junit := filepath.Join(dir, "run.xml")
	code, out, errOut := run(t, "", "run", "--histories", "6", "--mutant", "early-handoff", "--shrink", "20", "--json", "--junit", junit, "--out", dir)
	if code != exitFailed {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var sum struct {
		Schema     string         `json:"schema"`
		Options    map[string]any `json:"options"`
		ExitStatus int            `json:"exitStatus"`
		Phases     []phaseSummary `json:"phases"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if sum.Schema != "ghostcheck/run/v1" || sum.Options["mutant"] != "early-handoff" || sum.Options["workers"] == nil || sum.ExitStatus != 1 || len(sum.Phases) != 1 {
		t.Fatalf("--json: %+v", sum)
	}
	suites := readJUnit(t, junit)
	bad := sum.Phases[0].Verdicts[history.Illegal]
	if len(suites.Suites) != 1 || suites.Tests != 1+bad || suites.Failures != 1+bad {
		t.Fatalf("junit: %d suites, %d tests, %d failures; want 1, %d, %d", len(suites.Suites), suites.Tests, suites.Failures, 1+bad, 1+bad)
	}
	first := suites.Suites[0].Cases[1]
	if !strings.HasPrefix(first.Name, "seed ") || first.Failure == nil || first.Failure.Type != "NoDoubleClientAssignment" ||
		!strings.Contains(first.Failure.Text, "rerun:   ghostcheck run --target impl --seed ") || !strings.Contains(first.Failure.Text, "replay:  ghostcheck replay ") {
		t.Errorf("the first failing history's testcase: %+v", first)
	}
	code, _, _ = run(t, "", "run", "--histories", "4", "--junit", junit, "--out", dir)
	suites = readJUnit(t, junit)
	if code != exitOK || len(suites.Suites) != 2 || suites.Failures != 0 || suites.Tests != 2 || suites.Suites[1].Properties[4].Value != "true" {
		t.Errorf("a clean compare run: exit %d, %+v", code, suites)
	}
}

func readJUnit(t *testing.T, path string) junitSuites {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s junitSuites
	if err := xml.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s does not parse: %v\n%s", path, err, b)
	}
	return s
}
