package linearize

import (
	"bytes"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
)

// restartPlan is a default plan with at least one coordinator restart
// after clients have joined.
func restartPlan(t *testing.T, seed uint64) Plan {
	t.Helper()
	for s := seed; s < seed+50; s++ {
		p := NewPlan(s, DefaultOptions())
		if len(p.Restarts) > 0 && p.Restarts[0] >= 15 {
			return p
		}
	}
	t.Fatalf("no plan with a restart after round 15 in seeds %d-%d", seed, seed+49)
	return Plan{}
}

// A restart is recorded as an operation of its own, every connection is
// replaced (the next first request carries ClientId again), the history
// checks Ok against the model, and it survives a history file.
func TestRestartsAreRecordedAndChecked(t *testing.T) {
	plan := restartPlan(t, 1)
	res, rep := runModel(t, plan)
	if rep.Verdict != Ok {
		t.Fatalf("seed %d: %s %s: %s", plan.Seed, rep.Verdict, rep.Rule, rep.Detail)
	}
	var restarts []Op
	for _, op := range res.History {
		if op.Restart {
			restarts = append(restarts, op)
		}
	}
	if len(restarts) != len(plan.Restarts) {
		t.Fatalf("%d restart ops recorded for %d planned", len(restarts), len(plan.Restarts))
	}
	r := restarts[0]
	if r.At != int64(plan.Restarts[0])*plan.RoundMs {
		t.Fatalf("first restart at t=%d, planned for round %d", r.At, plan.Restarts[0])
	}
	// After it, no request travels on a connection opened before it.
	opened := map[uint64]bool{}
	for _, op := range res.History {
		if op.ID < r.ID && !op.Restart {
			opened[op.Conn.ID] = true
		}
		if op.ID > r.ID && !op.Restart && opened[op.Conn.ID] && op.At < restarts[len(restarts)-1].At {
			t.Fatalf("op %d (%s) after the restart travels on connection %d, opened before it", op.ID, describeOp(&op), op.Conn.ID)
		}
	}
	var buf bytes.Buffer
	if err := WriteFile(&buf, FileHeader{Target: "model", Plan: plan, Expect: Expect{Verdict: rep.Verdict}}, res.History); err != nil {
		t.Fatal(err)
	}
	hdr, h, err := ReadFile(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !h[r.ID].Restart || h[r.ID].Call != r.Call || h[r.ID].Return != r.Return {
		t.Fatalf("the restart op did not survive the file: %+v", h[r.ID])
	}
	if r2 := CheckHistory(hdr.Plan, h, CheckOptions{}); r2.Verdict != Ok {
		t.Fatalf("the read history checks %s: %s", r2.Verdict, r2.Detail)
	}
}

// The checker replays restarts: a member that outlives its old session
// deadline because a restart started its session afresh is legal with the
// restart in the history, and illegal without it.
func TestCheckerReplaysRestarts(t *testing.T) {
	plan := NewPlan(1, DefaultOptions()) // session timeout 6000 ms
	target := NewModelTarget(plan.ModelConfig())
	var h History
	var events int64
	do := func(at int64, key codec.APIKey, version int16, req codec.Message) {
		t.Helper()
		if err := target.Advance(at); err != nil {
			t.Fatal(err)
		}
		hdr := codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: int32(len(h)), ClientId: codec.Str("c")}
		resp, err := target.Handle(Conn{ID: uint64(len(h) + 1), Host: "/10.0.0.1"}, &hdr, req)
		if err != nil {
			t.Fatal(err)
		}
		h = append(h, Op{ID: len(h), Name: "c", Conn: Conn{ID: uint64(len(h) + 1), Host: "/10.0.0.1"}, ClientID: "c", At: at,
			Call: events + 1, Return: events + 2, Header: hdr, Request: req, Response: resp})
		events += 2
	}
	do(0, codec.ConsumerGroupHeartbeat, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1", RebalanceTimeoutMs: 1000,
		SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}})
	if err := target.Advance(4000); err != nil {
		t.Fatal(err)
	}
	if err := target.Restart(); err != nil {
		t.Fatal(err)
	}
	h = append(h, Op{ID: len(h), Client: 1, Name: "coordinator", At: 4000, Call: events + 1, Return: events + 2, Restart: true})
	events += 2
	do(8000, codec.ConsumerGroupDescribe, 1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}})
	if d := h[2].Response.(*codec.ConsumerGroupDescribeResponse); len(d.Groups) != 1 || len(d.Groups[0].Members) != 1 {
		t.Fatalf("m1 should still be there at 8000 (restart at 4000, session 6000): %s", summarize(d))
	}
	if rep := CheckHistory(plan, h, CheckOptions{}); rep.Verdict != Ok {
		t.Fatalf("with the restart: %s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	}
	stripped := History{h[0], h[2]}
	stripped[1].ID = 1
	if rep := CheckHistory(plan, stripped, CheckOptions{}); rep.Verdict != Illegal {
		t.Fatalf("without the restart m1 expired at 6000, so the describe at 8000 is illegal; got %s %s", rep.Verdict, rep.Rule)
	}
}

// forgetfulCoordinator loses every group on restart, as a coordinator that
// does not persist its state would.
type forgetfulCoordinator struct {
	*ModelTarget
	cfg model.Config
	now int64
}

func (f *forgetfulCoordinator) Advance(ms int64) error {
	f.now = ms
	return f.ModelTarget.Advance(ms)
}

func (f *forgetfulCoordinator) Restart() error {
	f.ModelTarget = NewModelTarget(f.cfg)
	return f.ModelTarget.Advance(f.now)
}

// A coordinator that loses its groups on restart is caught.
func TestRestartLosingStateIsIllegal(t *testing.T) {
	plan := restartPlan(t, 1)
	target := &forgetfulCoordinator{ModelTarget: NewModelTarget(plan.ModelConfig()), cfg: plan.ModelConfig()}
	res, err := Run(target, plan)
	if err != nil {
		t.Fatal(err)
	}
	rep := Check(res, CheckOptions{})
	if rep.Verdict != Illegal {
		t.Fatalf("seed %d: a coordinator forgetting its groups on restart: %s %s, want Illegal", plan.Seed, rep.Verdict, rep.Rule)
	}
	t.Logf("caught: %s: %s", rep.Rule, rep.Detail)
}

// A plan with restarts against a target that cannot restart is a harness
// error, never a pass.
func TestRestartsNeedARestarter(t *testing.T) {
	plan := restartPlan(t, 1)
	inner := NewModelTarget(plan.ModelConfig())
	target := Funcs{HandleFunc: inner.Handle, DisconnectFunc: inner.Disconnect, AdvanceFunc: inner.Advance}
	if CanRestart(target) || CanRestart(WithSnapshot(target, inner.Snapshot)) {
		t.Fatal("Funcs without RestartFunc claims it can restart")
	}
	res, err := Run(target, plan)
	if err != nil {
		t.Fatal(err)
	}
	if rep := Check(res, CheckOptions{}); rep.Verdict != VerdictUnknown || rep.Rule != "HarnessAssumption" {
		t.Fatalf("verdict %s %s, want Unknown HarnessAssumption", rep.Verdict, rep.Rule)
	}
	target.RestartFunc = inner.Restart
	if !CanRestart(target) || !CanRestart(WithSnapshot(target, inner.Snapshot)) {
		t.Fatal("Funcs with RestartFunc cannot restart")
	}
}

// A crashed process's member outlives its last heartbeat by a session
// timeout counted from a restart it lived through, and no further: grace is
// extended, not removed.
func TestSessionEndCountsRestarts(t *testing.T) {
	d := &driver{plan: &Plan{SessionTimeoutMs: 6000}}
	for _, c := range []struct {
		restarts []int64
		last     int64
		want     int64
	}{
		{nil, 1000, 7000},
		{[]int64{500}, 1000, 7000},          // before the last heartbeat
		{[]int64{4000}, 1000, 10000},        // within the session
		{[]int64{7000}, 1000, 7000},         // after it ended
		{[]int64{4000, 9000}, 1000, 15000},  // chained
		{[]int64{4000, 10000}, 1000, 10000}, // the second came too late
		{[]int64{1000}, 1000, 7000},         // the same instant
	} {
		d.restartAt = c.restarts
		if got := d.sessionEnd(c.last); got != c.want {
			t.Errorf("restarts %v, last heartbeat %d: session ends %d, want %d", c.restarts, c.last, got, c.want)
		}
	}
}
