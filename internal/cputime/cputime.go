// Package cputime reads how much CPU time this process has used, user and
// system, for benchmarks that report per-operation CPU beside wall-clock
// rates: on a shared machine the wall clock moves with other load, the
// process's CPU time much less.
package cputime

import "time"

// Process is the CPU time, user and system, the process has used so far;
// 0 where the platform does not say (Measured false: a benchmark then
// omits its CPU figures).
func Process() time.Duration { return process() }
