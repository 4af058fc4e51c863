package driver

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// classicRun runs seed's default plan with the given protocol (classic or
// mixed) on the model, the canaries on, and returns the driver after it.
func classicRun(t *testing.T, seed uint64, proto plan.Protocol) *driver {
	t.Helper()
	o := plan.DefaultOptions()
	o.Protocol = proto
	return optionsRun(t, seed, o, true)
}

// classicFinal is the final observation of a classic run, with its ledger.
func classicFinal(d *driver) rules.Observation {
	o := finalObservation(d)
	o.Classic = &d.obs.classic.ledger
	return o
}

// Classic and mixed runs with the canaries on pass them (the classic
// plants in the final observation, the events on the run's trackers), and
// break nothing themselves.
func TestClassicCanaryPassesRealRuns(t *testing.T) {
	for _, proto := range []plan.Protocol{plan.ProtocolClassic, plan.ProtocolMixed} {
		for seed := uint64(1); seed <= 6; seed++ {
			d := classicRun(t, seed, proto)
			if len(d.res.HarnessErrors) > 0 || len(d.res.Violations) > 0 {
				t.Fatalf("%s seed %d: harness errors %v, violations %v", proto, seed, d.res.HarnessErrors, d.res.Violations)
			}
			o := classicFinal(d)
			if errs := invariantCanary(o, invariantChecks(), classicPlants()); len(errs) > 0 {
				t.Errorf("%s seed %d: %v", proto, seed, errs)
			}
			if errs := classicEventCanary(&d.obs.classic, classicEvents()); len(errs) > 0 {
				t.Errorf("%s seed %d, events: %v", proto, seed, errs)
			}
		}
	}
}

// Each classic plant breaks exactly its rule, through the rule's classic
// form: with the classic branches of NoGhosts and OneMemberPerProcess cut
// off (the group judged as a consumer group), their plants are not all
// seen as planted.
func TestClassicPlantsNeedTheClassicBranches(t *testing.T) {
	o := classicFinal(classicRun(t, 2, plan.ProtocolClassic))
	asConsumer := func(o rules.Observation) rules.Observation {
		c := cloneObservation(o)
		for i := range c.Groups {
			c.Groups[i].Kind = rules.KindConsumer
		}
		return c
	}
	checks := invariantChecks()
	for i, c := range checks {
		if c.rule != rules.RuleNoGhosts && c.rule != rules.RuleOneMemberPerProcess {
			continue
		}
		single := c.single
		checks[i].single = func(o rules.Observation) error { return single(asConsumer(o)) }
	}
	errs := invariantCanary(o, checks, classicPlants())
	for _, want := range []string{
		"invariant NoGhosts went blind: the canary planted a KIP-394 pending id",
		"invariant OneMemberPerProcess went blind: the canary planted two members waiting",
	} {
		if !strings.Contains(strings.Join(errs, "\n"), want) {
			t.Errorf("canary errors %q, want one starting %q", errs, want)
		}
	}
}

// The event canary reports a classic tracker gone blind, and one that
// reports a break under another rule.
func TestClassicEventCanaryCatchesABlindCheck(t *testing.T) {
	d := classicRun(t, 3, plan.ProtocolClassic)
	for _, ev := range classicEvents() {
		blind := ev
		blind.feed = func(*classicTrackers) error { return nil }
		errs := classicEventCanary(&d.obs.classic, []classicEvent{blind})
		if len(errs) != 1 || !strings.HasPrefix(errs[0], "invariant "+string(ev.rule)+" went blind") {
			t.Errorf("%s, blind: %q", ev.what, errs)
		}
		misnamed := ev
		misnamed.feed = func(t *classicTrackers) error {
			if err := ev.feed(t); err != nil {
				return &rules.Violation{Rule: string(rules.RuleUniqueMemberIDs), Detail: err.Error()}
			}
			return nil
		}
		errs = classicEventCanary(&d.obs.classic, []classicEvent{misnamed})
		if len(errs) != 1 || !strings.HasPrefix(errs[0], "classic judge reported") {
			t.Errorf("%s, misnamed: %q", ev.what, errs)
		}
	}
}

// canaryAssignment encodes a ConsumerProtocolAssignment DecodeAssignment
// reads back.
func TestCanaryAssignmentDecodes(t *testing.T) {
	got := rules.DecodeAssignment(canaryAssignment(2))
	if len(got) != 1 || got[0] != (rules.TopicPartition{Topic: "ghostcheck-canary-classic", Partition: 2}) {
		t.Fatalf("decoded %v", got)
	}
	var a codec.ConsumerProtocolAssignment
	if _, err := a.Decode(canaryAssignment(2), codec.DecodeOptions{}); err != nil {
		t.Fatal(err)
	}
}

// The classic plants hold where time allows no session to have ended yet:
// early in a run over TCP (a slack longer than the time so far), and at a
// coordinator restart's very time (found by `ghostcheck check`'s first
// history against our own server).
func TestClassicPlantsEarlyAndAtARestart(t *testing.T) {
	early := &rules.ClassicLedger{SlackMs: 600}
	atRestart := &rules.ClassicLedger{SlackMs: 0}
	atRestart.Restarted(5000)
	for _, o := range []rules.Observation{{Now: 300, Classic: early}, {Now: 5000, Classic: atRestart}, {Now: 0}} {
		if errs := invariantCanary(o, invariantChecks(), classicPlants()); len(errs) > 0 {
			t.Errorf("now %d: %v", o.Now, errs)
		}
	}
}
