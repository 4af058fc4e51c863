package main

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/cputime"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
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
			cpu0 := cputime.Process()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ps := runPhase(context.Background(), cfg, cfg.columns[0], 0, 0, newProgress(io.Discard))
				if ps.Histories != histories || ps.Verdicts["Ok"] != histories {
					b.Fatalf("%d histories, verdicts %v", ps.Histories, ps.Verdicts)
				}
				ops += ps.Operations
			}
			cpu := (cputime.Process() - cpu0).Seconds()
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(histories*b.N)/s, "histories/s")
			b.ReportMetric(float64(ops)/s, "ops/s")
			b.ReportMetric(cpu*1e6/float64(ops), "cpu-µs/op")
			b.ReportMetric(float64(ops)/cpu, "ops/cpu-s")
		})
	}
}

// BenchmarkFloor measures, per operation of the same 200 histories as
// BenchmarkRun, the parts of a run no harness work can remove: drawing
// the plans (plan), impl handling the histories' requests in their order
// (target), and the exact check of the histories against the model (check:
// the model answering every operation in the sequential replay, porcupine
// for the partitions that overlap). What BenchmarkRun costs above their
// sum is the harness's: the driver, the observations and invariants, the
// client rules.
//
//	go test ./cmd/ghostcheck -run '^$' -bench Floor -cpu 1 -count 6
func BenchmarkFloor(b *testing.B) {
	const histories = 200
	tuneGC()
	cfg, code := parseRunFlags([]string{"--histories", fmt.Sprint(histories), "--heartbeat-version", "1", "--out", b.TempDir()}, io.Discard)
	if code >= 0 {
		b.Fatalf("flags: exit %d", code)
	}
	opts := cfg.opts
	opts.HeartbeatVersion = 1
	var runs []*driver.Result
	ops := 0
	for i := 0; i < histories; i++ {
		p := plan.New(cfg.seed+uint64(i), opts)
		res, _, err := runOne(cfg.target, p, "")
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, res)
		ops += len(res.History)
	}
	var cpu0 time.Duration
	perOp := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ops), "ns/history-op")
		b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/float64(b.N*ops), "cpu-µs/op")
	}
	b.Run("plan", func(b *testing.B) {
		cpu0 = cputime.Process()
		for i := 0; i < b.N; i++ {
			for j := range runs {
				plan.New(cfg.seed+uint64(j), opts)
			}
		}
		perOp(b)
	})
	b.Run("target", func(b *testing.B) {
		cpu0 = cputime.Process()
		for i := 0; i < b.N; i++ {
			for _, res := range runs {
				t, err := targets.New(cfg.target, res.Plan, "")
				if err != nil {
					b.Fatal(err)
				}
				for _, op := range res.History {
					if op.Restart {
						t.(driver.Restarter).Restart()
						continue
					}
					t.Advance(op.At)
					h := op.Header
					t.Handle(op.Conn, &h, op.Request)
				}
			}
		}
		perOp(b)
	})
	b.Run("check", func(b *testing.B) {
		cpu0 = cputime.Process()
		for i := 0; i < b.N; i++ {
			for _, res := range runs {
				if rep := check.History(res.Plan, res.History, check.Options{}); rep.Verdict != history.Ok {
					b.Fatalf("seed %d: %s %s", res.Plan.Seed, rep.Verdict, rep.Detail)
				}
			}
		}
		perOp(b)
	})
}
