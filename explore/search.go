package explore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ghostcheck/ghostcheck/internal/cputime"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// The breadth-first search. States are not kept: the search keeps, per
// state found, its fingerprint (fpSet) and its place in the tree of first
// discoveries (its parent and the event from it: 8 bytes), and rebuilds a
// state when it expands it by replaying the events from the root, the
// worker's last path shared (worker.stateAt). A level's states are
// expanded in tree order, so consecutive states mostly share their whole
// path but the last step: the replay costs about one step per state. What
// one state costs to keep is then about 20 to 30 bytes, whatever its size.

// node is a state in the tree: the state it was first found from and the
// event that led to it.
type node struct {
	parent uint32
	ev     event
}

// tree is the search tree, in breadth-first order: a level's nodes follow
// the previous level's, in the order of their parents.
type tree struct{ nodes []node }

// child is a state found while expanding a chunk of a level.
type child struct {
	n  node
	fp uint64
	// terminal: the state enables no event; v0Ghost: it holds a v0 ghost
	// (worker processes tell the search, which counts the new ones).
	terminal, v0Ghost bool
}

// progressEvery is how often Config.Progress is called.
var progressEvery = time.Second

// chunkStates is how many states a worker takes at a time, at most: a
// level is cut into at least eight chunks per worker (so that none waits
// long at the level's end for another), of at least minChunk states (a
// chunk's first state costs a replay of its whole path).
const (
	chunkStates = 256
	minChunk    = 16
)

// chunkSize is the chunk for a level of n states on workers.
func chunkSize(n, workers int) int {
	if workers <= 1 {
		return chunkStates
	}
	return max(min(n/(8*workers), chunkStates), minChunk)
}

// search is one run of the explorer.
type search struct {
	cfg   *Config
	seen  fpSet
	tree  tree
	start time.Time
	cpu0  time.Duration

	transitions atomic.Uint64
	terminal    atomic.Uint64
	depth       atomic.Int64
	frontier    atomic.Int64
	stop        atomic.Bool
	// v0Ghosts counts the states found holding a v0 ghost (observe.go's
	// membership), v0GhostDepth is the shallowest such state's depth (0:
	// none yet); the search's own goroutine keeps them, from each level's
	// new states (bfs) or as it goes (iddfs).
	v0Ghosts     uint64
	v0GhostDepth int
	// deepened is how many states iterative deepening's last search found
	// (its own set, not seen): the progress line's count.
	deepened atomic.Uint64

	// processes is how many worker processes there are (process.go),
	// sentNodes how many tree nodes they have, workerCPU the CPU time
	// they spent.
	processes int
	sentNodes int
	workerCPU time.Duration

	mu      sync.Mutex
	found   *Violation
	harness error
	stopped string
	hits    model.ClauseHits
}

// Run explores the configuration and reports what it found: every
// reachable state (up to the depth bound) with every invariant holding
// and impl equal to the model on every transition, or the first violation
// with a shortest trace, or where it stopped and why.
func Run(cfg Config) (*Result, error) {
	res, _, err := run(context.Background(), cfg)
	return res, err
}

// RunContext is Run until ctx ends: then the search stops as at a time
// limit (Result.Stopped "interrupted").
func RunContext(ctx context.Context, cfg Config) (*Result, error) {
	res, _, err := run(ctx, cfg)
	return res, err
}

// Validate reports what Run would refuse in cfg.
func Validate(cfg Config) error { return cfg.validate() }

// run is RunContext, and the search itself for tests.
func run(ctx context.Context, cfg Config) (*Result, *search, error) {
	if err := cfg.validate(); err != nil {
		return nil, nil, err
	}
	s := &search{cfg: &cfg, start: time.Now(), cpu0: cputime.Process(), hits: model.ClauseHits{}}
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { s.halt("interrupted") })
		defer stop()
	}
	stopProgress := s.progress()
	var res *Result
	var err error
	if cfg.Strategy == IterativeDeepening {
		res, err = s.iddfs()
	} else {
		res, err = s.bfs()
	}
	stopProgress()
	if err == nil && cfg.Progress != nil {
		p := s.snapshot()
		p.Depth, p.Frontier = res.Depth, res.Frontier
		cfg.Progress(p) // the last word, whenever the search ends
	}
	return res, s, err
}

// progress calls cfg.Progress about once a second until the returned
// function is called (which waits for the goroutine to end).
func (s *search) progress() func() {
	if s.cfg.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				s.cfg.Progress(s.snapshot())
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// snapshot is where the search is now.
func (s *search) snapshot() Progress {
	states := s.seen.len()
	if s.cfg.Strategy == IterativeDeepening {
		states = max(states, s.deepened.Load())
	}
	return Progress{Depth: int(s.depth.Load()), States: states, Transitions: s.transitions.Load(),
		Frontier: int(s.frontier.Load()), Elapsed: time.Since(s.start)}
}

// halt stops the search for why (the first reason stays).
func (s *search) halt(why string) {
	s.mu.Lock()
	if s.stopped == "" {
		s.stopped = why
	}
	s.mu.Unlock()
	s.stop.Store(true)
}

// violate records a violation at the end of path (the events from the
// initial state) and stops the search. The first one recorded stays:
// every one found in a level is equally short.
func (s *search) violate(err error, path []event) {
	v := &Violation{Detail: err.Error()}
	var rv *rules.Violation
	var le *lockstepError
	switch {
	case errors.As(err, &rv):
		v.Rule, v.Detail = rv.Rule, rv.Detail
	case errors.As(err, &le):
		v.Rule = ruleLinearizability
	default:
		s.fail(err)
		return
	}
	if s.cfg.keepGoing {
		return
	}
	v.path = path
	s.record(v)
}

// record keeps v, unless a violation was recorded before, and stops the
// search.
func (s *search) record(v *Violation) {
	s.mu.Lock()
	if s.found == nil {
		s.found = v
	}
	s.mu.Unlock()
	s.halt("violation")
}

// fail stops the search for a failure of the harness itself (the first
// one stays): Run then returns it as its error.
func (s *search) fail(err error) {
	s.mu.Lock()
	if s.harness == nil {
		s.harness = err
	}
	s.mu.Unlock()
	s.halt("harness")
}

// pathTo is the events from the root to tree node x.
func (s *search) pathTo(x uint32) []event {
	var rev []event
	for x != 0 {
		rev = append(rev, s.tree.nodes[x].ev)
		x = s.tree.nodes[x].parent
	}
	out := make([]event, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}

// bfs is the breadth-first search.
func (s *search) bfs() (*Result, error) {
	cfg := s.cfg
	var procs []*procWorker
	workers := make([]*worker, cfg.Workers)
	if s.processWorkers() {
		var err error
		if procs, err = s.startWorkers(cfg.Workers); err != nil {
			return nil, err
		}
		defer closeWorkers(procs)
		s.processes = len(procs)
		s.sentNodes = 1 // the root: each builds its own
		workers = workers[:1]
	}
	for i := range workers {
		workers[i] = newWorker(cfg)
	}
	w0 := workers[0]
	root := w0.root()
	rootFP := w0.fingerprint(root)
	s.seen.insert(rootFP)
	s.tree.nodes = append(s.tree.nodes, node{})
	if cfg.onState != nil {
		cfg.onState(w0, root, rootFP)
	}
	if _, err := w0.checkState(root, len(w0.enabled(root, nil)) == 0); err != nil {
		s.violate(err, nil)
	}
	w0.discard(root)
	levels := []uint64{1}
	lo, hi := 0, 1
	var fps []uint64 // the last level's fingerprints, for the worker processes
	shardDepth := -1
	depth := 0
	for ; !s.stop.Load() && hi > lo; depth++ {
		s.depth.Store(int64(depth))
		s.frontier.Store(int64(hi - lo))
		if cfg.Depth > 0 && depth == cfg.Depth {
			break
		}
		var kids []child
		if procs != nil {
			kids = s.expandLevelProcs(procs, fps, lo, hi, depth)
			fps = fps[:0]
			for _, k := range kids {
				fps = append(fps, k.fp)
			}
		} else {
			kids = s.expandLevel(workers, lo, hi, depth)
		}
		s.countV0Ghosts(kids, depth+1) // before a stop: the level's states were found
		if s.stop.Load() {
			break
		}
		if cfg.Shards > 1 && shardDepth < 0 && len(kids) >= ShardLevelStates*cfg.Shards {
			shardDepth = depth + 1
			kept := kids[:0]
			for _, k := range kids {
				if int(k.fp%uint64(cfg.Shards)) == cfg.Shard {
					kept = append(kept, k)
				}
			}
			kids = kept
		}
		lo = len(s.tree.nodes)
		for _, k := range kids {
			s.tree.nodes = append(s.tree.nodes, k.n)
		}
		hi = len(s.tree.nodes)
		levels = append(levels, uint64(hi-lo))
	}
	for _, w := range workers {
		w.dropPath()
		for c, n := range w.hits {
			s.hits[c] += n
		}
	}
	if procs != nil {
		cpu, err := s.endWorkers(procs)
		s.workerCPU = cpu
		if err != nil {
			s.fail(err)
		}
	}
	if s.harness != nil {
		return nil, s.harness
	}
	res := s.result()
	res.Levels = levels
	res.ShardDepth = shardDepth
	res.Depth = depth
	res.Frontier = hi - lo
	switch {
	case s.stopped != "":
		res.Stopped = s.stopped
		res.Depth = depth
	case hi > lo:
		res.DepthBound = true
	default:
		res.Complete = true
		res.Depth = depth - 1 // the last level found nothing new
	}
	if res.Violation != nil {
		res.Violation.Trace, res.Violation.Steps = traceOf(cfg, res.Violation.path)
		res.Violation.Depth = len(res.Violation.path)
	}
	return res, nil
}

// processWorkers reports whether the workers are processes (process.go):
// with Config.StartWorker, two workers or more, and none of a test's
// hooks (which look at a worker's states).
func (s *search) processWorkers() bool {
	c := s.cfg
	return c.StartWorker != nil && c.Workers > 1 && c.extra == nil && c.onState == nil && c.onEdge == nil && !c.keepGoing
}

// expandLevel expands tree nodes [lo, hi) at depth with the workers and
// returns the new states found, in the order of their parents (in a
// chunk's order when several workers found one state: the first to insert
// it claims it).
func (s *search) expandLevel(workers []*worker, lo, hi, depth int) []child {
	size := chunkSize(hi-lo, len(workers))
	nchunks := (hi - lo + size - 1) / size
	outs := make([][]child, nchunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			for !s.stop.Load() {
				c := int(next.Add(1) - 1)
				if c >= nchunks {
					return
				}
				from := lo + c*size
				outs[c] = s.expandChunk(w, from, min(from+size, hi), depth)
				s.limits()
			}
		}(w)
	}
	wg.Wait()
	var kids []child
	for _, o := range outs {
		kids = append(kids, o...)
	}
	return kids
}

// limits stops the search when it is out of memory or time.
func (s *search) limits() {
	if s.cfg.MemoryBytes > 0 && s.memory() > s.cfg.MemoryBytes {
		s.halt("memory")
	}
	if s.cfg.TimeLimit > 0 && time.Since(s.start) > s.cfg.TimeLimit {
		s.halt("time")
	}
}

// memory is what the search keeps: the fingerprints and the tree, and a
// copy of both in each worker process.
func (s *search) memory() int64 {
	return (s.seen.bytes.Load() + int64(cap(s.tree.nodes))*8) * int64(1+s.processes)
}

// expandChunk expands tree nodes [from, to) at depth.
func (s *search) expandChunk(w *worker, from, to, depth int) []child {
	// The counts go to the search once a chunk: the workers share no
	// cache line per transition.
	defer func() {
		s.transitions.Add(w.transitions)
		s.terminal.Add(w.terminal)
		w.transitions, w.terminal = 0, 0
	}()
	var out []child
	for x := from; x < to && !s.stop.Load(); x++ {
		st, err := w.stateAt(&s.tree, uint32(x), depth)
		if err != nil {
			s.violate(fmt.Errorf("explore: replaying the path to a state found before: %w", err), nil)
			return out
		}
		out = s.expand(w, uint32(x), st, out)
	}
	return out
}

// expand tries every event enabled in st (tree node x): each transition is
// held to lockstep and the transition rules; each state new to the search
// to the invariants.
func (s *search) expand(w *worker, x uint32, st *state, out []child) []child {
	w.counting = true
	evs := w.enabled(st, w.evs[:0])
	w.evs = evs
	for _, e := range evs {
		t, err := w.apply(st, e)
		w.transitions++
		if err == nil {
			err = w.checkTransition(st, t)
		}
		if err != nil {
			s.violate(err, append(s.pathTo(x), e))
			if !s.cfg.keepGoing {
				w.discard(t)
				return out
			}
		}
		fp := w.fingerprint(t)
		isNew := s.seen.insert(fp)
		if s.cfg.onEdge != nil {
			s.cfg.onEdge(t, fp, isNew)
		}
		if isNew {
			terminal := len(w.enabled(t, w.evs[len(w.evs):])) == 0
			if terminal {
				w.terminal++
			}
			v0Ghost, err := w.checkState(t, terminal)
			if err != nil {
				s.violate(err, append(s.pathTo(x), e))
				if !s.cfg.keepGoing {
					w.discard(t)
					return out
				}
			}
			out = append(out, child{n: node{parent: x, ev: e}, fp: fp, terminal: terminal, v0Ghost: v0Ghost})
			if s.cfg.onState != nil {
				s.cfg.onState(w, t, fp)
			}
		}
		w.discard(t)
	}
	return out
}

// countV0Ghosts counts the states of kids, new at depth, that hold a v0
// ghost.
func (s *search) countV0Ghosts(kids []child, depth int) {
	for _, k := range kids {
		if k.v0Ghost {
			s.v0Ghosts++
		}
	}
	if s.v0Ghosts > 0 && s.v0GhostDepth == 0 {
		s.v0GhostDepth = depth
	}
}

// result is the counts of the search so far.
func (s *search) result() *Result {
	r := &Result{
		Config:       s.cfg.Describe(),
		States:       s.seen.len(),
		Transitions:  s.transitions.Load(),
		Terminal:     s.terminal.Load(),
		V0Ghosts:     s.v0Ghosts,
		V0GhostDepth: s.v0GhostDepth,
		Elapsed:      time.Since(s.start),
		CPU:          cputime.Process() - s.cpu0 + s.workerCPU,
		MemoryBytes:  s.memory(),
		Clauses:      s.hits,
		Violation:    s.found,
		Shard:        s.cfg.Shard,
		Shards:       s.cfg.Shards,
	}
	return r
}
