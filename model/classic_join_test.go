package model_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

const g1 = "g1"

// A group's life at JoinGroup v4+: MEMBER_ID_REQUIRED, the first rebalance
// waiting its initial delay and extended by a second member, completion
// (the first member leads and alone gets Members), the sync phase, Stable.
func TestClassicFirstRebalance(t *testing.T) {
	ct := newClassicTest(t)
	a, b := dyn(1), dyn(2)
	resp, _ := ct.join(1, 5, joinReq(g1, "", codec.Null, "range"))
	wantJoin(t, "a dynamic member's first join at v5 gets a pending id", resp, codec.MemberIDRequired, -1, a, "")
	ct.wantGroup("MEMBER_ID_REQUIRED leaves the group Empty", g1, rules.ClassicEmpty, 0)
	if p := ct.group(g1).Classic.Pending; len(p) != 1 || p[0].ID != a || p[0].Deadline != 10000 {
		t.Fatalf("pending ids %+v, want %s until its session timeout", p, a)
	}
	resp, da := ct.join(1, 5, joinReq(g1, a, codec.Null, "range"))
	if resp != nil {
		t.Fatalf("the pending id's join was answered at once: %+v", resp)
	}
	ct.wantGroup("the pending id is a member, the first rebalance started", g1, rules.ClassicPreparingRebalance, 0, a)
	resp, _ = ct.join(2, 5, joinReq(g1, "", codec.Null, "range"))
	wantJoin(t, "the second member's first join", resp, codec.MemberIDRequired, -1, b, "")
	_, db := ct.join(2, 5, joinReq(g1, b, codec.Null, "range"))
	ct.advance(2999)
	ct.nothingReleased("the initial delay has not passed")
	// A member was added during the delay, and R - D = 17 s is left: the
	// delay runs again (3 s), and then completes.
	ct.advance(3000)
	ct.nothingReleased("the delay is extended by the member added")
	ct.advance(6000)
	wantJoin(t, "the leader's answer", ct.joined("a", da), codec.None, 1, a, a, a, b)
	wantJoin(t, "the follower's answer", ct.joined("b", db), codec.None, 1, b, a)
	ct.wantGroup("completed", g1, rules.ClassicCompletingRebalance, 1, a, b)

	// The sync phase: the follower waits for the leader's assignment.
	sresp, dsb := ct.sync(2, 3, &codec.SyncGroupRequest{GroupId: g1, GenerationId: 1, MemberId: b})
	if sresp != nil {
		t.Fatalf("the follower's SyncGroup was answered before the leader's: %+v", sresp)
	}
	sresp, _ = ct.sync(1, 5, &codec.SyncGroupRequest{GroupId: g1, GenerationId: 1, MemberId: a,
		ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("range"),
		Assignments: []codec.SyncGroupRequestAssignment{{MemberId: a, Assignment: []byte{1}}, {MemberId: b, Assignment: []byte{2}}, {MemberId: "stranger", Assignment: []byte{3}}}})
	if sresp == nil || sresp.ErrorCode != codec.None || string(sresp.Assignment) != "\x01" || sresp.ProtocolName != codec.Str("range") {
		t.Fatalf("the leader's SyncGroup: %+v", sresp)
	}
	if got := ct.synced("b", dsb); got.ErrorCode != codec.None || string(got.Assignment) != "\x02" {
		t.Fatalf("the follower's SyncGroup: %+v", got)
	}
	ct.wantGroup("the leader's assignment makes the group Stable", g1, rules.ClassicStable, 1, a, b)

	// Heartbeats: NONE at the generation, ILLEGAL_GENERATION at another,
	// UNKNOWN_MEMBER_ID for a stranger.
	if code := ct.heartbeat(3, 4, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 1, MemberId: b}); code != codec.None {
		t.Fatalf("a heartbeat at the generation: %v", code)
	}
	if code := ct.heartbeat(3, 4, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 0, MemberId: b}); code != codec.IllegalGeneration {
		t.Fatalf("a heartbeat at another generation: %v", code)
	}
	if code := ct.heartbeat(3, 4, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 1, MemberId: "stranger"}); code != codec.UnknownMemberID {
		t.Fatalf("a stranger's heartbeat: %v", code)
	}

	// The follower rejoins unchanged: the current generation at once.
	resp, _ = ct.join(2, 5, joinReq(g1, b, codec.Null, "range"))
	wantJoin(t, "an unchanged follower's join in Stable", resp, codec.None, 1, b, a)
	// The leader rejoins: a rebalance, which completes at once when every
	// member has joined.
	resp, dl := ct.join(1, 5, joinReq(g1, a, codec.Null, "range"))
	if resp != nil {
		t.Fatalf("the leader's join in Stable was answered at once: %+v", resp)
	}
	if code := ct.heartbeat(3, 4, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 1, MemberId: b}); code != codec.RebalanceInProgress {
		t.Fatalf("a heartbeat during the join phase: %v", code)
	}
	resp, _ = ct.join(2, 5, joinReq(g1, b, codec.Null, "range"))
	wantJoin(t, "the last member's join completes the phase", resp, codec.None, 2, b, a)
	wantJoin(t, "the leader's join released", ct.joined("a", dl), codec.None, 2, a, a, a, b)
}

// Below v4 a first join makes a member at once (KIP-394's control).
func TestClassicV3JoinAddsAMember(t *testing.T) {
	ct := newClassicTest(t)
	resp, d := ct.join(1, 3, joinReq(g1, "", codec.Null, "range"))
	if resp != nil {
		t.Fatalf("a v3 first join was answered at once: %+v", resp)
	}
	ct.wantGroup("a member at once", g1, rules.ClassicPreparingRebalance, 0, dyn(1))
	ct.advance(3000)
	wantJoin(t, "completed by the initial delay", ct.joined("a", d), codec.None, 1, dyn(1), dyn(1), dyn(1))
}

// B8.4 and B8.6's refusals, each changing nothing.
func TestClassicJoinRefusals(t *testing.T) {
	ct := newClassicTest(t)
	for _, c := range []struct {
		what   string
		req    *codec.JoinGroupRequest
		code   codec.ErrorCode
		member string
	}{
		{"GroupId \"\"", joinReq("", "m", codec.Null, "range"), codec.InvalidGroupID, "m"},
		{"a session timeout below the bounds", &codec.JoinGroupRequest{GroupId: g1, SessionTimeoutMs: 999, MemberId: "m", ProtocolType: "consumer"}, codec.InvalidSessionTimeout, "m"},
		{"a member id for a missing group", joinReq(g1, "m", codec.Null, "range"), codec.UnknownMemberID, "m"},
	} {
		resp, _ := ct.join(1, 9, c.req)
		wantJoin(t, c.what, resp, c.code, -1, c.member, "")
	}
	if len(ct.c.Snapshot()) != 0 {
		t.Fatalf("a refused join made a group: %+v", ct.c.Snapshot())
	}
	// No protocols for an Empty group: INCONSISTENT_GROUP_PROTOCOL, the
	// group made all the same (B8.6 step 2).
	resp, _ := ct.join(1, 9, joinReq(g1, "", codec.Null))
	wantJoin(t, "no protocols", resp, codec.InconsistentGroupProtocol, -1, "", "")
	ct.wantGroup("the group stays", g1, rules.ClassicEmpty, 0)
	// A pending id with an instance id: UNKNOWN_SERVER_ERROR.
	resp, _ = ct.join(1, 9, joinReq(g1, "", codec.Null, "range"))
	id := resp.MemberId
	resp, _ = ct.join(1, 9, joinReq(g1, id, codec.Str("i"), "range"))
	wantJoin(t, "a pending id with an instance id", resp, codec.UnknownServerError, -1, "", "")
	// A member whose protocols no member shares.
	_, _ = ct.join(1, 9, joinReq(g1, id, codec.Null, "range"))
	resp, _ = ct.join(2, 9, joinReq(g1, "", codec.Null, "roundrobin"))
	wantJoin(t, "a protocol no member lists", resp, codec.InconsistentGroupProtocol, -1, "", "")
	r := joinReq(g1, "", codec.Null, "range")
	r.ProtocolType = "connect"
	resp, _ = ct.join(2, 9, r)
	wantJoin(t, "another protocol type", resp, codec.InconsistentGroupProtocol, -1, "", "")
}

// KIP-345 (A6.2): a static member's restart in Stable takes its old place
// without a rebalance; its old id is fenced with the instance id and
// unknown without.
func TestClassicStaticRestartInStable(t *testing.T) {
	for _, version := range []int16{5, 9} {
		ct := newClassicTest(t)
		inst := codec.Str("i1")
		_, da := ct.join(1, version, joinReq(g1, "", inst, "range"))
		old := memberID("i1", 1)
		ct.advance(3000)
		wantJoin(t, "the static member leads alone", ct.joined("join", da), codec.None, 1, old, old, old)
		ct.sync(1, 3, &codec.SyncGroupRequest{GroupId: g1, GenerationId: 1, MemberId: old, GroupInstanceId: inst,
			Assignments: []codec.SyncGroupRequestAssignment{{MemberId: old, Assignment: []byte{7}}}})
		ct.wantGroup("stable", g1, rules.ClassicStable, 1, old)

		// The restart: MemberId "" and the same instance.
		resp, _ := ct.join(2, version, joinReq(g1, "", inst, "range"))
		nu := memberID("i1", 2)
		if version >= 9 {
			wantJoin(t, "v9: the new leader gets Members and skips the assignment", resp, codec.None, 1, nu, nu, nu)
			if !resp.SkipAssignment {
				t.Fatal("SkipAssignment not set for the leader at v9")
			}
		} else {
			wantJoin(t, "below v9: no Members, the leader before the replacement", resp, codec.None, 1, nu, old)
		}
		ct.wantGroup("no rebalance", g1, rules.ClassicStable, 1, nu)
		if m := ct.group(g1).Members[0]; string(m.Classic.Assignment) != "\x07" || m.Classic.New {
			t.Fatalf("the new member did not take the old one's place: %+v", m)
		}
		sresp, _ := ct.sync(2, 3, &codec.SyncGroupRequest{GroupId: g1, GenerationId: 1, MemberId: nu, GroupInstanceId: inst})
		if sresp.ErrorCode != codec.None || string(sresp.Assignment) != "\x07" {
			t.Fatalf("the new member's SyncGroup: %+v", sresp)
		}
		if code := ct.heartbeat(1, 3, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 1, MemberId: old, GroupInstanceId: inst}); code != codec.FencedInstanceID {
			t.Fatalf("the old id's heartbeat with the instance: %v, want FENCED_INSTANCE_ID", code)
		}
		if code := ct.heartbeat(1, 3, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 1, MemberId: old}); code != codec.UnknownMemberID {
			t.Fatalf("the old id's heartbeat without the instance: %v, want UNKNOWN_MEMBER_ID", code)
		}
	}
}

// A static replacement fences the old member's waiting JoinGroup (A6.2),
// and during the join phase the new id waits in its place.
func TestClassicStaticReplacementFencesWaitingJoin(t *testing.T) {
	ct := newClassicTest(t)
	inst := codec.Str("i1")
	_, dOld := ct.join(1, 5, joinReq(g1, "", inst, "range"))
	_, dNew := ct.join(2, 5, joinReq(g1, "", inst, "range"))
	fenced := ct.joined("old", dOld)
	wantJoin(t, "the replaced member's waiting join", fenced, codec.FencedInstanceID, -1, memberID("i1", 1), "")
	ct.wantGroup("the new id in the old one's place", g1, rules.ClassicPreparingRebalance, 0, memberID("i1", 2))
	ct.advance(3000)
	wantJoin(t, "the new id completes the phase", ct.joined("new", dNew), codec.None, 1, memberID("i1", 2), memberID("i1", 2), memberID("i1", 2))
}

// A6.4: a JoinGroup to a consumer group with members is outside the model;
// one with MemberId "" to an empty consumer group replaces it.
func TestClassicJoinMeetsConsumerGroup(t *testing.T) {
	ct := newClassicTest(t)
	hb := &codec.ConsumerGroupHeartbeatRequest{GroupId: g1, MemberId: "m-1", RebalanceTimeoutMs: 1000,
		SubscribedTopicNames: []string{"a"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
	ct.handle(1, 1, hb)
	h := codec.RequestHeader{RequestApiKey: codec.JoinGroup, RequestApiVersion: 5}
	if _, err := ct.c.Handle(model.Conn{ID: 2, Delivery: 99}, &h, joinReq(g1, "", codec.Null, "range")); err != model.ErrUnsupportedRequest {
		t.Fatalf("a JoinGroup to a consumer group with members: %v, want ErrUnsupportedRequest", err)
	}
	ct.handle(1, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: g1, MemberId: "m-1", MemberEpoch: -1, RebalanceTimeoutMs: -1})
	resp, _ := ct.join(2, 5, joinReq(g1, "", codec.Null, "range"))
	wantJoin(t, "a JoinGroup to an empty consumer group", resp, codec.MemberIDRequired, -1, dyn(1), "")
	ct.wantGroup("a classic group in its place", g1, rules.ClassicEmpty, 0)
	// And back: a ConsumerGroupHeartbeat at another epoch is
	// GROUP_ID_NOT_FOUND; a join replaces the Empty classic group.
	r, _ := ct.handle(1, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: g1, MemberId: "m-1", MemberEpoch: 3, RebalanceTimeoutMs: -1})
	if r.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode != codec.GroupIDNotFound {
		t.Fatalf("a heartbeat to a classic group: %+v", r)
	}
	r, _ = ct.handle(1, 1, hb)
	if r.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode != codec.None || ct.group(g1).Kind != rules.KindConsumer {
		t.Fatalf("a join to an Empty classic group: %+v, %+v", r, ct.group(g1))
	}
}
