package impl_test

import (
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
	if testing.Short() || race.Enabled {
		t.Skip("a few thousand checks; sequential")
	}
	setFlag(t, "rapid.checks", "6000")
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.seed", "7")
	hits := model.ClauseHits{}
	rapid.Check(t, equivtest.PropertyCounting(impl.Mutants{}, hits))
	for _, c := range model.Clauses() {
		if id := string(c.ID); (strings.HasPrefix(id, "A6") || strings.HasPrefix(id, "B8")) && hits[c.ID] == 0 {
			t.Errorf("clause %s (%s) never applied", id, c.What)
		}
	}
}
