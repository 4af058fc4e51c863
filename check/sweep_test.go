package check_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/race"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// sweepSeeds is how many seeds TestObservableSweep runs per target and
// delivery by default.
const sweepSeeds = 100

// The observable check raises no false alarm against ghostcheck's own
// coordinators, which keep every promise it checks: the model and impl,
// delivered in order and in parallel, at 30 % faults with 70 % static
// clients and coordinator restarts. A sweep (`run` has no observable
// level): sweepSeeds seeds per target and delivery in `go test` (a fifth
// under the race detector), or as many as GHOSTCHECK_OBSERVABLE_SWEEP says:
//
//	GHOSTCHECK_OBSERVABLE_SWEEP=2000 go test ./check -run TestObservableSweep -v -timeout 30m
func TestObservableSweep(t *testing.T) {
	n := sweepSize(t, sweepSeeds, "GHOSTCHECK_OBSERVABLE_SWEEP")
	for _, target := range []string{"model", "impl"} {
		for _, parallel := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s parallel=%v", target, parallel), func(t *testing.T) {
				o := plan.DefaultOptions()
				o.Faults, o.StaticPercent, o.Restarts, o.Parallel = plan.UniformFaults(30), 70, true, parallel
				bad := map[string]int{}
				for seed := uint64(1); seed <= uint64(n); seed++ {
					res := runPlan(t, target, plan.New(seed, o))
					if rep := check.Check(res, check.Options{Level: check.LevelObservable}); rep.Verdict != history.Ok {
						bad[rep.Rule]++
						t.Errorf("seed %d: %s %s: %s", seed, rep.Verdict, rep.Rule, rep.Detail)
					}
				}
				t.Logf("%d histories, non-Ok by rule: %v", n, bad)
			})
		}
	}
}

// sweepSize is a sweep's number of seeds: def in `go test` (a fifth under
// the race detector), or as many as the environment variable env says.
func sweepSize(t *testing.T, def int, env string) int {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		return race.Sweep(def)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a number of seeds", env, v)
	}
	return n
}

// runPlan drives plan p against target ("model" or "impl").
func runPlan(t *testing.T, target string, p plan.Plan) *driver.Result {
	t.Helper()
	tg, err := targets.New(target, p, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := driver.Run(tg, p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
