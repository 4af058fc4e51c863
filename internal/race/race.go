// Package race says whether this build has the race detector on, so a
// test that runs in both `make unit` and `make race` can size its sweep:
// full in the plain run, which checks what it computes, and small under
// the race detector, which looks for data races on the same paths and
// runs five to ten times slower. It is not for production code: what a
// program does must not depend on how it was built.
package race

// Sweep is how many of a sweep's n items (seeds, histories, runs) a test
// runs: all n, or under the race detector a fifth of them (at least one).
// The plain run checks every item; the race run looks for data races on
// the paths the first items already take.
func Sweep(n int) int {
	if Enabled {
		return max(n/5, 1)
	}
	return n
}
