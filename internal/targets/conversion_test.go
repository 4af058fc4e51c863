package targets

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// The run's invariants, not only the model, hold a converted group to the
// epoch Kafka carries across its conversion (docs/PROTOCOL.md A7.5): a
// downgrade that starts the classic group at generation 0
// (downgrade-generation-reset) breaks MonotonicEpochs within a few rollback
// histories, named as a carried epoch (the downgrade's, or the next
// upgrade's, which carries the reset generation back); impl without it
// breaks it in none of the same histories.
func TestConversionCarriesTheEpoch(t *testing.T) {
	const histories = 20
	o := plan.DefaultOptions()
	o.HeartbeatVersion, o.JoinGroupVersion, o.Protocol = 1, 9, plan.ProtocolRollback
	for _, tc := range []struct {
		mutant string
		caught bool
	}{
		{"downgrade-generation-reset", true},
		{"", false},
	} {
		caught := 0
		for i := 1; i <= histories; i++ {
			p := plan.New(uint64(i), o)
			target, err := New("impl", p, tc.mutant)
			if err != nil {
				t.Fatal(err)
			}
			res, err := driver.Run(target, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range res.Violations {
				if v.Rule == string(rules.RuleMonotonicEpochs) {
					if !tc.caught || !strings.Contains(v.What, "carried over") {
						t.Fatalf("mutant %q seed %d: %s", tc.mutant, i, v.What)
					}
					caught++
					break
				}
			}
		}
		if tc.caught && caught == 0 {
			t.Errorf("mutant %q: no MonotonicEpochs in %d rollback histories", tc.mutant, histories)
		}
		t.Logf("mutant %q: MonotonicEpochs in %d of %d histories", tc.mutant, caught, histories)
	}
}
