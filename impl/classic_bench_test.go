package impl_test

import (
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model"
)

// The classic protocol's hot paths, model and impl side by side (as the
// consumer benchmarks: sub-benchmarks end in coord=model or coord=impl):
// a Heartbeat of a member of a Stable group, and a whole generation (every
// member rejoins, the join phase completes, every member syncs).

// classicCoord is a coordinator behind the calls the benchmarks make.
type classicCoord struct {
	handle   func(conn, delivery uint64, h *codec.RequestHeader, req codec.Message) (codec.Message, error)
	advance  func(t int64)
	released func() []codec.Message
}

func newClassicCoords() map[string]func() classicCoord {
	cfg := model.DefaultConfig(1)
	cfg.ClassicMinSessionTimeoutMs = 1000
	return map[string]func() classicCoord{
		"model": func() classicCoord {
			c := model.NewCoordinator(cfg)
			return classicCoord{
				handle: func(conn, d uint64, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
					return c.Handle(model.Conn{ID: conn, Host: "/10.1.2.3", Delivery: d}, h, req)
				},
				advance: c.Advance,
				released: func() []codec.Message {
					var out []codec.Message
					for _, r := range c.Released() {
						out = append(out, r.Response)
					}
					return out
				},
			}
		},
		"impl": func() classicCoord {
			clock := impl.NewManualClock(0)
			icfg := targets.ImplConfig(cfg, clock, impl.Mutants{})
			icfg.NewID = model.SeededIDs(1)
			c := impl.New(icfg)
			return classicCoord{
				handle: func(conn, d uint64, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
					return c.Handle(impl.Conn{ID: conn, Host: "/10.1.2.3", Delivery: d}, h, req)
				},
				advance: func(t int64) { clock.Set(t); c.Expire() },
				released: func() []codec.Message {
					var out []codec.Message
					for _, r := range c.Released() {
						out = append(out, r.Response)
					}
					return out
				},
			}
		},
	}
}

// benchGroup is a Stable classic group of dynamic members, each on its own
// connection (member i on connection i+1), the leader first.
type benchGroup struct {
	c          classicCoord
	conn0      uint64 // member i is on connection conn0+i
	id         string
	members    []string
	generation int32
	delivery   uint64
	now        int64
}

var (
	joinHeader      = codec.RequestHeader{RequestApiKey: codec.JoinGroup, RequestApiVersion: 3, ClientId: codec.Str("bench")}
	syncHeader      = codec.RequestHeader{RequestApiKey: codec.SyncGroup, RequestApiVersion: 3}
	classicHBHeader = codec.RequestHeader{RequestApiKey: codec.Heartbeat, RequestApiVersion: 3}
	benchProtocols  = []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{0, 1, 0, 0, 0, 1, 0, 5, 97, 108, 112, 104, 97, 255, 255, 255, 255}}}
)

func (g *benchGroup) send(b *testing.B, conn uint64, h *codec.RequestHeader, req codec.Message) codec.Message {
	g.delivery++
	resp, err := g.c.handle(conn, g.delivery, h, req)
	if err != nil && err != model.ErrParked && err != impl.ErrParked {
		b.Fatal(err)
	}
	return resp
}

func (g *benchGroup) join(b *testing.B, i int, memberID string) codec.Message {
	return g.send(b, g.conn0+uint64(i), &joinHeader, &codec.JoinGroupRequest{GroupId: g.id, SessionTimeoutMs: 30000,
		RebalanceTimeoutMs: 60000, MemberId: memberID, ProtocolType: "consumer", Protocols: benchProtocols})
}

// newStableGroup makes a Stable group of n members joined at v3: their
// joins wait out the first rebalance, then everyone syncs.
func newStableGroup(b *testing.B, c classicCoord, id string, n int, after *benchGroup) *benchGroup {
	g := &benchGroup{c: c, id: id, conn0: 1}
	if after != nil { // on the same coordinator: later, on connections of its own
		g.now, g.conn0, g.delivery = after.now, after.conn0+uint64(len(after.members)), after.delivery
	}
	for i := 0; i < n; i++ {
		g.join(b, i, "")
	}
	g.now += 6000 // the first rebalance's delay, extended once
	c.advance(g.now)
	for _, r := range c.released() {
		if jr := r.(*codec.JoinGroupResponse); len(jr.Members) > 0 {
			for _, m := range jr.Members {
				g.members = append(g.members, m.MemberId)
			}
			g.generation = jr.GenerationId
			// The leader first.
			for k, m := range g.members {
				if m == jr.Leader {
					g.members[0], g.members[k] = g.members[k], g.members[0]
				}
			}
		}
	}
	if len(g.members) != n {
		b.Fatalf("%d members, want %d", len(g.members), n)
	}
	g.sync(b)
	return g
}

// sync: every follower's SyncGroup waits, the leader's assigns and
// answers them.
func (g *benchGroup) sync(b *testing.B) {
	for i := len(g.members) - 1; i >= 0; i-- {
		req := &codec.SyncGroupRequest{GroupId: g.id, GenerationId: g.generation, MemberId: g.members[i]}
		if i == 0 {
			for _, m := range g.members {
				req.Assignments = append(req.Assignments, codec.SyncGroupRequestAssignment{MemberId: m, Assignment: benchProtocols[0].Metadata})
			}
		}
		g.send(b, g.conn0+uint64(i), &syncHeader, req)
	}
	if got := len(g.c.released()); got != len(g.members)-1 {
		b.Fatalf("%d SyncGroups answered, want %d", got, len(g.members)-1)
	}
}

// rejoinAndSync plays a generation: the leader rejoins (a rebalance), the
// others rejoin, the last completing the phase, and everyone syncs.
func (g *benchGroup) rejoinAndSync(b *testing.B) {
	for i, m := range g.members {
		g.join(b, i, m)
	}
	if got := len(g.c.released()); got != len(g.members)-1 {
		b.Fatalf("%d JoinGroups answered, want %d", got, len(g.members)-1)
	}
	g.generation++
	g.sync(b)
}

// BenchmarkClassicHeartbeat: one Heartbeat of a member of a Stable classic
// group, members in groups of 100, the clock moving by a millisecond every
// 64 heartbeats.
func BenchmarkClassicHeartbeat(b *testing.B) {
	for _, name := range []string{"model", "impl"} {
		b.Run("coord="+name, func(b *testing.B) {
			c := newClassicCoords()[name]()
			var groups []*benchGroup
			var last *benchGroup
			for i := 0; i < 4; i++ {
				last = newStableGroup(b, c, fmt.Sprintf("cg%d", i), 100, last)
				groups = append(groups, last)
			}
			reqs := make([]*codec.HeartbeatRequest, 0, 400)
			for _, g := range groups {
				for _, m := range g.members {
					reqs = append(reqs, &codec.HeartbeatRequest{GroupId: g.id, GenerationId: 1, MemberId: m})
				}
			}
			now := groups[len(groups)-1].now
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				resp, err := c.handle(1, 1<<40+uint64(i), &classicHBHeader, reqs[i%len(reqs)])
				if err != nil || resp.(*codec.HeartbeatResponse).ErrorCode != codec.None {
					b.Fatalf("%v %+v", err, resp)
				}
				if i%64 == 63 {
					now++
					c.advance(now)
				}
			}
		})
	}
}

// BenchmarkClassicGeneration: a whole generation of a Stable group of
// 20 members (every member rejoins, the join phase completes, every
// member syncs); ns/op is per generation.
func BenchmarkClassicGeneration(b *testing.B) {
	for _, name := range []string{"model", "impl"} {
		b.Run("coord="+name, func(b *testing.B) {
			c := newClassicCoords()[name]()
			g := newStableGroup(b, c, "cg", 20, nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				g.rejoinAndSync(b)
			}
		})
	}
}
