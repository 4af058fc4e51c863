package rules_test

import (
	"sync"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// The rules' hot paths in a property run, each over the same recorded
// histories as model's BenchmarkHandle (20 of the default plan, KIP-1082
// clients, seeds 1-20, run against the model itself), so that a change to
// one path shows in its own figure:
//
//	go test ./model/rules -run '^$' -bench . -benchmem -count 6
//
// SnapshotFromDescribe reads every Describe answer of the histories;
// CheckClients judges every history's traffic as one recording.

// benchHistories records the histories once for every benchmark.
var benchHistories = sync.OnceValue(func() []*driver.Result {
	var out []*driver.Result
	opts := plan.DefaultOptions()
	for seed := uint64(1); seed <= 20; seed++ {
		pl := plan.New(seed, opts)
		res, err := driver.Run(targets.NewModelTarget(pl.ModelConfig()), pl)
		if err != nil {
			panic(err)
		}
		out = append(out, res)
	}
	return out
})

func BenchmarkSnapshotFromDescribe(b *testing.B) {
	var resps []*codec.ConsumerGroupDescribeResponse
	for _, res := range benchHistories() {
		for _, op := range res.History {
			if r, ok := op.Response.(*codec.ConsumerGroupDescribeResponse); ok {
				resps = append(resps, r)
			}
		}
	}
	if len(resps) == 0 {
		b.Fatal("no Describe answers in the histories")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range resps {
			rules.SnapshotFromDescribe(r)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(resps)), "ns/describe")
}

func BenchmarkCheckClients(b *testing.B) {
	var recs [][]rules.ClientRequest
	for _, res := range benchHistories() {
		var reqs []rules.ClientRequest
		seq := map[uint64]int{}
		for _, op := range res.History {
			if op.Restart {
				continue
			}
			hv, _ := codec.RequestHeaderVersion(op.Header.RequestApiKey, op.Header.RequestApiVersion)
			reqs = append(reqs, rules.ClientRequest{Conn: op.Conn.ID, Broker: "coordinator", Seq: seq[op.Conn.ID], At: op.At,
				HeaderVersion: hv, Header: op.Header, API: op.Header.RequestApiKey.String(), Request: op.Request, Response: op.Response})
			seq[op.Conn.ID]++
		}
		recs = append(recs, reqs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, reqs := range recs {
			rules.CheckClients(reqs)
		}
	}
}
