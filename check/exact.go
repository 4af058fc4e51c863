package check

import (
	"fmt"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model"
)

// checkExact is Check at LevelExact.
func checkExact(res *driver.Result, opts Options) *Report {
	cfg := res.Plan.ModelConfig()
	rep := &Report{Invariants: res.Violations, budget: opts.timeout()}
	if errs := append(append([]string(nil), res.HarnessErrors...), assumptions(res.History)...); len(errs) > 0 {
		rep.Verdict, rep.Rule, rep.Detail = history.Unknown, string(rules.RuleHarnessAssumption), errs[0]
		return rep
	}
	var mismatch string
	ctx := newReplayCtx(res.History)
	rep.Linearizable, rep.CheckTime, mismatch = checkLinearizable(cfg, res.History, rep.budget, ctx)
	switch {
	case len(res.Violations) > 0:
		v := res.Violations[0]
		rep.Verdict, rep.Rule = history.Illegal, v.Rule
		rep.Detail = fmt.Sprintf("round %d (t=%d ms): %s", v.Round, v.At, v.What)
	case rep.Linearizable == porcupine.Illegal:
		rep.Verdict, rep.Rule = history.Illegal, string(rules.RuleLinearizability)
		rep.Detail = "no sequential order of the history is legal under the model"
	case rep.Linearizable == porcupine.Unknown:
		rep.Verdict, rep.Rule = history.Unknown, string(rules.RuleLinearizability)
		rep.Detail = fmt.Sprintf("the linearizability search timed out after %v", rep.CheckTime)
	default:
		rep.Verdict = history.Ok
	}
	if rep.Linearizable == porcupine.Illegal {
		rep.Mismatch = mismatch
		if rep.Mismatch == "" {
			rep.Mismatch = firstMismatch(cfg, res.History, ctx)
		}
		if rep.Rule == string(rules.RuleLinearizability) && rep.Mismatch != "" {
			rep.Detail = rep.Mismatch
		}
	}
	return rep
}

// checkLinearizable checks h against the model within timeout. When a
// totally ordered partition fails, it also describes the failing operation
// (the earliest of those the parallel replay reached).
func checkLinearizable(cfg model.Config, h history.History, timeout time.Duration, ctx *replayCtx) (porcupine.CheckResult, time.Duration, string) {
	start := time.Now()
	// A partition whose operations never overlap in time has one order
	// only: replay it on a single coordinator, without the search (and
	// its copies of the state). Porcupine gets the rest.
	mismatch, rest := checkSequentialPartitions(cfg, h, ctx)
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
	res := porcupine.CheckOperationsTimeout(porcupineModel(cfg, ctx), PorcupineOps(rest), left)
	return res, time.Since(start), ""
}

// checkSequentialPartitions replays, on the model, every partition whose
// operations are totally ordered by their intervals, spreading partitions
// over the CPUs. It returns the first mismatch found ("" if every such
// partition is legal) and the operations of the partitions it could not
// decide this way.
func checkSequentialPartitions(cfg model.Config, h history.History, ctx *replayCtx) (string, history.History) {
	all := make([]*history.Op, len(h))
	for i := range h {
		all[i] = &h[i]
	}
	self := func(op *history.Op) *history.Op { return op }
	keys, parts := partitionOps(all, self)
	if ctx != nil {
		restrictRestarts(parts, self, func(_, op *history.Op) *history.Op { return op })
	}
	var rest history.History
	var seq [][]*history.Op
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
	work := make(chan []*history.Op, len(seq))
	for _, ops := range seq {
		work <- ops
	}
	close(work)
	// The caller is one of the workers: on one CPU no goroutine is started
	// (and grows its stack afresh) per history.
	var wg sync.WaitGroup
	replay := func() {
		defer wg.Done()
		r := replayer{ctx: ctx}
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
						mismatch = fmt.Sprintf("op %d (%s): %s", op.ID, history.Describe(op), why)
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

// totallyOrdered reports whether each operation (sorted by call) was
// handled before the next one is called: returned, or for a parked one
// parked (its answer is judged where it was released).
func totallyOrdered(ops []*history.Op) bool {
	for i := 0; i+1 < len(ops); i++ {
		if end := ops[i].HandledAt(); end == history.Never || end >= ops[i+1].Call {
			return false
		}
	}
	return true
}

// firstMismatch replays the history partition by partition in delivery
// order and describes the first operation whose recorded response the
// model does not give ("" if there is none in that order).
func firstMismatch(cfg model.Config, h history.History, ctx *replayCtx) string {
	coords := map[partKey]*model.Coordinator{}
	for i := range h {
		op := &h[i]
		if op.Restart {
			// Partitions that appear later had nothing to restart.
			for k, c := range coords {
				applyOp(c, restartIn(op, k, ctx), ctx)
			}
			continue
		}
		k := partKeyOf(op)
		c := coords[k]
		if c == nil {
			c = model.NewCoordinator(cfg)
			coords[k] = c
		}
		if ok, why := applyOp(c, op, ctx); !ok {
			return fmt.Sprintf("op %d (%s): %s", op.ID, history.Describe(op), why)
		}
	}
	return ""
}

// restartIn is restart op as partition k's coordinator takes it: with
// only the releases of k's own operations.
func restartIn(op *history.Op, k partKey, ctx *replayCtx) *history.Op {
	if len(op.Releases) == 0 {
		return op
	}
	own := *op
	own.Releases = nil
	for _, id := range op.Releases {
		if w := ctx.op(id); w != nil && partKeyOf(w) == k {
			own.Releases = append(own.Releases, id)
		}
	}
	return &own
}
