package model_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// More of B8 and A6, one rule each.

// B8.10: a member whose SyncGroup waits is kept when its session ends, with
// no session timer, until the SyncGroup is answered.
func TestClassicSessionKeptWhileWaiting(t *testing.T) {
	ct := newClassicTest(t)
	a, b := dyn(1), dyn(2)
	_, da := ct.join(1, 3, joinReq(g1, "", codec.Null, "range"))
	_, db := ct.join(2, 3, joinReq(g1, "", codec.Null, "range"))
	ct.advance(6000)
	ct.joined("a", da)
	ct.joined("b", db)
	_, dsb := ct.sync(2, 3, &codec.SyncGroupRequest{GroupId: g1, GenerationId: 1, MemberId: b})
	// a heartbeats; b's session (10 s from 6000) ends while its SyncGroup
	// waits: it stays.
	ct.advance(15000)
	if code := ct.heartbeat(3, 3, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 1, MemberId: a}); code != codec.None {
		t.Fatal(code)
	}
	ct.advance(16000)
	ct.wantGroup("b kept", g1, rules.ClassicCompletingRebalance, 1, a, b)
	if m := ct.group(g1).Members[1]; m.Classic.Waiting != rules.WaitingSync {
		t.Fatalf("b: %+v", m.Classic)
	}
	ct.sync(1, 3, &codec.SyncGroupRequest{GroupId: g1, GenerationId: 1, MemberId: a})
	if r := ct.synced("b", dsb); r.ErrorCode != codec.None {
		t.Fatalf("b's SyncGroup: %+v", r)
	}
}

// A6.2, B8.10: a replacement in Stable before the old id synced leaves the
// old id awaited: the sync timer rebalances the group, removing no one.
func TestClassicSyncTimerAwaitsAReplacedID(t *testing.T) {
	ct := newClassicTest(t)
	s := codec.Str("s")
	_, dl := ct.join(1, 3, joinReq(g1, "", codec.Null, "range")) // a member at once: the leader
	_, ds := ct.join(2, 5, joinReq(g1, "", s, "range"))
	ct.advance(6000)
	leader, static := dyn(1), memberID("s", 2)
	ct.joined("the leader's join", dl)
	ct.joined("the static member's join", ds)
	ct.sync(1, 3, &codec.SyncGroupRequest{GroupId: g1, GenerationId: 1, MemberId: leader})
	ct.wantGroup("Stable, the static member not synced", g1, rules.ClassicStable, 1, leader, static)
	// The static member restarts before it synced: no rebalance.
	r, _ := ct.join(3, 5, joinReq(g1, "", s, "range"))
	wantJoin(t, "the replacement", r, codec.None, 1, memberID("s", 3), leader)
	ct.sync(3, 3, &codec.SyncGroupRequest{GroupId: g1, GenerationId: 1, MemberId: memberID("s", 3), GroupInstanceId: s})
	// The sync phase's timer (20 s from the completion at 6000) finds
	// only the replaced id awaited: a rebalance, nobody removed.
	for _, at := range []int64{15000, 24000} { // sessions of 10 s kept alive
		ct.advance(at)
		ct.heartbeat(1, 3, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 1, MemberId: leader})
		ct.heartbeat(3, 3, &codec.HeartbeatRequest{GroupId: g1, GenerationId: 1, MemberId: memberID("s", 3), GroupInstanceId: s})
	}
	ct.advance(26000)
	ct.wantGroup("the sync timer rebalanced, removing nobody", g1, rules.ClassicPreparingRebalance, 1, leader, memberID("s", 3))
}

// A6.5: among the protocols with the most votes, the smallest name.
func TestClassicProtocolTie(t *testing.T) {
	ct := newClassicTest(t)
	_, da := ct.join(1, 3, joinReq(g1, "", codec.Null, "uniform", "range"))
	_, db := ct.join(2, 3, joinReq(g1, "", codec.Null, "range", "uniform"))
	ct.advance(6000)
	ct.joined("a", da)
	if r := ct.joined("b", db); r.ProtocolName != codec.Str("range") {
		t.Fatalf("a tie of range and uniform chose %v", r.ProtocolName)
	}
}

// B8.1: an answer at v7+ with no protocol carries a null name; below v7 an
// empty one.
func TestClassicErrorAnswerProtocolName(t *testing.T) {
	ct := newClassicTest(t)
	for _, v := range []int16{6, 7} {
		resp, _ := ct.join(1, v, joinReq("", "m", codec.Null, "range"))
		b, err := resp.AppendTo(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		var back codec.JoinGroupResponse
		if err := back.Decode(b, v, codec.DecodeOptions{}); err != nil || back.ProtocolName.Valid != (v < 7) {
			t.Fatalf("v%d: protocol name %+v (%v)", v, back.ProtocolName, err)
		}
	}
}

// B8.11: a member the cap refuses in PreparingRebalance is removed from the
// group (the last ones to rejoin are dropped).
func TestClassicGroupFullRemovesTheRefused(t *testing.T) {
	ct := newClassicTest(t, func(c *model.Config) { c.ClassicMaxGroupSize = 1 })
	_, da := ct.join(1, 3, joinReq(g1, "", codec.Null, "range"))
	resp, _ := ct.join(2, 3, joinReq(g1, "", codec.Null, "range"))
	wantJoin(t, "a second member beyond the cap of 1, while one waits", resp, codec.GroupMaxSizeReached, -1, "", "")
	ct.advance(3000)
	ct.joined("a", da)
	ct.wantGroup("only the first", g1, rules.ClassicCompletingRebalance, 1, dyn(1))
}

// A6.4: the other protocol's requests, answered as Kafka answers them.
func TestClassicAndConsumerGroupsApart(t *testing.T) {
	ct := newClassicTest(t)
	ct.join(1, 3, joinReq(g1, "", codec.Null, "range"))
	r, _ := ct.handle(2, 1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{g1}})
	if g := r.(*codec.ConsumerGroupDescribeResponse).Groups[0]; g.ErrorCode != codec.GroupIDNotFound || g.ErrorMessage.Value != "Group g1 is not a consumer group." {
		t.Fatalf("ConsumerGroupDescribe of a classic group: %+v", g)
	}
	r, _ = ct.handle(2, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: g1, MemberId: "m", MemberEpoch: -1, RebalanceTimeoutMs: -1})
	if hb := r.(*codec.ConsumerGroupHeartbeatResponse); hb.ErrorCode != codec.GroupIDNotFound {
		t.Fatalf("a leave from a classic group: %+v", hb)
	}
	h := codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1}
	if _, err := ct.c.Handle(model.Conn{ID: 3, Delivery: 999}, &h, &codec.ConsumerGroupHeartbeatRequest{GroupId: g1, MemberId: "m",
		RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{"a"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}); err != model.ErrUnsupportedRequest {
		t.Fatalf("a consumer join to a classic group with members: %v", err)
	}
	// The consumer side: a consumer group g2; classic requests to it.
	ct.handle(4, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g2", MemberId: "m", RebalanceTimeoutMs: 1000,
		SubscribedTopicNames: []string{"a"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}, InstanceId: codec.Str("i")})
	if code := ct.heartbeat(4, 3, &codec.HeartbeatRequest{GroupId: "g2", MemberId: "x", GroupInstanceId: codec.Str("i")}); code != codec.FencedInstanceID {
		t.Fatalf("a classic heartbeat naming another member's instance in a consumer group: %v", code)
	}
	if s, _ := ct.sync(4, 3, &codec.SyncGroupRequest{GroupId: "g2", MemberId: "m"}); s.ErrorCode != codec.UnknownMemberID {
		t.Fatalf("a SyncGroup to a consumer group: %+v", s)
	}
	r, _ = ct.handle(4, 5, &codec.DescribeGroupsRequest{Groups: []string{"g2"}})
	if g := r.(*codec.DescribeGroupsResponse).Groups[0]; g.ErrorCode != codec.None || g.GroupState != "Dead" || len(g.Members) != 0 {
		t.Fatalf("DescribeGroups v5 of a consumer group: %+v", g)
	}
	r, _ = ct.handle(4, 6, &codec.DescribeGroupsRequest{Groups: []string{"g2"}})
	if g := r.(*codec.DescribeGroupsResponse).Groups[0]; g.ErrorCode != codec.GroupIDNotFound || g.ErrorMessage.Value != "Group g2 is not a classic group." {
		t.Fatalf("DescribeGroups v6 of a consumer group: %+v", g)
	}
}
