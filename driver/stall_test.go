package driver_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// stalled is the model as a broker on a stalled machine: its session
// timers fire late (a longer session timeout than the plan's, as
// a broker that slept through its deadlines and answered before firing
// them), and the target reports a stall of stallMs
// (tcptarget.Target.MaxStallMs) seen by the checking process.
type stalled struct {
	*targets.ModelTarget
	stallMs int64
}

func (t *stalled) MaxStallMs() int64 { return t.stallMs }

// NoGhosts gives a member of an ended process the stall the checking
// process measured on top of its session timeout: a broker whose timers
// fire late by no more than that raises no false alarm, and one later
// than the stall explains is still caught.
func TestStallWidensGhostGrace(t *testing.T) {
	o := plan.DefaultOptions()
	o.Restarts, o.Faults = false, nil
	run := func(p plan.Plan, lateMs, stallMs int64) *driver.Result {
		t.Helper()
		cfg := p.ModelConfig()
		cfg.SessionTimeoutMs += lateMs
		res, err := driver.Run(&stalled{ModelTarget: targets.NewModelTarget(cfg), stallMs: stallMs}, p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ghosts := func(res *driver.Result) bool { return res.ViolationCounts[string(rules.RuleNoGhosts)] > 0 }
	// A plan whose crashed member the late timers leave past its grace
	// (a crash late in a plan may end it before the grace is out).
	var pl plan.Plan
	var lateMs int64
	for seed := uint64(1); ; seed++ {
		if seed > 20 {
			t.Fatal("no plan in seeds 1-20 shows timers three rounds late as ghosts")
		}
		pl = plan.New(seed, o)
		lateMs = 3 * pl.RoundMs
		if !ghosts(run(pl, 0, 0)) && ghosts(run(pl, lateMs, 0)) {
			break
		}
	}
	for _, c := range []struct {
		name    string
		stallMs int64
		ghost   bool
	}{
		{"a shorter stall", lateMs / 3, true},
		{"a stall one round short", lateMs - pl.RoundMs, true},
		{"a stall as long as the lateness", lateMs, false},
		{"a longer stall", 2 * lateMs, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := run(pl, lateMs, c.stallMs)
			if ghosts(res) != c.ghost {
				t.Fatalf("seed %d, timers %d ms late, stall %d ms: %v, want ghosts %v", pl.Seed, lateMs, c.stallMs, res.Violations, c.ghost)
			}
			if !c.ghost && len(res.Violations) > 0 {
				t.Fatalf("seed %d, stall %d ms: %v", pl.Seed, c.stallMs, res.Violations)
			}
		})
	}
}
