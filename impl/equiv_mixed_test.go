package impl_test

import (
	"flag"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/internal/equivtest"
	"github.com/ghostcheck/ghostcheck/internal/race"
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
	total := mixedEquivalenceChecks
	if race.Enabled || testing.Short() {
		total /= 5
	}
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() != f.DefValue {
		total, _ = strconv.Atoi(f.Value.String())
	}
	setFlag(t, "rapid.checks", strconv.Itoa(max(total/equivalenceShards, 1)))
	for i := 0; i < equivalenceShards; i++ {
		t.Run("shard-"+strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			rapid.Check(t, equivtest.MixedProperty(0))
		})
	}
}

// The mixed mode reaches every clause of A7, so that the equivalence
// holds for each. It runs from a fixed seed: the counts are the same
// every time.
func TestMixedEquivalenceReachesEveryClause(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("a few thousand checks; sequential")
	}
	setFlag(t, "rapid.checks", "3000")
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.seed", "7")
	hits := model.ClauseHits{}
	rapid.Check(t, equivtest.MixedPropertyCounting(0, hits))
	for _, c := range model.Clauses() {
		if id := string(c.ID); strings.HasPrefix(id, "A7") && hits[c.ID] == 0 {
			t.Errorf("clause %s (%s) never applied", id, c.What)
		}
	}
}
