package targets

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/plan"
)

// Kill is how the property run alone (no equivalence test, no unit test)
// did against one of impl's planted bugs.
type Kill struct {
	Mutant      string
	Rule        string   // the family and docs/PROTOCOL.md section it breaks
	Breaks      []string // the clauses of docs/PROTOCOL.md it breaks (MutantInfo.Breaks)
	Description string
	// History is the 1-based index of the first history the run judged
	// Illegal (seeds from 1, as `ghostcheck run` starts), 0 if none was.
	History int
	// CaughtBy is the rule of the verdict, Detail its explanation.
	CaughtBy string
	Detail   string
	// Elapsed is the time from the run's start to the verdict.
	Elapsed time.Duration
}

// KillMutant runs what `ghostcheck run --target impl --mutant NAME` runs,
// on the same path: the plans of DefaultOptions at ConsumerGroupHeartbeat
// v1 (the version run uses with a mutant), or for a mutant of the classic
// protocol (MutantInfo.Classic) what `--protocol classic` adds, classic
// groups at JoinGroup v4+ (`--protocol mixed` for one of A6.4's: MutantPlans), or for a mutant of mixed groups (MixedMutant)
// the plans of `--protocol upgrade`, from seed 1 on, each against impl with the
// mutant, driver.Run, then check.Check with run's timeout, until a history
// is Illegal, or maxHistories or budget (run's --duration) is spent. A
// mutant of v0 joins (MutantHeartbeatVersion 0) runs on v0 plans, whose
// ghosts make histories Illegal without any bug (the v0 control of `run`):
// there a history counts only when its verdict's rule is not the one impl
// without the mutant gets on the same plan.
func KillMutant(m impl.MutantInfo, maxHistories int, budget time.Duration) Kill {
	k := Kill{Mutant: m.Name, Rule: m.Rule, Breaks: m.Breaks, Description: m.Description}
	opts := plan.DefaultOptions()
	opts.HeartbeatVersion = MutantHeartbeatVersion(m.Name)
	if p := MutantPlans(m.Name); p != "" {
		opts.Protocol, opts.JoinGroupVersion = p, 9
	}
	start := time.Now()
	for i := 1; i <= maxHistories && time.Since(start) < budget; i++ {
		p := plan.New(uint64(i), opts)
		rep, err := checkImpl(p, m.Name)
		if err != nil {
			k.Detail = err.Error()
			return k
		}
		if rep.Verdict != history.Illegal {
			continue
		}
		if opts.HeartbeatVersion == 0 {
			control, err := checkImpl(p, "")
			if err != nil {
				k.Detail = err.Error()
				return k
			}
			if control.Verdict == history.Illegal && control.Rule == rep.Rule {
				continue // the ghosts any v0 run has
			}
		}
		k.History, k.CaughtBy, k.Detail, k.Elapsed = i, rep.Rule, rep.Detail, time.Since(start)
		return k
	}
	k.Elapsed = time.Since(start)
	return k
}

// checkImpl runs plan p against impl with mutant ("" for none) and checks
// the history as run does.
func checkImpl(p plan.Plan, mutant string) (*check.Report, error) {
	t, err := New("impl", p, mutant)
	if err != nil {
		return nil, err
	}
	res, err := driver.Run(t, p)
	if err != nil {
		return nil, err
	}
	return check.Check(res, check.Options{Timeout: 20 * time.Second}), nil
}

// v0Clause is the clause only ConsumerGroupHeartbeat v0 joins reach: the
// coordinator makes the member id (docs/PROTOCOL.md A1).
const v0Clause = "A1/v0-member-id-made"

// MutantHeartbeatVersion is the ConsumerGroupHeartbeat version of the
// plans that show mutant name: 0 for one that breaks only what v0 joins
// reach (v0Clause: a v1 plan has no v0 join, the prober's aside), else 1,
// the version run uses with a mutant.
func MutantHeartbeatVersion(name string) int {
	for _, m := range impl.AllMutants() {
		if m.Name == name && len(m.Breaks) > 0 && !slices.ContainsFunc(m.Breaks, func(c string) bool { return c != v0Clause }) {
			return 0
		}
	}
	return 1
}

// WriteKillTable prints kills as docs/mutants.md's kill table, then how
// many the run caught and the slowest catch.
func WriteKillTable(w io.Writer, kills []Kill) {
	fmt.Fprintf(w, "| mutant | breaks | clauses | caught by | first caught in history | time to catch |\n|---|---|---|---|---|---|\n")
	for _, k := range kills {
		caught, at, took := k.CaughtBy, fmt.Sprint(k.History), k.Elapsed.Round(time.Millisecond).String()
		if k.History == 0 {
			caught, at = "NOT CAUGHT", "-"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s |\n", k.Mutant, k.Rule, strings.Join(k.Breaks, ", "), caught, at, took)
	}
	var missed []string
	var slowest, latest *Kill
	for i, k := range kills {
		switch {
		case k.History == 0:
			missed = append(missed, k.Mutant)
		default:
			if slowest == nil || k.Elapsed > slowest.Elapsed {
				slowest = &kills[i]
			}
			if latest == nil || k.History > latest.History {
				latest = &kills[i]
			}
		}
	}
	fmt.Fprintf(w, "\n%d of %d mutants caught by the run alone", len(kills)-len(missed), len(kills))
	if slowest != nil {
		fmt.Fprintf(w, "; slowest: %s (%v, history %d); latest history: %s (history %d)", slowest.Mutant,
			slowest.Elapsed.Round(time.Millisecond), slowest.History, latest.Mutant, latest.History)
	}
	if len(missed) > 0 {
		fmt.Fprintf(w, "; survivors: %s", strings.Join(missed, ", "))
	}
	fmt.Fprintln(w)
}
