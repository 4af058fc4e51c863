package driver_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/race"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden-histories.txt from this build")

// TestGoldenHistories holds the driver, the targets and the checks to the
// histories and verdicts they produced when the golden was written: for
// seeds 1-50 of the default plan at heartbeat versions 1, 0 and mixed, on
// impl and the model, a hash of the history file (every operation, its
// times, request and response), the run's observations (violations,
// ghosts, faults) and the report. A change of speed must not change any
// of them. A change of plans or behaviour that is meant changes them:
// then rewrite the golden with
//
//	go test ./driver -run TestGoldenHistories -update-golden
//
// and say why in the commit. Under the race detector it runs seeds 1-10
// of each (race.Sweep), held to their lines of the golden.
func TestGoldenHistories(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 300 histories")
	}
	const seeds = 50
	run := race.Sweep(seeds)
	if *updateGolden && run < seeds {
		t.Fatal("-update-golden writes all 300 lines: run it without the race detector")
	}
	path := filepath.Join("testdata", "golden-histories.txt")
	var got []string
	var ran []bool // per line of the golden: whether this run computed it
	for _, target := range []string{"impl", "model"} {
		for _, version := range []int{1, 0, -1} {
			for seed := uint64(1); seed <= seeds; seed++ {
				if ran = append(ran, seed <= uint64(run)); seed <= uint64(run) {
					got = append(got, goldenLine(t, target, version, seed))
				}
			}
		}
	}
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (write it with -update-golden)", err)
	}
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		if i < len(ran) && ran[i] {
			want = append(want, sc.Text())
		}
		if i >= len(ran) {
			t.Fatalf("golden has more than %d lines", len(ran))
		}
	}
	if len(want) != len(got) {
		t.Fatalf("golden has %d of the run's %d lines", len(want), len(got))
	}
	bad := 0
	for i := range want {
		if want[i] != got[i] {
			if bad++; bad <= 10 {
				t.Errorf("golden %q\n   got %q", want[i], got[i])
			}
		}
	}
}

// goldenLine runs one seed and summarizes it in a line: what it is, the
// operation count, the verdict and rule, and a hash of everything else.
func goldenLine(t *testing.T, target string, version int, seed uint64) string {
	o := plan.DefaultOptions()
	o.HeartbeatVersion = version
	p := plan.New(seed, o)
	tg, err := targets.New(target, p, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := driver.Run(tg, p)
	if err != nil {
		t.Fatal(err)
	}
	rep := check.Check(res, check.Options{Timeout: time.Minute})
	h := sha256.New()
	if err := history.WriteFile(h, history.FileHeader{Target: target, Plan: p}, res.History); err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(h)
	for _, v := range []any{res.Violations, res.ViolationCounts, res.Ghosts, res.HarnessErrors, res.Faults,
		res.Quiescent, res.ModelExact, res.DroppedRestarts,
		rep.Verdict, rep.Rule, rep.Detail, rep.Linearizable, rep.Mismatch, rep.Invariants, rep.Level, rep.Notes} {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("%s v%d seed %d: %d ops, %s %s, %x", target, version, seed, len(res.History), rep.Verdict, rep.Rule, h.Sum(nil)[:12])
}
