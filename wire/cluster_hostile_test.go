package wire_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/wire"
)

// fakeCluster is a one-broker cluster of a fakeBroker whose answers a
// test writes: Metadata lists what metadata returns (by default the
// broker itself as node 1), FindCoordinator answers what find returns
// for the request, ConsumerGroupHeartbeat what hb returns.
type fakeCluster struct {
	*fakeBroker
	host    string
	port    int32
	fcMax   int16 // FindCoordinator's highest version (0: 6, unless fcExact)
	fcExact bool
	// standalone: ApiVersions lists neither Metadata nor FindCoordinator
	// (a coordinator standing alone, as ghostcheck serve is).
	standalone bool
	metadata   func(fc *fakeCluster) []codec.MetadataResponseBroker
	find       func(fc *fakeCluster, v int16, req *codec.FindCoordinatorRequest) *codec.FindCoordinatorResponse
	hb         func(fc *fakeCluster) codec.ErrorCode
	finds      atomic.Int32
}

func startFakeCluster(t *testing.T, fc *fakeCluster) *fakeCluster {
	t.Helper()
	if fc.fcMax == 0 && !fc.fcExact {
		fc.fcMax = 6
	}
	if fc.metadata == nil {
		fc.metadata = func(fc *fakeCluster) []codec.MetadataResponseBroker {
			return []codec.MetadataResponseBroker{{NodeId: 1, Host: fc.host, Port: fc.port}}
		}
	}
	if fc.find == nil {
		fc.find = coordinatorIs(1)
	}
	if fc.hb == nil {
		fc.hb = func(*fakeCluster) codec.ErrorCode { return codec.None }
	}
	fc.fakeBroker = startBroker(t, func(r request) []byte {
		h := r.Header
		_, body, err := codec.DecodeRequest(r.Frame, codec.DecodeOptions{})
		if err != nil {
			t.Error(err)
			return nil
		}
		var m codec.Message
		switch h.RequestApiKey {
		case codec.ApiVersions:
			vs := codec.NewApiVersionsResponse()
			vs.ApiKeys = []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MaxVersion: 3}, {ApiKey: codec.Metadata, MaxVersion: 12},
				{ApiKey: codec.FindCoordinator, MaxVersion: fc.fcMax}, {ApiKey: codec.ConsumerGroupHeartbeat, MaxVersion: 1}}
			if fc.standalone {
				vs.ApiKeys = []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MaxVersion: 3}, {ApiKey: codec.ConsumerGroupHeartbeat, MaxVersion: 1}}
			}
			m = vs
		case codec.Metadata:
			md := codec.NewMetadataResponse()
			md.Brokers = fc.metadata(fc)
			m = md
		case codec.FindCoordinator:
			fc.finds.Add(1)
			m = fc.find(fc, h.RequestApiVersion, body.(*codec.FindCoordinatorRequest))
		case codec.ConsumerGroupHeartbeat:
			m = &codec.ConsumerGroupHeartbeatResponse{ErrorCode: fc.hb(fc), MemberEpoch: 1}
		default:
			return nil
		}
		return reply(t, h.CorrelationId, h.RequestApiVersion, m)
	})
	host, port, _ := net.SplitHostPort(fc.addr)
	p, _ := strconv.Atoi(port)
	fc.host, fc.port = host, int32(p)
	return fc
}

// coordinatorIs answers FindCoordinator with node at the fake's address,
// in the shape of the version asked.
func coordinatorIs(node int32) func(fc *fakeCluster, v int16, req *codec.FindCoordinatorRequest) *codec.FindCoordinatorResponse {
	return func(fc *fakeCluster, v int16, req *codec.FindCoordinatorRequest) *codec.FindCoordinatorResponse {
		return fcAnswer(v, req, codec.None, node, fc.host, fc.port)
	}
}

func fcAnswer(v int16, req *codec.FindCoordinatorRequest, code codec.ErrorCode, node int32, host string, port int32) *codec.FindCoordinatorResponse {
	if v < 4 {
		return &codec.FindCoordinatorResponse{ErrorCode: code, NodeId: node, Host: host, Port: port}
	}
	r := &codec.FindCoordinatorResponse{}
	for _, k := range req.CoordinatorKeys {
		r.Coordinators = append(r.Coordinators, codec.FindCoordinatorCoordinator{Key: k, ErrorCode: code, NodeId: node, Host: host, Port: port})
	}
	return r
}

func connectFake(t *testing.T, fc *fakeCluster, o wire.ClusterOptions) (*wire.Cluster, error) {
	t.Helper()
	o.Dialer.Timeout = 2 * time.Second
	if o.Backoff == (wire.Backoff{}) {
		o.Backoff = fastBackoff
	}
	cl, err := wire.Connect(context.Background(), []string{fc.addr}, o)
	if err == nil {
		t.Cleanup(func() { cl.Close() })
	}
	return cl, err
}

// What a Metadata answer may not hold is refused, naming it: no brokers,
// more than MaxBrokers, an impossible host, port or id, an id twice.
func TestClusterRefusesHostileMetadata(t *testing.T) {
	brokers := func(n int) func(*fakeCluster) []codec.MetadataResponseBroker {
		return func(fc *fakeCluster) []codec.MetadataResponseBroker {
			out := make([]codec.MetadataResponseBroker, n)
			for i := range out {
				out[i] = codec.MetadataResponseBroker{NodeId: int32(i), Host: fc.host, Port: fc.port}
			}
			return out
		}
	}
	one := func(b codec.MetadataResponseBroker) func(*fakeCluster) []codec.MetadataResponseBroker {
		return func(*fakeCluster) []codec.MetadataResponseBroker { return []codec.MetadataResponseBroker{b} }
	}
	cases := []struct {
		name string
		md   func(*fakeCluster) []codec.MetadataResponseBroker
		want string
	}{
		{"no broker", brokers(0), "lists no broker"},
		{"more than MaxBrokers", brokers(wire.DefaultMaxBrokers + 1), "more than the 1024 kept"},
		{"a host of 300 bytes", one(codec.MetadataResponseBroker{NodeId: 1, Host: strings.Repeat("h", 300), Port: 9092}), "host of 300 bytes"},
		{"an empty host", one(codec.MetadataResponseBroker{NodeId: 1, Port: 9092}), "host of 0 bytes"},
		{"port 70000", one(codec.MetadataResponseBroker{NodeId: 1, Host: "h", Port: 70000}), "port 70000 out of range"},
		{"port 0", one(codec.MetadataResponseBroker{NodeId: 1, Host: "h"}), "port 0 out of range"},
		{"a negative id", one(codec.MetadataResponseBroker{NodeId: -3, Host: "h", Port: 1}), "broker id -3 is negative"},
		{"an id twice", func(*fakeCluster) []codec.MetadataResponseBroker {
			return []codec.MetadataResponseBroker{{NodeId: 1, Host: "a", Port: 1}, {NodeId: 1, Host: "b", Port: 2}}
		}, "broker 1 is listed twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fc := startFakeCluster(t, &fakeCluster{metadata: tc.md})
			_, err := connectFake(t, fc, wire.ClusterOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// FindCoordinator is asked at the highest version both speak, a single
// key below v4 and a batch of the one group from v4 (KIP-699), and its
// answer read accordingly.
func TestClusterFindCoordinatorVersions(t *testing.T) {
	for v := int16(0); v <= 6; v++ {
		t.Run("v"+strconv.Itoa(int(v)), func(t *testing.T) {
			var asked *codec.FindCoordinatorRequest
			var askedAt int16
			fc := startFakeCluster(t, &fakeCluster{fcMax: v, fcExact: true,
				find: func(fc *fakeCluster, v int16, req *codec.FindCoordinatorRequest) *codec.FindCoordinatorResponse {
					asked, askedAt = req, v
					return coordinatorIs(1)(fc, v, req)
				}})
			cl, err := connectFake(t, fc, wire.ClusterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := cl.Coordinator(context.Background(), "grp")
			if err != nil || b.ID != 1 {
				t.Fatalf("coordinator %+v, %v", b, err)
			}
			var want codec.FindCoordinatorRequest
			if v >= 4 {
				want.CoordinatorKeys = []string{"grp"}
			} else {
				want.CoordinatorKey = "grp"
			}
			if askedAt != v || asked == nil || asked.CoordinatorKey != want.CoordinatorKey || !slices.Equal(asked.CoordinatorKeys, want.CoordinatorKeys) || asked.KeyType != 0 {
				t.Fatalf("asked v%d %+v, want v%d %+v", askedAt, asked, v, want)
			}
		})
	}
}

// A coordinator that keeps answering NOT_COORDINATOR, though
// FindCoordinator keeps naming it, is given up on after MaxRetries: the
// last answer comes back with a RetryError, and the events show each
// try, the first retry at once and the others after a backoff.
func TestClusterGivesUpOnNotCoordinator(t *testing.T) {
	fc := startFakeCluster(t, &fakeCluster{hb: func(*fakeCluster) codec.ErrorCode { return codec.NotCoordinator }})
	cl, err := connectFake(t, fc, wire.ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resp, evs, err := cl.RoundTrip(context.Background(), "g", 1, testreq.Join("g", "m", 30000, "t"))
	var re *wire.RetryError
	if !errors.As(err, &re) || !errors.Is(err, wire.ErrRetriesExhausted) || re.Retries != fastBackoff.MaxRetries {
		t.Fatalf("got %v, want a RetryError after %d retries", err, fastBackoff.MaxRetries)
	}
	if resp == nil || resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode != codec.NotCoordinator {
		t.Fatalf("the last answer %+v, want NOT_COORDINATOR", resp)
	}
	var retries []wire.Event
	for _, e := range evs {
		if e.Kind == wire.Retry {
			retries = append(retries, e)
		}
	}
	if len(retries) != fastBackoff.MaxRetries || evs[len(evs)-1].Kind != wire.GaveUp {
		t.Fatalf("events %v", evs)
	}
	if retries[0].Wait != 0 || retries[1].Wait == 0 {
		t.Fatalf("waits %v then %v: want the first at once, the next after a backoff", retries[0].Wait, retries[1].Wait)
	}
	if int(fc.finds.Load()) != fastBackoff.MaxRetries+1 {
		t.Fatalf("FindCoordinator asked %d times, want once per try (%d)", fc.finds.Load(), fastBackoff.MaxRetries+1)
	}
}

// COORDINATOR_NOT_AVAILABLE from FindCoordinator is waited out; another
// error code from it ends the call as a BrokerError, without retries.
func TestClusterFindCoordinatorErrors(t *testing.T) {
	var left atomic.Int32
	left.Store(2)
	fc := startFakeCluster(t, &fakeCluster{find: func(fc *fakeCluster, v int16, req *codec.FindCoordinatorRequest) *codec.FindCoordinatorResponse {
		if req.CoordinatorKeys[0] == "denied" {
			return fcAnswer(v, req, codec.GroupAuthorizationFailed, -1, "", -1)
		}
		if left.Add(-1) >= 0 {
			return fcAnswer(v, req, codec.CoordinatorNotAvailable, -1, "", -1)
		}
		return coordinatorIs(1)(fc, v, req)
	}})
	cl, err := connectFake(t, fc, wire.ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, evs, err := cl.Coordinator(context.Background(), "g")
	want := []wire.EventKind{wire.CoordinatorError, wire.Retry, wire.CoordinatorError, wire.Retry, wire.CoordinatorFound}
	if err != nil || !slices.Equal(kinds(evs), want) || evs[0].API != codec.FindCoordinator || evs[0].Code != codec.CoordinatorNotAvailable {
		t.Fatalf("%v, events %v; want %v", err, evs, want)
	}
	_, evs, err = cl.Coordinator(context.Background(), "denied")
	var be *wire.BrokerError
	if !errors.As(err, &be) || be.Code != codec.GroupAuthorizationFailed || len(evs) != 0 {
		t.Fatalf("%v, events %v; want GROUP_AUTHORIZATION_FAILED at once", err, evs)
	}
}

// FindCoordinator answers that cannot be used are events, and the call
// gives up within its budget: a v4+ answer without the group, a host,
// port or id out of range, one broker more than MaxBrokers.
func TestClusterBadFindCoordinatorAnswers(t *testing.T) {
	cases := []struct {
		name string
		find func(fc *fakeCluster, v int16, req *codec.FindCoordinatorRequest) *codec.FindCoordinatorResponse
		max  int
		want string
	}{
		{"no entry for the group", func(fc *fakeCluster, v int16, req *codec.FindCoordinatorRequest) *codec.FindCoordinatorResponse {
			return &codec.FindCoordinatorResponse{Coordinators: []codec.FindCoordinatorCoordinator{{Key: "other", NodeId: 1, Host: fc.host, Port: fc.port}}}
		}, 0, "no entry for the group"},
		{"a host too long", func(fc *fakeCluster, v int16, req *codec.FindCoordinatorRequest) *codec.FindCoordinatorResponse {
			return fcAnswer(v, req, codec.None, 1, strings.Repeat("x", 256), fc.port)
		}, 0, "host of 256 bytes"},
		{"a negative node", func(fc *fakeCluster, v int16, req *codec.FindCoordinatorRequest) *codec.FindCoordinatorResponse {
			return fcAnswer(v, req, codec.None, -1, fc.host, fc.port)
		}, 0, "broker id -1 is negative"},
		{"one broker too many", coordinatorIs(7), 1, "one more than the 1 kept"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fc := startFakeCluster(t, &fakeCluster{find: tc.find})
			cl, err := connectFake(t, fc, wire.ClusterOptions{MaxBrokers: tc.max})
			if err != nil {
				t.Fatal(err)
			}
			_, evs, err := cl.Coordinator(context.Background(), "g")
			if !errors.Is(err, wire.ErrRetriesExhausted) || evs[0].Kind != wire.BadAnswer || !strings.Contains(evs[0].Err, tc.want) {
				t.Fatalf("%v, events %v; want bad answers %q, then giving up", err, evs, tc.want)
			}
		})
	}
}

// A coordinator that cannot be reached (nothing sent) is forgotten and
// the call tried again after a backoff, until the budget runs out.
func TestClusterUnreachableCoordinator(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	fc := startFakeCluster(t, &fakeCluster{find: func(fc *fakeCluster, v int16, req *codec.FindCoordinatorRequest) *codec.FindCoordinatorResponse {
		return fcAnswer(v, req, codec.None, 9, fc.host, int32(dead))
	}})
	cl, err := connectFake(t, fc, wire.ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, evs, err := cl.RoundTrip(context.Background(), "g", 1, testreq.Join("g", "m", 30000, "t"))
	if !errors.Is(err, wire.ErrRetriesExhausted) {
		t.Fatalf("got %v (events %v)", err, evs)
	}
	want := []wire.EventKind{wire.CoordinatorFound, wire.BrokerUnreachable, wire.Retry}
	if !slices.Equal(kinds(evs[:3]), want) || evs[1].Broker != 9 || !evs[1].Forgot {
		t.Fatalf("events %v, want %v first", evs, want)
	}
}

// MaxWait bounds a call however many retries remain.
func TestClusterMaxWait(t *testing.T) {
	fc := startFakeCluster(t, &fakeCluster{hb: func(*fakeCluster) codec.ErrorCode { return codec.CoordinatorLoadInProgress }})
	b := wire.Backoff{Base: 40 * time.Millisecond, Max: 40 * time.Millisecond, Jitter: -1, MaxRetries: 1000, MaxWait: 150 * time.Millisecond}
	cl, err := connectFake(t, fc, wire.ClusterOptions{Backoff: b})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = cl.RoundTrip(context.Background(), "g", 1, testreq.Join("g", "m", 30000, "t"))
	var re *wire.RetryError
	if !errors.As(err, &re) || re.Retries > 3 || re.Waited > time.Second {
		t.Fatalf("got %v, want to give up within MaxWait (3 retries at most)", err)
	}
}

// A request at a version the coordinator does not offer is refused
// before sending; a closed cluster refuses everything.
func TestClusterRefusals(t *testing.T) {
	fc := startFakeCluster(t, &fakeCluster{})
	cl, err := connectFake(t, fc, wire.ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, _, err := cl.RoundTrip(ctx, "g", 5, testreq.Join("g", "m", 30000, "t")); !errors.Is(err, wire.ErrVersionNotOffered) {
		t.Fatalf("v5: %v", err)
	}
	cl.Close()
	if _, _, err := cl.RoundTrip(ctx, "g", 1, testreq.Join("g", "m", 30000, "t")); !errors.Is(err, wire.ErrClusterClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if _, err := wire.Connect(ctx, nil, wire.ClusterOptions{}); err == nil {
		t.Fatal("no bootstrap address was accepted")
	}
}

// A broker that offers no Metadata is a coordinator standing alone (as
// ghostcheck serve is): the cluster is that one broker, StandaloneID, and
// every group's requests go to it without a FindCoordinator, which it
// would not understand.
func TestClusterStandalone(t *testing.T) {
	fc := startFakeCluster(t, &fakeCluster{standalone: true})
	cl, err := connectFake(t, fc, wire.ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !cl.Standalone() {
		t.Error("Standalone() = false for a broker without Metadata")
	}
	if bs := cl.Brokers(); len(bs) != 1 || bs[0].ID != wire.StandaloneID || bs[0].Addr != fc.addr {
		t.Errorf("Brokers() = %v, want [{%d %s}]", bs, wire.StandaloneID, fc.addr)
	}
	for _, g := range []string{"g1", "g2"} {
		resp, evs, err := cl.RoundTrip(context.Background(), g, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: g, MemberId: "m", MemberEpoch: 1})
		if err != nil {
			t.Fatalf("group %s: %v (events %v)", g, err, evs)
		}
		if r := resp.(*codec.ConsumerGroupHeartbeatResponse); r.ErrorCode != codec.None {
			t.Errorf("group %s: %v", g, r.ErrorCode)
		}
		b, _, err := cl.Coordinator(context.Background(), g)
		if err != nil || b.ID != wire.StandaloneID {
			t.Errorf("Coordinator(%s) = %v, %v; want broker %d", g, b, err, wire.StandaloneID)
		}
	}
	if n := fc.finds.Load(); n != 0 {
		t.Errorf("%d FindCoordinator requests sent to a broker that does not offer it", n)
	}
}

// GroupErrorCode reads the code of every group api where it carries it:
// top-level, or the group's own entry of a describe.
func TestGroupErrorCode(t *testing.T) {
	nc := codec.NotCoordinator
	for _, tc := range []struct {
		resp codec.Message
		want codec.ErrorCode
	}{
		{&codec.ConsumerGroupHeartbeatResponse{ErrorCode: nc}, nc},
		{&codec.LeaveGroupResponse{ErrorCode: nc}, nc},
		{&codec.JoinGroupResponse{ErrorCode: nc}, nc},
		{&codec.SyncGroupResponse{ErrorCode: nc}, nc},
		{&codec.HeartbeatResponse{ErrorCode: nc}, nc},
		{&codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{{GroupId: "other"}, {GroupId: "g", ErrorCode: nc}}}, nc},
		{&codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{{GroupId: "other", ErrorCode: nc}}}, codec.None},
		{&codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{{GroupId: "g", ErrorCode: nc}}}, nc},
		{&codec.ApiVersionsResponse{ErrorCode: nc}, codec.None},
	} {
		if got := wire.GroupErrorCode(tc.resp, "g"); got != tc.want {
			t.Errorf("GroupErrorCode(%T) = %v, want %v", tc.resp, got, tc.want)
		}
	}
}
