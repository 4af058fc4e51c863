package model_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// stableGroup makes g1 Stable at generation 1 with dynamic members a and b
// (a leads), joined at v3 on connections 1 and 2; it returns their ids.
func stableGroup(ct *classicTest) (a, b string) {
	ct.t.Helper()
	a, b = dyn(1), dyn(2)
	_, da := ct.join(1, 3, joinReq(g1, "", codec.Null, "range"))
	_, db := ct.join(2, 3, joinReq(g1, "", codec.Null, "range"))
	ct.advance(6000)
	ct.joined("a", da)
	ct.joined("b", db)
	_, dsb := ct.sync(2, 3, &codec.SyncGroupRequest{GroupId: g1, GenerationId: 1, MemberId: b})
	ct.sync(1, 3, &codec.SyncGroupRequest{GroupId: g1, GenerationId: 1, MemberId: a,
		Assignments: []codec.SyncGroupRequestAssignment{{MemberId: a, Assignment: []byte{1}}, {MemberId: b, Assignment: []byte{2}}}})
	ct.synced("b", dsb)
	ct.wantGroup("setup", g1, rules.ClassicStable, 1, a, b)
	return a, b
}

// B8.10: a session that ends removes its member and rebalances; a member
// whose JoinGroup waits is kept.
func TestClassicSessionExpiry(t *testing.T) {
	ct := newClassicTest(t)
	a, b := stableGroup(ct)
	// Sessions started at the leader's sync (6000) for 10 s; b heartbeats.
	ct.advance(15000)
	if code := ct.heartbeat(2, 3, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 1, MemberId: b}); code != codec.None {
		t.Fatal(code)
	}
	ct.advance(16000)
	ct.wantGroup("a's session ended: removed, and a rebalance", g1, rules.ClassicPreparingRebalance, 1, b)
	if l := ct.group(g1).Classic.Leader; l != b {
		t.Fatalf("leader %s, want %s (the smallest remaining id)", l, b)
	}
	_ = a
	resp, _ := ct.join(2, 3, joinReq(g1, b, codec.Null, "range"))
	wantJoin(t, "the last member's join completes the phase", resp, codec.None, 2, b, b, b)
	// b's join completed at 16000; its session runs to 26000; a join phase
	// started by its sync timer (20 s) first: b never synced.
	ct.advance(36000)
	ct.wantGroup("the sync phase expired: b removed, the group rebalanced and completed Empty", g1, rules.ClassicEmpty, 3)
}

// A pending id never holds a join phase longer than its session (A6.1).
func TestClassicPendingExpiryCompletesJoin(t *testing.T) {
	ct := newClassicTest(t)
	a, b := stableGroup(ct)
	_, da := ct.join(1, 3, joinReq(g1, a, codec.Null, "range")) // the leader rejoins: a rebalance
	resp, _ := ct.join(2, 3, joinReq(g1, b, codec.Null, "range"))
	wantJoin(t, "all joined: the phase completes at once, b's own join answered", resp, codec.None, 2, b, a)
	ct.joined("a", da)
	ct.wantGroup("generation 2", g1, rules.ClassicCompletingRebalance, 2, a, b)
	// A third client's first join at v4: a pending id; then the leader
	// rejoins (a rebalance that waits for the pending id).
	resp, _ = ct.join(3, 4, joinReq(g1, "", codec.Null, "range"))
	pending := resp.MemberId
	_, da = ct.join(1, 3, joinReq(g1, a, codec.Null, "range", "x"))
	_, db := ct.join(2, 3, joinReq(g1, b, codec.Null, "range"))
	ct.nothingReleased("a pending id holds the phase")
	ct.advance(ct.group(g1).Classic.Pending[0].Deadline)
	if len(ct.group(g1).Classic.Pending) != 0 {
		t.Fatalf("pending id %s did not expire", pending)
	}
	wantJoin(t, "the pending id's expiry completes the phase", ct.joined("a", da), codec.None, 3, a, a, a, b)
	ct.joined("b", db)
}

// B8.7: a dynamic member that does not rejoin by the join timer is
// removed; a static one stays.
func TestClassicJoinTimerRemovesDynamicNotStatic(t *testing.T) {
	ct := newClassicTest(t)
	s := codec.Str("s")
	_, ds := ct.join(1, 5, joinReq(g1, "", s, "range"))
	_, dd := ct.join(2, 5, joinReq(g1, "", codec.Null, "range"))
	resp, _ := ct.join(2, 5, joinReq(g1, "", codec.Null, "range"))
	_ = dd
	dynamic := resp.MemberId
	_, dd = ct.join(2, 5, joinReq(g1, dynamic, codec.Null, "range"))
	ct.advance(6000)
	st := memberID("s", 1)
	ct.joined("s", ds)
	ct.joined("d", dd)
	ct.wantGroup("both", g1, rules.ClassicCompletingRebalance, 1, dynamic, st)
	// A new member rejoins... nobody: the leader's (the static one's)
	// sync never comes; heartbeats keep both alive while the sync timer
	// (20 s from 6000) removes both and rebalances.
	ct.advance(26000)
	ct.wantGroup("sync timer: both removed", g1, rules.ClassicEmpty, 2)
}

// A JoinGroup held in a group is answered UNKNOWN_MEMBER_ID when its new
// member's 5-minute timeout ends (B8.10).
func TestClassicNewMemberTimeout(t *testing.T) {
	ct := newClassicTest(t, func(c *model.Config) { c.NewMemberJoinTimeoutMs = 2000 })
	_, d := ct.join(1, 3, joinReq(g1, "", codec.Null, "range"))
	ct.advance(2000)
	wantJoin(t, "the new member's timeout", ct.joined("a", d), codec.UnknownMemberID, -1, "", "")
	ct.advance(3000)
	ct.wantGroup("the expiry completed the first rebalance early, Empty", g1, rules.ClassicEmpty, 1)
}

// B8.14: a restart answers waiting JoinGroups NOT_COORDINATOR and reloads
// the last record: members added since are gone, removed ones are back.
func TestClassicRestartReloadsTheRecord(t *testing.T) {
	ct := newClassicTest(t)
	a, b := stableGroup(ct)
	// a rejoins and waits for b; b leaves, which completes the phase: a
	// generation 2 of a alone, whose assignment is never stored.
	_, da := ct.join(1, 3, joinReq(g1, a, codec.Null, "range"))
	ct.c.Handle(model.Conn{ID: 9, Delivery: 1000}, &codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 3},
		&codec.LeaveGroupRequest{GroupId: g1, Members: []codec.LeaveGroupMember{{MemberId: b}}})
	ct.collect()
	wantJoin(t, "a's join", ct.joined("a", da), codec.None, 2, a, a, a)
	ct.restart()
	ct.wantGroup("the record: generation 1, a and b again", g1, rules.ClassicStable, 1, a, b)
	g := ct.group(g1)
	if string(g.Members[1].Classic.Assignment) != "\x02" || g.Classic.Leader != a || g.Classic.Protocol != "range" {
		t.Fatalf("reloaded %+v", g)
	}
	// A follower rejoining with exactly its recorded protocol gets the
	// recorded generation back.
	resp, _ := ct.join(2, 3, joinReq(g1, b, codec.Null, "range"))
	wantJoin(t, "b's unchanged join", resp, codec.None, 1, b, a)
	// The leader's join starts a rebalance and waits for b; a restart
	// answers it NOT_COORDINATOR.
	_, da = ct.join(1, 3, joinReq(g1, a, codec.Null, "range"))
	ct.restart()
	wantJoin(t, "the waiting join", ct.joined("a", da), codec.NotCoordinator, -1, a, "")
	ct.wantGroup("reloaded again", g1, rules.ClassicStable, 1, a, b)
}

// B8.5: a request behind a held one on its connection is held too, and
// served once the one before it is answered.
func TestClassicConnectionHold(t *testing.T) {
	ct := newClassicTest(t)
	_, dj := ct.join(1, 3, joinReq(g1, "", codec.Null, "range"))
	resp, dh := ct.handle(1, 3, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 0, MemberId: dyn(1)})
	if resp != nil {
		t.Fatalf("a heartbeat behind a held join was served: %+v", resp)
	}
	// Another connection is not held.
	if code := ct.heartbeat(2, 3, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 0, MemberId: dyn(1)}); code != codec.RebalanceInProgress {
		t.Fatalf("a heartbeat on another connection: %v", code)
	}
	ct.advance(3000)
	ct.joined("the join", dj)
	if r := ct.released("the heartbeat held behind it", dh); r.Response.(*codec.HeartbeatResponse).ErrorCode != codec.IllegalGeneration {
		t.Fatalf("the held heartbeat, served after the join phase completed: %+v", r.Response)
	}
	// A closed connection drops what it held unread.
	_, dj = ct.join(3, 3, joinReq(g1, "", codec.Null, "range"))
	_, dh = ct.handle(3, 3, &codec.HeartbeatRequest{GroupId: g1})
	ct.c.Disconnect(3)
	ct.collect()
	if r := ct.released("dropped", dh); !r.Dropped {
		t.Fatalf("the request held on a closed connection: %+v", r)
	}
}

// A6.3: LeaveGroup against a classic group, row by row.
func TestClassicLeaveGroup(t *testing.T) {
	ct := newClassicTest(t)
	a, b := stableGroup(ct)
	resp, _ := ct.join(3, 5, joinReq(g1, "", codec.Null, "range"))
	pending := resp.MemberId
	leave := func(version int16, members ...codec.LeaveGroupMember) *codec.LeaveGroupResponse {
		r := &codec.LeaveGroupRequest{GroupId: g1, Members: members}
		if version <= 2 {
			r.Members, r.MemberId = nil, members[0].MemberId
		}
		out, _ := ct.handle(9, version, r)
		return out.(*codec.LeaveGroupResponse)
	}
	got := leave(3, codec.LeaveGroupMember{MemberId: ""}, codec.LeaveGroupMember{MemberId: "x", GroupInstanceId: codec.Str("nobody")},
		codec.LeaveGroupMember{MemberId: "stranger"}, codec.LeaveGroupMember{MemberId: pending})
	want := []codec.ErrorCode{codec.UnknownMemberID, codec.UnknownMemberID, codec.UnknownMemberID, codec.None}
	for i, m := range got.Members {
		if m.ErrorCode != want[i] {
			t.Fatalf("entry %d: %v, want %v", i, m.ErrorCode, want[i])
		}
	}
	ct.wantGroup("a pending id's leave rebalances (Kafka 4.0)", g1, rules.ClassicPreparingRebalance, 1, a, b)
	if got := leave(1, codec.LeaveGroupMember{MemberId: a}); got.ErrorCode != codec.None {
		t.Fatalf("v1 leave of a: %v", got.ErrorCode)
	}
	ct.wantGroup("a removed", g1, rules.ClassicPreparingRebalance, 1, b)
}

// B8.11: group.max.size refuses a new member once full.
func TestClassicGroupMaxSize(t *testing.T) {
	ct := newClassicTest(t, func(c *model.Config) { c.ClassicMaxGroupSize = 2 })
	stableGroup(ct)
	resp, _ := ct.join(3, 5, joinReq(g1, "", codec.Null, "range"))
	wantJoin(t, "a third member", resp, codec.GroupMaxSizeReached, -1, "", "")
	if len(ct.group(g1).Classic.Pending) != 0 {
		t.Fatal("a refused join made a pending id")
	}
}

// B8.13: DescribeGroups of a classic group, a missing one and a consumer
// group.
func TestClassicDescribeGroups(t *testing.T) {
	ct := newClassicTest(t)
	a, b := stableGroup(ct)
	resp, _ := ct.handle(4, 6, &codec.DescribeGroupsRequest{Groups: []string{g1, "nope"}, IncludeAuthorizedOperations: true})
	d := resp.(*codec.DescribeGroupsResponse)
	g := d.Groups[0]
	if g.GroupState != "Stable" || g.ProtocolType != "consumer" || g.ProtocolData != "range" || len(g.Members) != 2 ||
		g.Members[0].MemberId != a || string(g.Members[0].MemberMetadata) != "range" || string(g.Members[1].MemberAssignment) != "\x02" ||
		g.Members[1].MemberId != b || g.Members[0].ClientHost != "/10.0.0.1" {
		t.Fatalf("a Stable group: %+v", g)
	}
	if n := d.Groups[1]; n.ErrorCode != codec.GroupIDNotFound || n.GroupState != "Dead" || n.AuthorizedOperations != codec.AuthorizedOperationsUnknown {
		t.Fatalf("a missing group at v6: %+v", n)
	}
	resp, _ = ct.handle(4, 5, &codec.DescribeGroupsRequest{Groups: []string{"nope"}})
	if n := resp.(*codec.DescribeGroupsResponse).Groups[0]; n.ErrorCode != codec.None || n.GroupState != "Dead" {
		t.Fatalf("a missing group at v5: %+v", n)
	}
	if got := rules.SnapshotFromDescribeGroups(d); len(got) != 1 || len(got[0].Members) != 2 || got[0].Classic.State != rules.ClassicStable {
		t.Fatalf("the observer's snapshot: %+v", got)
	}
}

// A6.5: a member's second JoinGroup while its first waits supersedes it:
// the first is answered NOT_COORDINATOR.
func TestClassicSupersededJoin(t *testing.T) {
	ct := newClassicTest(t)
	_, d1 := ct.join(1, 3, joinReq(g1, "", codec.Null, "range"))
	_, d2 := ct.join(2, 3, joinReq(g1, dyn(1), codec.Null, "range"))
	wantJoin(t, "the superseded join", ct.joined("first", d1), codec.NotCoordinator, -1, dyn(1), "")
	ct.advance(3000)
	wantJoin(t, "the second", ct.joined("second", d2), codec.None, 1, dyn(1), dyn(1), dyn(1))
}

// A clone encodes as its original, shares nothing, and goes on alike.
func TestClassicCloneState(t *testing.T) {
	ct := newClassicTest(t)
	stableGroup(ct)
	ct.join(1, 5, joinReq(g1, "", codec.Null, "range"))
	ct.join(2, 3, joinReq(g1, dyn(2), codec.Null, "range", "x"))
	ct.handle(2, 3, &codec.HeartbeatRequest{GroupId: g1})
	c2 := ct.c.Clone()
	if string(c2.AppendState(nil)) != string(ct.c.AppendState(nil)) {
		t.Fatal("the clone encodes differently")
	}
	ct.advance(60000)
	if string(c2.AppendState(nil)) == string(ct.c.AppendState(nil)) {
		t.Fatal("the clone moved with its original")
	}
}

// B8.14 with B8.5: a restart closes every connection, so what waited
// unread behind a held request is dropped with its connection, not served
// once the restart answers the held one NOT_COORDINATOR.
func TestClassicRestartDropsWhatWaitedBehind(t *testing.T) {
	ct := newClassicTest(t)
	a, _ := stableGroup(ct)
	_, dj := ct.join(1, 3, joinReq(g1, a, codec.Null, "range")) // the leader rejoins: a rebalance, its join waits for b
	resp, dh := ct.handle(1, 3, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 1, MemberId: a})
	if resp != nil {
		t.Fatalf("a heartbeat behind a held join was served: %+v", resp)
	}
	ct.restart()
	wantJoin(t, "the waiting join", ct.joined("a", dj), codec.NotCoordinator, -1, a, "")
	if r := ct.released("the heartbeat held behind it", dh); !r.Dropped {
		t.Fatalf("the heartbeat held on a connection the restart closed was answered: %+v", r.Response)
	}
	// The connection is free again: its next request is served at once.
	if code := ct.heartbeat(1, 3, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 1, MemberId: a}); code != codec.None {
		t.Fatalf("a heartbeat after the restart: %v", code)
	}
}

// B8.5 with B8.7: a JoinGroup that completes the join phase it parks in is
// answered by its own Handle (Kafka completes it in the same coordinator
// operation): no ErrParked, nothing released for it, and its connection is
// not held.
func TestClassicJoinAnsweredInItsOwnStep(t *testing.T) {
	ct := newClassicTest(t)
	a, b := stableGroup(ct)
	_, da := ct.join(1, 3, joinReq(g1, a, codec.Null, "range"))
	resp, db := ct.join(2, 3, joinReq(g1, b, codec.Null, "range")) // the last to rejoin: the phase completes
	if resp == nil {
		t.Fatal("the join that completed the phase was held")
	}
	wantJoin(t, "b's join", resp, codec.None, 2, b, a)
	wantJoin(t, "a's join", ct.joined("a", da), codec.None, 2, a, a, a, b)
	if _, ok := ct.out[db]; ok {
		t.Fatalf("b's join answered by Handle was released too: %+v", ct.out[db])
	}
	ct.nothingReleased("after the phase")
	if code := ct.heartbeat(2, 3, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 2, MemberId: b}); code != codec.None {
		t.Fatalf("b's heartbeat on the same connection: %v", code)
	}
}
