package impl_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/equivtest"
	"github.com/ghostcheck/ghostcheck/internal/race"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
)

// describeGroupLists are the group lists the describes of
// intoChecker ask, in turn: each answer is written over the one before,
// of another shape (no group, one, every id the equivalence property uses
// and some it never does).
var describeGroupLists = [][]string{
	{"g1"},
	{"", " ", "g1", "g2", "g3", "c1", "c2", "missing"},
	{"c1"},
	{},
	{"g2", "c2", "g1", "c1"},
	{"g3", "g2", "g1"},
	{"g1", "g3", "g2"},
}

// describeInto asks c for one describe of key at version, into resp, and
// returns the encoded answer (nil with an error).
func describeInto(c *impl.Coordinator, conn impl.Conn, h *codec.RequestHeader, req, resp codec.Message) ([]byte, error) {
	if err := c.DescribeInto(conn, h, req, resp); err != nil {
		return nil, err
	}
	return resp.AppendTo(nil, h.RequestApiVersion)
}

// describeHandle is describeInto through Handle.
func describeHandle(c *impl.Coordinator, conn impl.Conn, h *codec.RequestHeader, req codec.Message) ([]byte, error) {
	resp, err := c.Handle(conn, h, req)
	if err != nil {
		return nil, err
	}
	return resp.AppendTo(nil, h.RequestApiVersion)
}

// intoChecker holds DescribeInto and SnapshotInto to Handle and Snapshot
// in every state it is shown (equivtest's PropertyObserving), in answers
// and snapshots reused from state to state, so always dirty with another
// state's. It keeps what differs. The property runs on one goroutine, and
// so does the checker.
type intoChecker struct {
	cgd      codec.ConsumerGroupDescribeResponse
	dg       codec.DescribeGroupsResponse
	snap     []impl.GroupSnapshot
	n        int // states looked at
	failures []string
}

const intoDescribeConn = 1 << 20

func (k *intoChecker) fail(format string, args ...any) {
	if len(k.failures) < 10 {
		k.failures = append(k.failures, fmt.Sprintf(format, args...))
	}
}

func (k *intoChecker) observe(c *impl.Coordinator) {
	k.n++
	k.snap = c.SnapshotInto(k.snap)
	if want := c.Snapshot(); !reflect.DeepEqual(k.snap, want) {
		k.fail("SnapshotInto gave\n%+v\nwhere Snapshot gives\n%+v", k.snap, want)
	}
	// Every version (and one past the last) of both apis, with and without
	// authorized operations, on a copy (with c's mutants, then with each
	// set of describeMutants), the answers written over one another:
	// Describe changes no group, and the explorer's connection is the
	// copy's alone.
	for i := -1; i < len(describeMutants); i++ {
		x := k.clone(c)
		if i >= 0 {
			x = c.CloneWithMutants(impl.NewManualClock(c.Now()), describeMutants[i])
		}
		k.describeEvery(x, i)
	}
	// The first request of a connection, on two copies, one through each:
	// the same error, the same context left behind, the same held
	// requests. A client's connection may hold a request (parked).
	conn := impl.Conn{ID: uint64(k.n%8 + 1), Host: "/h"}
	if conn.ID > 6 {
		conn.ID = intoDescribeConn
	}
	key := []codec.APIKey{codec.ConsumerGroupDescribe, codec.DescribeGroups}[k.n%2]
	h := &codec.RequestHeader{RequestApiKey: key, RequestApiVersion: int16(k.n % 3), ClientId: codec.NullableString{Value: "x", Valid: k.n%3 != 0}}
	req, resp := describeRequest(key, describeGroupLists[k.n%len(describeGroupLists)], true, &k.cgd, &k.dg)
	a, b := k.clone(c), k.clone(c)
	want, werr := describeHandle(a, conn, h, req)
	got, gerr := describeInto(b, conn, h, req, resp)
	if !sameError(werr, gerr) || !bytes.Equal(want, got) {
		k.fail("first %v v%d on connection %d: DescribeInto encodes %x (error %v), Handle %x (error %v)", key, h.RequestApiVersion, conn.ID, got, gerr, want, werr)
	}
	ac, aok := a.ConnClientID(conn.ID)
	bc, bok := b.ConnClientID(conn.ID)
	if ac != bc || aok != bok {
		k.fail("connection %d after a describe: DescribeInto leaves ClientId %q (known %v), Handle %q (%v)", conn.ID, bc, bok, ac, aok)
	}
	if ah, bh := heldOf(a), heldOf(b); ah != bh {
		k.fail("connection %d after a describe: DescribeInto leaves held %s, Handle %s", conn.ID, bh, ah)
	}
}

// describeMutants are the sets of mutants TestDescribeIntoAsHandle plants
// in copies of every state: those a describe or a connection's context
// reads as the request is served.
var describeMutants = []impl.Mutants{
	mutants(impl.MutDescribeEmptyGroupNotFound, impl.MutDescribeHidesParked, impl.MutDescribeStableNoMetadata, impl.MutDescribeNotFoundFromV5,
		impl.MutHeldConnectionRead, impl.MutFirstClientIDForgotten),
	mutants(impl.MutDescribeMissingGroupDead, impl.MutDescribeConsumerGroupEmpty, impl.MutDescribeNotFoundFromV7, impl.MutDescribeCompletingMetadata,
		impl.MutAboveMaxVersionServed, impl.MutLaterClientIDIgnored),
}

func mutants(ms ...impl.Mutant) impl.Mutants {
	var out impl.Mutants
	for _, m := range ms {
		out = out.With(m)
	}
	return out
}

// describeEvery asks x every describe, through Handle and DescribeInto,
// on the explorer's connection (mutants names the mutants, for a
// failure).
func (k *intoChecker) describeEvery(x *impl.Coordinator, mutants int) {
	conn := impl.Conn{ID: intoDescribeConn, Host: "/h"}
	for _, key := range []codec.APIKey{codec.ConsumerGroupDescribe, codec.DescribeGroups} {
		api := codec.Lookup(key)
		for v := api.MinVersion; v <= api.MaxVersion+1; v++ {
			for _, ops := range []bool{true, false} {
				for _, groups := range describeGroupLists {
					h := &codec.RequestHeader{RequestApiKey: key, RequestApiVersion: v, ClientId: codec.Str("d")}
					req, resp := describeRequest(key, groups, ops, &k.cgd, &k.dg)
					want, werr := describeHandle(x, conn, h, req)
					got, gerr := describeInto(x, conn, h, req, resp)
					if !sameError(werr, gerr) || !bytes.Equal(want, got) {
						k.fail("%v v%d of %q (operations %v, mutants %d): DescribeInto encodes %x (error %v), Handle %x (error %v)", key, v, groups, ops, mutants, got, gerr, want, werr)
					}
				}
			}
		}
	}
}

func (k *intoChecker) clone(c *impl.Coordinator) *impl.Coordinator {
	return c.Clone(impl.NewManualClock(c.Now()), nil)
}

// describeRequest is a describe of groups, and the response of its api to
// write it into.
func describeRequest(key codec.APIKey, groups []string, ops bool, cgd *codec.ConsumerGroupDescribeResponse, dg *codec.DescribeGroupsResponse) (codec.Message, codec.Message) {
	if key == codec.ConsumerGroupDescribe {
		return &codec.ConsumerGroupDescribeRequest{GroupIds: groups, IncludeAuthorizedOperations: ops}, cgd
	}
	return &codec.DescribeGroupsRequest{Groups: groups, IncludeAuthorizedOperations: ops}, dg
}

func sameError(a, b error) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Error() == b.Error()
}

func heldOf(c *impl.Coordinator) string {
	s := ""
	c.Held(func(conn uint64, active bool, delivery uint64, queued []uint64) {
		s += fmt.Sprint(conn, active, delivery, queued, ";")
	})
	return s
}

// TestDescribeIntoAsHandle: in every state the equivalence property's
// generated sequences reach (consumer, classic and mixed groups; with no
// mutant and with each that changes a describe or a connection's
// context), DescribeInto, into an answer last written for another state
// and another request, encodes byte for byte as Handle's answer, at
// every version of ConsumerGroupDescribe and DescribeGroups, and leaves
// the connection as Handle does; SnapshotInto over the previous state's
// snapshot is Snapshot. With a mutant the property itself fails (its
// model differs): only what DescribeInto and SnapshotInto do counts.
func TestDescribeIntoAsHandle(t *testing.T) {
	checks := 60
	switch {
	case race.Enabled:
		checks = 2 // a tenth of the speed, and nothing here runs concurrently: a smoke test
	case testing.Short():
		checks = 30
	}
	setFlag(t, "rapid.checks", fmt.Sprint(checks))
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.seed", "3")
	setFlag(t, "rapid.shrinktime", "100ms")
	k := &intoChecker{}
	for _, tc := range []struct {
		name string
		mut  []impl.Mutant
	}{
		{"none", nil},
		// Mutants of what a describe shows that act before it, as
		// members join (the property fails with them, but the states
		// before count).
		{"first client id", []impl.Mutant{impl.MutDescribeFirstClientID}},
		{"context kept", []impl.Mutant{impl.MutConnContextKept}},
	} {
		var mut impl.Mutants
		for _, m := range tc.mut {
			mut = mut.With(m)
		}
		for _, p := range []struct {
			name     string
			property func(impl.Mutants, func(*impl.Coordinator)) func(*rapid.T)
		}{{"consumer and classic", equivtest.PropertyObserving}, {"mixed", equivtest.MixedPropertyObserving}} {
			t.Run(tc.name+"/"+p.name, func(t *testing.T) {
				before := k.n
				r := &recorder{name: t.Name()}
				rapid.Check(r, p.property(mut, k.observe))
				if len(tc.mut) == 0 && r.failed {
					t.Fatalf("the equivalence property failed without mutants: %v", r.errors)
				}
				if len(k.failures) > 0 {
					t.Fatalf("%d states looked at:\n%s", k.n-before, fmt.Sprint(k.failures))
				}
				t.Logf("%d states looked at", k.n-before)
			})
		}
	}
}

// describedCoordinator is a coordinator holding consumer group g1 with
// members members (four topics, each member subscribed to some of them,
// assignments reconciled halfway: targets, assignments and pending
// revocations differ), and classic group c1 with two members waiting in
// their first join.
func describedCoordinator(tb testing.TB, members int) *impl.Coordinator {
	tb.Helper()
	var topics []impl.Topic
	for i, name := range []string{"alpha", "beta", "gamma", "delta"} {
		topics = append(topics, impl.Topic{Name: name, ID: model.TopicIDFor(name), Partitions: int32(3 + 2*i)})
	}
	clock := impl.NewManualClock(0)
	c := impl.New(impl.Config{Topics: topics, SessionTimeoutMs: 45000, HeartbeatIntervalMs: 5000, NewID: model.SeededIDs(1), Clock: clock,
		ClassicMinSessionTimeoutMs: 1000, ClassicMaxSessionTimeoutMs: 60000, InitialRebalanceDelayMs: 3000})
	h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, ClientId: codec.Str("app")}
	var resp codec.ConsumerGroupHeartbeatResponse
	epochs := make([]int32, members)
	for round := 0; round < 2; round++ {
		for i := range members {
			id := fmt.Sprintf("member-%02d", i)
			req := testreq.Join("g1", id, 30000, []string{"alpha", "beta", "gamma", "delta"}[:1+i%4]...)
			if round > 0 {
				req = testreq.Heartbeat("g1", id, epochs[i], "")
			}
			if err := c.HandleHeartbeat(impl.Conn{ID: uint64(i + 1), Host: "/h"}, h, req, &resp); err != nil || resp.ErrorCode != codec.None {
				tb.Fatalf("heartbeat of %s: %v %v", id, err, resp.ErrorCode)
			}
			epochs[i] = resp.MemberEpoch
		}
	}
	for i := range 2 {
		jh := &codec.RequestHeader{RequestApiKey: codec.JoinGroup, RequestApiVersion: 3, ClientId: codec.Str("old")}
		req := &codec.JoinGroupRequest{GroupId: "c1", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 10000, ProtocolType: "consumer",
			Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{1, 2, 3}}}}
		if _, err := c.Handle(impl.Conn{ID: uint64(100 + i), Host: "/h", Delivery: uint64(i + 1)}, jh, req); !errors.Is(err, impl.ErrParked) {
			tb.Fatalf("classic join: %v, want it held", err)
		}
	}
	return c
}

// TestDescribeIntoReusesItsAnswer: a describe asked again into the answer
// it wrote allocates nothing, on the connection of the last or on one
// opened for it where the last was closed (as the explorer's), and
// SnapshotInto over its own snapshot nothing; Handle and Snapshot, for
// scale, allocate several lists per group.
func TestDescribeIntoReusesItsAnswer(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	c := describedCoordinator(t, 6)
	conn := impl.Conn{ID: intoDescribeConn, Host: "/h"}
	for _, tc := range []struct {
		key     codec.APIKey
		version int16
		req     codec.Message
		resp    codec.Message
	}{
		{codec.ConsumerGroupDescribe, 1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g1", "c1", "nope"}, IncludeAuthorizedOperations: true}, &codec.ConsumerGroupDescribeResponse{}},
		{codec.DescribeGroups, 5, &codec.DescribeGroupsRequest{Groups: []string{"c1", "g1", "nope"}, IncludeAuthorizedOperations: true}, &codec.DescribeGroupsResponse{}},
		{codec.DescribeGroups, 6, &codec.DescribeGroupsRequest{Groups: []string{"c1", "g1", "nope"}}, &codec.DescribeGroupsResponse{}},
	} {
		h := &codec.RequestHeader{RequestApiKey: tc.key, RequestApiVersion: tc.version}
		if err := c.DescribeInto(conn, h, tc.req, tc.resp); err != nil {
			t.Fatal(err)
		}
		kept := testing.AllocsPerRun(50, func() { _ = c.DescribeInto(conn, h, tc.req, tc.resp) })
		fresh := testing.AllocsPerRun(50, func() { _ = c.DescribeInto(conn, h, tc.req, tc.resp); c.Disconnect(conn.ID) })
		handle := testing.AllocsPerRun(50, func() { _, _ = c.Handle(conn, h, tc.req) })
		t.Logf("%v v%d: DescribeInto %.0f allocations (%.0f on a new connection each time), Handle %.0f", tc.key, tc.version, kept, fresh, handle)
		if kept > 0 || fresh > 0 {
			t.Errorf("%v v%d asked again into its answer: %.0f allocations, %.0f on a new connection; want none (a closed connection's context is the next one's)", tc.key, tc.version, kept, fresh)
		}
	}
	snap := c.SnapshotInto(nil)
	if n := testing.AllocsPerRun(50, func() { snap = c.SnapshotInto(snap) }); n > 0 {
		t.Errorf("SnapshotInto over its own snapshot: %.0f allocations, want none", n)
	}
}

// BenchmarkDescribe: the explorer's describe of its group (six members)
// through Handle, a fresh answer each time, and through DescribeInto,
// into the same one; each on a connection opened for it, as the explorer's.
func BenchmarkDescribe(b *testing.B) {
	c := describedCoordinator(b, 6)
	conn := impl.Conn{ID: intoDescribeConn, Host: "/h"}
	for _, tc := range []struct {
		name string
		h    codec.RequestHeader
		req  codec.Message
		resp codec.Message
	}{
		{"ConsumerGroupDescribe", codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 1},
			&codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g1"}, IncludeAuthorizedOperations: true}, &codec.ConsumerGroupDescribeResponse{}},
		{"DescribeGroups", codec.RequestHeader{RequestApiKey: codec.DescribeGroups, RequestApiVersion: 5},
			&codec.DescribeGroupsRequest{Groups: []string{"c1"}, IncludeAuthorizedOperations: true}, &codec.DescribeGroupsResponse{}},
	} {
		b.Run(tc.name+"/Handle", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Handle(conn, &tc.h, tc.req); err != nil {
					b.Fatal(err)
				}
				c.Disconnect(conn.ID)
			}
		})
		b.Run(tc.name+"/DescribeInto", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.DescribeInto(conn, &tc.h, tc.req, tc.resp); err != nil {
					b.Fatal(err)
				}
				c.Disconnect(conn.ID)
			}
		})
	}
	b.Run("Snapshot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = c.Snapshot()
		}
	})
	b.Run("SnapshotInto", func(b *testing.B) {
		b.ReportAllocs()
		var snap []impl.GroupSnapshot
		for b.Loop() {
			snap = c.SnapshotInto(snap)
		}
	})
}

// TestDescribeIntoRefuses: DescribeInto answers only a describe, into a
// response of its api: anything else is an error, and leaves the
// connection without a context (nothing was admitted).
func TestDescribeIntoRefuses(t *testing.T) {
	c := describedCoordinator(t, 2)
	cgdH := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 1, ClientId: codec.Str("x")}
	dgH := &codec.RequestHeader{RequestApiKey: codec.DescribeGroups, RequestApiVersion: 5, ClientId: codec.Str("x")}
	cgd := &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g1"}}
	dg := &codec.DescribeGroupsRequest{Groups: []string{"c1"}}
	for _, tc := range []struct {
		name string
		h    *codec.RequestHeader
		req  codec.Message
		resp codec.Message
	}{
		{"ConsumerGroupDescribe into a DescribeGroups response", cgdH, cgd, &codec.DescribeGroupsResponse{}},
		{"DescribeGroups into a ConsumerGroupDescribe response", dgH, dg, &codec.ConsumerGroupDescribeResponse{}},
		{"into nil", cgdH, cgd, nil},
		{"into a nil response", dgH, dg, (*codec.DescribeGroupsResponse)(nil)},
		{"a nil request", cgdH, (*codec.ConsumerGroupDescribeRequest)(nil), &codec.ConsumerGroupDescribeResponse{}},
		{"no request", cgdH, nil, &codec.ConsumerGroupDescribeResponse{}},
		{"no header", nil, cgd, &codec.ConsumerGroupDescribeResponse{}},
		{"a request of another api than its header's", dgH, cgd, &codec.ConsumerGroupDescribeResponse{}},
		{"a response as the request", cgdH, &codec.ConsumerGroupDescribeResponse{}, &codec.ConsumerGroupDescribeResponse{}},
		{"a heartbeat", &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1}, testreq.Join("g1", "m", 1000, "alpha"),
			&codec.ConsumerGroupHeartbeatResponse{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const conn = 77
			if err := c.DescribeInto(impl.Conn{ID: conn}, tc.h, tc.req, tc.resp); err == nil {
				t.Fatalf("DescribeInto accepted it; want an error")
			}
			if id, known := c.ConnClientID(conn); known {
				t.Fatalf("the connection has a context (ClientId %q) after a refused DescribeInto; want none", id)
			}
		})
	}
}

// TestClosedConnectionContextReused: a connection closed while its
// requests are in flight gives its context to the next new connection of
// its shard (Disconnect keeps it): the new connection is attributed its
// own first ClientId, the old one's requests go on, and (under -race)
// nothing of the context is read unguarded. Connections 1 and 65 share a
// shard.
func TestClosedConnectionContextReused(t *testing.T) {
	c := describedCoordinator(t, 2)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // a client heartbeating on connection 1, which is closed under it again and again
		defer wg.Done()
		// No ClientId: each request reads the connection's first.
		h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1}
		var resp codec.ConsumerGroupHeartbeatResponse
		for {
			select {
			case <-stop:
				return
			default:
			}
			req := testreq.Join("g1", "racer", 30000, "alpha")
			if err := c.HandleHeartbeat(impl.Conn{ID: 1, Host: "/h"}, h, req, &resp); err != nil {
				t.Error(err)
				return
			}
			req = testreq.Leave("g1", "racer", -1, "")
			if err := c.HandleHeartbeat(impl.Conn{ID: 1, Host: "/h"}, h, req, &resp); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var cgd codec.ConsumerGroupDescribeResponse
	for i := range 2000 {
		c.Disconnect(1)
		name := fmt.Sprintf("d%d", i)
		h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 1, ClientId: codec.Str(name)}
		if err := c.DescribeInto(impl.Conn{ID: 65, Host: "/h"}, h, testreq.Describe("g1"), &cgd); err != nil {
			t.Fatal(err)
		}
		if id, known := c.ConnClientID(65); !known || id != name {
			t.Fatalf("connection 65 after its first request, ClientId %q: attributed %q (known %v); want its own", name, id, known)
		}
		c.Disconnect(65)
	}
	close(stop)
	wg.Wait()
	if err := c.CheckInternal(); err != nil {
		t.Fatal(err)
	}
}
