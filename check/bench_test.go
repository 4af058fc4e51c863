package check_test

import (
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// benchHistory runs a plan of the given shape against the model (without
// invariant observations, which the checker does not need) and returns its
// history. Groups have two clients each, so the cost per partition stays
// small and the total grows with the number of groups.
func benchHistory(tb testing.TB, groups, rounds int, parallel bool) (plan.Plan, history.History) {
	o := plan.DefaultOptions()
	o.Clients, o.Groups, o.Rounds, o.Parallel = 2*groups, groups, rounds, parallel
	p := plan.New(42, o)
	p.DescribeEvery = 8
	m := targets.NewModelTarget(p.ModelConfig())
	target := driver.Funcs{HandleFunc: m.Handle, DisconnectFunc: m.Disconnect, AdvanceFunc: m.Advance, RestartFunc: m.Restart}
	res, err := driver.Run(target, p)
	if err != nil {
		tb.Fatal(err)
	}
	if len(res.HarnessErrors) > 0 {
		tb.Fatalf("harness errors: %v", res.HarnessErrors)
	}
	return p, res.History
}

// BenchmarkCheck measures the linearizability check alone on histories of
// about 1k, 10k and 100k operations (10, 100 and 1000 groups of two
// clients). Partitioning by group keeps the cost per operation about flat.
func BenchmarkCheck(b *testing.B) {
	for _, groups := range []int{10, 100, 1000} {
		p, h := benchHistory(b, groups, 210, false)
		b.Run(fmt.Sprintf("ops=%d/groups=%d", len(h), groups), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if rep := check.History(p, h, check.Options{}); rep.Linearizable != "Ok" {
					b.Fatalf("%s: %s", rep.Linearizable, rep.Mismatch)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h)), "ns/checked-op")
		})
	}
}

// BenchmarkCheckIllegal measures finding a wrong response in the last
// operations of a 100k-operation history.
func BenchmarkCheckIllegal(b *testing.B) {
	p, h := benchHistory(b, 1000, 210, false)
	for i := len(h) - 1; i >= 0; i-- {
		if r, ok := h[i].Response.(*codec.ConsumerGroupHeartbeatResponse); ok && r.ErrorCode == codec.None && r.MemberEpoch > 0 {
			r.MemberEpoch += 7
			break
		}
	}
	b.Run(fmt.Sprintf("ops=%d", len(h)), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if rep := check.History(p, h, check.Options{}); rep.Linearizable != "Illegal" {
				b.Fatalf("tampered history checks %s", rep.Linearizable)
			}
		}
	})
}

// BenchmarkCheckParallel measures histories whose rounds were delivered
// concurrently (against impl's concurrency, operations of one round
// overlap): porcupine searches those partitions.
func BenchmarkCheckParallel(b *testing.B) {
	for _, groups := range []int{10, 100, 1000} {
		p, h := benchHistory(b, groups, 210, true)
		b.Run(fmt.Sprintf("ops=%d/groups=%d", len(h), groups), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if rep := check.History(p, h, check.Options{}); rep.Linearizable != "Ok" {
					b.Fatalf("%s: %s", rep.Linearizable, rep.Mismatch)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h)), "ns/checked-op")
		})
	}
}
