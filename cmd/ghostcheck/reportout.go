package main

// The HTML reports of run, check and replay: the glue between what the
// commands gather and the report package, which draws the pages.

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/plan"
	pages "github.com/ghostcheck/ghostcheck/report"
)

// historySeries is one phase's progress, one point per history, for the
// index's plots. Past maxSeries points it keeps every other one (and then
// records every other history), so a long run costs bounded memory.
type historySeries struct {
	elapsed []float64 // seconds since the phase began
	ghosts  []float64 // ghosts found so far
	index   []float64 // 1-based history number
	stride  int
	n       int
}

const maxSeries = 4000

// add records the phase's state after its latest history.
func (s *historySeries) add(elapsed time.Duration, ps *phaseSummary) {
	s.n++
	if s.stride == 0 {
		s.stride = 1
	}
	if s.n%s.stride != 0 {
		return
	}
	s.elapsed = append(s.elapsed, elapsed.Seconds())
	s.ghosts = append(s.ghosts, float64(ps.Ghosts))
	s.index = append(s.index, float64(s.n))
	if len(s.index) >= maxSeries {
		for _, p := range []*[]float64{&s.elapsed, &s.ghosts, &s.index} {
			half := (*p)[:0]
			for i := 1; i < len(*p); i += 2 {
				half = append(half, (*p)[i])
			}
			*p = half
		}
		s.stride *= 2
	}
}

// writeFailurePage writes a failing history's files: its history, its
// timeline and the page that tells its story.
func writeFailurePage(dir, name string, hdr history.FileHeader, res *driver.Result, rep *check.Report) (pages.Artifacts, error) {
	replay := "ghostcheck replay " + filepath.Join(dir, name+".jsonl")
	return pages.WriteFailure(dir, pages.Failure{Name: name, Header: hdr, Result: res, Report: rep, Replay: replay})
}

// writeRunIndex writes out/index.html for `ghostcheck run` and says where
// it is (on stdout after the summary, or on stderr beside --json).
func writeRunIndex(cfg runConfig, phases []*phaseSummary, stdout, stderr io.Writer) {
	ix := pages.Index{Kind: "run", Title: "run against " + cfg.target,
		Subtitle: fmt.Sprintf("seeds from %d; %d clients in %d groups, %d rounds of %d ms per history; faults %s; restarts %v",
			cfg.seed, cfg.opts.Clients, cfg.opts.Groups, cfg.opts.Rounds, plan.New(cfg.seed, cfg.opts).RoundMs, faultsFlag(cfg.opts.Faults), cfg.opts.Restarts),
		Verdict: "Ok", Headline: runHeadline(phases), Summary: runTable(phases)}
	if cfg.mutant != "" {
		ix.Title += " with mutant " + cfg.mutant
	}
	if exitStatus(phases) != 0 {
		ix.Verdict = "FAIL"
	}
	for _, p := range phases {
		if f := p.Failure; f != nil {
			ix.Failures = append(ix.Failures, pages.FailureLink{Label: fmt.Sprintf("%s, seed %d", p.Label, f.Seed),
				Verdict: failureVerdict(p), Rule: f.Rule, Detail: f.Detail, Replay: f.Replay, Href: relTo(cfg.out, f.Timeline)})
		}
	}
	ix.Plots = runPlots(phases)
	ix.Notes = []string{"The v0 column, when there is one, is the control: its ghosts are expected without KIP-1082, and do not fail the run."}
	path, err := pages.WriteIndex(cfg.out, ix)
	sayIndex(path, err, cfg.json, stdout, stderr)
}

// sayIndex prints where the index went, or why it did not.
func sayIndex(path string, err error, asJSON bool, stdout, stderr io.Writer) {
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "ghostcheck: writing the HTML report:", err)
	case asJSON:
		fmt.Fprintln(stderr, "index:", path)
	default:
		fmt.Fprintf(stdout, "\nindex:    %s (the summary, plots and every failure's page: open it in a browser)\n", path)
	}
}

func failureVerdict(p *phaseSummary) string {
	if p.Verdicts[history.Illegal] > 0 {
		return string(history.Illegal)
	}
	return string(history.Unknown)
}

// relTo is path relative to dir (the index's directory), or path.
func relTo(dir, path string) string {
	if path == "" {
		return ""
	}
	if r, err := filepath.Rel(dir, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

func faultsFlag(m map[plan.FaultKind]int) string {
	var parts []string
	for _, k := range plan.FaultKinds() {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

// runHeadline is the sentence the summary ends with.
func runHeadline(phases []*phaseSummary) string {
	if line := kipLine(phases); line != "" {
		return line
	}
	var parts []string
	for _, p := range phases {
		parts = append(parts, fmt.Sprintf("%s: %d histories, %d Ok, %d Illegal, %d Unknown", p.Label, p.Histories,
			p.Verdicts[history.Ok], p.Verdicts[history.Illegal], p.Verdicts[history.Unknown]))
	}
	return strings.Join(parts, "; ")
}

// runTable is the summary as printSummary prints it.
func runTable(phases []*phaseSummary) pages.Table {
	t := pages.Table{Columns: []string{""}}
	for _, p := range phases {
		t.Columns = append(t.Columns, p.Label)
	}
	row := func(name string, cell func(p *phaseSummary) string) {
		r := []string{name}
		for _, p := range phases {
			r = append(r, cell(p))
		}
		t.Rows = append(t.Rows, r)
	}
	itoa := strconv.Itoa
	row("histories", func(p *phaseSummary) string { return itoa(p.Histories) })
	row("operations", func(p *phaseSummary) string { return itoa(p.Operations) })
	for _, k := range plan.FaultKinds() {
		row("fault "+string(k), func(p *phaseSummary) string { return itoa(p.Faults[k]) })
	}
	row("coordinator restarts", func(p *phaseSummary) string { return itoa(p.Restarts) })
	for _, v := range []history.Verdict{history.Ok, history.Illegal, history.Unknown} {
		row("verdict "+string(v), func(p *phaseSummary) string { return itoa(p.Verdicts[v]) })
	}
	row("ghosts found", func(p *phaseSummary) string { return itoa(p.Ghosts) })
	for _, r := range violationRules(phases) {
		row("violations "+r, func(p *phaseSummary) string { return itoa(p.Violations[r]) })
	}
	row("time", func(p *phaseSummary) string { return fmt.Sprintf("%.1fs", p.Seconds) })
	return t
}

func violationRules(phases []*phaseSummary) []string {
	seen := map[string]bool{}
	var rs []string
	for _, p := range phases {
		for r := range p.Violations {
			if !seen[r] {
				seen[r] = true
				rs = append(rs, r)
			}
		}
	}
	sort.Strings(rs)
	return rs
}

// runPlots are the index's pictures of a run: ghosts per history for each
// client generation under the same plans (KIP-1082's claim), violations
// by rule, faults applied, and histories checked per second.
func runPlots(phases []*phaseSummary) []pages.Plot {
	var ghosts, rate []pages.Series
	for _, p := range phases {
		ghosts = append(ghosts, pages.Series{Label: p.Label, X: p.series.index, Y: p.series.ghosts})
		xs, ys := ratePerSecond(p.series)
		rate = append(rate, pages.Series{Label: p.Label, X: xs, Y: ys})
	}
	var plots []pages.Plot
	add := func(p pages.Plot, err error) {
		if err == nil {
			plots = append(plots, p)
		}
	}
	add(pages.LinePlot("Ghosts found, history by history",
		"History i of every column runs the plan of seed N+i: the same clients, actions and faults; only the ConsumerGroupHeartbeat version differs. A KIP-1082 coordinator keeps the v1 line at zero.",
		"history", "ghost members (cumulative)", ghosts))
	rules := violationRules(phases)
	add(pages.BarPlot("Violations by rule", "Observations that broke each rule (a history counts once per observation).",
		"observations", rules, phaseBars(phases, func(p *phaseSummary, i int) float64 { return float64(p.Violations[rules[i]]) }, len(rules))))
	kinds := plan.FaultKinds()
	cats := make([]string, 0, len(kinds)+1)
	for _, k := range kinds {
		cats = append(cats, string(k))
	}
	cats = append(cats, "restart")
	add(pages.BarPlot("Faults applied", "Requests the simulated network mistreated, by kind, and coordinator restarts.",
		"count", cats, phaseBars(phases, func(p *phaseSummary, i int) float64 {
			if i == len(kinds) {
				return float64(p.Restarts)
			}
			return float64(p.Faults[kinds[i]])
		}, len(cats))))
	add(pages.LinePlot("Histories checked per second",
		"Each history: run on simulated time, then checked (invariants and linearizability); wall-clock time of this machine.",
		"seconds since the column began", "histories / s", rate))
	return plots
}

// phaseBars makes one set of bars per phase.
func phaseBars(phases []*phaseSummary, value func(p *phaseSummary, i int) float64, n int) []pages.Bars {
	var out []pages.Bars
	for _, p := range phases {
		b := pages.Bars{Label: p.Label, Values: make([]float64, n)}
		for i := range b.Values {
			b.Values[i] = value(p, i)
		}
		out = append(out, b)
	}
	return out
}

// ratePerSecond is the histories finished in each second of the phase,
// at the end of that second.
func ratePerSecond(s historySeries) ([]float64, []float64) {
	var xs, ys []float64
	done, j := 0.0, 0
	for sec := 1.0; len(s.elapsed) > 0 && sec <= s.elapsed[len(s.elapsed)-1]; sec++ {
		last := done
		for j < len(s.elapsed) && s.elapsed[j] < sec {
			last = s.index[j]
			j++
		}
		xs, ys = append(xs, sec), append(ys, last-done)
		done = last
	}
	return xs, ys
}
