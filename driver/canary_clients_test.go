package driver

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/model/rules"
)

// The synthetic records are judged as their clients list, and they break
// the client rules the live canary does not (UniqueMemberIDs,
// ClientIDOnFirstRequest).
func TestSynthClientsPass(t *testing.T) {
	reqs, clients := synthRecords()
	if errs := synthErrors(clients, rules.CheckClients(reqs)); len(errs) > 0 {
		t.Fatal(errs)
	}
	broke := map[rules.Rule]bool{}
	for _, c := range clients {
		for _, r := range c.broke {
			broke[r] = true
		}
	}
	for _, r := range []rules.Rule{rules.RuleUniqueMemberIDs, rules.RuleClientIDOnFirstRequest, rules.RuleNoZeroUUIDs, rules.RuleNoHeartbeatAfterLeave} {
		if !broke[r] {
			t.Errorf("the synthetic records break no %s", r)
		}
	}
}

// A rule that went blind, fired on a client that kept it, or judged an old
// client violating instead of not adopted, or a client the verdicts split
// differently, is an error naming it.
func TestSynthClientsCatchABlindRule(t *testing.T) {
	reqs, clients := synthRecords()
	for _, tc := range []struct {
		name   string
		client string
		rule   rules.Rule
		flip   rules.Outcome
		error  string
	}{
		{"blind", "canary-twin-b", rules.RuleUniqueMemberIDs, rules.OutcomePass, "client rule UniqueMemberIDs went blind: the canary's synthetic records break it (the other client sending it)"},
		{"blind", "canary-repeat", rules.RuleClientIDOnFirstRequest, rules.OutcomeNotAdopted, "client rule ClientIDOnFirstRequest went blind"},
		{"false alarm", "canary-twin-a", rules.RuleStableMemberID, rules.OutcomeViolated, "client rule StableMemberID fired on the canary's synthetic a client sending a member id"},
		{"old client held to the KIP", "canary-old", rules.RuleTelemetryInstanceID, rules.OutcomeViolated, "client rule TelemetryInstanceID fired on the canary's synthetic a client before KIP-1313"},
		{"old client passed", "canary-old", rules.RuleClientInstanceIDInHeader, rules.OutcomePass, "client rule ClientInstanceIDInHeader judged the canary's synthetic a client before KIP-1313 PASS, want NOT ADOPTED"},
		{"resplit", "canary-old", "", "", "client rules: the canary's synthetic records show a client clientId canary-elder"},
	} {
		t.Run(tc.name+" "+string(tc.rule), func(t *testing.T) {
			got := rules.CheckClients(reqs)
			flipped := false
			for i := range got {
				if !strings.Contains(got[i].Client, tc.client) {
					continue
				}
				if tc.rule == "" {
					got[i].Client, flipped = "clientId canary-elder", true
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
			errs := synthErrors(clients, got)
			if len(errs) == 0 || !strings.HasPrefix(errs[0], tc.error) {
				t.Fatalf("errors %q, want the first starting %q", errs, tc.error)
			}
		})
	}
}

// A client whose verdicts lack a rule is an error naming it.
func TestSynthClientsNeedEveryRule(t *testing.T) {
	reqs, clients := synthRecords()
	got := rules.CheckClients(reqs)
	got[0].Results = got[0].Results[1:]
	errs := synthErrors(clients, got)
	want := "client rule " + string(rules.ClientRules()[0]) + " judged nothing of the canary's synthetic"
	if len(errs) != 1 || !strings.HasPrefix(errs[0], want) {
		t.Fatalf("errors %q, want one starting %q", errs, want)
	}
}
