package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// runModel runs p on the reference model and checks it.
func runModel(t *testing.T, p plan.Plan) (*driver.Result, *check.Report) {
	t.Helper()
	res, err := driver.Run(targets.NewModelTarget(p.ModelConfig()), p)
	if err != nil {
		t.Fatal(err)
	}
	return res, check.Check(res, check.Options{})
}

// overlappingHistory is a real history of one group whose operations are
// all made concurrent (called at 1, returned far later): porcupine must
// consider every order of them, which it cannot finish in any useful time.
func overlappingHistory(t *testing.T) *driver.Result {
	t.Helper()
	o := plan.DefaultOptions()
	o.Clients, o.Groups, o.Rounds, o.Faults, o.Restarts = 4, 1, 60, nil, false
	p := plan.New(7, o)
	res, err := driver.Run(targets.NewModelTarget(p.ModelConfig()), p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.History {
		res.History[i].Call, res.History[i].Return = 1, 1<<40
	}
	return res
}

// A report on a history whose check ran out of time returns within the
// check's bound: the timeline's verbose search is given the same bound and
// the timeline is marked partial, instead of searching without limit.
func TestWriteArtifactsAfterTimeoutReturns(t *testing.T) {
	res := overlappingHistory(t)
	rep := check.Check(res, check.Options{Timeout: 100 * time.Millisecond})
	if rep.Verdict != history.Unknown || rep.Rule != "Linearizability" {
		t.Fatalf("the check of %d overlapping operations should time out: %s %s %s", len(res.History), rep.Verdict, rep.Rule, rep.Detail)
	}
	type written struct {
		art Artifacts
		err error
	}
	done := make(chan written, 1)
	dir := t.TempDir()
	go func() {
		art, err := writeArtifacts(dir, "timeout", history.FileHeader{Title: "timed out", Plan: res.Plan}, res, rep)
		done <- written{art, err}
	}()
	// Generous: the bound is 100 ms; without it the search runs for hours.
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	var w written
	select {
	case w = <-done:
	case <-timer.C:
		t.Fatal("WriteArtifacts still searching 30 s after a check bounded at 100 ms")
	}
	if w.err != nil {
		t.Fatal(w.err)
	}
	if !w.art.Partial {
		t.Error("the timeline of a search that ran out is not marked partial")
	}
	for _, p := range []string{w.art.History, w.art.Timeline} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 || filepath.Dir(p) != dir {
			t.Errorf("%s: not written (%v)", p, err)
		}
	}
	var b bytes.Buffer
	Explain(&b, rep, w.art, "")
	if !strings.Contains(b.String(), "partial") {
		t.Errorf("Explain does not say the timeline is partial:\n%s", b.String())
	}
}

// The check's own bound, which the timeline shares: a budget the
// sequential replay uses up leaves the search no time, not unlimited time
// (porcupine reads a bound of zero or less as none).
func TestCheckSpentBudgetIsUnknown(t *testing.T) {
	res := overlappingHistory(t)
	done := make(chan *check.Report, 1)
	go func() { done <- check.Check(res, check.Options{Timeout: time.Nanosecond}) }()
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	select {
	case rep := <-done:
		if rep.Verdict != history.Unknown || rep.Rule != "Linearizability" {
			t.Errorf("the check with a spent budget: %s %s %s", rep.Verdict, rep.Rule, rep.Detail)
		}
	case <-timer.C:
		t.Fatal("Check still searching 30 s after a 1 ns budget")
	}
}

// A decided history's timeline holds a whole linearization.
func TestWriteArtifactsWholeTimeline(t *testing.T) {
	o := plan.DefaultOptions()
	o.HeartbeatVersion = 0
	o.Faults = plan.OnlyFault(plan.LostResponse, 10)
	for seed := uint64(1); seed <= 10; seed++ {
		p := plan.New(seed, o)
		res, rep := runModel(t, p)
		if rep.Verdict != history.Illegal {
			continue
		}
		art, err := writeArtifacts(t.TempDir(), "ghost", history.FileHeader{Plan: p}, res, rep)
		if err != nil {
			t.Fatal(err)
		}
		if art.Partial {
			t.Errorf("seed %d: the timeline of a decided %d-operation history is partial", seed, len(res.History))
		}
		return
	}
	t.Fatal("no v0 history with lost responses broke a rule in 10 seeds")
}

// The timeline labels each operation with its network fate, names the
// rows after the processes, and scrolls to the first violation.
func TestTimelineShowsFatesAndNames(t *testing.T) {
	o := plan.DefaultOptions()
	o.HeartbeatVersion = 0
	o.Faults = plan.OnlyFault(plan.LostResponse, 10)
	for seed := uint64(1); seed <= 10; seed++ {
		p := plan.New(seed, o)
		res, rep := runModel(t, p)
		if rep.Verdict != history.Illegal || len(res.Violations) == 0 {
			continue
		}
		var b bytes.Buffer
		tl, err := WriteTimeline(&b, res, rep, TimelineOptions{Title: "ghost"})
		if err != nil {
			t.Fatal(err)
		}
		page := b.String()
		for _, want := range []string{"(response lost: the client never saw this)", `"observer"`, "window.scrollTo", "<title>ghost — timeline</title>", rep.Rule} {
			if !strings.Contains(page, want) {
				t.Errorf("seed %d: the timeline lacks %q", seed, want)
			}
		}
		if tl.Shown != len(res.History) || tl.Scope != "" {
			t.Errorf("seed %d: a %d-operation history drawn as a window: %+v", seed, len(res.History), tl)
		}
		return
	}
	t.Fatal("no v0 history with lost responses broke an invariant in 10 seeds")
}

// A history too large for one page is drawn as a window around the first
// violation, and the page stays under its bound.
func TestTimelineOfALargeHistoryIsBounded(t *testing.T) {
	o := plan.DefaultOptions()
	o.HeartbeatVersion = 0
	o.Clients, o.Groups, o.Rounds = 12, 3, 400
	o.Faults = plan.OnlyFault(plan.LostResponse, 5)
	p := plan.New(3, o)
	res, rep := runModel(t, p)
	var b bytes.Buffer
	tl, err := WriteTimeline(&b, res, rep, TimelineOptions{Title: "big", MaxBytes: 300 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d operations: %d shown in %d bytes (%s)", tl.Total, tl.Shown, b.Len(), tl.Scope)
	if b.Len() > 300<<10 {
		t.Errorf("the timeline of %d operations is %d bytes, over its 300 KiB bound", tl.Total, b.Len())
	}
	if tl.Shown >= tl.Total || tl.Scope == "" || !strings.Contains(b.String(), "a window:") {
		t.Errorf("a window was not chosen or not said: %+v", tl)
	}
}
