package plan

import "testing"

// The migration plans' odd requests (ProbeMixedOddRequest) are drawn in
// some upgrade and rollback plans, every variant among them, from the
// migration's start, and in no plan of another protocol; a plan has the
// Connect worker exactly when one of its probes plays it.
func TestMixedOddRequestsDrawn(t *testing.T) {
	for _, c := range []struct {
		protocol Protocol
		want     bool
	}{
		{ProtocolUpgrade, true},
		{ProtocolRollback, true},
		{ProtocolMixed, false},
		{ProtocolClassic, false},
		{ProtocolConsumer, false},
	} {
		t.Run(string(c.protocol), func(t *testing.T) {
			o := DefaultOptions()
			o.Protocol, o.JoinGroupVersion = c.protocol, 9
			plans, variants := 0, map[int]bool{}
			const seeds = 80
			for seed := uint64(1); seed <= seeds; seed++ {
				p := New(seed, o)
				drawn, worker := false, false
				for _, pr := range p.Probes {
					if pr.Kind != ProbeMixedOddRequest {
						continue
					}
					drawn = true
					variants[pr.Variant] = true
					worker = worker || pr.Variant == 3
					if pr.Round < p.Rounds/5 || pr.Round >= p.Rounds {
						t.Errorf("seed %d: a mixed odd request at round %d, outside the migration (from %d)", seed, pr.Round, p.Rounds/5)
					}
				}
				if drawn {
					plans++
				}
				if p.HasConnectWorker() != worker {
					t.Errorf("seed %d: HasConnectWorker %v, a probe of variant 3 %v", seed, p.HasConnectWorker(), worker)
				}
			}
			if !c.want {
				if plans > 0 {
					t.Errorf("%d of %d %s plans have mixed odd requests, want none", plans, seeds, c.protocol)
				}
				return
			}
			if plans < seeds/4 || plans > seeds*3/4 {
				t.Errorf("%d of %d %s plans have mixed odd requests, want about half", plans, seeds, c.protocol)
			}
			for v := 0; v < MixedOddRequestVariants; v++ {
				if !variants[v] {
					t.Errorf("no %s plan of %d draws variant %d", c.protocol, seeds, v)
				}
			}
		})
	}
}
