package check_test

import (
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/plan"
)

// migrationSweepSeeds is how many upgrade seeds TestMigrationSweep runs
// per target by default.
const migrationSweepSeeds = 20

// The plans of a migrating fleet raise no false alarm against ghostcheck's
// own coordinators, the prober's mixed odd requests
// (plan.ProbeMixedOddRequest) included: upgrade, rollback and mixed plans
// at JoinGroup v9 (n upgrade seeds, 3n/4 rollback and n/4 mixed, each on
// the model and impl), every history Ok at the exact level and at the
// observable level. (The observable level once judged mixed plans Illegal
// under B8.7, seed 281 of 1,000: a classic group replaced by a consumer
// join (A6.4) and made again later counts its generations from 1 again,
// with another protocol.) migrationSweepSeeds in `go test` (a fifth under the race
// detector), or as many as GHOSTCHECK_MIGRATION_SWEEP says (4000: 16,000
// histories):
//
//	GHOSTCHECK_MIGRATION_SWEEP=4000 go test ./check -run TestMigrationSweep -v -timeout 30m
func TestMigrationSweep(t *testing.T) {
	n := sweepSize(t, migrationSweepSeeds, "GHOSTCHECK_MIGRATION_SWEEP")
	for _, c := range []struct {
		protocol plan.Protocol
		seeds    int
	}{
		{plan.ProtocolUpgrade, n},
		{plan.ProtocolRollback, n * 3 / 4},
		{plan.ProtocolMixed, max(n/4, 1)},
	} {
		for _, target := range []string{"model", "impl"} {
			t.Run(fmt.Sprintf("%s %s", c.protocol, target), func(t *testing.T) {
				o := plan.DefaultOptions()
				o.Protocol, o.JoinGroupVersion = c.protocol, 9
				levels := []check.Level{check.LevelExact, check.LevelObservable}
				bad, probed := map[string]int{}, 0
				for seed := uint64(1); seed <= uint64(c.seeds); seed++ {
					p := plan.New(seed, o)
					for _, pr := range p.Probes {
						if pr.Kind == plan.ProbeMixedOddRequest {
							probed++
							break
						}
					}
					res := runPlan(t, target, p)
					for _, level := range levels {
						if rep := check.Check(res, check.Options{Level: level}); rep.Verdict != history.Ok {
							bad[level.String()+" "+rep.Rule]++
							t.Errorf("seed %d at the %v level: %s %s: %s", seed, level, rep.Verdict, rep.Rule, rep.Detail)
						}
					}
				}
				t.Logf("%d histories (%d with the mixed odd requests), non-Ok by level and rule: %v", c.seeds, probed, bad)
			})
		}
	}
}
