package members

import (
	"crypto/rand"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/wire"
)

// serve starts ghostcheck's server on 127.0.0.1 with the given version caps
// until the test ends.
func serve(t *testing.T, maxVersions map[codec.APIKey]int16) (string, *server.Server) {
	t.Helper()
	coord := impl.New(impl.Config{
		Topics:              []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 4}},
		SessionTimeoutMs:    30000,
		HeartbeatIntervalMs: 1000,
		MaxVersions:         maxVersions,
	})
	return servertest.Start(t, coord, server.Config{})
}

// consumer is a KIP-1082 client process on its own connection.
type consumer struct {
	t    *testing.T
	c    *client.Client
	w    *wire.Conn
	conn *client.Conn
}

func join(t *testing.T, addr, clientID, instance string) *consumer {
	t.Helper()
	c, err := client.New(client.Config{ClientID: clientID, GroupID: "orders", InstanceID: instance, Topics: []string{"alpha"},
		HeartbeatVersion: 1, RebalanceTimeoutMs: 10000, Rand: rand.Reader})
	if err != nil {
		t.Fatal(err)
	}
	k := &consumer{t: t, c: c, w: servertest.Dial(t, addr), conn: &client.Conn{}}
	k.heartbeat() // join
	k.heartbeat() // take the assignment
	return k
}

func (k *consumer) send(req *codec.ConsumerGroupHeartbeatRequest, v int16) *codec.ConsumerGroupHeartbeatResponse {
	k.t.Helper()
	h := k.c.Header(k.conn, codec.ConsumerGroupHeartbeat, v)
	resp, err := k.w.RoundTrip(&h, req)
	if err != nil {
		k.t.Fatal(err)
	}
	return resp.(*codec.ConsumerGroupHeartbeatResponse)
}

func (k *consumer) heartbeat() {
	k.t.Helper()
	req, v := k.c.NextHeartbeat()
	resp := k.send(req, v)
	if resp.ErrorCode != codec.None {
		k.t.Fatalf("%s: heartbeat: %s %s", k.c.Config().ClientID, resp.ErrorCode, resp.ErrorMessage)
	}
	k.c.OnHeartbeat(resp)
}

func (k *consumer) park() {
	k.t.Helper()
	req, v := k.c.Leave(true)
	if resp := k.send(req, v); resp.ErrorCode != codec.None || resp.MemberEpoch != -2 {
		k.t.Fatalf("static leave: %s epoch %d", resp.ErrorCode, resp.MemberEpoch)
	}
}

func opts(addr string) Options { return Options{Bootstrap: []string{addr}, Timeout: 5 * time.Second} }

// list shows exactly what the coordinator holds.
func TestListShowsWhatTheCoordinatorHolds(t *testing.T) {
	addr, srv := serve(t, nil)
	a := join(t, addr, "app-a", "inst-a")
	b := join(t, addr, "app-b", "")
	c := join(t, addr, "app-c", "inst-c")
	a.heartbeat()
	b.heartbeat()
	c.park()

	g, err := List(opts(addr), "orders")
	if err != nil {
		t.Fatal(err)
	}
	snap := srv.Coordinator().Snapshot()
	if len(snap) != 1 || len(snap[0].Members) != len(g.Members) {
		t.Fatalf("listed %d members, the coordinator holds %+v", len(g.Members), snap)
	}
	if g.GroupEpoch != snap[0].Epoch || g.AssignmentEpoch != snap[0].Epoch {
		t.Fatalf("epochs %d/%d, coordinator %d", g.GroupEpoch, g.AssignmentEpoch, snap[0].Epoch)
	}
	for i, m := range g.Members {
		s := snap[0].Members[i]
		if m.MemberID != s.MemberID || m.InstanceID != s.InstanceID || m.Epoch != s.Epoch {
			t.Errorf("member %d listed as %s/%s@%d, held as %s/%s@%d", i, m.MemberID, m.InstanceID, m.Epoch, s.MemberID, s.InstanceID, s.Epoch)
		}
		var owned []string
		for _, p := range s.Assigned {
			owned = append(owned, p.Topic+"-"+itoa(p.Partition))
		}
		if strings.Join(owned, ",") != strings.Join(m.Owned, ",") {
			t.Errorf("%s owns %v, held %v", m.MemberID, m.Owned, owned)
		}
		if m.ClientHost != "/127.0.0.1" {
			t.Errorf("%s host %q, want /127.0.0.1", m.MemberID, m.ClientHost)
		}
	}
	want := map[string]string{a.c.MemberID(): "app-a", b.c.MemberID(): "app-b", c.c.MemberID(): "app-c"}
	for _, m := range g.Members {
		if want[m.MemberID] != m.ClientID {
			t.Errorf("%s client id %q, want %q", m.MemberID, m.ClientID, want[m.MemberID])
		}
		if m.MemberID == c.c.MemberID() && m.State != StateParked {
			t.Errorf("the parked member shows %s, want %s", m.State, StateParked)
		}
	}
	table := Table(g)
	for _, s := range []string{"MEMBER ID", c.c.MemberID(), StateParked, "inst-a", "group epoch"} {
		if !strings.Contains(table, s) {
			t.Errorf("the table lacks %q:\n%s", s, table)
		}
	}
}

func TestListUnknownGroupIsGroupIDNotFound(t *testing.T) {
	addr, _ := serve(t, nil)
	_, err := List(opts(addr), "nobody")
	var be *BrokerError
	if !errors.As(err, &be) || be.Code != codec.GroupIDNotFound {
		t.Fatalf("err %v, want GROUP_ID_NOT_FOUND", err)
	}
	if !strings.Contains(err.Error(), "GROUP_ID_NOT_FOUND") || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("the error should give the name and its meaning: %v", err)
	}
}

// remove of a parked member, an active one, an unknown instance id, and a
// batch mixing them.
func TestRemove(t *testing.T) {
	addr, srv := serve(t, nil)
	parked := join(t, addr, "app-p", "inst-p")
	active := join(t, addr, "app-x", "inst-x")
	dynamic := join(t, addr, "app-d", "")
	parked.park()

	v, rs, err := Remove(opts(addr), "orders", Who{InstanceIDs: []string{"inst-p", "inst-x", "inst-unknown"}}, "decommissioned")
	if err != nil {
		t.Fatal(err)
	}
	if v != 5 {
		t.Errorf("LeaveGroup v%d, want v5 (the highest both speak)", v)
	}
	want := []struct {
		id     string
		member string
		code   codec.ErrorCode
	}{{"inst-p", parked.c.MemberID(), codec.None}, {"inst-x", active.c.MemberID(), codec.None}, {"inst-unknown", "", codec.UnknownMemberID}}
	for i, w := range want {
		if rs[i].InstanceID != w.id || rs[i].Code != w.code || rs[i].MemberID != w.member {
			t.Errorf("result %d: %+v, want %s %s %s", i, rs[i], w.id, w.member, w.code)
		}
	}
	snap := srv.Coordinator().Snapshot()
	if len(snap[0].Members) != 1 || snap[0].Members[0].MemberID != dynamic.c.MemberID() {
		t.Fatalf("after removal the group holds %+v, want only the dynamic member", snap[0].Members)
	}
	// Removing again: both are gone now.
	_, rs, err = Remove(opts(addr), "orders", Who{InstanceIDs: []string{"inst-p"}}, "")
	if err != nil || rs[0].Code != codec.UnknownMemberID || rs[0].Removed() {
		t.Fatalf("second removal: %+v %v, want UNKNOWN_MEMBER_ID", rs, err)
	}
}

// Against a broker whose LeaveGroup stops below v3, remove refuses and sends
// nothing but its ApiVersions.
func TestRemoveRefusesBelowV3(t *testing.T) {
	addr, srv := serve(t, map[codec.APIKey]int16{codec.LeaveGroup: 2})
	k := join(t, addr, "app", "inst-1")
	before := srv.Stats().Requests
	_, _, err := Remove(opts(addr), "orders", Who{InstanceIDs: []string{"inst-1"}}, "")
	if !errors.Is(err, ErrNeedsV3) {
		t.Fatalf("err %v, want ErrNeedsV3", err)
	}
	if got := srv.Stats().Requests - before; got != 1 {
		t.Fatalf("the broker answered %d requests, want only the ApiVersions", got)
	}
	if snap := srv.Coordinator().Snapshot(); len(snap[0].Members) != 1 || snap[0].Members[0].MemberID != k.c.MemberID() {
		t.Fatalf("the member must still be there: %+v", snap)
	}
}

// remove by member id: a dynamic member, a static one by its member id,
// an unknown id, beside an instance id, in one v5 batch (Kafka 4.0's
// LeaveGroup, docs/PROTOCOL.md A3.1); the group epoch moves once.
func TestRemoveByMemberID(t *testing.T) {
	addr, srv := serve(t, nil)
	dynamic := join(t, addr, "app-d", "")
	static := join(t, addr, "app-s", "inst-s")
	byInstance := join(t, addr, "app-i", "inst-i")
	stays := join(t, addr, "app-x", "")
	epoch := srv.Coordinator().Snapshot()[0].Epoch

	v, rs, err := Remove(opts(addr), "orders", Who{InstanceIDs: []string{"inst-i"}, MemberIDs: []string{dynamic.c.MemberID(), static.c.MemberID(), "no-such-member"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if v != 5 {
		t.Errorf("LeaveGroup v%d, want v5", v)
	}
	want := []Removal{
		{InstanceID: "inst-i", MemberID: byInstance.c.MemberID(), Code: codec.None},
		{MemberID: dynamic.c.MemberID(), Code: codec.None},
		{MemberID: static.c.MemberID(), Code: codec.None},
		{MemberID: "no-such-member", Code: codec.UnknownMemberID},
	}
	if len(rs) != len(want) {
		t.Fatalf("%d results, want %d: %+v", len(rs), len(want), rs)
	}
	for i, w := range want {
		if rs[i].InstanceID != w.InstanceID || rs[i].MemberID != w.MemberID || rs[i].Code != w.Code || rs[i].Removed() != (w.Code == codec.None) {
			t.Errorf("result %d: %+v, want %s/%s %s", i, rs[i], w.InstanceID, w.MemberID, w.Code)
		}
	}
	if rs[3].Meaning == "" || rs[0].Meaning != "" {
		t.Errorf("meanings: %q for a failure, %q for a success", rs[3].Meaning, rs[0].Meaning)
	}
	snap := srv.Coordinator().Snapshot()
	if len(snap[0].Members) != 1 || snap[0].Members[0].MemberID != stays.c.MemberID() {
		t.Fatalf("after removal the group holds %+v, want only %s", snap[0].Members, stays.c.MemberID())
	}
	if snap[0].Epoch != epoch+1 {
		t.Errorf("group epoch %d after one LeaveGroup, want %d (one bump per batch)", snap[0].Epoch, epoch+1)
	}
}

// Below LeaveGroup v3, member ids are removed one request each (the
// client downgrade of A3), each answered by its top-level code; an
// instance id cannot be removed, and nothing is sent when one is named.
func TestRemoveByMemberIDBelowV3(t *testing.T) {
	addr, srv := serve(t, map[codec.APIKey]int16{codec.LeaveGroup: 2})
	a := join(t, addr, "app-a", "")
	b := join(t, addr, "app-b", "inst-b")
	stays := join(t, addr, "app-x", "")
	before := srv.Stats().Requests
	v, rs, err := Remove(opts(addr), "orders", Who{MemberIDs: []string{a.c.MemberID(), b.c.MemberID(), "no-such-member", a.c.MemberID()}}, "ignored below v5")
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Stats().Requests - before; v != 2 || got != 4 {
		t.Errorf("LeaveGroup v%d in %d requests, want v2 in 4 (ApiVersions, then one per distinct member id)", v, got)
	}
	codes := []codec.ErrorCode{codec.None, codec.None, codec.UnknownMemberID}
	if len(rs) != len(codes) {
		t.Fatalf("%d results, want %d (the repeated id once): %+v", len(rs), len(codes), rs)
	}
	for i, c := range codes {
		if rs[i].Code != c {
			t.Errorf("result %d: %+v, want %s", i, rs[i], c)
		}
	}
	if snap := srv.Coordinator().Snapshot(); len(snap[0].Members) != 1 || snap[0].Members[0].MemberID != stays.c.MemberID() {
		t.Fatalf("the group holds %+v, want only %s", snap[0].Members, stays.c.MemberID())
	}
	before = srv.Stats().Requests
	if _, _, err := Remove(opts(addr), "orders", Who{InstanceIDs: []string{"inst-b"}, MemberIDs: []string{stays.c.MemberID()}}, ""); !errors.Is(err, ErrNeedsV3) {
		t.Fatalf("an instance id below v3: err %v, want ErrNeedsV3", err)
	}
	if got := srv.Stats().Requests - before; got != 1 {
		t.Errorf("the broker answered %d requests, want only the ApiVersions", got)
	}
	if _, _, err := Remove(opts(addr), "orders", Who{}, ""); err == nil {
		t.Error("removing nobody: no error")
	}
}

func itoa(i int32) string { return strconv.Itoa(int(i)) }
