package model_test

import (
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
)

// LeaveGroup against a consumer-protocol group: the table of docs/PROTOCOL.md A3
// (§B5) as Kafka 4.0+ answers it (A3.1, KAFKA-18188): any member can be
// removed by its member id, a static one also by its instance id alone
// (administrative removal). Group g holds m1 (static, instance i1) and m2
// (dynamic), stable at epoch 2.

func lgMember(memberID, instanceID string) codec.LeaveGroupMember {
	return codec.LeaveGroupMember{MemberId: memberID, GroupInstanceId: nullable(instanceID)}
}

func lgResult(m codec.LeaveGroupMember, code codec.ErrorCode) codec.LeaveGroupMemberResponse {
	return codec.LeaveGroupMemberResponse{MemberId: m.MemberId, GroupInstanceId: m.GroupInstanceId, ErrorCode: code}
}

// m2Only is the group after m1 was removed: epoch 3, m2's target is all.
var m2Only = wantGroup{state: model.GroupStateReconciling, epoch: 3, members: []wantMember{
	{id: "m2", epoch: 2, assigned: m2Of2, target: allAB, topics: ab},
}}

// m1Only is the group after m2 was removed: epoch 3, m1's target is all.
var m1Only = wantGroup{state: model.GroupStateReconciling, epoch: 3, members: []wantMember{
	{id: "m1", instance: "i1", epoch: 2, assigned: m1Of2, target: allAB, topics: ab},
}}

func TestLeaveGroupTable(t *testing.T) {
	unchanged := stableTwo(true)
	rows := []struct {
		name  string
		entry codec.LeaveGroupMember
		code  codec.ErrorCode
		after *wantGroup // the group afterwards
	}{
		{"empty member id with a held instance id removes that member (administrative removal)", lgMember("", "i1"), codec.None, &m2Only},
		{"empty member id with an unknown instance id is UNKNOWN_MEMBER_ID", lgMember("", "i9"), codec.UnknownMemberID, &unchanged},
		{"empty member id with a null instance id is UNKNOWN_MEMBER_ID", lgMember("", ""), codec.UnknownMemberID, &unchanged},
		// Corrected (A3.1, KAFKA-18188): these two rows were
		// UNKNOWN_MEMBER_ID ("not a classic member"), Kafka 3.x's answer.
		{"a dynamic member's id with a null instance id removes it", lgMember("m2", ""), codec.None, &m1Only},
		{"a member id with the instance id it holds removes that member", lgMember("m1", "i1"), codec.None, &m2Only},
		{"a static member's id with a null instance id removes it", lgMember("m1", ""), codec.None, &m2Only},
		{"an unknown member id with a null instance id is UNKNOWN_MEMBER_ID", lgMember("m9", ""), codec.UnknownMemberID, &unchanged},
		{"a member id with an unknown instance id is UNKNOWN_MEMBER_ID", lgMember("m1", "i9"), codec.UnknownMemberID, &unchanged},
		{"an unknown member id with an unknown instance id is UNKNOWN_MEMBER_ID", lgMember("m9", "i9"), codec.UnknownMemberID, &unchanged},
		{"a member id with an instance id held by another member is FENCED_INSTANCE_ID", lgMember("m2", "i1"), codec.FencedInstanceID, &unchanged},
		{"an unknown member id with a held instance id is FENCED_INSTANCE_ID", lgMember("m9", "i1"), codec.FencedInstanceID, &unchanged},
	}
	for _, row := range rows {
		for v := int16(3); v <= 5; v++ {
			t.Run(fmt.Sprintf("v%d %s", v, row.name), func(t *testing.T) {
				tc := newCoordTest(t)
				twoStable(tc, true)
				entry := row.entry
				if v == 5 {
					entry.Reason = codec.Str("the operator said so")
				}
				got := tc.send(v, &codec.LeaveGroupRequest{GroupId: group1, Members: []codec.LeaveGroupMember{entry}})
				tc.want("per-member result, top level NONE", v, got, &codec.LeaveGroupResponse{
					Members: []codec.LeaveGroupMemberResponse{lgResult(row.entry, row.code)}})
				tc.wantDescribe("the group afterwards (a removal moves the epoch on by one)", group1, *row.after)
			})
		}
	}
}

func TestLeaveGroupRules(t *testing.T) {
	t.Run("a batch is answered entry by entry, in order, and fences its removals in one epoch", func(t *testing.T) {
		tc := newCoordTest(t)
		twoStable(tc, true)
		batch := []codec.LeaveGroupMember{lgMember("m1", "i1"), lgMember("", "i1"), lgMember("", "i1"), lgMember("m2", "")}
		// (Before A3.1 the first and last entries were UNKNOWN_MEMBER_ID
		// and the second removed m1.)
		tc.want("the first entry removes m1, the next two find i1 gone, the last removes m2", 4,
			tc.send(4, &codec.LeaveGroupRequest{GroupId: group1, Members: batch}),
			&codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{
				lgResult(batch[0], codec.None), lgResult(batch[1], codec.UnknownMemberID),
				lgResult(batch[2], codec.UnknownMemberID), lgResult(batch[3], codec.None),
			}})
		tc.wantDescribe("both gone at epoch 3: one bump for the batch (A3.2)", group1,
			wantGroup{state: model.GroupStateEmpty, epoch: 3})
		tc.want("the removed static member's next heartbeat finds its instance unknown", 1,
			tc.heartbeat(1, testreq.StaticHeartbeat(group1, "m1", "i1", 2, m1Of2)),
			&codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.UnknownMemberID, ErrorMessage: codec.Str("Instance id i1 is unknown.")})
		tc.want("the removed dynamic member's next heartbeat is UNKNOWN_MEMBER_ID", 1,
			tc.heartbeat(1, testreq.Heartbeat(group1, "m2", 2, m2Of2)),
			&codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.UnknownMemberID, ErrorMessage: codec.Str("Member m2 is not a member of group g.")})
	})
	t.Run("removing two of three members moves the epoch once and recomputes the target once", func(t *testing.T) {
		tc := newCoordTest(t)
		twoStable(tc, true)
		// m3 joins on a and b: epoch 3, keys i1 (m1), m2, m3:
		// a0->m1 a1->m2 a2->m3, b0->m1 (3+0 mod 3) b1->m2.
		tc.want("m3 joins and waits for what m1 and m2 own", 1,
			tc.heartbeat(1, testreq.Join(group1, "m3", rebalanceMs, "a", "b")), success("m3", 3, ""))
		batch := []codec.LeaveGroupMember{lgMember("", "i1"), lgMember("m2", "")}
		tc.want("both removed", 3, tc.send(3, &codec.LeaveGroupRequest{GroupId: group1, Members: batch}),
			&codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{
				lgResult(batch[0], codec.None), lgResult(batch[1], codec.None)}})
		tc.wantDescribe("epoch 4, not 5; m3's target is everything", group1, wantGroup{
			state: model.GroupStateReconciling, epoch: 4, members: []wantMember{
				{id: "m3", epoch: 3, target: allAB, topics: ab},
			}})
		tc.want("m3 moves to epoch 4 and takes everything, all of it free", 1,
			tc.heartbeat(1, testreq.Heartbeat(group1, "m3", 3, "")), success("m3", 4, allAB))
	})
	t.Run("a batch that removes nobody does not move the epoch", func(t *testing.T) {
		tc := newCoordTest(t)
		twoStable(tc, true)
		batch := []codec.LeaveGroupMember{lgMember("m9", ""), lgMember("", "i9"), lgMember("m2", "i1")}
		tc.want("every entry an error", 5, tc.send(5, &codec.LeaveGroupRequest{GroupId: group1, Members: batch}),
			&codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{
				lgResult(batch[0], codec.UnknownMemberID), lgResult(batch[1], codec.UnknownMemberID),
				lgResult(batch[2], codec.FencedInstanceID)}})
		tc.wantDescribe("nobody removed, epoch 2", group1, stableTwo(true))
	})
	t.Run("administrative removal also removes a parked member", func(t *testing.T) {
		tc := newCoordTest(t)
		m1StaticAlone(tc)
		tc.ok(1, testreq.Leave(group1, "m1", -2, "i1"))
		tc.want("removed", 3, tc.send(3, &codec.LeaveGroupRequest{GroupId: group1, Members: []codec.LeaveGroupMember{lgMember("", "i1")}}),
			&codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{lgResult(lgMember("", "i1"), codec.None)}})
		tc.wantDescribe("an empty group at epoch 2", group1, wantGroup{state: model.GroupStateEmpty, epoch: 2})
	})
	t.Run("an empty batch is answered NONE with no members", func(t *testing.T) {
		tc := newCoordTest(t)
		twoStable(tc, true)
		tc.want("nothing to do", 3, tc.send(3, &codec.LeaveGroupRequest{GroupId: group1}), &codec.LeaveGroupResponse{})
		tc.wantDescribe("nobody removed", group1, stableTwo(true))
	})
	for v := int16(3); v <= 5; v++ {
		leaveGroupV3Errors(t, v)
	}
	for v := int16(0); v <= 2; v++ {
		leaveGroupV0(t, v)
	}
}

// leaveGroupV3Errors: the group-level answers of LeaveGroup v3+.
func leaveGroupV3Errors(t *testing.T, v int16) {
	t.Run(fmt.Sprintf("v%d a missing group answers every member UNKNOWN_MEMBER_ID, top level NONE", v), func(t *testing.T) {
		tc := newCoordTest(t)
		batch := []codec.LeaveGroupMember{lgMember("", "i1"), lgMember("m1", "")}
		tc.want("every member unknown", v, tc.send(v, &codec.LeaveGroupRequest{GroupId: "nog", Members: batch}),
			&codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{
				lgResult(batch[0], codec.UnknownMemberID), lgResult(batch[1], codec.UnknownMemberID)}})
		tc.wantNoGroup("no group is created", "nog")
	})
	t.Run(fmt.Sprintf("v%d an empty group id is INVALID_GROUP_ID at the top level", v), func(t *testing.T) {
		tc := newCoordTest(t)
		tc.want("no member results", v, tc.send(v, &codec.LeaveGroupRequest{GroupId: "", Members: []codec.LeaveGroupMember{lgMember("", "i1")}}),
			&codec.LeaveGroupResponse{ErrorCode: codec.InvalidGroupID})
	})
	// Corrected (A3.3): a blank group id was INVALID_GROUP_ID.
	t.Run(fmt.Sprintf("v%d a blank group id is not trimmed: a missing group", v), func(t *testing.T) {
		tc := newCoordTest(t)
		tc.want("the member unknown, top level NONE", v, tc.send(v, &codec.LeaveGroupRequest{GroupId: "  ", Members: []codec.LeaveGroupMember{lgMember("", "i1")}}),
			&codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{lgResult(lgMember("", "i1"), codec.UnknownMemberID)}})
		tc.wantNoGroup("no group is created", "  ")
	})
}

// leaveGroupV0: v0-v2 name one member id and carry its result at the top
// level. A member of the group is removed (A3.1; corrected: both member
// rows were UNKNOWN_MEMBER_ID, "not a classic member").
func leaveGroupV0(t *testing.T, v int16) {
	unchanged := stableTwo(true)
	for _, c := range []struct {
		name, group, member string
		code                codec.ErrorCode
		after               *wantGroup
	}{
		{"a dynamic member's id removes it, top level NONE", group1, "m2", codec.None, &m1Only},
		{"a static member's id removes it, top level NONE", group1, "m1", codec.None, &m2Only},
		{"an unknown member id is UNKNOWN_MEMBER_ID", group1, "m9", codec.UnknownMemberID, &unchanged},
		{"an empty member id is UNKNOWN_MEMBER_ID", group1, "", codec.UnknownMemberID, &unchanged},
		{"a missing group is UNKNOWN_MEMBER_ID at the top level", "nog", "m1", codec.UnknownMemberID, &unchanged},
		{"a blank group id is a missing group: UNKNOWN_MEMBER_ID", "  ", "m1", codec.UnknownMemberID, &unchanged},
		{"an empty group id is INVALID_GROUP_ID", "", "m1", codec.InvalidGroupID, &unchanged},
	} {
		t.Run(fmt.Sprintf("v%d %s", v, c.name), func(t *testing.T) {
			tc := newCoordTest(t)
			twoStable(tc, true)
			tc.want("the top-level code", v, tc.send(v, &codec.LeaveGroupRequest{GroupId: c.group, MemberId: c.member}),
				&codec.LeaveGroupResponse{ErrorCode: c.code})
			tc.wantDescribe("the group afterwards", group1, *c.after)
		})
	}
}
