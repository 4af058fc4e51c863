package explore

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/cputime"
)

// Benchmarks of the search, for benchstat:
//
//	go test ./explore -run '^$' -bench . -count 6 > bench.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /workers bench.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /gc bench.txt
//
// Wall time is what the machine gave; cpu-ns/state is the process's CPU
// time (getrusage) per state found, which a machine shared by other work
// inflates less.

// benchConfig is the default configuration cut at depth 16: the whole of
// it takes a minute or more.
func benchConfig() Config {
	cfg := Default()
	cfg.Depth = 16
	return cfg
}

// BenchmarkExplore is one search of benchConfig per operation, on one
// worker and on two, with the collector at Go's default and as
// `ghostcheck explore` tunes it (TuneGC, for its default memory cap);
// workers=2procs is two worker processes (this test binary again, as
// TestMain's worker), as `ghostcheck explore` runs them.
func BenchmarkExplore(b *testing.B) {
	for _, c := range []struct {
		workers int
		gc      string
		procs   bool
	}{{1, "default", false}, {2, "default", false}, {1, "tuned", false}, {2, "tuned", false}, {2, "tuned", true}} {
		workers := c.workers
		name := fmt.Sprintf("workers=%d/gc=%s", workers, c.gc)
		if c.procs {
			name = fmt.Sprintf("workers=%dprocs/gc=%s", workers, c.gc)
		}
		b.Run(name, func(b *testing.B) {
			if c.gc == "tuned" {
				defer TuneGC(4 << 30)()
			}
			cfg := benchConfig()
			cfg.Workers = workers
			if c.procs {
				cfg.StartWorker = testWorkerProcess(b)
			}
			var states uint64
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				r, err := Run(cfg)
				if err != nil || r.Violation != nil || !r.DepthBound {
					b.Fatalf("%v %v", r.Summary(), err)
				}
				states += r.States
				cpu += r.CPU // the worker processes' too
			}
			b.ReportMetric(float64(states)/float64(b.N), "states/op")
			b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(states), "cpu-ns/state")
		})
	}
}

// BenchmarkStep is the floor under a state's cost: one transition of each
// kind the search makes most, from a state where both clients are members
// with their heartbeats on their way.
//
//   - coordinator: a heartbeat arrives: the coordinator forked (model
//     clone, impl copied into a recycled one), the request handled by
//     both, answers compared, snapshots and Describe compared;
//   - client: an answer arrives: a client copied and fed it;
//   - fingerprint: the canonical form of the state and its hash.
func BenchmarkStep(b *testing.B) {
	cfg := benchConfig()
	if err := cfg.validate(); err != nil {
		b.Fatal(err)
	}
	w := newWorker(&cfg)
	w.counting = true
	s := w.root()
	// Both join, and both send their next heartbeat.
	path := []event{mkEvent(evJoin, 0, 0, 0), mkEvent(evSend, 0, 0, 0), mkEvent(evDeliver, 0, 0, 0), mkEvent(evDeliver, 0, 0, 1),
		mkEvent(evJoin, 1, 0, 0), mkEvent(evSend, 1, 0, 0), mkEvent(evDeliver, 1, 0, 0), mkEvent(evDeliver, 1, 0, 1), mkEvent(evTick, 0, 0, 0)}
	for _, e := range path {
		t, err := w.apply(s, e)
		if err != nil {
			b.Fatalf("%v: %v", e, err)
		}
		w.discard(s)
		s = t
	}
	for !s.slots[0].hb.set || !s.slots[1].hb.set {
		i := 0
		if s.slots[0].hb.set {
			i = 1
		}
		t, err := w.apply(s, mkEvent(evSend, i, 0, 0))
		if err != nil {
			b.Fatal(err)
		}
		w.discard(s)
		s = t
	}
	s0, err := w.apply(s, mkEvent(evDeliver, 0, 0, 0))
	if err != nil {
		b.Fatal(err)
	}
	if _, ok := s0.slots[0].conns[0].resps[0].resp.(*codec.ConsumerGroupHeartbeatResponse); !ok {
		b.Fatal("no heartbeat answer on its way")
	}
	for _, c := range []struct {
		name string
		from *state
		e    event
	}{
		{"coordinator", s, mkEvent(evDeliver, 1, 0, 0)},
		{"client", s0, mkEvent(evDeliver, 0, 0, 1)},
	} {
		b.Run(c.name, func(b *testing.B) {
			cpu0 := cputime.Process()
			for i := 0; i < b.N; i++ {
				t, err := w.apply(c.from, c.e)
				if err != nil {
					b.Fatal(err)
				}
				w.discard(t)
			}
			b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
	b.Run("fingerprint", func(b *testing.B) {
		cpu0 := cputime.Process()
		for i := 0; i < b.N; i++ {
			w.fingerprint(s0)
		}
		b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkScalingFloor is what two cores give work of the explorer's
// kinds that shares nothing, the floor under BenchmarkExplore's speedup:
// each of 1 or 2 goroutines runs the same work per operation (hash:
// SHA-256 over a chained block, no memory; alloc: short-lived 64-byte
// objects with a pointer, as a transition makes; chase: dependent reads
// over 64 MiB; search: a whole one-worker search of the default cut at
// depth 12, as `ghostcheck explore` tunes the collector, so that two are
// two independent searches in one process: what sharing the Go runtime
// alone costs BenchmarkExplore's two workers, who share the search too).
// On one free core per goroutine units/s doubles from workers=1 to
// workers=2:
//
//	go test ./explore -run '^$' -bench ScalingFloor -count 6 > floor.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /workers floor.txt
func BenchmarkScalingFloor(b *testing.B) {
	type node struct {
		next *node
		v    [7]int64
	}
	kinds := []struct {
		name string
		unit func(scratch []int64) int64
	}{
		{"hash", func([]int64) int64 {
			var blk [64]byte
			for range 1000 {
				h := sha256.Sum256(blk[:])
				copy(blk[:], h[:])
			}
			return int64(blk[0])
		}},
		{"alloc", func([]int64) int64 {
			var l *node
			for i := range 100_000 {
				x := &node{next: l}
				x.v[0] = int64(i)
				if l = x; i%64 == 0 {
					l = nil
				}
			}
			return l.v[0]
		}},
		{"search", func([]int64) int64 {
			cfg := Default()
			cfg.Depth, cfg.Workers = 12, 1
			r, err := Run(cfg)
			if err != nil || r.Violation != nil || !r.DepthBound {
				panic(fmt.Sprintf("explore: the floor's search: %v %v", r.Summary(), err))
			}
			return int64(r.States)
		}},
		{"chase", func(buf []int64) int64 {
			j, s := 0, int64(0)
			for range 1_000_000 {
				j = (j*1103515245 + 12345) & (len(buf) - 1)
				s += buf[j]
			}
			return s
		}},
	}
	for _, k := range kinds {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", k.name, workers), func(b *testing.B) {
				bufs := make([][]int64, workers)
				if k.name == "search" {
					defer TuneGC(4 << 30)()
				}
				if k.name == "chase" {
					for i := range bufs {
						bufs[i] = make([]int64, 8<<20)
					}
				}
				var wg sync.WaitGroup
				var sink atomic.Int64
				b.ResetTimer()
				for i := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range b.N {
							sink.Add(k.unit(bufs[i]))
						}
					}()
				}
				wg.Wait()
				b.ReportMetric(float64(workers*b.N)/b.Elapsed().Seconds(), "units/s")
			})
		}
	}
}
