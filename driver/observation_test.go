package driver

import (
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// sortedKeys may hand back the last list it made: only when that list is
// exactly the map's keys in order (else an observation would see ids a
// process no longer has, or miss new ones).
func TestSortedKeysIsTheSortedKeys(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "c", "d"}), 0, 4)
		m := map[string]int{}
		for _, k := range ids.Draw(t, "keys") {
			m[k]++
		}
		last := slices.Sorted(slices.Values(ids.Draw(t, "last")))
		got := sortedKeys(m, last)
		want := slices.Sorted(maps.Keys(m))
		if !slices.Equal(got, want) || (len(m) == 0) != (got == nil) {
			t.Fatalf("sortedKeys(%v, %v) = %v, want %v", m, last, got, want)
		}
	})
}
