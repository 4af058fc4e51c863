package targets

import (
	"os"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/race"
	"github.com/ghostcheck/ghostcheck/plan"
)

// runBudget is `ghostcheck run`'s default --duration: with a mutant it
// runs v1 histories only, so the whole of it.
const runBudget = 50 * time.Second

// Every impl mutant must be caught by the property run alone, on the path
// `ghostcheck run --mutant NAME` takes (invariants and linearizability on
// histories drawn from seeds 1, 2, ...), not only by the exact
// model-vs-impl comparison, and within run's default duration. Seeds make
// the history of the first catch fixed; a mutant that takes more than 400
// histories has lost its probe or plan feature, and fails here before it
// could slip past the time budget on a fast machine. The test logs each
// catch; `make mutate` prints them as the kill table (TestKillTable).
func TestHarnessCatchesEveryMutant(t *testing.T) {
	if os.Getenv("GHOSTCHECK_MUTATE") != "" {
		t.Skip("TestKillTable runs them")
	}
	for _, m := range RunMutants() {
		t.Run(m.Name, func(t *testing.T) {
			k := KillMutant(m, 400, runBudget)
			if k.History == 0 {
				t.Fatalf("mutant %s (%s) not caught by the run in 400 histories (%v): %s", m.Name, m.Description, k.Elapsed, k.Detail)
			}
			t.Logf("caught in history %d (%v) by %s: %s", k.History, k.Elapsed.Round(time.Millisecond), k.CaughtBy, k.Detail)
		})
	}
}

// TestKillTable is `make mutate`: every mutant against the run alone, with
// run's default budget, printed as the kill table (GHOSTCHECK_MUTATE=1).
func TestKillTable(t *testing.T) {
	if os.Getenv("GHOSTCHECK_MUTATE") == "" {
		t.Skip("set GHOSTCHECK_MUTATE=1 (make mutate)")
	}
	var kills []Kill
	for _, m := range RunMutants() {
		kills = append(kills, KillMutant(m, 1<<30, runBudget))
	}
	WriteKillTable(os.Stdout, kills)
	for _, k := range kills {
		if k.History == 0 {
			t.Errorf("mutant %s survived the run (%v)", k.Mutant, k.Elapsed)
		}
	}
}

// Without a mutant, impl passes the same histories.
func TestImplWithoutMutantPasses(t *testing.T) {
	for _, version := range []int{1, -1} {
		o := plan.DefaultOptions()
		o.HeartbeatVersion = version
		for i := 1; i <= race.Sweep(60); i++ {
			p := plan.New(uint64(i), o)
			target, err := New("impl", p, "")
			if err != nil {
				t.Fatal(err)
			}
			res, err := driver.Run(target, p)
			if err != nil {
				t.Fatal(err)
			}
			rep := check.Check(res, check.Options{})
			if rep.Linearizable != "Ok" {
				t.Fatalf("version %d seed %d: impl's history is not linearizable: %s", version, i, rep.Mismatch)
			}
			if version == 1 && rep.Verdict != history.Ok {
				t.Fatalf("seed %d: %s: %s", i, rep.Rule, rep.Detail)
			}
		}
	}
}

// A parallel run (requests of a round delivered concurrently) against impl
// is linearizable: the order within a round is impl's, and porcupine finds
// a legal one.
func TestImplParallelRunsAreLinearizable(t *testing.T) {
	o := plan.DefaultOptions()
	o.Parallel = true
	o.Clients, o.Groups = 12, 2
	for i := 1; i <= 20; i++ {
		p := plan.New(uint64(i), o)
		target, _ := New("impl", p, "")
		res, err := driver.Run(target, p)
		if err != nil {
			t.Fatal(err)
		}
		if rep := check.Check(res, check.Options{}); rep.Verdict != history.Ok {
			t.Fatalf("seed %d: %s: %s", i, rep.Rule, rep.Detail)
		}
	}
}
