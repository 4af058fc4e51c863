package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPartSetIsASortedSet holds partSet, a sorted slice, to a map's
// answers: adds in any order (at the end, in the middle, again), and
// lookups on sets below and above the size where has stops scanning and
// searches.
func TestPartSetIsASortedSet(t *testing.T) {
	for _, tc := range []struct {
		name   string
		topics int
		parts  int
		adds   int
	}{
		{"empty", 1, 1, 0},
		{"one topic, few", 1, 8, 12},
		{"scanned", 3, 10, 40},
		{"searched", 4, 40, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(tc.adds)))
			var s partSet
			want := map[tp]bool{}
			for i := 0; i < tc.adds; i++ {
				p := tp{int32(r.IntN(tc.topics)), int32(r.IntN(tc.parts))}
				s.add(p)
				want[p] = true
			}
			if len(s) != len(want) {
				t.Fatalf("%d partitions in the set, want %d: %v", len(s), len(want), s)
			}
			if !slices.IsSortedFunc(s, tpCompare) {
				t.Fatalf("set not in topic, then partition order: %v", s)
			}
			for topic := int32(0); topic < int32(tc.topics)+1; topic++ {
				for part := int32(-1); part <= int32(tc.parts); part++ {
					p := tp{topic, part}
					if got := s.has(p); got != want[p] {
						t.Errorf("has(%v) = %v, want %v", p, got, want[p])
					}
				}
			}
		})
	}
}

// TestTopicsOfOneNameAreOneTopic: a name configured twice is one topic in
// the coordinator's sets (the first of its name), as when sets held names.
func TestTopicsOfOneNameAreOneTopic(t *testing.T) {
	topics := sortedTopics([]Topic{{Name: "b", Partitions: 1}, {Name: "a", Partitions: 2}, {Name: "b", Partitions: 3}})
	if got, want := firstOfName(topics), []int32{0, 1, 1}; !slices.Equal(got, want) {
		t.Fatalf("firstOfName = %v, want %v", got, want)
	}
}
