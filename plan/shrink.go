package plan

import (
	"maps"
)

// Shrink minimizes a failing plan: it keeps removing pieces (whole clients,
// faults, restarts, actions, admin removals, trailing rounds) while fails still
// reports the failure, and returns the smallest plan found. fails is called
// at most budget times. Under rapid, shrinking is rapid's own; this is for
// seeded runs (ghostcheck run), which must leave a small counterexample too.
func Shrink(p Plan, fails func(Plan) bool, budget int) Plan {
	s := &shrinker{p: p, fails: fails, budget: budget}
	passes := []func() bool{
		s.dropClients,
		func() bool { return s.dropEach(len(s.p.Faults), dropFault) },
		func() bool { return s.dropEach(len(s.p.Faults), dropFaultRenumbering) },
		s.earlierFaults,
		func() bool { return s.dropEach(len(s.p.Admin), dropAdmin) },
		func() bool { return s.dropEach(len(s.p.Restarts), dropRestart) },
		func() bool { return s.dropEach(len(s.p.Probes), dropProbe) },
		s.dropActions,
		s.plainer,
		s.fewerRounds,
	}
	for progress := true; progress && s.budget > 0; {
		progress = false
		for _, pass := range passes {
			if pass() {
				progress = true
			}
		}
	}
	return s.p
}

// shrinker is the state of one Shrink: the smallest failing plan so far
// and the calls of fails left.
type shrinker struct {
	p      Plan
	fails  func(Plan) bool
	budget int
}

// keep adopts q when it is valid, the budget allows one more call, and q
// still fails.
func (s *shrinker) keep(q Plan) bool {
	if s.budget <= 0 || q.Validate() != nil {
		return false
	}
	s.budget--
	if !s.fails(q) {
		return false
	}
	s.p = q
	return true
}

// dropEach tries, last first, each of the n elements of a list of the
// plan without it (drop edits a copy of the plan).
func (s *shrinker) dropEach(n int, drop func(q *Plan, i int)) bool {
	progress := false
	for i := n - 1; i >= 0; i-- {
		q := clonePlan(s.p)
		drop(&q, i)
		if s.keep(q) {
			progress = true
		}
	}
	return progress
}

// dropClients tries without each client, last first, keeping at least one.
func (s *shrinker) dropClients() bool {
	progress := false
	for i := len(s.p.Clients) - 1; i >= 0 && len(s.p.Clients) > 1; i-- {
		if s.keep(withoutClient(s.p, i)) {
			progress = true
		}
	}
	return progress
}

// earlierFaults tries each fault on the request before its own.
func (s *shrinker) earlierFaults() bool {
	progress := false
	for i := range s.p.Faults {
		if s.p.Faults[i].Request > 1 {
			q := clonePlan(s.p)
			q.Faults[i].Request--
			if s.keep(q) {
				progress = true
			}
		}
	}
	return progress
}

// dropActions tries without each action of a client after its first join.
func (s *shrinker) dropActions() bool {
	progress := false
	for ci := range s.p.Clients {
		for ai := len(s.p.Clients[ci].Actions) - 1; ai >= 1; ai-- {
			q := clonePlan(s.p)
			acts := q.Clients[ci].Actions
			q.Clients[ci].Actions = append(acts[:ai:ai], acts[ai+1:]...)
			if s.keep(q) {
				progress = true
			}
		}
	}
	return progress
}

// plainer tries the plan without each of the broadening settings that is on:
// connection ids reused, requests off the round grid, version and group
// size caps, and each client's old-style ClientId and null owned
// partitions.
func (s *shrinker) plainer() bool {
	progress := false
	try := func(on bool, off func(q *Plan)) {
		if !on {
			return
		}
		q := clonePlan(s.p)
		off(&q)
		if s.keep(q) {
			progress = true
		}
	}
	try(s.p.ReuseConnIDs, func(q *Plan) { q.ReuseConnIDs = false })
	try(s.p.EdgeMs > 0, func(q *Plan) { q.EdgeMs = 0 })
	try(s.p.SubRoundMs > 0, func(q *Plan) { q.SubRoundMs, q.EdgeMs = 0, 0 })
	try(len(s.p.MaxVersions) > 0, func(q *Plan) { q.MaxVersions = nil })
	try(s.p.MaxGroupSize > 0, func(q *Plan) { q.MaxGroupSize = 0 })
	try(s.p.InitialRebalanceDelayMs > 0, func(q *Plan) { q.InitialRebalanceDelayMs = 0 })
	for i := range s.p.Clients {
		try(s.p.Clients[i].ClientIDEvery, func(q *Plan) { q.Clients[i].ClientIDEvery = false })
		try(s.p.Clients[i].NullOwned, func(q *Plan) { q.Clients[i].NullOwned = false })
	}
	return progress
}

// fewerRounds tries a half, three quarters, then all but one of the
// rounds (dropping the restarts past the end), keeping the first that
// fails.
func (s *shrinker) fewerRounds() bool {
	p := s.p
	for _, r := range []int{p.Rounds / 2, p.Rounds * 3 / 4, p.Rounds - 1} {
		if r >= 1 && r < p.Rounds {
			q := clonePlan(p)
			q.Rounds = r
			q.Restarts = nil
			for _, at := range p.Restarts {
				if at < r {
					q.Restarts = append(q.Restarts, at)
				}
			}
			q.ClusterFaults = clusterFaultsBefore(p.ClusterFaults, r)
			if s.keep(q) {
				return true
			}
		}
	}
	return false
}

func dropFault(q *Plan, i int) { q.Faults = append(q.Faults[:i:i], q.Faults[i+1:]...) }

// dropFaultRenumbering removes a fault that caused a retry, which
// renumbers the requests after it: the client's later faults move one
// request back.
func dropFaultRenumbering(q *Plan, i int) {
	gone := q.Faults[i]
	q.Faults = append(q.Faults[:i:i], q.Faults[i+1:]...)
	for j := range q.Faults {
		if q.Faults[j].Client == gone.Client && q.Faults[j].Request > gone.Request {
			q.Faults[j].Request--
		}
	}
}

func dropAdmin(q *Plan, i int) { q.Admin = append(q.Admin[:i:i], q.Admin[i+1:]...) }

func dropRestart(q *Plan, i int) { q.Restarts = append(q.Restarts[:i:i], q.Restarts[i+1:]...) }

func dropProbe(q *Plan, i int) { q.Probes = append(q.Probes[:i:i], q.Probes[i+1:]...) }

func clonePlan(p Plan) Plan {
	q := p
	q.Topics = append([]Topic(nil), p.Topics...)
	q.Faults = append([]Fault(nil), p.Faults...)
	q.Admin = append([]AdminRemoval(nil), p.Admin...)
	q.Probes = append([]Probe(nil), p.Probes...)
	q.Restarts = append([]int(nil), p.Restarts...)
	q.ClusterFaults = append([]ClusterFault(nil), p.ClusterFaults...)
	q.MaxVersions = maps.Clone(p.MaxVersions)
	for i := range q.Admin {
		q.Admin[i].Entries = append([]LeaveEntry(nil), p.Admin[i].Entries...)
		q.Admin[i].InstanceIDs = append([]string(nil), p.Admin[i].InstanceIDs...)
	}
	q.Clients = make([]ClientPlan, len(p.Clients))
	for i, c := range p.Clients {
		c.Actions = append([]Action(nil), c.Actions...)
		c.Topics = append([]string(nil), c.Topics...)
		if c.Classic != nil {
			cc := *c.Classic
			c.Classic = &cc
		}
		q.Clients[i] = c
	}
	return q
}

// withoutClient drops client i and renumbers the faults of later clients.
func withoutClient(p Plan, i int) Plan {
	q := clonePlan(p)
	q.Clients = append(q.Clients[:i:i], q.Clients[i+1:]...)
	var faults []Fault
	for _, f := range q.Faults {
		switch {
		case f.Client == i:
			continue
		case f.Client > i:
			f.Client--
		}
		faults = append(faults, f)
	}
	q.Faults = faults
	return q
}

// Size is a plan's size for reporting shrinking: clients, actions
// (including admin removals and probes), faults (including coordinator
// restarts).
func (p *Plan) Size() (clients, actions, faults int) {
	for _, c := range p.Clients {
		actions += len(c.Actions)
	}
	return len(p.Clients), actions + len(p.Admin) + len(p.Probes), len(p.Faults) + len(p.Restarts)
}

// clusterFaultsBefore are the cluster faults before round r, without a
// broker left down (its fault dropped with the up that would follow).
func clusterFaultsBefore(fs []ClusterFault, r int) []ClusterFault {
	var out []ClusterFault
	up := map[int32]bool{}
	for _, f := range fs {
		if f.Kind == BrokerUp && f.Round < r {
			up[f.Broker] = true
		}
	}
	for _, f := range fs {
		if f.Round < r && (f.Kind != BrokerDown || up[f.Broker]) {
			out = append(out, f)
		}
	}
	return out
}
