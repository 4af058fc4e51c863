package main

import (
	"context"
	"fmt"
	"io"
	"testing"
)

// BenchmarkRun runs a fixed seed range (200 histories of the default plan,
// KIP-1082 clients, seeds 1-200) on 1 and 2 workers, with the collector
// set as run sets it, and reports histories and operations per second,
// for benchstat:
//
//	go test ./cmd/ghostcheck -run '^$' -bench Run -benchtime 3x -count 6 | tee run.txt
//	benchstat -col /workers run.txt
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
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ps := runPhase(context.Background(), cfg, 1, false, 0, 0, newProgress(io.Discard))
				if ps.Histories != histories || ps.Verdicts["Ok"] != histories {
					b.Fatalf("%d histories, verdicts %v", ps.Histories, ps.Verdicts)
				}
				ops += ps.Operations
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(histories*b.N)/s, "histories/s")
			b.ReportMetric(float64(ops)/s, "ops/s")
		})
	}
}
