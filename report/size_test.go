package report

import (
	"os"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// bigFailure runs a plan of at least 10,000 operations whose v0 clients
// lose join responses, so it fails with ghosts.
func bigFailure(t *testing.T) Failure {
	t.Helper()
	o := plan.DefaultOptions()
	o.HeartbeatVersion = 0
	o.Clients, o.Groups, o.Rounds = 64, 4, 1000
	p := plan.New(5, o)
	res, err := driver.Run(targets.NewModelTarget(p.ModelConfig()), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.History) < 10000 {
		t.Fatalf("the plan made %d operations, want at least 10,000", len(res.History))
	}
	rep := check.Check(res, check.Options{Timeout: 20 * time.Second})
	if rep.Verdict == history.Ok {
		t.Fatalf("the big v0 history passed; it should show ghosts")
	}
	return Failure{Name: "big", Header: history.FileHeader{Target: "model", Title: "10k operations", Plan: p},
		Result: res, Report: rep, Replay: "ghostcheck replay out/big.jsonl"}
}

// The pages of a 10,000-operation history stay under 1 MB each, and
// writing them is bounded (the timeline's search by the check's bound).
func TestPagesOfALargeHistoryStayUnderOneMB(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10k-operation run")
	}
	f := bigFailure(t)
	dir := outDir(t)
	start := time.Now()
	art, err := WriteFailure(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d operations: pages written in %v; timeline: %s", len(f.Result.History), time.Since(start).Round(time.Millisecond), art.Window)
	for _, p := range []string{art.HTML, art.Timeline} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", p, fi.Size())
		if fi.Size() >= 1<<20 {
			t.Errorf("%s is %d bytes, over 1 MB", p, fi.Size())
		}
	}
}
