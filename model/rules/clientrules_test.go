package rules_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// traffic builds recorded client requests the way a proxy would: each
// connection numbers its requests from 0.
type traffic struct {
	reqs []rules.ClientRequest
	seq  map[uint64]int
	corr int32
}

var (
	inst1 = codec.UUID{1, 1, 1}
	inst2 = codec.UUID{2, 2, 2}
)

// req appends a request of key at version on conn (to broker "b0") with
// the given ClientId (nil pointer: null) and instance id (nil: no tag 0).
func (t *traffic) req(conn uint64, key codec.APIKey, version int16, clientID *string, instance *codec.UUID, body, resp codec.Message) *rules.ClientRequest {
	if t.seq == nil {
		t.seq = map[uint64]int{}
	}
	t.corr++
	hv := int16(1)
	if v, err := codec.RequestHeaderVersion(key, version); err == nil {
		hv = v
	}
	h := codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: t.corr, ClientId: codec.FromPtr(clientID)}
	if instance != nil {
		h.ClientInstanceId = codec.SomeUUID(*instance)
	}
	t.reqs = append(t.reqs, rules.ClientRequest{Conn: conn, Broker: "b0", Seq: t.seq[conn], HeaderVersion: hv, Header: h, Request: body, Response: resp})
	t.seq[conn]++
	return &t.reqs[len(t.reqs)-1]
}

func str(s string) *string { return &s }

// kip is a client that follows every rule: ClientId on a connection's
// first request only, tag 0 everywhere.
func (t *traffic) kip(conn uint64, u codec.UUID, body codec.Message, version int16) *rules.ClientRequest {
	var cid *string
	if t.seq[conn] == 0 {
		cid = str("app")
	}
	return t.req(conn, body.Key(), version, cid, &u, body, nil)
}

func outcomes(t *testing.T, reqs []rules.ClientRequest) map[string]map[rules.Rule]rules.RuleResult {
	t.Helper()
	out := map[string]map[rules.Rule]rules.RuleResult{}
	for _, c := range rules.CheckClients(reqs) {
		if len(c.Results) != len(rules.ClientRules()) {
			t.Fatalf("client %s has %d results for %d rules", c.Client, len(c.Results), len(rules.ClientRules()))
		}
		m := map[rules.Rule]rules.RuleResult{}
		for _, r := range c.Results {
			m[r.Rule] = r
		}
		out[c.Client] = m
	}
	return out
}

type want struct {
	rule    rules.Rule
	outcome rules.Outcome
	detail  string // a substring of the detail
}

// clientRuleCases are, for each rule and outcome, traffic that should
// give it.
var clientRuleCases = []struct {
	name   string
	build  func(t *traffic)
	client string
	want   []want
}{
	{"a KIP-1082 and KIP-1313 client passes", func(t *traffic) {
		t.kip(1, inst1, &codec.ApiVersionsRequest{}, 3)
		t.kip(1, inst1, testreq.StaticHeartbeat("g", "m1", "i1", 0, "-"), 1)
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", 1, "-"), 1)
		t.kip(2, inst1, &codec.GetTelemetrySubscriptionsRequest{}, 1)
		t.kip(2, inst1, testreq.StaticHeartbeat("g", "m1", "i1", -2, "-"), 1)
		t.kip(2, inst1, testreq.StaticHeartbeat("g", "m1", "i1", 0, "-"), 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleMemberIDFromFirstHeartbeat, rules.OutcomePass, "4 v1 heartbeats"},
		{rules.RuleStableMemberID, rules.OutcomePass, ""},
		{rules.RuleUniqueMemberIDs, rules.OutcomePass, ""},
		{rules.RuleNoHeartbeatAfterLeave, rules.OutcomePass, "1 leaves"},
		{rules.RuleClientInstanceIDInHeader, rules.OutcomePass, "6 v2 headers"},
		{rules.RuleNoZeroUUIDs, rules.OutcomePass, ""},
		{rules.RuleClientIDOnFirstRequest, rules.OutcomePass, "2 connections"},
		{rules.RuleTelemetryInstanceID, rules.OutcomePass, ""},
		{rules.RuleStaticLeaveWithInstanceID, rules.OutcomePass, ""},
		{rules.RuleLeaveGroupInstanceID, rules.OutcomeNotSeen, ""},
		{rules.RuleLeaveGroupDowngrade, rules.OutcomeNotSeen, ""},
	}},
	{"an old client adopts nothing", func(t *traffic) {
		t.req(1, codec.ApiVersions, 3, str("old"), nil, &codec.ApiVersionsRequest{}, nil)
		t.req(1, codec.ConsumerGroupHeartbeat, 0, str("old"), nil, testreq.Heartbeat("g", "", 0, "-"), nil)
		t.req(1, codec.ConsumerGroupHeartbeat, 0, str("old"), nil, testreq.Heartbeat("g", "b1", 1, "-"), nil)
		t.req(1, codec.GetTelemetrySubscriptions, 0, str("old"), nil, &codec.GetTelemetrySubscriptionsRequest{}, nil)
	}, "clientId old", []want{
		{rules.RuleMemberIDFromFirstHeartbeat, rules.OutcomeNotAdopted, "v0 only"},
		{rules.RuleStableMemberID, rules.OutcomeNotAdopted, ""},
		{rules.RuleClientInstanceIDInHeader, rules.OutcomeNotAdopted, "none of its 4 v2 headers"},
		{rules.RuleClientIDOnFirstRequest, rules.OutcomeNotAdopted, "repeats ClientId"},
		{rules.RuleTelemetryInstanceID, rules.OutcomeNotAdopted, "v0 only"},
		{rules.RuleNoHeartbeatAfterLeave, rules.OutcomeNotSeen, ""},
		{rules.RuleStaticLeaveWithInstanceID, rules.OutcomeNotSeen, ""},
	}},
	{"an empty member id at v1", func(t *traffic) {
		t.kip(1, inst1, testreq.Heartbeat("g", " ", 0, "-"), 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleMemberIDFromFirstHeartbeat, rules.OutcomeViolated, `MemberId " "`},
	}},
	{"a new member id after UNKNOWN_MEMBER_ID", func(t *traffic) {
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", 0, "-"), 1)
		r := t.kip(1, inst1, testreq.Heartbeat("g", "m1", 1, "-"), 1)
		r.Response, r.Fault = &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.UnknownMemberID}, "answered UNKNOWN_MEMBER_ID"
		t.kip(1, inst1, testreq.Heartbeat("g", "m2", 0, "-"), 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleStableMemberID, rules.OutcomeViolated, "sends member id m2, not m1; its previous heartbeat got UNKNOWN_MEMBER_ID (injected by the proxy) at epoch 1"},
	}},
	{"a new member id after a lost response, on a new connection", func(t *traffic) {
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", 0, "-"), 1).Fault = "response dropped"
		t.kip(2, inst1, testreq.Heartbeat("g", "m2", 0, "-"), 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleStableMemberID, rules.OutcomeViolated, "no response (response dropped) at epoch 0"},
	}},
	{"two clients, one member id", func(t *traffic) {
		t.kip(1, inst1, testreq.Heartbeat("g", "dup", 0, "-"), 1)
		t.kip(2, inst2, testreq.Heartbeat("g", "dup", 0, "-"), 1)
		t.kip(3, inst2, testreq.Heartbeat("other", "x", 0, "-"), 1)
	}, "instance AgICAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleUniqueMemberIDs, rules.OutcomeViolated, "also sent by instance AQEBAAAAAAAAAAAAAAAAAA"},
		{rules.RuleStableMemberID, rules.OutcomePass, ""},
	}},
	{"a heartbeat after a leave", func(t *traffic) {
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", 0, "-"), 1)
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", -1, "-"), 1)
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", 3, "-"), 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleNoHeartbeatAfterLeave, rules.OutcomeViolated, "at epoch 3 after its leave"},
	}},
	{"a LeaveGroup counts as a leave", func(t *traffic) {
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", 2, "-"), 1)
		t.kip(1, inst1, &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{{MemberId: "m1"}}}, 4)
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", 2, "-"), 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleNoHeartbeatAfterLeave, rules.OutcomeViolated, "LeaveGroup v4"},
		{rules.RuleLeaveGroupInstanceID, rules.OutcomePass, ""},
		{rules.RuleLeaveGroupDowngrade, rules.OutcomePass, ""},
	}},
	{"tag 0 carried, then missing", func(t *traffic) {
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", 0, "-"), 1)
		t.req(1, codec.ConsumerGroupHeartbeat, 1, nil, nil, testreq.Heartbeat("g", "m1", 1, "-"), nil)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleClientInstanceIDInHeader, rules.OutcomeViolated, "has no tag 0, while"},
	}},
	{"tag 0 zero", func(t *traffic) {
		t.kip(1, codec.UUID{}, testreq.Heartbeat("g", "m1", 0, "-"), 1)
	}, "instance AAAAAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleClientInstanceIDInHeader, rules.OutcomeViolated, "zero UUID"},
		{rules.RuleNoZeroUUIDs, rules.OutcomeViolated, "zero UUID"},
	}},
	{"two instance ids on one connection", func(t *traffic) {
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", 0, "-"), 1)
		t.kip(1, inst2, testreq.Heartbeat("g", "m1", 1, "-"), 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleClientInstanceIDInHeader, rules.OutcomeViolated, "on the same connection"},
	}},
	{"a zero member id", func(t *traffic) {
		t.kip(1, inst1, testreq.Heartbeat("g", "00000000-0000-0000-0000-000000000000", 0, "-"), 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleNoZeroUUIDs, rules.OutcomeViolated, "the zero UUID"},
	}},
	{"ClientId null on later requests, then repeated", func(t *traffic) {
		t.req(1, codec.ConsumerGroupHeartbeat, 1, str("app"), &inst1, testreq.Heartbeat("g", "m1", 0, "-"), nil)
		t.req(1, codec.ConsumerGroupHeartbeat, 1, nil, &inst1, testreq.Heartbeat("g", "m1", 1, "-"), nil)
		t.req(1, codec.ConsumerGroupHeartbeat, 1, str("app"), &inst1, testreq.Heartbeat("g", "m1", 1, "-"), nil)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleClientIDOnFirstRequest, rules.OutcomeViolated, "request 3 of its connection, repeats ClientId"},
	}},
	{"a connection's first request without ClientId", func(t *traffic) {
		t.req(1, codec.ConsumerGroupHeartbeat, 1, str("app"), &inst1, testreq.Heartbeat("g", "m1", 0, "-"), nil)
		t.req(1, codec.ConsumerGroupHeartbeat, 1, nil, &inst1, testreq.Heartbeat("g", "m1", 1, "-"), nil)
		t.req(2, codec.ConsumerGroupHeartbeat, 1, nil, &inst1, testreq.Heartbeat("g", "m1", 1, "-"), nil)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleClientIDOnFirstRequest, rules.OutcomeViolated, "carries a null ClientId"},
	}},
	{"telemetry v1 without tag 0, and v0 with another body id", func(t *traffic) {
		t.kip(1, inst1, &codec.GetTelemetrySubscriptionsRequest{ClientInstanceId: inst2}, 0)
		t.req(2, codec.GetTelemetrySubscriptions, 1, str("app"), nil, &codec.GetTelemetrySubscriptionsRequest{}, nil)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleTelemetryInstanceID, rules.OutcomeViolated, "sends AgICAAAAAAAAAAAAAAAAAA in the body"},
	}},
	{"a static leave at -2 without InstanceId", func(t *traffic) {
		t.kip(1, inst1, testreq.StaticHeartbeat("g", "m1", "i1", 0, "-"), 1)
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", -2, "-"), 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleStaticLeaveWithInstanceID, rules.OutcomeViolated, "at epoch -2 without InstanceId (instance i1)"},
	}},
	{"a static member leaving for good names its instance", func(t *traffic) {
		t.kip(1, inst1, testreq.StaticHeartbeat("g", "m1", "i1", 0, "-"), 1)
		t.kip(1, inst1, testreq.StaticHeartbeat("g", "m1", "i1", -1, "-"), 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleStaticLeaveWithInstanceID, rules.OutcomePass, "1 of them at -1"},
	}},
	{"a static leave at -1 without its instance", func(t *traffic) {
		t.kip(1, inst1, testreq.StaticHeartbeat("g", "m1", "i1", 0, "-"), 1)
		t.kip(1, inst1, testreq.Heartbeat("g", "m1", -1, "-"), 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleStaticLeaveWithInstanceID, rules.OutcomeViolated, "leaves at epoch -1 without its InstanceId"},
	}},
	{"a LeaveGroup v3 entry naming nobody, and a static member without its instance", func(t *traffic) {
		t.kip(1, inst1, testreq.StaticHeartbeat("g", "m1", "i1", 0, "-"), 1)
		t.kip(1, inst1, &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{{MemberId: "m1"}}}, 3)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleLeaveGroupInstanceID, rules.OutcomeViolated, `not its instance "i1"`},
	}},
	{"a downgraded LeaveGroup to a broker offering v5", func(t *traffic) {
		r := t.kip(1, inst1, &codec.ApiVersionsRequest{}, 3)
		r.Response = &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{{ApiKey: codec.LeaveGroup, MaxVersion: 5}}}
		t.kip(1, inst1, &codec.LeaveGroupRequest{GroupId: "g", MemberId: "m1"}, 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleLeaveGroupDowngrade, rules.OutcomeViolated, "offers LeaveGroup v5"},
	}},
	{"a downgraded LeaveGroup to a broker without v3", func(t *traffic) {
		r := t.kip(1, inst1, &codec.ApiVersionsRequest{}, 3)
		r.Response = &codec.ApiVersionsResponse{ApiKeys: []codec.ApiVersionsKey{{ApiKey: codec.LeaveGroup, MaxVersion: 2}}}
		t.kip(1, inst1, &codec.LeaveGroupRequest{GroupId: "g", MemberId: "m1"}, 1)
	}, "instance AQEBAAAAAAAAAAAAAAAAAA (app)", []want{
		{rules.RuleLeaveGroupDowngrade, rules.OutcomePass, ""},
	}},
}

// Each rule, each outcome: the traffic that should give it.
func TestClientRuleOutcomes(t *testing.T) {
	for _, tc := range clientRuleCases {
		t.Run(tc.name, func(t *testing.T) {
			var tr traffic
			tc.build(&tr)
			got := outcomes(t, tr.reqs)
			c, ok := got[tc.client]
			if !ok {
				t.Fatalf("no client %q; clients: %v", tc.client, keys(got))
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

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Clients are told apart by instance id, else ClientId, else connection;
// a connection without tag 0 joins the instance its ClientId's other
// connections carry.
func TestClientIdentity(t *testing.T) {
	var tr traffic
	tr.req(1, codec.ConsumerGroupHeartbeat, 1, str("a"), &inst1, testreq.Heartbeat("g", "m1", 0, "-"), nil)
	tr.req(2, codec.Metadata, 8, str("a"), nil, nil, nil) // header v1, no tag 0: joins inst1 through ClientId a
	tr.req(3, codec.ConsumerGroupHeartbeat, 1, str("b"), nil, testreq.Heartbeat("g", "m2", 0, "-"), nil)
	tr.req(4, codec.ConsumerGroupHeartbeat, 1, nil, nil, testreq.Heartbeat("g", "m3", 0, "-"), nil)
	tr.req(5, codec.ConsumerGroupHeartbeat, 1, str("b"), nil, testreq.Heartbeat("g", "m2", 1, "-"), nil)
	res := rules.CheckClients(tr.reqs)
	var got []string
	for _, c := range res {
		got = append(got, fmt.Sprintf("%s conns=%v", c.Client, c.Conns))
	}
	want := []string{"instance AQEBAAAAAAAAAAAAAAAAAA (a) conns=[1 2]", "clientId b conns=[3 5]", "conn 4 conns=[4]"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("clients %v, want %v", got, want)
	}
	if res[0].Violated() || res[0].First() != nil {
		t.Errorf("client a violated %v", res[0].First())
	}
	if r := res[0].Result(rules.RuleStableMemberID); r.Outcome != rules.OutcomePass {
		t.Errorf("client a StableMemberID %v", r)
	}
}

// The client rules are declared in rules.Judged (so every report can name
// them) and each has a meaning; ClientRules holds the invariants the
// client checker shares with runs too.
func TestClientRulesListed(t *testing.T) {
	all := map[rules.Rule]bool{}
	for _, r := range rules.Judged() {
		all[r] = true
	}
	for _, r := range rules.ClientRules() {
		if !all[r] || r.Meaning() == "" {
			t.Errorf("client rule %s: listed %v, meaning %q", r, all[r], r.Meaning())
		}
	}
	if rules.RuleStableMemberID.IsClientOnly() || !rules.RuleTelemetryInstanceID.IsClientOnly() {
		t.Error("IsClientOnly is wrong")
	}
}
