package explore

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// worker is one goroutine of the search, with everything it steps and
// encodes with: states are never shared between workers (each rebuilds
// the ones it expands from its own root), so nothing here is locked.
type worker struct {
	cfg      *Config
	classic  bool     // a client is classic
	v0       bool     // a client speaks ConsumerGroupHeartbeat v0
	class    []int    // each slot's symmetry class
	groupIDs []string // the configuration's groups, by name
	groups   []int    // and by number
	clock    settableClock
	ids      idCounter
	// hits counts the clauses the model applies on the transitions the
	// worker explores; counting is off while it replays a path to a state.
	hits     model.ClauseHits
	counting bool
	spare    []*coord // coords to recycle, their impls with them (release, fork)
	pool     pool     // states and slots to recycle (discard, state.clone)

	// transitions and terminal count the worker's since it last told the
	// search.
	transitions, terminal uint64

	menc, ienc []byte // encoded answers, for lockstep
	// answers are what the coordinators answer the explorer's Describes
	// and impl its heartbeats and snapshots in, reused from state to
	// state: compared, encoded and dropped, never kept.
	answers struct {
		modelConsumer, implConsumer codec.ConsumerGroupDescribeResponse
		modelClassic, implClassic   codec.DescribeGroupsResponse
		heartbeat                   codec.ConsumerGroupHeartbeatResponse
		snapshot                    []impl.GroupSnapshot
	}
	// describing is the request settle asks both coordinators on every
	// transition, kept here so that asking it allocates nothing.
	describing struct {
		h        codec.RequestHeader
		consumer codec.ConsumerGroupDescribeRequest
		classic  codec.DescribeGroupsRequest
	}
	timers []timer // the model's, for lockstep
	enc    encoder
	procs  []rules.Process
	names  [][]string
	evs    []event

	// stateForm is how coordinators are encoded (form), and forming the
	// one being encoded (its ids noted by formID).
	stateForm model.StateForm
	forming   *coord

	// path is the states from the root to the last one rebuilt: the next
	// state asked for mostly shares all but its last steps.
	path    []pathStep
	pathIDs []uint32
}

type pathStep struct {
	node uint32
	st   *state
}

func newWorker(cfg *Config) *worker {
	w := &worker{cfg: cfg, hits: model.ClauseHits{}}
	w.stateForm = model.StateForm{RelativeTime: true, NoConns: true, MemberID: w.formID, Request: w.formRequest}
	w.class = symmetryClasses(cfg.Clients)
	for _, cl := range cfg.Clients {
		w.classic = w.classic || cl.Classic
		w.v0 = w.v0 || !cl.Classic && cl.HeartbeatVersion == 0
	}
	seen := map[string]bool{}
	for i, cl := range cfg.Clients {
		if id := cfg.GroupOf(i); !seen[id] {
			seen[id] = true
			w.groupIDs = append(w.groupIDs, id)
			if !cl.Classic || cfg.Protocol != Mixed {
				w.groups = append(w.groups, cl.Group)
			}
		}
	}
	return w
}

// symmetryClasses numbers the clients by configuration: two clients with
// one number are interchangeable. With a classic client there is no
// symmetry: the coordinator's held requests name their connections, which
// are the slots' (2i+1, 2i+2), in the model's part of the form.
func symmetryClasses(cs []Client) []int {
	class := make([]int, len(cs))
	classic := slices.ContainsFunc(cs, func(c Client) bool { return c.Classic })
	for i, c := range cs {
		class[i] = i
		for j := 0; j < i && !classic; j++ {
			if cs[j] == c {
				class[i] = class[j]
				break
			}
		}
	}
	return class
}

// modelConfig is the coordinator's configuration: one topic, the
// configuration's timers, no group size limit.
func (cfg *Config) modelConfig() model.Config {
	mc := model.DefaultConfig(0)
	mc.Topics = []model.Topic{{Name: topicName, ID: model.TopicIDFor(topicName), Partitions: cfg.Partitions}}
	mc.SessionTimeoutMs = cfg.SessionTimeoutMs
	mc.HeartbeatIntervalMs = cfg.HeartbeatIntervalMs
	// Classic groups: the clients' session (the configuration's) within
	// the bounds, the initial delay asked for, a new member's join
	// timeout of two sessions (Kafka's 5 min against a 45 s session: only
	// the order of the deadlines matters).
	mc.ClassicMinSessionTimeoutMs = 1
	mc.ClassicMaxSessionTimeoutMs = 1 << 30
	mc.InitialRebalanceDelayMs = cfg.InitialRebalanceDelayMs
	mc.NewMemberJoinTimeoutMs = int32(2 * cfg.SessionTimeoutMs)
	return mc
}

// root is the initial state: the coordinator empty at time 0, no process
// started, every client with its operations and the path with its faults.
func (w *worker) root() *state {
	co := w.newCoord(w.cfg.modelConfig(), w.cfg.Mutants)
	co.retain()
	s := w.pool.state()
	*s = state{co: co, pool: &w.pool, nextID: 1, faults: w.cfg.MaxFaults, admin: w.cfg.Admin}
	s.slots = s.slotArr[:len(w.cfg.Clients)]
	for i := range s.slots {
		sl := w.pool.slot()
		*sl = slot{refs: 1, ops: w.cfg.Ops}
		s.slots[i] = sl
		s.own |= 1 << i
	}
	return s
}

// discard lets go of a state the worker made and keeps no more.
// The state must not be used after: it and its slots are recycled.
func (w *worker) discard(s *state) {
	w.release(s.co)
	w.pool.put(s)
}

// stateAt rebuilds the state of tree node x at depth from the root along
// the tree's events, reusing the worker's last path where it agrees.
func (w *worker) stateAt(tr *tree, x uint32, depth int) (*state, error) {
	ids := w.pathIDs[:0]
	for j := 0; j <= depth; j++ {
		ids = append(ids, 0)
	}
	for j, y := depth, x; j >= 0; j-- {
		ids[j] = y
		y = tr.nodes[y].parent
	}
	w.pathIDs = ids
	k := 0
	for k < len(w.path) && k <= depth && w.path[k].node == ids[k] {
		k++
	}
	for _, p := range w.path[k:] {
		w.discard(p.st)
	}
	w.path = w.path[:k]
	if k == 0 {
		w.path = append(w.path, pathStep{node: ids[0], st: w.root()})
		k = 1
	}
	counting := w.counting
	w.counting = false
	defer func() { w.counting = counting }()
	for j := k; j <= depth; j++ {
		st, err := w.apply(w.path[j-1].st, tr.nodes[ids[j]].ev)
		if err != nil {
			w.discard(st)
			return nil, err
		}
		w.path = append(w.path, pathStep{node: ids[j], st: st})
	}
	return w.path[depth].st, nil
}

// dropPath lets go of the worker's path.
func (w *worker) dropPath() {
	for _, p := range w.path {
		w.discard(p.st)
	}
	w.path = w.path[:0]
}
