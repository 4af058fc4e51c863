//go:build !unix

package proxy_test

import "time"

// processCPU is not measured here: BenchmarkOverhead omits cpu-µs/hb.
func processCPU() time.Duration { return 0 }
