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
	rep.Linearizable, rep.CheckTime, mismatch = checkLinearizable(cfg, res.History, rep.budget)
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
			rep.Mismatch = firstMismatch(cfg, res.History)
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
func checkLinearizable(cfg model.Config, h history.History, timeout time.Duration) (porcupine.CheckResult, time.Duration, string) {
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
	res := porcupine.CheckOperationsTimeout(porcupineModel(cfg), PorcupineOps(rest), left)
	return res, time.Since(start), ""
}

// checkSequentialPartitions replays, on the model, every partition whose
// operations are totally ordered by their intervals, spreading partitions
// over the CPUs. It returns the first mismatch found ("" if every such
// partition is legal) and the operations of the partitions it could not
// decide this way.
func checkSequentialPartitions(cfg model.Config, h history.History) (string, history.History) {
	all := make([]*history.Op, len(h))
	for i := range h {
		all[i] = &h[i]
	}
	keys, parts := partitionOps(all, func(op *history.Op) *history.Op { return op })
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

// totallyOrdered reports whether each operation (sorted by call) returns
// before the next one is called.
func totallyOrdered(ops []*history.Op) bool {
	for i := 0; i+1 < len(ops); i++ {
		if ops[i].Return == history.Never || ops[i].Return >= ops[i+1].Call {
			return false
		}
	}
	return true
}

// firstMismatch replays the history partition by partition in delivery
// order and describes the first operation whose recorded response the
// model does not give ("" if there is none in that order).
func firstMismatch(cfg model.Config, h history.History) string {
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
			return fmt.Sprintf("op %d (%s): %s", op.ID, history.Describe(op), why)
		}
	}
	return ""
}
