package explore

// The iterative deepening search: depth-first searches to depth 1, 2, ...,
// each pruning a state found before at the same depth or less (a map of
// fingerprints to depths), so that each finds every state within its
// depth, by a shortest path. The first violation found is then at the
// smallest depth, as breadth-first finds it. It keeps a stack of states
// instead of a tree, and repeats the shallow levels once per depth.

func (s *search) iddfs() (*Result, error) {
	cfg := s.cfg
	w := newWorker(cfg)
	var seen map[uint64]uint8
	var stack []event
	complete := false
	limit := 1
	for ; !s.stop.Load(); limit++ {
		seen = map[uint64]uint8{}
		s.transitions.Store(0)
		s.terminal.Store(0)
		s.v0Ghosts, s.v0GhostDepth = 0, 0
		s.depth.Store(int64(limit))
		root := w.root()
		seen[w.fingerprint(root)] = 0
		if _, err := w.checkState(root, len(w.enabled(root, nil)) == 0); err != nil {
			s.violate(err, nil)
			w.discard(root)
			break
		}
		cut := false
		s.dfs(w, root, 0, limit, seen, &stack, &cut)
		w.discard(root)
		s.deepened.Store(uint64(len(seen))) // for the progress line
		if !cut || (cfg.Depth > 0 && limit >= cfg.Depth) {
			complete = !cut
			break
		}
	}
	for c, n := range w.hits {
		s.hits[c] += n
	}
	for fp := range seen { // the last depth's states, as breadth-first keeps them
		s.seen.insert(fp)
	}
	if s.harness != nil {
		return nil, s.harness
	}
	res := s.result()
	res.States = uint64(len(seen))
	res.Depth = limit
	res.ShardDepth = -1
	switch {
	case s.stopped != "":
		res.Stopped = s.stopped
	case complete:
		res.Complete = true
	default:
		res.DepthBound = true
	}
	if res.Violation != nil {
		res.Violation.Trace, res.Violation.Steps = traceOf(cfg, res.Violation.path)
		res.Violation.Depth = len(res.Violation.path)
	}
	return res, nil
}

// dfs explores below st (at depth d) to limit; cut is set when a state at
// the limit has an event enabled (the search is not complete at it).
func (s *search) dfs(w *worker, st *state, d, limit int, seen map[uint64]uint8, stack *[]event, cut *bool) {
	if s.stop.Load() {
		return
	}
	s.limits()
	w.counting = true
	evs := w.enabled(st, nil)
	if d == limit {
		if len(evs) > 0 {
			*cut = true
		}
		return
	}
	for _, e := range evs {
		t, err := w.apply(st, e)
		s.transitions.Add(1)
		if err == nil {
			err = w.checkTransition(st, t)
		}
		*stack = append(*stack, e)
		if err != nil {
			w.discard(t)
			s.violate(err, append([]event(nil), *stack...))
			return
		}
		fp := w.fingerprint(t)
		if old, ok := seen[fp]; ok && int(old) <= d+1 {
			w.discard(t)
			*stack = (*stack)[:len(*stack)-1]
			continue
		} else if !ok {
			terminal := len(w.enabled(t, nil)) == 0
			if terminal {
				s.terminal.Add(1)
			}
			v0Ghost, err := w.checkState(t, terminal)
			if err != nil {
				w.discard(t)
				s.violate(err, append([]event(nil), *stack...))
				return
			}
			if v0Ghost {
				s.v0Ghosts++
				if s.v0GhostDepth == 0 || d+1 < s.v0GhostDepth {
					s.v0GhostDepth = d + 1
				}
			}
		}
		seen[fp] = uint8(d + 1)
		s.dfs(w, t, d+1, limit, seen, stack, cut)
		w.discard(t)
		*stack = (*stack)[:len(*stack)-1]
		if s.stop.Load() {
			return
		}
	}
}
