package impl_test

import (
	"flag"
	"fmt"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/equivtest"
	"github.com/ghostcheck/ghostcheck/internal/race"
)

// equivalenceChecks is how many generated sequences TestEquivalence checks
// in all: enough that a difference reached by one sequence in a few
// thousand (three planted bugs needed 200 to 3,000) is found in every
// `make test`. About 9 s of one core; the shards run in parallel. Under
// the race detector, which slows it tenfold, a fifth.
const equivalenceChecks = 10000

const equivalenceShards = 4

// TestEquivalence: model and impl, fed the same generated operations (joins,
// heartbeats at right, stale and wrong epochs, leaves, static leaves,
// LeaveGroup batches, describes, telemetry, ApiVersions, clock advances,
// disconnects, coordinator restarts; several groups; v0 and v1 clients),
// give byte-identical responses and equal snapshots after every step. The
// checks are split over parallel shards, each a rapid.Check with seeds of
// its own; -rapid.checks, when given, is the total instead.
func TestEquivalence(t *testing.T) {
	checkSharded(t, equivalenceChecks, equivtest.Property(impl.Mutants{}))
}

// checkSharded checks property total times in all (a fifth under the race
// detector or -short; -rapid.checks, when given, is the total instead),
// split over parallel shards, each a rapid.Check with seeds of its own.
func checkSharded(t *testing.T, total int, property func(*rapid.T)) {
	if race.Enabled || testing.Short() {
		total /= 5
	}
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() != f.DefValue {
		total, _ = strconv.Atoi(f.Value.String())
	}
	setFlag(t, "rapid.checks", strconv.Itoa(max(total/equivalenceShards, 1)))
	for i := 0; i < equivalenceShards; i++ {
		t.Run(fmt.Sprintf("shard-%d", i), func(t *testing.T) {
			t.Parallel()
			rapid.Check(t, property)
		})
	}
}

// TestCloneEquivalence: a Clone made at any point of a generated sequence
// answers the rest of it as the model does, and its original does not move
// while the clone is stepped.
func TestCloneEquivalence(t *testing.T) {
	n := equivalenceChecks / 10
	if race.Enabled || testing.Short() {
		n /= 5
	}
	setFlag(t, "rapid.checks", strconv.Itoa(n))
	rapid.Check(t, equivtest.CloneProperty(impl.Mutants{}))
}
