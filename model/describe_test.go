package model_test

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
)

// ConsumerGroupDescribe (§B7.2): exactly what each group holds.

func TestDescribeGroupStates(t *testing.T) {
	tc := newCoordTest(t)
	tc.ok(1, testreq.Join(group1, "m1", rebalanceMs, "a", "b"))
	tc.wantDescribe("Stable: every member at the group epoch with all of its target", group1, alone)
	tc.ok(1, testreq.Join(group1, "m2", rebalanceMs, "a", "b"))
	tc.wantDescribe("Reconciling: a member below the group epoch, another waiting for partitions", group1, wantGroup{
		state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
			{id: "m1", epoch: 1, assigned: allAB, target: m1Of2, topics: ab},
			{id: "m2", epoch: 2, target: m2Of2, topics: ab},
		}})
	tc.ok(1, testreq.Heartbeat(group1, "m1", 1, allAB))
	tc.ok(1, testreq.Heartbeat(group1, "m1", 1, m1Of2))
	tc.wantDescribe("Reconciling: m1 done, m2 at the group epoch but UNRELEASED_PARTITIONS", group1, wantGroup{
		state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
			{id: "m1", epoch: 2, assigned: m1Of2, target: m1Of2, topics: ab},
			{id: "m2", epoch: 2, target: m2Of2, topics: ab},
		}})
	tc.ok(1, testreq.Heartbeat(group1, "m2", 2, ""))
	tc.wantDescribe("Stable again", group1, stableTwo(false))
	tc.ok(1, testreq.Leave(group1, "m1", -1, ""))
	tc.ok(1, testreq.Leave(group1, "m2", -1, ""))
	tc.wantDescribe("Empty: no members, the epoch stays", group1, wantGroup{state: model.GroupStateEmpty, epoch: 4})
}

func TestDescribeMemberFields(t *testing.T) {
	tc := newCoordTest(t)
	j := testreq.StaticJoin(group1, "m1", "i1", rebalanceMs, "b", "a", "b", "zzz")
	j.RackId = codec.Str("rack-7")
	tc.ok(1, j)
	j2 := withRegex(testreq.Join(group1, "m2", rebalanceMs), "c")
	j2.SubscribedTopicNames = nil
	tc.ok(1, j2)
	w := wantGroup{state: model.GroupStateStable, epoch: 2, members: []wantMember{
		// Names sorted and deduplicated; a missing topic is kept in the
		// subscription and assigns nothing.
		{id: "m1", instance: "i1", rack: "rack-7", epoch: 2, assigned: allAB, target: allAB, topics: []string{"a", "b", "zzz"}},
		{id: "m2", epoch: 2, assigned: "c0", target: "c0", regex: "c"},
	}}
	// m1 is still at epoch 1 until it heartbeats; bring it to epoch 2.
	tc.ok(1, testreq.StaticHeartbeat(group1, "m1", "i1", 1, allAB))
	for _, v := range []int16{0, 1} {
		got := tc.describeGroup(v, group1)
		tc.want("v1 adds MemberType 1 (consumer); v0 has no such field", v,
			&codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{got}},
			&codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{w.described(group1, v)}})
		for _, m := range got.Members {
			if want := map[int16]int8{0: codec.MemberTypeUnknown, 1: codec.MemberTypeConsumer}[v]; m.MemberType != want {
				t.Errorf("v%d: member %s MemberType %d, want %d", v, m.MemberId, m.MemberType, want)
			}
		}
	}
}

func TestDescribeErrorsAndRequestShape(t *testing.T) {
	tc := newCoordTest(t)
	m1Alone(tc)
	resp := tc.send(1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"nog", group1, "", " ", group1}, IncludeAuthorizedOperations: true}).(*codec.ConsumerGroupDescribeResponse)
	if len(resp.Groups) != 5 {
		t.Fatalf("%d groups, want one per requested id (5)", len(resp.Groups))
	}
	missing := resp.Groups[0]
	if missing.ErrorCode != codec.GroupIDNotFound || !missing.ErrorMessage.Valid || !strings.Contains(missing.ErrorMessage.Value, "nog") {
		t.Errorf("missing group: %s, want GROUP_ID_NOT_FOUND with a message naming it", dump(missing))
	}
	// READ(3), DELETE(6), DESCRIBE(8), DESCRIBE_CONFIGS(10), ALTER_CONFIGS(11).
	const groupOps = 8 + 64 + 256 + 1024 + 2048
	found := alone.described(group1, 1)
	found.AuthorizedOperations = groupOps
	want := &codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{
		{ErrorCode: codec.GroupIDNotFound, ErrorMessage: missing.ErrorMessage, GroupId: "nog", AuthorizedOperations: codec.AuthorizedOperationsOmitted},
		found,
		// Only the empty group id is INVALID_GROUP_ID (A3.3, §B7.2): no
		// trim, so " " is a group that does not exist.
		{ErrorCode: codec.InvalidGroupID, GroupId: "", AuthorizedOperations: codec.AuthorizedOperationsOmitted},
		{ErrorCode: codec.GroupIDNotFound, ErrorMessage: codec.Str("Group   not found."), GroupId: " ", AuthorizedOperations: codec.AuthorizedOperationsOmitted},
		found,
	}}
	tc.want("one answer per id, in request order; operations only for groups found", 1, resp, want)
	tc.want("no ids, no groups", 1, tc.send(1, &codec.ConsumerGroupDescribeRequest{}), &codec.ConsumerGroupDescribeResponse{})
}

// A classic member of a consumer group (A7.1) is described as CLASSIC at
// v1 (KIP-1099: Kafka 4.0 sets MemberType from the member's protocol), a
// consumer-protocol member as CONSUMER; v0 has no such field.
func TestDescribeClassicMemberType(t *testing.T) {
	ct := newClassicTest(t, bidirectional)
	cid := genID(99).String()
	if r := ct.consumerHeartbeat(1, consumerJoin(cid)); r.ErrorCode != codec.None {
		t.Fatalf("consumer join: %+v", r)
	}
	kid := genID(1).String()
	ct.join(2, 5, mixedJoin(t, ""))
	if got, _ := ct.join(2, 5, mixedJoin(t, kid)); got.ErrorCode != codec.None {
		t.Fatalf("classic join: %+v", got)
	}
	for _, tc := range []struct {
		version int16
		want    map[string]int8
	}{
		{0, map[string]int8{cid: codec.MemberTypeUnknown, kid: codec.MemberTypeUnknown}},
		{1, map[string]int8{cid: codec.MemberTypeConsumer, kid: codec.MemberTypeClassic}},
	} {
		resp, _ := ct.handle(3, tc.version, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}})
		g := resp.(*codec.ConsumerGroupDescribeResponse).Groups[0]
		if len(g.Members) != 2 {
			t.Fatalf("v%d: %d members, want 2: %+v", tc.version, len(g.Members), g)
		}
		for _, m := range g.Members {
			if m.MemberType != tc.want[m.MemberId] {
				t.Errorf("v%d: member %s MemberType %d, want %d", tc.version, m.MemberId, m.MemberType, tc.want[m.MemberId])
			}
		}
	}
}
