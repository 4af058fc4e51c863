package main

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRun runs a fixed seed range (200 histories of the default plan,
// KIP-1082 clients, seeds 1-200) on 1 and 2 workers, with the collector
// set as run sets it, and reports histories and operations per second,
// for benchstat:
//
//	go test ./cmd/ghostcheck -run '^$' -bench Run -benchtime 3x -count 6 | tee run.txt
//	benchstat -col /workers run.txt
//
// Per core: workers=1 at GOMAXPROCS 1 (-cpu 1). On a shared machine the
// wall-clock rates move with the other load; cpu-µs/op (the process's
// user and system CPU time, collector included, per operation) and
// ops/cpu-s do not, and are the per-core figures:
//
//	go test ./cmd/ghostcheck -run '^$' -bench 'Run/workers=1' -cpu 1 -benchtime 2x -count 8
func BenchmarkRun(b *testing.B) {
	const histories = 200
	tuneGC() // as the command does
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			cfg, code := parseRunFlags([]string{"--histories", fmt.Sprint(histories), "--heartbeat-version", "1",
				"--workers", fmt.Sprint(workers), "--out", b.TempDir()}, io.Discard)
			if code >= 0 {
				b.Fatalf("flags: exit %d", code)
			}
			ops := 0
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ps := runPhase(context.Background(), cfg, 1, false, 0, 0, newProgress(io.Discard))
				if ps.Histories != histories || ps.Verdicts["Ok"] != histories {
					b.Fatalf("%d histories, verdicts %v", ps.Histories, ps.Verdicts)
				}
				ops += ps.Operations
			}
			cpu := (cpuTime() - cpu0).Seconds()
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(histories*b.N)/s, "histories/s")
			b.ReportMetric(float64(ops)/s, "ops/s")
			b.ReportMetric(cpu*1e6/float64(ops), "cpu-µs/op")
			b.ReportMetric(float64(ops)/cpu, "ops/cpu-s")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
