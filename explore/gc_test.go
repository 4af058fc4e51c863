package explore

import (
	"runtime/debug"
	"sync"
	"testing"
)

// The tuner's GOGC leaves the heap a quarter of the cap for garbage above
// what the search keeps, within [100, 1600], and moves only by an eighth
// or more; without a cap it changes nothing.
func TestGCTuner(t *testing.T) {
	before := debug.SetGCPercent(-1)
	debug.SetGCPercent(before)
	for _, c := range []struct {
		capBytes, kept int64
		want           int
	}{
		{4 << 30, 0, 1600},         // 1 GiB of room over 32 MiB: capped
		{4 << 30, 96 << 20, 800},   // 1 GiB over 128 MiB
		{4 << 30, 992 << 20, 100},  // 1 GiB over 1 GiB
		{4 << 30, 3 << 30, 100},    // at least Go's default
		{512 << 20, 32 << 20, 200}, // 128 MiB over 64 MiB
		{512 << 20, -1 << 20, 400}, // kept is never below none
		{256 << 20, 0, 200},        // 64 MiB over 32 MiB
		{1 << 20, 0, minGCPercent}, // a tiny cap: Go's default
	} {
		g := TuneGC(c.capBytes)
		if got := g.want(c.kept); got != c.want {
			t.Errorf("cap %d, kept %d: GOGC %d, want %d", c.capBytes, c.kept, got, c.want)
		}
		g.Restore()
	}

	g := TuneGC(4 << 30)
	if p := debug.SetGCPercent(1600); p != 1600 {
		t.Errorf("a fresh tuner set GOGC %d, want 1600", p)
	}
	g.Observe(4 << 20) // still above 1600
	if g.percent != 1600 {
		t.Errorf("kept 4 MiB: GOGC %d, want 1600 still", g.percent)
	}
	g.Observe(84 << 20) // 1600 -> 882: an eighth and more
	if g.percent != 882 {
		t.Errorf("kept 84 MiB: GOGC %d, want 882", g.percent)
	}
	g.Observe(88 << 20) // 882 -> 853: less than an eighth
	if g.percent != 882 {
		t.Errorf("a move of less than an eighth set GOGC %d", g.percent)
	}
	g.Observe(192 << 20) // 1 GiB over 224 MiB
	if p := debug.SetGCPercent(457); g.percent != 457 || p != 457 {
		t.Errorf("kept 192 MiB: the tuner holds GOGC %d, the runtime %d; want 457", g.percent, p)
	}
	g.Restore()
	if p := debug.SetGCPercent(before); p != before {
		t.Errorf("Restore left GOGC %d, want %d", p, before)
	}

	none := TuneGC(0)
	none.Observe(1 << 30)
	none.Restore()
	if p := debug.SetGCPercent(before); p != before {
		t.Errorf("a tuner without a cap changed GOGC to %d", p)
	}
}

// The progress reports what the search keeps, read while two workers
// grow it (go test -race holds the read to the tree's growth).
func TestProgressKeptBytes(t *testing.T) {
	cfg := Default()
	cfg.Depth = 9
	cfg.Workers = 2
	var mu sync.Mutex
	var last Progress
	cfg.Progress = func(p Progress) {
		mu.Lock()
		last = p
		mu.Unlock()
	}
	r, err := Run(cfg)
	if err != nil || r.Violation != nil {
		t.Fatalf("%v %v", r.Summary(), err)
	}
	mu.Lock()
	defer mu.Unlock()
	if last.KeptBytes != r.MemoryBytes || last.KeptBytes <= 0 {
		t.Fatalf("the last progress kept %d bytes, the result %d", last.KeptBytes, r.MemoryBytes)
	}
}
