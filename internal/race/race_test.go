package race_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/internal/race"
)

func TestSweep(t *testing.T) {
	for n, want := range map[int][2]int{1: {1, 1}, 4: {4, 1}, 50: {50, 10}, 200: {200, 40}} {
		w := want[0]
		if race.Enabled {
			w = want[1]
		}
		if got := race.Sweep(n); got != w {
			t.Errorf("Sweep(%d) = %d with the race detector %v, want %d", n, got, race.Enabled, w)
		}
	}
}
