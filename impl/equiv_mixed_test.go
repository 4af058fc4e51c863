package impl_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/equivtest"
	"github.com/ghostcheck/ghostcheck/model"
)

// mixedEquivalenceChecks is how many generated sequences of mixed groups
// (docs/PROTOCOL.md A7) TestMixedEquivalence checks: classic members in
// consumer groups, upgrades and rollbacks, under each migration policy,
// with time, restarts and clones.
const mixedEquivalenceChecks = 4000

// TestMixedEquivalence: model and impl in lockstep on generated mixed
// traffic give byte-identical answers (held ones too), equal snapshots,
// timers (the classic members' join and sync timers included) and
// describes after every step.
func TestMixedEquivalence(t *testing.T) {
	checkSharded(t, mixedEquivalenceChecks, equivtest.MixedProperty(impl.Mutants{}))
}

// The mixed mode reaches every clause of A7, so that the equivalence
// holds for each.
func TestMixedEquivalenceReachesEveryClause(t *testing.T) {
	requireClauses(t, 3000, func(hits model.ClauseCounter) func(*rapid.T) {
		return equivtest.MixedPropertyCounting(impl.Mutants{}, hits)
	}, "A7")
}
