package model_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
)

// The leave path of §B4.4 (epoch -1 and -2): checked after validation, no
// epoch check against the stored epoch, and a response that echoes the
// member id and epoch with nothing else (HeartbeatIntervalMs 0, no
// Assignment: Kafka's leave answers MemberId and MemberEpoch only).
func TestLeaveRules(t *testing.T) {
	empty := func(epoch int32) *wantGroup {
		return &wantGroup{state: model.GroupStateEmpty, epoch: epoch}
	}
	runHeartbeatCases(t, []hbCase{
		{name: "leave from a missing group is GROUP_ID_NOT_FOUND", version: 1,
			req: testreq.Leave(group1, "m1", -1, ""), wantErr: &errWant{codec.GroupIDNotFound, []string{group1}}},
		{name: "static leave from a missing group is GROUP_ID_NOT_FOUND", version: 1,
			req: testreq.Leave(group1, "m1", -2, "i1"), wantErr: &errWant{codec.GroupIDNotFound, []string{group1}}},
		{name: "dynamic leave of an unknown member id is UNKNOWN_MEMBER_ID", version: 1,
			setup: m1Alone, req: testreq.Leave(group1, "m9", -1, ""),
			wantErr: &errWant{codec.UnknownMemberID, []string{"m9", group1}}, group: &alone},
		{name: "dynamic leave removes the member and bumps the group epoch", version: 1,
			setup: func(tc *coordTest) { twoStable(tc, false) },
			req:   testreq.Leave(group1, "m2", -1, ""), want: left("m2", -1),
			group: &wantGroup{state: model.GroupStateReconciling, epoch: 3, members: []wantMember{
				{id: "m1", epoch: 2, assigned: m1Of2, target: allAB, topics: ab},
			}}},
		{name: "the last member leaving leaves an empty group behind", version: 1,
			setup: m1Alone, req: testreq.Leave(group1, "m1", -1, ""), want: left("m1", -1), group: empty(2)},
		{name: "a second leave is UNKNOWN_MEMBER_ID (a leave is not idempotent)", version: 1,
			setup:   func(tc *coordTest) { m1Alone(tc); tc.ok(1, testreq.Leave(group1, "m1", -1, "")) },
			req:     testreq.Leave(group1, "m1", -1, ""),
			wantErr: &errWant{codec.UnknownMemberID, []string{"m1", group1}}, group: empty(2)},
		{name: "leave needs no epoch check: a leave from a member behind the group epoch is accepted", version: 1,
			setup: func(tc *coordTest) { m1Alone(tc); tc.ok(1, testreq.Join(group1, "m2", rebalanceMs, "a", "b")) },
			req:   testreq.Leave(group1, "m1", -1, ""), want: left("m1", -1),
			group: &wantGroup{state: model.GroupStateReconciling, epoch: 3, members: []wantMember{
				{id: "m2", epoch: 2, target: allAB, topics: ab},
			}}},
		{name: "static leave for an unknown instance is UNKNOWN_MEMBER_ID", version: 1,
			setup: m1Alone, req: testreq.Leave(group1, "m1", -1, "i9"),
			want:  &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.UnknownMemberID, ErrorMessage: codec.Str("Instance id i9 is unknown.")},
			group: &alone},
		{name: "static leave by a member id that does not hold the instance is FENCED_INSTANCE_ID", version: 1,
			setup: m1StaticAlone, req: testreq.Leave(group1, "m2", -2, "i1"),
			wantErr: &errWant{codec.FencedInstanceID, []string{"m2", "i1", "m1"}}, group: staticAlone()},
		{name: "static leave -2 parks the member: assignment kept, group epoch unchanged", version: 1,
			setup: m1StaticAlone, req: testreq.Leave(group1, "m1", -2, "i1"), want: left("m1", -2), group: parkedAlone()},
		{name: "a parked member leaving again with -2 stays parked", version: 1,
			setup: func(tc *coordTest) { m1StaticAlone(tc); tc.ok(1, testreq.Leave(group1, "m1", -2, "i1")) },
			req:   testreq.Leave(group1, "m1", -2, "i1"), want: left("m1", -2), group: parkedAlone()},
		{name: "static leave -1 removes the static member", version: 1,
			setup: m1StaticAlone, req: testreq.Leave(group1, "m1", -1, "i1"), want: left("m1", -1), group: empty(2)},
		{name: "a parked member leaving with -1 is removed", version: 1,
			setup: func(tc *coordTest) { m1StaticAlone(tc); tc.ok(1, testreq.Leave(group1, "m1", -2, "i1")) },
			req:   testreq.Leave(group1, "m1", -1, "i1"), want: left("m1", -1), group: empty(2)},
		{name: "a static member leaving with -1 and a null instance id takes the dynamic path and frees its instance", version: 1,
			setup: m1StaticAlone, req: testreq.Leave(group1, "m1", -1, ""), want: left("m1", -1), group: empty(2),
			then: func(tc *coordTest) {
				tc.want("instance i1 is free for a new member id", 1,
					tc.heartbeat(1, testreq.StaticJoin(group1, "m2", "i1", rebalanceMs, "a", "b")), success("m2", 3, allAB))
			}},
		{name: "v0 static leave with empty member id, whose instance the broker-made member holds, is FENCED_INSTANCE_ID", version: 0,
			setup:   func(tc *coordTest) { tc.ok(0, testreq.StaticJoin(group1, "", "i1", rebalanceMs, "a", "b")) },
			req:     testreq.Leave(group1, "", -2, "i1"),
			wantErr: &errWant{codec.FencedInstanceID, []string{"i1", genID(1).String()}},
			group: &wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
				{id: genID(1).String(), instance: "i1", epoch: 1, assigned: allAB, target: allAB, topics: ab},
			}}},
	})
}

// Static membership (§B4.4 rule 5, A1, A5.5): a parked member keeps its
// partitions until it comes back or its session ends; a new member id takes
// over a parked instance, and the same id resumes, without a membership
// change (KIP-345: a static restart is not a rebalance).
func TestStaticMemberRules(t *testing.T) {
	parkedOfTwo := func(tc *coordTest) {
		twoStable(tc, true)
		tc.ok(1, testreq.Leave(group1, "m1", -2, "i1"))
	}
	// m1 (i1) alone owns everything, parks; m2 joins (group epoch 2) and
	// waits for a1 b0, which the parked m1 still owns.
	parkedThenJoined := func(tc *coordTest) {
		m1StaticAlone(tc)
		tc.ok(1, testreq.Leave(group1, "m1", -2, "i1"))
		tc.want("m2 gets nothing while the parked m1 owns its target", 1,
			tc.heartbeat(1, testreq.Join(group1, "m2", rebalanceMs, "a", "b")), success("m2", 2, ""))
	}
	// Coming back, m1 resumes at epoch 0: a1 b0 are no longer its target,
	// so they go to pending revocation and m1 stays at epoch 0 (A5 step 3)
	// until its next join reports them gone.
	resumedBehind := &wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
		{id: "m1", instance: "i1", epoch: 0, assigned: m1Of2, target: m1Of2, topics: ab},
		{id: "m2", epoch: 2, target: m2Of2, topics: ab},
	}}
	runHeartbeatCases(t, []hbCase{
		{name: "a parked static member rejoining under its own id resumes without a group-epoch bump", version: 1,
			setup: parkedOfTwo, req: testreq.StaticJoin(group1, "m1", "i1", rebalanceMs, "a", "b"),
			want: success("m1", 2, m1Of2), group: ptr(stableTwo(true))},
		{name: "a parked member resuming behind the group epoch revokes what is no longer its target first", version: 1,
			setup: parkedThenJoined, req: testreq.StaticJoin(group1, "m1", "i1", rebalanceMs, "a", "b"),
			want: success("m1", 0, m1Of2), group: resumedBehind},
		{name: "a parked member resuming with a null instance id resumes the same way (never answers epoch -2)", version: 1,
			setup: parkedThenJoined, req: testreq.Join(group1, "m1", rebalanceMs, "a", "b"),
			want: success("m1", 0, m1Of2), group: resumedBehind},
		// Corrected (A5.5, KIP-345's promise): a takeover was a membership
		// change (group epoch +1, targets recomputed from member ids).
		{name: "a new member id takes over a parked instance: no group-epoch bump, the old target at the current epoch", version: 1,
			setup: parkedOfTwo, req: testreq.StaticJoin(group1, "m3", "i1", rebalanceMs, "a", "b"),
			// m3 sorts after m2 by member id, but the assignor keys a
			// static member by its instance id (A5.2): i1 keeps its slot,
			// so m3 gets m1's target, which it inherited, at epoch 2, and
			// m2's target does not move.
			want: success("m3", 2, m1Of2),
			group: &wantGroup{state: model.GroupStateStable, epoch: 2, members: []wantMember{
				{id: "m2", epoch: 2, assigned: m2Of2, target: m2Of2, topics: ab},
				{id: "m3", instance: "i1", epoch: 2, assigned: m1Of2, target: m1Of2, topics: ab},
			}}},
		{name: "a takeover whose inherited partitions are not all its target revokes the rest first, at epoch 0", version: 1,
			setup: parkedThenJoined, req: testreq.StaticJoin(group1, "m3", "i1", rebalanceMs, "a", "b"),
			// The parked m1 kept a0 a1 a2 b0 b1 while m2's join moved the
			// epoch to 2 and its target to a0 a2 b1. m3 inherits all five
			// at epoch 0, no bump: a1 b0 go to pending revocation, so m3
			// stays at epoch 0 with a0 a2 b1, as m1 resuming would.
			want: success("m3", 0, m1Of2),
			group: &wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
				{id: "m2", epoch: 2, target: m2Of2, topics: ab},
				{id: "m3", instance: "i1", epoch: 0, assigned: m1Of2, target: m1Of2, topics: ab},
			}},
			then: func(tc *coordTest) {
				tc.want("m3's next request is a join (epoch 0): it reports nothing, a1 b0 are released; epoch 2", 1,
					tc.heartbeat(1, testreq.StaticJoin(group1, "m3", "i1", rebalanceMs, "a", "b")), success("m3", 2, m1Of2))
				tc.want("m2 collects a1 b0", 1, tc.heartbeat(1, testreq.Heartbeat(group1, "m2", 2, "")), success("m2", 2, m2Of2))
				tc.wantDescribe("stable at epoch 2, never bumped by the takeover", group1, wantGroup{state: model.GroupStateStable, epoch: 2, members: []wantMember{
					{id: "m2", epoch: 2, assigned: m2Of2, target: m2Of2, topics: ab},
					{id: "m3", instance: "i1", epoch: 2, assigned: m1Of2, target: m1Of2, topics: ab},
				}})
			}},
		{name: "a takeover with a changed subscription bumps the epoch, as any subscription change", version: 1,
			setup: parkedOfTwo, req: testreq.StaticJoin(group1, "m3", "i1", rebalanceMs, "a"),
			// Epoch 3. a: keys i1 (m3), m2: a0->m3 a1->m2 a2->m3; b: only
			// m2: b0 b1->m2. m3 inherited a0 a2 b1 and must revoke b1.
			want: success("m3", 0, "a0 a2"),
			group: &wantGroup{state: model.GroupStateReconciling, epoch: 3, members: []wantMember{
				{id: "m2", epoch: 2, assigned: m2Of2, target: "a1 b0 b1", topics: ab},
				{id: "m3", instance: "i1", epoch: 0, assigned: "a0 a2", target: "a0 a2", topics: []string{"a"}},
			}}},
		{name: "while parked, a member's partitions stay out of others' reach", version: 1,
			setup: parkedThenJoined, req: testreq.Heartbeat(group1, "m2", 2, ""),
			want: success("m2", 2, "-"),
			group: &wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
				{id: "m1", instance: "i1", epoch: -2, assigned: allAB, target: m1Of2, topics: ab},
				{id: "m2", epoch: 2, target: m2Of2, topics: ab},
			}}},
		{name: "a static keepalive with a null instance id takes the dynamic path", version: 1,
			setup: m1StaticAlone, req: testreq.Heartbeat(group1, "m1", 1, allAB),
			want: success("m1", 1, "-"), group: staticAlone()},
	})
}

func ptr[T any](v T) *T { return &v }
