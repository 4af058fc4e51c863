package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/plan"
)

// runOptions are the options a run used, as --json and --junit record
// them, so a result says what produced it.
func runOptions(cfg runConfig) map[string]any {
	o := map[string]any{
		"target": cfg.target, "mutant": cfg.mutant, "seed": cfg.seed, "histories": cfg.histories,
		"duration": cfg.duration.String(), "clients": cfg.opts.Clients, "groups": cfg.opts.Groups, "rounds": cfg.opts.Rounds,
		"static": cfg.opts.StaticPercent, "faults": faultsFlag(cfg.opts.Faults), "heartbeatVersion": cfg.hv,
		"parallel": cfg.opts.Parallel, "restarts": cfg.opts.Restarts, "shrink": cfg.shrink, "workers": cfg.workers,
		"failfast": cfg.failfast, "out": cfg.out, "junit": cfg.junit,
	}
	if cfg.protocol != "" && cfg.protocol != string(plan.ProtocolConsumer) {
		o["protocol"], o["joinGroupVersion"] = cfg.protocol, cfg.join
	}
	return o
}

// printRunJSON prints the summary as JSON (schema ghostcheck/run/v1).
func printRunJSON(w io.Writer, cfg runConfig, out runOutcome) {
	v := map[string]any{"schema": "ghostcheck/run/v1", "options": runOptions(cfg),
		"target": cfg.target, "mutant": cfg.mutant, "seed": cfg.seed, "phases": out.phases, "exitStatus": out.exit()}
	if out.interrupted {
		v["interrupted"] = true
	}
	if out.failfast != "" {
		v["failfast"] = out.failfast
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// writeRunJUnit writes the run as JUnit XML: a testsuite per column, with
// a testcase for the column as a whole (failing when a history of it is
// not Ok) and one per failing history (each with the command that reruns
// it). The v0 control's failures are expected: its column's testcase
// passes when v0 made ghosts and is skipped when it made none, and its
// histories get no testcase of their own.
func writeRunJUnit(path string, cfg runConfig, out runOutcome) error {
	root := junitSuites{Name: "ghostcheck run"}
	for _, p := range out.phases {
		root.Suites = append(root.Suites, runSuite(cfg, p, out))
	}
	return writeJUnit(path, root)
}

func runSuite(cfg runConfig, p *phaseSummary, out runOutcome) junitSuite {
	class := fmt.Sprintf("ghostcheck.run.%s.%s", cfg.target, p.col.slug())
	s := junitSuite{Name: fmt.Sprintf("ghostcheck run %s, %s", targetWords(cfg), p.Label)}
	last := cfg.seed
	if p.Histories > 0 {
		last = cfg.seed + uint64(p.Histories) - 1
	}
	s.Properties = []junitProperty{prop("target", cfg.target), prop("mutant", cfg.mutant), prop("seeds", fmt.Sprintf("%d-%d", cfg.seed, last)),
		prop("heartbeatVersion", versionFlag(p.Version)), prop("control", p.Control), prop("plan", planFlags(cfg)),
		prop("operations", p.Operations), prop("ghosts", p.Ghosts), prop("interrupted", out.interrupted)}
	sum := junitCase{Name: fmt.Sprintf("%s: %d histories", p.Label, p.Histories), Classname: class, Time: p.Seconds,
		Output: strings.Join(phaseLines(p), "\n")}
	bad := p.Verdicts[history.Illegal] + p.Verdicts[history.Unknown]
	switch {
	case p.Control && p.Ghosts == 0:
		sum.Skipped = &junitSkipped{Message: "the v0 control made no ghost: too few histories or faults to show what KIP-1082 prevents"}
	case p.Control:
		sum.Output = fmt.Sprintf("the v0 control made %d ghosts (first in history %d), as expected without KIP-1082\n%s", p.Ghosts, p.FirstGhost, sum.Output)
	case bad > 0:
		sum.Failure = failureOf("NotOk", fmt.Sprintf("%d histories not Ok (%d checked)", bad, p.Histories), firstFailureText(p))
	case p.Histories == 0:
		sum.Error = failureOf("NothingChecked", "no history was checked", "")
	}
	s.add(sum)
	if p.Control {
		return s
	}
	for _, f := range p.Failing {
		text := f.Detail + "\nrerun:   " + rerunCommand(cfg, p.col, f.Seed)
		if p.Failure != nil && p.Failure.Seed == f.Seed && p.Failure.History != "" {
			text += "\nhistory: " + p.Failure.History + "\nreplay:  " + p.Failure.Replay
		}
		s.add(junitCase{Name: fmt.Sprintf("seed %d", f.Seed), Classname: class,
			Failure: failureOf(f.Rule, fmt.Sprintf("%s %s: %s", f.Verdict, f.Rule, f.Detail), text)})
	}
	if p.FailingOmitted > 0 {
		s.add(junitCase{Name: fmt.Sprintf("%d more failing histories", p.FailingOmitted), Classname: class,
			Failure: failureOf("NotOk", fmt.Sprintf("%d more histories not Ok (only the first %d are listed)", p.FailingOmitted, maxFailing), "")})
	}
	return s
}

func firstFailureText(p *phaseSummary) string {
	f := p.Failure
	if f == nil {
		return ""
	}
	s := fmt.Sprintf("first: seed %d, %s: %s", f.Seed, f.Rule, f.Detail)
	if f.Replay != "" {
		s += "\nreplay: " + f.Replay
	}
	return s
}

// phaseLines is the column's counts, a line each.
func phaseLines(p *phaseSummary) []string {
	lines := []string{fmt.Sprintf("histories %d, operations %d, restarts %d, ghosts %d", p.Histories, p.Operations, p.Restarts, p.Ghosts)}
	for _, v := range []history.Verdict{history.Ok, history.Illegal, history.Unknown} {
		lines = append(lines, fmt.Sprintf("verdict %s: %d", v, p.Verdicts[v]))
	}
	for _, r := range violationRules([]*phaseSummary{p}) {
		lines = append(lines, fmt.Sprintf("violations %s: %d", r, p.Violations[r]))
	}
	return lines
}

func targetWords(cfg runConfig) string {
	if cfg.mutant != "" {
		return cfg.target + " with mutant " + cfg.mutant
	}
	return cfg.target
}

// planFlags are the flags that shape a history, as given (defaults left
// out), so that a rerun draws the same plan.
func planFlags(cfg runConfig) string {
	def := plan.DefaultOptions()
	o := cfg.opts
	var fl []string
	add := func(differs bool, flag string, v any) {
		if differs {
			fl = append(fl, fmt.Sprintf("--%s %v", flag, v))
		}
	}
	add(o.Clients != def.Clients, "clients", o.Clients)
	add(o.Groups != def.Groups, "groups", o.Groups)
	add(o.Rounds != def.Rounds, "rounds", o.Rounds)
	add(o.StaticPercent != def.StaticPercent, "static", o.StaticPercent)
	add(faultsFlag(o.Faults) != faultsFlag(def.Faults), "faults", faultsFlag(o.Faults))
	if o.Parallel {
		fl = append(fl, "--parallel")
	}
	if !o.Restarts {
		fl = append(fl, "--restarts=false")
	}
	return strings.Join(fl, " ")
}

// rerunCommand runs one history of the run again, from its seed.
func rerunCommand(cfg runConfig, col column, seed uint64) string {
	parts := []string{"ghostcheck run --target", cfg.target, "--seed", strconv.FormatUint(seed, 10), "--histories 1", col.flags()}
	if cfg.mutant != "" {
		parts = append(parts, "--mutant", cfg.mutant)
	}
	if f := planFlags(cfg); f != "" {
		parts = append(parts, f)
	}
	return strings.Join(parts, " ")
}
