package driver

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// The run's own clients are held to the client rules: a clean run breaks
// none, and a recorded request changed the way a broken client would send
// it (a second member id from one KIP-1082 process) is reported.
func TestClientRulesJudgeTheRunsClients(t *testing.T) {
	p := plan.New(1, plan.DefaultOptions())
	d, err := newDriver(modelTarget(p.ModelConfig()), p)
	if err != nil {
		t.Fatal(err)
	}
	if !d.runRounds() || !d.quiesce() {
		t.Fatalf("the run failed: %v", d.res.HarnessErrors)
	}
	clientRule := map[string]bool{}
	for _, r := range rules.ClientRules() {
		clientRule[string(r)] = true
	}
	for _, v := range d.res.Violations {
		if clientRule[v.Rule] {
			t.Fatalf("a reference client broke %s: %s", v.Rule, v.What)
		}
	}
	if len(d.clients.reqs) == 0 {
		t.Fatal("no client request was recorded")
	}
	for i := len(d.clients.reqs) - 1; i >= 0; i-- {
		if hb, ok := d.clients.reqs[i].Request.(*codec.ConsumerGroupHeartbeatRequest); ok && hb.MemberEpoch > 0 && d.clients.reqs[i].Header.RequestApiVersion == 1 {
			other := *hb
			other.MemberId = "another-member-id"
			d.clients.reqs[i].Request = &other
			break
		}
	}
	d.clients.check()
	if d.res.ViolationCounts[string(rules.RuleStableMemberID)] == 0 {
		t.Fatalf("a process that changed its member id was not reported: %v", d.res.ViolationCounts)
	}
}
