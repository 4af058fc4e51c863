package driver_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// A plan with restarts against a target that cannot restart runs without
// them, and the report says so: never a harness error for that reason,
// and the rest of the plan is the one its seed gave.
func TestRestartsDroppedForATargetThatCannotRestart(t *testing.T) {
	pl := plan.New(1, plan.DefaultOptions())
	for seed := uint64(2); len(pl.Restarts) == 0; seed++ {
		pl = plan.New(seed, plan.DefaultOptions())
	}
	inner := targets.NewModelTarget(pl.ModelConfig())
	target := driver.Funcs{HandleFunc: inner.Handle, DisconnectFunc: inner.Disconnect, AdvanceFunc: inner.Advance}
	if driver.CanRestart(target) || driver.CanRestart(driver.WithSnapshot(target, inner.Snapshot)) {
		t.Fatal("driver.Funcs without RestartFunc claims it can restart")
	}
	res, err := driver.Run(target, pl)
	if err != nil {
		t.Fatal(err)
	}
	if res.DroppedRestarts != len(pl.Restarts) || len(res.Plan.Restarts) != 0 {
		t.Fatalf("dropped %d of %d restarts, the plan run keeps %v", res.DroppedRestarts, len(pl.Restarts), res.Plan.Restarts)
	}
	for _, op := range res.History {
		if op.Restart {
			t.Fatalf("op %d restarts a target that cannot restart", op.ID)
		}
	}
	want := fmt.Sprintf("plan's %d restarts dropped: the target cannot restart", len(pl.Restarts))
	for _, level := range []check.Level{check.LevelAuto, check.LevelExact, check.LevelObservable} {
		rep := check.Check(res, check.Options{Level: level})
		if rep.Verdict != history.Ok || len(rep.Notes) != 1 || !strings.HasPrefix(rep.Notes[0], want) {
			t.Fatalf("level %s: verdict %s %s (%s), notes %q; want Ok and %q", level, rep.Verdict, rep.Rule, rep.Detail, rep.Notes, want)
		}
	}
	if got := plan.New(pl.Seed, plan.DefaultOptions()); !reflect.DeepEqual(withoutRestarts(got), res.Plan) {
		t.Fatal("the plan run is not the seed's plan without its restarts")
	}
	target.RestartFunc = inner.Restart
	if !driver.CanRestart(target) || !driver.CanRestart(driver.WithSnapshot(target, inner.Snapshot)) {
		t.Fatal("driver.Funcs with RestartFunc cannot restart")
	}
}

func withoutRestarts(p plan.Plan) plan.Plan {
	p.Restarts = nil
	return p
}
