package check_test

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/model/rules"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/plan"
)

// The reference model judged at the observable level has no false alarms:
// everything the model does, the protocol allows.
func TestObservableCheckPassesTheModel(t *testing.T) {
	for _, version := range []int{1, -1} {
		o := plan.DefaultOptions()
		o.HeartbeatVersion = version
		for seed := uint64(1); seed <= 30; seed++ {
			p := plan.New(seed, o)
			res, err := driver.Run(targets.NewModelTarget(p.ModelConfig()), p)
			if err != nil {
				t.Fatal(err)
			}
			rep := check.Check(res, check.Options{Level: check.LevelObservable})
			if version == 1 && rep.Verdict != history.Ok {
				t.Fatalf("version %d seed %d: %s %s: %s", version, seed, rep.Verdict, rep.Rule, rep.Detail)
			}
			if version == -1 && rep.Rule != "" && rep.Rule != "NoGhosts" && rep.Rule != "OneMemberPerProcess" && rep.Rule != "QuiescentMembership" {
				t.Fatalf("mixed seed %d: %s %s: %s", seed, rep.Verdict, rep.Rule, rep.Detail)
			}
		}
	}
}

// forgetful drops members without a leave: a member vanishes at once.
type forgetful struct {
	driver.Target
}

func (f forgetful) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	resp, err := f.Target.Handle(conn, h, req)
	if r, ok := req.(*codec.ConsumerGroupHeartbeatRequest); ok && r.MemberEpoch > 0 && err == nil {
		if hb := resp.(*codec.ConsumerGroupHeartbeatResponse); hb.ErrorCode == codec.None {
			// Forget the member right after answering it.
			f.Target.Handle(driver.Conn{ID: 1 << 50}, &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1},
				testreq.Leave(r.GroupId, r.MemberId, -1, ""))
		}
	}
	return resp, err
}

// A broker that loses members before their session timeout is caught at
// the observable level.
func TestObservableCheckCatchesVanishingMembers(t *testing.T) {
	o := plan.DefaultOptions()
	o.Faults = nil
	o.Crashes, o.Leaves = false, false
	o.Restarts = false // forgetful cannot restart
	for seed := uint64(1); seed <= 10; seed++ {
		p := plan.New(seed, o)
		res, err := driver.Run(forgetful{targets.NewModelTarget(p.ModelConfig())}, p)
		if err != nil {
			t.Fatal(err)
		}
		if rep := check.Check(res, check.Options{Level: check.LevelObservable}); rep.Verdict == history.Illegal {
			t.Logf("seed %d: %s: %s", seed, rep.Rule, rep.Detail)
			return
		}
	}
	t.Fatal("members vanishing right after their heartbeats went unnoticed in 10 histories")
}

// A member that rejoins at epoch 0 reports no partitions, yet the broker
// still counts the ones it gave it before: when the rejoin's assignment
// lacks some, their revocation is pending and the rebalance timer runs
// from the rejoin. The observable check must allow the member to vanish
// a rebalance timeout later (a false MemberVanished found by a sweep of
// 6,000 histories at 30 % faults).
func TestObservableRejoinStartsARebalanceTimer(t *testing.T) {
	p := plan.New(1, plan.DefaultOptions())
	rebalance := int32(4 * p.RoundMs * int64(p.RequestTimeout)) // 6000 ms, what the observer assumes
	b := newHistoryBuilder(t, p)
	b.do(0, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m1", rebalance, "alpha"))
	m2 := b.do(500, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m2", rebalance, "alpha")).(*codec.ConsumerGroupHeartbeatResponse)
	rejoin := b.do(1000, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m1", rebalance, "alpha")).(*codec.ConsumerGroupHeartbeatResponse)
	if rejoin.Assignment == nil || len(rejoin.Assignment.TopicPartitions) == 0 {
		t.Fatalf("the rejoin should keep part of alpha: %s", history.Summary(rejoin))
	}
	hb1 := testreq.Heartbeat("g", "m1", rejoin.MemberEpoch, "-")
	hb2 := testreq.Heartbeat("g", "m2", m2.MemberEpoch, "-")
	b.do(3000, "c1", codec.ConsumerGroupHeartbeat, 1, hb1) // never revokes
	b.do(3000, "c2", codec.ConsumerGroupHeartbeat, 1, hb2)
	b.do(6000, "c2", codec.ConsumerGroupHeartbeat, 1, hb2)
	gone := b.do(7500, "c1", codec.ConsumerGroupHeartbeat, 1, hb1).(*codec.ConsumerGroupHeartbeatResponse)
	if gone.ErrorCode != codec.UnknownMemberID {
		t.Fatalf("m1 should have been removed at 1000+6000: %s", history.Summary(gone))
	}
	res := &driver.Result{Plan: p, History: b.h}
	if rep := check.Check(res, check.Options{Level: check.LevelExact}); rep.Verdict != history.Ok {
		t.Fatalf("exact check: %s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	}
	if rep := check.Check(res, check.Options{Level: check.LevelObservable}); rep.Verdict != history.Ok {
		t.Fatalf("observable check: %s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	}
}

// The observable check reports the first violation of every rule broken,
// not only the first violation: `check --known` sets a rule aside and
// still sees the others.
func TestObservableReportsEachRuleBroken(t *testing.T) {
	p := plan.New(1, plan.DefaultOptions())
	b := newHistoryBuilder(t, p)
	j := b.do(0, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m1", 6000, "alpha")).(*codec.ConsumerGroupHeartbeatResponse)
	b.do(500, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m1", j.MemberEpoch, "-"))
	b.do(1000, "c2", codec.ConsumerGroupDescribe, 1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}})
	// A code ConsumerGroupHeartbeat may not answer, twice; then a
	// describe without m1, long before its session could end.
	b.h[1].Response = &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.ErrorCode(41)}
	b.h = append(b.h, b.h[1])
	b.h[3].ID, b.h[3].At, b.h[3].Call, b.h[3].Return = 3, 1200, b.events+1, b.events+2
	b.h[2].Response = &codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{{GroupId: "g"}}}
	rep := check.Check(&driver.Result{Plan: p, History: b.h}, check.Options{Level: check.LevelObservable})
	if rep.Verdict != history.Illegal || rep.Rule != string(rules.RuleObservableResponse) {
		t.Fatalf("%s %s: %s, want Illegal ObservableResponse", rep.Verdict, rep.Rule, rep.Detail)
	}
	var broken []string
	for _, v := range rep.Invariants {
		broken = append(broken, v.Rule)
	}
	if len(broken) != 2 || broken[0] != string(rules.RuleObservableResponse) || broken[1] != string(rules.RuleMemberVanished) {
		t.Fatalf("violations by rule %v, want [ObservableResponse MemberVanished], one each", broken)
	}
}

// A violation Options.SetAside sets aside (a known finding) is
// reported apart and does not hide the rule's next violation.
func TestObservableSetAside(t *testing.T) {
	p := plan.New(1, plan.DefaultOptions())
	b := newHistoryBuilder(t, p)
	j := b.do(0, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m1", 6000, "alpha")).(*codec.ConsumerGroupHeartbeatResponse)
	hb := testreq.Heartbeat("g", "m1", j.MemberEpoch, "-")
	b.do(500, "c1", codec.ConsumerGroupHeartbeat, 1, hb)
	b.do(1000, "c1", codec.ConsumerGroupHeartbeat, 1, hb)
	// A success that does not echo the member id, then a code the API may
	// not answer: two ObservableResponse violations.
	b.h[1].Response = &codec.ConsumerGroupHeartbeatResponse{MemberEpoch: j.MemberEpoch, HeartbeatIntervalMs: 100}
	b.h[2].Response = &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.ErrorCode(41)}
	res := &driver.Result{Plan: p, History: b.h}
	echo := func(rule, what string) bool {
		return rule == string(rules.RuleObservableResponse) && strings.Contains(what, "must echo member id")
	}
	for _, tc := range []struct {
		setAside func(rule, what string) bool
		verdict  history.Verdict
		detail   string
		known    int
	}{
		{nil, history.Illegal, "must echo member id", 0},
		{echo, history.Illegal, "may not answer", 1},
		{func(string, string) bool { return true }, history.Ok, "", 1},
	} {
		rep := check.Check(res, check.Options{Level: check.LevelObservable, SetAside: tc.setAside})
		if rep.Verdict != tc.verdict || !strings.Contains(rep.Detail, tc.detail) || len(rep.SetAside) != tc.known {
			t.Errorf("%s %s (set aside %v), want %s with %q and %d set aside", rep.Verdict, rep.Detail, rep.SetAside, tc.verdict, tc.detail, tc.known)
		}
	}
}
