package explore

import "runtime/debug"

// TuneGC has the collector run less often during a search, within a
// memory bound, and returns what puts the settings back. A search keeps
// little that the collector must trace (fingerprints and the tree are
// arrays without pointers) and allocates a lot that dies at once (the
// states it steps and drops): at Go's default (GOGC 100) the heap goal is
// twice a small live heap, and a two-worker search collected about 25
// times a second, with the write barrier on and the sweeper busy each
// time, on both workers. GOGC 400 collects a quarter as often; the soft
// memory limit (twice capBytes and 256 MiB) makes it collect sooner once
// the heap nears it. With no cap (capBytes 0) the settings stay as they
// are. The settings are the process's: only a command sets them
// (`ghostcheck explore`), never Run.
func TuneGC(capBytes int64) (restore func()) {
	if capBytes <= 0 {
		return func() {}
	}
	limit := debug.SetMemoryLimit(2*capBytes + 256<<20)
	percent := debug.SetGCPercent(400)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
