package impl_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
)

// Benchmarks put model and impl side by side: sub-benchmarks end in
// coord=model or coord=impl, so
//
//	go test ./impl -run '^$' -bench . -benchmem -count 6 > bench.txt
//	benchstat -col /coord bench.txt
//
// compares them. Members are spread over groups of 100 (layout=g100), the
// same layout for both: the model recomputes its whole target on every
// join, so joining a million members into one group is out of its reach.
// impl also runs with all members in one group (layout=one).

const groupSize = 100

// coord is what a benchmark drives: model or impl behind one interface.
type coord interface {
	heartbeat(conn uint64, req *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse)
	advance(t int64)
	members() int
}

var benchHeader = codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1}

type modelCoord struct{ c *model.Coordinator }

func (m modelCoord) heartbeat(conn uint64, req *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) {
	r, err := m.c.Handle(model.Conn{ID: conn, Host: "/10.1.2.3"}, &benchHeader, req)
	if err != nil {
		panic(err)
	}
	*resp = *r.(*codec.ConsumerGroupHeartbeatResponse)
}
func (m modelCoord) advance(t int64) { m.c.Advance(t) }
func (m modelCoord) members() int {
	n := 0
	for _, g := range m.c.Snapshot() {
		n += len(g.Members)
	}
	return n
}

type implCoord struct {
	c     *impl.Coordinator
	clock *impl.ManualClock
}

func (i implCoord) heartbeat(conn uint64, req *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) {
	if err := i.c.HandleHeartbeat(impl.Conn{ID: conn, Host: "/10.1.2.3"}, &benchHeader, req, resp); err != nil {
		panic(err)
	}
}
func (i implCoord) advance(t int64) { i.clock.Set(t); i.c.Expire() }
func (i implCoord) members() int {
	n := 0
	for _, g := range i.c.Snapshot() {
		n += len(g.Members)
	}
	return n
}

const benchSession = 45000

func newCoord(kind string) coord {
	if kind == "model" {
		cfg := model.DefaultConfig(1)
		cfg.SessionTimeoutMs = benchSession
		return modelCoord{model.NewCoordinator(cfg)}
	}
	clock := impl.NewManualClock(0)
	return implCoord{impl.New(impl.Config{Topics: testTopics(), SessionTimeoutMs: benchSession, HeartbeatIntervalMs: 5000, NewID: model.SeededIDs(1), Clock: clock}), clock}
}

// benchMember is one client of a fixture.
type benchMember struct {
	group, id string
	epoch     int32
	owned     []codec.ConsumerGroupHeartbeatTopicPartitions
}

type fixture struct {
	c       coord
	ms      []benchMember
	now     int64
	perConn int
	bytes   float64 // heap bytes per member after building
}

func (f *fixture) conn(i int) uint64 { return uint64(i/f.perConn + 1) }

func (f *fixture) join(i int, resp *codec.ConsumerGroupHeartbeatResponse) {
	m := &f.ms[i]
	f.c.heartbeat(f.conn(i), &codec.ConsumerGroupHeartbeatRequest{GroupId: m.group, MemberId: m.id, RebalanceTimeoutMs: 60000,
		SubscribedTopicNames: []string{"alpha", "beta", "gamma"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}, resp)
	f.absorb(i, resp)
}

func (f *fixture) absorb(i int, resp *codec.ConsumerGroupHeartbeatResponse) {
	m := &f.ms[i]
	switch resp.ErrorCode {
	case codec.None:
		m.epoch = resp.MemberEpoch
		if resp.Assignment != nil {
			m.owned = m.owned[:0]
			for _, t := range resp.Assignment.TopicPartitions {
				m.owned = append(m.owned, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: t.TopicId, Partitions: append([]int32(nil), t.Partitions...)})
			}
		}
	case codec.UnknownMemberID, codec.FencedMemberEpoch:
		m.epoch, m.owned = 0, nil
	}
}

// settle heartbeats every member, reporting what it owns, until nothing
// changes, so the measured heartbeats are steady ones.
func (f *fixture) settle() {
	var resp codec.ConsumerGroupHeartbeatResponse
	for round := 0; round < 8; round++ {
		changed := false
		for i := range f.ms {
			m := &f.ms[i]
			epoch, owned := m.epoch, len(m.owned)
			if m.epoch == 0 {
				f.join(i, &resp)
				changed = true
				continue
			}
			reported := m.owned
			if reported == nil {
				reported = []codec.ConsumerGroupHeartbeatTopicPartitions{}
			}
			f.c.heartbeat(f.conn(i), &codec.ConsumerGroupHeartbeatRequest{GroupId: m.group, MemberId: m.id, MemberEpoch: m.epoch, RebalanceTimeoutMs: -1, TopicPartitions: reported}, &resp)
			f.absorb(i, &resp)
			if m.epoch != epoch || len(m.owned) != owned || resp.Assignment != nil {
				changed = true
			}
		}
		if !changed {
			return
		}
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// buildFixture joins n members, perGroup to a group (0: one group), 100
// members to a connection, and settles them.
func buildFixture(kind string, n, perGroup int) *fixture {
	return buildFixtureMeasured(kind, n, perGroup, false)
}

// buildFixtureMeasured is buildFixture, also measuring the heap the
// coordinator takes per member when measure is set (two full GCs).
func buildFixtureMeasured(kind string, n, perGroup int, measure bool) *fixture {
	ids := make([]benchMember, n)
	for i := range ids {
		var u codec.UUID
		u[0], u[1], u[2], u[3] = byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
		u[8] = 0x80
		u[15] = 0x5a
		g := "group-0"
		if perGroup > 0 {
			g = fmt.Sprintf("group-%d", i/perGroup)
		}
		ids[i] = benchMember{group: g, id: u.Hex()}
	}
	var before uint64
	if measure {
		before = heapInUse()
	}
	f := &fixture{c: newCoord(kind), ms: ids, perConn: 100}
	var resp codec.ConsumerGroupHeartbeatResponse
	for i := range f.ms {
		f.join(i, &resp)
	}
	f.settle()
	if !measure {
		return f
	}
	after := heapInUse()
	// The fixture's own records (ids, epochs) were allocated before the
	// first measurement; only the few owned-partition lists the clients
	// keep are counted against the coordinator, a rounding error.
	f.bytes = (float64(after) - float64(before)) / float64(n)
	runtime.KeepAlive(ids)
	return f
}

var (
	fixturesMu sync.Mutex
	fixtures   = map[string]*fixture{}
)

// cachedFixture builds a fixture once per process: building a million
// model members takes a while.
func cachedFixture(b *testing.B, kind string, n, perGroup int) *fixture {
	key := fmt.Sprintf("%s/%d/%d", kind, n, perGroup)
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if f := fixtures[key]; f != nil {
		return f
	}
	b.StopTimer()
	f := buildFixtureMeasured(kind, n, perGroup, true)
	b.StartTimer()
	fixtures[key] = f
	return f
}

func sizeName(n int) string {
	switch {
	case n >= 1000000 && n%1000000 == 0:
		return fmt.Sprintf("%dM", n/1000000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// BenchmarkHeartbeat: steady heartbeats (known member, current epoch,
// nothing to reconcile), members in round-robin order as their heartbeat
// intervals would bring them.
func BenchmarkHeartbeat(b *testing.B) {
	for _, n := range []int{1000, 100000, 1000000} {
		for _, kind := range []string{"model", "impl"} {
			b.Run(fmt.Sprintf("members=%s/layout=g100/coord=%s", sizeName(n), kind), func(b *testing.B) {
				benchHeartbeat(b, cachedFixture(b, kind, n, groupSize))
			})
		}
	}
	for _, n := range []int{1000, 100000, 1000000} {
		b.Run(fmt.Sprintf("members=%s/layout=one/coord=impl", sizeName(n)), func(b *testing.B) {
			benchHeartbeat(b, cachedFixture(b, "impl", n, 0))
		})
	}
}

func benchHeartbeat(b *testing.B, f *fixture) {
	reqs := make([]codec.ConsumerGroupHeartbeatRequest, len(f.ms))
	for i := range f.ms {
		reqs[i] = codec.ConsumerGroupHeartbeatRequest{GroupId: f.ms[i].group, MemberId: f.ms[i].id, MemberEpoch: f.ms[i].epoch, RebalanceTimeoutMs: -1}
	}
	var resp codec.ConsumerGroupHeartbeatResponse
	b.ReportAllocs()
	b.ResetTimer()
	for i, j := 0, 0; i < b.N; i++ {
		f.c.heartbeat(f.conn(j), &reqs[j], &resp)
		if resp.ErrorCode != codec.None || resp.MemberEpoch != reqs[j].MemberEpoch {
			b.Fatalf("heartbeat %d of %s: %v epoch %d, want a steady heartbeat at %d", i, reqs[j].MemberId, resp.ErrorCode, resp.MemberEpoch, reqs[j].MemberEpoch)
		}
		if j++; j == len(reqs) {
			j = 0
		}
	}
}

// BenchmarkHeartbeatFloor measures the least any coordinator must spend on
// a steady heartbeat if, as impl must, it serializes a group's requests and
// finds the member by its id: an uncontended lock and unlock (op=lock), and
// that plus a map lookup of a 36-character member id among 1,000
// (op=lock+lookup). It bounds how far below the model a heartbeat can go:
// a target of n× the model's throughput is out of reach on a machine where
// op=lock+lookup costs more than the model's heartbeat divided by n.
func BenchmarkHeartbeatFloor(b *testing.B) {
	ids := make([]string, 1000)
	byID := make(map[string]uint32, len(ids))
	for i := range ids {
		ids[i] = fmt.Sprintf("%08x-0000-4000-8000-%012x", i*2654435761, i)
		byID[ids[i]] = uint32(i + 1)
	}
	var mu sync.Mutex
	b.Run("members=1k/op=lock", func(b *testing.B) {
		for b.Loop() {
			mu.Lock()
			mu.Unlock() //nolint:staticcheck // the empty critical section is what is measured
		}
	})
	b.Run("members=1k/op=lock+lookup", func(b *testing.B) {
		var sum uint32
		j := 0
		for b.Loop() {
			mu.Lock()
			sum += byID[ids[j]]
			mu.Unlock()
			if j++; j == len(ids) {
				j = 0
			}
		}
		if sum == 0 {
			b.Fatal("no member found")
		}
	})
}

// BenchmarkHeartbeatParallel: steady heartbeats from GOMAXPROCS goroutines
// over disjoint members (impl only: the model is sequential).
func BenchmarkHeartbeatParallel(b *testing.B) {
	for _, n := range []int{1000, 100000, 1000000} {
		b.Run(fmt.Sprintf("members=%s/layout=g100/coord=impl", sizeName(n)), func(b *testing.B) {
			f := cachedFixture(b, "impl", n, groupSize)
			reqs := make([]codec.ConsumerGroupHeartbeatRequest, len(f.ms))
			for i := range f.ms {
				reqs[i] = codec.ConsumerGroupHeartbeatRequest{GroupId: f.ms[i].group, MemberId: f.ms[i].id, MemberEpoch: f.ms[i].epoch, RebalanceTimeoutMs: -1}
			}
			var next sync.Mutex
			start := 0
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				next.Lock()
				j := start
				start += len(reqs) / 16
				next.Unlock()
				var resp codec.ConsumerGroupHeartbeatResponse
				for pb.Next() {
					j %= len(reqs)
					f.c.heartbeat(f.conn(j), &reqs[j], &resp)
					if resp.ErrorCode != codec.None {
						panic(resp.ErrorCode)
					}
					j++
				}
			})
		})
	}
}

// BenchmarkBytesPerMember reports the heap the coordinator holds per member
// (HeapAlloc after GC, before and after joining and settling the members).
func BenchmarkBytesPerMember(b *testing.B) {
	for _, c := range []struct {
		kind     string
		n        int
		perGroup int
		layout   string
	}{{"model", 1000000, groupSize, "g100"}, {"impl", 1000000, groupSize, "g100"}, {"impl", 1000000, 0, "one"}} {
		b.Run(fmt.Sprintf("members=%s/layout=%s/coord=%s", sizeName(c.n), c.layout, c.kind), func(b *testing.B) {
			f := cachedFixture(b, c.kind, c.n, c.perGroup)
			for i := 0; i < b.N; i++ {
			}
			b.ReportMetric(f.bytes, "B/member")
		})
	}
}

// dropFixtures frees the cached fixtures: the benchmarks after the
// heartbeat ones build their own, and a big live heap slows every GC.
func dropFixtures() {
	fixturesMu.Lock()
	clear(fixtures)
	fixturesMu.Unlock()
	runtime.GC()
}

// BenchmarkChurn: a member joins a group of n and leaves again (two epoch
// bumps, two target recomputations).
func BenchmarkChurn(b *testing.B) {
	dropFixtures()
	for _, c := range []struct {
		kind string
		n    int
	}{{"model", 1000}, {"impl", 1000}, {"impl", 100000}, {"impl", 1000000}} {
		kind := c.kind
		b.Run(fmt.Sprintf("members=%s/coord=%s", sizeName(c.n), kind), func(b *testing.B) {
			f := buildFixture(kind, c.n, 0)
			var resp codec.ConsumerGroupHeartbeatResponse
			join := codec.ConsumerGroupHeartbeatRequest{GroupId: "group-0", RebalanceTimeoutMs: 60000,
				SubscribedTopicNames: []string{"alpha", "beta", "gamma"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
			leave := codec.ConsumerGroupHeartbeatRequest{GroupId: "group-0", MemberEpoch: -1, RebalanceTimeoutMs: -1}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				id := fmt.Sprintf("churn-%d", i)
				join.MemberId, leave.MemberId = id, id
				f.c.heartbeat(1, &join, &resp)
				if resp.ErrorCode != codec.None {
					b.Fatal(resp.ErrorCode)
				}
				f.c.heartbeat(1, &leave, &resp)
				if resp.ErrorCode != codec.None {
					b.Fatal(resp.ErrorCode)
				}
			}
		})
	}
}

// BenchmarkExpire: one op is an Expire (model: Advance) that removes k of
// n members, whose sessions lapsed while the others heartbeat. Time should
// follow k, not n.
func BenchmarkExpire(b *testing.B) {
	dropFixtures()
	for _, c := range []struct {
		kind string
		n, k int
	}{
		{"model", 1000, 100}, {"impl", 1000, 100},
		{"model", 10000, 1000}, {"impl", 10000, 1000},
		{"impl", 100000, 1000}, {"impl", 1000000, 1000},
		{"impl", 1000000, 100000},
	} {
		b.Run(fmt.Sprintf("members=%s/expire=%s/coord=%s", sizeName(c.n), sizeName(c.k), c.kind), func(b *testing.B) {
			benchExpire(b, c.kind, c.n, c.k)
		})
	}
}

func benchExpire(b *testing.B, kind string, n, k int) {
	b.StopTimer()
	slices := n / k
	var f *fixture
	var resp codec.ConsumerGroupHeartbeatResponse
	next := slices
	for i := 0; i < b.N; i++ {
		if next == slices {
			// A fresh fixture whose members' deadlines are staggered by
			// slice: slice s (members j with j%slices == s) last
			// heartbeats at time s+1, so it is due at S+s+1.
			f = buildFixture(kind, n, groupSize)
			for s := 0; s < slices; s++ {
				f.now = int64(s + 1)
				f.c.advance(f.now)
				for j := s; j < n; j += slices {
					m := &f.ms[j]
					f.c.heartbeat(f.conn(j), &codec.ConsumerGroupHeartbeatRequest{GroupId: m.group, MemberId: m.id, MemberEpoch: m.epoch, RebalanceTimeoutMs: -1}, &resp)
					f.absorb(j, &resp)
				}
			}
			next = 0
		}
		s := next
		next++
		f.now = benchSession + int64(s) + 1
		b.StartTimer()
		f.c.advance(f.now)
		b.StopTimer()
		if s == 0 { // checking every op would cost O(n)
			if got := f.c.members(); got != n-k {
				b.Fatalf("%d members after expiry, want %d", got, n-k)
			}
		}
		// The expired slice rejoins; its new deadline is past every other
		// slice's, so the group is back to n members for the next op.
		for j := s; j < n; j += slices {
			f.ms[j].epoch, f.ms[j].owned = 0, nil
			f.join(j, &resp)
		}
	}
	b.ReportMetric(float64(k), "expired/op")
}
