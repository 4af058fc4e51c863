package model_test

import (
	"sync"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
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
				replayOp(c, &res.History[j])
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ops), "ns/history-op")
}

// benchStates are the coordinator states of the recorded histories, one
// after every fifth operation, with the ids of the groups each holds.
var benchStates = sync.OnceValue(func() []benchState {
	var out []benchState
	for _, res := range benchHistories() {
		c := model.NewCoordinator(res.Plan.ModelConfig())
		for j := range res.History {
			replayOp(c, &res.History[j])
			if j%5 == 4 {
				s := benchState{c: c.Clone()}
				for _, g := range c.Snapshot() {
					s.ids = append(s.ids, g.GroupID)
				}
				out = append(out, s)
			}
		}
	}
	return out
})

// replayOp hands c a recorded operation at its time: a restart, or its
// request on a connection of its own, closed after.
func replayOp(c *model.Coordinator, op *history.Op) {
	if c.Now() < op.At {
		c.Advance(op.At)
	}
	if op.Restart {
		c.Restart()
		return
	}
	h := op.Header
	h.ClientId = codec.Str(op.ClientID)
	conn := uint64(op.ID) + 1<<40
	_, _ = c.Handle(model.Conn{ID: conn, Host: op.Conn.Host}, &h, op.Request)
	c.Disconnect(conn)
}

type benchState struct {
	c   *model.Coordinator
	ids []string
}

// What the explorer (package explore) asks in every state it reaches: a
// Describe of its groups, answered fresh by Handle or into the answer to
// the state before by DescribeInto, and a snapshot:
//
//	go test ./model -run '^$' -bench 'Describe|Snapshot' -benchmem -count 6
func BenchmarkDescribe(b *testing.B) {
	states := benchStates()
	conn := model.Conn{ID: 1 << 50, Host: "/127.0.0.1"}
	for _, api := range []struct {
		name string
		h    codec.RequestHeader
		req  func(ids []string) codec.Message
		resp codec.Message
	}{
		{"api=ConsumerGroupDescribe", codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 1},
			func(ids []string) codec.Message {
				return &codec.ConsumerGroupDescribeRequest{GroupIds: ids, IncludeAuthorizedOperations: true}
			}, &codec.ConsumerGroupDescribeResponse{}},
		{"api=DescribeGroups", codec.RequestHeader{RequestApiKey: codec.DescribeGroups, RequestApiVersion: 5},
			func(ids []string) codec.Message {
				return &codec.DescribeGroupsRequest{Groups: ids, IncludeAuthorizedOperations: true}
			}, &codec.DescribeGroupsResponse{}},
	} {
		reqs := make([]codec.Message, len(states))
		hs := make([]codec.RequestHeader, len(states))
		for i, s := range states {
			reqs[i], hs[i] = api.req(s.ids), api.h
			if m, ok := s.c.Config().MaxVersions[api.h.RequestApiKey]; ok && m < api.h.RequestApiVersion {
				hs[i].RequestApiVersion = m // a plan of an older broker
			}
		}
		b.Run(api.name+"/Handle", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for k, s := range states {
					if _, err := s.c.Handle(conn, &hs[k], reqs[k]); err != nil {
						b.Fatal(err)
					}
					s.c.Disconnect(conn.ID)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/state")
		})
		b.Run(api.name+"/DescribeInto", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for k, s := range states {
					if err := s.c.DescribeInto(conn, &hs[k], reqs[k], api.resp); err != nil {
						b.Fatal(err)
					}
					s.c.Disconnect(conn.ID)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/state")
		})
	}
}

func BenchmarkSnapshot(b *testing.B) {
	states := benchStates()
	b.Run("Snapshot", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, s := range states {
				_ = s.c.Snapshot()
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/state")
	})
	b.Run("SnapshotInto", func(b *testing.B) {
		b.ReportAllocs()
		var dst []rules.GroupSnapshot
		for i := 0; i < b.N; i++ {
			for _, s := range states {
				dst = s.c.SnapshotInto(dst)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(states)), "ns/state")
	})
}
