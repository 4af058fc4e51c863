package linearize_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/linearize"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// stalled is the model as a broker on a stalled machine: its session
// timers fire late (a longer session timeout than the plan's, as
// a broker that slept through its deadlines and answered before firing
// them), and the target reports a stall of stallMs
// (TCPTarget.MaxStallMs) seen by the checking process.
type stalled struct {
	*linearize.ModelTarget
	stallMs int64
}

func (t *stalled) MaxStallMs() int64 { return t.stallMs }

// NoGhosts gives a member of an ended process the stall the checking
// process measured on top of its session timeout: a broker whose timers
// fire late by no more than that raises no false alarm, and one later
// than the stall explains is still caught.
func TestStallWidensGhostGrace(t *testing.T) {
	o := linearize.DefaultOptions()
	o.Restarts, o.Faults = false, nil
	run := func(plan linearize.Plan, lateMs, stallMs int64) *linearize.Result {
		t.Helper()
		cfg := plan.ModelConfig()
		cfg.SessionTimeoutMs += lateMs
		res, err := linearize.Run(&stalled{ModelTarget: linearize.NewModelTarget(cfg), stallMs: stallMs}, plan)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ghosts := func(res *linearize.Result) bool { return res.ViolationCounts[string(rules.RuleNoGhosts)] > 0 }
	// A plan whose crashed member the late timers leave past its grace
	// (a crash late in a plan may end it before the grace is out).
	var plan linearize.Plan
	var lateMs int64
	for seed := uint64(1); ; seed++ {
		if seed > 20 {
			t.Fatal("no plan in seeds 1-20 shows timers three rounds late as ghosts")
		}
		plan = linearize.NewPlan(seed, o)
		lateMs = 3 * plan.RoundMs
		if !ghosts(run(plan, 0, 0)) && ghosts(run(plan, lateMs, 0)) {
			break
		}
	}
	for _, c := range []struct {
		name    string
		stallMs int64
		ghost   bool
	}{
		{"a shorter stall", lateMs / 3, true},
		{"a stall one round short", lateMs - plan.RoundMs, true},
		{"a stall as long as the lateness", lateMs, false},
		{"a longer stall", 2 * lateMs, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := run(plan, lateMs, c.stallMs)
			if ghosts(res) != c.ghost {
				t.Fatalf("seed %d, timers %d ms late, stall %d ms: %v, want ghosts %v", plan.Seed, lateMs, c.stallMs, res.Violations, c.ghost)
			}
			if !c.ghost && len(res.Violations) > 0 {
				t.Fatalf("seed %d, stall %d ms: %v", plan.Seed, c.stallMs, res.Violations)
			}
		})
	}
}

// stallingBroker answers ApiVersions (as apiVersionsOnly does) and, after
// stall is called, holds each answer until the stall is over: a broker
// stopped alone, with the checking process running.
func stallingBroker(t *testing.T) (addr string, stall func(time.Duration)) {
	t.Helper()
	var until atomic.Int64
	addr = apiVersionsBroker(t, func() { time.Sleep(time.Until(time.Unix(0, until.Load()))) })
	return addr, func(d time.Duration) { until.Store(time.Now().Add(d).UnixNano()) }
}

// A StallWatch sees a broker that stops answering for a while although
// this process runs on (WatchBroker's pings wait for it), and sees
// nothing of it without pings (WatchStalls).
func TestStallWatchSeesAStoppedBroker(t *testing.T) {
	for _, c := range []struct {
		name  string
		watch func(addr string) *linearize.StallWatch
		sees  bool
	}{
		{"pinging the broker", func(addr string) *linearize.StallWatch { return linearize.WatchBroker(addr, time.Second) }, true},
		{"this process alone", func(string) *linearize.StallWatch { return linearize.WatchStalls() }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr, stall := stallingBroker(t)
			w := c.watch(addr)
			defer w.Stop()
			time.Sleep(50 * time.Millisecond)
			stall(300 * time.Millisecond)
			time.Sleep(400 * time.Millisecond)
			w.Stop()
			got := w.Max()
			if sees := got >= 250*time.Millisecond; sees != c.sees {
				t.Fatalf("broker stopped for 300 ms: stall %v, want seen %v", got, c.sees)
			}
			t.Logf("stall %v", got)
		})
	}
}
