package model_test

import (
	"sync"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/plan"
)

// The coordinator's hot path in a property run, over recorded histories
// (20 of the default plan, KIP-1082 clients, seeds 1-20, run against the
// model itself):
//
//	go test ./model -run '^$' -bench . -benchmem -count 6
//
// Handle replays every operation as the sequential check (package check)
// does (a fresh coordinator per history, each request on a connection of
// its own). The rules' hot paths are benchmarked in model/rules, the client's
// in model/client.

// benchHistories records the histories once for every benchmark.
var benchHistories = sync.OnceValue(func() []*driver.Result {
	var out []*driver.Result
	opts := plan.DefaultOptions()
	for seed := uint64(1); seed <= 20; seed++ {
		p := plan.New(seed, opts)
		res, err := driver.Run(targets.NewModelTarget(p.ModelConfig()), p)
		if err != nil {
			panic(err)
		}
		out = append(out, res)
	}
	return out
})

func BenchmarkHandle(b *testing.B) {
	runs := benchHistories()
	ops := 0
	for _, res := range runs {
		ops += len(res.History)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, res := range runs {
			c := model.NewCoordinator(res.Plan.ModelConfig())
			for j := range res.History {
				op := &res.History[j]
				if c.Now() < op.At {
					c.Advance(op.At)
				}
				if op.Restart {
					c.Restart()
					continue
				}
				h := op.Header
				h.ClientId = codec.Str(op.ClientID)
				conn := uint64(op.ID) + 1<<40
				_, _ = c.Handle(model.Conn{ID: conn, Host: op.Conn.Host}, &h, op.Request)
				c.Disconnect(conn)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ops), "ns/history-op")
}
