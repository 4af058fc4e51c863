package check_test

import (
	"bytes"
	"flag"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/race"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

var histories = flag.Int("histories", 0, "histories per long-run test (default 200, a fifth of it under the race detector)")

// longRuns is how many histories a long-run test runs: -histories, or 200
// (race.Sweep: a fifth under the race detector).
func longRuns() int {
	if *histories > 0 {
		return *histories
	}
	return race.Sweep(200)
}

func runModel(t testing.TB, p plan.Plan) (*driver.Result, *check.Report) {
	t.Helper()
	res, err := driver.Run(targets.NewModelTarget(p.ModelConfig()), p)
	if err != nil {
		t.Fatal(err)
	}
	return res, check.Check(res, check.Options{})
}

// The reference model judged against itself must always pass: any verdict
// other than Ok is a false alarm of the harness.
func TestModelTargetHasNoFalseAlarms(t *testing.T) {
	n := longRuns()
	ops := 0
	for _, version := range []int{1, 0, -1} {
		o := plan.DefaultOptions()
		o.HeartbeatVersion = version
		for seed := uint64(1); seed <= uint64(n)/3; seed++ {
			p := plan.New(seed, o)
			res, rep := runModel(t, p)
			ops += len(res.History)
			if rep.Linearizable != "Ok" {
				t.Fatalf("version %d seed %d: the model's own history is not linearizable: %s", version, seed, rep.Mismatch)
			}
			if version == 1 && rep.Verdict != history.Ok {
				t.Fatalf("seed %d: v1 clients against the model: %s: %s", seed, rep.Rule, rep.Detail)
			}
			if len(res.HarnessErrors) > 0 {
				t.Fatalf("seed %d: harness errors: %v", seed, res.HarnessErrors)
			}
		}
	}
	t.Logf("%d histories, %d operations, no false alarm", n/3*3, ops)
}

// The KIP-1082 claim, measured: with ConsumerGroupHeartbeat v0 and lost
// join responses the harness finds a ghost within a few histories; with v1
// and the same faults it finds none.
func TestKIP1082GhostsV0FoundV1None(t *testing.T) {
	o := plan.DefaultOptions()
	o.Faults = plan.OnlyFault(plan.LostResponse, 10)
	o.HeartbeatVersion = 0
	const bound = 10
	took := 0
	for seed := uint64(1); seed <= bound; seed++ {
		res, rep := runModel(t, plan.New(seed, o))
		if len(res.Ghosts) > 0 {
			if rep.Verdict != history.Illegal || (rep.Rule != "NoGhosts" && rep.Rule != "OneMemberPerProcess") {
				t.Fatalf("seed %d has ghosts %v but the verdict is %s %s", seed, res.Ghosts, rep.Verdict, rep.Rule)
			}
			took = int(seed)
			break
		}
	}
	if took == 0 {
		t.Fatalf("v0 with lost join responses: no ghost within %d histories", bound)
	}
	t.Logf("v0: first ghost in history %d", took)

	o.HeartbeatVersion = 1
	for seed := uint64(1); seed <= uint64(longRuns()); seed++ {
		res, rep := runModel(t, plan.New(seed, o))
		if len(res.Ghosts) > 0 || rep.Verdict != history.Ok {
			t.Fatalf("v1 seed %d: %s %s: %s (ghosts %v)", seed, rep.Verdict, rep.Rule, rep.Detail, res.Ghosts)
		}
	}
	t.Logf("v1: no ghost in %d histories", longRuns())
}

// The motivating race of KAFKA-17116: the process closes before its join
// response arrives. A v1 client's leave carries its own id and removes the
// member; a v0 client's leave carries "" and is refused, leaving a ghost.
func TestCloseBeforeJoinResponse(t *testing.T) {
	for _, tc := range []struct {
		version    int16
		wantGhosts bool
	}{{1, false}, {0, true}} {
		t.Run(fmt.Sprintf("v%d", tc.version), func(t *testing.T) {
			pl := plan.New(1, plan.DefaultOptions())
			pl.Clients = []plan.ClientPlan{{Name: "c0", Group: "g0", HeartbeatVersion: tc.version, Topics: []string{"alpha"}, Seed: 7,
				Actions: []plan.Action{{Round: 0, Kind: plan.Join}, {Round: 2, Kind: plan.Close}}}}
			pl.Admin = nil
			// Request 1 is ApiVersions, 2 the join: its response is
			// delayed past the close.
			pl.Faults = []plan.Fault{{Client: 0, Request: 2, Kind: plan.DelayResponse, Delay: 3}}
			res, rep := runModel(t, pl)
			if got := len(res.Ghosts) > 0; got != tc.wantGhosts {
				t.Fatalf("ghosts %v, want ghosts: %v (verdict %s %s)", res.Ghosts, tc.wantGhosts, rep.Verdict, rep.Detail)
			}
			var leave *history.Op
			for i := range res.History {
				if r, ok := res.History[i].Request.(*codec.ConsumerGroupHeartbeatRequest); ok && r.MemberEpoch == -1 {
					leave = &res.History[i]
				}
			}
			if leave == nil {
				t.Fatal("the closing client sent no leave")
			}
			resp := leave.Response.(*codec.ConsumerGroupHeartbeatResponse)
			if tc.version == 1 && resp.ErrorCode != codec.None {
				t.Fatalf("v1 leave before the join response: %s, want NONE", resp.ErrorCode)
			}
			if tc.version == 0 && resp.ErrorCode != codec.InvalidRequest {
				t.Fatalf("v0 leave with an empty member id: %s, want INVALID_REQUEST", resp.ErrorCode)
			}
		})
	}
}

// A rapid property over drawn plans: KIP-1082 clients against the model
// never break an invariant and their histories are linearizable. A failure
// shrinks to a small plan.
func TestPropertyV1ClientsKeepEveryPromise(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := plan.DefaultOptions()
		o.Clients = rapid.IntRange(1, 6).Draw(t, "clients")
		o.Groups = rapid.IntRange(1, 2).Draw(t, "groups")
		o.Rounds = 30
		p := plan.Draw(t, o)
		res, err := driver.Run(targets.NewModelTarget(p.ModelConfig()), p)
		if err != nil {
			t.Fatal(err)
		}
		if rep := check.Check(res, check.Options{}); rep.Verdict != history.Ok {
			t.Fatalf("%s: %s", rep.Rule, rep.Detail)
		}
	})
}

// Shrink must turn a failing seeded plan into a small one that still fails
// the same way.
func TestShrinkKeepsTheFailure(t *testing.T) {
	o := plan.DefaultOptions()
	o.HeartbeatVersion = 0
	o.Faults = plan.OnlyFault(plan.LostResponse, 10)
	var pl plan.Plan
	for seed := uint64(1); ; seed++ {
		pl = plan.New(seed, o)
		if res, _ := runModel(t, pl); len(res.Ghosts) > 0 {
			break
		}
	}
	fails := func(p plan.Plan) bool {
		res, err := driver.Run(targets.NewModelTarget(p.ModelConfig()), p)
		return err == nil && len(res.Ghosts) > 0
	}
	small := plan.Shrink(pl, fails, 400)
	if !fails(small) {
		t.Fatal("the shrunk plan no longer fails")
	}
	c, a, f := small.Size()
	c0, a0, f0 := pl.Size()
	t.Logf("shrunk from %d clients/%d actions/%d faults to %d/%d/%d", c0, a0, f0, c, a, f)
	if c != 1 || f != 1 {
		t.Fatalf("a v0 ghost needs one client and one lost join response; shrinking left %d clients and %d faults", c, f)
	}
}

// A history survives its file format, and checks the same after.
func TestHistoryFileRoundTrip(t *testing.T) {
	p := plan.New(3, plan.DefaultOptions())
	res, rep := runModel(t, p)
	var buf bytes.Buffer
	if err := history.WriteFile(&buf, history.FileHeader{Target: "model", Plan: p, Expect: history.Expect{Verdict: rep.Verdict}}, res.History); err != nil {
		t.Fatal(err)
	}
	hdr, h, err := history.ReadFile(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// A consumer-protocol history parks nothing: it is written in the
	// first schema, as before parked operations existed.
	if hdr.Schema != history.SchemaV1 || len(h) != len(res.History) {
		t.Fatalf("read back schema %q and %d ops, want %q and %d", hdr.Schema, len(h), history.SchemaV1, len(res.History))
	}
	var again bytes.Buffer
	if err := history.WriteFile(&again, hdr, h); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Fatal("writing a read history does not reproduce the file")
	}
	if r2 := check.History(hdr.Plan, h, check.Options{}); r2.Linearizable != rep.Linearizable {
		t.Fatalf("the read history checks %s, the original %s", r2.Linearizable, rep.Linearizable)
	}
}

// Tampering with one recorded response makes the history illegal, and the
// report names the operation.
func TestTamperedHistoryIsIllegal(t *testing.T) {
	p := plan.New(5, plan.DefaultOptions())
	res, _ := runModel(t, p)
	for i := range res.History {
		if r, ok := res.History[i].Response.(*codec.ConsumerGroupHeartbeatResponse); ok && r.ErrorCode == codec.None && r.MemberEpoch > 0 {
			r.MemberEpoch++
			rep := check.Check(res, check.Options{})
			if rep.Verdict != history.Illegal || rep.Rule != "Linearizability" {
				t.Fatalf("an epoch off by one in op %d: verdict %s %s, want Illegal Linearizability", i, rep.Verdict, rep.Rule)
			}
			if !strings.Contains(rep.Mismatch, fmt.Sprintf("op %d ", i)) {
				t.Fatalf("the mismatch should name op %d: %s", i, rep.Mismatch)
			}
			return
		}
	}
	t.Fatal("no successful heartbeat to tamper with")
}

// Broken harness assumptions are harness errors (Unknown), never product
// bugs and never a pass.
func TestBrokenAssumptionIsUnknown(t *testing.T) {
	p := plan.New(2, plan.DefaultOptions())
	res, _ := runModel(t, p)
	res.History[3].Return = res.History[3].Call - 1
	rep := check.Check(res, check.Options{})
	if rep.Verdict != history.Unknown || rep.Rule != "HarnessAssumption" {
		t.Fatalf("call after return: verdict %s %s, want Unknown HarnessAssumption", rep.Verdict, rep.Rule)
	}
}
