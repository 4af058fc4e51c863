package check

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/plan"
)

// Report is the verdict of one run and why.
type Report struct {
	Verdict history.Verdict `json:"verdict"`
	// Rule is the id of the first rule broken (one of Rules).
	Rule   string `json:"rule,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Linearizable is porcupine's answer for the whole history.
	Linearizable porcupine.CheckResult `json:"linearizable"`
	// Mismatch is, for an Illegal history, the first operation the model
	// answers differently when the history is replayed in delivery order.
	Mismatch string `json:"mismatch,omitempty"`
	// Invariants are the invariant violations observed during the run.
	Invariants []driver.RoundViolation `json:"invariants,omitempty"`
	// SetAside are, at the observable level, the first violation of each
	// rule that Options.SetAside set aside (a known finding); they do
	// not make the verdict.
	SetAside []driver.RoundViolation `json:"setAside,omitempty"`
	// CheckTime is how long the linearizability check took.
	CheckTime time.Duration `json:"checkTime"`
	// Level is the level the run was checked at (never LevelAuto).
	Level Level `json:"level"`
	// Notes say what the run left out and why (the plan's restarts, for a
	// target that cannot restart); they never change the verdict.
	Notes []string `json:"notes,omitempty"`

	// budget is the bound the linearizability search ran under; the
	// timeline's search (WriteArtifacts) gets no more, so writing the
	// report of a history whose search ran out cannot hang.
	budget time.Duration
}

// Options tune Check.
type Options struct {
	// Timeout bounds the linearizability search (0: 30 s). When it
	// expires the verdict is Unknown. It also bounds the search that
	// draws the report's timeline (WriteArtifacts).
	Timeout time.Duration
	// Level is LevelAuto (the zero value: LevelExact for a target that
	// declared itself model-exact, Result.ModelExact, LevelObservable for
	// any other), LevelExact (the reference model's answers, byte for
	// byte) or LevelObservable (only what the protocol promises a client
	// can see; observable.go).
	Level Level
	// LagMs (observable level) bounds how far real time ran ahead of the
	// history's logical times (tcptarget.Target.MaxLagMs).
	LagMs int64
	// SessionTimeoutMs (observable level) is the broker's session timeout
	// (0: the plan's).
	SessionTimeoutMs int64
	// SetAside (observable level), if set, reports whether a violation
	// is a known finding's (`ghostcheck check --known`): the check then
	// records it in Report.SetAside and goes on looking for the rule's
	// first other violation.
	SetAside func(rule, what string) bool
}

// Check judges a run at opts' level: the harness's assumptions first (a
// broken one is a harness error, Unknown), then the invariants observed
// during the run, then, at the exact level, linearizability of the history
// against the model, or, at the observable level, what a client can see.
func Check(res *driver.Result, opts Options) *Report {
	level := opts.LevelFor(res)
	var rep *Report
	if level == LevelObservable {
		rep = checkObservable(res, opts)
	} else {
		rep = checkExact(res, opts)
	}
	rep.Level, rep.Notes = level, res.Notes()
	return rep
}

// LevelFor is the level Check holds res to: opts.Level, or at LevelAuto
// the exact level for a model-exact target and the observable one for any
// other.
func (o Options) LevelFor(res *driver.Result) Level {
	switch {
	case o.Level != LevelAuto:
		return o.Level
	case res.ModelExact:
		return LevelExact
	}
	return LevelObservable
}

// History checks a recorded history alone (no invariants, which need
// the run's client state): linearizability against the model configured by
// plan p (LevelAuto reads as LevelExact here).
func History(p plan.Plan, h history.History, opts Options) *Report {
	return Check(&driver.Result{Plan: p, History: h, ModelExact: true}, opts)
}

// String names the level as flags and reports do: auto, exact, observable.
func (l Level) String() string {
	switch l {
	case LevelAuto:
		return "auto"
	case LevelExact:
		return "exact"
	case LevelObservable:
		return "observable"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// MarshalText writes the level's name, so JSON reports read "exact".
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level's name.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err == nil {
		*l = v
	}
	return err
}

// ParseCheckLevel reads auto, exact or observable.
func ParseLevel(s string) (Level, error) {
	for _, l := range []Level{LevelAuto, LevelExact, LevelObservable} {
		if s == l.String() {
			return l, nil
		}
	}
	return LevelAuto, fmt.Errorf("level %q: want auto, exact or observable", s)
}

// timeout is the bound of the linearizability search.
func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return 30 * time.Second
	}
	return o.Timeout
}

// SearchBudget is the bound the check's linearizability search ran under
// (the default for a Report not made by Check): the timeline's search
// (package report) gets no more, so that writing the report of a history
// whose search ran out cannot hang.
func (r *Report) SearchBudget() time.Duration {
	if r.budget <= 0 {
		return Options{}.timeout()
	}
	return r.budget
}

// Level is how much a check demands.
type Level int

const (
	// LevelAuto (the zero value) decides from the run: LevelExact for a
	// target that declares itself model-exact (ModelExacter), else
	// LevelObservable.
	LevelAuto Level = iota
	// LevelExact holds the target to the reference model (porcupine).
	LevelExact
	// LevelObservable holds it only to what the protocol promises.
	LevelObservable
)
