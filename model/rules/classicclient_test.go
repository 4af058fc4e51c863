package rules_test

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Classic traffic of one client "app" (ClientId on every request, no tag
// 0, as today's classic clients send it).
func (t *traffic) classic(conn uint64, version int16, body, resp codec.Message) *rules.ClientRequest {
	return t.req(conn, body.Key(), version, str("app"), nil, body, resp)
}

func join(member, instance string) *codec.JoinGroupRequest {
	return &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 10000, MemberId: member,
		GroupInstanceId: nullable(instance), ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "range"}}}
}

func joined(code codec.ErrorCode, member string, gen int32) *codec.JoinGroupResponse {
	return &codec.JoinGroupResponse{ErrorCode: code, MemberId: member, GenerationId: gen}
}

func syncReq(member, instance string, gen int32) *codec.SyncGroupRequest {
	return &codec.SyncGroupRequest{GroupId: "g", GenerationId: gen, MemberId: member, GroupInstanceId: nullable(instance)}
}

func hb(member, instance string, gen int32) *codec.HeartbeatRequest {
	return &codec.HeartbeatRequest{GroupId: "g", GenerationId: gen, MemberId: member, GroupInstanceId: nullable(instance)}
}

// nullable is "" as null, else the string.
func nullable(s string) codec.NullableString {
	if s == "" {
		return codec.NullableString{}
	}
	return codec.Str(s)
}

var (
	hbOK      = &codec.HeartbeatResponse{}
	hbFenced  = &codec.HeartbeatResponse{ErrorCode: codec.FencedInstanceID}
	syncOK    = &codec.SyncGroupResponse{}
	midReq    = joined(codec.MemberIDRequired, "app-1", -1)
	classicID = "clientId app"
)

// Each classic rule, each outcome: the traffic that gives it.
func TestClassicClientRuleOutcomes(t *testing.T) {
	cases := []struct {
		name  string
		build func(t *traffic)
		want  []want
	}{
		{"KIP-394: the rejoin carries the id given", func(t *traffic) {
			t.classic(1, 5, join("", ""), midReq)
			t.classic(1, 5, join("app-1", ""), joined(codec.None, "app-1", 1))
			t.classic(1, 3, syncReq("app-1", "", 1), syncOK)
			t.classic(1, 3, hb("app-1", "", 1), hbOK)
		}, []want{
			{rules.RuleMemberIDRequiredRejoin, rules.OutcomePass, "1 rejoins"},
			{rules.RuleClassicStaticInstanceID, rules.OutcomeNotSeen, ""},
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeNotSeen, ""},
		}},
		{"KIP-394: a rejoin with an empty id", func(t *traffic) {
			t.classic(1, 5, join("", ""), midReq)
			t.classic(1, 5, join("", ""), midReq)
		}, []want{
			{rules.RuleMemberIDRequiredRejoin, rules.OutcomeViolated, `MemberId "" after JoinGroup v5 (conn 1 to b0, correlation id 1) was answered MEMBER_ID_REQUIRED with member id "app-1"`},
		}},
		{"KIP-394: an answer the client never got binds nothing", func(t *traffic) {
			r := t.classic(1, 5, join("", ""), nil)
			r.Fault = "response dropped (the broker answered MEMBER_ID_REQUIRED)"
			t.classic(2, 5, join("", ""), midReq)
			t.classic(2, 5, join("app-1", ""), joined(codec.None, "app-1", 1))
		}, []want{
			{rules.RuleMemberIDRequiredRejoin, rules.OutcomePass, "1 rejoins"},
		}},
		{"KIP-394: a new process may start over", func(t *traffic) {
			t.classic(1, 5, join("", ""), midReq)
			t.classic(2, 5, join("", ""), midReq)
		}, []want{
			{rules.RuleMemberIDRequiredRejoin, rules.OutcomeNotSeen, ""},
		}},
		{"KIP-394: a reconnect while another connection lives is no new process", func(t *traffic) {
			t.classic(1, 5, join("", ""), midReq)
			t.classic(2, 5, join("", ""), midReq)
			t.classic(1, 3, hb("x", "", 1), hbOK)
		}, []want{
			{rules.RuleMemberIDRequiredRejoin, rules.OutcomeViolated, "conn 2"},
		}},
		{"KIP-394: below JoinGroup v4 not adopted", func(t *traffic) {
			t.classic(1, 2, join("", ""), joined(codec.None, "app-1", 1))
			t.classic(1, 1, syncReq("app-1", "", 1), syncOK)
		}, []want{
			{rules.RuleMemberIDRequiredRejoin, rules.OutcomeNotAdopted, "v2 only"},
			{rules.RuleClassicStaticInstanceID, rules.OutcomeNotAdopted, "needs v5"},
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeNotAdopted, "needs v5"},
		}},
		{"KIP-345: a static member names its instance everywhere", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			t.classic(1, 3, syncReq("i1-1", "i1", 1), syncOK)
			t.classic(1, 3, hb("i1-1", "i1", 1), hbOK)
			t.classic(1, 5, join("i1-1", "i1"), joined(codec.None, "i1-1", 2))
			t.classic(1, 2, syncReq("i1-1", "", 2), syncOK) // v2 cannot carry it
		}, []want{
			{rules.RuleClassicStaticInstanceID, rules.OutcomePass, "3 requests"},
			{rules.RuleMemberIDRequiredRejoin, rules.OutcomeNotSeen, ""},
		}},
		{"KIP-345: a heartbeat without the instance", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			t.classic(1, 3, syncReq("i1-1", "i1", 1), syncOK)
			t.classic(1, 3, hb("i1-1", "", 1), hbOK)
		}, []want{
			{rules.RuleClassicStaticInstanceID, rules.OutcomeViolated, `Heartbeat v3 (conn 1 to b0, correlation id 3) for group g has no GroupInstanceId, after JoinGroup v5 (conn 1 to b0, correlation id 1) named instance "i1"`},
		}},
		{"KIP-345: an empty instance id is another instance", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			r := t.classic(1, 3, syncReq("i1-1", "", 1), syncOK)
			r.Request.(*codec.SyncGroupRequest).GroupInstanceId = codec.Str("")
		}, []want{
			{rules.RuleClassicStaticInstanceID, rules.OutcomeViolated, `names instance ""`},
		}},
		{"KIP-394: a client that left starts afresh", func(t *traffic) {
			t.classic(1, 5, join("", ""), midReq)
			t.classic(1, 3, &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{{MemberId: "app-1"}}}, &codec.LeaveGroupResponse{})
			t.classic(1, 5, join("", ""), midReq)
		}, []want{
			{rules.RuleMemberIDRequiredRejoin, rules.OutcomeNotSeen, ""},
		}},
		{"KIP-345: a rejoin as a dynamic member", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			t.classic(1, 5, join("", ""), midReq)
		}, []want{
			{rules.RuleClassicStaticInstanceID, rules.OutcomeViolated, "JoinGroup v5 (conn 1 to b0, correlation id 2) for group g has no GroupInstanceId"},
		}},
		{"KIP-345: a fenced member stops", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			t.classic(1, 3, syncReq("i1-1", "i1", 1), syncOK)
			t.classic(1, 3, hb("i1-1", "i1", 1), hbFenced)
			t.classic(1, 8, &codec.ApiVersionsRequest{}, nil)
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomePass, "1 FENCED_INSTANCE_ID"},
			{rules.RuleClassicStaticInstanceID, rules.OutcomePass, ""},
		}},
		{"KIP-345: a fenced member rejoins", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			r := t.classic(1, 3, hb("i1-1", "i1", 1), hbFenced)
			r.Fault = "answered FENCED_INSTANCE_ID"
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-2", 2))
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeViolated, `JoinGroup v5 (conn 1 to b0, correlation id 3) names instance "i1" of group g after Heartbeat v3 (conn 1 to b0, correlation id 2) was answered FENCED_INSTANCE_ID`},
		}},
		{"KIP-345: a fenced join, then a sync", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.FencedInstanceID, "i1-1", -1))
			t.classic(1, 3, syncReq("i1-1", "i1", 1), syncOK)
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeViolated, "SyncGroup v3"},
		}},
		{"KIP-345: a stale generation's FENCED_INSTANCE_ID binds nothing", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			t.classic(1, 5, join("i1-1", "i1"), joined(codec.None, "i1-1", 2))
			t.classic(1, 3, hb("i1-1", "i1", 1), hbFenced)
			t.classic(1, 3, hb("i1-1", "i1", 2), hbOK)
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeNotSeen, ""},
		}},
		{"KIP-345: a Heartbeat's fence after the generation was lost binds nothing", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			t.classic(1, 3, syncReq("i1-1", "i1", 1), &codec.SyncGroupResponse{ErrorCode: codec.UnknownMemberID})
			t.classic(1, 3, hb("i1-1", "i1", 1), hbFenced)
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-2", 3))
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeNotSeen, ""},
		}},
		{"KIP-345: a lost FENCED_INSTANCE_ID binds nothing", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			r := t.classic(1, 3, hb("i1-1", "i1", 1), nil)
			r.Fault = "response dropped (the broker answered FENCED_INSTANCE_ID)"
			t.classic(2, 3, hb("i1-1", "i1", 1), hbOK)
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeNotSeen, ""},
		}},
		{"KIP-345: a request sent while the fencing answer was held is no rejoin", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			t.classic(1, 3, syncReq("i1-1", "i1", 1), &codec.SyncGroupResponse{ErrorCode: codec.FencedInstanceID})
			t.classic(1, 5, join("", "i1"), nil)
			// The coordinator held the sync from 100 to 900; the join went
			// out behind it at 500.
			t.reqs[1].At, t.reqs[1].Answered, t.reqs[2].At = 100, 900, 500
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomePass, "1 FENCED_INSTANCE_ID"},
		}},
		{"KIP-345: a request sent once the held fencing answer came is a rejoin", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			t.classic(1, 3, syncReq("i1-1", "i1", 1), &codec.SyncGroupResponse{ErrorCode: codec.FencedInstanceID})
			t.classic(1, 5, join("", "i1"), nil)
			t.reqs[1].At, t.reqs[1].Answered, t.reqs[2].At = 100, 900, 900
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeViolated, "after SyncGroup v3"},
		}},
		{"KIP-345/KIP-848: a ConsumerGroupHeartbeat's FENCED_INSTANCE_ID, then a join under the instance", func(t *traffic) {
			cgh := func(epoch int32) *codec.ConsumerGroupHeartbeatRequest {
				return &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1", MemberEpoch: epoch, InstanceId: codec.Str("i1"), RebalanceTimeoutMs: -1}
			}
			t.classic(1, 1, cgh(0), &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("m1"), MemberEpoch: 1})
			t.classic(1, 1, cgh(1), &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.FencedInstanceID})
			t.classic(1, 1, cgh(0), nil)
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeViolated, "after ConsumerGroupHeartbeat v1"},
		}},
		{"KIP-345/KIP-848: a ConsumerGroupHeartbeat's FENCED_INSTANCE_ID, then nothing", func(t *traffic) {
			t.classic(1, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1", MemberEpoch: 1, InstanceId: codec.Str("i1"), RebalanceTimeoutMs: -1},
				&codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.FencedInstanceID})
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomePass, "1 FENCED_INSTANCE_ID"},
		}},
		{"KIP-345: a dynamic join's generation is the group's, for a Heartbeat naming an instance", func(t *traffic) {
			t.classic(1, 5, join("", ""), joined(codec.None, "app-1", 4))
			t.classic(1, 3, hb("app-1", "i1", 4), hbFenced)
			t.classic(1, 3, hb("app-1", "i1", 4), hbOK)
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomeViolated, "after Heartbeat v3"},
		}},
		{"KIP-345: a second process with the instance may start", func(t *traffic) {
			t.classic(1, 5, join("", "i1"), joined(codec.None, "i1-1", 1))
			t.classic(1, 3, hb("i1-1", "i1", 1), hbFenced)
			t.classic(2, 5, join("", "i1"), joined(codec.None, "i1-2", 1))
		}, []want{
			{rules.RuleNoRejoinAfterFencedInstance, rules.OutcomePass, ""},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var tr traffic
			tc.build(&tr)
			got := outcomes(t, tr.reqs)
			c, ok := got[classicID]
			if !ok {
				t.Fatalf("no client %q; clients: %v", classicID, keys(got))
			}
			for _, w := range tc.want {
				r := c[w.rule]
				if r.Outcome != w.outcome || !strings.Contains(r.Detail, w.detail) {
					t.Errorf("%s: %s (%q), want %s with %q", w.rule, r.Outcome, r.Detail, w.outcome, w.detail)
				}
			}
		})
	}
}
