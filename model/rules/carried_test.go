package rules

import (
	"strings"
	"testing"
)

// A conversion carries the old kind's epoch into the new kind's tracker
// (docs/PROTOCOL.md A7.4 step 4, A7.5): what the new kind shows next may
// not go below it, except, for a classic group, to the generation its
// downgrade recorded across a coordinator restart (B8.14).
func TestEpochsCarriedAcrossAConversion(t *testing.T) {
	const g = "g"
	consumer := func(epoch int32, members ...MemberSnapshot) []GroupSnapshot {
		return []GroupSnapshot{{GroupID: g, Epoch: epoch, Members: members}}
	}
	classic := func(gen int32) []GroupSnapshot {
		return []GroupSnapshot{{GroupID: g, Epoch: gen, Kind: KindClassic, Classic: &ClassicGroup{State: ClassicPreparingRebalance, Generation: gen}}}
	}
	member := func(id string, epoch int32) MemberSnapshot { return MemberSnapshot{MemberID: id, Epoch: epoch} }

	t.Run("downgrade", func(t *testing.T) {
		for _, tc := range []struct {
			name    string
			restart bool
			gen     int32
			want    string // "" none, else a piece of the violation
		}{
			{"at the group epoch", false, 7, ""},
			{"past it", false, 8, ""},
			{"reset to 0", false, 0, "went from generation 7 to 0 with no coordinator restart"},
			{"one below", false, 6, "downgrade carried"},
			{"below the recorded generation across a restart", true, 6, "below generation 7"},
			{"the recorded generation across a restart", true, 7, ""},
		} {
			var et EpochTracker
			var gt GenerationTracker
			var l ClassicLedger
			if err := et.Observe(consumer(7, member("a", 7), member("b", 5))); err != nil {
				t.Fatal(err)
			}
			epoch, ok := et.Carried(g)
			if !ok || epoch != 7 {
				t.Fatalf("%s: carried %d %v, want 7 true", tc.name, epoch, ok)
			}
			et.Forget(g)
			gt.Carry(&l, g, epoch)
			if tc.restart {
				l.Restarted(100)
			}
			checkViolation(t, tc.name, gt.Observe(&l, classic(tc.gen)), tc.want)
		}
	})

	t.Run("upgrade", func(t *testing.T) {
		for _, tc := range []struct {
			name    string
			restart bool // between the last classic generation seen (9, recorded 8) and the upgrade
			epoch   int32
			memberA int32
			want    string
		}{
			{"at the generation", false, 9, 9, ""},
			{"past it", false, 10, 10, ""},
			{"epoch reset", false, 1, 1, "went from 9 to 1 (the epoch its upgrade carried"},
			{"member behind its generation", false, 10, 8, "member a of group g went from epoch 9 to 8"},
			{"the recorded generation after a restart", true, 8, 8, ""},
			{"below it after a restart", true, 7, 7, "went from 8 to 7"},
		} {
			var et EpochTracker
			var gt GenerationTracker
			var l ClassicLedger
			l.Recorded(g, 8)
			if err := gt.Answered(&l, g, "a", 9); err != nil {
				t.Fatal(err)
			}
			if tc.restart {
				l.Restarted(100)
			}
			gen, members, ok := gt.Carried(&l, g)
			if !ok {
				t.Fatalf("%s: nothing carried", tc.name)
			}
			gt.Forget(g)
			et.Carry(g, gen, members)
			checkViolation(t, tc.name, et.Observe(consumer(tc.epoch, member("a", tc.memberA))), tc.want)
		}
	})

	t.Run("nothing seen, nothing carried", func(t *testing.T) {
		var et EpochTracker
		var gt GenerationTracker
		var l ClassicLedger
		if _, ok := et.Carried(g); ok {
			t.Error("EpochTracker carried a group it never saw")
		}
		if _, _, ok := gt.Carried(&l, g); ok {
			t.Error("GenerationTracker carried a group it never saw")
		}
	})
}

// checkViolation requires err to be nil when want is "", else a
// MonotonicEpochs violation whose words hold want.
func checkViolation(t *testing.T, name string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v, want none", name, err)
	case want != "" && err == nil:
		t.Errorf("%s: no violation, want one with %q", name, want)
	case want != "" && (!strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), string(RuleMonotonicEpochs))):
		t.Errorf("%s: %v, want MonotonicEpochs with %q", name, err, want)
	}
}
