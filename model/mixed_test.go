package model_test

import (
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Mixed groups (docs/PROTOCOL.md A7): expected values are written by hand
// from A7 and Kafka 4.0's GroupMetadataManager, for the test cluster
// (a: 3 partitions, b: 2, c: 1) with the counting id source.

func bidirectional(c *model.Config) { c.MigrationPolicy = model.MigrationBidirectional }

// consumerMetadata is a classic consumer's protocol metadata: a
// ConsumerProtocolSubscription v1 of topics, owning owned.
func consumerMetadata(t *testing.T, topics []string, owned ...codec.ConsumerProtocolTopicPartitions) []byte {
	t.Helper()
	s := codec.ConsumerProtocolSubscription{Topics: topics, OwnedPartitions: owned, GenerationId: -1}
	b, err := s.AppendTo(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func assignment(t *testing.T, tps ...codec.ConsumerProtocolTopicPartitions) []byte {
	t.Helper()
	b, err := (&codec.ConsumerProtocolAssignment{AssignedPartitions: tps}).AppendTo(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mixedJoin is a classic consumer's JoinGroup: session 30 s, rebalance 20
// s, one protocol "range" subscribing to topic a.
func mixedJoin(t *testing.T, member string, owned ...codec.ConsumerProtocolTopicPartitions) *codec.JoinGroupRequest {
	return &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 30000, RebalanceTimeoutMs: 20000, MemberId: member,
		ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: consumerMetadata(t, []string{"a"}, owned...)}}}
}

// consumerJoin is a consumer-protocol member's join to "g", subscribing to
// topic a.
func consumerJoin(id string) *codec.ConsumerGroupHeartbeatRequest {
	return &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: id, MemberEpoch: 0, RebalanceTimeoutMs: 60000,
		SubscribedTopicNames: []string{"a"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
}

func (ct *classicTest) consumerHeartbeat(conn uint64, r *codec.ConsumerGroupHeartbeatRequest) *codec.ConsumerGroupHeartbeatResponse {
	ct.t.Helper()
	resp, _ := ct.handle(conn, 1, r)
	return resp.(*codec.ConsumerGroupHeartbeatResponse)
}

// member finds a member in a snapshot.
func snapshotMember(t *testing.T, g rules.GroupSnapshot, id string) rules.MemberSnapshot {
	t.Helper()
	for _, m := range g.Members {
		if m.MemberID == id {
			return m
		}
	}
	t.Fatalf("group %s has no member %s: %+v", g.GroupID, id, g.Members)
	return rules.MemberSnapshot{}
}

var topicA = func(ps ...int32) codec.ConsumerProtocolTopicPartitions {
	return codec.ConsumerProtocolTopicPartitions{Topic: "a", Partitions: ps}
}

// A classic member joins a consumer group (A7.1), waits for the partitions
// its target names while their owner revokes them, is asked to rejoin by
// its Heartbeat (A7.2), and gets them through SyncGroup.
func TestMixedClassicMemberJoinsConsumerGroup(t *testing.T) {
	ct := newClassicTest(t, bidirectional)
	cid := genID(99).String() // "Y2Nj…": after the classic member's id, "AQEB…"
	if r := ct.consumerHeartbeat(1, consumerJoin(cid)); r.ErrorCode != codec.None || r.MemberEpoch != 1 {
		t.Fatalf("consumer join: %+v", r)
	}
	kid := genID(1).String()
	got, _ := ct.join(2, 5, mixedJoin(t, ""))
	wantJoin(t, "dynamic v5 join with no id", got, codec.MemberIDRequired, -1, kid, "")
	if g := ct.group("g"); len(g.Members) != 1 || g.Epoch != 1 {
		t.Fatalf("MEMBER_ID_REQUIRED changed the group: %+v", g)
	}
	got, _ = ct.join(2, 5, mixedJoin(t, kid))
	wantJoin(t, "join with the id given", got, codec.None, 2, kid, "")
	if got.ProtocolType.Value != "consumer" || got.ProtocolName.Value != "range" {
		t.Fatalf("join answer names %v/%v, want consumer/range", got.ProtocolType, got.ProtocolName)
	}
	k := snapshotMember(t, ct.group("g"), kid)
	if !k.ClassicProtocol || k.Epoch != 2 || len(k.Assigned) != 0 || fmt.Sprint(k.Target) != "[{a 0} {a 2}]" {
		t.Fatalf("classic member after its join: %+v", k)
	}
	s, _ := ct.sync(2, 3, &codec.SyncGroupRequest{GroupId: "g", MemberId: kid, GenerationId: 2})
	if s.ErrorCode != codec.None || len(rules.DecodeAssignment(s.Assignment)) != 0 {
		t.Fatalf("sync while a0 and a2 are still owned: %+v", s)
	}
	if code := ct.heartbeat(2, 3, &codec.HeartbeatRequest{GroupId: "g", MemberId: kid, GenerationId: 2}); code != codec.None {
		t.Fatalf("heartbeat while waiting for owned partitions: %v, want NONE", code)
	}
	if code := ct.heartbeat(2, 3, &codec.HeartbeatRequest{GroupId: "g", MemberId: kid, GenerationId: 1}); code != codec.IllegalGeneration {
		t.Fatalf("heartbeat at another generation: %v, want ILLEGAL_GENERATION", code)
	}
	// The consumer member revokes a0 and a2 and acknowledges a1.
	hb := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: cid, MemberEpoch: 1, RebalanceTimeoutMs: -1}
	if r := ct.consumerHeartbeat(1, hb); r.MemberEpoch != 1 {
		t.Fatalf("consumer heartbeat: %+v", r)
	}
	hb.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{{TopicId: model.TopicIDFor("a"), Partitions: []int32{1}}}
	if r := ct.consumerHeartbeat(1, hb); r.MemberEpoch != 2 {
		t.Fatalf("consumer heartbeat after revoking: %+v", r)
	}
	if code := ct.heartbeat(2, 3, &codec.HeartbeatRequest{GroupId: "g", MemberId: kid, GenerationId: 2}); code != codec.RebalanceInProgress {
		t.Fatalf("heartbeat once its partitions are free: %v, want REBALANCE_IN_PROGRESS", code)
	}
	got, _ = ct.join(2, 5, mixedJoin(t, kid))
	wantJoin(t, "rejoin", got, codec.None, 2, kid, "")
	s, _ = ct.sync(2, 5, &codec.SyncGroupRequest{GroupId: "g", MemberId: kid, GenerationId: 2,
		ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("range")})
	if s.ErrorCode != codec.None || fmt.Sprint(rules.DecodeAssignment(s.Assignment)) != "[{a 0} {a 2}]" {
		t.Fatalf("sync after the rejoin: %+v", s)
	}
	s, _ = ct.sync(2, 5, &codec.SyncGroupRequest{GroupId: "g", MemberId: kid, GenerationId: 2,
		ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("roundrobin")})
	if s.ErrorCode != codec.InconsistentGroupProtocol {
		t.Fatalf("sync naming another protocol: %v", s.ErrorCode)
	}
	// The consumer member's SyncGroup is refused: it is not a classic member.
	s, _ = ct.sync(1, 3, &codec.SyncGroupRequest{GroupId: "g", MemberId: cid, GenerationId: 2})
	if s.ErrorCode != codec.UnknownMemberID {
		t.Fatalf("a consumer-protocol member's SyncGroup: %v, want UNKNOWN_MEMBER_ID", s.ErrorCode)
	}
}

// Under the `outside` policy a JoinGroup to a consumer group with members
// is outside the model (A6.4, A6.5): the connection closes.
func TestMixedOutsideRefused(t *testing.T) {
	ct := newClassicTest(t)
	ct.consumerHeartbeat(1, consumerJoin(genID(99).String()))
	h := codec.RequestHeader{RequestApiKey: codec.JoinGroup, RequestApiVersion: 5}
	if _, err := ct.c.Handle(model.Conn{ID: 2}, &h, mixedJoin(t, "")); err != model.ErrUnsupportedRequest {
		t.Fatalf("mixed join under the outside policy: %v, want ErrUnsupportedRequest", err)
	}
}

// stableClassicGroup makes "g" a Stable classic group of one member (the
// first made id, K), which owns the whole of topic a, at generation 1.
func stableClassicGroup(t *testing.T, ct *classicTest) string {
	t.Helper()
	k := dyn(1)
	got, _ := ct.join(1, 5, mixedJoin(t, ""))
	wantJoin(t, "first join", got, codec.MemberIDRequired, -1, k, "")
	_, d := ct.join(1, 5, mixedJoin(t, k))
	ct.advance(3000)
	wantJoin(t, "initial rebalance", ct.joined("join", d), codec.None, 1, k, k, k)
	s, _ := ct.sync(1, 3, &codec.SyncGroupRequest{GroupId: "g", MemberId: k, GenerationId: 1,
		Assignments: []codec.SyncGroupRequestAssignment{{MemberId: k, Assignment: assignment(t, topicA(0, 1, 2))}}})
	if s.ErrorCode != codec.None {
		t.Fatalf("leader sync: %v", s.ErrorCode)
	}
	ct.wantGroup("stable", "g", rules.ClassicStable, 1, k)
	return k
}

// The upgrade (A7.4): a consumer join converts a Stable classic group;
// the classic member keeps its id, its generation as its epoch and its
// partitions; its Heartbeat asks it to rejoin. The downgrade (A7.5): the
// consumer member's leave turns the group back into a classic group at the
// group epoch, which rebalances.
func TestMixedUpgradeThenDowngrade(t *testing.T) {
	ct := newClassicTest(t, bidirectional)
	k := stableClassicGroup(t, ct)
	cid := genID(99).String()
	r := ct.consumerHeartbeat(2, consumerJoin(cid))
	if r.ErrorCode != codec.None || r.MemberEpoch != 2 {
		t.Fatalf("the upgrading join: %+v", r)
	}
	g := ct.group("g")
	if g.Kind != rules.KindConsumer || g.Epoch != 2 || len(g.Members) != 2 {
		t.Fatalf("after the upgrade: %+v", g)
	}
	km := snapshotMember(t, g, k)
	if !km.ClassicProtocol || km.Epoch != 1 || fmt.Sprint(km.Assigned) != "[{a 0} {a 1} {a 2}]" {
		t.Fatalf("the converted member: %+v", km)
	}
	if code := ct.heartbeat(1, 3, &codec.HeartbeatRequest{GroupId: "g", MemberId: k, GenerationId: 1}); code != codec.RebalanceInProgress {
		t.Fatalf("converted member's heartbeat: %v, want REBALANCE_IN_PROGRESS", code)
	}
	s, _ := ct.sync(1, 3, &codec.SyncGroupRequest{GroupId: "g", MemberId: k, GenerationId: 1})
	if s.ErrorCode != codec.RebalanceInProgress {
		t.Fatalf("converted member's sync at its old epoch: %v, want REBALANCE_IN_PROGRESS", s.ErrorCode)
	}
	// The consumer member leaves: the group is downgraded at generation 2,
	// its epoch (the leave's own bump does not happen), and rebalances.
	lr := ct.consumerHeartbeat(2, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: cid, MemberEpoch: rules.LeaveEpoch, RebalanceTimeoutMs: -1})
	if lr.ErrorCode != codec.None {
		t.Fatalf("leave: %+v", lr)
	}
	ct.wantGroup("downgraded", "g", rules.ClassicPreparingRebalance, 2, k)
	if code := ct.heartbeat(1, 3, &codec.HeartbeatRequest{GroupId: "g", MemberId: k, GenerationId: 2}); code != codec.RebalanceInProgress {
		t.Fatalf("heartbeat after the downgrade: %v, want REBALANCE_IN_PROGRESS", code)
	}
}

// A failed upgrade (A7.4 step 3): a classic group in its first rebalance
// has no assignment to read; its waiting JoinGroup is answered
// REBALANCE_IN_PROGRESS and it stays a classic group with that member
// (grace: the member may rejoin). Under DISABLED the upgrade is refused
// before anything changes.
func TestMixedUpgradeFailsOrIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policy   model.MigrationPolicy
		answered bool
	}{
		{"bidirectional: fails in the first rebalance", model.MigrationBidirectional, true},
		{"disabled: refused", model.MigrationDisabled, false},
		{"downgrade only: refused", model.MigrationDowngrade, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := newClassicTest(t, func(c *model.Config) { c.MigrationPolicy = tc.policy })
			k := dyn(1)
			ct.join(1, 5, mixedJoin(t, ""))
			_, d := ct.join(1, 5, mixedJoin(t, k))
			r := ct.consumerHeartbeat(2, consumerJoin(genID(99).String()))
			if r.ErrorCode != codec.GroupIDNotFound {
				t.Fatalf("consumer join: %v, want GROUP_ID_NOT_FOUND", r.ErrorCode)
			}
			if tc.answered {
				wantJoin(t, "the waiting join", ct.joined("join", d), codec.RebalanceInProgress, -1, k, "")
			} else {
				ct.nothingReleased("refused upgrade")
			}
			ct.wantGroup("still classic", "g", rules.ClassicPreparingRebalance, 0, k)
		})
	}
}

// A classic member that is asked to rejoin and never does is removed when
// its join timer (its rebalance timeout) fires, before its session ends
// (A7.1).
func TestMixedJoinTimerRemoves(t *testing.T) {
	ct := newClassicTest(t, bidirectional)
	cid := genID(99).String()
	ct.consumerHeartbeat(1, consumerJoin(cid))
	kid := genID(1).String()
	ct.join(2, 5, mixedJoin(t, ""))
	ct.join(2, 5, mixedJoin(t, kid))
	ct.sync(2, 3, &codec.SyncGroupRequest{GroupId: "g", MemberId: kid, GenerationId: 2})
	// A second consumer member moves the epoch on: K must rejoin.
	ct.consumerHeartbeat(3, consumerJoin(genID(98).String()))
	ct.advance(1000)
	if code := ct.heartbeat(2, 3, &codec.HeartbeatRequest{GroupId: "g", MemberId: kid, GenerationId: 2}); code != codec.RebalanceInProgress {
		t.Fatalf("heartbeat after the epoch moved: %v", code)
	}
	ct.advance(20999)
	snapshotMember(t, ct.group("g"), kid)
	ct.advance(21000)
	for _, m := range ct.group("g").Members {
		if m.MemberID == kid {
			t.Fatalf("classic member kept past its join timer: %+v", m)
		}
	}
}
