package impl_test

import (
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/equivtest"
	"github.com/ghostcheck/ghostcheck/internal/race"
	"github.com/ghostcheck/ghostcheck/model"
)

// The equivalence property reaches every clause of the classic protocol
// (docs/PROTOCOL.md A6 and B8) the model applies, so that an equivalence
// that holds holds for each: a clause the generated operations never
// reach would be a difference nobody looks for. The property runs from a
// fixed seed, so the counts are the same every time.
func TestEquivalenceReachesEveryClassicClause(t *testing.T) {
	requireClauses(t, 6000, func(hits model.ClauseCounter) func(*rapid.T) { return equivtest.PropertyCounting(impl.Mutants{}, hits) }, "A6", "B8")
}

// requireClauses runs the property checks times from seed 7 (sequential:
// the counts are the same every time) and requires every clause whose id
// starts with one of prefixes applied at least once.
func requireClauses(t *testing.T, checks int, property func(model.ClauseCounter) func(*rapid.T), prefixes ...string) {
	if testing.Short() || race.Enabled {
		t.Skip("a few thousand checks; sequential")
	}
	setFlag(t, "rapid.checks", strconv.Itoa(checks))
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.seed", "7")
	hits := model.ClauseHits{}
	rapid.Check(t, property(hits))
	for _, c := range model.Clauses() {
		for _, p := range prefixes {
			if strings.HasPrefix(string(c.ID), p) && hits[c.ID] == 0 {
				t.Errorf("clause %s (%s) never applied", c.ID, c.What)
			}
		}
	}
}
