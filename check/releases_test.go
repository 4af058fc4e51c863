package check_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// classicRun runs a classic (or mixed) plan of seed against the model.
func classicRun(t *testing.T, seed uint64, proto plan.Protocol) (plan.Plan, *driver.Result) {
	t.Helper()
	o := plan.DefaultOptions()
	o.Protocol = proto
	p := plan.New(seed, o)
	res, err := driver.Run(targets.NewModelTarget(p.ModelConfig()), p)
	if err != nil {
		t.Fatal(err)
	}
	return p, res
}

// cloneHistory copies h deeply enough to edit its ops' releases and
// responses.
func cloneHistory(h history.History) history.History {
	out := slices.Clone(h)
	for i := range out {
		out[i].Releases = slices.Clone(h[i].Releases)
	}
	return out
}

// Histories of classic groups against the reference model check exactly
// Ok: every parked operation held at its handling and answered where the
// history says it was released, by the sequential replay and, with the
// operations' intervals widened so that they overlap, by porcupine's
// search.
func TestClassicHistoriesCheckExactly(t *testing.T) {
	parked, releasers, searched := 0, 0, 0
	for seed := uint64(1); seed <= 20; seed++ {
		for _, proto := range []plan.Protocol{plan.ProtocolClassic, plan.ProtocolMixed} {
			p, res := classicRun(t, seed, proto)
			for _, op := range res.History {
				if op.Parked {
					parked++
				}
				if len(op.Releases) > 0 {
					releasers++
				}
			}
			if rep := check.History(p, res.History, check.Options{Timeout: time.Minute}); rep.Verdict != history.Ok {
				t.Fatalf("seed %d %s: %s %s: %s", seed, proto, rep.Verdict, rep.Rule, rep.Detail)
			}
			wide := widened(res.History)
			if rep := check.History(p, wide, check.Options{Timeout: time.Minute}); rep.Verdict != history.Ok || rep.Linearizable != "Ok" {
				t.Fatalf("seed %d %s, widened: %s %s: %s", seed, proto, rep.Verdict, rep.Rule, rep.Detail)
			}
			searched++
		}
	}
	if parked == 0 || releasers == 0 || searched == 0 {
		t.Fatalf("%d parked ops, %d releasers: the plans parked nothing", parked, releasers)
	}
}

// widened is h with the interval of every operation that is not parked,
// releases nothing and is not an event stretched over the next few
// operations' calls, so that the check cannot replay its partitions in
// one order and must search (porcupine).
func widened(h history.History) history.History {
	out := cloneHistory(h)
	for i := range out {
		op := &out[i]
		if op.Parked || op.Event() || len(op.Releases) > 0 || op.Return == history.Never {
			continue
		}
		if _, ok := op.Request.(*codec.DescribeGroupsRequest); ok {
			op.Return += 6
		}
	}
	return out
}

// The exact check judges what the coordinator released, where: a released
// answer that differs from the model's, releases in another order, and a
// timer that released less than the model's are each Illegal, the
// mismatch naming the operations.
func TestReleasesJudged(t *testing.T) {
	p, res := classicRun(t, 4, plan.ProtocolClassic)
	h := res.History
	find := func(ok func(op *history.Op) bool) int {
		for i := range h {
			if ok(&h[i]) {
				return i
			}
		}
		t.Fatal("the history has no such op")
		return -1
	}
	released := find(func(op *history.Op) bool {
		j, ok := op.Response.(*codec.JoinGroupResponse)
		return op.Parked && ok && j.ErrorCode == codec.None
	})
	several := find(func(op *history.Op) bool { return len(op.Releases) > 1 })
	tick := find(func(op *history.Op) bool { return op.Tick == history.TickAdvance })
	for _, c := range []struct {
		name string
		edit func(h history.History) history.History
		want string
	}{
		{"a released answer the model does not give", func(h history.History) history.History {
			j := *h[released].Response.(*codec.JoinGroupResponse)
			j.GenerationId += 7
			h[released].Response = &j
			return h
		}, "released op"},
		{"releases in another order", func(h history.History) history.History {
			slices.Reverse(h[several].Releases)
			return h
		}, "model releases ops"},
		{"an answer the target's timers never gave", func(h history.History) history.History {
			last := h[tick].Releases[len(h[tick].Releases)-1]
			h[tick].Releases = h[tick].Releases[:len(h[tick].Releases)-1]
			h[last].Response, h[last].Return = nil, history.Never
			return h
		}, "model releases ops"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := check.History(p, c.edit(cloneHistory(h)), check.Options{Timeout: time.Minute})
			if rep.Verdict != history.Illegal || rep.Rule != "Linearizability" || !strings.Contains(rep.Mismatch, c.want) {
				t.Fatalf("%s %s: %s (mismatch %q); want Illegal Linearizability naming %q", rep.Verdict, rep.Rule, rep.Detail, rep.Mismatch, c.want)
			}
		})
	}
}

// A classic history survives its file (schema v2, parked operations,
// releases and ticks included) and checks the same after it.
func TestClassicHistoryFileRoundTrip(t *testing.T) {
	p, res := classicRun(t, 5, plan.ProtocolClassic)
	var buf bytes.Buffer
	if err := history.WriteFile(&buf, history.FileHeader{Target: "model", Plan: p, Expect: history.Expect{Verdict: history.Ok}}, res.History); err != nil {
		t.Fatal(err)
	}
	hdr, h, err := history.ReadFile(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Schema != history.Schema || len(h) != len(res.History) || !h.Parks() {
		t.Fatalf("read back schema %q, %d ops (of %d), parks %v", hdr.Schema, len(h), len(res.History), h.Parks())
	}
	var again bytes.Buffer
	if err := history.WriteFile(&again, hdr, h); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Fatal("writing a read classic history does not reproduce the file")
	}
	if rep := check.History(hdr.Plan, h, check.Options{Timeout: time.Minute}); rep.Verdict != history.Ok {
		t.Fatalf("the history read back: %s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	}
}

// A classic history may hold no parked operation at all (a lone client
// that joined and left before any join phase): the ids the coordinator
// made for its JoinGroups still come from the history.
func TestClassicIDsWithoutParking(t *testing.T) {
	p := plan.Plan{Seed: 1591, Topics: []plan.Topic{{Name: "alpha", Partitions: 6}, {Name: "beta", Partitions: 3}},
		SessionTimeoutMs: 5800, HeartbeatIntervalMs: 1000, Rounds: 5, RoundMs: 500, RequestTimeout: 3, DescribeEvery: 4,
		Clients: []plan.ClientPlan{{Name: "c0", Group: "g0", HeartbeatVersion: 1, Topics: []string{"alpha", "beta"}, Seed: 114951571,
			Actions: []plan.Action{{Round: 4, Kind: plan.Join}},
			Classic: &plan.ClassicClient{JoinGroupMaxVersion: 9, SessionTimeoutMs: 6000, RebalanceTimeoutMs: 8000, RequestTimeoutMs: 4000}}}}
	res, err := driver.Run(targets.NewModelTarget(p.ModelConfig()), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.History.Parks() || !slices.ContainsFunc(res.History, func(op history.Op) bool {
		j, ok := op.Response.(*codec.JoinGroupResponse)
		return ok && j.ErrorCode == codec.MemberIDRequired
	}) {
		t.Fatal("the plan no longer makes a pending id without parking anything")
	}
	if rep := check.Check(res, check.Options{Timeout: time.Minute}); rep.Verdict != history.Ok {
		t.Fatalf("%s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	}
}

// A static member's JoinGroup refused at once (GROUP_MAX_SIZE_REACHED, no
// member id) made no member: the id a later DescribeGroups shows under its
// instance is the next join's (two processes with one instance id, seed
// 16100 of a classic run, shrunk), and the history checks Ok.
func TestClassicRefusedJoinMakesNoID(t *testing.T) {
	hdr, h := readTestHistory(t, "classic-refused-static-join.jsonl")
	refused := slices.IndexFunc(h, func(op history.Op) bool {
		j, ok := op.Response.(*codec.JoinGroupResponse)
		return ok && !op.Parked && j.ErrorCode == codec.GroupMaxSizeReached && j.MemberId == ""
	})
	if refused < 0 || !slices.ContainsFunc(h[refused+1:], func(op history.Op) bool {
		j, ok := op.Request.(*codec.JoinGroupRequest)
		return ok && j.MemberId == "" && j.GroupInstanceId == h[refused].Request.(*codec.JoinGroupRequest).GroupInstanceId
	}) {
		t.Fatal("the history no longer holds a refused static join followed by another of its instance")
	}
	if rep := check.History(hdr.Plan, h, check.Options{Timeout: time.Minute}); rep.Verdict != history.Ok {
		t.Fatalf("%s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	}
}

// One step may serve several static joins that waited unread behind the
// joins it released, each replacing its instance's member: the model draws
// an id for each, and the one whose id no answer shows (its member removed
// by an admin before its join was answered) still takes a draw of its own,
// so the id a later answer shows goes to its own instance (seed 54927 of a
// classic run at 30 % faults and 70 % static, shrunk: the model gave
// inst-2's id to inst-0's replacement). The history checks Ok.
func TestClassicServedJoinWithUnshownID(t *testing.T) {
	hdr, h := readTestHistory(t, "classic-served-unshown-replacement.jsonl")
	// The shape: a step releasing two parked joins, each of whose
	// connections held a static join with no member id behind it, one
	// answered with no id.
	behind := func(released int) *history.Op {
		r := slices.IndexFunc(h, func(op history.Op) bool { return op.ID == released })
		for i := r + 1; r >= 0 && i < len(h); i++ {
			j, ok := h[i].Request.(*codec.JoinGroupRequest)
			if ok && h[i].Parked && h[i].Conn.ID == h[r].Conn.ID && j.MemberId == "" && j.GroupInstanceId.Valid {
				return &h[i]
			}
		}
		return nil
	}
	shape := slices.ContainsFunc(h, func(op history.Op) bool {
		if len(op.Releases) < 2 {
			return false
		}
		var shown, unshown int
		for _, id := range op.Releases {
			y := behind(id)
			if y == nil {
				continue
			}
			if j, ok := y.Response.(*codec.JoinGroupResponse); ok && j.MemberId != "" {
				shown++
			} else {
				unshown++
			}
		}
		return shown > 0 && unshown > 0
	})
	if !shape {
		t.Fatal("the history no longer serves, in one step, a static join whose id shows and one whose id does not")
	}
	if rep := check.History(hdr.Plan, h, check.Options{Timeout: time.Minute}); rep.Verdict != history.Ok {
		t.Fatalf("%s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	}
}

// readTestHistory reads testdata/name, a history file.
func readTestHistory(t *testing.T, name string) (history.FileHeader, history.History) {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hdr, h, err := history.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return hdr, h
}
