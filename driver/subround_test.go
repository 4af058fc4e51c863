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
// within its round, the target's clock is moved to it first, requests of
// one connection keep their order, and without SubRoundMs everything is on
// the grid.
func TestRequestsOffTheRoundGrid(t *testing.T) {
	for _, sub := range []int64{0, 100} {
		pl := plan.New(3, plan.DefaultOptions())
		pl.SubRoundMs, pl.SessionTimeoutMs = sub, 6000 // the final quiesce lands a session timeout past the last request
		res, err := driver.Run(targets.NewModelTarget(pl.ModelConfig()), pl)
		if err != nil {
			t.Fatal(err)
		}
		off, last := 0, map[uint64]int64{}
		for _, op := range res.History {
			if op.At%pl.RoundMs != 0 {
				off++
				if sub == 0 || op.At%sub != 0 {
					t.Fatalf("SubRoundMs %d: op %d at %d ms", sub, op.ID, op.At)
				}
			}
			if op.At < last[op.Conn.ID] && !op.Restart {
				t.Fatalf("op %d at %d before an earlier request of connection %d at %d", op.ID, op.At, op.Conn.ID, last[op.Conn.ID])
			}
			last[op.Conn.ID] = op.At
		}
		if (sub > 0) != (off > 0) {
			t.Fatalf("SubRoundMs %d: %d of %d operations off the grid", sub, off, len(res.History))
		}
		if rep := check.Check(res, check.Options{}); rep.Verdict != history.Ok {
			t.Fatalf("SubRoundMs %d: %s %s", sub, rep.Rule, rep.Detail)
		}
	}
}
