package check_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// The observable check raises no false alarm against ghostcheck's own
// coordinators, which keep every promise it checks: the model and impl,
// delivered in order and in parallel, at 30 % faults with 70 % static
// clients and coordinator restarts. A sweep (`run` has no observable
// level), skipped unless GHOSTCHECK_OBSERVABLE_SWEEP gives the number of
// seeds per target and delivery:
//
//	GHOSTCHECK_OBSERVABLE_SWEEP=2000 go test ./check -run TestObservableSweep -v -timeout 30m
func TestObservableSweep(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("GHOSTCHECK_OBSERVABLE_SWEEP"))
	if n <= 0 {
		t.Skip("set GHOSTCHECK_OBSERVABLE_SWEEP=N to sweep N seeds per target and delivery")
	}
	for _, target := range []string{"model", "impl"} {
		for _, parallel := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s parallel=%v", target, parallel), func(t *testing.T) {
				o := plan.DefaultOptions()
				o.Faults, o.StaticPercent, o.Restarts, o.Parallel = plan.UniformFaults(30), 70, true, parallel
				bad := map[string]int{}
				for seed := uint64(1); seed <= uint64(n); seed++ {
					p := plan.New(seed, o)
					tg, err := targets.New(target, p, "")
					if err != nil {
						t.Fatal(err)
					}
					res, err := driver.Run(tg, p)
					if err != nil {
						t.Fatal(err)
					}
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
