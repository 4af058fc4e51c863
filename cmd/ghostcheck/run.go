package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// runConfig is what `ghostcheck run` was asked to do.
type runConfig struct {
	target    string
	seed      uint64
	histories int
	duration  time.Duration
	opts      plan.Options
	columns   []column // in order
	mutant    string
	out       string
	json      bool
	junit     string
	shrink    int
	workers   int
	failfast  bool
	// faults, hv, protocol and join are the flags' text, for --json's
	// options.
	faults, hv, protocol, join string
	// onHistory, when set (tests), sees every history a phase counts, in
	// seed order.
	onHistory func(col column, h historyRecord)
}

// phaseSummary is what one heartbeat version's histories came to.
type phaseSummary struct {
	Label   string `json:"label"`
	Version int    `json:"heartbeatVersion"`
	// Protocol and JoinGroupVersion are a column's with classic groups
	// (absent for the consumer protocol alone).
	Protocol         plan.Protocol `json:"protocol,omitempty"`
	JoinGroupVersion int16         `json:"joinGroupVersion,omitempty"`
	// Control: the v0 column of the v1-vs-v0 comparison (or JoinGroup v3
	// beside v4+), whose ghosts are expected (they show what KIP-1082, or
	// KIP-394, prevents) and fail nothing.
	Control    bool                    `json:"control,omitempty"`
	Histories  int                     `json:"histories"`
	Operations int                     `json:"operations"`
	Faults     map[plan.FaultKind]int  `json:"faults"`
	Restarts   int                     `json:"restarts"`
	Verdicts   map[history.Verdict]int `json:"verdicts"`
	Ghosts     int                     `json:"ghosts"`
	// FirstGhost is the 1-based history in which the first ghost showed.
	FirstGhost int            `json:"firstGhostHistory,omitempty"`
	Violations map[string]int `json:"violations"`
	Seconds    float64        `json:"seconds"`
	// Failure describes the first failing history, if any.
	Failure *failure `json:"failure,omitempty"`
	// Failing lists the histories that were not Ok, in seed order, the
	// first maxFailing of them (FailingOmitted counts the rest); none for
	// the control, whose failures are expected.
	Failing        []failingHistory `json:"failing,omitempty"`
	FailingOmitted int              `json:"failingOmitted,omitempty"`
	series         historySeries    // for the HTML report's plots
	first          *seedOutcome     // the first history not Ok, to shrink and report
	col            column
}

// failingHistory is one history that was not Ok.
type failingHistory struct {
	Seed    uint64          `json:"seed"`
	Verdict history.Verdict `json:"verdict"`
	Rule    string          `json:"rule"`
	Detail  string          `json:"detail"`
}

// maxFailing bounds the failing histories a phase lists (the v0 control
// fails thousands).
const maxFailing = 1000

type failure struct {
	Seed     uint64 `json:"seed"`
	Rule     string `json:"rule"`
	Detail   string `json:"detail"`
	History  string `json:"history,omitempty"`
	Timeline string `json:"timeline,omitempty"`
	Replay   string `json:"replay"`
	Shrunk   string `json:"shrunk,omitempty"`
}

func runRun(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if coverageRequested(args) {
		return runCoverage(args, stdout, stderr) // coverage.go
	}
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second ^C ends the process at once
	}()
	return runRunCtx(ctx, args, stdout, stderr)
}

// runRunCtx is run until ctx ends (SIGINT or SIGTERM): then the histories
// in flight finish, no more start, and the summary of what was checked is
// printed and written as usual.
func runRunCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, code := parseRunFlags(args, stderr)
	if code >= 0 {
		return code
	}
	if code := checkRunTarget(cfg, stderr); code >= 0 {
		return code
	}
	prog := newProgress(stderr)
	out := runPhases(ctx, cfg, prog)
	prog.done()
	if cfg.json {
		printRunJSON(stdout, cfg, out)
	} else {
		printSummary(stdout, cfg, out.phases)
		printStop(stdout, out)
	}
	writeRunIndex(cfg, out.phases, stdout, stderr)
	if cfg.junit != "" {
		if err := writeRunJUnit(cfg.junit, cfg, out); err != nil {
			fmt.Fprintln(stderr, "ghostcheck run: --junit:", err)
			return exitFailed
		}
	}
	return out.exit()
}

// runGCPercent is the collector's GOGC for run, unless the environment
// sets one. A run allocates fast and keeps little (a history is dropped
// once counted), so at Go's default of 100 the heap target stays at a few
// MB and the collector runs hundreds of times a second: its marking (a
// quarter of every core while it runs) and the scavenger returning pages
// took half of a run's CPU (2,000 histories on 2 workers: 8.6 s of CPU at
// 100, 4.2 s at 400, with 25 and 52 MB resident), and they are what the
// workers share. 800 took another 4 % off BenchmarkRun's CPU per operation
// once the run allocated less (n=8, p=0.000), for 57 MB resident on 2
// workers against 38 at 400 (4,000 histories of the default run).
const runGCPercent = 800

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(runGCPercent)
	}
}

// checkRunTarget refuses a mutant impl does not have and a target that
// cannot restart when restarts are asked for.
func checkRunTarget(cfg runConfig, stderr io.Writer) int {
	if cfg.mutant != "" {
		known := false
		for _, m := range targets.Mutants() {
			known = known || m[0] == cfg.mutant
		}
		if !known {
			return usageErr(stderr, "run", "unknown mutant %q; known: %s", cfg.mutant, mutantNames())
		}
	}
	t, err := targets.New(cfg.target, plan.New(1, cfg.opts), cfg.mutant)
	if err != nil {
		return usageErr(stderr, "run", "%v", err)
	}
	if cfg.opts.Restarts && !driver.CanRestart(t) {
		return usageErr(stderr, "run", "target %s cannot restart its coordinator; pass --restarts=false", cfg.target)
	}
	return -1
}

// exitStatus: 0 when every phase checked at least one history and every
// history it checked is Ok, the v0 control's excepted (its ghosts are
// expected); 1 otherwise: a failure, or nothing checked.
func exitStatus(phases []*phaseSummary) int {
	checked := 0
	for _, p := range phases {
		checked += p.Histories
		if p.Control {
			continue
		}
		if p.Verdicts[history.Illegal] > 0 || p.Verdicts[history.Unknown] > 0 {
			return exitFailed
		}
	}
	if checked == 0 {
		return exitFailed
	}
	return exitOK
}

func parseRunFlags(args []string, stderr io.Writer) (runConfig, int) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := runConfig{opts: plan.DefaultOptions()}
	fs.StringVar(&cfg.target, "target", "impl", "coordinator to check: "+strings.Join(targets.Names(), " or "))
	fs.Uint64Var(&cfg.seed, "seed", 1, "first seed; history i uses seed+i, so any history replays alone")
	fs.IntVar(&cfg.histories, "histories", 0, "histories per heartbeat version (0: as many as --duration allows)")
	fs.DurationVar(&cfg.duration, "duration", 50*time.Second, "time budget when --histories is 0, shared by the columns")
	fs.IntVar(&cfg.opts.Clients, "clients", cfg.opts.Clients, "client processes per history")
	fs.IntVar(&cfg.opts.Groups, "groups", cfg.opts.Groups, "consumer groups per history")
	fs.IntVar(&cfg.opts.Rounds, "rounds", cfg.opts.Rounds, "rounds of 500 ms simulated time per history (at least 10)")
	fs.IntVar(&cfg.opts.StaticPercent, "static", cfg.opts.StaticPercent, "percent of clients that are static members")
	fs.StringVar(&cfg.faults, "faults", "uniform=10", "fault rates in percent per request: KIND=PCT,... with kinds "+faultNames()+"; uniform=PCT spreads PCT over all; none")
	fs.StringVar(&cfg.hv, "heartbeat-version", "compare", "ConsumerGroupHeartbeat version of the clients: 1 (KIP-1082), 0 (broker-made ids), mixed, or compare (1 then 0, the KIP's claim)")
	fs.StringVar(&cfg.protocol, "protocol", string(plan.ProtocolConsumer), "group protocol of the clients: consumer (ConsumerGroupHeartbeat), classic (JoinGroup, SyncGroup, Heartbeat), mixed (each group one or the other), upgrade (classic processes restarted one by one with the consumer protocol) or rollback (the reverse)")
	fs.StringVar(&cfg.join, "join-group-version", "compare", "highest JoinGroup version of the classic clients: 9 (KIP-394), 3 (before it), or compare (9 then 3, the KIP's claim)")
	fs.StringVar(&cfg.mutant, "mutant", "", "switch on one of impl's planted bugs to watch the checker catch it: "+mutantNames())
	fs.StringVar(&cfg.out, "out", "out", "directory for the index and failure reports (history, page, timeline)")
	fs.BoolVar(&cfg.json, "json", false, "print the summary as JSON (schema ghostcheck/run/v1, with the options used)")
	fs.StringVar(&cfg.junit, "junit", "", "also write the results as JUnit XML to `FILE`: a testsuite per column, a testcase per failing history and one for the column")
	fs.BoolVar(&cfg.opts.Parallel, "parallel", false, "deliver each round's requests concurrently (exercises a concurrent target)")
	fs.BoolVar(&cfg.opts.Restarts, "restarts", cfg.opts.Restarts, "restart the coordinator now and then (state persists, connections close, timers start afresh)")
	fs.IntVar(&cfg.shrink, "shrink", 300, "re-runs allowed to shrink a failing plan (0: none)")
	fs.IntVar(&cfg.workers, "workers", runtime.GOMAXPROCS(0), "histories checked at once (each on its own target; the results are the same for any number)")
	fs.BoolVar(&cfg.failfast, "failfast", false, "stop at the first history that is not Ok (the v0 control's expected ghosts excepted)")
	fs.Bool("coverage", false, "build ghostcheck with -cover (in its repository), run, and report the statement coverage of model/ (with model/client and model/rules) and impl/ and the clauses of docs/PROTOCOL.md the model applied (coverage.go)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck run [flags]")
		fmt.Fprintln(stderr, "Runs client processes against a coordinator under network faults and checks every history.")
		fmt.Fprintln(stderr, "Exit 0 when every history checked is Ok (the v0 control's ghosts are expected), 1 when one is not or none")
		fmt.Fprintln(stderr, "was checked, 2 on bad usage. SIGINT stops it: the histories in flight finish and the summary is printed.")
		fs.PrintDefaults()
	}
	if code := parseFlags(fs, args); code >= 0 {
		return cfg, code
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return cfg, exitUsage
	}
	// A planted bug of the classic protocol needs classic groups to show
	// (and groups of both kinds for A6.4's), one of mixed groups a fleet
	// that migrates: unless --protocol says otherwise, a run with one has
	// them (targets.MutantPlans).
	protocolSet := false
	fs.Visit(func(f *flag.Flag) { protocolSet = protocolSet || f.Name == "protocol" })
	if p := targets.MutantPlans(cfg.mutant); !protocolSet && p != "" {
		cfg.protocol = string(p)
	}
	return cfg, validateRun(&cfg, stderr)
}

// validateRun refuses values that would check nothing or make no sense,
// and reads the fault and version flags into cfg.
func validateRun(cfg *runConfig, stderr io.Writer) int {
	o := cfg.opts
	switch {
	case cfg.histories < 0:
		return usageErr(stderr, "run", "--histories %d: want a count, or 0 for as many as --duration allows", cfg.histories)
	case cfg.histories == 0 && cfg.duration <= 0:
		return usageErr(stderr, "run", "--duration %v: want a positive time budget (or --histories N)", cfg.duration)
	case o.Clients < 1 || o.Groups < 1 || o.Rounds < 10:
		return usageErr(stderr, "run", "--clients and --groups must be at least 1, --rounds at least 10")
	case o.StaticPercent < 0 || o.StaticPercent > 100:
		return usageErr(stderr, "run", "--static %d: want a percent, 0 to 100", o.StaticPercent)
	case cfg.shrink < 0:
		return usageErr(stderr, "run", "--shrink %d: want a count of re-runs (0: no shrinking)", cfg.shrink)
	case cfg.workers < 1:
		return usageErr(stderr, "run", "--workers %d: want at least 1", cfg.workers)
	case cfg.mutant != "" && cfg.target == "model":
		return usageErr(stderr, "run", "mutants are planted in impl; use --target impl")
	}
	var err error
	if cfg.opts.Faults, err = plan.ParseFaultRates(cfg.faults); err != nil {
		return usageErr(stderr, "run", "%v", err)
	}
	var hvs []int
	switch cfg.hv {
	case "1":
		hvs = []int{1}
	case "0":
		hvs = []int{0}
	case "mixed":
		hvs = []int{-1}
	case "compare":
		hvs = []int{1, 0}
		if cfg.mutant != "" {
			// v1, or v0 for a mutant only v0 joins show (its column's
			// ghosts are then expected, its other failures the bug's).
			hvs = []int{targets.MutantHeartbeatVersion(cfg.mutant)}
		}
	default:
		return usageErr(stderr, "run", "--heartbeat-version %q: want 0, 1, mixed or compare", cfg.hv)
	}
	protocol, err := plan.ParseProtocol(cfg.protocol)
	if err != nil {
		return usageErr(stderr, "run", "--protocol: %v", err)
	}
	if cfg.columns, err = runColumns(protocol, hvs, cfg.join, cfg.mutant != ""); err != nil {
		return usageErr(stderr, "run", "%v", err)
	}
	return -1
}

func faultNames() string {
	var ks []string
	for _, k := range plan.FaultKinds() {
		ks = append(ks, string(k))
	}
	return strings.Join(ks, ", ")
}

func mutantNames() string {
	var ns []string
	for _, m := range targets.Mutants() {
		ns = append(ns, m[0])
	}
	return strings.Join(ns, ", ")
}

func phaseLabel(v int) string {
	switch v {
	case 1:
		return "v1 (KIP-1082)"
	case 0:
		return "v0 (broker-made ids)"
	}
	return "mixed v0/v1"
}

// report shrinks a failing plan, writes its history and timeline, and says
// how to replay it.
func report(cfg runConfig, col column, pl plan.Plan, res *driver.Result, rep *check.Report, prog *progress) *failure {
	f := &failure{Seed: pl.Seed, Rule: rep.Rule, Detail: rep.Detail}
	small := pl
	if cfg.shrink > 0 && rep.Verdict == history.Illegal {
		prog.note(fmt.Sprintf("shrinking the failing plan of seed %d (%s)...", pl.Seed, rep.Rule))
		small = plan.Shrink(pl, func(p plan.Plan) bool {
			_, r, err := runOne(cfg.target, p, cfg.mutant)
			return err == nil && r.Verdict == history.Illegal && r.Rule == rep.Rule
		}, cfg.shrink)
		if r2, rep2, err := runOne(cfg.target, small, cfg.mutant); err == nil && rep2.Rule == rep.Rule {
			res, rep = r2, rep2
			c, a, fl := small.Size()
			f.Shrunk = fmt.Sprintf("%d clients, %d actions, %d faults, %d operations", c, a, fl, len(res.History))
			f.Detail = rep.Detail
		} else {
			small = pl
		}
	}
	name := fmt.Sprintf("%s-v%d-seed%d-%s", cfg.target, col.hv, pl.Seed, strings.ToLower(rep.Rule))
	switch {
	case col.classic():
		name = fmt.Sprintf("%s-%s-seed%d-%s", cfg.target, col.slug(), pl.Seed, strings.ToLower(rep.Rule))
	case col.hv < 0:
		name = fmt.Sprintf("%s-mixed-seed%d-%s", cfg.target, pl.Seed, strings.ToLower(rep.Rule))
	}
	if cfg.mutant != "" {
		name = cfg.mutant + "-" + name
	}
	hdr := history.FileHeader{Target: cfg.target, Mutant: cfg.mutant,
		Title: fmt.Sprintf("%s found by ghostcheck run (seed %d, %s)", rep.Rule, pl.Seed, col.label()), Plan: small}
	art, err := writeFailurePage(cfg.out, name, hdr, res, rep)
	if err != nil {
		f.Detail += " (writing the report failed: " + err.Error() + ")"
		f.Replay = fmt.Sprintf("ghostcheck run --target %s --seed %d --histories 1 %s%s", cfg.target, pl.Seed, col.flags(), mutantFlag(cfg.mutant))
		return f
	}
	f.History, f.Timeline = art.History, art.HTML
	f.Replay = "ghostcheck replay " + art.History
	return f
}

func versionFlag(v int) string {
	if v < 0 {
		return "mixed"
	}
	return strconv.Itoa(v)
}

func mutantFlag(m string) string {
	if m == "" {
		return ""
	}
	return " --mutant " + m
}

func printSummary(w io.Writer, cfg runConfig, phases []*phaseSummary) {
	title := "target " + cfg.target
	if cfg.mutant != "" {
		title += ", mutant " + cfg.mutant
	}
	fmt.Fprintf(w, "ghostcheck run: %s, seeds from %d, %d clients in %d groups, %d rounds per history\n\n",
		title, cfg.seed, cfg.opts.Clients, cfg.opts.Groups, cfg.opts.Rounds)
	row := func(name string, cell func(p *phaseSummary) string) {
		fmt.Fprintf(w, "%-32s", name)
		for _, p := range phases {
			fmt.Fprintf(w, " %-24s", cell(p))
		}
		fmt.Fprintln(w)
	}
	row("", func(p *phaseSummary) string { return p.Label })
	row("histories", func(p *phaseSummary) string { return strconv.Itoa(p.Histories) })
	row("operations", func(p *phaseSummary) string { return strconv.Itoa(p.Operations) })
	for _, k := range plan.FaultKinds() {
		row("fault "+string(k), func(p *phaseSummary) string { return strconv.Itoa(p.Faults[k]) })
	}
	row("coordinator restarts", func(p *phaseSummary) string { return strconv.Itoa(p.Restarts) })
	row("verdict Ok", func(p *phaseSummary) string { return strconv.Itoa(p.Verdicts[history.Ok]) })
	row("verdict Illegal", func(p *phaseSummary) string { return strconv.Itoa(p.Verdicts[history.Illegal]) })
	row("verdict Unknown", func(p *phaseSummary) string { return strconv.Itoa(p.Verdicts[history.Unknown]) })
	row("ghosts found", func(p *phaseSummary) string { return strconv.Itoa(p.Ghosts) })
	row("first ghost in history", func(p *phaseSummary) string {
		if p.FirstGhost == 0 {
			return "-"
		}
		return strconv.Itoa(p.FirstGhost)
	})
	broken := map[string]bool{}
	for _, p := range phases {
		for r := range p.Violations {
			broken[r] = true
		}
	}
	var rs []string
	for r := range broken {
		rs = append(rs, r)
	}
	sort.Strings(rs)
	if len(rs) == 0 {
		row("invariant violations", func(p *phaseSummary) string { return "0" })
	}
	for _, r := range rs {
		row("violations "+r, func(p *phaseSummary) string { return strconv.Itoa(p.Violations[r]) })
	}
	row("time", func(p *phaseSummary) string { return fmt.Sprintf("%.1fs", p.Seconds) })
	for _, p := range phases {
		if p.Failure == nil {
			continue
		}
		fmt.Fprintln(w)
		if p.Control {
			fmt.Fprintf(w, "%s: ghosts, as expected without %s (an example, shrunk):\n", p.Label, controlKIP(p))
		} else {
			fmt.Fprintf(w, "%s: FAILED\n", p.Label)
		}
		fmt.Fprintf(w, "  rule:     %s — %s\n", p.Failure.Rule, rules.Meaning(p.Failure.Rule))
		fmt.Fprintf(w, "  what:     %s\n", p.Failure.Detail)
		if p.Failure.Shrunk != "" {
			fmt.Fprintf(w, "  shrunk:   %s\n", p.Failure.Shrunk)
		}
		if p.Failure.History != "" {
			fmt.Fprintf(w, "  history:  %s\n", p.Failure.History)
			fmt.Fprintf(w, "  report:   %s\n", p.Failure.Timeline)
		}
		fmt.Fprintf(w, "  replay:   %s\n", p.Failure.Replay)
	}
	if line := kipLine(phases); line != "" {
		fmt.Fprintln(w)
		fmt.Fprintln(w, line)
	}
}

// controlKIP is the KIP whose absence a control column shows.
func controlKIP(p *phaseSummary) string {
	if p.col.classic() && p.col.join < 4 && p.col.hv != 0 {
		return "KIP-394"
	}
	if p.col.classic() && p.col.join < 4 {
		return "KIP-1082 and KIP-394"
	}
	return "KIP-1082"
}

// kipLine is the sentence that says whether a KIP's claim held, for a run
// of a column and its control ("" for any other run).
func kipLine(phases []*phaseSummary) string {
	if len(phases) != 2 || !phases[1].Control {
		return ""
	}
	kip, newer, older := "KIP-1082", "v1", "v0"
	if c := phases[1].col; c.classic() {
		kip, newer, older = controlKIP(phases[1]), "JoinGroup v4+", "JoinGroup v3"
	}
	good, control := phases[0], phases[1]
	switch {
	case good.Ghosts == 0 && good.Verdicts[history.Illegal] == 0 && control.Ghosts > 0:
		return fmt.Sprintf("%s holds: no ghost in %d %s histories; %s with the same faults made %d (first in history %d).", kip, good.Histories, newer, older, control.Ghosts, control.FirstGhost)
	case good.Ghosts > 0 || good.Verdicts[history.Illegal] > 0:
		return fmt.Sprintf("%s does NOT hold for this target: %s clients were hurt.", kip, newer)
	}
	return fmt.Sprintf("%s made no ghost in this run: too few histories or faults to show the difference.", older)
}

// progress prints a live line on a terminal and plain periodic lines
// otherwise.
type progress struct {
	w     io.Writer
	tty   bool
	start time.Time
	last  time.Time
	shown bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) update(ps *phaseSummary, phase int) {
	every := 5 * time.Second
	if p.tty {
		every = 200 * time.Millisecond
	}
	if time.Since(p.last) < every {
		return
	}
	p.last = time.Now()
	rate := float64(ps.Operations) / ps.Seconds
	bad := ps.Verdicts[history.Illegal] + ps.Verdicts[history.Unknown]
	line := fmt.Sprintf("[%s] %d histories, %d ops, %.0f ops/s, %d failing, %d ghosts, %.0fs elapsed",
		ps.Label, ps.Histories, ps.Operations, rate, bad, ps.Ghosts, time.Since(p.start).Seconds())
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.shown = true
	} else {
		fmt.Fprintln(p.w, line)
	}
}

func (p *progress) note(s string) {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, s)
}

func (p *progress) done() {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
