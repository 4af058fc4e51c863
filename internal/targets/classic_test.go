package targets

import (
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/plan"
)

// Both of ghostcheck's own targets hold classic requests (driver.Parker),
// and a classic history written to a file replays: the plan run again
// gives the verdict the file records, and the stored history, parked
// operations, releases and ticks included, checks exactly against the
// model.
func TestClassicHistoryReplays(t *testing.T) {
	o := plan.DefaultOptions()
	o.Protocol = plan.ProtocolClassic
	for _, target := range Names() {
		for seed := uint64(1); seed <= 3; seed++ {
			p := plan.New(seed, o)
			tg, err := New(target, p, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := tg.(driver.Parker); !ok {
				t.Fatalf("target %s is not a driver.Parker", target)
			}
			res, err := driver.Run(tg, p)
			if err != nil {
				t.Fatal(err)
			}
			rep := check.Check(res, check.Options{Timeout: time.Minute})
			if rep.Verdict != history.Ok || !res.History.Parks() {
				t.Fatalf("%s seed %d: %s %s: %s (parks %v)", target, seed, rep.Verdict, rep.Rule, rep.Detail, res.History.Parks())
			}
			path := filepath.Join(t.TempDir(), "classic.jsonl")
			hdr := history.FileHeader{Target: target, Plan: p, Expect: history.Expect{Verdict: rep.Verdict, Linearizable: "Ok"}}
			if err := history.WritePath(path, func(w io.Writer) error { return history.WriteFile(w, hdr, res.History) }); err != nil {
				t.Fatal(err)
			}
			rr, err := ReplayFile(path, "")
			if err != nil {
				t.Fatal(err)
			}
			if !rr.Pass || rr.Stored != "Ok" || len(rr.Run.History) != len(res.History) {
				t.Fatalf("%s seed %d: replay pass %v, stored %s, %d ops (was %d): %s", target, seed, rr.Pass, rr.Stored, len(rr.Run.History), len(res.History), rr.Detail)
			}
		}
	}
}
