package conformance_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/plan"
)

// classicHistoryOptions is a history plan of classic groups (or, mixed,
// of both protocols) sized for real time: 100 rounds of 50 ms, as the
// classic clients' 6 s sessions and 3-10 s rebalance timeouts need.
func classicHistoryOptions(p plan.Protocol) plan.Options {
	o := conformance.DefaultHistoryOptions()
	o.Protocol, o.Rounds = p, 100
	return o
}

// Classic histories over TCP (tcptarget parks the JoinGroups and
// SyncGroups the broker holds): against ghostcheck's server a history of
// classic groups, and one of both protocols mixed, is Ok, and so is one
// of classic groups against kfake, or KNOWN through K26 (the prober's
// classic Heartbeat to a missing group, GROUP_ID_NOT_FOUND) and nothing
// else;
// each history's clients joined classic groups (JoinGroup answered NONE)
// and had held requests released.
func TestClassicHistoriesOverTCP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		broker string
		start  func(testing.TB) string
		known  func(testing.TB) *conformance.Known
		proto  plan.Protocol
	}{
		{"serve", startServe, func(testing.TB) *conformance.Known { return nil }, plan.ProtocolClassic},
		{"serve", startServe, func(testing.TB) *conformance.Known { return nil }, plan.ProtocolMixed},
		{"kfake", startKfake, kfakeKnown, plan.ProtocolClassic},
	} {
		t.Run(tc.broker+"/"+string(tc.proto), func(t *testing.T) {
			t.Parallel()
			addr := tc.start(t)
			rep, err := conformance.RunHistories(conformance.HistoryConfig{Peer: peer(addr), Seed: 1, Histories: 1, Options: classicHistoryOptions(tc.proto), Known: tc.known(t)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Histories) != 1 {
				t.Fatalf("%d histories run, want 1 (stopped: %s)", len(rep.Histories), rep.Stopped)
			}
			h := rep.Histories[0]
			joins, released := 0, 0
			for _, op := range h.Run.History {
				if r, ok := op.Response.(*codec.JoinGroupResponse); ok && r.ErrorCode == codec.None {
					joins++
				}
				released += len(op.Releases)
			}
			t.Logf("seed %d: %s %s %s (%d ops, %d classic joins answered NONE, %d held requests released, lag %d ms, %.1f s)",
				h.Seed, h.Status, h.Rule, h.Detail, h.Operations, joins, released, h.LagMs, h.Seconds)
			if h.Failed() || tc.broker == "serve" && h.Status != string(history.Ok) {
				t.Errorf("seed %d: %s %s: %s", h.Seed, h.Status, h.Rule, h.Detail)
			}
			if joins == 0 || released == 0 {
				t.Errorf("seed %d: %d classic joins answered NONE, %d held requests released: the history did not exercise classic groups", h.Seed, joins, released)
			}
		})
	}
}

// Classic histories against three kfake brokers whose coordinators move
// (and connections reset): each held JoinGroup and SyncGroup goes to its
// group's coordinator, a late coordinator error is sent again through the
// cluster (tcptarget's held.go), and nothing but kfake's known findings is
// raised; the moves were played and held requests released.
func TestKfakeClusterClassicHistories(t *testing.T) {
	t.Parallel()
	c := startKfakeCluster(t, 3)
	const n = 3
	rep, err := conformance.RunHistories(conformance.HistoryConfig{Peer: peer(c.ListenAddrs()[0]), Seed: 1, Histories: n, Options: classicHistoryOptions(plan.ProtocolClassic),
		Known: kfakeKnown(t), Control: newKfakeControl(t, c)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Histories) != n {
		t.Fatalf("%d histories of %d (stopped: %s)", len(rep.Histories), n, rep.Stopped)
	}
	moves, released := 0, 0
	for _, h := range rep.Histories {
		moves += h.ClusterFaults[plan.CoordinatorMove]
		for _, op := range h.Run.History {
			released += len(op.Releases)
		}
		t.Logf("seed %d: %s %s %s (%d ops, cluster faults %v, %.1f s)", h.Seed, h.Status, h.Rule, h.Detail, h.Operations, h.ClusterFaults, h.Seconds)
		if h.Failed() {
			t.Errorf("seed %d: %s %s: %s", h.Seed, h.Status, h.Rule, h.Detail)
		}
	}
	if moves < n || released == 0 {
		t.Errorf("%d coordinator moves and %d held requests released in %d histories: the histories did not exercise held requests across moves", moves, released, n)
	}
}

// The classic mutants against classic histories over TCP, at the
// observable level: GHOSTCHECK_CLASSIC_MUTANT_HISTORIES=N runs N histories
// (seeds 1-N) against `serve --mutant NAME` for each classic mutant and
// logs which caught it (docs/mutants.md's table); a measurement, not run
// by default:
//
//	GHOSTCHECK_CLASSIC_MUTANT_HISTORIES=3 go test -run TestClassicHistoriesAgainstMutants -v -parallel 4 ./internal/conformance
func TestClassicHistoriesAgainstMutants(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("GHOSTCHECK_CLASSIC_MUTANT_HISTORIES"))
	if n <= 0 {
		t.Skip("a measurement: set GHOSTCHECK_CLASSIC_MUTANT_HISTORIES=N to run N classic histories against each classic mutant")
	}
	eachClassicMutant(t, func(t *testing.T, mi impl.MutantInfo, addr string) {
		rep, err := conformance.RunHistories(conformance.HistoryConfig{Peer: peer(addr), Seed: 1, Histories: n, Options: classicHistoryOptions(plan.ProtocolClassic)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		caught := 0
		var first string
		for _, h := range rep.Histories {
			if h.Status != string(history.Ok) {
				caught++
				if first == "" {
					first = fmt.Sprintf("seed %d: %s %s", h.Seed, h.Rule, h.Detail)
				}
			}
		}
		t.Logf("MUTANT %s: caught by %d of %d classic histories; first: %s", mi.Name, caught, len(rep.Histories), first)
	})
}
