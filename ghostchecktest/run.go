package ghostchecktest

import (
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
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

// Options shape Run. The zero value runs 100 seeds' plans at the level the
// target asks for.
type Options struct {
	// Seeds is how many plans to draw, from seeds FirstSeed,
	// FirstSeed+1, ... (0: 100). With Rapid, rapid's -rapid.checks
	// decides instead.
	Seeds int
	// FirstSeed is the first seed (0: 1).
	FirstSeed uint64
	// Parallel delivers each round's requests concurrently, one goroutine
	// per connection: the target's Handle must be safe for that.
	Parallel bool
	// Level is the check's level (LevelAuto: exact for a target that
	// declares itself model-exact, observable otherwise).
	Level Level
	// Shrink is how many re-runs may shrink a failing plan (0: 200;
	// negative: none).
	Shrink int
	// Rapid draws the plans from a rapid property (rapid.Check) instead
	// of seeds; rapid shrinks a failure first, Shrink then goes on.
	Rapid bool
	// Timeout bounds each check's linearizability search (0: 30 s).
	Timeout time.Duration

	// The plans' shape; each zero value keeps the default plan.
	//
	// Clients is how many client processes a plan runs (0: 6), Groups
	// how many groups they join (0: 2), Rounds how many rounds of 500 ms
	// a plan lasts (0: 60; at least 10).
	Clients, Groups, Rounds int
	// Faults is the chance in percent that the network mistreats a
	// request, spread evenly over its five ways (lost request or
	// response, duplicate, delayed request or response), at most 33
	// (a client's first requests get three times the rate). 0: 10 %;
	// negative: a network without faults.
	Faults int
	// Static is the percent of clients that are static members
	// (KIP-345). 0: 30 %; negative: none.
	Static int
	// Protocol is the group protocol the plans' clients speak:
	// "consumer" ("" too: ConsumerGroupHeartbeat), "classic" (JoinGroup,
	// SyncGroup, Heartbeat, at JoinGroup v9: the target must be a Parker,
	// since it holds JoinGroups and SyncGroups until their phase ends), or
	// "mixed" (each group one or the other).
	Protocol string
}

// Level is how much a check demands of a target.
type Level = check.Level

// The levels.
const (
	// LevelAuto decides from the target: LevelExact for one that declares
	// itself model-exact (ModelExacter), LevelObservable for any other.
	LevelAuto = check.LevelAuto
	// LevelExact holds the target to the reference model's answers, byte
	// for byte.
	LevelExact = check.LevelExact
	// LevelObservable holds it only to what the protocol promises a
	// client can see.
	LevelObservable = check.LevelObservable
)

// Outcome is what Run found.
type Outcome struct {
	// Plans is how many plans ran (the shrinking re-runs not counted).
	Plans int
	// Level is the level the histories were checked at.
	Level Level
	// Notes are what the runs left out (restarts, for a target that
	// cannot restart), each once.
	Notes []string
	// Failure is the first failing plan, shrunk; nil when every plan
	// checked Ok.
	Failure *Failure
}

// Failure is the first failing plan: what it broke, and where its files
// went.
type Failure struct {
	// Seed is the seed the plan was drawn from (rapid's draw, with Rapid).
	Seed uint64
	// Verdict is "Illegal" (a rule broken) or "Unknown" (the check could
	// not decide, or the harness's own assumptions failed).
	Verdict string
	// Rule is the id of the rule broken (docs/PROTOCOL.md Part C).
	Rule string
	// Explanation says what broke it, where.
	Explanation string
	// Level is the level the plan was checked at.
	Level Level
	// Shrunk says how small the plan became ("" when it was not shrunk).
	Shrunk string
	// History is the history file (JSON lines), Page its HTML page (the
	// story, a timeline per group, the rule) and Timeline porcupine's
	// timeline of every operation.
	History, Page, Timeline string
	// Replay is the command that runs the history again from the user's
	// package.
	Replay string
	// Temporary: the files are removed when the test ends.
	Temporary bool
	// Notes are what the failing run left out (of the plan as drawn,
	// before shrinking).
	Notes []string
}

// settings are what the test flags say, so tests can set them directly.
type settings struct {
	out    string
	replay string
}

// Run checks the coordinators newTarget builds against plans drawn from
// seeds (or rapid), and fails t, naming the rule broken and the command
// that replays it, at the first history that is not Ok. With
// -ghostcheck.replay=FILE it runs that history instead.
func Run(t testing.TB, newTarget NewTarget, opts Options) *Outcome {
	t.Helper()
	return run(t, newTarget, opts, settings{out: *outFlag, replay: *replayFlag})
}

func run(t testing.TB, newTarget NewTarget, opts Options, s settings) *Outcome {
	t.Helper()
	opts = opts.withDefaults()
	if _, err := plan.ParseProtocol(opts.Protocol); err != nil {
		t.Fatalf("ghostchecktest: Options.Protocol: %v", err)
	}
	r := &runner{t: t, newTarget: newTarget, opts: opts, settings: s, pkg: callerPackage(), plans: plan.DefaultOptions()}
	opts.shape(&r.plans)
	if s.replay != "" {
		return r.replay(s.replay)
	}
	if opts.Rapid {
		return r.property()
	}
	return r.seeds()
}

// shape writes the plans' shape the options ask for into p, which holds
// the default plan's.
func (o Options) shape(p *plan.Options) {
	p.Parallel = o.Parallel
	if o.Clients > 0 {
		p.Clients = o.Clients
	}
	if o.Groups > 0 {
		p.Groups = o.Groups
	}
	if o.Rounds > 0 {
		p.Rounds = max(o.Rounds, 10)
	}
	switch {
	case o.Faults > 0:
		p.Faults = plan.UniformFaults(min(o.Faults, 33))
	case o.Faults < 0:
		p.Faults = nil
	}
	switch {
	case o.Static > 0:
		p.StaticPercent = min(o.Static, 100)
	case o.Static < 0:
		p.StaticPercent = 0
	}
	if o.Protocol != "" && o.Protocol != string(plan.ProtocolConsumer) {
		p.Protocol, p.JoinGroupVersion = plan.Protocol(o.Protocol), 9
	}
}

func (o Options) withDefaults() Options {
	if o.Protocol == "" {
		o.Protocol = string(plan.ProtocolConsumer)
	}
	if o.Seeds <= 0 {
		o.Seeds = 100
	}
	if o.FirstSeed == 0 {
		o.FirstSeed = 1
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
	// plans shape every plan: the default ones (restarts are left out for
	// a target that cannot restart, and the outcome says so).
	plans    plan.Options
	settings settings
	pkg      string
	out      *Outcome
	// dropped counts the plans run without their restarts, and the
	// restarts left out.
	dropped, restarts int
}

// check runs p against a fresh target and checks it.
func (r *runner) check(p plan.Plan) (*driver.Result, *check.Report) {
	r.t.Helper()
	res, err := driver.Run(r.newTarget(configOf(p)), p)
	if err != nil {
		r.t.Fatalf("ghostcheck: seed %d: %v", p.Seed, err)
	}
	return res, check.Check(res, check.Options{Level: r.opts.Level, Timeout: r.opts.Timeout})
}

// checkSafely is check, with a panic of the target's caught and returned
// with its stack ("" when there was none), so that the failure names the
// plan and the test ends as a failure, not a crash of the test binary.
func (r *runner) checkSafely(p plan.Plan) (res *driver.Result, rep *check.Report, panicked string) {
	r.t.Helper()
	defer func() {
		if p := recover(); p != nil {
			panicked = fmt.Sprintf("%v\n%s", p, debug.Stack())
		}
	}()
	res, rep = r.check(p)
	return res, rep, ""
}

// seeds runs Seeds plans and reports the first failure.
func (r *runner) seeds() *Outcome {
	r.t.Helper()
	r.out = &Outcome{}
	last := r.opts.FirstSeed + uint64(r.opts.Seeds) - 1
	for seed := r.opts.FirstSeed; seed <= last; seed++ {
		res, rep, panicked := r.checkSafely(plan.New(seed, r.plans))
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
		r.out.Notes = append(r.out.Notes, fmt.Sprintf("%d restarts dropped from %d of %d plans: the target cannot restart (Restarter)",
			r.restarts, r.dropped, r.out.Plans))
	}
}

// failing is a failing run and its check, as Run shrinks and writes it.
type failing struct {
	res    *driver.Result
	rep    *check.Report
	shrunk string
}

// fail shrinks a failing run, writes its files, and fails the test with
// the report and the replay command.
func (r *runner) fail(res *driver.Result, rep *check.Report, where string) {
	r.t.Helper()
	fl := &failing{res: res, rep: rep}
	f := &Failure{Seed: res.Plan.Seed, Notes: rep.Notes}
	if r.opts.Shrink > 0 && rep.Verdict == history.Illegal {
		r.shrink(fl)
	}
	f.Verdict, f.Rule, f.Explanation, f.Level, f.Shrunk = string(fl.rep.Verdict), fl.rep.Rule, fl.rep.Detail, fl.rep.Level, fl.shrunk
	r.write(f, fl)
	r.out.Failure = f
	r.t.Errorf("%s", r.message(f, where))
}

// shrink cuts the failing plan down while it fails by the same rule.
func (r *runner) shrink(fl *failing) {
	rule := fl.rep.Rule
	small := plan.Shrink(fl.res.Plan, func(p plan.Plan) bool {
		_, rep := r.check(p)
		return rep.Verdict == history.Illegal && rep.Rule == rule
	}, r.opts.Shrink)
	res, rep := r.check(small)
	if rep.Verdict != history.Illegal || rep.Rule != rule {
		return // a target that does not fail the same way twice: keep the original
	}
	c, a, f := small.Size()
	fl.res, fl.rep = res, rep
	fl.shrunk = fmt.Sprintf("%d clients, %d actions, %d faults, %d operations", c, a, f, len(res.History))
}

// write puts the failure's history and page in the output directory.
func (r *runner) write(f *Failure, fl *failing) {
	dir, temporary := r.dir()
	name := fmt.Sprintf("%s-seed%d-%s", fileSafe(r.t.Name()), f.Seed, strings.ToLower(f.Rule))
	path, err := filepath.Abs(filepath.Join(dir, name+".jsonl"))
	if err != nil {
		path = filepath.Join(dir, name+".jsonl")
	}
	f.Replay = fmt.Sprintf("%s -ghostcheck.replay=%s", r.target(), path)
	f.Temporary = temporary
	hdr := history.FileHeader{Target: r.target(), Plan: fl.res.Plan,
		Title: fmt.Sprintf("%s %s in %s (ghostchecktest, %s level)", f.Verdict, f.Rule, r.t.Name(), f.Level)}
	art, err := pages.WriteFailure(dir, pages.Failure{Name: name, Header: hdr, Result: fl.res, Report: fl.rep, Replay: f.Replay})
	if err != nil {
		r.t.Logf("ghostcheck: writing the failure's files: %v", err)
	}
	f.History, f.Page, f.Timeline = art.History, art.HTML, art.Timeline
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
	var b strings.Builder
	fmt.Fprintf(&b, "ghostcheck: %s: %s %s (%s level)\n", where, f.Verdict, f.Rule, f.Level)
	if f.Rule != "" {
		fmt.Fprintf(&b, "  rule:     %s — %s\n", f.Rule, rules.Meaning(f.Rule))
	}
	fmt.Fprintf(&b, "  what:     %s\n", f.Explanation)
	if f.Shrunk != "" {
		fmt.Fprintf(&b, "  shrunk:   %s\n", f.Shrunk)
	}
	for _, n := range f.Notes {
		fmt.Fprintf(&b, "  note:     %s\n", n)
	}
	if f.Page != "" {
		fmt.Fprintf(&b, "  report:   %s\n", f.Page)
	}
	if f.History != "" {
		fmt.Fprintf(&b, "  history:  %s\n", f.History)
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
	return fmt.Sprintf("go test %s -run '%s'", r.pkg, runPattern(r.t.Name()))
}

// runPattern is the -run pattern that selects exactly the test (or
// subtest) named name.
func runPattern(name string) string {
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
