package linearize

// Shrink minimizes a failing plan: it keeps removing pieces (whole clients,
// faults, restarts, actions, admin removals, trailing rounds) while fails still
// reports the failure, and returns the smallest plan found. fails is called
// at most budget times. Under rapid, shrinking is rapid's own; this is for
// seeded runs (ghostcheck run), which must leave a small counterexample too.
func Shrink(p Plan, fails func(Plan) bool, budget int) Plan {
	try := func(q Plan) bool {
		if budget <= 0 || q.Validate() != nil {
			return false
		}
		budget--
		return fails(q)
	}
	for progress := true; progress && budget > 0; {
		progress = false
		// Whole clients, last first.
		for i := len(p.Clients) - 1; i >= 0 && len(p.Clients) > 1; i-- {
			if q := withoutClient(p, i); try(q) {
				p, progress = q, true
			}
		}
		// Faults.
		for i := len(p.Faults) - 1; i >= 0; i-- {
			q := clonePlan(p)
			q.Faults = append(q.Faults[:i:i], q.Faults[i+1:]...)
			if try(q) {
				p, progress = q, true
			}
		}
		// A fault that caused a retry renumbers the requests after it:
		// remove it and move the client's later faults one request back.
		for i := len(p.Faults) - 1; i >= 0; i-- {
			q := clonePlan(p)
			gone := q.Faults[i]
			q.Faults = append(q.Faults[:i:i], q.Faults[i+1:]...)
			for j := range q.Faults {
				if q.Faults[j].Client == gone.Client && q.Faults[j].Request > gone.Request {
					q.Faults[j].Request--
				}
			}
			if try(q) {
				p, progress = q, true
			}
		}
		// Faults on earlier requests.
		for i := range p.Faults {
			if p.Faults[i].Request > 1 {
				q := clonePlan(p)
				q.Faults[i].Request--
				if try(q) {
					p, progress = q, true
				}
			}
		}
		// Admin removals.
		for i := len(p.Admin) - 1; i >= 0; i-- {
			q := clonePlan(p)
			q.Admin = append(q.Admin[:i:i], q.Admin[i+1:]...)
			if try(q) {
				p, progress = q, true
			}
		}
		// Coordinator restarts.
		for i := len(p.Restarts) - 1; i >= 0; i-- {
			q := clonePlan(p)
			q.Restarts = append(q.Restarts[:i:i], q.Restarts[i+1:]...)
			if try(q) {
				p, progress = q, true
			}
		}
		// Probes.
		for i := len(p.Probes) - 1; i >= 0; i-- {
			q := clonePlan(p)
			q.Probes = append(q.Probes[:i:i], q.Probes[i+1:]...)
			if try(q) {
				p, progress = q, true
			}
		}
		// Actions after the first join.
		for ci := range p.Clients {
			for ai := len(p.Clients[ci].Actions) - 1; ai >= 1; ai-- {
				q := clonePlan(p)
				acts := q.Clients[ci].Actions
				q.Clients[ci].Actions = append(acts[:ai:ai], acts[ai+1:]...)
				if try(q) {
					p, progress = q, true
				}
			}
		}
		// Fewer rounds.
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
				if try(q) {
					p, progress = q, true
					break
				}
			}
		}
	}
	return p
}

func clonePlan(p Plan) Plan {
	q := p
	q.Topics = append([]PlanTopic(nil), p.Topics...)
	q.Faults = append([]Fault(nil), p.Faults...)
	q.Admin = append([]AdminRemoval(nil), p.Admin...)
	q.Probes = append([]Probe(nil), p.Probes...)
	q.Restarts = append([]int(nil), p.Restarts...)
	q.Clients = make([]ClientPlan, len(p.Clients))
	for i, c := range p.Clients {
		c.Actions = append([]Action(nil), c.Actions...)
		c.Topics = append([]string(nil), c.Topics...)
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
