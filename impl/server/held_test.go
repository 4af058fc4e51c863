package server_test

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/wire"
)

// The bounds of held requests (docs/PROTOCOL.md B8.5), over TCP: a
// connection holds at most one (nothing more is read from it while one
// waits), so held requests in total are bounded by the connection cap; a
// peer gone while its request is held is closed when the answer comes; a
// request the coordinator will never answer closes its connection; Close
// ends held connections at once (and goleak, in TestMain, holds every
// goroutine to ending).

// heldCoordinator serves classic groups whose first rebalance waits d.
func heldCoordinator(d time.Duration) *impl.Coordinator {
	return impl.New(impl.Config{SessionTimeoutMs: 60000, ClassicMinSessionTimeoutMs: 1000, ClassicMaxSessionTimeoutMs: 600000,
		InitialRebalanceDelayMs: int32(d.Milliseconds()), NewMemberJoinTimeoutMs: 300000})
}

// sendJoinV3 sends a first JoinGroup at v3 for group without reading
// its answer: a member at once, its JoinGroup held for the first
// rebalance's delay.
func (c *client) sendJoinV3(group string) {
	c.t.Helper()
	r := classicJoin(group, "")
	r.RebalanceTimeoutMs = 120000
	if err := c.w.Send(c.header(codec.JoinGroup, 3), r); err != nil {
		c.t.Fatal(err)
	}
}

// A request pipelined behind a held JoinGroup is not read, so not
// answered, until the JoinGroup is; then both are answered in order.
func TestHeldJoinHoldsItsConnection(t *testing.T) {
	t.Parallel()
	h := startWith(t, heldCoordinator(300*time.Millisecond), nil)
	c := h.dial()
	start := time.Now()
	c.sendJoinV3("held")
	if err := c.w.Send(c.header(codec.DescribeGroups, 5), &codec.DescribeGroupsRequest{Groups: []string{"held"}}); err != nil {
		t.Fatal(err)
	}
	j, err := c.w.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if jr := j.(*codec.JoinGroupResponse); jr.ErrorCode != codec.None || jr.GenerationId != 1 {
		t.Fatalf("the held JoinGroup: %+v", jr)
	}
	if held := time.Since(start); held < 250*time.Millisecond {
		t.Fatalf("the JoinGroup was answered after %v, before the 300 ms delay", held)
	}
	d, err := c.w.Receive()
	if err != nil {
		t.Fatal(err)
	}
	// Read after the join completed: the group is past its join phase.
	if g := d.(*codec.DescribeGroupsResponse).Groups[0]; g.GroupState != "CompletingRebalance" || len(g.Members) != 1 {
		t.Fatalf("the pipelined DescribeGroups saw %s with %d members: it was read while the JoinGroup was held", g.GroupState, len(g.Members))
	}
}

// Held requests count against the connection cap like any connection
// (one held request a connection at most): with the cap at 2 and two
// connections held, a third is refused at once; once one held request is
// answered and its connection closed, a new connection is served.
func TestHeldConnectionsCountAgainstTheCap(t *testing.T) {
	t.Parallel()
	h := startWith(t, heldCoordinator(400*time.Millisecond), func(c *server.Config) { c.MaxConns = 2 })
	a, b := h.dial(), h.dial()
	a.sendJoinV3("cap-a")
	b.sendJoinV3("cap-b")
	waitFor(t, 2*time.Second, func() bool { return h.srv.Stats().Open == 2 })
	over := h.dial()
	if _, err := over.w.RoundTrip(over.header(codec.DescribeGroups, 5), &codec.DescribeGroupsRequest{Groups: []string{"cap-a"}}); !errors.Is(err, wire.ErrNoResponse) {
		t.Fatalf("a 3rd connection while two are held under a cap of 2: %v, want it closed", err)
	}
	if _, err := a.w.Receive(); err != nil {
		t.Fatalf("the held JoinGroup: %v", err)
	}
	a.w.Close()
	waitFor(t, 2*time.Second, func() bool { return h.srv.Stats().Open < 2 })
	if g := h.dial().do(codec.DescribeGroups, 5, &codec.DescribeGroupsRequest{Groups: []string{"cap-a"}}).(*codec.DescribeGroupsResponse).Groups[0]; len(g.Members) != 1 {
		t.Fatalf("cap-a after its join: %+v", g)
	}
	if s := h.srv.Stats(); s.Refused != 1 {
		t.Fatalf("stats %+v, want 1 refused", s)
	}
}

// A peer that closes its socket while its JoinGroup is held does not end
// the wait or remove the member (B8.5): the answer, when it comes, goes
// nowhere, and the server then closes its side.
func TestHeldRequestOfAGonePeer(t *testing.T) {
	t.Parallel()
	h := startWith(t, heldCoordinator(300*time.Millisecond), nil)
	c := h.dial()
	c.sendJoinV3("gone")
	waitFor(t, 2*time.Second, func() bool { return h.srv.Stats().Open == 1 })
	c.w.Close()
	time.Sleep(50 * time.Millisecond)
	if open := h.srv.Stats().Open; open != 1 {
		t.Fatalf("%d connections open while the JoinGroup is held, want 1 (the held one)", open)
	}
	waitFor(t, 5*time.Second, func() bool { return h.srv.Stats().Open == 0 })
	g := h.dial().do(codec.DescribeGroups, 5, &codec.DescribeGroupsRequest{Groups: []string{"gone"}}).(*codec.DescribeGroupsResponse).Groups[0]
	if g.GroupState != "CompletingRebalance" || len(g.Members) != 1 {
		t.Fatalf("after the answer went nowhere: %s with %d members, want the member kept in CompletingRebalance", g.GroupState, len(g.Members))
	}
}

// A SyncGroup whose member a LeaveGroup removes is never answered (A6.3):
// the server closes its connection rather than hold it forever.
func TestDroppedSyncClosesItsConnection(t *testing.T) {
	t.Parallel()
	h := startWith(t, heldCoordinator(0), nil)
	lead, follow := h.dial(), h.dial()
	lj := lead.do(codec.JoinGroup, 3, classicJoin("drop", "")).(*codec.JoinGroupResponse)
	if lj.ErrorCode != codec.None {
		t.Fatalf("leader's join: %+v", lj)
	}
	// The follower joins: a rebalance, held until the leader rejoins.
	fr := classicJoin("drop", "")
	if err := follow.w.Send(follow.header(codec.JoinGroup, 3), fr); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	lj2 := lead.do(codec.JoinGroup, 3, classicJoin("drop", lj.MemberId)).(*codec.JoinGroupResponse)
	fresp, err := follow.w.Receive()
	if err != nil || lj2.ErrorCode != codec.None {
		t.Fatalf("rejoin: leader %+v, follower %v %v", lj2, fresp, err)
	}
	fj := fresp.(*codec.JoinGroupResponse)
	if err := follow.w.Send(follow.header(codec.SyncGroup, 3), &codec.SyncGroupRequest{GroupId: "drop", GenerationId: fj.GenerationId, MemberId: fj.MemberId}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	other := h.dial()
	lr := other.do(codec.LeaveGroup, 3, &codec.LeaveGroupRequest{GroupId: "drop", Members: []codec.LeaveGroupMember{{MemberId: fj.MemberId}}}).(*codec.LeaveGroupResponse)
	if lr.ErrorCode != codec.None || len(lr.Members) != 1 || lr.Members[0].ErrorCode != codec.None {
		t.Fatalf("leave: %+v", lr)
	}
	if _, err := follow.w.Receive(); !errors.Is(err, wire.ErrConnClosed) {
		t.Fatalf("the removed member's held SyncGroup: %v, want its connection closed", err)
	}
}

// Close (not graceful) ends held connections at once.
func TestCloseEndsHeldConnections(t *testing.T) {
	t.Parallel()
	srv, err := server.New(server.Config{Coordinator: heldCoordinator(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	h := &harness{t: t, addr: ln.Addr().String()}
	var cs []*client
	for i := 0; i < 3; i++ {
		c := h.dial()
		c.sendJoinV3("close")
		cs = append(cs, c)
	}
	waitFor(t, 2*time.Second, func() bool { return srv.Stats().Open == 3 })
	start := time.Now()
	srv.Close()
	<-done
	for _, c := range cs {
		if _, err := c.w.Receive(); !errors.Is(err, wire.ErrConnClosed) {
			t.Fatalf("a held JoinGroup after Close: %v, want the connection closed", err)
		}
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("Close took %v with held requests", took)
	}
}
