package check_test

import (
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// A budget the sequential replay uses up leaves the search no time, not
// unlimited time (porcupine reads a bound of zero or less as none).
func TestCheckSpentBudgetIsUnknown(t *testing.T) {
	res := allOverlapping(t)
	done := make(chan *check.Report, 1)
	go func() { done <- check.Check(res, check.Options{Timeout: time.Nanosecond}) }()
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	select {
	case rep := <-done:
		if rep.Verdict != history.Unknown || rep.Rule != "Linearizability" {
			t.Errorf("check with a spent budget: %s %s %s", rep.Verdict, rep.Rule, rep.Detail)
		}
	case <-timer.C:
		t.Fatal("Check still searching 30 s after a 1 ns budget")
	}
}

// allOverlapping is a real history of one group whose operations are
// all made concurrent (called at 1, returned far later): porcupine must
// consider every order of them, which it cannot finish in any useful time.
func allOverlapping(t *testing.T) *driver.Result {
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
