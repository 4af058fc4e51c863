package explore

import "runtime/debug"

// GCTuner has the collector run less often during a search, within a
// memory bound. A search keeps little that the collector must trace
// (fingerprints and the tree are arrays without pointers) and allocates a
// lot that dies at once (the states it steps and drops): at Go's default
// (GOGC 100) the heap goal is twice a small live heap, and a two-worker
// search collected about 25 times a second, with the write barrier on and
// the sweeper busy each time, on both workers, whose allocations then
// contend. The tuner gives the heap a fixed room for garbage instead, a
// quarter of the search's memory cap (1 GiB for `ghostcheck explore`'s
// default 4 GiB): GOGC is set so that the heap goal is what the search
// keeps and that room (between GOGC 100 and 1600), and follows the kept
// bytes as they grow (Observe). The soft memory limit (twice the cap and
// 256 MiB) makes it collect sooner once the heap nears it. The settings
// are the process's: only a command makes a tuner (`ghostcheck explore`),
// never Run.
type GCTuner struct {
	room    int64
	percent int
	restore func()
}

// Bounds of the tuner's GOGC, and the live heap it assumes beside what
// the search keeps (the workers' states, the runtime).
const (
	minGCPercent = 100
	maxGCPercent = 1600
	gcBaseHeap   = 32 << 20
)

// TuneGC starts tuning the collector for a search capped at capBytes; with
// no cap (0) it changes nothing. Restore puts the settings back.
func TuneGC(capBytes int64) *GCTuner {
	if capBytes <= 0 {
		return &GCTuner{restore: func() {}}
	}
	t := &GCTuner{room: capBytes / 4}
	limit := debug.SetMemoryLimit(2*capBytes + 256<<20)
	t.percent = t.want(0)
	percent := debug.SetGCPercent(t.percent)
	t.restore = func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
	return t
}

// want is the GOGC that makes the heap goal kept bytes and the room.
func (t *GCTuner) want(kept int64) int {
	live := max(kept, 0) + gcBaseHeap
	return int(min(max(100*t.room/live, minGCPercent), maxGCPercent))
}

// Observe follows what the search keeps (Progress.KeptBytes): GOGC is
// set again when the goal it wants moved by an eighth or more.
func (t *GCTuner) Observe(kept int64) {
	if t.room == 0 {
		return
	}
	if p := t.want(kept); 8*abs(p-t.percent) >= t.percent {
		t.percent = p
		debug.SetGCPercent(p)
	}
}

// Restore puts the collector's settings back as they were.
func (t *GCTuner) Restore() { t.restore() }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
