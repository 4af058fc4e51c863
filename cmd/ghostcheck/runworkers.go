package main

import (
	"context"
	"fmt"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"io"
	"sync"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// runOutcome is what a whole run came to.
type runOutcome struct {
	phases []*phaseSummary
	// interrupted: SIGINT or SIGTERM stopped the run before it was done.
	interrupted bool
	// failfast, when set, is the history --failfast stopped at.
	failfast string
}

func (o runOutcome) exit() int { return exitStatus(o.phases) }

// seedOutcome is one history, run and checked.
type seedOutcome struct {
	index int
	seed  uint64
	plan  plan.Plan
	res   *driver.Result
	rep   *check.Report
	err   error
}

// historyRecord is what a test of --workers compares history by history.
type historyRecord struct {
	Seed       uint64
	Verdict    history.Verdict
	Rule       string
	Operations int
	Faults     map[plan.FaultKind]int
	Ghosts     []string
}

// runPhases runs the columns in turn, until ctx ends or --failfast stops
// at a failure, and then shrinks and reports each column's first failure
// (not after an interrupt: whoever pressed ^C wants the summary now; the
// history is written unshrunk).
func runPhases(ctx context.Context, cfg runConfig, prog *progress) runOutcome {
	var out runOutcome
	for i, col := range cfg.columns {
		if ctx.Err() != nil || out.failfast != "" {
			break
		}
		budget := cfg.duration / time.Duration(len(cfg.columns))
		ps := runPhase(ctx, cfg, col, budget, i, prog)
		if cfg.failfast && !ps.Control && ps.first != nil {
			out.failfast = fmt.Sprintf("%s, seed %d", ps.Label, ps.first.seed)
		}
		out.phases = append(out.phases, ps)
	}
	out.interrupted = ctx.Err() != nil
	for _, ps := range out.phases {
		if f := ps.first; f != nil && f.err == nil {
			c := cfg
			if out.interrupted {
				c.shrink = 0
			}
			ps.Failure = report(c, ps.col, f.plan, f.res, f.rep, prog)
		}
	}
	return out
}

// runPhase runs one column's histories on cfg.workers goroutines. Each
// history has its own target, so the histories are independent; they are
// counted in seed order, whatever order they finish in, so that the
// summary is the same for any number of workers. The first history is
// always run; after it the budget (or --histories) and ctx decide.
func runPhase(ctx context.Context, cfg runConfig, col column, budget time.Duration, index int, prog *progress) *phaseSummary {
	ps := &phaseSummary{Label: col.label(), Version: col.hv, Control: col.control, Faults: map[plan.FaultKind]int{},
		Verdicts: map[history.Verdict]int{}, Violations: map[string]int{}, col: col}
	if col.classic() {
		ps.Protocol, ps.JoinGroupVersion = col.protocol, col.join
	}
	control := col.control
	opts := col.options(cfg.opts)
	start := time.Now()
	more := func(i int) bool {
		switch {
		case i == 0:
			return true
		case ctx.Err() != nil:
			return false
		case cfg.histories > 0:
			return i < cfg.histories
		}
		return time.Since(start) < budget
	}
	run := func(i int) seedOutcome {
		seed := cfg.seed + uint64(i)
		p := plan.New(seed, opts)
		res, rep, err := runOne(cfg.target, p, cfg.mutant)
		return seedOutcome{index: i, seed: seed, plan: p, res: res, rep: rep, err: err}
	}
	runSeeds(cfg.workers, more, run, func(o seedOutcome) bool {
		ps.count(o, cfg)
		ps.Seconds = time.Since(start).Seconds()
		ps.series.add(time.Since(start), ps)
		prog.update(ps, index)
		return !(cfg.failfast && !control && ps.first != nil)
	})
	ps.Seconds = time.Since(start).Seconds()
	return ps
}

// count adds one history to the column.
func (ps *phaseSummary) count(o seedOutcome, cfg runConfig) {
	if o.err != nil {
		ps.Verdicts[history.Unknown]++
		if ps.first == nil {
			ps.first = &o
			ps.Failure = &failure{Seed: o.seed, Rule: string(rules.RuleHarnessAssumption), Detail: o.err.Error()}
		}
		ps.failing(failingHistory{Seed: o.seed, Verdict: history.Unknown, Rule: string(rules.RuleHarnessAssumption), Detail: o.err.Error()})
		return
	}
	res, rep := o.res, o.rep
	ps.Histories++
	ps.Operations += len(res.History)
	for k, n := range res.Faults {
		ps.Faults[k] += n
	}
	for i := range res.History {
		if res.History[i].Restart {
			ps.Restarts++
		}
	}
	ps.Verdicts[rep.Verdict]++
	for rule, n := range res.ViolationCounts {
		ps.Violations[rule] += n
	}
	ps.Ghosts += len(res.Ghosts)
	if len(res.Ghosts) > 0 && ps.FirstGhost == 0 {
		ps.FirstGhost = o.index + 1
	}
	if rep.Verdict != history.Ok {
		if ps.first == nil {
			ps.first = &o
		}
		ps.failing(failingHistory{Seed: o.seed, Verdict: rep.Verdict, Rule: rep.Rule, Detail: rep.Detail})
	}
	if cfg.onHistory != nil {
		cfg.onHistory(ps.col, historyRecord{Seed: o.seed, Verdict: rep.Verdict, Rule: rep.Rule, Operations: len(res.History), Faults: res.Faults, Ghosts: res.Ghosts})
	}
}

// failing lists a history that was not Ok, up to maxFailing; the v0
// control's failures are expected, and counted only.
func (ps *phaseSummary) failing(f failingHistory) {
	if ps.Control {
		return
	}
	if len(ps.Failing) >= maxFailing {
		ps.FailingOmitted++
		return
	}
	ps.Failing = append(ps.Failing, f)
}

// runSeeds runs histories 0, 1, 2, ... on workers goroutines while more
// says so, and hands each outcome to collect in index order. When collect
// returns false no more are started, and the ones in flight are dropped
// uncounted, so that what is counted is always histories 0 to n-1,
// whatever the number of workers and the order they finished in. It
// returns when every history started has finished.
func runSeeds(workers int, more func(i int) bool, run func(i int) seedOutcome, collect func(seedOutcome) bool) {
	jobs := make(chan int)
	results := make(chan seedOutcome, workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results <- run(i)
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := 0; more(i); i++ {
			select {
			case jobs <- i:
			case <-stop:
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	pending := map[int]seedOutcome{}
	next, stopped := 0, false
	for o := range results {
		if stopped {
			continue
		}
		pending[o.index] = o
		for p, ok := pending[next]; ok && !stopped; p, ok = pending[next] {
			delete(pending, next)
			next++
			if !collect(p) {
				stopped = true
				close(stop)
			}
		}
	}
}

// runOne builds a fresh target for plan, runs the plan and checks it.
func runOne(target string, p plan.Plan, mutant string) (*driver.Result, *check.Report, error) {
	t, err := targets.New(target, p, mutant)
	if err != nil {
		return nil, nil, err
	}
	res, err := driver.Run(t, p)
	if err != nil {
		return nil, nil, err
	}
	return res, check.Check(res, check.Options{Timeout: 20 * time.Second}), nil
}

// printStop says when the run did not run to its end, and why.
func printStop(w io.Writer, out runOutcome) {
	checked := 0
	for _, p := range out.phases {
		checked += p.Histories
	}
	switch {
	case out.interrupted:
		fmt.Fprintf(w, "\ninterrupted: the summary covers the %d histories checked before the signal\n", checked)
	case out.failfast != "":
		fmt.Fprintf(w, "\nstopped at the first failing history (--failfast): %s\n", out.failfast)
	}
	if checked == 0 {
		fmt.Fprintln(w, "no history was checked")
	}
}
