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

// The model's hot paths in a property run, each over the same recorded
// histories (20 of the default plan, KIP-1082 clients, seeds 1-20, run
// against the model itself), so that a change to one path shows in its
// own figure:
//
//	go test ./model -run '^$' -bench . -benchmem -count 6
//
// Handle replays every operation as linearize's sequential check does (a
// fresh coordinator per history, each request on a connection of its
// own); SnapshotFromDescribe reads every Describe answer of the
// histories; CheckClients judges every history's traffic as one
// recording; NextHeartbeat is one joined client's heartbeat loop.

// benchHistories records the histories once for every benchmark.
var benchHistories = sync.OnceValue(func() []*driver.Result {
	var out []*driver.Result
	opts := plan.DefaultOptions()
	for seed := uint64(1); seed <= 20; seed++ {
		plan := plan.New(seed, opts)
		res, err := driver.Run(targets.NewModelTarget(plan.ModelConfig()), plan)
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
			model.SnapshotFromDescribe(r)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(resps)), "ns/describe")
}

func BenchmarkCheckClients(b *testing.B) {
	var recs [][]model.ClientRequest
	for _, res := range benchHistories() {
		var reqs []model.ClientRequest
		seq := map[uint64]int{}
		for _, op := range res.History {
			if op.Restart {
				continue
			}
			hv, _ := codec.RequestHeaderVersion(op.Header.RequestApiKey, op.Header.RequestApiVersion)
			reqs = append(reqs, model.ClientRequest{Conn: op.Conn.ID, Broker: "coordinator", Seq: seq[op.Conn.ID], At: op.At,
				HeaderVersion: hv, Header: op.Header, API: op.Header.RequestApiKey.String(), Request: op.Request, Response: op.Response})
			seq[op.Conn.ID]++
		}
		recs = append(recs, reqs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, reqs := range recs {
			model.CheckClients(reqs)
		}
	}
}

func BenchmarkNextHeartbeat(b *testing.B) {
	for _, nullOwned := range []bool{false, true} {
		name := "every"
		if nullOwned {
			name = "null-when-unchanged"
		}
		b.Run(name, func(b *testing.B) {
			cl, err := model.NewClient(model.ClientConfig{ClientID: "c", GroupID: "g", Topics: []string{"alpha", "beta"},
				HeartbeatVersion: 1, NullOwnedWhenUnchanged: nullOwned, Rand: seededReader(1)})
			if err != nil {
				b.Fatal(err)
			}
			cl.NextHeartbeat()
			cl.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(cl.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000,
				Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{
					{TopicId: model.TopicIDFor("beta"), Partitions: []int32{2, 0}},
					{TopicId: model.TopicIDFor("alpha"), Partitions: []int32{1, 4, 5}},
				}}})
			ok := &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(cl.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cl.NextHeartbeat()
				cl.OnHeartbeat(ok)
			}
		})
	}
}
