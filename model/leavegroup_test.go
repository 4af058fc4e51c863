package model_test

import (
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
)

// LeaveGroup against a consumer-protocol group: the table of docs/PROTOCOL.md A3
// (§B5). Group g holds m1 (static, instance i1) and m2 (dynamic), stable at
// epoch 2. Only the administrative removal (MemberId "" with a held
// instance id) removes anyone.

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

func TestLeaveGroupTable(t *testing.T) {
	rows := []struct {
		name    string
		entry   codec.LeaveGroupMember
		code    codec.ErrorCode
		removed bool
	}{
		{"empty member id with a held instance id removes that member (administrative removal)", lgMember("", "i1"), codec.None, true},
		{"empty member id with an unknown instance id is UNKNOWN_MEMBER_ID", lgMember("", "i9"), codec.UnknownMemberID, false},
		{"empty member id with a null instance id is UNKNOWN_MEMBER_ID", lgMember("", ""), codec.UnknownMemberID, false},
		{"a consumer member's id with a null instance id is UNKNOWN_MEMBER_ID (not a classic member)", lgMember("m2", ""), codec.UnknownMemberID, false},
		{"an unknown member id with a null instance id is UNKNOWN_MEMBER_ID", lgMember("m9", ""), codec.UnknownMemberID, false},
		{"a member id with an unknown instance id is UNKNOWN_MEMBER_ID", lgMember("m1", "i9"), codec.UnknownMemberID, false},
		{"a member id with an instance id held by another member is FENCED_INSTANCE_ID", lgMember("m2", "i1"), codec.FencedInstanceID, false},
		{"a member id with the instance id it holds is UNKNOWN_MEMBER_ID (not a classic member)", lgMember("m1", "i1"), codec.UnknownMemberID, false},
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
				if row.removed {
					tc.wantDescribe("m1 removed, group epoch bumped", group1, m2Only)
				} else {
					tc.wantDescribe("nobody removed", group1, stableTwo(true))
				}
			})
		}
	}
}

func TestLeaveGroupRules(t *testing.T) {
	t.Run("a batch is answered entry by entry, in order", func(t *testing.T) {
		tc := newCoordTest(t)
		twoStable(tc, true)
		batch := []codec.LeaveGroupMember{lgMember("m1", "i1"), lgMember("", "i1"), lgMember("", "i1"), lgMember("m2", "")}
		tc.want("the second entry removes m1; the third finds i1 gone", 4,
			tc.send(4, &codec.LeaveGroupRequest{GroupId: group1, Members: batch}),
			&codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{
				lgResult(batch[0], codec.UnknownMemberID), lgResult(batch[1], codec.None),
				lgResult(batch[2], codec.UnknownMemberID), lgResult(batch[3], codec.UnknownMemberID),
			}})
		tc.wantDescribe("only m2 is left", group1, m2Only)
		tc.want("the removed static member's next heartbeat finds its instance unknown", 1,
			tc.heartbeat(1, staticHB(group1, "m1", "i1", 2, m1Of2)),
			&codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.UnknownMemberID, ErrorMessage: codec.Str("Instance id i1 is unknown.")})
	})
	t.Run("administrative removal also removes a parked member", func(t *testing.T) {
		tc := newCoordTest(t)
		m1StaticAlone(tc)
		tc.ok(1, leave(group1, "m1", -2, "i1"))
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
		t.Run(fmt.Sprintf("v%d a missing group answers every member UNKNOWN_MEMBER_ID, top level NONE", v), func(t *testing.T) {
			tc := newCoordTest(t)
			batch := []codec.LeaveGroupMember{lgMember("", "i1"), lgMember("m1", "")}
			tc.want("every member unknown", v, tc.send(v, &codec.LeaveGroupRequest{GroupId: "nog", Members: batch}),
				&codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{
					lgResult(batch[0], codec.UnknownMemberID), lgResult(batch[1], codec.UnknownMemberID)}})
			tc.wantNoGroup("no group is created", "nog")
		})
		t.Run(fmt.Sprintf("v%d a blank group id is INVALID_GROUP_ID at the top level", v), func(t *testing.T) {
			tc := newCoordTest(t)
			tc.want("no member results", v, tc.send(v, &codec.LeaveGroupRequest{GroupId: " ", Members: []codec.LeaveGroupMember{lgMember("", "i1")}}),
				&codec.LeaveGroupResponse{ErrorCode: codec.InvalidGroupID})
		})
	}
	// v0-v2 name one member id and carry its result at the top level.
	for v := int16(0); v <= 2; v++ {
		for _, c := range []struct {
			name, group, member string
			code                codec.ErrorCode
		}{
			{"a consumer member's id is UNKNOWN_MEMBER_ID (not a classic member)", group1, "m2", codec.UnknownMemberID},
			{"a static consumer member's id is UNKNOWN_MEMBER_ID", group1, "m1", codec.UnknownMemberID},
			{"an empty member id is UNKNOWN_MEMBER_ID", group1, "", codec.UnknownMemberID},
			{"a missing group is UNKNOWN_MEMBER_ID at the top level", "nog", "m1", codec.UnknownMemberID},
			{"a blank group id is INVALID_GROUP_ID", "", "m1", codec.InvalidGroupID},
		} {
			t.Run(fmt.Sprintf("v%d %s", v, c.name), func(t *testing.T) {
				tc := newCoordTest(t)
				twoStable(tc, true)
				tc.want("the top-level code", v, tc.send(v, &codec.LeaveGroupRequest{GroupId: c.group, MemberId: c.member}),
					&codec.LeaveGroupResponse{ErrorCode: c.code})
				tc.wantDescribe("nobody removed", group1, stableTwo(true))
			})
		}
	}
}
