package model_test

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"testing"

	"github.com/google/uuid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
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

func newClient(t *testing.T, cfg model.ClientConfig) *model.Client {
	t.Helper()
	if cfg.Rand == nil {
		cfg.Rand = &countingReader{}
	}
	c, err := model.NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

func TestNewClientMakesItsIDs(t *testing.T) {
	// A version-4 UUID is 16 random bytes with byte 6's high nibble set to
	// 4 and byte 8's top bits to 10 (RFC 4122). From 00 01 .. 0f:
	wantInstance := codec.UUID{0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x46, 0x07, 0x88, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f}
	// ... and the member id from the next 16 bytes, 10 .. 1f, in canonical form.
	const wantMember = "10111213-1415-4617-9819-1a1b1c1d1e1f"

	v1 := newClient(t, model.ClientConfig{ClientID: "c", GroupID: group1, HeartbeatVersion: 1})
	if v1.InstanceID() != wantInstance {
		t.Errorf("v1 instance id %x, want %x (the first 16 bytes of Rand)", v1.InstanceID(), wantInstance)
	}
	if v1.MemberID() != wantMember {
		t.Errorf("v1 member id %q, want %q (made in NewClient from the next 16 bytes)", v1.MemberID(), wantMember)
	}
	v0 := newClient(t, model.ClientConfig{ClientID: "c", GroupID: group1, HeartbeatVersion: 0})
	if v0.InstanceID() != wantInstance || v0.MemberID() != "" {
		t.Errorf("v0 client: instance %x member %q, want %x and no member id (the broker makes it)", v0.InstanceID(), v0.MemberID(), wantInstance)
	}
	zero := newClient(t, model.ClientConfig{GroupID: group1, HeartbeatVersion: 1, Rand: zeroReader{}})
	if zero.InstanceID().IsZero() || model.IsZeroUUIDString(zero.MemberID()) {
		t.Errorf("from an all-zero source: instance %x member %q; neither may be the zero UUID", zero.InstanceID(), zero.MemberID())
	}
	if u, err := uuid.Parse(zero.MemberID()); err != nil || u.Version() != 4 {
		t.Errorf("member id %q is not a canonical v4 UUID: %v", zero.MemberID(), err)
	}
	a := newClient(t, model.ClientConfig{HeartbeatVersion: 1, Rand: seededReader(42)})
	b := newClient(t, model.ClientConfig{HeartbeatVersion: 1, Rand: seededReader(42)})
	c := newClient(t, model.ClientConfig{HeartbeatVersion: 1, Rand: seededReader(43)})
	if a.InstanceID() != b.InstanceID() || a.MemberID() != b.MemberID() {
		t.Error("two clients from the same seed made different ids")
	}
	if a.InstanceID() == c.InstanceID() || a.MemberID() == c.MemberID() {
		t.Error("two clients from different seeds made the same ids")
	}

	for _, bad := range []struct {
		name string
		cfg  model.ClientConfig
	}{
		{"no Rand", model.ClientConfig{HeartbeatVersion: 1}},
		{"HeartbeatVersion 2", model.ClientConfig{HeartbeatVersion: 2, Rand: &countingReader{}}},
		{"a Rand that runs dry", model.ClientConfig{HeartbeatVersion: 1, Rand: io.LimitReader(&countingReader{}, 20)}},
	} {
		if _, err := model.NewClient(bad.cfg); err == nil {
			t.Errorf("NewClient with %s: no error", bad.name)
		}
	}
}

func TestClientHeaders(t *testing.T) {
	c := newClient(t, model.ClientConfig{ClientID: "app", GroupID: group1, HeartbeatVersion: 1})
	conn := &model.ClientConn{}
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
		if err := model.CheckRequestHeader(&h, c.InstanceID(), "app", i == 0); err != nil {
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
	h := c.Header(&model.ClientConn{}, codec.ConsumerGroupHeartbeat, 1)
	if !h.ClientId.Valid || h.ClientId.Value != "app" {
		t.Errorf("a new connection's first request: ClientId %v, want %q again", h.ClientId, "app")
	}
	if err := model.CheckRequestHeader(&h, c.InstanceID(), "app", true); err != nil {
		t.Error(err)
	}
}

// CheckRequestHeader must catch each way a header can break KIP-1313.
func TestCheckRequestHeaderRejects(t *testing.T) {
	own := codec.UUID{1, 2, 3}
	good := func() codec.RequestHeader {
		return codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, ClientInstanceId: codec.SomeUUID(own)}
	}
	for _, c := range []struct {
		name  string
		h     func() codec.RequestHeader
		first bool
		rule  string
	}{
		{"header v2 without the instance id", func() codec.RequestHeader { h := good(); h.ClientInstanceId = codec.NullableUUID{}; return h }, false, "ClientInstanceIDInHeader"},
		{"header v2 with the zero UUID", func() codec.RequestHeader { h := good(); h.ClientInstanceId = codec.SomeUUID(codec.UUID{}); return h }, false, "NoZeroUUIDs"},
		{"header v2 with another client's id", func() codec.RequestHeader { h := good(); h.ClientInstanceId = codec.SomeUUID(codec.UUID{9}); return h }, false, "ClientInstanceIDInHeader"},
		{"a first request without ClientId", good, true, "ClientIDOnFirstRequest"},
		{"a first request with another ClientId", func() codec.RequestHeader { h := good(); h.ClientId = codec.Str("other"); return h }, true, "ClientIDOnFirstRequest"},
		{"a later request with a ClientId", func() codec.RequestHeader { h := good(); h.ClientId = codec.Str("app"); return h }, false, "ClientIDOnFirstRequest"},
	} {
		h := c.h()
		var v *model.Violation
		if err := model.CheckRequestHeader(&h, own, "app", c.first); !errors.As(err, &v) || v.Rule != c.rule {
			t.Errorf("%s: %v, want a %s violation", c.name, err, c.rule)
		}
	}
	h := codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 3, ClientId: codec.Str("app")}
	if err := model.CheckRequestHeader(&h, own, "app", true); err != nil {
		t.Errorf("a header v1 cannot carry the instance id: %v", err)
	}
}

// Against the reference coordinator: the member id a KIP-1082 client keeps
// for its whole life, and how each client answers what the broker says.
func TestClientMemberIDLifecycle(t *testing.T) {
	cfg := testConfig()
	cfg.SessionTimeoutMs = 1000
	for _, v := range []int16{0, 1} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			w := newWorld(t, cfg)
			p := w.spawn(model.ClientConfig{ClientID: "p", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: v}, 1)
			own := p.client.MemberID()
			mustOK := func(what string, r *codec.ConsumerGroupHeartbeatResponse) {
				t.Helper()
				if r.ErrorCode != codec.None {
					t.Fatalf("%s: %v %q", what, r.ErrorCode, r.ErrorMessage.Value)
				}
			}
			mustOK("join", w.heartbeat(p, false))
			joined := p.client.MemberID()
			if v == 1 && joined != own {
				t.Fatalf("after the join the member id is %q, want the client's own %q", joined, own)
			}
			if v == 0 && joined == "" {
				t.Fatal("a v0 client did not learn the broker's member id")
			}
			mustOK("heartbeat", w.heartbeat(p, false))
			mustOK("leave", w.leave(p, false))
			if p.client.MemberID() != joined || p.client.State() != model.Left {
				t.Fatalf("after leaving: id %q state %v, want %q and Left", p.client.MemberID(), p.client.State(), joined)
			}
			mustOK("rejoin", w.heartbeat(p, false))
			if p.client.MemberID() != joined {
				t.Fatalf("rejoined as %q, want %q (the id is kept across leave and rejoin)", p.client.MemberID(), joined)
			}
			// Make p's epoch stale: two members join on another topic (each
			// a new group epoch that p takes at once, nothing to revoke),
			// and p loses both responses that moved it on. Its epoch is
			// then neither the broker's nor the broker's previous one.
			q := w.spawn(model.ClientConfig{ClientID: "q", GroupID: group1, Topics: []string{"c"}, HeartbeatVersion: 1}, 2)
			mustOK("q joins", w.heartbeat(q, false))
			mustOK("p's heartbeat moves it on; the response is lost", w.heartbeat(p, true))
			r := w.spawn(model.ClientConfig{ClientID: "r", GroupID: group1, Topics: []string{"c"}, HeartbeatVersion: 1}, 3)
			mustOK("r joins", w.heartbeat(r, false))
			mustOK("p's retry, at its previous epoch, is accepted and moves it on again; lost too", w.heartbeat(p, true))
			if r := w.heartbeat(p, false); r.ErrorCode != codec.FencedMemberEpoch {
				t.Fatalf("stale heartbeat: %v, want FENCED_MEMBER_EPOCH", r.ErrorCode)
			}
			if p.client.MemberID() != joined || p.client.State() != model.Unjoined || len(p.client.Owned()) != 0 {
				t.Fatalf("after FENCED_MEMBER_EPOCH: id %q state %v owned %v; want the same id, Unjoined, nothing owned", p.client.MemberID(), p.client.State(), p.client.Owned())
			}
			req, _ := p.client.NextHeartbeat()
			if req.MemberEpoch != 0 || req.MemberId != joined {
				t.Fatalf("after a fence the client rejoins at epoch %d as %q, want 0 as %q", req.MemberEpoch, req.MemberId, joined)
			}
			p.client.OnHeartbeat(w.sendHeartbeat(p, req, p.client.HeartbeatVersion()))
			w.coord.Advance(w.coord.Now() + cfg.SessionTimeoutMs) // the session ends
			if r := w.heartbeat(p, false); r.ErrorCode != codec.UnknownMemberID {
				t.Fatalf("heartbeat after the session ended: %v, want UNKNOWN_MEMBER_ID", r.ErrorCode)
			}
			if v == 1 && p.client.MemberID() != own {
				t.Fatalf("a KIP-1082 client changed its member id on UNKNOWN_MEMBER_ID: %q, want %q", p.client.MemberID(), own)
			}
			if v == 0 && p.client.MemberID() != "" {
				t.Fatalf("a v0 client kept %q after UNKNOWN_MEMBER_ID; it forgets an id the broker no longer knows", p.client.MemberID())
			}
		})
	}
}

func TestClientRequests(t *testing.T) {
	cfgFor := func(v int16, instance string) model.ClientConfig {
		return model.ClientConfig{ClientID: "p", GroupID: group1, InstanceID: instance, Topics: []string{"b", "a"}, HeartbeatVersion: v, RebalanceTimeoutMs: 5000}
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
		if d := wireDiff(wantV, got, want); d != "" {
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
		if !sameParts(c.Owned(), hbParts("a0 a1 b1")) {
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
			if cl.State() != model.Closed {
				t.Errorf("state %v after Close, want Closed", cl.State())
			}
			cl.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("late"), MemberEpoch: 3})
			if cl.State() != model.Closed || cl.Epoch() != 0 {
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

// sameParts compares two partition lists as sets of (topic id, partition).
func sameParts(a, b []codec.ConsumerGroupHeartbeatTopicPartitions) bool {
	set := func(l []codec.ConsumerGroupHeartbeatTopicPartitions) map[string]bool {
		out := map[string]bool{}
		for _, t := range l {
			for _, p := range t.Partitions {
				out[fmt.Sprint(t.TopicId, p)] = true
			}
		}
		return out
	}
	return reflect.DeepEqual(set(a), set(b))
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

	c := newClient(t, model.ClientConfig{GroupID: group1, HeartbeatVersion: 1})
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
	old := newClient(t, model.ClientConfig{GroupID: group1, HeartbeatVersion: 0})
	old.OnApiVersions(advertise(cgh(1)))
	if old.HeartbeatVersion() != 0 {
		t.Errorf("a v0 client negotiated up to v%d", old.HeartbeatVersion())
	}
}

func TestPlanLeaveGroup(t *testing.T) {
	withReason := func(m codec.LeaveGroupMember) codec.LeaveGroupMember {
		m.Reason = codec.Str("scaling down")
		return m
	}
	members := []codec.LeaveGroupMember{withReason(lgMember("", "i1")), withReason(lgMember("m2", "")), withReason(lgMember("m3", "i3"))}
	for _, c := range []struct {
		brokerMax, want int16
	}{{5, 5}, {7, 5}, {4, 4}, {3, 3}} {
		t.Run(fmt.Sprintf("broker max v%d: one batch at v%d", c.brokerMax, c.want), func(t *testing.T) {
			calls, results := model.PlanLeaveGroup(group1, members, c.brokerMax)
			if len(calls) != 1 || calls[0].Version != c.want || fmt.Sprint(calls[0].Members) != "[0 1 2]" {
				t.Fatalf("calls %+v, want one at v%d carrying members [0 1 2]", calls, c.want)
			}
			want := &codec.LeaveGroupRequest{GroupId: group1, Members: []codec.LeaveGroupMember{lgMember("", "i1"), lgMember("m2", ""), lgMember("m3", "i3")}}
			if c.want >= 5 {
				want.Members = members // Reason exists from v5 only
			}
			if d := wireDiff(c.want, calls[0].Request, want); d != "" {
				t.Error(d)
			}
			if calls[0].Request.Members[0].Reason.Valid != (c.want >= 5) {
				t.Errorf("Reason kept: %v, want it only at v5", calls[0].Request.Members[0].Reason.Valid)
			}
			if fmt.Sprint(results) != fmt.Sprint([]codec.ErrorCode{codec.None, codec.None, codec.None}) {
				t.Errorf("results %v, want all pending (NONE)", results)
			}
		})
	}
	for _, max := range []int16{0, 1, 2} {
		t.Run(fmt.Sprintf("broker max v%d: one request per member id; instance ids cannot be expressed", max), func(t *testing.T) {
			calls, results := model.PlanLeaveGroup(group1, members, max)
			if len(calls) != 1 || calls[0].Version != max || fmt.Sprint(calls[0].Members) != "[1]" {
				t.Fatalf("calls %+v, want one v%d request for member 1", calls, max)
			}
			if d := wireDiff(max, calls[0].Request, &codec.LeaveGroupRequest{GroupId: group1, MemberId: "m2"}); d != "" {
				t.Error(d)
			}
			want := []codec.ErrorCode{codec.UnsupportedVersion, codec.None, codec.UnsupportedVersion}
			if fmt.Sprint(results) != fmt.Sprint(want) {
				t.Errorf("results %v, want %v", results, want)
			}
		})
	}
	t.Run("below v3 several dynamic members make several requests", func(t *testing.T) {
		calls, _ := model.PlanLeaveGroup(group1, []codec.LeaveGroupMember{lgMember("m1", ""), lgMember("m2", "")}, 2)
		if len(calls) != 2 || calls[0].Request.MemberId != "m1" || calls[1].Request.MemberId != "m2" {
			t.Errorf("calls %+v, want one per member id", calls)
		}
	})
}
