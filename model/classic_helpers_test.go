package model_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// The classic tests drive a coordinator through Handle, Advance and
// Restart over several connections, each request numbered (Conn.Delivery)
// so that the answers to held requests can be matched. Expected values
// are written by hand from docs/PROTOCOL.md B8 and A6.

// classicConfig is testConfig with small classic settings: sessions of 1 s
// to 10 min, a 3 s initial rebalance delay, a 5 min new-member timeout.
func classicConfig(c *model.Config) {
	c.ClassicMinSessionTimeoutMs = 1000
	c.ClassicMaxSessionTimeoutMs = 600000
	c.InitialRebalanceDelayMs = 3000
	c.NewMemberJoinTimeoutMs = 300000
}

type classicTest struct {
	t        *testing.T
	c        *model.Coordinator
	delivery uint64
	sent     map[uint64]bool
	// out holds the answers released so far, by delivery, until taken.
	out map[uint64]model.Release
}

func newClassicTest(t *testing.T, tweak ...func(*model.Config)) *classicTest {
	t.Helper()
	cfg := testConfig()
	classicConfig(&cfg)
	for _, f := range tweak {
		f(&cfg)
	}
	return &classicTest{t: t, c: model.NewCoordinator(cfg), sent: map[uint64]bool{}, out: map[uint64]model.Release{}}
}

// memberID is the id the coordinator makes with the n-th id of the
// counting source: prefix "-" the UUID's canonical text.
func memberID(prefix string, n int) string {
	return prefix + "-" + uuid.UUID(genID(n)).String()
}

// dyn is the n-th id made for a dynamic member of the test client.
func dyn(n int) string { return memberID(testClientID, n) }

// handle sends req on conn (ClientId on the connection's first request
// only) and returns the answer, or nil when the request is held; it
// collects what the coordinator released.
func (ct *classicTest) handle(conn uint64, version int16, req codec.Message) (codec.Message, uint64) {
	ct.t.Helper()
	ct.delivery++
	h := codec.RequestHeader{RequestApiKey: req.Key(), RequestApiVersion: version, CorrelationId: int32(ct.delivery)}
	if !ct.sent[conn] {
		h.ClientId = codec.Str(testClientID)
		ct.sent[conn] = true
	}
	resp, err := ct.c.Handle(model.Conn{ID: conn, Host: fmt.Sprintf("/10.0.0.%d", conn), Delivery: ct.delivery}, &h, req)
	ct.collect()
	switch {
	case errors.Is(err, model.ErrParked):
		return nil, ct.delivery
	case err != nil:
		ct.t.Fatalf("Handle(%v v%d): %v", req.Key(), version, err)
	}
	if _, err := resp.AppendTo(nil, version); err != nil {
		ct.t.Fatalf("the %v v%d response does not encode: %v\n%s", req.Key(), version, err, dump(resp))
	}
	return resp, ct.delivery
}

func (ct *classicTest) collect() {
	for _, r := range ct.c.Released() {
		if _, dup := ct.out[r.Delivery]; dup {
			ct.t.Fatalf("delivery %d released twice", r.Delivery)
		}
		ct.out[r.Delivery] = r
	}
}

// join sends a JoinGroup; the answer is nil while it is held.
func (ct *classicTest) join(conn uint64, version int16, r *codec.JoinGroupRequest) (*codec.JoinGroupResponse, uint64) {
	ct.t.Helper()
	resp, d := ct.handle(conn, version, r)
	if resp == nil {
		return nil, d
	}
	return resp.(*codec.JoinGroupResponse), d
}

func (ct *classicTest) sync(conn uint64, version int16, r *codec.SyncGroupRequest) (*codec.SyncGroupResponse, uint64) {
	ct.t.Helper()
	resp, d := ct.handle(conn, version, r)
	if resp == nil {
		return nil, d
	}
	return resp.(*codec.SyncGroupResponse), d
}

func (ct *classicTest) heartbeat(conn uint64, version int16, r *codec.HeartbeatRequest) codec.ErrorCode {
	ct.t.Helper()
	resp, _ := ct.handle(conn, version, r)
	return resp.(*codec.HeartbeatResponse).ErrorCode
}

func (ct *classicTest) advance(to int64) {
	ct.c.Advance(to)
	ct.collect()
}

func (ct *classicTest) restart() {
	ct.c.Restart()
	ct.collect()
}

// released takes the answer released for delivery d; it fails the test if
// there is none.
func (ct *classicTest) released(what string, d uint64) model.Release {
	ct.t.Helper()
	r, ok := ct.out[d]
	if !ok {
		ct.t.Fatalf("%s: delivery %d was not released (released: %v)", what, d, ct.out)
	}
	delete(ct.out, d)
	return r
}

// joined takes the JoinGroup answer released for delivery d.
func (ct *classicTest) joined(what string, d uint64) *codec.JoinGroupResponse {
	ct.t.Helper()
	r := ct.released(what, d)
	if r.Dropped {
		ct.t.Fatalf("%s: delivery %d was dropped", what, d)
	}
	return r.Response.(*codec.JoinGroupResponse)
}

func (ct *classicTest) synced(what string, d uint64) *codec.SyncGroupResponse {
	ct.t.Helper()
	r := ct.released(what, d)
	if r.Dropped {
		ct.t.Fatalf("%s: delivery %d was dropped", what, d)
	}
	return r.Response.(*codec.SyncGroupResponse)
}

// nothingReleased requires that no held request was answered.
func (ct *classicTest) nothingReleased(what string) {
	ct.t.Helper()
	if len(ct.out) > 0 {
		ct.t.Fatalf("%s: released %v", what, ct.out)
	}
}

// group is the snapshot of group id.
func (ct *classicTest) group(id string) rules.GroupSnapshot {
	ct.t.Helper()
	for _, g := range ct.c.Snapshot() {
		if g.GroupID == id {
			return g
		}
	}
	ct.t.Fatalf("no group %s", id)
	return rules.GroupSnapshot{}
}

// wantGroup checks a classic group's state, generation and members.
func (ct *classicTest) wantGroup(what, id, state string, generation int32, members ...string) {
	ct.t.Helper()
	g := ct.group(id)
	var got []string
	for _, m := range g.Members {
		got = append(got, m.MemberID)
	}
	if g.Kind != rules.KindClassic || g.Classic == nil || g.Classic.State != state || g.Classic.Generation != generation || g.Epoch != generation || fmt.Sprint(got) != fmt.Sprint(members) {
		ct.t.Fatalf("%s: group %s is %+v members %v, want %s generation %d members %v", what, id, g, got, state, generation, members)
	}
}

// joinReq is a consumer's JoinGroup: session 10 s, rebalance 20 s, one
// protocol per name given, its metadata the name.
func joinReq(group, member string, instance codec.NullableString, protocols ...string) *codec.JoinGroupRequest {
	r := &codec.JoinGroupRequest{GroupId: group, SessionTimeoutMs: 10000, RebalanceTimeoutMs: 20000, MemberId: member,
		GroupInstanceId: instance, ProtocolType: "consumer"}
	for _, p := range protocols {
		r.Protocols = append(r.Protocols, codec.JoinGroupRequestProtocol{Name: p, Metadata: []byte(p)})
	}
	return r
}

// wantJoin checks a JoinGroup answer field by field.
func wantJoin(t *testing.T, what string, got *codec.JoinGroupResponse, code codec.ErrorCode, generation int32, member, leader string, members ...string) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: held, want an answer", what)
	}
	var ids []string
	for _, m := range got.Members {
		ids = append(ids, m.MemberId)
	}
	if got.ErrorCode != code || got.GenerationId != generation || got.MemberId != member || got.Leader != leader || fmt.Sprint(ids) != fmt.Sprint(members) {
		t.Fatalf("%s: got %v generation %d member %q leader %q members %v\nwant %v generation %d member %q leader %q members %v",
			what, got.ErrorCode, got.GenerationId, got.MemberId, got.Leader, ids, code, generation, member, leader, members)
	}
}
