package client_test

import (
	"fmt"
	"io"
	"sort"
	"testing"

	"github.com/google/uuid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// countingReader yields 0x00, 0x01, 0x02, ... so a test can write the
// UUIDs a client makes from it by hand.
type countingReader struct{ n byte }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.n
		r.n++
	}
	return len(p), nil
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func newClient(t *testing.T, cfg client.Config) *client.Client {
	t.Helper()
	if cfg.Rand == nil {
		cfg.Rand = &countingReader{}
	}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func TestNewMakesItsIDs(t *testing.T) {
	// A version-4 UUID is 16 random bytes with byte 6's high nibble set to
	// 4 and byte 8's top bits to 10 (RFC 4122). From 00 01 .. 0f:
	wantInstance := codec.UUID{0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x46, 0x07, 0x88, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f}
	// ... and the member id from the next 16 bytes, 10 .. 1f, in canonical form.
	const wantMember = "10111213-1415-4617-9819-1a1b1c1d1e1f"

	v1 := newClient(t, client.Config{ClientID: "c", GroupID: group1, HeartbeatVersion: 1})
	if v1.InstanceID() != wantInstance {
		t.Errorf("v1 instance id %x, want %x (the first 16 bytes of Rand)", v1.InstanceID(), wantInstance)
	}
	if v1.MemberID() != wantMember {
		t.Errorf("v1 member id %q, want %q (made in New from the next 16 bytes)", v1.MemberID(), wantMember)
	}
	v0 := newClient(t, client.Config{ClientID: "c", GroupID: group1, HeartbeatVersion: 0})
	if v0.InstanceID() != wantInstance || v0.MemberID() != "" {
		t.Errorf("v0 client: instance %x member %q, want %x and no member id (the broker makes it)", v0.InstanceID(), v0.MemberID(), wantInstance)
	}
	zero := newClient(t, client.Config{GroupID: group1, HeartbeatVersion: 1, Rand: zeroReader{}})
	if zero.InstanceID().IsZero() || rules.IsZeroUUIDString(zero.MemberID()) {
		t.Errorf("from an all-zero source: instance %x member %q; neither may be the zero UUID", zero.InstanceID(), zero.MemberID())
	}
	if u, err := uuid.Parse(zero.MemberID()); err != nil || u.Version() != 4 {
		t.Errorf("member id %q is not a canonical v4 UUID: %v", zero.MemberID(), err)
	}
	a := newClient(t, client.Config{HeartbeatVersion: 1, Rand: seededReader(42)})
	b := newClient(t, client.Config{HeartbeatVersion: 1, Rand: seededReader(42)})
	c := newClient(t, client.Config{HeartbeatVersion: 1, Rand: seededReader(43)})
	if a.InstanceID() != b.InstanceID() || a.MemberID() != b.MemberID() {
		t.Error("two clients from the same seed made different ids")
	}
	if a.InstanceID() == c.InstanceID() || a.MemberID() == c.MemberID() {
		t.Error("two clients from different seeds made the same ids")
	}

	for _, bad := range []struct {
		name string
		cfg  client.Config
	}{
		{"no Rand", client.Config{HeartbeatVersion: 1}},
		{"HeartbeatVersion 2", client.Config{HeartbeatVersion: 2, Rand: &countingReader{}}},
		{"a Rand that runs dry", client.Config{HeartbeatVersion: 1, Rand: io.LimitReader(&countingReader{}, 20)}},
		{"a regex subscription at v0", client.Config{HeartbeatVersion: 0, Regex: "a", Rand: &countingReader{}}},
	} {
		if _, err := client.New(bad.cfg); err == nil {
			t.Errorf("New with %s: no error", bad.name)
		}
	}
}

func TestClientHeaders(t *testing.T) {
	c := newClient(t, client.Config{ClientID: "app", GroupID: group1, HeartbeatVersion: 1})
	conn := &client.Conn{}
	requests := []struct {
		key      codec.APIKey
		version  int16
		headerV2 bool
	}{
		{codec.ApiVersions, 4, true},
		{codec.ConsumerGroupHeartbeat, 1, true},
		{codec.LeaveGroup, 3, false},
		{codec.ApiVersions, 2, false},
		{codec.LeaveGroup, 4, true},
		{codec.GetTelemetrySubscriptions, 1, true},
	}
	var lastCorr int32
	for i, r := range requests {
		h := c.Header(conn, r.key, r.version)
		what := fmt.Sprintf("request %d (%v v%d)", i, r.key, r.version)
		if err := rules.CheckRequestHeader(&h, c.InstanceID(), "app", i == 0); err != nil {
			t.Errorf("%s: %v", what, err)
		}
		if (i == 0) != h.ClientId.Valid || (i == 0 && h.ClientId.Value != "app") {
			t.Errorf("%s: ClientId %v, want %q on the connection's first request only", what, h.ClientId, "app")
		}
		if h.ClientInstanceId.Valid != r.headerV2 || (r.headerV2 && h.ClientInstanceId.UUID != c.InstanceID()) {
			t.Errorf("%s: ClientInstanceId %+v, want the client's own in every header v2 and none in v1", what, h.ClientInstanceId)
		}
		if h.RequestApiKey != r.key || h.RequestApiVersion != r.version || h.CorrelationId <= lastCorr {
			t.Errorf("%s: header %+v: key, version, or a correlation id that does not grow", what, h)
		}
		lastCorr = h.CorrelationId
		if hv, _ := h.HeaderVersion(); hv >= 1 {
			if _, err := h.AppendTo(nil, hv); err != nil {
				t.Errorf("%s: the header does not encode: %v", what, err)
			}
		}
	}
	h := c.Header(&client.Conn{}, codec.ConsumerGroupHeartbeat, 1)
	if !h.ClientId.Valid || h.ClientId.Value != "app" {
		t.Errorf("a new connection's first request: ClientId %v, want %q again", h.ClientId, "app")
	}
	if err := rules.CheckRequestHeader(&h, c.InstanceID(), "app", true); err != nil {
		t.Error(err)
	}
}

// An old-style client (before KIP-1313) sends its ClientId on every
// request, and after SetClientID the new one; a KIP-1313 client sends the
// new one only on a new connection's first request.
func TestClientIDEveryRequestAndRename(t *testing.T) {
	for _, every := range []bool{false, true} {
		c := newClient(t, client.Config{ClientID: "app", GroupID: group1, HeartbeatVersion: 1, ClientIDEveryRequest: every})
		conn := &client.Conn{}
		want := func(i int, h codec.RequestHeader, id string, carried bool) {
			t.Helper()
			if h.ClientId.Valid != carried || (carried && h.ClientId.Value != id) {
				t.Errorf("every=%v request %d: ClientId %v, want %q carried=%v", every, i, h.ClientId, id, carried)
			}
		}
		want(0, c.Header(conn, codec.ApiVersions, 4), "app", true)
		want(1, c.Header(conn, codec.ConsumerGroupHeartbeat, 1), "app", every)
		c.SetClientID("app-2")
		if c.ClientID() != "app-2" || c.Config().ClientID != "app" {
			t.Errorf("ClientID %q Config().ClientID %q, want the new one and the configured one", c.ClientID(), c.Config().ClientID)
		}
		want(2, c.Header(conn, codec.ConsumerGroupHeartbeat, 1), "app-2", every)
		want(3, c.Header(&client.Conn{}, codec.ApiVersions, 4), "app-2", true)
	}
}

func TestClientRequests(t *testing.T) {
	cfgFor := func(v int16, instance string) client.Config {
		return client.Config{ClientID: "p", GroupID: group1, InstanceID: instance, Topics: []string{"b", "a"}, HeartbeatVersion: v, RebalanceTimeoutMs: 5000}
	}
	joinReq := func(member, instance string) *codec.ConsumerGroupHeartbeatRequest {
		r := &codec.ConsumerGroupHeartbeatRequest{GroupId: group1, MemberId: member, RebalanceTimeoutMs: 5000,
			SubscribedTopicNames: []string{"b", "a"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
		if instance != "" {
			r.InstanceId = codec.Str(instance)
		}
		return r
	}
	wantReq := func(what string, got *codec.ConsumerGroupHeartbeatRequest, gotV int16, want *codec.ConsumerGroupHeartbeatRequest, wantV int16) {
		t.Helper()
		if gotV != wantV {
			t.Errorf("%s: version %d, want %d", what, gotV, wantV)
		}
		if d := codectest.WireDiff(wantV, got, want); d != "" {
			t.Errorf("%s:\n%s", what, d)
		}
	}
	t.Run("a lost join is retried as the same join with the same member id", func(t *testing.T) {
		c := newClient(t, cfgFor(1, ""))
		r1, v1 := c.NextHeartbeat()
		wantReq("the join", r1, v1, joinReq(c.MemberID(), ""), 1)
		c.OnHeartbeatLost()
		r2, v2 := c.NextHeartbeat()
		wantReq("the retry", r2, v2, joinReq(c.MemberID(), ""), 1)
	})
	t.Run("a lost heartbeat is retried in full at the same epoch", func(t *testing.T) {
		c := newClient(t, cfgFor(1, "i1"))
		c.NextHeartbeat()
		c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(c.MemberID()), MemberEpoch: 4, HeartbeatIntervalMs: 5000,
			Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: hbParts("a1 a0 b1")}})
		r, v := c.NextHeartbeat()
		plain := &codec.ConsumerGroupHeartbeatRequest{GroupId: group1, MemberId: c.MemberID(), MemberEpoch: 4, InstanceId: codec.Str("i1"),
			RebalanceTimeoutMs: -1, TopicPartitions: byTopicID(hbParts("a0 a1 b1"))}
		wantReq("a plain heartbeat reports the owned partitions", r, v, plain, 1)
		if dump(c.Owned()) != dump(byTopicID(hbParts("a0 a1 b1"))) {
			t.Errorf("owned after the response: %s, want a0 a1 b1", dump(c.Owned()))
		}
		c.OnHeartbeatLost()
		r, v = c.NextHeartbeat()
		full := *plain
		full.RebalanceTimeoutMs, full.SubscribedTopicNames = 5000, []string{"b", "a"}
		wantReq("the retry is full", r, v, &full, 1)
	})
	t.Run("a success at epoch 0 is followed by a join, not a plain heartbeat at epoch 0", func(t *testing.T) {
		// A member that takes over (or resumes) a parked static member
		// stays at epoch 0 while it revokes what it inherited (A5 step 3);
		// a request at epoch 0 is a join and must be full (§B3.4, §B4.2).
		c := newClient(t, cfgFor(1, "i1"))
		c.NextHeartbeat()
		c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(c.MemberID()), MemberEpoch: 0, HeartbeatIntervalMs: 5000,
			Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: hbParts("")}})
		r, v := c.NextHeartbeat()
		wantReq("a join", r, v, joinReq(c.MemberID(), "i1"), 1)
	})
	for _, c := range []struct {
		name     string
		v        int16
		instance string
		epoch    int32
	}{
		{"a dynamic v1 client closing before its join response leaves with its own id at -1", 1, "", -1},
		{"a static v1 client closing before its join response leaves with its own id at -2", 1, "i1", -2},
		{"a v0 client closing before its join response can only send an empty id (KAFKA-17116)", 0, "", -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newClient(t, cfgFor(c.v, c.instance))
			cl.NextHeartbeat()
			r, v := cl.Close()
			want := &codec.ConsumerGroupHeartbeatRequest{GroupId: group1, MemberId: cl.MemberID(), MemberEpoch: c.epoch,
				InstanceId: nullable(c.instance), RebalanceTimeoutMs: -1}
			if r == nil {
				t.Fatal("Close sent no leave")
			}
			wantReq("the leave", r, v, want, c.v)
			if cl.State() != client.Closed {
				t.Errorf("state %v after Close, want Closed", cl.State())
			}
			cl.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("late"), MemberEpoch: 3})
			if cl.State() != client.Closed || cl.Epoch() != 0 {
				t.Errorf("a late response after Close changed the client: %v epoch %d", cl.State(), cl.Epoch())
			}
		})
	}
	t.Run("Close sends nothing when the client is not a member", func(t *testing.T) {
		cl := newClient(t, cfgFor(1, ""))
		if r, _ := cl.Close(); r != nil {
			t.Errorf("Close before any join sent %+v", r)
		}
	})
	t.Run("a temporary leave is -2 for a static member and -1 for a dynamic one", func(t *testing.T) {
		for _, c := range []struct {
			instance string
			epoch    int32
		}{{"i1", -2}, {"", -1}} {
			cl := newClient(t, cfgFor(1, c.instance))
			cl.NextHeartbeat()
			cl.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(cl.MemberID()), MemberEpoch: 1})
			r, _ := cl.Leave(true)
			if r.MemberEpoch != c.epoch || r.MemberId != cl.MemberID() {
				t.Errorf("instance %q: leave at epoch %d as %q, want %d as %q", c.instance, r.MemberEpoch, r.MemberId, c.epoch, cl.MemberID())
			}
		}
	})
	t.Run("FENCED_INSTANCE_ID is fatal: no further request, no leave on close", func(t *testing.T) {
		fenced := &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.FencedInstanceID}
		for _, tc := range []struct {
			name   string
			answer func(cl *client.Client)
		}{
			{"to a join", func(cl *client.Client) { cl.OnHeartbeat(fenced) }},
			{"to a heartbeat", func(cl *client.Client) {
				cl.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(cl.MemberID()), MemberEpoch: 2,
					Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: hbParts("a0")}})
				cl.NextHeartbeat()
				cl.OnHeartbeat(fenced)
			}},
			{"to a leave", func(cl *client.Client) {
				cl.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(cl.MemberID()), MemberEpoch: 2})
				cl.Leave(true)
				cl.OnLeave(fenced)
			}},
		} {
			cl := newClient(t, cfgFor(1, "i1"))
			cl.NextHeartbeat()
			tc.answer(cl)
			if cl.State() != client.Fatal || len(cl.Owned()) != 0 || cl.Epoch() != 0 {
				t.Errorf("%s: %v epoch %d owning %s, want Fatal, epoch 0, nothing owned", tc.name, cl.State(), cl.Epoch(), dump(cl.Owned()))
			}
			if r, _ := cl.Close(); r != nil {
				t.Errorf("%s: Close after the fatal answer sent %+v", tc.name, r)
			}
		}
		// A late FENCED_INSTANCE_ID to a request the client gave up on
		// reached it all the same; any other late answer changes nothing.
		cl := newClient(t, cfgFor(1, "i1"))
		cl.NextHeartbeat()
		cl.OnHeartbeatLost()
		cl.OnAbandoned(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(cl.MemberID()), MemberEpoch: 3})
		if cl.State() != client.Joining {
			t.Errorf("after a late NONE: %v, want Joining", cl.State())
		}
		cl.OnAbandoned(fenced)
		if cl.State() != client.Fatal {
			t.Errorf("after a late FENCED_INSTANCE_ID: %v, want Fatal", cl.State())
		}
		// Another answer to a leave completes it: the client may join again.
		cl = newClient(t, cfgFor(1, "i1"))
		cl.NextHeartbeat()
		cl.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(cl.MemberID()), MemberEpoch: 2})
		cl.Leave(true)
		cl.OnLeave(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(cl.MemberID()), MemberEpoch: -2})
		if cl.State() != client.Left {
			t.Errorf("after an answered leave: %v, want Left", cl.State())
		}
	})
	t.Run("telemetry requests carry the id in the body at v0 only, never zero", func(t *testing.T) {
		cl := newClient(t, cfgFor(1, ""))
		if got := cl.GetTelemetrySubscriptions(0).ClientInstanceId; got != cl.InstanceID() {
			t.Errorf("v0 Get body id %x, want the client's own %x", got, cl.InstanceID())
		}
		if got := cl.GetTelemetrySubscriptions(1).ClientInstanceId; !got.IsZero() {
			t.Errorf("v1 Get body id %x; v1 has no such field", got)
		}
		p0, p1 := cl.PushTelemetry(0, 7, true, []byte{1}), cl.PushTelemetry(1, 7, false, nil)
		if p0.ClientInstanceId != cl.InstanceID() || !p1.ClientInstanceId.IsZero() || p0.SubscriptionId != 7 || !p0.Terminating {
			t.Errorf("push bodies v0 %+v v1 %+v", p0, p1)
		}
		for v, m := range map[int16]codec.Message{0: p0, 1: p1} {
			if _, err := m.AppendTo(nil, v); err != nil {
				t.Errorf("v%d push does not encode: %v", v, err)
			}
		}
	})
}

// byTopicID orders topics by id, the order Client.Owned documents.
func byTopicID(l []codec.ConsumerGroupHeartbeatTopicPartitions) []codec.ConsumerGroupHeartbeatTopicPartitions {
	sort.Slice(l, func(i, j int) bool { return string(l[i].TopicId[:]) < string(l[j].TopicId[:]) })
	return l
}

func TestClientVersionNegotiation(t *testing.T) {
	advertise := func(keys ...codec.ApiVersionsKey) *codec.ApiVersionsResponse {
		return apiVersionsResponse(codec.None, keys)
	}
	cgh := func(max int16) codec.ApiVersionsKey {
		return codec.ApiVersionsKey{ApiKey: codec.ConsumerGroupHeartbeat, MaxVersion: max}
	}
	lg := func(max int16) codec.ApiVersionsKey {
		return codec.ApiVersionsKey{ApiKey: codec.LeaveGroup, MaxVersion: max}
	}

	c := newClient(t, client.Config{GroupID: group1, HeartbeatVersion: 1})
	own := c.MemberID()
	if req, v := c.ApiVersionsRequest(); v != 4 || req.ClientSoftwareName == "" {
		t.Errorf("ApiVersions request v%d %+v, want v4 with a software name", v, req)
	}
	c.OnApiVersions(advertise(cgh(0), lg(2)))
	if c.HeartbeatVersion() != 0 {
		t.Errorf("against a v0 broker the client speaks v%d, want v0", c.HeartbeatVersion())
	}
	if max, ok := c.BrokerMaxVersion(codec.LeaveGroup); !ok || max != 2 {
		t.Errorf("BrokerMaxVersion(LeaveGroup) = %d, %v; want 2, true", max, ok)
	}
	if r, v := c.NextHeartbeat(); v != 0 || r.MemberId != own {
		t.Errorf("a KIP-1082 client on a v0 broker sends v%d as %q, want v0 with its own id %q", v, r.MemberId, own)
	}
	c.OnApiVersions(apiVersionsResponse(codec.UnsupportedVersion, []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MaxVersion: 3}}))
	if c.HeartbeatVersion() != 0 {
		t.Error("an ApiVersions error response changed the negotiated versions")
	}
	c.OnApiVersions(advertise(cgh(5), lg(5)))
	if c.HeartbeatVersion() != 1 {
		t.Errorf("against a newer broker the client speaks v%d, want its own highest, v1", c.HeartbeatVersion())
	}
	if _, ok := c.BrokerMaxVersion(codec.PushTelemetry); ok {
		t.Error("BrokerMaxVersion reports an api the broker did not advertise")
	}
	old := newClient(t, client.Config{GroupID: group1, HeartbeatVersion: 0})
	old.OnApiVersions(advertise(cgh(1)))
	if old.HeartbeatVersion() != 0 {
		t.Errorf("a v0 client negotiated up to v%d", old.HeartbeatVersion())
	}
}
