package driver_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// Requests off the round grid: each lands at a multiple of SubRoundMs
// within its round (or, with EdgeMs, EdgeMs before one), the target's
// clock is moved to it first, requests of one connection keep their order,
// and without SubRoundMs everything is on the grid.
func TestRequestsOffTheRoundGrid(t *testing.T) {
	for _, c := range []struct{ sub, edge int64 }{{0, 0}, {100, 0}, {100, 1}} {
		pl := plan.New(3, plan.DefaultOptions())
		pl.SubRoundMs, pl.EdgeMs, pl.SessionTimeoutMs = c.sub, c.edge, 6000 // the final quiesce lands a session timeout past the last request
		res, err := driver.Run(targets.NewModelTarget(pl.ModelConfig()), pl)
		if err != nil {
			t.Fatal(err)
		}
		off, edges, last := 0, 0, map[uint64]int64{}
		for _, op := range res.History {
			if op.At%pl.RoundMs != 0 {
				off++
				onStep := c.sub > 0 && op.At%c.sub == 0
				onEdge := c.edge > 0 && (op.At+c.edge)%c.sub == 0
				if onEdge {
					edges++
				}
				if !onStep && !onEdge {
					t.Fatalf("SubRoundMs %d, EdgeMs %d: op %d at %d ms", c.sub, c.edge, op.ID, op.At)
				}
			}
			if op.At < last[op.Conn.ID] && !op.Restart {
				t.Fatalf("op %d at %d before an earlier request of connection %d at %d", op.ID, op.At, op.Conn.ID, last[op.Conn.ID])
			}
			last[op.Conn.ID] = op.At
		}
		if (c.sub > 0) != (off > 0) || (c.edge > 0) != (edges > 0) {
			t.Fatalf("SubRoundMs %d, EdgeMs %d: %d of %d operations off the grid, %d on an edge", c.sub, c.edge, off, len(res.History), edges)
		}
		if rep := check.Check(res, check.Options{}); rep.Verdict != history.Ok {
			t.Fatalf("SubRoundMs %d, EdgeMs %d: %s %s", c.sub, c.edge, rep.Rule, rep.Detail)
		}
	}
}
