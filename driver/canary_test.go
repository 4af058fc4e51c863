package driver

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// canaryRun runs seed's default plan on the model, its canaries on
// whatever the seed, and returns the driver after it, for the canaries'
// records.
func canaryRun(t *testing.T, seed uint64, hv int) *driver {
	t.Helper()
	return driverRun(t, seed, hv, true)
}

// driverRun runs seed's default plan on the model, the canaries forced on
// or as the seed picks them, and returns the driver after it.
func driverRun(t *testing.T, seed uint64, hv int, canaries bool) *driver {
	t.Helper()
	o := plan.DefaultOptions()
	o.HeartbeatVersion = hv
	return optionsRun(t, seed, o, canaries)
}

// optionsRun runs seed's plan of options o on the model, the canaries
// forced on or as the seed picks them, and returns the driver after it.
func optionsRun(t *testing.T, seed uint64, o plan.Options, canaries bool) *driver {
	t.Helper()
	p := plan.New(seed, o)
	d, err := newDriver(modelTarget(p.ModelConfig()), p)
	if err != nil {
		t.Fatal(err)
	}
	d.canaries = d.canaries || canaries
	if !d.runRounds() || !d.quiesce() {
		t.Fatalf("seed %d: the run failed: %v", seed, d.res.HarnessErrors)
	}
	return d
}

// The admin and the prober break every client rule a client can break
// alone, except ClientIDOnFirstRequest, within a few default plans; the
// canary finds no disagreement there; the observer breaks nothing.
func TestCanaryBreaks(t *testing.T) {
	want := []rules.Rule{rules.RuleMemberIDFromFirstHeartbeat, rules.RuleStableMemberID, rules.RuleNoHeartbeatAfterLeave,
		rules.RuleClientInstanceIDInHeader, rules.RuleNoZeroUUIDs, rules.RuleTelemetryInstanceID,
		rules.RuleStaticLeaveWithInstanceID, rules.RuleLeaveGroupInstanceID, rules.RuleLeaveGroupDowngrade}
	broken := map[rules.Rule]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		d := canaryRun(t, seed, 1)
		if len(d.res.HarnessErrors) > 0 {
			t.Fatalf("seed %d: %v", seed, d.res.HarnessErrors)
		}
		observer := d.procs.observer().c.InstanceID()
		for u, rs := range expectedBreaks(d.clients.breakers) {
			if u == observer && len(rs) > 0 {
				t.Errorf("seed %d: the observer broke %v", seed, rs)
			}
			for r := range rs {
				broken[r] = true
			}
		}
	}
	for _, r := range want {
		if !broken[r] {
			t.Errorf("no plan made the admin or the prober break %s", r)
		}
	}
}

// A client rule that stops reporting a break the harness committed, or
// reports one it did not, is a harness error naming the rule.
func TestCanaryCatchesABlindRule(t *testing.T) {
	d := canaryRun(t, 3, 1)
	roles := map[codec.UUID]string{}
	for _, p := range d.procs.all[len(d.plan.Clients):] {
		roles[p.c.InstanceID()] = p.role.String()
	}
	want := expectedBreaks(d.clients.breakers)
	if errs := canaryErrors(roles, want, rules.CheckClients(d.clients.breakers)); len(errs) != 0 {
		t.Fatalf("the canary fails on a correct run: %v", errs)
	}
	prober := d.procs.all[len(d.plan.Clients)+1].c.InstanceID()
	for _, tc := range []struct {
		name  string
		rule  rules.Rule
		flip  rules.Outcome
		error string
	}{
		{"blind", rules.RuleClientInstanceIDInHeader, rules.OutcomePass, "client rule ClientInstanceIDInHeader went blind: the prober broke it on purpose"},
		{"blind", rules.RuleTelemetryInstanceID, rules.OutcomeNotSeen, "client rule TelemetryInstanceID went blind: the prober"},
		{"false alarm", rules.RuleClientIDOnFirstRequest, rules.OutcomeViolated, "client rule ClientIDOnFirstRequest fired on the prober, which the harness did not make it break"},
	} {
		t.Run(tc.name+" "+string(tc.rule), func(t *testing.T) {
			if _, broke := want[prober][tc.rule]; broke == (tc.flip == rules.OutcomeViolated) {
				t.Fatalf("seed 3's prober: broke %s = %v, the case needs the other", tc.rule, broke)
			}
			got := rules.CheckClients(d.clients.breakers)
			flipped := false
			for i := range got {
				if got[i].InstanceID.UUID != prober {
					continue
				}
				for j := range got[i].Results {
					if got[i].Results[j].Rule == tc.rule {
						got[i].Results[j].Outcome, flipped = tc.flip, true
					}
				}
			}
			if !flipped {
				t.Fatal("no result to flip")
			}
			errs := canaryErrors(roles, want, got)
			if len(errs) != 1 || !strings.HasPrefix(errs[0], tc.error) {
				t.Fatalf("canary errors %q, want one starting %q", errs, tc.error)
			}
		})
	}
}
