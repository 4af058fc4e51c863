package driver_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/plan"
)

// The prober's mixed odd requests (plan.ProbeMixedOddRequest) reach the
// clauses of A7 no migrating client sends, over the first upgrade plans
// (the kill table's), and a correct coordinator's answers to them pass
// both levels of the check: the model applies each clause, and its
// histories are Ok.
func TestMixedOddRequestsReachA7(t *testing.T) {
	o := plan.DefaultOptions()
	o.Protocol, o.JoinGroupVersion = plan.ProtocolUpgrade, 9
	hits := model.ClauseHits{}
	for seed := uint64(1); seed <= 40; seed++ {
		p := plan.New(seed, o)
		mc := p.ModelConfig()
		mc.Clauses = hits
		res, err := driver.Run(targets.NewModelTarget(mc), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, level := range []check.Level{check.LevelExact, check.LevelObservable} {
			if rep := check.Check(res, check.Options{Level: level}); rep.Verdict != history.Ok {
				t.Errorf("seed %d at the %v level: %s %s: %s", seed, level, rep.Verdict, rep.Rule, rep.Detail)
			}
		}
	}
	for _, c := range []model.Clause{"A7.1/inconsistent-protocol", "A7.1/subscription-undecodable", "A7.2/sync-inconsistent-protocol",
		"A7.4/upgrade-refused", "A7.1/fenced-instance", "A7.2/sync-illegal-generation", "A7.2/heartbeat-illegal-generation",
		"A7.3/classic-member-switches"} {
		if hits[c] == 0 {
			t.Errorf("40 upgrade plans never applied %s", c)
		}
	}
}
