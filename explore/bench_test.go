package explore

import (
	"fmt"
	"testing"

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
// `ghostcheck explore` tunes it (TuneGC, for its default memory cap).
func BenchmarkExplore(b *testing.B) {
	for _, c := range []struct {
		workers int
		gc      string
	}{{1, "default"}, {2, "default"}, {1, "tuned"}, {2, "tuned"}} {
		workers := c.workers
		b.Run(fmt.Sprintf("workers=%d/gc=%s", workers, c.gc), func(b *testing.B) {
			if c.gc == "tuned" {
				defer TuneGC(4 << 30).Restore()
			}
			cfg := benchConfig()
			cfg.Workers = workers
			var states uint64
			cpu0 := cputime.Process()
			for i := 0; i < b.N; i++ {
				r, err := Run(cfg)
				if err != nil || r.Violation != nil || !r.DepthBound {
					b.Fatalf("%v %v", r.Summary(), err)
				}
				states += r.States
			}
			cpu := cputime.Process() - cpu0
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
