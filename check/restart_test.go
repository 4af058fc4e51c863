package check_test

import (
	"bytes"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/plan"
)

// restartPlan is a default plan with at least one coordinator restart
// after clients have joined.
func restartPlan(t *testing.T, seed uint64) plan.Plan {
	t.Helper()
	for s := seed; s < seed+50; s++ {
		p := plan.New(s, plan.DefaultOptions())
		if len(p.Restarts) > 0 && p.Restarts[0] >= 15 {
			return p
		}
	}
	t.Fatalf("no plan with a restart after round 15 in seeds %d-%d", seed, seed+49)
	return plan.Plan{}
}

// A restart is recorded as an operation of its own, every connection is
// replaced (the next first request carries ClientId again), the history
// checks Ok against the model, and it survives a history file.
func TestRestartsAreRecordedAndChecked(t *testing.T) {
	p := restartPlan(t, 1)
	res, rep := runModel(t, p)
	if rep.Verdict != history.Ok {
		t.Fatalf("seed %d: %s %s: %s", p.Seed, rep.Verdict, rep.Rule, rep.Detail)
	}
	var restarts []history.Op
	for _, op := range res.History {
		if op.Restart {
			restarts = append(restarts, op)
		}
	}
	if len(restarts) != len(p.Restarts) {
		t.Fatalf("%d restart ops recorded for %d planned", len(restarts), len(p.Restarts))
	}
	r := restarts[0]
	if r.At != int64(p.Restarts[0])*p.RoundMs {
		t.Fatalf("first restart at t=%d, planned for round %d", r.At, p.Restarts[0])
	}
	// After it, no request travels on a connection opened before it.
	opened := map[uint64]bool{}
	for _, op := range res.History {
		if op.ID < r.ID && !op.Restart {
			opened[op.Conn.ID] = true
		}
		if op.ID > r.ID && !op.Restart && opened[op.Conn.ID] {
			t.Fatalf("op %d (%s) after the restart travels on connection %d, opened before it", op.ID, history.Describe(&op), op.Conn.ID)
		}
	}
	var buf bytes.Buffer
	if err := history.WriteFile(&buf, history.FileHeader{Target: "model", Plan: p, Expect: history.Expect{Verdict: rep.Verdict}}, res.History); err != nil {
		t.Fatal(err)
	}
	hdr, h, err := history.ReadFile(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !h[r.ID].Restart || h[r.ID].Call != r.Call || h[r.ID].Return != r.Return {
		t.Fatalf("the restart op did not survive the file: %+v", h[r.ID])
	}
	if r2 := check.History(hdr.Plan, h, check.Options{}); r2.Verdict != history.Ok {
		t.Fatalf("the read history checks %s: %s", r2.Verdict, r2.Detail)
	}
}

// historyBuilder records a history by hand against the model, one request
// (or restart) at a time.
type historyBuilder struct {
	t      *testing.T
	target *targets.ModelTarget
	h      history.History
	events int64
}

func newHistoryBuilder(t *testing.T, p plan.Plan) *historyBuilder {
	return &historyBuilder{t: t, target: targets.NewModelTarget(p.ModelConfig())}
}

// do delivers req from client member (its own connection) at time at.
func (b *historyBuilder) do(at int64, client string, key codec.APIKey, version int16, req codec.Message) codec.Message {
	b.t.Helper()
	if err := b.target.Advance(at); err != nil {
		b.t.Fatal(err)
	}
	conn := history.Conn{ID: uint64(len(b.h) + 1), Host: "/10.0.0.1"}
	hdr := codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: int32(len(b.h)), ClientId: codec.Str(client)}
	resp, err := b.target.Handle(conn, &hdr, req)
	if err != nil {
		b.t.Fatal(err)
	}
	b.h = append(b.h, history.Op{ID: len(b.h), Name: client, Conn: conn, ClientID: client, At: at,
		Call: b.events + 1, Return: b.events + 2, Header: hdr, Request: req, Response: resp})
	b.events += 2
	return resp
}

// restart restarts the coordinator at time at.
func (b *historyBuilder) restart(at int64) {
	b.t.Helper()
	if err := b.target.Advance(at); err != nil {
		b.t.Fatal(err)
	}
	if err := b.target.Restart(); err != nil {
		b.t.Fatal(err)
	}
	b.h = append(b.h, history.Op{ID: len(b.h), Client: 9, Name: "coordinator", At: at, Call: b.events + 1, Return: b.events + 2, Restart: true})
	b.events += 2
}

// The checker replays restarts: a member that outlives its old session
// deadline because a restart started its session afresh is legal with the
// restart in the history, and illegal without it.
func TestCheckerReplaysRestarts(t *testing.T) {
	p := plan.New(1, plan.DefaultOptions()) // session timeout 6000 ms
	b := newHistoryBuilder(t, p)
	b.do(0, "c", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m1", 1000, "alpha"))
	b.restart(4000)
	b.do(8000, "c", codec.ConsumerGroupDescribe, 1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}})
	h := b.h
	if d := h[2].Response.(*codec.ConsumerGroupDescribeResponse); len(d.Groups) != 1 || len(d.Groups[0].Members) != 1 {
		t.Fatalf("m1 should still be there at 8000 (restart at 4000, session 6000): %s", history.Summary(d))
	}
	if rep := check.History(p, h, check.Options{}); rep.Verdict != history.Ok {
		t.Fatalf("with the restart: %s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	}
	stripped := history.History{h[0], h[2]}
	stripped[1].ID = 1
	if rep := check.History(p, stripped, check.Options{}); rep.Verdict != history.Illegal {
		t.Fatalf("without the restart m1 expired at 6000, so the describe at 8000 is illegal; got %s %s", rep.Verdict, rep.Rule)
	}
}

// A member removed by its rebalance timeout at the very time of a restart
// (timers due then fire first) is gone, and the observable check must not
// take the restart for a fresh start of its timers: no false
// MemberVanished.
func TestObservableRestartAfterARebalanceTimeout(t *testing.T) {
	p := plan.New(1, plan.DefaultOptions())
	rebalance := int32(4 * p.RoundMs * int64(p.RequestTimeout)) // what the observer assumes: 6000 ms
	b := newHistoryBuilder(t, p)
	owned := func(r codec.Message) []codec.ConsumerGroupHeartbeatTopicPartitions {
		return r.(*codec.ConsumerGroupHeartbeatResponse).Assignment.TopicPartitions
	}
	all := owned(b.do(0, "c1", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m1", rebalance, "alpha")))
	m2 := b.do(1000, "c2", codec.ConsumerGroupHeartbeat, 1, testreq.Join("g", "m2", rebalance, "alpha")).(*codec.ConsumerGroupHeartbeatResponse)
	hb := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1", MemberEpoch: 1, RebalanceTimeoutMs: -1, TopicPartitions: all}
	hb2 := testreq.Heartbeat("g", "m2", m2.MemberEpoch, "-")
	b.do(1500, "c1", codec.ConsumerGroupHeartbeat, 1, hb) // asked to revoke: the rebalance timer runs to 7500
	b.do(4000, "c1", codec.ConsumerGroupHeartbeat, 1, hb) // still not revoked
	b.do(4000, "c2", codec.ConsumerGroupHeartbeat, 1, hb2)
	b.restart(7500) // m1 was removed at 7500, just before
	d := b.do(8000, "c2", codec.ConsumerGroupDescribe, 1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}).(*codec.ConsumerGroupDescribeResponse)
	if len(d.Groups[0].Members) != 1 || d.Groups[0].Members[0].MemberId != "m2" {
		t.Fatalf("m1 should have been removed at 7500: %s", history.Summary(d))
	}
	res := &driver.Result{Plan: p, History: b.h}
	if rep := check.Check(res, check.Options{}); rep.Verdict != history.Ok {
		t.Fatalf("exact check: %s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	}
	if rep := check.Check(res, check.Options{Level: check.LevelObservable}); rep.Verdict != history.Ok {
		t.Fatalf("observable check: %s %s: %s", rep.Verdict, rep.Rule, rep.Detail)
	}
}

// forgetfulCoordinator loses every group on restart, as a coordinator that
// does not persist its state would.
type forgetfulCoordinator struct {
	*targets.ModelTarget
	cfg model.Config
	now int64
}

func (f *forgetfulCoordinator) Advance(ms int64) error {
	f.now = ms
	return f.ModelTarget.Advance(ms)
}

func (f *forgetfulCoordinator) Restart() error {
	f.ModelTarget = targets.NewModelTarget(f.cfg)
	return f.ModelTarget.Advance(f.now)
}

// A coordinator that loses its groups on restart is caught.
func TestRestartLosingStateIsIllegal(t *testing.T) {
	p := restartPlan(t, 1)
	target := &forgetfulCoordinator{ModelTarget: targets.NewModelTarget(p.ModelConfig()), cfg: p.ModelConfig()}
	res, err := driver.Run(target, p)
	if err != nil {
		t.Fatal(err)
	}
	rep := check.Check(res, check.Options{})
	if rep.Verdict != history.Illegal {
		t.Fatalf("seed %d: a coordinator forgetting its groups on restart: %s %s, want Illegal", p.Seed, rep.Verdict, rep.Rule)
	}
	t.Logf("caught: %s: %s", rep.Rule, rep.Detail)
}

// Check at LevelAuto holds a model-exact target to the model and any other
// to what a client can see; an explicit level wins.
func TestLevelFromTheTarget(t *testing.T) {
	p := plan.New(3, plan.DefaultOptions())
	inner := targets.NewModelTarget(p.ModelConfig())
	foreign := driver.Funcs{HandleFunc: inner.Handle, DisconnectFunc: inner.Disconnect, AdvanceFunc: inner.Advance}
	exact := foreign
	exact.Exact = true
	for _, tc := range []struct {
		name   string
		target driver.Target
		opts   check.Level
		want   check.Level
	}{
		{"the model", targets.NewModelTarget(p.ModelConfig()), check.LevelAuto, check.LevelExact},
		{"a foreign target", foreign, check.LevelAuto, check.LevelObservable},
		{"a foreign target with a snapshot", driver.WithSnapshot(foreign, inner.Snapshot), check.LevelAuto, check.LevelObservable},
		{"Funcs declared exact, with a snapshot", driver.WithSnapshot(exact, inner.Snapshot), check.LevelAuto, check.LevelExact},
		{"a foreign target held to the model", foreign, check.LevelExact, check.LevelExact},
		{"the model held to the observable level", targets.NewModelTarget(p.ModelConfig()), check.LevelObservable, check.LevelObservable},
	} {
		res := &driver.Result{ModelExact: driver.IsModelExact(tc.target)}
		if got := (check.Options{Level: tc.opts}).LevelFor(res); got != tc.want {
			t.Errorf("%s at %s: checked at %s, want %s", tc.name, tc.opts, got, tc.want)
		}
	}
	for _, l := range []check.Level{check.LevelAuto, check.LevelExact, check.LevelObservable} {
		if got, err := check.ParseLevel(l.String()); err != nil || got != l {
			t.Errorf("ParseCheckLevel(%q) = %v, %v", l, got, err)
		}
	}
	if _, err := check.ParseLevel("strict"); err == nil {
		t.Error("ParseCheckLevel accepted strict")
	}
}
