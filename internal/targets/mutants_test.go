package targets

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/linearize"
)

// Every impl mutant must be caught by the concurrent-history harness alone
// (invariants and linearizability on histories drawn from seeds), not only
// by the exact model-vs-impl comparison. The test reports how many
// histories each took.
func TestHarnessCatchesEveryMutant(t *testing.T) {
	const bound = 40
	for _, m := range Mutants() {
		t.Run(m[0], func(t *testing.T) {
			for i := 1; i <= bound; i++ {
				plan := linearize.NewPlan(uint64(i), linearize.DefaultOptions())
				target, err := New("impl", plan, m[0])
				if err != nil {
					t.Fatal(err)
				}
				res, err := linearize.Run(target, plan)
				if err != nil {
					t.Fatal(err)
				}
				if rep := linearize.Check(res, linearize.CheckOptions{}); rep.Verdict == linearize.Illegal {
					t.Logf("caught in history %d by %s: %s", i, rep.Rule, rep.Detail)
					return
				}
			}
			t.Fatalf("mutant %s (%s) not caught in %d histories", m[0], m[1], bound)
		})
	}
}

// Without a mutant, impl passes the same histories.
func TestImplWithoutMutantPasses(t *testing.T) {
	for _, version := range []int{1, -1} {
		o := linearize.DefaultOptions()
		o.HeartbeatVersion = version
		for i := 1; i <= 60; i++ {
			plan := linearize.NewPlan(uint64(i), o)
			target, err := New("impl", plan, "")
			if err != nil {
				t.Fatal(err)
			}
			res, err := linearize.Run(target, plan)
			if err != nil {
				t.Fatal(err)
			}
			rep := linearize.Check(res, linearize.CheckOptions{})
			if rep.Linearizable != "Ok" {
				t.Fatalf("version %d seed %d: impl's history is not linearizable: %s", version, i, rep.Mismatch)
			}
			if version == 1 && rep.Verdict != linearize.Ok {
				t.Fatalf("seed %d: %s: %s", i, rep.Rule, rep.Detail)
			}
		}
	}
}

// A parallel run (requests of a round delivered concurrently) against impl
// is linearizable: the order within a round is impl's, and porcupine finds
// a legal one.
func TestImplParallelRunsAreLinearizable(t *testing.T) {
	o := linearize.DefaultOptions()
	o.Parallel = true
	o.Clients, o.Groups = 12, 2
	for i := 1; i <= 20; i++ {
		plan := linearize.NewPlan(uint64(i), o)
		target, _ := New("impl", plan, "")
		res, err := linearize.Run(target, plan)
		if err != nil {
			t.Fatal(err)
		}
		if rep := linearize.Check(res, linearize.CheckOptions{}); rep.Verdict != linearize.Ok {
			t.Fatalf("seed %d: %s: %s", i, rep.Rule, rep.Detail)
		}
	}
}
