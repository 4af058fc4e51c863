package driver

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// finalObservation is, in short, what observe(true) judged at the end of
// d's run: the coordinator's groups and the plan clients as processes.
func finalObservation(d *driver) rules.Observation {
	o := rules.Observation{Now: d.at, Groups: d.obs.snap.Snapshot(), GeneratedIDs: d.obs.genIDs}
	for _, p := range d.procs.clients() {
		mp := rules.Process{Name: p.name, GroupID: p.group, ClientInstanceID: p.c.InstanceID(), MemberID: p.c.MemberID(), Live: p.live,
			Left:   p.c.State() == client.Left || (p.live && !p.wants && p.c.State() != client.Joined),
			Joined: p.live && p.c.State() == client.Joined}
		mp.InFlight, mp.AllIDs = p.sortedIDs()
		o.Processes = append(o.Processes, mp)
	}
	return o
}

// richObservation runs seed's default plan on the model up to the first
// round whose observation the canary plants into (rich, and breaking
// nothing), and returns it.
func richObservation(t *testing.T, seed uint64) rules.Observation {
	t.Helper()
	p := plan.New(seed, plan.DefaultOptions())
	d, err := newDriver(modelTarget(p.ModelConfig()), p)
	if err != nil {
		t.Fatal(err)
	}
	restarts := d.plan.Restarts
	for d.round = 0; d.round < d.plan.Rounds; d.round++ {
		d.now = int64(d.round) * d.plan.RoundMs
		if err := d.target.Advance(d.now); err != nil {
			t.Fatal(err)
		}
		d.at = d.now
		if len(restarts) > 0 && restarts[0] == d.round {
			restarts = restarts[1:]
			if !d.restart() {
				t.Fatal(d.res.HarnessErrors)
			}
		}
		d.runRound(d.plan.Rounds)
		if o := finalObservation(d); rich(o) && len(firedRules(invariantChecks(), o, o, false)) == 0 {
			return o
		}
	}
	t.Fatalf("seed %d: no rich observation", seed)
	return rules.Observation{}
}

// The driver runs the canary in the histories canaryEvery picks, on a
// round's observation with real members and on the final one, and not in
// the others.
func TestInvariantCanaryRunsInPickedHistories(t *testing.T) {
	for _, seed := range []uint64{1, 2, 1 + canaryEvery} {
		d := driverRun(t, seed, 1, false)
		if len(d.res.HarnessErrors) > 0 {
			t.Fatalf("seed %d: %v", seed, d.res.HarnessErrors)
		}
		if want := seed%canaryEvery == 1; d.obs.canaried != want {
			t.Errorf("seed %d: canaried %v, want %v", seed, d.obs.canaried, want)
		}
	}
}

// The canary passes the final observations of correct runs, where it
// judges every plant (v1: the observation breaks nothing), and of v0
// runs, which may hold ghosts of their own; and the empty observation,
// where every planter adds what it needs.
func TestInvariantCanaryPassesRealObservations(t *testing.T) {
	for _, hv := range []int{1, 0} {
		for seed := uint64(1); seed <= 12; seed++ {
			d := canaryRun(t, seed, hv)
			if len(d.res.HarnessErrors) > 0 {
				t.Fatalf("v%d seed %d: harness errors %v", hv, seed, d.res.HarnessErrors)
			}
			o := finalObservation(d)
			if already := firedRules(invariantChecks(), o, o, true); hv == 1 && len(already) > 0 {
				t.Fatalf("v1 seed %d: the final observation breaks %v", seed, already)
			}
			if errs := invariantCanary(o, invariantChecks(), invariantPlants()); len(errs) > 0 {
				t.Errorf("v%d seed %d: %v", hv, seed, errs)
			}
		}
	}
	for seed := uint64(1); seed <= 12; seed++ {
		if errs := invariantCanary(richObservation(t, seed), invariantChecks(), roundPlants(invariantPlants(), false)); len(errs) > 0 {
			t.Errorf("seed %d, a round's observation: %v", seed, errs)
		}
	}
	if errs := invariantCanary(rules.Observation{Now: 1000}, invariantChecks(), invariantPlants()); len(errs) > 0 {
		t.Errorf("empty observation: %v", errs)
	}
}

// Every rule has a plant, and every check a rule the plants break.
func TestInvariantCanaryCoversEveryCheck(t *testing.T) {
	planted := map[rules.Rule]bool{}
	for _, p := range invariantPlants() {
		planted[p.rule] = true
	}
	for _, c := range invariantChecks() {
		if !planted[c.rule] {
			t.Errorf("no plant breaks %s", c.rule)
		}
	}
}

// A check that went blind (returns nil), or that reports a plant under
// another rule, makes the canary fail naming the rule; in a real run's
// observation and in the empty one.
func TestInvariantCanaryCatchesABlindCheck(t *testing.T) {
	for _, obs := range []struct {
		name  string
		o     rules.Observation
		final bool // as the driver: the quiescence plants only in the final observation
	}{
		{"round", richObservation(t, 3), false},
		{"final", finalObservation(canaryRun(t, 3, 1)), true},
		{"empty", rules.Observation{Now: 1000}, true},
	} {
		o, plants := obs.o, invariantPlants()
		if !obs.final {
			plants = roundPlants(plants, false)
		}
		for i, c := range invariantChecks() {
			if c.final && !obs.final {
				continue
			}
			t.Run(obs.name+"/"+string(c.rule), func(t *testing.T) {
				for _, tc := range []struct {
					name  string
					swap  invCheck
					error string
				}{
					{"blind", invCheck{rule: c.rule, final: c.final, single: func(rules.Observation) error { return nil },
						pair: func(_, _ rules.Observation) error { return nil }},
						fmt.Sprintf("invariant %s went blind", c.rule)},
					{"misnamed", wrapCheck(c, func(err error) error {
						if err == nil {
							return nil
						}
						return &rules.Violation{Rule: string(rules.RuleUniqueMemberIDs), Detail: err.Error()}
					}), fmt.Sprintf("invariant %s went blind", c.rule)},
				} {
					if tc.name == "misnamed" && c.rule == rules.RuleUniqueMemberIDs {
						continue
					}
					checks := invariantChecks()
					if checks[i].pair != nil {
						tc.swap.single = nil
					} else {
						tc.swap.pair = nil
					}
					checks[i] = tc.swap
					errs := invariantCanary(o, checks, plants)
					if len(errs) == 0 || !strings.HasPrefix(errs[0], tc.error) {
						t.Fatalf("%s: canary errors %q, want the first starting %q", tc.name, errs, tc.error)
					}
					if tc.name == "misnamed" && !strings.Contains(strings.Join(errs, "\n"), "invariant UniqueMemberIDs fired on the canary's planted") {
						t.Fatalf("%s: canary errors %q, want UniqueMemberIDs named as a false alarm", tc.name, errs)
					}
				}
			})
		}
	}
}

// wrapCheck is c with f applied to its verdicts.
func wrapCheck(c invCheck, f func(error) error) invCheck {
	w := c
	if c.single != nil {
		w.single = func(o rules.Observation) error { return f(c.single(o)) }
	}
	if c.pair != nil {
		w.pair = func(b, a rules.Observation) error { return f(c.pair(b, a)) }
	}
	return w
}

// The header canary passes rules.CheckRequestHeader on a real client's
// header and on its own; a header check gone blind, or one that reports
// every break under one rule, fails it.
func TestHeaderCanary(t *testing.T) {
	d := canaryRun(t, 3, 1)
	blind := func(*codec.RequestHeader, codec.UUID, string, bool) error { return nil }
	oneRule := func(h *codec.RequestHeader, u codec.UUID, id string, first bool) error {
		if err := rules.CheckRequestHeader(h, u, id, first); err != nil {
			return &rules.Violation{Rule: string(rules.RuleClientInstanceIDInHeader), Detail: err.Error()}
		}
		return nil
	}
	untyped := func(h *codec.RequestHeader, u codec.UUID, id string, first bool) error {
		if err := rules.CheckRequestHeader(h, u, id, first); err != nil {
			return errors.New(err.Error())
		}
		return nil
	}
	for _, reqs := range [][]rules.ClientRequest{d.clients.reqs, nil} {
		if errs := headerCanary(reqs, rules.CheckRequestHeader); len(errs) > 0 {
			t.Errorf("%d requests: %v", len(reqs), errs)
		}
		for _, tc := range []struct {
			name  string
			check headerCheck
			n     int
			error string
		}{
			{"blind", blind, len(headerPlants()), "header rule ClientInstanceIDInHeader went blind"},
			{"one rule", oneRule, 3, "header check reported ClientInstanceIDInHeader: NoZeroUUIDs"},
			{"untyped", untyped, len(headerPlants()), "header check reported ClientInstanceIDInHeader"},
		} {
			errs := headerCanary(reqs, tc.check)
			if len(errs) != tc.n || !strings.HasPrefix(errs[0], tc.error) {
				t.Errorf("%d requests, %s: %d errors %q, want %d, the first starting %q", len(reqs), tc.name, len(errs), errs, tc.n, tc.error)
			}
		}
	}
}

// BenchmarkCanary is what the canaries cost a history canaryEvery picks:
// the invariant plants in a round's observation and in the final one,
// the header plants, and the synthetic client records.
func BenchmarkCanary(b *testing.B) {
	t := &testing.T{}
	round, d := richObservation(t, 1), canaryRun(t, 1, 1)
	final := finalObservation(d)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		invariantCanary(round, invariantChecks(), roundPlants(invariantPlants(), false))
		invariantCanary(final, invariantChecks(), roundPlants(invariantPlants(), true))
		headerCanary(d.clients.reqs, rules.CheckRequestHeader)
		reqs, clients := synthRecords()
		synthErrors(clients, rules.CheckClients(reqs))
	}
}
