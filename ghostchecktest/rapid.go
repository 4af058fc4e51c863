package ghostchecktest

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/plan"
)

// property draws the plans from a rapid property (rapid's -rapid.checks
// and -rapid.seed apply). The first failing plan ends the search: it is
// shrunk by plan.Shrink, not by rapid, whose smaller draws make
// longer plans here (a gap of 0 rounds between actions packs a life with
// them) and which would spend its whole shrinking time on them. Rapid's
// own report stays out of the test's output (quietTB): it would print
// every draw, hundreds of lines above the one that matters.
func (r *runner) property() *Outcome {
	r.t.Helper()
	r.out = &Outcome{}
	q := &quietTB{t: r.t}
	var failedRes *driver.Result
	var failedRep *check.Report
	var panicked string
	rapid.Check(q, func(rt *rapid.T) {
		if failedRes != nil || panicked != "" {
			return // found: the draws left are not run
		}
		pl := plan.Draw(rt, r.plans)
		res, rep, p := r.checkSafely(pl)
		if p != "" {
			panicked = fmt.Sprintf("plan %d drawn by rapid (seed %d): the target panicked: %s", r.out.Plans+1, pl.Seed, p)
			return
		}
		r.seen(res, rep)
		if rep.Verdict != history.Ok {
			failedRes, failedRep = res, rep
		}
	})
	switch {
	case panicked != "":
		r.t.Errorf("ghostcheck: %s", panicked)
	case failedRes != nil:
		r.fail(failedRes, failedRep, fmt.Sprintf("plan %d drawn by rapid (seed %d)", r.out.Plans, failedRes.Plan.Seed))
	case q.failed:
		r.t.Errorf("ghostcheck: rapid: %s", strings.Join(q.errors, "\n"))
	default:
		r.t.Logf("ghostcheck: %d plans drawn by rapid checked Ok at the %s level%s", r.out.Plans, r.out.Level, notesSuffix(r.out.Notes))
	}
	return r.out
}

// quietTB is what rapid.Check reports to: it keeps rapid's failure (a
// panic in the target) to itself, for Run to report, and drops rapid's
// log of every draw; other logs pass through.
type quietTB struct {
	t      testing.TB
	failed bool
	errors []string
}

func (q *quietTB) Helper()      { q.t.Helper() }
func (q *quietTB) Name() string { return q.t.Name() }

func (q *quietTB) Logf(format string, args ...any) {
	if strings.HasPrefix(format, "[rapid] draw") {
		return
	}
	q.t.Helper()
	q.t.Logf(format, args...)
}

func (q *quietTB) Log(args ...any) {
	q.t.Helper()
	q.t.Log(args...)
}

func (q *quietTB) Skipf(format string, args ...any) { q.t.Skipf(format, args...) }
func (q *quietTB) Skip(args ...any)                 { q.t.Skip(args...) }
func (q *quietTB) SkipNow()                         { q.t.SkipNow() }

func (q *quietTB) Errorf(format string, args ...any) { q.fail(fmt.Sprintf(format, args...)) }
func (q *quietTB) Error(args ...any)                 { q.fail(fmt.Sprint(args...)) }
func (q *quietTB) Fatalf(format string, args ...any) { q.fail(fmt.Sprintf(format, args...)) }
func (q *quietTB) Fatal(args ...any)                 { q.fail(fmt.Sprint(args...)) }

// FailNow returns: rapid calls it last, after its report, and Run goes on
// to report the failure itself.
func (q *quietTB) FailNow()     { q.failed = true }
func (q *quietTB) Fail()        { q.failed = true }
func (q *quietTB) Failed() bool { return q.failed }

func (q *quietTB) fail(msg string) {
	q.failed = true
	q.errors = append(q.errors, msg)
}
