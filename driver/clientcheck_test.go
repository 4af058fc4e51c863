package driver

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
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

// A static classic client that resubscribed while its SyncGroup was on its
// way, and gave the SyncGroup up after the request timeout, closes its
// connection as Java's network client does: a later FENCED_INSTANCE_ID for
// that SyncGroup (another JoinGroup of the instance had replaced the
// member meanwhile) goes nowhere, and its rejoins under the instance break
// nothing. Before, the rejoin went on the open connection, the late answer
// came there unheard, and NoRejoinAfterFencedInstance reported the client:
// the shrunk histories of seeds 110195 (classic) and 112076 (mixed), with
// 30 % faults and 70 % static members.
func TestTimedOutSyncGroupsAnswerGoesNowhere(t *testing.T) {
	for _, name := range []string{"classic-sync-timed-out-while-rejoining.jsonl", "mixed-sync-timed-out-while-rejoining.jsonl"} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			hdr, _, err := history.ReadFile(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			d, err := newDriver(modelTarget(hdr.Plan.ModelConfig()), hdr.Plan)
			if err != nil {
				t.Fatal(err)
			}
			if !d.runRounds() || !d.quiesce() {
				t.Fatalf("the run failed: %v", d.res.HarnessErrors)
			}
			var timeout int64 // the longest request timeout of the plan's classic clients
			for _, c := range hdr.Plan.Clients {
				if c.Classic != nil {
					timeout = max(timeout, int64(c.Classic.RequestTimeoutMs))
				}
			}
			// The shape: a static member's SyncGroup unanswered after the
			// request timeout (given up), then a JoinGroup of the process
			// naming the instance.
			gaveUp := 0
			for i, r := range d.clients.reqs {
				sg, ok := r.Request.(*codec.SyncGroupRequest)
				if !ok || !sg.GroupInstanceId.Valid || r.Response != nil && r.Answered <= r.At+timeout ||
					!slices.ContainsFunc(d.clients.reqs[i+1:], func(l rules.ClientRequest) bool {
						jg, ok := l.Request.(*codec.JoinGroupRequest)
						return ok && l.Header.ClientInstanceId == r.Header.ClientInstanceId && jg.GroupInstanceId == sg.GroupInstanceId
					}) {
					continue
				}
				gaveUp++
				if r.Response != nil {
					t.Errorf("the client took the answer (%v) to the SyncGroup (correlation id %d) it had given up", r.Response, r.Header.CorrelationId)
				}
			}
			if gaveUp == 0 {
				t.Fatal("no static member gave a SyncGroup up and joined again: the history no longer has its shape")
			}
			for _, v := range d.res.Violations {
				t.Errorf("%s: %s", v.Rule, v.What)
			}
		})
	}
}
