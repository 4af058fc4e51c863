package wire_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/wire"
)

// recorder keeps what the cluster writes on each of its connections (the
// plaintext side, through Dialer.Wrap), so a test can read the request
// headers every broker got; eof makes the connections made so far read
// EOF, as when their broker closed them.
type recorder struct {
	mu    sync.Mutex
	conns []*recConn
}

type recConn struct {
	net.Conn
	mu      sync.Mutex
	written bytes.Buffer
	eof     bool
}

func (r *recorder) wrap(nc net.Conn) net.Conn {
	c := &recConn{Conn: nc}
	r.mu.Lock()
	r.conns = append(r.conns, c)
	r.mu.Unlock()
	return c
}

func (c *recConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.written.Write(b)
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *recConn) Read(b []byte) (int, error) {
	c.mu.Lock()
	eof := c.eof
	c.mu.Unlock()
	if eof {
		return 0, errors.New("EOF") // what a closed peer looks like to the reader
	}
	return c.Conn.Read(b)
}

// eofAll makes every connection made so far read as closed by its
// broker.
func (r *recorder) eofAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.mu.Lock()
		c.eof = true
		c.mu.Unlock()
	}
}

func (r *recorder) dials() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.conns)
}

// headers are the request headers written on each connection, by the
// broker address it went to.
func (r *recorder) headers(t *testing.T) map[string][][]codec.RequestHeader {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][][]codec.RequestHeader{}
	for _, c := range r.conns {
		c.mu.Lock()
		b := slices.Clone(c.written.Bytes())
		c.mu.Unlock()
		var hs []codec.RequestHeader
		for len(b) > 0 {
			frame, rest, err := codec.SplitFrame(b, 1<<20)
			if err != nil {
				t.Fatalf("a frame the cluster wrote: %v", err)
			}
			var h codec.RequestHeader
			if _, err := codec.ParseRequestHeader(frame, &h, codec.DecodeOptions{}); err != nil {
				t.Fatal(err)
			}
			hs = append(hs, h)
			b = rest
		}
		addr := c.RemoteAddr().String()
		out[addr] = append(out[addr], hs)
	}
	return out
}

// fastBackoff keeps a test's retries short.
var fastBackoff = wire.Backoff{Base: time.Millisecond, Max: 8 * time.Millisecond, MaxRetries: 6, MaxWait: 5 * time.Second}

func connect(t *testing.T, bootstrap []string, rec *recorder) *wire.Cluster {
	t.Helper()
	d := wire.Dialer{Options: wire.Options{Timeout: 5 * time.Second}}
	if rec != nil {
		d.Wrap = rec.wrap
	}
	cl, err := wire.Connect(context.Background(), bootstrap, wire.ClusterOptions{Dialer: d, ClientID: "cluster-test",
		Backoff: fastBackoff, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// threeBrokers starts a 3-broker kfake with topic "t" and a cluster
// client bootstrapped from its first n addresses.
func threeBrokers(t *testing.T, n int, rec *recorder) (*kfake.Cluster, *wire.Cluster) {
	t.Helper()
	kc := kfaketest.Start(t, kfake.NumBrokers(3), kfake.SeedTopics(1, "t"))
	return kc, connect(t, kc.ListenAddrs()[:n], rec)
}

// hb sends a heartbeat routed to the group's coordinator and fails the
// test unless the coordinator accepts it.
func hb(t *testing.T, cl *wire.Cluster, req *codec.ConsumerGroupHeartbeatRequest) (*codec.ConsumerGroupHeartbeatResponse, []wire.Event) {
	t.Helper()
	resp, evs, err := cl.RoundTrip(context.Background(), req.GroupId, 1, req)
	if err != nil {
		t.Fatalf("heartbeat of %s: %v (events %v)", req.GroupId, err, evs)
	}
	r := resp.(*codec.ConsumerGroupHeartbeatResponse)
	if r.ErrorCode != codec.None {
		t.Fatalf("heartbeat of %s: %v (events %v)", req.GroupId, r.ErrorCode, evs)
	}
	return r, evs
}

// kinds are the events' kinds, in order.
func kinds(evs []wire.Event) []wire.EventKind {
	out := make([]wire.EventKind, len(evs))
	for i, e := range evs {
		out[i] = e.Kind
	}
	return out
}

// Against a 3-broker kfake, from one bootstrap address: the cluster learns
// the three brokers; each group's coordinator is the broker kfake says,
// the groups spread over all three; a heartbeat goes to the coordinator
// and is accepted there, while the same heartbeat sent to another broker
// is NOT_COORDINATOR; every request to every broker carries the cluster's
// one instance id, and ClientId on each connection's first request only.
func TestClusterAgainstKfake(t *testing.T) {
	rec := &recorder{}
	kc, cl := threeBrokers(t, 1, rec)
	ctx := context.Background()

	var got []string
	for _, b := range cl.Brokers() {
		got = append(got, b.Addr)
	}
	want := slices.Clone(kc.ListenAddrs())
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("brokers %v, want %v", got, want)
	}

	spread := map[int32]int{}
	for i := range 30 {
		g := fmt.Sprintf("group-%d", i)
		b, evs, err := cl.Coordinator(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		if want := kc.CoordinatorFor(g); b.ID != want {
			t.Fatalf("%s: coordinator %d, kfake says %d", g, b.ID, want)
		}
		if len(evs) != 1 || evs[0].Kind != wire.CoordinatorFound || evs[0].Broker != b.ID || evs[0].Previous != -1 {
			t.Fatalf("%s: events %v, want one coordinator-found", g, evs)
		}
		spread[b.ID]++
		// Known now: no FindCoordinator again.
		if _, evs, _ := cl.Coordinator(ctx, g); len(evs) != 0 {
			t.Fatalf("%s asked again: %v", g, evs)
		}
	}
	if len(spread) != 3 {
		t.Fatalf("30 groups' coordinators on %d brokers (%v): the test needs all three", len(spread), spread)
	}

	// Route a join of one group per broker.
	joined := map[int32]bool{}
	for i := 0; len(joined) < 3; i++ {
		g := fmt.Sprintf("group-%d", i)
		coord := kc.CoordinatorFor(g)
		if joined[coord] {
			continue
		}
		joined[coord] = true
		r, evs := hb(t, cl, testreq.Join(g, fmt.Sprintf("member-%d", i), 30000, "t"))
		if len(evs) != 0 || r.MemberEpoch < 1 {
			t.Fatalf("%s: events %v, epoch %d", g, evs, r.MemberEpoch)
		}
		other := (coord + 1) % 3
		resp, err := cl.RoundTripTo(ctx, other, 1, testreq.Heartbeat(g, fmt.Sprintf("member-%d", i), r.MemberEpoch, "-"))
		if err != nil {
			t.Fatal(err)
		}
		if code := resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode; code != codec.NotCoordinator {
			t.Fatalf("%s at broker %d (coordinator %d): %v, want NOT_COORDINATOR", g, other, coord, code)
		}
	}

	hs := rec.headers(t)
	n := 0
	for _, conns := range hs {
		n += len(conns)
	}
	if len(hs) != 3 || n != 4 { // one per broker, and the bootstrap address's own
		t.Fatalf("%d connections to %d addresses, want one per broker and the bootstrap's: %v", n, len(hs), hs)
	}
	for addr, conns := range hs {
		for _, conn := range conns {
			for i, h := range conn {
				if h.ClientId.Valid != (i == 0) || (i == 0 && h.ClientId.Value != "cluster-test") {
					t.Errorf("%s request %d (%v): ClientId %+v, want it on the first request only", addr, i, h.RequestApiKey, h.ClientId)
				}
				if hv, _ := h.HeaderVersion(); hv == 2 && (!h.ClientInstanceId.Valid || h.ClientInstanceId.UUID != cl.InstanceID()) {
					t.Errorf("%s request %d (%v): instance id %+v, want the cluster's %v", addr, i, h.RequestApiKey, h.ClientInstanceId, cl.InstanceID())
				}
			}
		}
	}
}

// kfake moves coordinators on RehashCoordinators: the next heartbeat of a
// member gets NOT_COORDINATOR from the old coordinator; the cluster
// forgets it, finds the new one and sends the heartbeat there at once,
// and says so in three events. The member is still there (kfake keeps
// the group across the move).
func TestClusterCoordinatorMove(t *testing.T) {
	kc, cl := threeBrokers(t, 3, nil)
	const g = "moving"
	r, _ := hb(t, cl, testreq.Join(g, "m1", 30000, "t"))
	old := kc.CoordinatorFor(g)
	for i := 0; kc.CoordinatorFor(g) == old; i++ {
		if i == 100 {
			t.Fatal("the coordinator did not move in 100 rehashes")
		}
		kc.RehashCoordinators()
	}
	moved := kc.CoordinatorFor(g)
	r2, evs := hb(t, cl, testreq.Heartbeat(g, "m1", r.MemberEpoch, "-"))
	if r2.MemberEpoch != r.MemberEpoch {
		t.Fatalf("epoch %d after the move, want %d kept", r2.MemberEpoch, r.MemberEpoch)
	}
	want := []wire.EventKind{wire.CoordinatorError, wire.Retry, wire.CoordinatorFound}
	if !slices.Equal(kinds(evs), want) {
		t.Fatalf("events %v, want %v", evs, want)
	}
	if e := evs[0]; e.Code != codec.NotCoordinator || e.Broker != old || !e.Forgot || e.API != codec.ConsumerGroupHeartbeat {
		t.Fatalf("first event %+v", e)
	}
	if e := evs[1]; e.Attempt != 1 || e.Wait != 0 {
		t.Fatalf("the retry after a move waits %v (attempt %d), want at once", e.Wait, e.Attempt)
	}
	if e := evs[2]; e.Broker != moved || e.Previous != old {
		t.Fatalf("found %+v, want broker %d replacing %d", e, moved, old)
	}
	t.Logf("events: %v", evs)
}

// COORDINATOR_LOAD_IN_PROGRESS keeps the coordinator and retries after a
// backoff; the answer after it is the one returned.
func TestClusterLoadInProgress(t *testing.T) {
	kc, cl := threeBrokers(t, 3, nil)
	const g = "loading"
	if _, _, err := cl.Coordinator(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	loads := 2
	kc.ControlKey(int16(kmsg.ConsumerGroupHeartbeat), func(req kmsg.Request) (kmsg.Response, error, bool) {
		resp := req.(*kmsg.ConsumerGroupHeartbeatRequest).ResponseKind().(*kmsg.ConsumerGroupHeartbeatResponse)
		resp.ErrorCode = int16(codec.CoordinatorLoadInProgress)
		if loads--; loads > 0 {
			kc.KeepControl()
		} else {
			kc.DropControl() // KeepControl stays set on the function otherwise
		}
		return resp, nil, true
	})
	_, evs := hb(t, cl, testreq.Join(g, "m1", 30000, "t"))
	want := []wire.EventKind{wire.CoordinatorError, wire.Retry, wire.CoordinatorError, wire.Retry}
	if !slices.Equal(kinds(evs), want) {
		t.Fatalf("events %v, want %v", evs, want)
	}
	for _, e := range evs {
		if e.Kind == wire.CoordinatorError && (e.Code != codec.CoordinatorLoadInProgress || e.Forgot) {
			t.Fatalf("%+v: want LOAD_IN_PROGRESS with the coordinator kept", e)
		}
		if e.Kind == wire.Retry && (e.Wait <= 0 || e.Wait > fastBackoff.Max) {
			t.Fatalf("%+v: want a backoff in (0, %v]", e, fastBackoff.Max)
		}
	}
}

// A broker that closes the connection with a request on it: the request
// is not sent again (it may have been applied), the error says its
// outcome is unknown, the coordinator is forgotten; the next request
// dials again and is served.
func TestClusterConnectionClosedByBroker(t *testing.T) {
	rec := &recorder{}
	kc, cl := threeBrokers(t, 3, rec)
	const g = "dropped"
	r, _ := hb(t, cl, testreq.Join(g, "m1", 30000, "t"))
	kc.ControlKey(int16(kmsg.ConsumerGroupHeartbeat), func(kmsg.Request) (kmsg.Response, error, bool) {
		return nil, errors.New("drop the connection"), true
	})
	dials := rec.dials()
	_, evs, err := cl.RoundTrip(context.Background(), g, 1, testreq.Heartbeat(g, "m1", r.MemberEpoch, "-"))
	if !errors.Is(err, wire.ErrNoResponse) {
		t.Fatalf("got %v, want an unknown outcome", err)
	}
	if len(evs) != 1 || evs[0].Kind != wire.ConnectionLost || !evs[0].Forgot {
		t.Fatalf("events %v, want one connection-lost forgetting the coordinator", evs)
	}
	_, evs = hb(t, cl, testreq.Heartbeat(g, "m1", r.MemberEpoch, "-"))
	if !slices.Equal(kinds(evs), []wire.EventKind{wire.CoordinatorFound}) || rec.dials() != dials+1 {
		t.Fatalf("events %v, dials %d then %d: want the coordinator found again on a new connection", evs, dials, rec.dials())
	}
}

// A connection the broker closed while idle is found closed before the
// next request, dialled again, and the request sent once on the new one.
func TestClusterIdleConnectionRedialed(t *testing.T) {
	rec := &recorder{}
	_, cl := threeBrokers(t, 3, rec)
	const g = "idle"
	r, _ := hb(t, cl, testreq.Join(g, "m1", 30000, "t"))
	rec.eofAll()
	_, evs := hb(t, cl, testreq.Heartbeat(g, "m1", r.MemberEpoch, "-"))
	if !slices.Equal(kinds(evs), []wire.EventKind{wire.Redialed}) {
		t.Fatalf("events %v, want one redialed", evs)
	}
}

// SASL and TLS on every broker of a cluster: the cluster authenticates
// each connection it makes; a wrong password fails Connect with ErrAuth.
func TestClusterWithSASLAndTLS(t *testing.T) {
	pki := nettest.NewPKI(t)
	kc := kfaketest.Start(t, kfake.NumBrokers(3), kfake.SeedTopics(1, "t"), kfake.TLS(pki.ServerConfig(false)),
		kfake.EnableSASL(), kfake.Superuser(codec.MechanismScramSHA256, "alice", testPassword))
	cfg, err := wire.TLSFiles{CAFile: pki.CAFile}.Config()
	if err != nil {
		t.Fatal(err)
	}
	o := wire.ClusterOptions{Dialer: wire.Dialer{Options: wire.Options{Timeout: 5 * time.Second}, TLS: cfg,
		SASL: &wire.SASL{Mechanism: codec.MechanismScramSHA256, User: "alice", Password: wire.NewSecret(testPassword)}}, Backoff: fastBackoff}
	ctx := context.Background()
	cl, err := wire.Connect(ctx, kc.ListenAddrs()[:1], o)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := range 6 {
		hb(t, cl, testreq.Join(fmt.Sprintf("g%d", i), "m", 30000, "t"))
	}
	o.Dialer.SASL = &wire.SASL{Mechanism: codec.MechanismScramSHA256, User: "alice", Password: wire.NewSecret("wrong")}
	if _, err := wire.Connect(ctx, kc.ListenAddrs(), o); !errors.Is(err, wire.ErrAuth) {
		t.Fatalf("a wrong password: %v, want ErrAuth", err)
	}
}

// Many groups heartbeating at once while each of them keeps moving every
// group's coordinator (kfake's RehashCoordinators between heartbeats):
// every heartbeat is accepted in the end (the moves are retried, each
// one an event), with the race detector watching the cluster's state.
func TestClusterConcurrentMoves(t *testing.T) {
	kc := kfaketest.Start(t, kfake.NumBrokers(3), kfake.SeedTopics(1, "t"))
	// A heartbeat meets NOT_COORDINATOR again only if a rehash came
	// between its tries: 160 rehashes in all cannot spend 200 retries.
	cl, err := wire.Connect(context.Background(), kc.ListenAddrs()[:1], wire.ClusterOptions{
		Dialer:  wire.Dialer{Options: wire.Options{Timeout: 5 * time.Second}},
		Backoff: wire.Backoff{Base: time.Millisecond, Max: 8 * time.Millisecond, MaxRetries: 200, MaxWait: 30 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var (
		wg    sync.WaitGroup
		moves atomic.Int32
	)
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := fmt.Sprintf("busy-%d", w)
			resp, _, err := cl.RoundTrip(context.Background(), g, 1, testreq.Join(g, "m", 30000, "t"))
			if err != nil {
				errs <- err
				return
			}
			epoch := resp.(*codec.ConsumerGroupHeartbeatResponse).MemberEpoch
			for range 20 {
				kc.RehashCoordinators()
				resp, evs, err := cl.RoundTrip(context.Background(), g, 1, testreq.Heartbeat(g, "m", epoch, "-"))
				if err != nil {
					errs <- fmt.Errorf("%s: %w", g, err)
					return
				}
				if code := resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode; code != codec.None {
					errs <- fmt.Errorf("%s: %v after %v", g, code, evs)
					return
				}
				for _, e := range evs {
					if e.Kind == wire.CoordinatorError && e.Code == codec.NotCoordinator {
						moves.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// 160 rehashes, each moving a group with probability 2/3: none moved
	// would mean the test tested nothing.
	if moves.Load() == 0 {
		t.Fatal("no heartbeat met NOT_COORDINATOR")
	}
	t.Logf("%d NOT_COORDINATOR answers retried", moves.Load())
}
