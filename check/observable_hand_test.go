package check_test

// Hand-built histories for the observable check: what a correct Kafka 4.x
// broker answers that the reference model does not (or may not tomorrow),
// and brokers that break a rule. Responses are written out here rather
// than asked of the model, so these tests keep their meaning whatever the
// model does.

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/race"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// record appends req, answered resp as a broker we did not write answered
// it, at time at, on a connection of its own; the model is not asked. A
// nil resp is an outcome never learned (the op returns at Unknown).
func (b *historyBuilder) record(at int64, client string, key codec.APIKey, version int16, req, resp codec.Message) {
	conn := history.Conn{ID: uint64(len(b.h) + 1), Host: "/10.0.0.1"}
	hdr := codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: int32(len(b.h)), ClientId: codec.Str(client)}
	op := history.Op{ID: len(b.h), Name: client, Conn: conn, ClientID: client, At: at, Call: b.events + 1, Return: b.events + 2, Header: hdr, Request: req, Response: resp}
	if resp == nil {
		op.Return = history.Never
	}
	b.h = append(b.h, op)
	b.events += 2
}

// overlap makes the ops from index from on concurrent, as a parallel
// round delivers them: every call, in order, before every return, in
// order. The history keeps them in call order.
func (b *historyBuilder) overlap(from int) {
	n := int64(len(b.h) - from)
	base := b.h[from].Call - 1
	for i := from; i < len(b.h); i++ {
		k := int64(i - from)
		b.h[i].Call = base + 1 + k
		if b.h[i].Return != history.Never {
			b.h[i].Return = base + 1 + n + k
		}
	}
	b.events = base + 2*n
}

// handPlan is the plan the hand-built histories are judged under: 6000 ms
// sessions, rebalance timeouts the observer takes as 6000 ms, and static
// clients with instance ids inst-1 and inst-2.
func handPlan() plan.Plan {
	p := plan.New(1, plan.DefaultOptions())
	p.SessionTimeoutMs, p.RoundMs, p.RequestTimeout = 6000, 500, 3
	p.Clients = []plan.ClientPlan{{Name: "c1", Group: "g", InstanceID: "inst-1"}, {Name: "c2", Group: "g", InstanceID: "inst-2"}, {Name: "c3", Group: "g"}}
	return p
}

// alpha is an assignment of topic alpha's partitions.
func alpha(ps ...int32) *codec.ConsumerGroupHeartbeatAssignment {
	a := &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
	if len(ps) > 0 {
		a.TopicPartitions = append(a.TopicPartitions, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: model.TopicIDFor("alpha"), Partitions: ps})
	}
	return a
}

// ok is a successful join or heartbeat answer.
func ok(id string, epoch int32, a *codec.ConsumerGroupHeartbeatAssignment) *codec.ConsumerGroupHeartbeatResponse {
	return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(id), MemberEpoch: epoch, HeartbeatIntervalMs: 1000, Assignment: a}
}

func parkedResp(id string) *codec.ConsumerGroupHeartbeatResponse {
	return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(id), MemberEpoch: rules.StaticLeaveEpoch}
}

// dm is a described member: its epoch, assigned and target partitions of
// alpha.
type dm struct {
	id               string
	epoch            int32
	assigned, target []int32
}

func describedAlpha(ps []int32) codec.DescribedAssignment {
	a := codec.DescribedAssignment{}
	if len(ps) > 0 {
		a.TopicPartitions = []codec.DescribedTopicPartitions{{TopicId: model.TopicIDFor("alpha"), TopicName: "alpha", Partitions: ps}}
	}
	return a
}

// described is a Describe answer for group g.
func described(state string, epoch, assignmentEpoch int32, members ...dm) *codec.ConsumerGroupDescribeResponse {
	dg := codec.DescribedGroup{GroupId: "g", GroupState: state, GroupEpoch: epoch, AssignmentEpoch: assignmentEpoch, AssignorName: "uniform"}
	for _, m := range members {
		dg.Members = append(dg.Members, codec.DescribedMember{MemberId: m.id, MemberEpoch: m.epoch, Assignment: describedAlpha(m.assigned), TargetAssignment: describedAlpha(m.target)})
	}
	return &codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{dg}}
}

var describeG = &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}

// judge checks b's history at the observable level and holds the verdict
// to want: Ok, or Illegal with rule (and the detail containing detail).
func judge(t *testing.T, p plan.Plan, b *historyBuilder, rule rules.Rule, detail string) {
	t.Helper()
	rep := check.Check(&driver.Result{Plan: p, History: b.h}, check.Options{Level: check.LevelObservable})
	switch {
	case rule == "" && rep.Verdict != history.Ok:
		t.Errorf("want Ok, got %s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	case rule != "" && (rep.Verdict != history.Illegal || rep.Rule != string(rule) || !strings.Contains(rep.Detail, detail)):
		t.Errorf("want Illegal %s (%q), got %s %s: %s", rule, detail, rep.Verdict, rep.Rule, rep.Detail)
	}
}

// Kafka 4.0 (KAFKA-18188) removes a consumer-group member named by its
// member id in LeaveGroup, alone or with its own instance id, and at
// v0-v2; the member is then gone, not vanished. A removal the broker
// refused leaves the member, and its disappearance is still caught.
func TestObservableLeaveGroupByMemberID(t *testing.T) {
	entry := func(inst codec.NullableString, code codec.ErrorCode) (*codec.LeaveGroupRequest, *codec.LeaveGroupResponse) {
		return &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{{MemberId: "m2", GroupInstanceId: inst}}},
			&codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{{MemberId: "m2", GroupInstanceId: inst, ErrorCode: code}}}
	}
	byID, _ := entry(codec.Null, codec.None)
	byIDResp := &codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{{MemberId: "m2", ErrorCode: codec.None}}}
	both, bothResp := entry(codec.Str("inst-2"), codec.None)
	_, refused := entry(codec.Null, codec.UnknownMemberID)
	for _, tc := range []struct {
		name    string
		version int16
		req     *codec.LeaveGroupRequest
		resp    *codec.LeaveGroupResponse
		rule    rules.Rule
	}{
		{"member id, null instance", 5, byID, byIDResp, ""},
		{"member id and its instance", 5, both, bothResp, ""},
		{"v2 member id", 2, &codec.LeaveGroupRequest{GroupId: "g", MemberId: "m2"}, &codec.LeaveGroupResponse{}, ""},
		{"refused: the member stays", 5, byID, refused, rules.RuleMemberVanished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newHistoryBuilder(t, handPlan())
			b.record(0, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m1", 6000, "alpha"), ok("m1", 1, alpha(0, 1, 2, 3, 4, 5)))
			b.record(500, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m2", "inst-2", 6000, "alpha"), ok("m2", 2, alpha()))
			b.record(1000, "admin", codec.LeaveGroup, tc.version, tc.req, tc.resp)
			b.record(1500, "observer", codec.ConsumerGroupDescribe, 1, describeG, described("Reconciling", 3, 3, dm{"m1", 1, []int32{0, 1, 2, 3, 4, 5}, []int32{0, 1, 2, 3, 4, 5}}))
			judge(t, handPlan(), b, tc.rule, "not listed")
		})
	}
}

// takeoverHistory is a group of static m1 (inst-1) and dynamic m2 settled
// at epoch 2 (alpha 0-2 and 3-5), a Describe showing it, m1 parked, and a
// new member m9 taking over inst-1 with the answer join; then m2's
// heartbeat answered hb and a Describe answered after. Each answer is a
// correct broker's unless the test gives another.
func takeoverHistory(t *testing.T, join, hb *codec.ConsumerGroupHeartbeatResponse, after *codec.ConsumerGroupDescribeResponse) *historyBuilder {
	b := newHistoryBuilder(t, handPlan())
	b.record(0, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m1", "inst-1", 6000, "alpha"), ok("m1", 1, alpha(0, 1, 2, 3, 4, 5)))
	b.record(500, "c3", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m2", 6000, "alpha"), ok("m2", 2, alpha()))
	b.record(1000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m1", 1, "-"), ok("m1", 2, alpha(0, 1, 2)))
	b.record(1500, "c3", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m2", 2, "-"), ok("m2", 2, alpha(3, 4, 5)))
	b.record(2000, "observer", codec.ConsumerGroupDescribe, 1, describeG, described("Stable", 2, 2,
		dm{"m1", 2, []int32{0, 1, 2}, []int32{0, 1, 2}}, dm{"m2", 2, []int32{3, 4, 5}, []int32{3, 4, 5}}))
	b.record(2500, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Leave("g", "m1", rules.StaticLeaveEpoch, "inst-1"), parkedResp("m1"))
	b.record(3000, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m9", "inst-1", 6000, "alpha"), join)
	b.record(3500, "c3", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m2", 2, "-"), hb)
	b.record(4000, "observer", codec.ConsumerGroupDescribe, 1, describeG, after)
	return b
}

func settledAfter(g int32, m9, m2 dm) *codec.ConsumerGroupDescribeResponse {
	return described("Stable", g, g, m2, m9)
}

// KIP-345: a static restart is not a rebalance. A broker that keeps the
// group epoch and every assignment passes, a takeover being no
// MemberVanished; a broker that rebalances is caught however it shows it.
func TestObservableStaticTakeover(t *testing.T) {
	m9, m2 := dm{"m9", 2, []int32{0, 1, 2}, []int32{0, 1, 2}}, dm{"m2", 2, []int32{3, 4, 5}, []int32{3, 4, 5}}
	join, hb := ok("m9", 2, alpha(0, 1, 2)), ok("m2", 2, nil)
	for _, tc := range []struct {
		name   string
		join   *codec.ConsumerGroupHeartbeatResponse
		hb     *codec.ConsumerGroupHeartbeatResponse
		after  *codec.ConsumerGroupDescribeResponse
		detail string // "" Ok; else StaticRestartKeepsAssignment saying it
	}{
		{"no rebalance", join, hb, settledAfter(2, m9, m2), ""},
		{"a full heartbeat repeats the assignment", join, ok("m2", 2, alpha(3, 4, 5)), settledAfter(2, m9, m2), ""},
		{"the join bumps the epoch", ok("m9", 3, alpha(0, 1, 2)), hb, settledAfter(2, m9, m2), "moved the group epoch: its join was answered epoch 3"},
		{"the join must revoke first", ok("m9", 0, alpha(0, 1)), hb, settledAfter(2, m9, m2), "the join response lacks"},
		{"another member's epoch moves", join, ok("m2", 3, alpha(3, 4, 5)), settledAfter(2, m9, m2), "member m2 was answered epoch 3"},
		{"another member loses a partition", join, ok("m2", 2, alpha(3, 4)), settledAfter(2, m9, m2), "member m2 lost"},
		{"Describe shows a new group epoch", join, hb, settledAfter(3, m9, m2), "shows group epoch 3"},
		{"Describe shows another target", join, hb, settledAfter(2, dm{"m9", 2, []int32{0, 1, 2}, []int32{0, 1}}, dm{"m2", 2, []int32{3, 4, 5}, []int32{2, 3, 4, 5}}), "target assignment is"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := takeoverHistory(t, tc.join, tc.hb, tc.after)
			if tc.detail == "" {
				judge(t, handPlan(), b, "", "")
			} else {
				judge(t, handPlan(), b, rules.RuleStaticRestartKeepsAssignment, tc.detail)
			}
		})
	}
}

// What a takeover cannot be judged against passes: a member joined between
// the park and the takeover (the epoch may move for it), or a member whose
// session may have ended (its expiry moves the epoch).
func TestObservableStaticTakeoverAfterAChange(t *testing.T) {
	t.Run("a member joined", func(t *testing.T) {
		b := newHistoryBuilder(t, handPlan())
		b.record(0, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m1", "inst-1", 6000, "alpha"), ok("m1", 1, alpha(0, 1, 2, 3, 4, 5)))
		b.record(500, "observer", codec.ConsumerGroupDescribe, 1, describeG, described("Stable", 1, 1, dm{"m1", 1, []int32{0, 1, 2, 3, 4, 5}, []int32{0, 1, 2, 3, 4, 5}}))
		b.record(1000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Leave("g", "m1", rules.StaticLeaveEpoch, "inst-1"), parkedResp("m1"))
		b.record(1500, "c3", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m2", 6000, "alpha"), ok("m2", 2, alpha()))
		b.record(2000, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m9", "inst-1", 6000, "alpha"), ok("m9", 2, alpha(0, 1, 2)))
		judge(t, handPlan(), b, "", "")
	})
	t.Run("a session may have ended", func(t *testing.T) {
		b := newHistoryBuilder(t, handPlan())
		b.record(0, "c3", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m2", 6000, "alpha"), ok("m2", 1, alpha(0, 1, 2, 3, 4, 5)))
		b.record(500, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m1", "inst-1", 6000, "alpha"), ok("m1", 2, alpha()))
		b.record(5000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m1", 2, "-"), ok("m1", 2, nil))
		b.record(5500, "observer", codec.ConsumerGroupDescribe, 1, describeG, described("Reconciling", 2, 2, dm{"m1", 2, nil, []int32{0, 1, 2}}, dm{"m2", 1, []int32{0, 1, 2, 3, 4, 5}, []int32{3, 4, 5}}))
		b.record(6000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Leave("g", "m1", rules.StaticLeaveEpoch, "inst-1"), parkedResp("m1"))
		// m2's session (from t=0) ends at 6000: it may have expired,
		// moving the epoch to 3.
		b.record(6500, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m9", "inst-1", 6000, "alpha"), ok("m9", 3, alpha(0, 1, 2, 3, 4, 5)))
		judge(t, handPlan(), b, "", "")
	})
	t.Run("a parked member's session may have ended before it resumed", func(t *testing.T) {
		// A static leave does not start its member's session afresh
		// (Kafka's consumerGroupStaticMemberGroupLeave arms no timer): m1,
		// parked at 3000, was last heard at 1000, so at 7000 its session
		// may have ended and removed it (epoch 3) before its rejoin joined
		// it again (epoch 4). m2's takeover after that is judged against
		// a group that moved, not against the Describe at epoch 2.
		b := newHistoryBuilder(t, handPlan())
		b.record(0, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m1", "inst-1", 6000, "alpha"), ok("m1", 1, alpha(0, 1, 2, 3, 4, 5)))
		b.record(500, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m2", "inst-2", 6000, "alpha"), ok("m2", 2, alpha()))
		b.record(1000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m1", 1, "-"), ok("m1", 2, alpha(0, 1, 2)))
		b.record(1500, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m2", 2, "-"), ok("m2", 2, alpha(3, 4, 5)))
		b.record(2000, "observer", codec.ConsumerGroupDescribe, 1, describeG, described("Stable", 2, 2,
			dm{"m1", 2, []int32{0, 1, 2}, []int32{0, 1, 2}}, dm{"m2", 2, []int32{3, 4, 5}, []int32{3, 4, 5}}))
		b.record(3000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Leave("g", "m1", rules.StaticLeaveEpoch, "inst-1"), parkedResp("m1"))
		b.record(4000, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m2", 2, "-"), ok("m2", 2, nil))
		b.record(4500, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.Leave("g", "m2", rules.StaticLeaveEpoch, "inst-2"), parkedResp("m2"))
		b.record(7000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m1", "inst-1", 6000, "alpha"), ok("m1", 4, alpha(0, 1, 2)))
		b.record(7500, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m2", "inst-2", 6000, "alpha"), ok("m2", 4, alpha(3, 4, 5)))
		judge(t, handPlan(), b, "", "")
	})
}

// A heartbeat's subscription fields are each "unchanged" when null, and a
// regex of "" (a client dropping its regex) is not the same as none: after
// a takeover, m2 sending its names again with the regex "" may move the
// group epoch (ghostcheck's model does, as a change of regex); sending its
// names alone, unchanged, may not.
func TestObservableStaticTakeoverThenSubscription(t *testing.T) {
	for _, tc := range []struct {
		name   string
		regex  codec.NullableString
		detail string
	}{
		{"regex set to empty", codec.Str(""), ""},
		{"regex null, names unchanged", codec.Null, "member m2 was answered epoch 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := takeoverHistory(t, ok("m9", 2, alpha(0, 1, 2)), ok("m2", 2, nil), settledAfter(2, dm{"m9", 2, []int32{0, 1, 2}, []int32{0, 1, 2}}, dm{"m2", 2, []int32{3, 4, 5}, []int32{3, 4, 5}}))
			b.h = b.h[:7] // up to the takeover
			req := testreq.Heartbeat("g", "m2", 2, "-")
			req.SubscribedTopicNames, req.SubscribedTopicRegex = testreq.Join("g", "m2", 6000, "alpha").SubscribedTopicNames, tc.regex
			b.record(3500, "c3", codec.ConsumerGroupHeartbeat, 1, req, ok("m2", 3, alpha(3, 4, 5)))
			if tc.detail == "" {
				judge(t, handPlan(), b, "", "")
			} else {
				judge(t, handPlan(), b, rules.RuleStaticRestartKeepsAssignment, tc.detail)
			}
		})
	}
}

// A parked member resuming under its own member id is the same promise.
func TestObservableStaticRejoin(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rejoin *codec.ConsumerGroupHeartbeatResponse
		detail string
	}{
		{"no rebalance", ok("m1", 2, alpha(0, 1, 2)), ""},
		{"rebalance", ok("m1", 3, alpha(0, 1, 2)), "static rejoin of member m1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := takeoverHistory(t, ok("m9", 2, alpha(0, 1, 2)), ok("m2", 2, nil), settledAfter(2, dm{"m9", 2, []int32{0, 1, 2}, []int32{0, 1, 2}}, dm{"m2", 2, []int32{3, 4, 5}, []int32{3, 4, 5}}))
			b.h = b.h[:6] // up to m1's park
			b.record(3000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m1", "inst-1", 6000, "alpha"), tc.rejoin)
			if tc.detail == "" {
				judge(t, handPlan(), b, "", "")
			} else {
				judge(t, handPlan(), b, rules.RuleStaticRestartKeepsAssignment, tc.detail)
			}
		})
	}
}

// A takeover is not a MemberVanished when the parked member's absence is
// seen by a Describe the takeover ran alongside, or after a takeover whose
// answer was never learned.
func TestObservableTakeoverIsNoVanish(t *testing.T) {
	prefix := func(t *testing.T) *historyBuilder {
		b := takeoverHistory(t, ok("m9", 2, alpha(0, 1, 2)), ok("m2", 2, nil), nil)
		b.h = b.h[:6] // up to m1's park
		return b
	}
	after := described("Stable", 2, 2, dm{"m2", 2, []int32{3, 4, 5}, []int32{3, 4, 5}}, dm{"m9", 2, []int32{0, 1, 2}, []int32{0, 1, 2}})
	t.Run("concurrent Describe", func(t *testing.T) {
		b := prefix(t)
		b.record(3000, "observer", codec.ConsumerGroupDescribe, 1, describeG, after)
		b.record(3000, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m9", "inst-1", 6000, "alpha"), ok("m9", 2, alpha(0, 1, 2)))
		b.overlap(6)
		judge(t, handPlan(), b, "", "")
	})
	t.Run("outcome unknown", func(t *testing.T) {
		b := prefix(t)
		b.record(3000, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m9", "inst-1", 6000, "alpha"), nil)
		b.record(3500, "observer", codec.ConsumerGroupDescribe, 1, describeG, after)
		judge(t, handPlan(), b, "", "")
	})
}

// Kafka may let the target assignment lag the group epoch: Describe's
// state "Assigning", AssignmentEpoch below GroupEpoch, members behind it.
// None of that is a violation, and a takeover then is judged against the
// group epoch.
func TestObservableAssigning(t *testing.T) {
	b := newHistoryBuilder(t, handPlan())
	b.record(0, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m1", "inst-1", 6000, "alpha"), ok("m1", 1, alpha(0, 1, 2, 3, 4, 5)))
	b.record(500, "c3", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m2", 6000, "alpha"), ok("m2", 1, alpha()))
	b.record(1000, "observer", codec.ConsumerGroupDescribe, 1, describeG, described("Assigning", 2, 1,
		dm{"m1", 1, []int32{0, 1, 2, 3, 4, 5}, []int32{0, 1, 2, 3, 4, 5}}, dm{"m2", 1, nil, nil}))
	b.record(1500, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Leave("g", "m1", rules.StaticLeaveEpoch, "inst-1"), parkedResp("m1"))
	b.record(2000, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m9", "inst-1", 6000, "alpha"), ok("m9", 1, alpha(0, 1, 2, 3, 4, 5)))
	b.record(2500, "c3", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m2", 1, "-"), ok("m2", 2, alpha()))
	b.record(3000, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m9", 1, "-"), ok("m9", 2, alpha(0, 1, 2)))
	b.record(3500, "observer", codec.ConsumerGroupDescribe, 1, describeG, described("Reconciling", 2, 2,
		dm{"m2", 2, nil, []int32{3, 4, 5}}, dm{"m9", 2, []int32{0, 1, 2}, []int32{0, 1, 2}}))
	judge(t, handPlan(), b, "", "")
}

// A member parked while it had partitions to revoke is fenced by a
// rebalance timer a rebalance timeout after a coordinator reload (Kafka's
// reload arms one for every member still in UNREVOKED_PARTITIONS): not a
// MemberVanished. Without the reload the same early disappearance is one.
func TestObservableParkedMemberFencedAfterReload(t *testing.T) {
	for _, tc := range []struct {
		name    string
		restart bool
		rule    rules.Rule
	}{
		{"after a reload", true, ""},
		{"without a reload", false, rules.RuleMemberVanished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := handPlan()
			p.SessionTimeoutMs = 20000 // longer than the rebalance timeout (6000 ms)
			b := newHistoryBuilder(t, p)
			b.record(0, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.StaticJoin("g", "m1", "inst-1", 6000, "alpha"), ok("m1", 1, alpha(0, 1, 2, 3, 4, 5)))
			b.record(500, "c3", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m2", 6000, "alpha"), ok("m2", 2, alpha()))
			b.record(1000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m1", 1, "-"), ok("m1", 1, alpha(0, 1, 2))) // revoke 3-5
			b.record(1500, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Leave("g", "m1", rules.StaticLeaveEpoch, "inst-1"), parkedResp("m1"))
			if tc.restart {
				b.h = append(b.h, history.Op{ID: len(b.h), Client: 9, Name: "coordinator", At: 2000, Call: b.events + 1, Return: b.events + 2, Restart: true})
				b.events += 2
			}
			b.record(2500, "c3", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m2", 2, "-"), ok("m2", 2, nil))
			b.record(8500, "observer", codec.ConsumerGroupDescribe, 1, describeG, described("Reconciling", 3, 3, dm{"m2", 3, nil, []int32{0, 1, 2, 3, 4, 5}}))
			judge(t, p, b, tc.rule, "not listed")
		})
	}
}

// Operations a parallel round delivers together happened in an order the
// history does not record: a Describe may have come before a join, a
// heartbeat's epoch or a leave it ran alongside. Judged sequentially, the
// same answers are violations.
func TestObservableConcurrentOperations(t *testing.T) {
	for _, tc := range []struct {
		name       string
		concurrent bool
		rule       rules.Rule
		build      func(b *historyBuilder)
	}{
		{"Describe before a join", true, "", describeBeforeJoin},
		{"Describe after a join", false, rules.RuleMemberVanished, describeBeforeJoin},
		{"Describe before a new epoch", true, "", describeBeforeEpoch},
		{"Describe after a new epoch", false, rules.RuleMonotonicEpochs, describeBeforeEpoch},
		{"Describe after a leave", true, "", describeAfterLeave},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newHistoryBuilder(t, handPlan())
			b.record(0, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m1", 6000, "alpha"), ok("m1", 1, alpha(0, 1, 2, 3, 4, 5)))
			from := len(b.h)
			tc.build(b)
			if tc.concurrent {
				b.overlap(from)
			}
			judge(t, handPlan(), b, tc.rule, "")
		})
	}
}

// describeBeforeJoin: m2 joins while a Describe lists m1 alone (the join
// is first in the history).
func describeBeforeJoin(b *historyBuilder) {
	b.record(1000, "c3", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m2", 6000, "alpha"), ok("m2", 2, alpha()))
	b.record(1000, "observer", codec.ConsumerGroupDescribe, 1, describeG, described("Reconciling", 1, 1, dm{"m1", 1, []int32{0, 1, 2, 3, 4, 5}, []int32{0, 1, 2, 3, 4, 5}}))
}

// describeBeforeEpoch: m1's heartbeat is answered epoch 2 while a
// Describe lists it at 1.
func describeBeforeEpoch(b *historyBuilder) {
	b.record(1000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m1", 1, "-"), ok("m1", 2, nil))
	b.record(1000, "observer", codec.ConsumerGroupDescribe, 1, describeG, described("Stable", 1, 1, dm{"m1", 1, []int32{0, 1, 2, 3, 4, 5}, []int32{0, 1, 2, 3, 4, 5}}))
}

// describeAfterLeave: a Describe called first does not list m1, whose
// leave ran alongside it.
func describeAfterLeave(b *historyBuilder) {
	b.record(1000, "observer", codec.ConsumerGroupDescribe, 1, describeG, described("Empty", 2, 2))
	b.record(1000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Leave("g", "m1", rules.LeaveEpoch, ""),
		&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("m1"), MemberEpoch: rules.LeaveEpoch})
}

// The seeds a sweep saw flip between Ok and Illegal under parallel
// delivery against the model (MemberVanished, MonotonicEpochs) pass every
// time now, as does a sample of others.
func TestObservableParallelModelHasNoFalseAlarms(t *testing.T) {
	o := plan.DefaultOptions()
	o.Parallel = true
	o.Faults, o.StaticPercent = plan.UniformFaults(30), 70
	seeds := []uint64{6, 11, 15, 17, 19, 24, 26, 31, 34, 45, 53}
	for _, seed := range seeds {
		for rep := 0; rep < race.Sweep(10); rep++ {
			p := plan.New(seed, o)
			res, err := driver.Run(targets.NewModelTarget(p.ModelConfig()), p)
			if err != nil {
				t.Fatal(err)
			}
			if r := check.Check(res, check.Options{Level: check.LevelObservable}); r.Verdict != history.Ok {
				t.Fatalf("seed %d, run %d: %s %s: %s", seed, rep, r.Verdict, r.Rule, r.Detail)
			}
		}
	}
}
