package model_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
)

// Hand-computed assignments (docs/PROTOCOL.md A5, uniform assignor; topics
// a:3, b:2, c:1; subscribers sorted by member id; partition p of a topic
// goes to subscriber (offset+p) mod k, and offset grows by the partition
// count of each topic that has subscribers):
//
//	m1 alone on a,b:   m1 = a0 a1 a2 b0 b1
//	m1, m2 on a,b:     a: a0->m1 a1->m2 a2->m1 (offset 0)
//	                   b: b0->m2 (3+0 mod 2 = 1) b1->m1 (3+1 mod 2 = 0)
//	                   m1 = a0 a2 b1, m2 = a1 b0
const (
	allAB  = "a0 a1 a2 b0 b1"
	m1Of2  = "a0 a2 b1"
	m2Of2  = "a1 b0"
	group1 = "g"
)

var ab = []string{"a", "b"}

// alone is group g after m1 joined alone on a and b.
var alone = wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
	{id: "m1", epoch: 1, assigned: allAB, target: allAB, topics: ab},
}}

func m1Alone(tc *coordTest) { tc.ok(1, testreq.Join(group1, "m1", rebalanceMs, "a", "b")) }

func m1StaticAlone(tc *coordTest) {
	tc.ok(1, testreq.StaticJoin(group1, "m1", "i1", rebalanceMs, "a", "b"))
}

// twoStable brings m1 and m2 (both on a and b) to a stable group at epoch
// 2; m1 is static (instance i1) when static is set. The same steps are
// checked response by response in TestReconciliationTranscript.
func twoStable(tc *coordTest, static bool) {
	j1, h1, h1b := testreq.Join(group1, "m1", rebalanceMs, "a", "b"), testreq.Heartbeat(group1, "m1", 1, allAB), testreq.Heartbeat(group1, "m1", 1, m1Of2)
	if static {
		j1, h1, h1b = testreq.StaticJoin(group1, "m1", "i1", rebalanceMs, "a", "b"), testreq.StaticHeartbeat(group1, "m1", "i1", 1, allAB), testreq.StaticHeartbeat(group1, "m1", "i1", 1, m1Of2)
	}
	tc.ok(1, j1)
	tc.ok(1, testreq.Join(group1, "m2", rebalanceMs, "a", "b"))
	tc.ok(1, h1)  // m1 must revoke a1 b0
	tc.ok(1, h1b) // m1 revoked them: epoch 2
	tc.ok(1, testreq.Heartbeat(group1, "m2", 2, ""))
}

func stableTwo(static bool) wantGroup {
	inst := ""
	if static {
		inst = "i1"
	}
	return wantGroup{state: model.GroupStateStable, epoch: 2, members: []wantMember{
		{id: "m1", instance: inst, epoch: 2, assigned: m1Of2, target: m1Of2, topics: ab},
		{id: "m2", epoch: 2, assigned: m2Of2, target: m2Of2, topics: ab},
	}}
}

// errWant is an error whose message docs/PROTOCOL.md does not quote: the code
// and what the message must name.
type errWant struct {
	code     codec.ErrorCode
	mentions []string
}

// hbCase is one rule: a setup that must succeed, one request, its full
// response, and the group as ConsumerGroupDescribe shows it afterwards.
type hbCase struct {
	name    string
	tweak   func(*model.Config)
	setup   func(*coordTest)
	version int16
	req     *codec.ConsumerGroupHeartbeatRequest
	want    *codec.ConsumerGroupHeartbeatResponse // the full response, or
	wantErr *errWant                              // an error with an unquoted message
	group   *wantGroup                            // group g afterwards; nil = it does not exist
	then    func(*coordTest)                      // further checks
}

func runHeartbeatCases(t *testing.T, cases []hbCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tweaks []func(*model.Config)
			if c.tweak != nil {
				tweaks = append(tweaks, c.tweak)
			}
			tc := newCoordTest(t, tweaks...)
			if c.setup != nil {
				c.setup(tc)
			}
			got := tc.heartbeat(c.version, c.req)
			switch {
			case c.want != nil:
				tc.want("the response", c.version, got, c.want)
			case c.wantErr != nil:
				tc.wantHeartbeatError("the response", got, c.wantErr.code, c.wantErr.mentions...)
			default:
				t.Fatal("case states no expected response")
			}
			if c.group != nil {
				tc.wantDescribe("the group afterwards", group1, *c.group)
			} else {
				tc.wantNoGroup("no group afterwards", group1)
			}
			if c.then != nil {
				c.then(tc)
			}
		})
	}
}

func withRegex(r *codec.ConsumerGroupHeartbeatRequest, re string) *codec.ConsumerGroupHeartbeatRequest {
	r.SubscribedTopicRegex = codec.Str(re)
	return r
}

func with(r *codec.ConsumerGroupHeartbeatRequest, f func(*codec.ConsumerGroupHeartbeatRequest)) *codec.ConsumerGroupHeartbeatRequest {
	f(r)
	return r
}

// Every row of §B4.2, in its order: each case breaks its own row and every
// later row it can, so it also shows that its row is checked first. A group
// g with m1 exists, and must come out unchanged.
func TestValidationRules(t *testing.T) {
	const (
		memberMsg    = "MemberId can't be empty."
		groupMsg     = "GroupId can't be empty."
		instanceMsg  = "InstanceId can't be empty."
		rackMsg      = "RackId can't be empty."
		rebalanceMsg = "RebalanceTimeoutMs must be provided in first request."
		tpMsg        = "TopicPartitions must be empty when (re-)joining."
		subsMsg      = "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining."
		nullInstMsg  = "InstanceId can't be null."
		epochMsg     = "MemberEpoch is invalid."
	)
	// badJoin breaks every join row from "RebalanceTimeoutMs" on, and the
	// assignor row.
	badJoin := func(member string) *codec.ConsumerGroupHeartbeatRequest {
		return &codec.ConsumerGroupHeartbeatRequest{GroupId: group1, MemberId: member, MemberEpoch: 0,
			RebalanceTimeoutMs: -1, ServerAssignor: codec.Str("range")}
	}
	cases := []hbCase{
		{name: "v1 join with empty member id is INVALID_REQUEST", version: 1,
			req: testreq.Join(group1, "", rebalanceMs, "a"), want: invalid(memberMsg)},
		{name: "v1 join with blank member id is INVALID_REQUEST", version: 1,
			req: testreq.Join(group1, " \t ", rebalanceMs, "a"), want: invalid(memberMsg)},
		{name: "v1 heartbeat with blank member id is INVALID_REQUEST", version: 1,
			req: testreq.Heartbeat(group1, "  ", 1, ""), want: invalid(memberMsg)},
		{name: "v1 static leave with empty member id is INVALID_REQUEST", version: 1,
			req: testreq.Leave(group1, "", -2, "i1"), want: invalid(memberMsg)},
		{name: "v0 heartbeat (epoch > 0) with empty member id is INVALID_REQUEST", version: 0,
			req: testreq.Heartbeat(group1, "", 1, ""), want: invalid(memberMsg)},
		{name: "v0 leave (epoch -1) with blank member id is INVALID_REQUEST", version: 0,
			req: testreq.Leave(group1, " ", -1, ""), want: invalid(memberMsg)},
		{name: "member id is checked before every other field", version: 1,
			req: with(badJoin(""), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.GroupId, r.InstanceId, r.RackId = " ", codec.Str(" "), codec.Str("")
			}), want: invalid(memberMsg)},
		{name: "blank group id is INVALID_REQUEST, checked before the instance id", version: 1,
			req: with(badJoin("m9"), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.GroupId, r.InstanceId, r.RackId = "\t", codec.Str(" "), codec.Str("")
			}), want: invalid(groupMsg)},
		{name: "blank instance id is INVALID_REQUEST, checked before the rack id", version: 1,
			req: with(badJoin("m9"), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.InstanceId, r.RackId = codec.Str(""), codec.Str(" ")
			}), want: invalid(instanceMsg)},
		{name: "blank rack id is INVALID_REQUEST, checked before the join fields", version: 1,
			req: with(badJoin("m9"), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.RackId = codec.Str("  ")
			}), want: invalid(rackMsg)},
		{name: "join without RebalanceTimeoutMs is INVALID_REQUEST, checked before TopicPartitions", version: 1,
			req: badJoin("m9"), want: invalid(rebalanceMsg)},
		{name: "join with null TopicPartitions is INVALID_REQUEST, checked before the subscription", version: 1,
			req: with(badJoin("m9"), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.RebalanceTimeoutMs = rebalanceMs
			}), want: invalid(tpMsg)},
		{name: "join reporting owned partitions is INVALID_REQUEST", version: 1,
			req: with(testreq.Join(group1, "m9", rebalanceMs, "a"), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.TopicPartitions = testreq.Owned("a0")
			}), want: invalid(tpMsg)},
		{name: "join with neither topic names nor regex is INVALID_REQUEST, checked before the assignor", version: 1,
			req: with(badJoin("m9"), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.RebalanceTimeoutMs, r.TopicPartitions = rebalanceMs, testreq.Owned("")
			}), want: invalid(subsMsg)},
		{name: "static leave (-2) without instance id is INVALID_REQUEST, checked before the assignor", version: 1,
			req: with(testreq.Leave(group1, "m1", -2, ""), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.ServerAssignor = codec.Str("range")
			}), want: invalid(nullInstMsg)},
		{name: "member epoch below -2 is INVALID_REQUEST, checked before the assignor", version: 1,
			req: with(testreq.Leave(group1, "m1", -3, ""), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.ServerAssignor = codec.Str("range")
			}), want: invalid(epochMsg)},
		{name: "unknown server assignor is UNSUPPORTED_ASSIGNOR", version: 1,
			req: with(testreq.Join(group1, "m1", rebalanceMs, "a", "b"), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.ServerAssignor = codec.Str("range")
			}), wantErr: &errWant{codec.UnsupportedAssignor, []string{"range"}}},
	}
	for i := range cases {
		cases[i].setup = m1Alone
		g := alone
		cases[i].group = &g
	}
	runHeartbeatCases(t, cases)
}

// What §B4.2 lets through, and what a failed request leaves behind.
func TestValidationAccepts(t *testing.T) {
	runHeartbeatCases(t, []hbCase{
		{name: "v0 join with empty member id gets the id the coordinator makes (Config.NewID)", version: 0,
			req:  testreq.Join(group1, "", rebalanceMs, "a", "b"),
			want: success(genID(1).String(), 1, allAB),
			group: &wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
				{id: genID(1).String(), epoch: 1, assigned: allAB, target: allAB, topics: ab},
			}}},
		{name: "v0 join with a client-made member id keeps that id", version: 0,
			req: testreq.Join(group1, "m1", rebalanceMs, "a", "b"), want: success("m1", 1, allAB), group: &alone},
		{name: "v1 join with any non-blank member id is accepted (no format check)", version: 1,
			req:  testreq.Join(group1, "not-a-uuid", rebalanceMs, "a"),
			want: success("not-a-uuid", 1, "a0 a1 a2"),
			group: &wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
				{id: "not-a-uuid", epoch: 1, assigned: "a0 a1 a2", target: "a0 a1 a2", topics: []string{"a"}},
			}}},
		{name: "join with an empty topic list is accepted and assigns nothing", version: 1,
			req:  testreq.Join(group1, "m1", rebalanceMs),
			want: success("m1", 1, ""),
			group: &wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
				{id: "m1", epoch: 1, topics: []string{}},
			}}},
		{name: "server assignor uniform is accepted", version: 1,
			req: with(testreq.Join(group1, "m1", rebalanceMs, "a", "b"), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.ServerAssignor = codec.Str("uniform")
			}), want: success("m1", 1, allAB), group: &alone},
		{name: "rack id is kept and described", version: 1,
			req: with(testreq.Join(group1, "m1", rebalanceMs, "a"), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.RackId = codec.Str("rack-1")
			}), want: success("m1", 1, "a0 a1 a2"),
			group: &wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
				{id: "m1", epoch: 1, assigned: "a0 a1 a2", target: "a0 a1 a2", topics: []string{"a"}, rack: "rack-1"},
			}}},
		{name: "a failed v1 join with empty member id creates no group", version: 1,
			req: testreq.Join(group1, "", rebalanceMs, "a"), want: invalid("MemberId can't be empty.")},
		{name: "a join with an unknown assignor creates no group", version: 1,
			req: with(testreq.Join(group1, "m1", rebalanceMs, "a"), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.ServerAssignor = codec.Str("range")
			}), wantErr: &errWant{codec.UnsupportedAssignor, []string{"range"}}},
		{name: "a v1 join with an invalid regex is INVALID_REGULAR_EXPRESSION and creates no group", version: 1,
			req:     withRegex(testreq.Join(group1, "m1", rebalanceMs), "a("),
			wantErr: &errWant{codec.InvalidRegularExpression, []string{"a("}}},
		{name: "an unchanged subscription (reordered, repeated) does not bump the group epoch", version: 1,
			setup: m1Alone,
			req: with(testreq.Heartbeat(group1, "m1", 1, allAB), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.SubscribedTopicNames = []string{"b", "a", "a"}
			}), want: success("m1", 1, "-"), group: &alone},
		{name: "a changed subscription bumps the group epoch and revokes first", version: 1,
			setup: m1Alone,
			req: with(testreq.Heartbeat(group1, "m1", 1, allAB), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.SubscribedTopicNames = []string{"a"}
			}),
			// Group epoch 2, target a0 a1 a2: b0 b1 move to pending
			// revocation, the member stays at epoch 1 (A5 step 3) and the
			// response carries the shrunken assignment.
			want: success("m1", 1, "a0 a1 a2"),
			group: &wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
				{id: "m1", epoch: 1, assigned: "a0 a1 a2", target: "a0 a1 a2", topics: []string{"a"}},
			}}},
		{name: "a subscription that names only a missing topic still bumps and assigns nothing", version: 1,
			setup: m1Alone,
			req: with(testreq.Heartbeat(group1, "m1", 1, allAB), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.SubscribedTopicNames = []string{"zzz"}
			}),
			want: success("m1", 1, ""),
			group: &wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
				{id: "m1", epoch: 1, topics: []string{"zzz"}},
			}}},
	})
}

// §B4.4 state rules on the join/heartbeat path, with A1's idempotent joins.
func TestStateRules(t *testing.T) {
	runHeartbeatCases(t, []hbCase{
		{name: "heartbeat to a missing group is GROUP_ID_NOT_FOUND", version: 1,
			req: testreq.Heartbeat(group1, "m1", 1, ""), wantErr: &errWant{codec.GroupIDNotFound, []string{group1}}},
		{name: "heartbeat of an unknown dynamic member is UNKNOWN_MEMBER_ID", version: 1,
			setup: m1Alone, req: testreq.Heartbeat(group1, "m9", 1, ""),
			wantErr: &errWant{codec.UnknownMemberID, []string{"m9", group1}}, group: &alone},
		{name: "static heartbeat for an unknown instance is UNKNOWN_MEMBER_ID", version: 1,
			setup: m1Alone, req: testreq.StaticHeartbeat(group1, "m1", "i9", 1, ""),
			want:  &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.UnknownMemberID, ErrorMessage: codec.Str("Instance id i9 is unknown.")},
			group: &alone},
		{name: "static heartbeat for an instance held by another member id is FENCED_INSTANCE_ID", version: 1,
			setup: m1StaticAlone, req: testreq.StaticHeartbeat(group1, "m2", "i1", 1, ""),
			wantErr: &errWant{codec.FencedInstanceID, []string{"m2", "i1", "m1"}}, group: staticAlone()},
		{name: "a member epoch greater than the coordinator's is FENCED_MEMBER_EPOCH", version: 1,
			setup: m1Alone, req: testreq.Heartbeat(group1, "m1", 2, allAB),
			wantErr: &errWant{codec.FencedMemberEpoch, []string{"2", "1"}}, group: &alone},
		{name: "a retried dynamic join is accepted in place with its epoch and full assignment", version: 1,
			setup: m1Alone, req: testreq.Join(group1, "m1", rebalanceMs, "a", "b"),
			want: success("m1", 1, allAB), group: &alone},
		{name: "a retried static join is accepted in place (A1, not UNRELEASED_INSTANCE_ID)", version: 1,
			setup: m1StaticAlone, req: testreq.StaticJoin(group1, "m1", "i1", rebalanceMs, "a", "b"),
			want: success("m1", 1, allAB), group: staticAlone()},
		{name: "a retried v0 join naming the id it was given is accepted in place", version: 0,
			setup: func(tc *coordTest) { tc.ok(0, testreq.Join(group1, "", rebalanceMs, "a", "b")) },
			req:   testreq.Join(group1, genID(1).String(), rebalanceMs, "a", "b"),
			want:  success(genID(1).String(), 1, allAB),
			group: &wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
				{id: genID(1).String(), epoch: 1, assigned: allAB, target: allAB, topics: ab},
			}}},
		{name: "a retried join of a member behind the group epoch reconciles in place", version: 1,
			setup: func(tc *coordTest) {
				m1Alone(tc)
				tc.ok(1, testreq.Join(group1, "m2", rebalanceMs, "a", "b"))
			},
			// m1 is still at epoch 1 owning everything; the group is at
			// 2. In place, m1 moves a1 b0 to pending revocation and stays
			// at epoch 1; the join's full response carries a0 a2 b1.
			req:  testreq.Join(group1, "m1", rebalanceMs, "a", "b"),
			want: success("m1", 1, m1Of2),
			group: &wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
				{id: "m1", epoch: 1, assigned: m1Of2, target: m1Of2, topics: ab},
				{id: "m2", epoch: 2, target: m2Of2, topics: ab},
			}}},
		{name: "UNRELEASED_INSTANCE_ID for a new member id whose instance an active member holds", version: 1,
			setup: m1StaticAlone, req: testreq.StaticJoin(group1, "m2", "i1", rebalanceMs, "a", "b"),
			wantErr: &errWant{codec.UnreleasedInstanceID, []string{"m2", "i1", "m1"}}, group: staticAlone()},
		{name: "a static join naming a member id held under another instance id is INVALID_REQUEST", version: 1,
			setup: m1StaticAlone, req: testreq.StaticJoin(group1, "m1", "i2", rebalanceMs, "a", "b"),
			wantErr: &errWant{codec.InvalidRequest, []string{"m1"}}, group: staticAlone()},
		{name: "a static join naming a dynamic member's id is INVALID_REQUEST", version: 1,
			setup: m1Alone, req: testreq.StaticJoin(group1, "m1", "i1", rebalanceMs, "a", "b"),
			wantErr: &errWant{codec.InvalidRequest, []string{"m1"}}, group: &alone},
	})
}

// The size cap, §B4.4 rule 2 (with KAFKA-20601's exception for a held
// instance id): checked before the member lookup, parked members counting.
func TestGroupSizeCap(t *testing.T) {
	runHeartbeatCases(t, []hbCase{
		{name: "GROUP_MAX_SIZE_REACHED for a new member of a full group", version: 1,
			tweak: maxSize(1), setup: m1Alone, req: testreq.Join(group1, "m2", rebalanceMs, "a"),
			wantErr: &errWant{codec.GroupMaxSizeReached, []string{"1"}}, group: &alone},
		{name: "a known member of a full group still heartbeats", version: 1,
			tweak: maxSize(1), setup: m1Alone, req: testreq.Heartbeat(group1, "m1", 1, allAB),
			want: success("m1", 1, "-"), group: &alone},
		{name: "a known member of a full group still rejoins in place", version: 1,
			tweak: maxSize(1), setup: m1Alone, req: testreq.Join(group1, "m1", rebalanceMs, "a", "b"),
			want: success("m1", 1, allAB), group: &alone},
		{name: "a parked static member counts toward the group size", version: 1,
			tweak: maxSize(1),
			setup: func(tc *coordTest) {
				m1StaticAlone(tc)
				tc.ok(1, testreq.Leave(group1, "m1", -2, "i1"))
			},
			req:     testreq.Join(group1, "m3", rebalanceMs, "a", "b"),
			wantErr: &errWant{codec.GroupMaxSizeReached, []string{"1"}},
			group:   parkedAlone()},
		// KAFKA-20601: a request naming an instance id the group holds
		// skips the size cap and goes on to the static rules. (Before it,
		// this takeover was GROUP_MAX_SIZE_REACHED; this case expected so.)
		{name: "a static takeover of a parked instance in a full group succeeds (the size cap skips a held instance id)", version: 1,
			tweak: maxSize(1),
			setup: func(tc *coordTest) {
				m1StaticAlone(tc)
				tc.ok(1, testreq.Leave(group1, "m1", -2, "i1"))
			},
			req:  testreq.StaticJoin(group1, "m3", "i1", rebalanceMs, "a", "b"),
			want: success("m3", 1, allAB),
			group: &wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
				{id: "m3", instance: "i1", epoch: 1, assigned: allAB, target: allAB, topics: ab},
			}}},
		{name: "in a full group, a join for a held instance whose holder is active is UNRELEASED_INSTANCE_ID, not GROUP_MAX_SIZE_REACHED", version: 1,
			tweak: maxSize(1), setup: m1StaticAlone,
			req:     testreq.StaticJoin(group1, "m3", "i1", rebalanceMs, "a", "b"),
			wantErr: &errWant{codec.UnreleasedInstanceID, []string{"m3", "i1", "m1"}},
			group:   staticAlone()},
		{name: "in a full group, a heartbeat by another member id for a held instance is FENCED_INSTANCE_ID, not GROUP_MAX_SIZE_REACHED", version: 1,
			tweak: maxSize(1), setup: m1StaticAlone,
			req:     testreq.StaticHeartbeat(group1, "m3", "i1", 1, allAB),
			wantErr: &errWant{codec.FencedInstanceID, []string{"m3", "i1", "m1"}},
			group:   staticAlone()},
		{name: "in a full group, a join for an instance nobody holds is GROUP_MAX_SIZE_REACHED", version: 1,
			tweak: maxSize(1), setup: m1StaticAlone,
			req:     testreq.StaticJoin(group1, "m3", "i2", rebalanceMs, "a", "b"),
			wantErr: &errWant{codec.GroupMaxSizeReached, []string{"1"}},
			group:   staticAlone()},
		{name: "v0 join with empty member id to a full group is GROUP_MAX_SIZE_REACHED before an id is made", version: 0,
			tweak: maxSize(1), setup: m1Alone, req: testreq.Join(group1, "", rebalanceMs, "a"),
			wantErr: &errWant{codec.GroupMaxSizeReached, []string{"1"}}, group: &alone,
			then: func(tc *coordTest) {
				// §B4.4 checks the size (rule 2) before it makes an id
				// (rule 3): the next id made is still the first.
				tc.want("the next v0 join gets the first id made", 0,
					tc.heartbeat(0, testreq.Join("h", "", rebalanceMs, "c")), success(genID(1).String(), 1, "c0"))
			}},
	})
}

func maxSize(n int) func(*model.Config) { return func(c *model.Config) { c.MaxGroupSize = n } }

func staticAlone() *wantGroup {
	return &wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
		{id: "m1", instance: "i1", epoch: 1, assigned: allAB, target: allAB, topics: ab},
	}}
}

// parkedAlone: m1 (i1) left with epoch -2. It keeps its assignment and
// target; the group epoch does not move; a parked member is not reconciled,
// so the group reads Reconciling.
func parkedAlone() *wantGroup {
	return &wantGroup{state: model.GroupStateReconciling, epoch: 1, members: []wantMember{
		{id: "m1", instance: "i1", epoch: -2, assigned: allAB, target: allAB, topics: ab},
	}}
}

// The epoch check of §B4.4 rule 4 / A5, from a stable group at epoch 2 in
// which m1 went from epoch 1 to 2 (so its previous epoch is 1) and owns
// a0 a2 b1.
func TestEpochCheck(t *testing.T) {
	stable := stableTwo(false)
	cases := []hbCase{
		{name: "the previous epoch with owned partitions that are a subset of the assignment is accepted (lost response)",
			req: testreq.Heartbeat(group1, "m1", 1, "a0 b1"), want: success("m1", 2, "-")},
		{name: "the previous epoch reporting the whole assignment is accepted",
			req: testreq.Heartbeat(group1, "m1", 1, m1Of2), want: success("m1", 2, "-")},
		{name: "the previous epoch without owned partitions is FENCED_MEMBER_EPOCH",
			req: testreq.Heartbeat(group1, "m1", 1, "-"), wantErr: &errWant{codec.FencedMemberEpoch, []string{"1", "2"}}},
		{name: "the previous epoch with a partition outside the assignment is FENCED_MEMBER_EPOCH",
			req: testreq.Heartbeat(group1, "m1", 1, "a0 a1"), wantErr: &errWant{codec.FencedMemberEpoch, []string{"1", "2"}}},
		{name: "the previous epoch with an unknown topic is FENCED_MEMBER_EPOCH",
			req: with(testreq.Heartbeat(group1, "m1", 1, ""), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{{TopicId: model.TopicIDFor("zzz"), Partitions: []int32{0}}}
			}), wantErr: &errWant{codec.FencedMemberEpoch, []string{"1", "2"}}},
		{name: "an epoch above the member's is FENCED_MEMBER_EPOCH",
			req: testreq.Heartbeat(group1, "m1", 3, m1Of2), wantErr: &errWant{codec.FencedMemberEpoch, []string{"3", "2"}}},
		{name: "m2's previous epoch is 0: a heartbeat at epoch 1 is FENCED_MEMBER_EPOCH",
			req: testreq.Heartbeat(group1, "m2", 1, m2Of2), wantErr: &errWant{codec.FencedMemberEpoch, []string{"1", "2"}}},
	}
	for i := range cases {
		cases[i].version = 1
		cases[i].setup = func(tc *coordTest) { twoStable(tc, false) }
		cases[i].group = &stable
	}
	runHeartbeatCases(t, cases)
}

// A5 step by step: two members, one joining a group the other owns
// entirely. Revocation comes before reassignment; no partition is ever
// owned twice; epochs only move forward; the Assignment field is present
// on joins, full requests and changes only.
func TestReconciliationTranscript(t *testing.T) {
	tc := newCoordTest(t)
	tc.want("m1 joins alone and gets everything at epoch 1", 1,
		tc.heartbeat(1, testreq.Join(group1, "m1", rebalanceMs, "a", "b")), success("m1", 1, allAB))
	tc.wantDescribe("a stable group of one", group1, alone)

	tc.want("m2 joins at the new group epoch 2 with nothing yet: its target is still m1's", 1,
		tc.heartbeat(1, testreq.Join(group1, "m2", rebalanceMs, "a", "b")), success("m2", 2, ""))
	tc.wantDescribe("m1 owns m2's target until it revokes", group1, wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
		{id: "m1", epoch: 1, assigned: allAB, target: m1Of2, topics: ab},
		{id: "m2", epoch: 2, target: m2Of2, topics: ab},
	}})

	tc.want("m2 heartbeats before m1 revoked: still nothing, and no Assignment (unchanged)", 1,
		tc.heartbeat(1, testreq.Heartbeat(group1, "m2", 2, "")), success("m2", 2, "-"))

	tc.want("m1's heartbeat moves a1 b0 to pending revocation: epoch stays 1, the smaller assignment is sent", 1,
		tc.heartbeat(1, testreq.Heartbeat(group1, "m1", 1, allAB)), success("m1", 1, m1Of2))
	tc.want("m2 still waits: a1 b0 are pending on m1, so still owned", 1,
		tc.heartbeat(1, testreq.Heartbeat(group1, "m2", 2, "")), success("m2", 2, "-"))
	tc.want("m1 still reporting a1 keeps it pending: nothing changes", 1,
		tc.heartbeat(1, testreq.Heartbeat(group1, "m1", 1, "a0 a1 a2 b1")), success("m1", 1, "-"))
	tc.want("m2 collects b0, which m1 released, and still waits for a1", 1,
		tc.heartbeat(1, testreq.Heartbeat(group1, "m2", 2, "")), success("m2", 2, "b0"))
	tc.want("m1 reports a1 gone: it reaches epoch 2 with its assignment unchanged (no Assignment)", 1,
		tc.heartbeat(1, testreq.Heartbeat(group1, "m1", 1, m1Of2)), success("m1", 2, "-"))
	tc.wantDescribe("m2 has not collected a1 yet", group1, wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
		{id: "m1", epoch: 2, assigned: m1Of2, target: m1Of2, topics: ab},
		{id: "m2", epoch: 2, assigned: "b0", target: m2Of2, topics: ab},
	}})
	tc.want("m2 collects a1", 1,
		tc.heartbeat(1, testreq.Heartbeat(group1, "m2", 2, "b0")), success("m2", 2, m2Of2))
	tc.wantDescribe("stable at epoch 2", group1, stableTwo(false))

	full := testreq.Heartbeat(group1, "m1", 2, m1Of2)
	full.RebalanceTimeoutMs, full.SubscribedTopicNames = rebalanceMs, []string{"a", "b"}
	tc.want("a full heartbeat always carries the assignment", 1, tc.heartbeat(1, full), success("m1", 2, m1Of2))
	tc.want("a plain heartbeat with nothing changed does not", 1,
		tc.heartbeat(1, testreq.Heartbeat(group1, "m1", 2, m1Of2)), success("m1", 2, "-"))
	tc.want("neither does one that reports owned partitions as null", 1,
		tc.heartbeat(1, testreq.Heartbeat(group1, "m1", 2, "-")), success("m1", 2, "-"))
}

// A5's assignor: the running offset grows only over topics that have
// subscribers. Topic a (3 partitions) has none here, so b starts at offset
// 0: b0->m1 b1->m2; then offset 2, c0 -> (2+0) mod 2 = 0 -> m1. (Had a
// counted, b0 would go to m2 and c0 to m2.)
func TestAssignorOffsetSkipsTopicsWithoutSubscribers(t *testing.T) {
	tc := newCoordTest(t)
	tc.want("m1 alone gets b and c", 1, tc.heartbeat(1, testreq.Join(group1, "m1", rebalanceMs, "c", "b")), success("m1", 1, "b0 b1 c0"))
	tc.want("m2 joins with nothing free yet", 1, tc.heartbeat(1, testreq.Join(group1, "m2", rebalanceMs, "b", "c")), success("m2", 2, ""))
	tc.wantDescribe("targets by the uniform assignor", group1, wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
		{id: "m1", epoch: 1, assigned: "b0 b1 c0", target: "b0 c0", topics: []string{"b", "c"}},
		{id: "m2", epoch: 2, target: "b1", topics: []string{"b", "c"}},
	}})
}

// A regex subscription is resolved at once against the configured topics,
// as a full match (Kafka resolves asynchronously; the result is the same).
func TestRegexSubscriptionResolvedAtOnce(t *testing.T) {
	tc := newCoordTest(t)
	j := testreq.Join(group1, "m1", rebalanceMs)
	j.SubscribedTopicNames = nil
	tc.want("a regex-only join is assigned the matching topics", 1,
		tc.heartbeat(1, withRegex(j, "a|c")), success("m1", 1, "a0 a1 a2 c0"))
	tc.wantDescribe("the regex is described, the names list is empty", group1, wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
		{id: "m1", epoch: 1, assigned: "a0 a1 a2 c0", target: "a0 a1 a2 c0", regex: "a|c"},
	}})
	tc.want("names and regex add up", 1,
		tc.heartbeat(1, withRegex(with(testreq.Heartbeat(group1, "m1", 1, "a0 a1 a2 c0"), func(r *codec.ConsumerGroupHeartbeatRequest) {
			r.SubscribedTopicNames = []string{"b"}
		}), "c")), success("m1", 1, "c0"))
	tc.wantDescribe("group epoch 2 with target b and c; a still to revoke", group1, wantGroup{state: model.GroupStateReconciling, epoch: 2, members: []wantMember{
		{id: "m1", epoch: 1, assigned: "c0", target: "b0 b1 c0", topics: []string{"b"}, regex: "c"},
	}})
}

// A5.7: a heartbeat is "full", and its response carries the assignment even
// when nothing changed, when it sends RebalanceTimeoutMs, owned partitions
// and a subscription, by names or by regex. (Corrected: a regex-only
// subscription did not count, so such a heartbeat had no Assignment.)
func TestFullRequest(t *testing.T) {
	j := testreq.Join(group1, "m1", rebalanceMs)
	j.SubscribedTopicNames = nil
	withRT := func(r *codec.ConsumerGroupHeartbeatRequest) *codec.ConsumerGroupHeartbeatRequest {
		r.RebalanceTimeoutMs = rebalanceMs
		return r
	}
	cases := []hbCase{
		{name: "RebalanceTimeoutMs, regex and owned partitions: full, the assignment is sent",
			req: withRegex(withRT(testreq.Heartbeat(group1, "m1", 1, "a0 a1 a2 c0")), "a|c"), want: success("m1", 1, "a0 a1 a2 c0")},
		{name: "RebalanceTimeoutMs, names and owned partitions: full",
			req: with(withRT(testreq.Heartbeat(group1, "m1", 1, "a0 a1 a2 c0")), func(r *codec.ConsumerGroupHeartbeatRequest) {
				r.SubscribedTopicNames = []string{}
			}), want: success("m1", 1, "a0 a1 a2 c0")},
		{name: "no subscription at all: not full",
			req: withRT(testreq.Heartbeat(group1, "m1", 1, "a0 a1 a2 c0")), want: success("m1", 1, "-")},
		{name: "a regex without RebalanceTimeoutMs: not full",
			req: withRegex(testreq.Heartbeat(group1, "m1", 1, "a0 a1 a2 c0"), "a|c"), want: success("m1", 1, "-")},
		{name: "a regex without owned partitions: not full",
			req: withRegex(withRT(testreq.Heartbeat(group1, "m1", 1, "-")), "a|c"), want: success("m1", 1, "-")},
	}
	for i := range cases {
		cases[i].version = 1
		cases[i].setup = func(tc *coordTest) { tc.ok(1, withRegex(j, "a|c")) }
		cases[i].group = &wantGroup{state: model.GroupStateStable, epoch: 1, members: []wantMember{
			{id: "m1", epoch: 1, assigned: "a0 a1 a2 c0", target: "a0 a1 a2 c0", regex: "a|c"},
		}}
	}
	// The names case subscribes m1 to no names as well, which is no change
	// (an empty list and none are the same subscription).
	runHeartbeatCases(t, cases)
}

// A5.2: the assignor sorts each topic's subscribers by assignment key, the
// instance id of a static member and the member id of a dynamic one; equal
// keys (an instance id that is also a dynamic member's id) fall back to the
// member ids. Two members on a and b: the first in key order gets
// a0 a2 b1, the second a1 b0 (see the top of this file). (Corrected: the
// assignor sorted by member id, which would put "a-static" first.)
func TestAssignorSortsByAssignmentKey(t *testing.T) {
	for _, c := range []struct {
		name               string
		staticID, instance string
		staticT, dynamicT  string
		staticListedFirst  bool
	}{
		{"a static member sorts by its instance id, not its member id", "a-static", "z9", m2Of2, m1Of2, true},
		{"an instance id equal to a dynamic member id sorts after it (member ids break the tie)", "s1", "m2", m2Of2, m1Of2, false},
		{"a static member whose instance id sorts first comes first", "z-static", "a0", m1Of2, m2Of2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tc := newCoordTest(t)
			tc.ok(1, testreq.StaticJoin(group1, c.staticID, c.instance, rebalanceMs, "a", "b"))
			tc.want("m2 joins; everything is still owned by the static member", 1,
				tc.heartbeat(1, testreq.Join(group1, "m2", rebalanceMs, "a", "b")), success("m2", 2, ""))
			members := []wantMember{
				{id: c.staticID, instance: c.instance, epoch: 1, assigned: allAB, target: c.staticT, topics: ab},
				{id: "m2", epoch: 2, target: c.dynamicT, topics: ab},
			}
			if !c.staticListedFirst {
				members[0], members[1] = members[1], members[0] // Describe lists members by id
			}
			tc.wantDescribe("targets by assignment key", group1, wantGroup{state: model.GroupStateReconciling, epoch: 2, members: members})
		})
	}
}
