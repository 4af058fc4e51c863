package linearize

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Verdict is the outcome of checking a run. Unknown is honest: the check
// could not decide (the linearizability search timed out, or the harness's
// own assumptions failed). It is never a pass.
type Verdict string

const (
	Ok      Verdict = "Ok"
	Illegal Verdict = "Illegal"
	// VerdictUnknown: undecided.
	VerdictUnknown Verdict = "Unknown"
)

// ErrNoResponse is what a Target returns (wrapped) when a request may or
// may not have been processed (a connection reset with the request
// written). Any other error means the coordinator refused the request
// without applying it (a broker closing the connection on an unsupported
// version).
var ErrNoResponse = errors.New("linearize: no response, outcome unknown")

// The rules Check reports besides the invariants (Rules lists them all).
const (
	// RuleLinearizability is broken when no sequential order of the
	// history is legal under the model, and Unknown when the search for
	// one ran out of time.
	RuleLinearizability    rules.Rule = "Linearizability"
	meaningLinearizability            = "the concurrent history has a legal sequential order under the reference model"

	// RuleHarnessAssumption is broken when the history breaks what the
	// checker relies on (CheckAssumptions) or the harness failed in the
	// run (Result.HarnessErrors): the verdict is Unknown.
	RuleHarnessAssumption    rules.Rule = "HarnessAssumption"
	meaningHarnessAssumption            = "the harness's own assumptions held (a failure here is not the target's bug)"
)

// Report is the verdict of one run and why.
type Report struct {
	Verdict Verdict `json:"verdict"`
	// Rule is the id of the first rule broken (one of Rules).
	Rule   string `json:"rule,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Linearizable is porcupine's answer for the whole history.
	Linearizable porcupine.CheckResult `json:"linearizable"`
	// Mismatch is, for an Illegal history, the first operation the model
	// answers differently when the history is replayed in delivery order.
	Mismatch string `json:"mismatch,omitempty"`
	// Invariants are the invariant violations observed during the run.
	Invariants []RoundViolation `json:"invariants,omitempty"`
	// SetAside are, at the observable level, the first violation of each
	// rule that CheckOptions.SetAside set aside (a known finding); they do
	// not make the verdict.
	SetAside []RoundViolation `json:"setAside,omitempty"`
	// CheckTime is how long the linearizability check took.
	CheckTime time.Duration `json:"checkTime"`
	// Level is the level the run was checked at (never LevelAuto).
	Level CheckLevel `json:"level"`
	// Notes say what the run left out and why (the plan's restarts, for a
	// target that cannot restart); they never change the verdict.
	Notes []string `json:"notes,omitempty"`

	// budget is the bound the linearizability search ran under; the
	// timeline's search (WriteArtifacts) gets no more, so writing the
	// report of a history whose search ran out cannot hang.
	budget time.Duration
}

// CheckOptions tune Check.
type CheckOptions struct {
	// Timeout bounds the linearizability search (0: 30 s). When it
	// expires the verdict is Unknown. It also bounds the search that
	// draws the report's timeline (WriteArtifacts).
	Timeout time.Duration
	// Level is LevelAuto (the zero value: LevelExact for a target that
	// declared itself model-exact, Result.ModelExact, LevelObservable for
	// any other), LevelExact (the reference model's answers, byte for
	// byte) or LevelObservable (only what the protocol promises a client
	// can see; observable.go).
	Level CheckLevel
	// LagMs (observable level) bounds how far real time ran ahead of the
	// history's logical times (TCPTarget.MaxLagMs).
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
func Check(res *Result, opts CheckOptions) *Report {
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
func (o CheckOptions) LevelFor(res *Result) CheckLevel {
	switch {
	case o.Level != LevelAuto:
		return o.Level
	case res.ModelExact:
		return LevelExact
	}
	return LevelObservable
}

// Notes say what the run left out, for reports.
func (r *Result) Notes() []string {
	if r.DroppedRestarts > 0 {
		return []string{fmt.Sprintf("plan's %d restarts dropped: the target cannot restart (linearize.Restarter)", r.DroppedRestarts)}
	}
	return nil
}

// checkExact is Check at LevelExact.
func checkExact(res *Result, opts CheckOptions) *Report {
	cfg := res.Plan.ModelConfig()
	rep := &Report{Invariants: res.Violations, budget: opts.timeout()}
	if errs := append(append([]string(nil), res.HarnessErrors...), CheckAssumptions(res.History)...); len(errs) > 0 {
		rep.Verdict, rep.Rule, rep.Detail = VerdictUnknown, string(RuleHarnessAssumption), errs[0]
		return rep
	}
	var mismatch string
	rep.Linearizable, rep.CheckTime, mismatch = checkLinearizable(cfg, res.History, rep.budget)
	switch {
	case len(res.Violations) > 0:
		v := res.Violations[0]
		rep.Verdict, rep.Rule = Illegal, v.Rule
		rep.Detail = fmt.Sprintf("round %d (t=%d ms): %s", v.Round, v.At, v.What)
	case rep.Linearizable == porcupine.Illegal:
		rep.Verdict, rep.Rule = Illegal, string(RuleLinearizability)
		rep.Detail = "no sequential order of the history is legal under the model"
	case rep.Linearizable == porcupine.Unknown:
		rep.Verdict, rep.Rule = VerdictUnknown, string(RuleLinearizability)
		rep.Detail = fmt.Sprintf("the linearizability search timed out after %v", rep.CheckTime)
	default:
		rep.Verdict = Ok
	}
	if rep.Linearizable == porcupine.Illegal {
		rep.Mismatch = mismatch
		if rep.Mismatch == "" {
			rep.Mismatch = FirstMismatch(cfg, res.History)
		}
		if rep.Rule == string(RuleLinearizability) && rep.Mismatch != "" {
			rep.Detail = rep.Mismatch
		}
	}
	return rep
}

// CheckHistory checks a recorded history alone (no invariants, which need
// the run's client state): linearizability against the model configured by
// plan (LevelAuto reads as LevelExact here).
func CheckHistory(plan Plan, h History, opts CheckOptions) *Report {
	return Check(&Result{Plan: plan, History: h, ModelExact: true}, opts)
}

// String names the level as flags and reports do: auto, exact, observable.
func (l CheckLevel) String() string {
	switch l {
	case LevelAuto:
		return "auto"
	case LevelExact:
		return "exact"
	case LevelObservable:
		return "observable"
	}
	return fmt.Sprintf("CheckLevel(%d)", int(l))
}

// MarshalText writes the level's name, so JSON reports read "exact".
func (l CheckLevel) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level's name.
func (l *CheckLevel) UnmarshalText(b []byte) error {
	v, err := ParseCheckLevel(string(b))
	if err == nil {
		*l = v
	}
	return err
}

// ParseCheckLevel reads auto, exact or observable.
func ParseCheckLevel(s string) (CheckLevel, error) {
	for _, l := range []CheckLevel{LevelAuto, LevelExact, LevelObservable} {
		if s == l.String() {
			return l, nil
		}
	}
	return LevelAuto, fmt.Errorf("level %q: want auto, exact or observable", s)
}

// timeout is the bound of the linearizability search.
func (o CheckOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return 30 * time.Second
	}
	return o.Timeout
}

// checkLinearizable checks h against the model within timeout. When a
// totally ordered partition fails, it also describes the failing operation
// (the earliest of those the parallel replay reached).
func checkLinearizable(cfg model.Config, h History, timeout time.Duration) (porcupine.CheckResult, time.Duration, string) {
	start := time.Now()
	// A partition whose operations never overlap in time has one order
	// only: replay it on a single coordinator, without the search (and
	// its copies of the state). Porcupine gets the rest.
	mismatch, rest := checkSequentialPartitions(cfg, h)
	if mismatch != "" {
		return porcupine.Illegal, time.Since(start), mismatch
	}
	if len(rest) == 0 {
		return porcupine.Ok, time.Since(start), ""
	}
	left := timeout - time.Since(start)
	if left <= 0 {
		// The replay used the whole budget; porcupine would read a
		// bound of zero or less as none.
		return porcupine.Unknown, time.Since(start), ""
	}
	res := porcupine.CheckOperationsTimeout(porcupineModel(cfg), porcupineOps(rest), left)
	return res, time.Since(start), ""
}

// porcupineOps wraps h's operations for porcupine; each carries its Op as
// the input, which the model's partition and step functions read.
func porcupineOps(h History) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(h))
	for i := range h {
		op := &h[i]
		ops[i] = porcupine.Operation{ClientId: op.Client, Input: op, Call: op.Call, Output: op.Response, Return: op.Return}
	}
	return ops
}

// checkSequentialPartitions replays, on the model, every partition whose
// operations are totally ordered by their intervals, spreading partitions
// over the CPUs. It returns the first mismatch found ("" if every such
// partition is legal) and the operations of the partitions it could not
// decide this way.
func checkSequentialPartitions(cfg model.Config, h History) (string, History) {
	all := make([]*Op, len(h))
	for i := range h {
		all[i] = &h[i]
	}
	keys, parts := partitionOps(all, func(op *Op) *Op { return op })
	var rest History
	var seq [][]*Op
	for i := range keys {
		ops := parts[i]
		sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
		if totallyOrdered(ops) {
			seq = append(seq, ops)
			continue
		}
		for _, op := range ops {
			if !op.Restart { // every partition has them: added once below
				rest = append(rest, *op)
			}
		}
	}
	if len(rest) > 0 {
		for _, op := range all {
			if op.Restart {
				rest = append(rest, *op)
			}
		}
	}
	var (
		mu       sync.Mutex
		firstID  = -1
		mismatch string
		failed   atomic.Bool
	)
	work := make(chan []*Op, len(seq))
	for _, ops := range seq {
		work <- ops
	}
	close(work)
	// The caller is one of the workers: on one CPU no goroutine is started
	// (and grows its stack afresh) per history.
	var wg sync.WaitGroup
	replay := func() {
		defer wg.Done()
		var r replayer
		for ops := range work {
			if failed.Load() {
				continue
			}
			c := model.NewCoordinator(cfg)
			for _, op := range ops {
				if ok, why := r.apply(c, op); !ok {
					mu.Lock()
					if firstID < 0 || op.ID < firstID {
						firstID = op.ID
						mismatch = fmt.Sprintf("op %d (%s): %s", op.ID, describeOp(op), why)
					}
					mu.Unlock()
					failed.Store(true)
					break
				}
			}
		}
	}
	n := runtime.GOMAXPROCS(0)
	wg.Add(n)
	for w := 1; w < n; w++ {
		go replay()
	}
	replay()
	wg.Wait()
	return mismatch, rest
}

// totallyOrdered reports whether each operation (sorted by call) returns
// before the next one is called.
func totallyOrdered(ops []*Op) bool {
	for i := 0; i+1 < len(ops); i++ {
		if ops[i].Return == Unknown || ops[i].Return >= ops[i+1].Call {
			return false
		}
	}
	return true
}

// CheckAssumptions checks what the checker itself relies on, and returns
// each broken assumption: every operation's call precedes its return; each
// client's calls are in order; operation ids are their positions.
func CheckAssumptions(h History) []string {
	var errs []string
	lastCall := map[int]int64{}
	for i, op := range h {
		if op.ID != i {
			errs = append(errs, fmt.Sprintf("op at position %d has id %d", i, op.ID))
		}
		if op.Return != Unknown && op.Call >= op.Return {
			errs = append(errs, fmt.Sprintf("op %d returns (%d) before it is called (%d)", op.ID, op.Return, op.Call))
		}
		if op.Return != Unknown && op.Response == nil && !op.Refused && !op.Restart {
			errs = append(errs, fmt.Sprintf("op %d has a return time but no response", op.ID))
		}
		if op.Request == nil && !op.Restart {
			errs = append(errs, fmt.Sprintf("op %d has no request", op.ID))
		}
		if op.Restart && op.Return == Unknown {
			errs = append(errs, fmt.Sprintf("op %d, a restart, has no return time", op.ID))
		}
		if c, ok := lastCall[op.Client]; ok && op.Call < c && !isRedelivery(h, i) {
			// Deliveries may overtake each other across a client's
			// connections, but not its sends on one connection.
			if sameConnEarlier(h, i) {
				errs = append(errs, fmt.Sprintf("op %d of %s was called before an earlier op on the same connection", op.ID, op.Name))
			}
		}
		if op.Call > lastCall[op.Client] {
			lastCall[op.Client] = op.Call
		}
	}
	return errs
}

func isRedelivery(h History, i int) bool {
	for j := 0; j < i; j++ {
		if h[j].Call == h[i].Call && h[j].Client == h[i].Client {
			return true
		}
	}
	return false
}

func sameConnEarlier(h History, i int) bool {
	for j := 0; j < i; j++ {
		if h[j].Conn.ID == h[i].Conn.ID && h[j].Call > h[i].Call {
			return true
		}
	}
	return false
}

// FirstMismatch replays the history partition by partition in delivery
// order and describes the first operation whose recorded response the
// model does not give ("" if there is none in that order).
func FirstMismatch(cfg model.Config, h History) string {
	coords := map[partKey]*model.Coordinator{}
	for i := range h {
		op := &h[i]
		if op.Restart {
			// Partitions that appear later had nothing to restart.
			for _, c := range coords {
				applyOp(c, op)
			}
			continue
		}
		k := partKeyOf(op)
		c := coords[k]
		if c == nil {
			c = model.NewCoordinator(cfg)
			coords[k] = c
		}
		if ok, why := applyOp(c, op); !ok {
			return fmt.Sprintf("op %d (%s): %s", op.ID, describeOp(op), why)
		}
	}
	return ""
}
