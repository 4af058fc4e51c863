package conformance_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/internal/conformance"
)

// RunShards deals the cases over brokers of their own and gives the
// results back in the cases' order, each case run once; against
// ghostcheck's server every case ends as it does in one Run.
func TestRunShardsKeepsTheCasesOrder(t *testing.T) {
	t.Parallel()
	cases := conformance.Select([]string{"A1/", "A2/"}, false, false)
	if len(cases) < 6 {
		t.Fatalf("%d cases: too few to deal over 4 shards", len(cases))
	}
	addrs := map[int]string{}
	seen := 0 // each shard's Progress sees one result at a time (-race)
	rep, err := conformance.RunShards(4, cases, func(k int) (conformance.Shard, error) {
		addrs[k] = startServe(t)
		return conformance.Shard{Peer: peer(addrs[k]), Options: conformance.Options{Progress: func(conformance.Result) { seen++ }}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(cases) {
		t.Errorf("Progress saw %d results of %d cases", seen, len(cases))
	}
	if len(addrs) != 4 {
		t.Errorf("%d shards started, want 4", len(addrs))
	}
	if len(rep.Results) != len(cases) || rep.Stopped != "" || len(rep.NotRun) != 0 {
		t.Fatalf("%d results of %d cases; stopped %q, not run %v", len(rep.Results), len(cases), rep.Stopped, rep.NotRun)
	}
	one, err := conformance.Run(peer(startServe(t)), cases, conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rep.Results {
		o := one.Results[i]
		switch {
		case r.Name != cases[i].Name:
			t.Errorf("result %d is %s, want %s", i, r.Name, cases[i].Name)
		case r.TooSlow() || o.TooSlow():
			t.Logf("%s left out: too slow to judge", r.Name)
		case r.Status != o.Status:
			t.Errorf("%s: %s in a shard (%s), %s in one run (%s)", r.Name, r.Status, r.Observed, o.Status, o.Observed)
		}
	}
	if rep.Held == nil || rep.Versions == nil {
		t.Errorf("the report lacks shard 0's holding (%v) or versions (%d apis)", rep.Held, len(rep.Versions))
	}
}

// shardsPerRun is how many brokers of their own the long case lists of
// these tests run on side by side (conformance.RunShards): their cases
// mostly wait on sessions and join phases.
const shardsPerRun = 4

// runShards is conformance.Run of cases with opts over shardsPerRun
// brokers, each started by start (it returns the broker's address).
func runShards(start func() string, cases []conformance.Case, opts conformance.Options) (*conformance.Report, error) {
	return conformance.RunShards(shardsPerRun, cases, func(int) (conformance.Shard, error) {
		return conformance.Shard{Peer: peer(start()), Options: opts}, nil
	})
}
