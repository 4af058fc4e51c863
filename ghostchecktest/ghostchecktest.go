// Package ghostchecktest holds your own group coordinator to ghostcheck's
// checks from your own go test, in one call:
//
//	func TestMyCoordinator(t *testing.T) {
//		ghostchecktest.Run(t, func(plan linearize.Plan) linearize.Target {
//			return mycoord.New(plan.ModelConfig()) // the plan's topics and timeouts
//		}, ghostchecktest.Options{})
//	}
//
// Run runs a plan per seed (or a rapid property), each against a fresh
// target: client processes joining, heartbeating and leaving under lost,
// duplicated and delayed requests and responses, crashes, resets, admin
// removals and a prober. It checks every history at the level the target
// asks for (linearize.CheckLevel: the observable level unless the target
// declares itself model-exact), and at the first failure shrinks the plan,
// writes the history and its HTML page, and fails the test with the rule
// broken and a command that replays it from your package:
//
//	go test example.com/mycoord -run '^TestMyCoordinator$' -ghostcheck.replay=FILE
//
// Two test flags steer it: -ghostcheck.out=DIR keeps the artifacts in DIR
// (by default they go to t.ArtifactDir(), which go test removes after the
// test unless it runs with -artifacts), and -ghostcheck.replay=FILE runs the
// history in FILE again instead of drawing plans: the test passes when the
// target now checks Ok (the bug is fixed) and fails while it does not.
package ghostchecktest

import (
	"flag"
	"fmt"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/plan"
	pages "github.com/ghostcheck/ghostcheck/report"
)

// The test flags. They are package state because go test parses a test
// binary's flags once, before any test runs: a flag must be registered
// when the package is initialized to be accepted on the command line.
var (
	outFlag    = flag.String("ghostcheck.out", "", "ghostchecktest: keep failing histories and their pages in `DIR` (default: the test's artifact directory)")
	replayFlag = flag.String("ghostcheck.replay", "", "ghostchecktest: run the history in `FILE` (written by a failing ghostchecktest.Run) again instead of drawing plans")
)

// Options shape Run. The zero value runs 100 seeds of
// linearize.DefaultOptions at the level the target asks for.
type Options struct {
	// Seeds is how many plans to draw, from seeds FirstSeed,
	// FirstSeed+1, ... (0: 100). With Rapid, rapid's -rapid.checks
	// decides instead.
	Seeds int
	// FirstSeed is the first seed (0: 1).
	FirstSeed uint64
	// Plan shapes each plan (the zero value: linearize.DefaultOptions).
	// Coordinator restarts are left out for a target that cannot restart
	// (driver.Restarter), and the failure report says so.
	Plan plan.Options
	// Level is the check's level (linearize.LevelAuto: exact for a
	// target that declares itself model-exact, observable otherwise).
	Level check.Level
	// Shrink is how many re-runs may shrink a failing plan (0: 200;
	// negative: none).
	Shrink int
	// Rapid draws the plans from a rapid property (rapid.Check) instead
	// of seeds; rapid shrinks a failure first, Shrink then goes on.
	Rapid bool
	// Timeout bounds each check's linearizability search (0: 30 s).
	Timeout time.Duration
}

// Outcome is what Run found.
type Outcome struct {
	// Plans is how many plans ran (the shrinking re-runs not counted).
	Plans int
	// Level is the level the histories were checked at.
	Level check.Level
	// Notes are what the runs left out (restarts, for a target that
	// cannot restart), each once.
	Notes []string
	// Failure is the first failing plan, shrunk; nil when every plan
	// checked Ok.
	Failure *Failure
}

// Failure is a failing plan and where its artifacts went.
type Failure struct {
	// Seed is the seed the plan was drawn from (rapid's draw, with Rapid).
	Seed   uint64
	Result *driver.Result
	Report *check.Report
	// Shrunk says how small the plan became ("" when it was not shrunk).
	Shrunk string
	// Artifacts are the history (.jsonl), its page (.html) and timeline.
	Artifacts pages.Artifacts
	// Replay is the command that runs the history again from the
	// user's package.
	Replay string
	// Temporary: the artifacts are removed when the test ends.
	Temporary bool
	// Notes are what the failing run left out (Report.Notes of the plan
	// as drawn, before shrinking).
	Notes []string
}

// NewTarget builds a fresh coordinator for a plan: configure it with the
// plan's topics, session timeout and heartbeat interval (plan.ModelConfig()
// has them).
type NewTarget func(plan plan.Plan) driver.Target

// settings are what the test flags say, so tests can set them directly.
type settings struct {
	out    string
	replay string
}

// Run checks the coordinators newTarget builds against plans drawn from
// seeds (or rapid), and fails t, naming the rule broken and the command
// that replays it, at the first history that is not Ok. With
// -ghostcheck.replay=FILE it runs that history instead (Replay).
func Run(t testing.TB, newTarget NewTarget, opts Options) *Outcome {
	t.Helper()
	return run(t, newTarget, opts, settings{out: *outFlag, replay: *replayFlag})
}

func run(t testing.TB, newTarget NewTarget, opts Options, s settings) *Outcome {
	t.Helper()
	opts = opts.withDefaults()
	r := &runner{t: t, newTarget: newTarget, opts: opts, settings: s, pkg: callerPackage()}
	if s.replay != "" {
		return r.replay(s.replay)
	}
	if opts.Rapid {
		return r.property()
	}
	return r.seeds()
}

func (o Options) withDefaults() Options {
	if o.Seeds <= 0 {
		o.Seeds = 100
	}
	if o.FirstSeed == 0 {
		o.FirstSeed = 1
	}
	if reflect.ValueOf(o.Plan).IsZero() {
		o.Plan = plan.DefaultOptions()
	}
	if o.Shrink == 0 {
		o.Shrink = 200
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	return o
}

// runner is one Run.
type runner struct {
	t         testing.TB
	newTarget NewTarget
	opts      Options
	settings  settings
	pkg       string
	out       *Outcome
	// dropped counts the plans run without their restarts, and the
	// restarts left out.
	dropped, restarts int
}

// check runs plan against a fresh target and checks it.
func (r *runner) check(plan plan.Plan) (*driver.Result, *check.Report) {
	r.t.Helper()
	res, err := driver.Run(r.newTarget(plan), plan)
	if err != nil {
		r.t.Fatalf("ghostcheck: seed %d: %v", plan.Seed, err)
	}
	return res, check.Check(res, check.Options{Level: r.opts.Level, Timeout: r.opts.Timeout})
}

// checkSafely is check, with a panic of the target's caught and returned
// with its stack ("" when there was none), so that the failure names the
// plan and the test ends as a failure, not a crash of the test binary.
func (r *runner) checkSafely(plan plan.Plan) (res *driver.Result, rep *check.Report, panicked string) {
	r.t.Helper()
	defer func() {
		if p := recover(); p != nil {
			panicked = fmt.Sprintf("%v\n%s", p, debug.Stack())
		}
	}()
	res, rep = r.check(plan)
	return res, rep, ""
}

// seeds runs Seeds plans and reports the first failure.
func (r *runner) seeds() *Outcome {
	r.t.Helper()
	r.out = &Outcome{}
	last := r.opts.FirstSeed + uint64(r.opts.Seeds) - 1
	for seed := r.opts.FirstSeed; seed <= last; seed++ {
		res, rep, panicked := r.checkSafely(plan.New(seed, r.opts.Plan))
		where := fmt.Sprintf("seed %d (of %d-%d)", seed, r.opts.FirstSeed, last)
		if panicked != "" {
			r.t.Errorf("ghostcheck: %s: the target panicked: %s", where, panicked)
			return r.out
		}
		r.seen(res, rep)
		if rep.Verdict != history.Ok {
			r.fail(res, rep, where)
			return r.out
		}
	}
	r.t.Logf("ghostcheck: %d plans (seeds %d-%d) checked Ok at the %s level%s", r.out.Plans, r.opts.FirstSeed, last, r.out.Level, notesSuffix(r.out.Notes))
	return r.out
}

// seen counts a checked plan and keeps its level and what it left out.
func (r *runner) seen(res *driver.Result, rep *check.Report) {
	r.out.Plans++
	r.out.Level = rep.Level
	if res.DroppedRestarts > 0 {
		r.dropped++
		r.restarts += res.DroppedRestarts
	}
	r.out.Notes = nil
	if r.dropped > 0 {
		r.out.Notes = append(r.out.Notes, fmt.Sprintf("%d restarts dropped from %d of %d plans: the target cannot restart (driver.Restarter)",
			r.restarts, r.dropped, r.out.Plans))
	}
}

// fail shrinks a failing run, writes its artifacts, and fails the test
// with the report and the replay command.
func (r *runner) fail(res *driver.Result, rep *check.Report, where string) {
	r.t.Helper()
	f := &Failure{Seed: res.Plan.Seed, Result: res, Report: rep, Notes: rep.Notes}
	r.out.Failure = f
	if r.opts.Shrink > 0 && rep.Verdict == history.Illegal {
		r.shrink(f)
	}
	r.write(f)
	r.t.Errorf("%s", r.message(f, where))
}

// shrink cuts the failing plan down while it fails by the same rule.
func (r *runner) shrink(f *Failure) {
	rule := f.Report.Rule
	small := plan.Shrink(f.Result.Plan, func(p plan.Plan) bool {
		_, rep := r.check(p)
		return rep.Verdict == history.Illegal && rep.Rule == rule
	}, r.opts.Shrink)
	res, rep := r.check(small)
	if rep.Verdict != history.Illegal || rep.Rule != rule {
		return // a target that does not fail the same way twice: keep the original
	}
	c, a, fl := small.Size()
	f.Result, f.Report = res, rep
	f.Shrunk = fmt.Sprintf("%d clients, %d actions, %d faults, %d operations", c, a, fl, len(res.History))
}

// write puts the failure's history and page in the output directory.
func (r *runner) write(f *Failure) {
	dir, temporary := r.dir()
	name := fmt.Sprintf("%s-seed%d-%s", fileSafe(r.t.Name()), f.Seed, strings.ToLower(f.Report.Rule))
	path, err := filepath.Abs(filepath.Join(dir, name+".jsonl"))
	if err != nil {
		path = filepath.Join(dir, name+".jsonl")
	}
	f.Replay = fmt.Sprintf("%s -ghostcheck.replay=%s", r.target(), path)
	f.Temporary = temporary
	hdr := history.FileHeader{Target: r.target(), Plan: f.Result.Plan,
		Title: fmt.Sprintf("%s %s in %s (ghostchecktest, %s level)", f.Report.Verdict, f.Report.Rule, r.t.Name(), f.Report.Level)}
	art, err := pages.WriteFailure(dir, pages.Failure{Name: name, Header: hdr, Result: f.Result, Report: f.Report, Replay: f.Replay})
	if err != nil {
		r.t.Logf("ghostcheck: writing the failure's files: %v", err)
	}
	f.Artifacts = art
}

// dir is where artifacts go, and whether go test removes it at the end.
func (r *runner) dir() (string, bool) {
	if r.settings.out != "" {
		// Absolute: go test runs in the package's directory, the
		// reader of the failure may be anywhere.
		if abs, err := filepath.Abs(r.settings.out); err == nil {
			return abs, false
		}
		return r.settings.out, false
	}
	return r.t.ArtifactDir(), !artifactsKept()
}

// artifactsKept reports whether go test keeps artifact directories
// (-artifacts).
func artifactsKept() bool {
	f := flag.Lookup("test.artifacts")
	return f != nil && f.Value.String() == "true"
}

// message is what the failing test prints: the verdict, the rule, what
// broke it, and where to look.
func (r *runner) message(f *Failure, where string) string {
	rep := f.Report
	var b strings.Builder
	fmt.Fprintf(&b, "ghostcheck: %s: %s %s (%s level)\n", where, rep.Verdict, rep.Rule, rep.Level)
	if rep.Rule != "" {
		fmt.Fprintf(&b, "  rule:     %s — %s\n", rep.Rule, rules.Meaning(rep.Rule))
	}
	fmt.Fprintf(&b, "  what:     %s\n", rep.Detail)
	if f.Shrunk != "" {
		fmt.Fprintf(&b, "  shrunk:   %s\n", f.Shrunk)
	}
	for _, n := range f.Notes {
		fmt.Fprintf(&b, "  note:     %s\n", n)
	}
	if f.Artifacts.HTML != "" {
		fmt.Fprintf(&b, "  report:   %s\n", f.Artifacts.HTML)
	}
	if f.Artifacts.History != "" {
		fmt.Fprintf(&b, "  history:  %s\n", f.Artifacts.History)
	}
	fmt.Fprintf(&b, "  replay:   %s", f.Replay)
	if f.Temporary {
		b.WriteString("\n  (go test removes these files when the test ends: keep them with -ghostcheck.out=DIR, or go test -artifacts)")
	}
	return b.String()
}

// target is how a history of this test names what it ran against: the
// go test command that builds it, which the replay command extends.
func (r *runner) target() string {
	return fmt.Sprintf("go test %s -run '%s'", r.pkg, RunPattern(r.t.Name()))
}

// RunPattern is the -run pattern that selects exactly the test (or
// subtest) named name.
func RunPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// callerPackage is the import path of the package whose test called Run:
// the first caller in a _test.go file (a helper of the user's in between
// is passed over: the test is what must run again), its _test form read as
// the package it tests; "." when it cannot be told (a test of package
// main), which go test reads as the package in the current directory.
func callerPackage() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		fr, more := frames.Next()
		if strings.HasSuffix(fr.File, "_test.go") {
			if pkg := funcPackage(fr.Function); pkg != "" {
				return pkg
			}
		}
		if !more {
			return "."
		}
	}
}

// funcPackage is the package path of a function's full name
// ("example.com/m/p.TestX.func1" is in "example.com/m/p").
func funcPackage(fn string) string {
	slash := strings.LastIndex(fn, "/")
	dot := strings.Index(fn[slash+1:], ".")
	if dot < 0 {
		return ""
	}
	pkg := strings.TrimSuffix(fn[:slash+1+dot], "_test")
	if pkg == "main" {
		return "."
	}
	return pkg
}

// fileSafe makes a test name a file name.
func fileSafe(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
}

func notesSuffix(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}
