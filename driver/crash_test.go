package driver_test

import (
	"slices"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/brokertest"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// connLog is the model, recording when each connection carried a request
// and when it was closed (by event order).
type connLog struct {
	*targets.ModelTarget
	event  int
	last   map[uint64]int // conn -> event of its last request
	closed map[uint64]int // conn -> event of its Disconnect
}

func (c *connLog) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	c.event++
	c.last[conn.ID] = c.event
	return c.ModelTarget.Handle(conn, h, req)
}

func (c *connLog) Disconnect(id uint64) {
	c.event++
	c.closed[id] = c.event
	c.ModelTarget.Disconnect(id)
}

// A process that crashes or closes closes its connection, as a dying
// process's sockets do: once what it sent on it has been delivered, the
// target is told (Disconnect), and nothing arrives on it after.
func TestEndedProcessesCloseTheirConnections(t *testing.T) {
	o := plan.DefaultOptions()
	o.Restarts = false
	o.ReuseConnIDs = false // a connection's id names it alone (TestReusedConnectionIDs covers reuse)
	checked := map[plan.ActionKind]int{}
	for seed := uint64(1); seed <= 10; seed++ {
		pl := plan.New(seed, o)
		target := &connLog{ModelTarget: targets.NewModelTarget(pl.ModelConfig()), last: map[uint64]int{}, closed: map[uint64]int{}}
		res, err := driver.Run(target, pl)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range pl.Clients {
			end := c.Actions[len(c.Actions)-1].Kind
			if end != plan.Crash && end != plan.Close {
				continue
			}
			var conn uint64
			for _, op := range res.History {
				if op.Name == c.Name {
					conn = op.Conn.ID
				}
			}
			if conn == 0 {
				continue // it never reached the coordinator
			}
			closed, ok := target.closed[conn]
			if !ok || closed < target.last[conn] {
				t.Fatalf("seed %d: %s (%s) left connection %d open (closed at event %d, last request at %d)", seed, c.Name, end, conn, closed, target.last[conn])
			}
			checked[end]++
		}
	}
	if checked[plan.Crash] == 0 || checked[plan.Close] == 0 {
		t.Fatalf("the sample checked %v: no crash or no close", checked)
	}
}

// keepClosed is the model with brokertest.Keeper's bug: it heartbeats for
// every member whose connection closed, so a crashed process's member
// never expires.
type keepClosed struct {
	*targets.ModelTarget
	k   *brokertest.Keeper
	now int64
}

func (t *keepClosed) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	resp, err := t.ModelTarget.Handle(conn, h, req)
	if hb, ok := req.(*codec.ConsumerGroupHeartbeatRequest); ok && err == nil {
		t.k.Saw(conn.ID, hb, resp.(*codec.ConsumerGroupHeartbeatResponse))
	}
	return resp, err
}

func (t *keepClosed) Disconnect(id uint64) {
	t.ModelTarget.Disconnect(id)
	t.k.Closed(id, t.now)
}

func (t *keepClosed) Advance(now int64) error {
	t.now = now
	if err := t.ModelTarget.Advance(now); err != nil {
		return err
	}
	for _, req := range t.k.Due(now) {
		h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, ClientInstanceId: codec.SomeUUID(codec.UUID{1})}
		resp, err := t.ModelTarget.Handle(driver.Conn{ID: 1 << 40}, h, req)
		r, _ := resp.(*codec.ConsumerGroupHeartbeatResponse)
		if err != nil {
			r = nil
		}
		t.k.Answered(req, r)
	}
	return nil
}

// A coordinator that keeps a member alive after its connection closed is
// caught by `run` (in process): a crashed process's member outlives its
// session timeout, a ghost (NoGhosts), at the run's invariants and so at
// either level of Check. The model itself, on the same plans, has none.
func TestKeepingClosedMembersIsCaught(t *testing.T) {
	o := plan.DefaultOptions()
	o.Restarts, o.Faults = false, nil
	for seed := uint64(1); seed <= 10; seed++ {
		pl := plan.New(seed, o)
		if !slices.ContainsFunc(pl.Clients, func(c plan.ClientPlan) bool { return c.Actions[len(c.Actions)-1].Kind == plan.Crash }) {
			continue
		}
		plain, err := driver.Run(targets.NewModelTarget(pl.ModelConfig()), pl)
		if err != nil {
			t.Fatal(err)
		}
		if n := plain.ViolationCounts[string(rules.RuleNoGhosts)]; n > 0 {
			t.Fatalf("seed %d: the model itself has ghosts: %v", seed, plain.Violations)
		}
		buggy := &keepClosed{ModelTarget: targets.NewModelTarget(pl.ModelConfig()), k: brokertest.NewKeeper()}
		res, err := driver.Run(buggy, pl)
		if err != nil {
			t.Fatal(err)
		}
		rep := check.Check(res, check.Options{Level: check.LevelObservable})
		if rep.Rule == string(rules.RuleNoGhosts) {
			t.Logf("seed %d caught: %s", seed, rep.Detail)
			return
		}
		t.Logf("seed %d: %s %s (kept %d)", seed, rep.Verdict, rep.Rule, buggy.k.Kept())
	}
	t.Fatal("no plan with a crash in seeds 1-10 caught a coordinator keeping closed connections' members")
}

// With Plan.ReuseConnIDs a new connection takes the lowest id of a closed
// one: ids are reused, some by another process than the one that closed
// them (which is what makes a coordinator that keeps a closed connection's
// context misattribute ClientIds), and the model's histories stay Ok.
func TestReusedConnectionIDs(t *testing.T) {
	o := plan.DefaultOptions()
	reused, crossed := 0, 0
	for seed := uint64(1); seed <= 20; seed++ {
		p := plan.New(seed, o)
		p.ReuseConnIDs = true
		target := &connLog{ModelTarget: targets.NewModelTarget(p.ModelConfig()), last: map[uint64]int{}, closed: map[uint64]int{}}
		res, err := driver.Run(target, p)
		if err != nil {
			t.Fatal(err)
		}
		owner := map[uint64]string{}
		for _, op := range res.History {
			if op.Restart {
				clear(owner)
				continue
			}
			prev, seen := owner[op.Conn.ID]
			switch {
			case !seen:
			case prev != op.Name:
				crossed++
				fallthrough
			case op.Header.ClientId.Valid && op.Header.RequestApiKey == codec.ApiVersions:
				reused++
			}
			owner[op.Conn.ID] = op.Name
		}
		if rep := check.Check(res, check.Options{}); rep.Verdict != history.Ok {
			t.Fatalf("seed %d: %s %s", seed, rep.Rule, rep.Detail)
		}
	}
	if reused == 0 || crossed == 0 {
		t.Fatalf("20 plans reused %d connection ids, %d of them across processes; want some of each", reused, crossed)
	}
}
