package driver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// holdingTarget is the model as a target that parks every
// ConsumerGroupHeartbeat: it answers it as the model does at once, but
// holds the answer until the clock next moves (Advance releases every held
// answer, in the order held); a connection that closes drops what it held
// on it. Not a coordinator anyone runs: a Parker whose releases the tests
// can predict.
type holdingTarget struct {
	*targets.ModelTarget
	held []heldAnswer
	out  []driver.Release
	// parks counts the requests parked; never makes it release
	// nothing at all, ever.
	parks int
	never bool
	// keep is a delivery it holds for ever, answering the rest.
	keep uint64
}

type heldAnswer struct {
	conn uint64
	rel  driver.Release
}

func (t *holdingTarget) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	resp, err := t.ModelTarget.Handle(conn, h, req)
	if _, ok := req.(*codec.ConsumerGroupHeartbeatRequest); !ok || err != nil {
		return resp, err
	}
	if conn.Delivery == 0 {
		panic("the driver handed a request without a delivery number")
	}
	t.parks++
	if t.keep == 1 {
		t.keep = conn.Delivery // the first request it parks
	}
	t.held = append(t.held, heldAnswer{conn: conn.ID, rel: driver.Release{Delivery: conn.Delivery, Response: resp}})
	return nil, driver.ErrParked
}

func (t *holdingTarget) Advance(now int64) error {
	if err := t.ModelTarget.Advance(now); err != nil {
		return err
	}
	if !t.never {
		kept := t.held[:0]
		for _, h := range t.held {
			if h.rel.Delivery == t.keep {
				kept = append(kept, h)
				continue
			}
			t.out = append(t.out, h.rel)
		}
		t.held = kept
	}
	return nil
}

func (t *holdingTarget) Disconnect(id uint64) {
	t.ModelTarget.Disconnect(id)
	kept := t.held[:0]
	for _, h := range t.held {
		if h.conn == id && !t.never && h.rel.Delivery != t.keep {
			t.out = append(t.out, driver.Release{Delivery: h.rel.Delivery, Dropped: true})
			continue
		}
		kept = append(kept, h)
	}
	t.held = kept
}

func (t *holdingTarget) Released() []driver.Release {
	out := t.out
	t.out = nil
	return out
}

// notParkerTarget parks as holdingTarget does but is no Parker: its
// answers can never come.
type notParkerTarget struct{ h *holdingTarget }

func (t notParkerTarget) Handle(conn driver.Conn, h *codec.RequestHeader, req codec.Message) (codec.Message, error) {
	return t.h.Handle(conn, h, req)
}
func (t notParkerTarget) Disconnect(id uint64)    { t.h.Disconnect(id) }
func (t notParkerTarget) Advance(now int64) error { return t.h.Advance(now) }

func parkedPlan(seed uint64) plan.Plan {
	o := plan.DefaultOptions()
	o.Restarts, o.Probes, o.RefusalProbes, o.RareInputs, o.Parallel = false, false, false, false, false
	return plan.New(seed, o)
}

// The driver holds a parked request's operation open and gives it the
// answer and the return time of its release: every parked operation is
// released once, by the tick of the clock's next move or by its
// connection's close, in the order the target released them; each tick
// belongs to the group of what it released; what the plan's faults do to
// an answer happens at its release.
func TestParkedRequestsReleased(t *testing.T) {
	faultsAtRelease, drops, ticks := 0, 0, 0
	for seed := uint64(1); seed <= 12; seed++ {
		p := parkedPlan(seed)
		target := &holdingTarget{ModelTarget: targets.NewModelTarget(p.ModelConfig())}
		res, err := driver.Run(target, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.HarnessErrors) > 0 {
			t.Fatalf("seed %d: harness errors %v", seed, res.HarnessErrors)
		}
		h := res.History
		releasedBy := map[int]int{}
		parked := 0
		for i := range h {
			op := &h[i]
			if op.Conn.Delivery != 0 {
				t.Fatalf("seed %d op %d: the history keeps the delivery number %d", seed, op.ID, op.Conn.Delivery)
			}
			if op.Parked {
				parked++
				if _, ok := op.Request.(*codec.ConsumerGroupHeartbeatRequest); !ok {
					t.Fatalf("seed %d op %d parked, but the target parks heartbeats only", seed, op.ID)
				}
			}
			if op.Tick != "" {
				ticks++
				if len(op.Releases) == 0 && op.Tick == history.TickAdvance {
					t.Fatalf("seed %d op %d: a tick of the clock that released nothing", seed, op.ID)
				}
			}
			last := -1
			for _, id := range op.Releases {
				if prev, dup := releasedBy[id]; dup {
					t.Fatalf("seed %d: op %d released by ops %d and %d", seed, id, prev, op.ID)
				}
				releasedBy[id] = op.ID
				r := &h[id]
				switch {
				case !r.Parked || id >= op.ID:
					t.Fatalf("seed %d: op %d released op %d, which is not an earlier parked op", seed, op.ID, id)
				case id < last:
					t.Fatalf("seed %d op %d: releases %v out of the order the target gave them (parking order)", seed, op.ID, op.Releases)
				case op.Tick != "" && op.Group != r.GroupID():
					t.Fatalf("seed %d: tick %d of group %q released op %d of group %q", seed, op.ID, op.Group, id, r.GroupID())
				case r.Response == nil:
					drops++
					if op.Tick != history.TickDisconnect || r.Return != history.Never {
						t.Fatalf("seed %d: op %d dropped by op %d (%s) with return %d: only a closed connection drops here, and a dropped op never returns",
							seed, id, op.ID, op.Tick, r.Return)
					}
				case r.Return != op.Return || r.Handled <= r.Call || r.Handled >= r.Return:
					t.Fatalf("seed %d: op %d released by op %d: call %d handled %d return %d, releaser return %d",
						seed, id, op.ID, r.Call, r.Handled, r.Return, op.Return)
				}
				if strings.Contains(r.Note, "response lost") || strings.Contains(r.Note, "response delayed") {
					faultsAtRelease++
				}
				last = id
			}
		}
		if parked == 0 || len(releasedBy) != parked {
			t.Fatalf("seed %d: %d ops parked, %d released", seed, parked, len(releasedBy))
		}
		if parked != target.parks {
			t.Fatalf("seed %d: the target parked %d, the history shows %d", seed, target.parks, parked)
		}
	}
	if faultsAtRelease == 0 || drops == 0 || ticks == 0 {
		t.Errorf("12 plans: %d answers lost or delayed at their release, %d dropped by a closed connection, %d ticks; want some of each",
			faultsAtRelease, drops, ticks)
	}
}

// A target that parks without being a Parker, or a Parker that never
// releases anything it parked, fails the run with a harness error naming
// the operations; a Parker that answers all but one leaves that one
// unanswered for the check to judge.
func TestParkingWithoutRelease(t *testing.T) {
	p := parkedPlan(2)
	h := &holdingTarget{ModelTarget: targets.NewModelTarget(p.ModelConfig())}
	res, err := driver.Run(notParkerTarget{h}, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.HarnessErrors) == 0 || !strings.Contains(res.HarnessErrors[0], "is not a driver.Parker") || !strings.Contains(res.HarnessErrors[0], "op ") {
		t.Fatalf("a target parking without Released: harness errors %q", res.HarnessErrors)
	}
	never := &holdingTarget{ModelTarget: targets.NewModelTarget(p.ModelConfig()), never: true}
	res, err = driver.Run(never, p)
	if err != nil {
		t.Fatal(err)
	}
	found := slices.ContainsFunc(res.HarnessErrors, func(e string) bool {
		return strings.Contains(e, "never answered or dropped any request it parked") && strings.Contains(e, "parked ops [")
	})
	if !found {
		t.Fatalf("a Parker that never releases: harness errors %q", res.HarnessErrors)
	}
}

// bogusRelease releases a delivery it never parked.
type bogusRelease struct {
	*targets.ModelTarget
	sent bool
}

func (b *bogusRelease) Released() []driver.Release {
	if b.sent {
		return nil
	}
	b.sent = true
	return []driver.Release{{Delivery: 1 << 40, Response: &codec.HeartbeatResponse{}}}
}

func TestReleaseOfAnUnknownDelivery(t *testing.T) {
	p := parkedPlan(3)
	res, err := driver.Run(&bogusRelease{ModelTarget: targets.NewModelTarget(p.ModelConfig())}, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.HarnessErrors) == 0 || !strings.Contains(res.HarnessErrors[0], "which it had not parked") {
		t.Fatalf("harness errors %q", res.HarnessErrors)
	}
}

func TestOneRequestNeverAnswered(t *testing.T) {
	p := parkedPlan(2)
	keeper := &holdingTarget{ModelTarget: targets.NewModelTarget(p.ModelConfig()), keep: 1}
	res, err := driver.Run(keeper, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.HarnessErrors) > 0 {
		t.Fatalf("harness errors %q", res.HarnessErrors)
	}
	open := 0
	for _, op := range res.History {
		if op.Parked && op.Return == history.Never && strings.Contains(op.Note, "never answered nor dropped") {
			open++
		}
	}
	if open != 1 {
		t.Fatalf("%d ops left open with the note, want the one the target kept", open)
	}
}
