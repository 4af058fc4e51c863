package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/linearize"
)

// runConfig is what `ghostcheck run` was asked to do.
type runConfig struct {
	target    string
	seed      uint64
	histories int
	duration  time.Duration
	opts      linearize.Options
	versions  []int // heartbeat versions to run, in order; -1 = mixed
	mutant    string
	out       string
	json      bool
	shrink    int
}

// phaseSummary is what one heartbeat version's histories came to.
type phaseSummary struct {
	Label      string                      `json:"label"`
	Version    int                         `json:"heartbeatVersion"`
	Histories  int                         `json:"histories"`
	Operations int                         `json:"operations"`
	Faults     map[linearize.FaultKind]int `json:"faults"`
	Restarts   int                         `json:"restarts"`
	Verdicts   map[linearize.Verdict]int   `json:"verdicts"`
	Ghosts     int                         `json:"ghosts"`
	// FirstGhost is the 1-based history in which the first ghost showed.
	FirstGhost int            `json:"firstGhostHistory,omitempty"`
	Violations map[string]int `json:"violations"`
	Seconds    float64        `json:"seconds"`
	// Failure describes the first failing history, if any.
	Failure *failure      `json:"failure,omitempty"`
	series  historySeries // for the HTML report's plots
}

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
	cfg, code := parseRunFlags(args, stderr)
	if code >= 0 {
		return code
	}
	if cfg.mutant != "" {
		known := false
		for _, m := range targets.Mutants() {
			known = known || m[0] == cfg.mutant
		}
		if !known {
			fmt.Fprintf(stderr, "ghostcheck run: unknown mutant %q; known: %s\n", cfg.mutant, mutantNames())
			return 2
		}
	}
	t, err := targets.New(cfg.target, linearize.NewPlan(1, cfg.opts), cfg.mutant)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck run:", err)
		return 2
	}
	if cfg.opts.Restarts && !linearize.CanRestart(t) {
		fmt.Fprintf(stderr, "ghostcheck run: target %s cannot restart its coordinator; pass --restarts=false\n", cfg.target)
		return 2
	}
	prog := newProgress(stderr)
	var phases []*phaseSummary
	for i, v := range cfg.versions {
		budget := cfg.duration / time.Duration(len(cfg.versions))
		phases = append(phases, runPhase(cfg, v, i, budget, prog))
	}
	prog.done()
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"target": cfg.target, "mutant": cfg.mutant, "seed": cfg.seed, "phases": phases})
	} else {
		printSummary(stdout, cfg, phases)
	}
	writeRunIndex(cfg, phases, stdout, stderr)
	return exitStatus(phases)
}

// exitStatus: 0 when every checked phase is Ok. In the v1-vs-v0 comparison
// the v0 phase is the control: its ghosts are expected, so only the KIP-1082
// clients decide the status.
func exitStatus(phases []*phaseSummary) int {
	for _, p := range phases {
		if len(phases) > 1 && p.Version == 0 {
			continue
		}
		if p.Verdicts[linearize.Illegal] > 0 || p.Verdicts[linearize.VerdictUnknown] > 0 {
			return 1
		}
	}
	return 0
}

func parseRunFlags(args []string, stderr io.Writer) (runConfig, int) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := runConfig{opts: linearize.DefaultOptions()}
	fs.StringVar(&cfg.target, "target", "impl", "coordinator to check: "+strings.Join(targets.Names(), " or "))
	seed := fs.Uint64("seed", 1, "first seed; history i uses seed+i, so any history replays alone")
	fs.IntVar(&cfg.histories, "histories", 0, "histories per heartbeat version (0: as many as --duration allows)")
	fs.DurationVar(&cfg.duration, "duration", 50*time.Second, "time budget when --histories is 0")
	fs.IntVar(&cfg.opts.Clients, "clients", cfg.opts.Clients, "client processes per history")
	fs.IntVar(&cfg.opts.Groups, "groups", cfg.opts.Groups, "consumer groups per history")
	fs.IntVar(&cfg.opts.Rounds, "rounds", cfg.opts.Rounds, "rounds of 500 ms simulated time per history")
	fs.IntVar(&cfg.opts.StaticPercent, "static", cfg.opts.StaticPercent, "percent of clients that are static members")
	faults := fs.String("faults", "uniform=10", "fault rates in percent per request: KIND=PCT,... with kinds "+faultNames()+"; uniform=PCT spreads PCT over all; none")
	hv := fs.String("heartbeat-version", "compare", "ConsumerGroupHeartbeat version of the clients: 1 (KIP-1082), 0 (broker-made ids), mixed, or compare (1 then 0, the KIP's claim)")
	fs.StringVar(&cfg.mutant, "mutant", "", "switch on one of impl's planted bugs to watch the checker catch it: "+mutantNames())
	fs.StringVar(&cfg.out, "out", "out", "directory for failure reports (history, timeline)")
	fs.BoolVar(&cfg.json, "json", false, "print the summary as JSON")
	fs.BoolVar(&cfg.opts.Parallel, "parallel", false, "deliver each round's requests concurrently (exercises a concurrent target)")
	fs.BoolVar(&cfg.opts.Restarts, "restarts", cfg.opts.Restarts, "restart the coordinator now and then (state persists, connections close, timers start afresh)")
	fs.IntVar(&cfg.shrink, "shrink", 300, "re-runs allowed to shrink a failing plan")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck run [flags]")
		fmt.Fprintln(stderr, "Runs client processes against a coordinator under network faults and checks every history.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, 0
		}
		return cfg, 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return cfg, 2
	}
	cfg.seed = *seed
	var err error
	if cfg.opts.Faults, err = linearize.ParseFaultRates(*faults); err != nil {
		fmt.Fprintln(stderr, "ghostcheck run:", err)
		return cfg, 2
	}
	switch *hv {
	case "1":
		cfg.versions = []int{1}
	case "0":
		cfg.versions = []int{0}
	case "mixed":
		cfg.versions = []int{-1}
	case "compare":
		cfg.versions = []int{1, 0}
		if cfg.mutant != "" {
			cfg.versions = []int{1}
		}
	default:
		fmt.Fprintf(stderr, "ghostcheck run: --heartbeat-version %q: want 0, 1, mixed or compare\n", *hv)
		return cfg, 2
	}
	if cfg.mutant != "" && cfg.target == "model" {
		fmt.Fprintln(stderr, "ghostcheck run: mutants are planted in impl; use --target impl")
		return cfg, 2
	}
	if cfg.opts.Clients < 1 || cfg.opts.Groups < 1 || cfg.opts.Rounds < 10 || cfg.histories < 0 {
		fmt.Fprintln(stderr, "ghostcheck run: --clients and --groups must be at least 1, --rounds at least 10")
		return cfg, 2
	}
	return cfg, -1
}

func faultNames() string {
	var ks []string
	for _, k := range linearize.FaultKinds() {
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

// runPhase runs histories for one heartbeat version.
func runPhase(cfg runConfig, version, index int, budget time.Duration, prog *progress) *phaseSummary {
	ps := &phaseSummary{Label: phaseLabel(version), Version: version, Faults: map[linearize.FaultKind]int{},
		Verdicts: map[linearize.Verdict]int{}, Violations: map[string]int{}}
	opts := cfg.opts
	opts.HeartbeatVersion = version
	start := time.Now()
	for i := 0; ; i++ {
		if cfg.histories > 0 && i >= cfg.histories {
			break
		}
		if cfg.histories == 0 && time.Since(start) >= budget {
			break
		}
		seed := cfg.seed + uint64(i)
		plan := linearize.NewPlan(seed, opts)
		res, rep, err := runOne(cfg.target, plan, cfg.mutant)
		if err != nil {
			ps.Verdicts[linearize.VerdictUnknown]++
			if ps.Failure == nil {
				ps.Failure = &failure{Seed: seed, Rule: string(linearize.RuleHarnessAssumption), Detail: err.Error()}
			}
			continue
		}
		ps.Histories++
		ps.Operations += len(res.History)
		for k, n := range res.Faults {
			ps.Faults[k] += n
		}
		for _, op := range res.History {
			if op.Restart {
				ps.Restarts++
			}
		}
		ps.Verdicts[rep.Verdict]++
		for rule, n := range res.ViolationCounts {
			ps.Violations[rule] += n
		}
		ps.Ghosts += len(res.Ghosts)
		if len(res.Ghosts) > 0 && ps.FirstGhost == 0 {
			ps.FirstGhost = i + 1
		}
		if rep.Verdict != linearize.Ok && ps.Failure == nil {
			ps.Failure = report(cfg, version, plan, res, rep, prog)
		}
		ps.Seconds = time.Since(start).Seconds()
		ps.series.add(time.Since(start), ps)
		prog.update(ps, index)
	}
	ps.Seconds = time.Since(start).Seconds()
	return ps
}

func runOne(target string, plan linearize.Plan, mutant string) (*linearize.Result, *linearize.Report, error) {
	t, err := targets.New(target, plan, mutant)
	if err != nil {
		return nil, nil, err
	}
	res, err := linearize.Run(t, plan)
	if err != nil {
		return nil, nil, err
	}
	return res, linearize.Check(res, linearize.CheckOptions{Timeout: 20 * time.Second}), nil
}

// report shrinks a failing plan, writes its history and timeline, and says
// how to replay it.
func report(cfg runConfig, version int, plan linearize.Plan, res *linearize.Result, rep *linearize.Report, prog *progress) *failure {
	f := &failure{Seed: plan.Seed, Rule: rep.Rule, Detail: rep.Detail}
	small := plan
	if cfg.shrink > 0 && rep.Verdict == linearize.Illegal {
		prog.note(fmt.Sprintf("shrinking the failing plan of seed %d (%s)...", plan.Seed, rep.Rule))
		small = linearize.Shrink(plan, func(p linearize.Plan) bool {
			_, r, err := runOne(cfg.target, p, cfg.mutant)
			return err == nil && r.Verdict == linearize.Illegal && r.Rule == rep.Rule
		}, cfg.shrink)
		if r2, rep2, err := runOne(cfg.target, small, cfg.mutant); err == nil && rep2.Rule == rep.Rule {
			res, rep = r2, rep2
			c, a, fl := small.Size()
			f.Shrunk = fmt.Sprintf("%d clients, %d actions, %d faults, %d operations", c, a, fl, len(res.History))
			f.Detail = rep.Detail
		} else {
			small = plan
		}
	}
	name := fmt.Sprintf("%s-v%d-seed%d-%s", cfg.target, version, plan.Seed, strings.ToLower(rep.Rule))
	if version < 0 {
		name = fmt.Sprintf("%s-mixed-seed%d-%s", cfg.target, plan.Seed, strings.ToLower(rep.Rule))
	}
	if cfg.mutant != "" {
		name = cfg.mutant + "-" + name
	}
	hdr := linearize.FileHeader{Target: cfg.target, Mutant: cfg.mutant,
		Title: fmt.Sprintf("%s found by ghostcheck run (seed %d, %s)", rep.Rule, plan.Seed, phaseLabel(version)), Plan: small}
	art, err := writeFailurePage(cfg.out, name, hdr, res, rep)
	if err != nil {
		f.Detail += " (writing the report failed: " + err.Error() + ")"
		f.Replay = fmt.Sprintf("ghostcheck run --target %s --seed %d --histories 1 --heartbeat-version %s%s", cfg.target, plan.Seed, versionFlag(version), mutantFlag(cfg.mutant))
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
	for _, k := range linearize.FaultKinds() {
		row("fault "+string(k), func(p *phaseSummary) string { return strconv.Itoa(p.Faults[k]) })
	}
	row("coordinator restarts", func(p *phaseSummary) string { return strconv.Itoa(p.Restarts) })
	row("verdict Ok", func(p *phaseSummary) string { return strconv.Itoa(p.Verdicts[linearize.Ok]) })
	row("verdict Illegal", func(p *phaseSummary) string { return strconv.Itoa(p.Verdicts[linearize.Illegal]) })
	row("verdict Unknown", func(p *phaseSummary) string { return strconv.Itoa(p.Verdicts[linearize.VerdictUnknown]) })
	row("ghosts found", func(p *phaseSummary) string { return strconv.Itoa(p.Ghosts) })
	row("first ghost in history", func(p *phaseSummary) string {
		if p.FirstGhost == 0 {
			return "-"
		}
		return strconv.Itoa(p.FirstGhost)
	})
	rules := map[string]bool{}
	for _, p := range phases {
		for r := range p.Violations {
			rules[r] = true
		}
	}
	var rs []string
	for r := range rules {
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
		expected := len(phases) > 1 && p.Version == 0
		fmt.Fprintln(w)
		if expected {
			fmt.Fprintf(w, "%s: ghosts, as expected without KIP-1082 (an example, shrunk):\n", p.Label)
		} else {
			fmt.Fprintf(w, "%s: FAILED\n", p.Label)
		}
		fmt.Fprintf(w, "  rule:     %s — %s\n", p.Failure.Rule, linearize.RuleMeaning(p.Failure.Rule))
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
	if len(phases) == 2 && phases[0].Version == 1 && phases[1].Version == 0 {
		fmt.Fprintln(w)
		v1, v0 := phases[0], phases[1]
		switch {
		case v1.Ghosts == 0 && v1.Verdicts[linearize.Illegal] == 0 && v0.Ghosts > 0:
			fmt.Fprintf(w, "KIP-1082 holds: no ghost in %d v1 histories; v0 with the same faults made %d (first in history %d).\n", v1.Histories, v0.Ghosts, v0.FirstGhost)
		case v1.Ghosts > 0 || v1.Verdicts[linearize.Illegal] > 0:
			fmt.Fprintln(w, "KIP-1082 does NOT hold for this target: v1 clients were hurt.")
		default:
			fmt.Fprintln(w, "v0 made no ghost in this run: too few histories or faults to show the difference.")
		}
	}
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
	bad := ps.Verdicts[linearize.Illegal] + ps.Verdicts[linearize.VerdictUnknown]
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
