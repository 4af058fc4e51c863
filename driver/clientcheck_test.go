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

// A static KIP-848 client told FENCED_INSTANCE_ID stops, even when the
// answer is a late one to a heartbeat or leave it had given up on (it
// reached the process on its connection all the same): seeds of v0 runs
// where a static leave with MemberId "" (its join's answer never came) was
// answered FENCED_INSTANCE_ID after the leave timed out, and the process
// joined again under the instance. NoRejoinAfterFencedInstance, which
// judges ConsumerGroupHeartbeat, finds nothing.
func TestFencedConsumerStops(t *testing.T) {
	for _, seed := range []uint64{55909, 56736, 56858, 63162, 67804} {
		o := plan.DefaultOptions()
		o.HeartbeatVersion = 0
		d := optionsRun(t, seed, o, false)
		fenced := false
		for _, r := range d.clients.reqs {
			if hb, ok := r.Response.(*codec.ConsumerGroupHeartbeatResponse); ok && hb.ErrorCode == codec.FencedInstanceID {
				fenced = true
			}
		}
		if !fenced {
			t.Errorf("seed %d: no client was told FENCED_INSTANCE_ID any more", seed)
		}
		for _, v := range d.res.Violations {
			if v.Rule == string(rules.RuleNoRejoinAfterFencedInstance) {
				t.Errorf("seed %d: %s", seed, v.What)
			}
		}
	}
}
