package server_test

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testConfig is a coordinator with two topics and a 1 s session.
func testCoordinator() *impl.Coordinator {
	return impl.New(impl.Config{
		Topics:              []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}, {Name: "beta", ID: model.TopicIDFor("beta"), Partitions: 3}},
		SessionTimeoutMs:    1000,
		HeartbeatIntervalMs: 100,
		Telemetry:           impl.TelemetryConfig{SubscriptionID: 1, TelemetryMaxBytes: 1 << 20, AcceptedCompressionTypes: []int8{0}, RequestedMetrics: []string{""}},
	})
}

// countingListener counts the writes made on the connections it accepts.
type countingListener struct {
	net.Listener
	writes atomic.Int64
	// sndbuf, when set, shrinks the server side's socket send buffer, so
	// a peer that does not read blocks the server's writes soon.
	sndbuf atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if n := l.sndbuf.Load(); n > 0 {
		c.(*net.TCPConn).SetWriteBuffer(int(n))
	}
	return &countingConn{Conn: c, n: &l.writes}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Write(b []byte) (int, error) {
	c.n.Add(1)
	return c.Conn.Write(b)
}

type harness struct {
	t     *testing.T
	srv   *server.Server
	ln    *countingListener
	addr  string
	done  chan error
	coord *impl.Coordinator
}

// start serves a fresh coordinator on 127.0.0.1 and shuts it down (and
// checks Serve's result) when the test ends.
func start(t *testing.T, mod func(*server.Config)) *harness {
	t.Helper()
	return startWith(t, testCoordinator(), mod)
}

// longSessions is testCoordinator with 60 s sessions, for tests whose
// members must outlive slow steps (the race detector).
func longSessions() *impl.Coordinator {
	return impl.New(impl.Config{
		Topics:              []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}, {Name: "beta", ID: model.TopicIDFor("beta"), Partitions: 3}},
		SessionTimeoutMs:    60000,
		HeartbeatIntervalMs: 100,
	})
}

func startWith(t *testing.T, coord *impl.Coordinator, mod func(*server.Config)) *harness {
	t.Helper()
	cfg := server.Config{Coordinator: coord}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, srv: srv, ln: &countingListener{Listener: l}, addr: l.Addr().String(), done: make(chan error, 1), coord: coord}
	go func() { h.done <- srv.Serve(h.ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-h.done; !errors.Is(err, server.ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return h
}

// client is a test client: one connection, its own ids.
type client struct {
	t  *testing.T
	w  *wire.Conn
	hm *wire.Headers
}

func (h *harness) dial() *client {
	h.t.Helper()
	w := servertest.Dial(h.t, h.addr)
	hm, err := wire.NewHeaders(codec.Str("server-test"), codec.UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	if err != nil {
		h.t.Fatal(err)
	}
	return &client{t: h.t, w: w, hm: hm}
}

func (c *client) header(key codec.APIKey, v int16) *codec.RequestHeader { return c.hm.Next(key, v) }

func (c *client) do(key codec.APIKey, v int16, req codec.Message) codec.Message {
	c.t.Helper()
	resp, err := c.w.RoundTrip(c.header(key, v), req)
	if err != nil {
		c.t.Fatalf("%v v%d: %v", key, v, err)
	}
	return resp
}

func (c *client) join(group, member string) *codec.ConsumerGroupHeartbeatResponse {
	c.t.Helper()
	r := c.do(codec.ConsumerGroupHeartbeat, 1, testreq.Join(group, member, 30000, "alpha", "beta")).(*codec.ConsumerGroupHeartbeatResponse)
	if r.ErrorCode != codec.None {
		c.t.Fatalf("join %s: %v %v", member, r.ErrorCode, r.ErrorMessage)
	}
	return r
}

func (c *client) describe(group string) codec.DescribedGroup {
	c.t.Helper()
	r := c.do(codec.ConsumerGroupDescribe, 1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group}}).(*codec.ConsumerGroupDescribeResponse)
	return r.Groups[0]
}

// expectClosed says the connection was closed with no response.
func (c *client) expectClosed(what string) {
	c.t.Helper()
	_, err := c.w.ReadFrame()
	if !errors.Is(err, wire.ErrConnClosed) {
		c.t.Fatalf("%s: want the connection closed without a response, got %v", what, err)
	}
}

func TestServesEveryAPIItAdvertises(t *testing.T) {
	h := start(t, nil)
	c := h.dial()
	av := c.do(codec.ApiVersions, 3, &codec.ApiVersionsRequest{ClientSoftwareName: "t", ClientSoftwareVersion: "1"}).(*codec.ApiVersionsResponse)
	want := h.coord.AdvertisedVersions()
	if av.ErrorCode != codec.None || len(av.ApiKeys) != len(want) {
		t.Fatalf("ApiVersions: %v %v, want exactly %v", av.ErrorCode, av.ApiKeys, want)
	}
	for i := range want {
		if av.ApiKeys[i].ApiKey != want[i].ApiKey || av.ApiKeys[i].MaxVersion != want[i].MaxVersion {
			t.Fatalf("ApiVersions advertises %v, want %v", av.ApiKeys, want)
		}
	}
	r := c.join("g", "m1")
	if r.MemberId.Value != "m1" || r.MemberEpoch < 1 || r.Assignment == nil {
		t.Fatalf("join: %+v", r)
	}
	hb := c.do(codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m1", r.MemberEpoch, "-")).(*codec.ConsumerGroupHeartbeatResponse)
	if hb.ErrorCode != codec.None || hb.HeartbeatIntervalMs != 100 {
		t.Fatalf("heartbeat: %+v", hb)
	}
	g := c.describe("g")
	if g.ErrorCode != codec.None || len(g.Members) != 1 || g.Members[0].MemberId != "m1" {
		t.Fatalf("describe: %+v", g)
	}
	// KIP-1313: the connection's first ClientId is remembered for the
	// join, which carried none.
	if g.Members[0].ClientId != "server-test" || g.Members[0].ClientHost != "/127.0.0.1" {
		t.Fatalf("describe shows ClientId %q host %q, want the connection's first ClientId and /127.0.0.1", g.Members[0].ClientId, g.Members[0].ClientHost)
	}
	lg := c.do(codec.LeaveGroup, 5, &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{{GroupInstanceId: codec.Str("nobody")}}}).(*codec.LeaveGroupResponse)
	if lg.ErrorCode != codec.None || len(lg.Members) != 1 || lg.Members[0].ErrorCode != codec.UnknownMemberID {
		t.Fatalf("LeaveGroup: %+v", lg)
	}
	gt := c.do(codec.GetTelemetrySubscriptions, 1, &codec.GetTelemetrySubscriptionsRequest{}).(*codec.GetTelemetrySubscriptionsResponse)
	if gt.ErrorCode != codec.None || gt.SubscriptionId != 1 {
		t.Fatalf("GetTelemetrySubscriptions v1: %+v", gt)
	}
	pt := c.do(codec.PushTelemetry, 1, &codec.PushTelemetryRequest{SubscriptionId: 1, Metrics: []byte("m")}).(*codec.PushTelemetryResponse)
	if pt.ErrorCode != codec.None {
		t.Fatalf("PushTelemetry v1: %+v", pt)
	}
	leave := c.do(codec.ConsumerGroupHeartbeat, 1, testreq.Leave("g", "m1", -1, "")).(*codec.ConsumerGroupHeartbeatResponse)
	if leave.ErrorCode != codec.None || leave.MemberEpoch != -1 {
		t.Fatalf("leave: %+v", leave)
	}
}

// §B7.1: an ApiVersions version the server does not know is answered with
// a v0 body, UNSUPPORTED_VERSION, and the ApiVersions range.
func TestApiVersionsUnknownVersion(t *testing.T) {
	h := start(t, nil)
	c := h.dial()
	hdr := c.header(codec.ApiVersions, 9)
	// The body of a version the server does not know is not parsed:
	// send one it could not parse at any version.
	b, _ := codec.BeginFrame(nil)
	b, err := hdr.AppendTo(b, 2)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, 0xff, 0xff, 0xff)
	b = codec.FinishFrame(b, 0)
	if err := c.w.WriteRaw(b); err != nil {
		t.Fatal(err)
	}
	frame, err := c.w.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	rh, resp, err := codec.DecodeResponse(frame, codec.ApiVersions, 0, codec.DecodeOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	r := resp.(*codec.ApiVersionsResponse)
	if rh.CorrelationId != hdr.CorrelationId || r.ErrorCode != codec.UnsupportedVersion || len(r.ApiKeys) != 1 || r.ApiKeys[0].ApiKey != codec.ApiVersions || r.ApiKeys[0].MaxVersion != 4 {
		t.Fatalf("got corr %d %+v, want UNSUPPORTED_VERSION with ApiVersions v0-v4", rh.CorrelationId, r)
	}
	// The connection stays usable.
	c.join("g", "m")
}

// Anything the server does not serve closes the connection without a
// response, after answering what came before it on that connection.
func TestUnservedRequestsCloseTheConnection(t *testing.T) {
	h := start(t, nil)
	cases := []struct {
		name  string
		frame func(c *client) []byte
	}{
		{"unknown api key", func(c *client) []byte { return rawFrame(1000, 0, c.hm.Corr()+1, nil) }},
		{"SaslHandshake (not served)", func(c *client) []byte { return rawFrame(17, 1, c.hm.Corr()+1, []byte{0, 5, 'P', 'L', 'A', 'I', 'N'}) }},
		{"ConsumerGroupHeartbeat v9", func(c *client) []byte { return rawFrame(68, 9, c.hm.Corr()+1, nil) }},
		{"negative version", func(c *client) []byte { return rawFrame(68, -1, c.hm.Corr()+1, nil) }},
		{"undecodable body", func(c *client) []byte { return rawFrame(69, 0, c.hm.Corr()+1, []byte{0x05}) }},
		{"empty frame", func(c *client) []byte { return []byte{0, 0, 0, 0} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := h.dial()
			// A good request first, pipelined with the bad one: the good
			// one is answered, then the connection closes.
			if err := c.w.Buffer(c.header(codec.ConsumerGroupDescribe, 1), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"x"}}); err != nil {
				t.Fatal(err)
			}
			if err := c.w.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := c.w.WriteRaw(tc.frame(c)); err != nil {
				t.Fatal(err)
			}
			if _, err := c.w.Receive(); err != nil {
				t.Fatalf("the request before the bad one: %v", err)
			}
			c.expectClosed(tc.name)
			h.dial().join("g-"+tc.name, "m") // the server still serves
		})
	}
}

// rawFrame builds a request frame with a header v2 and the given body.
func rawFrame(key, version int16, corr int32, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = append(b, 0xff, 0xff, 0) // null ClientId, no tags
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// Pipelined requests are answered in order, and a batch that arrives at
// once is answered with a few writes, not one per response.
func TestPipelinedRequestsAnsweredInOrderInFewWrites(t *testing.T) {
	h := start(t, nil)
	c := h.dial()
	r := c.join("g", "m")
	const n = 64
	before := h.ln.writes.Load()
	for i := 0; i < n; i++ {
		req := testreq.Heartbeat("g", "m", r.MemberEpoch, "-")
		if i%2 == 1 {
			if err := c.w.Buffer(c.header(codec.ConsumerGroupDescribe, 1), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := c.w.Buffer(c.header(codec.ConsumerGroupHeartbeat, 1), req); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.w.Flush(); err != nil {
		t.Fatal(err)
	}
	// Heartbeat responses are read with ReceiveInto into one reused
	// response, describes with Receive; both check the correlation id.
	var hb codec.ConsumerGroupHeartbeatResponse
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			if err := c.w.ReceiveInto(new(codec.ConsumerGroupDescribeResponse)); err == nil {
				t.Fatalf("response %d: ReceiveInto accepted a describe response for a heartbeat", i)
			}
			if err := c.w.ReceiveInto(&hb); err != nil {
				t.Fatalf("response %d: %v", i, err)
			}
			if hb.ErrorCode != codec.None || hb.MemberEpoch != r.MemberEpoch || hb.MemberId.Value != "m" {
				t.Fatalf("response %d: %+v", i, hb)
			}
			continue
		}
		resp, err := c.w.Receive()
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		if _, ok := resp.(*codec.ConsumerGroupDescribeResponse); !ok {
			t.Fatalf("response %d is %T: out of order", i, resp)
		}
	}
	if err := c.w.ReceiveInto(&hb); err == nil {
		t.Fatal("ReceiveInto with nothing pending succeeded")
	}
	if w := h.ln.writes.Load() - before; w > n/4 {
		t.Fatalf("%d pipelined requests took %d writes; want them batched", n, w)
	} else {
		t.Logf("%d pipelined responses in %d writes", n, w)
	}
}

// Shutdown answers every request that had arrived, then closes: also on a
// loaded machine, where answering them takes longer than the drain waits
// for more input (here 1 ms a request, 200 ms in all, four times
// drainWait; the drain once counted its wait from the shutdown, and a slow
// server dropped the requests it had not read by then: "broker closed the
// connection").
//
// A starved process is the third case: its read deadline can pass before
// the runtime polls the network, so a read times out with the requests
// already in the kernel's buffer (seen on a loaded CI machine under -race:
// not one response). The starved case makes the first read after the
// shutdown time out so.
func TestShutdownDrainsInFlightRequests(t *testing.T) {
	for _, c := range []struct {
		name    string
		delay   time.Duration
		starved bool
	}{
		{"unloaded", 0, false},
		{"answering slower than the drain waits", time.Millisecond, false},
		{"a read times out with the requests arrived", 0, true},
		{"slow and starved", time.Millisecond, true},
	} {
		t.Run(c.name, func(t *testing.T) { testShutdownDrains(t, c.delay, c.starved) })
	}
}

// starvingListener's connections, once starve is set, fail their first
// read under a short deadline (a drain's, not the idle or frame timeout)
// with a timeout, reading nothing: what a read gets when its deadline
// passed before the runtime saw the bytes that had arrived.
type starvingListener struct {
	net.Listener
	starve atomic.Bool
}

func (l *starvingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &starvingConn{Conn: c, l: l}, nil
}

type starvingConn struct {
	net.Conn
	l     *starvingListener
	short atomic.Bool // the read deadline set last is under a second away
}

func (c *starvingConn) SetReadDeadline(t time.Time) error {
	c.short.Store(!t.IsZero() && time.Until(t) < time.Second)
	return c.Conn.SetReadDeadline(t)
}

func (c *starvingConn) Read(b []byte) (int, error) {
	if c.short.Load() && c.l.starve.CompareAndSwap(true, false) {
		return 0, os.ErrDeadlineExceeded
	}
	return c.Conn.Read(b)
}

func testShutdownDrains(t *testing.T, delay time.Duration, starved bool) {
	coord := testCoordinator()
	srv, err := server.New(server.Config{Coordinator: coord})
	if err != nil {
		t.Fatal(err)
	}
	server.SetHandleDelay(srv, delay)
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &starvingListener{Listener: tl}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	w, err := wire.Dial(ln.Addr().String(), wire.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	waitFor(t, 2*time.Second, func() bool { return srv.Stats().Open == 1 }) // accepted
	const n = 200
	for i := 0; i < n; i++ {
		h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, CorrelationId: int32(i), ClientInstanceId: codec.SomeUUID(codec.UUID{1})}
		if err := w.Buffer(h, testreq.Join("g", "m"+string(rune('a'+i%26))+string(rune('a'+i/26)), 30000, "alpha", "beta")); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ln.starve.Store(starved)
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		resp, err := w.Receive()
		if err != nil {
			t.Fatalf("response %d of %d after shutdown: %v", i, n, err)
		}
		if r := resp.(*codec.ConsumerGroupHeartbeatResponse); r.ErrorCode != codec.None {
			t.Fatalf("response %d: %v", i, r.ErrorCode)
		}
	}
	if _, err := w.ReadFrame(); !errors.Is(err, wire.ErrConnClosed) {
		t.Fatalf("after the drain: %v, want closed", err)
	}
	if err := <-done; !errors.Is(err, server.ErrServerClosed) {
		t.Fatalf("Serve: %v", err)
	}
	if got := len(coord.Snapshot()[0].Members); got != n {
		t.Fatalf("%d members after the drain, want %d", got, n)
	}
}

// Session timeouts fire on the real clock. The member's 1 s session may
// end late on a loaded machine, never not at all: the test waits 10 s.
func TestSessionsExpireOnTheRealClock(t *testing.T) {
	h := start(t, nil)
	c := h.dial()
	c.join("g", "m")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if g := c.describe("g"); g.ErrorCode == codec.None && len(g.Members) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the member outlived its 1 s session by 9 s")
}

// A cap on connections: over it, a new connection is closed at once; the
// ones already open are served.
func TestConnectionCap(t *testing.T) {
	h := start(t, func(c *server.Config) { c.MaxConns = 3 })
	var cs []*client
	for i := 0; i < 3; i++ {
		c := h.dial()
		c.describe("g")
		cs = append(cs, c)
	}
	over := h.dial()
	if _, err := over.w.RoundTrip(over.header(codec.ConsumerGroupDescribe, 1), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}); !errors.Is(err, wire.ErrNoResponse) {
		t.Fatalf("a 4th connection over a cap of 3: %v, want it closed", err)
	}
	cs[0].describe("g")
	cs[0].w.Close()
	waitFor(t, 2*time.Second, func() bool { return h.srv.Stats().Open < 3 })
	h.dial().describe("g")
	if s := h.srv.Stats(); s.Refused != 1 {
		t.Fatalf("stats %+v, want 1 refused", s)
	}
}

func waitFor(t *testing.T, limit time.Duration, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("condition not reached in %v", limit)
}

// Close (not graceful) ends everything at once, even blocked connections.
func TestCloseEndsIdleConnections(t *testing.T) {
	coord := testCoordinator()
	srv, _ := server.New(server.Config{Coordinator: coord})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	var ws []*wire.Conn
	for i := 0; i < 10; i++ {
		w, err := wire.Dial(ln.Addr().String(), wire.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		ws = append(ws, w)
	}
	waitFor(t, 2*time.Second, func() bool { return srv.Stats().Open == 10 })
	srv.Close()
	<-done
	for _, w := range ws {
		if _, err := w.ReadFrame(); !errors.Is(err, wire.ErrConnClosed) {
			t.Fatalf("after Close: %v", err)
		}
	}
}

// Many goroutines over many connections: every response arrives, and the
// coordinator's state stays consistent (run under -race).
func TestConcurrentClients(t *testing.T) {
	h := start(t, nil)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		c := h.dial()
		member := "m" + string(rune('a'+i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := c.w.RoundTrip(c.header(codec.ConsumerGroupHeartbeat, 1), testreq.Join("g", member, 30000, "alpha", "beta"))
			if err != nil {
				t.Error(err)
				return
			}
			epoch := r.(*codec.ConsumerGroupHeartbeatResponse).MemberEpoch
			for j := 0; j < 50; j++ {
				r, err := c.w.RoundTrip(c.header(codec.ConsumerGroupHeartbeat, 1), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: member, MemberEpoch: epoch, RebalanceTimeoutMs: -1, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}})
				if err != nil {
					t.Error(err)
					return
				}
				hb := r.(*codec.ConsumerGroupHeartbeatResponse)
				if hb.ErrorCode == codec.None {
					epoch = hb.MemberEpoch
				}
			}
		}()
	}
	wg.Wait()
	if err := h.coord.CheckInternal(); err != nil {
		t.Fatal(err)
	}
}

// A frame larger than the connection's read buffer (but under the
// maximum) is read whole and answered, and pipelined small requests
// around it are answered in order.
func TestLargeFrame(t *testing.T) {
	h := start(t, nil)
	c := h.dial()
	gt := c.do(codec.GetTelemetrySubscriptions, 1, &codec.GetTelemetrySubscriptionsRequest{}).(*codec.GetTelemetrySubscriptionsResponse)
	if gt.ErrorCode != codec.None {
		t.Fatal(gt.ErrorCode)
	}
	big := make([]byte, 300<<10)
	for i := range big {
		big[i] = byte(i)
	}
	if err := c.w.Buffer(c.header(codec.ConsumerGroupDescribe, 1), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.w.Buffer(c.header(codec.PushTelemetry, 1), &codec.PushTelemetryRequest{SubscriptionId: gt.SubscriptionId, Metrics: big}); err != nil {
		t.Fatal(err)
	}
	if err := c.w.Buffer(c.header(codec.ConsumerGroupDescribe, 1), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.w.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		resp, err := c.w.Receive()
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		if p, ok := resp.(*codec.PushTelemetryResponse); ok && p.ErrorCode != codec.None {
			t.Fatalf("push of %d bytes: %v", len(big), p.ErrorCode)
		}
	}
}
