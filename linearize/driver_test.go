package linearize

import (
	"testing"
)

func TestModelRunIsOk(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		plan := NewPlan(seed, DefaultOptions())
		res, err := Run(NewModelTarget(plan.ModelConfig()), plan)
		if err != nil {
			t.Fatal(err)
		}
		rep := Check(res, CheckOptions{})
		t.Logf("seed %d: %s: %d ops, faults %v, verdict %s %s %s", seed, plan.String(), len(res.History), res.Faults, rep.Verdict, rep.Rule, rep.Detail)
		if rep.Verdict != Ok {
			t.Errorf("seed %d: %s: %s", seed, rep.Rule, rep.Detail)
		}
	}
}

func TestV0GhostFound(t *testing.T) {
	o := DefaultOptions()
	o.HeartbeatVersion = 0
	o.FaultKinds = []FaultKind{LostResponse}
	found := 0
	for seed := uint64(1); seed <= 10; seed++ {
		plan := NewPlan(seed, o)
		res, _ := Run(NewModelTarget(plan.ModelConfig()), plan)
		rep := Check(res, CheckOptions{})
		t.Logf("seed %d: %s %s ghosts=%d", seed, rep.Verdict, rep.Rule, len(res.Ghosts))
		if len(res.Ghosts) > 0 {
			found++
		}
	}
	if found == 0 {
		t.Fatal("no ghost found with v0 clients and lost responses")
	}
}
