//go:build !unix

package server_test

import "time"

// processCPU is not measured here: BenchmarkLoad omits cpu-µs/hb.
func processCPU() time.Duration { return 0 }
