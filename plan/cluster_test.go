package plan_test

import (
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/plan"
)

// Cluster faults are drawn only for a target that plays them, after
// everything else: the same seed's plan is otherwise the same. Every
// drawn plan validates: each broker down comes up again before the end,
// one at a time, and every plan moves its coordinators at least once.
func TestClusterFaultsDrawnForAClusterOnly(t *testing.T) {
	rt := plan.RealTime{SessionTimeoutMs: 800, HeartbeatIntervalMs: 100}
	c := &plan.Cluster{Brokers: []int32{0, 1, 2}, Kinds: plan.ClusterFaultKinds()}
	downs := 0
	for seed := uint64(1); seed <= 200; seed++ {
		alone := plan.ForRealTime(seed, plan.DefaultOptions(), rt)
		rt.Cluster = c
		cl := plan.ForRealTime(seed, plan.DefaultOptions(), rt)
		rt.Cluster = nil
		if len(alone.ClusterFaults) != 0 {
			t.Fatalf("seed %d: cluster faults drawn for a broker standing alone", seed)
		}
		faults := cl.ClusterFaults
		cl.ClusterFaults = nil
		if !reflect.DeepEqual(alone, cl) {
			t.Fatalf("seed %d: drawing cluster faults changed the rest of the plan", seed)
		}
		cl.ClusterFaults = faults
		if err := cl.Validate(); err != nil {
			t.Fatalf("seed %d: %v (%v)", seed, err, faults)
		}
		moves, down := 0, map[int32]bool{}
		for _, f := range faults {
			switch f.Kind {
			case plan.CoordinatorMove:
				moves++
			case plan.BrokerDown:
				if len(down) > 0 {
					t.Fatalf("seed %d: two brokers down at once: %v", seed, faults)
				}
				down[f.Broker] = true
				downs++
			case plan.BrokerUp:
				delete(down, f.Broker)
			}
			if f.Round >= cl.Rounds-4 {
				t.Fatalf("seed %d: %s in the last rounds", seed, f)
			}
		}
		if moves == 0 || len(down) > 0 {
			t.Fatalf("seed %d: %d moves, brokers left down %v", seed, moves, down)
		}
	}
	if downs == 0 {
		t.Error("no plan in 200 took a broker down")
	}
	// Only what the target plays is drawn.
	rt.Cluster = &plan.Cluster{Brokers: []int32{1}, Kinds: []plan.ClusterFaultKind{plan.ConnectionReset}}
	for _, f := range plan.ForRealTime(7, plan.DefaultOptions(), rt).ClusterFaults {
		if f.Kind != plan.ConnectionReset {
			t.Fatalf("%s drawn for a target that plays only connection resets", f)
		}
	}
}

// A plan read from a file is refused when its cluster faults make no
// sense.
func TestClusterFaultsValidate(t *testing.T) {
	base := plan.ForRealTime(1, plan.DefaultOptions(), plan.RealTime{SessionTimeoutMs: 800, HeartbeatIntervalMs: 100})
	for name, fs := range map[string][]plan.ClusterFault{
		"unknown kind":      {{Round: 2, Kind: "meteor"}},
		"out of the run":    {{Round: base.Rounds + 3, Kind: plan.CoordinatorMove}},
		"out of order":      {{Round: 5, Kind: plan.CoordinatorMove}, {Round: 3, Kind: plan.CoordinatorMove}},
		"up before down":    {{Round: 3, Kind: plan.BrokerUp, Broker: 1}},
		"down twice":        {{Round: 3, Kind: plan.BrokerDown, Broker: 1}, {Round: 4, Kind: plan.BrokerDown, Broker: 1}},
		"reset of nobody":   {{Round: 3, Kind: plan.ConnectionReset, Client: 99}},
		"reset of negative": {{Round: 3, Kind: plan.ConnectionReset, Client: -1}},
	} {
		p := base
		p.ClusterFaults = fs
		if err := p.Validate(); err == nil {
			t.Errorf("%s: %v validates", name, fs)
		}
	}
}
