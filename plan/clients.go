package plan

// The client processes of a plan and what each does when: drawn first
// (drawClients, with each life's actions), then reshaped by the draws
// that come after the plan's faults and restarts, each in generate's
// order, so that a seed keeps the rest of its plan.

import (
	"fmt"
	"sort"
)

func drawClients(d drawer, o Options, rounds int) []ClientPlan {
	topicSets := [][]string{{"alpha"}, {"alpha", "beta"}, {"beta", "gamma"}, {"alpha", "beta", "gamma"}}
	var clients []ClientPlan
	for i := 0; i < o.Clients; i++ {
		c := ClientPlan{
			Name:             fmt.Sprintf("c%d", i),
			Group:            fmt.Sprintf("g%d", i%o.Groups),
			HeartbeatVersion: 1,
			Topics:           topicSets[d.intn("topics", len(topicSets))],
			Seed:             uint64(d.intn("client seed", 1<<30)) + 1,
		}
		switch o.HeartbeatVersion {
		case 0:
			c.HeartbeatVersion = 0
		case -1:
			c.HeartbeatVersion = int16(d.intn("version", 2))
		}
		if d.intn("static", 100) < o.StaticPercent {
			c.InstanceID = fmt.Sprintf("inst-%d", i)
		}
		c.Actions = drawActions(d, o, c.InstanceID != "", rounds)
		clients = append(clients, c)
	}
	return clients
}

func drawActions(d drawer, o Options, static bool, rounds int) []Action {
	r := d.intn("join round", rounds/4)
	acts := []Action{{Round: r, Kind: Join}}
	// A close right after the join (before its response, with a delayed
	// response fault) is KAFKA-17116's race.
	if d.intn("early close", 10) == 0 {
		return append(acts, Action{Round: r + 1, Kind: Close})
	}
	for r < rounds-4 {
		r += 2 + d.intn("gap", rounds/3)
		if r >= rounds-1 {
			break
		}
		switch d.intn("action", 8) {
		case 0:
			if o.Leaves {
				acts = append(acts, Action{Round: r, Kind: Leave}, Action{Round: r + 1 + d.intn("rejoin gap", 6), Kind: Join})
				r = acts[len(acts)-1].Round
			}
		case 1:
			if static && o.Leaves {
				acts = append(acts, Action{Round: r, Kind: StaticLeave}, Action{Round: r + 1 + d.intn("rejoin gap", 4), Kind: Join})
				r = acts[len(acts)-1].Round
			}
		case 2:
			if o.Resets {
				acts = append(acts, Action{Round: r, Kind: Reset})
			}
		case 3:
			if o.Telemetry {
				acts = append(acts, Action{Round: r, Kind: Telemetry})
			}
		case 4:
			if o.Crashes {
				return append(acts, Action{Round: r, Kind: Crash})
			}
		case 5:
			return append(acts, Action{Round: r, Kind: Close})
		}
	}
	return acts
}

func drawStaticRestarts(d drawer, clients []ClientPlan, rounds int) []ClientPlan {
	out := clients
	for i, c := range clients {
		if c.InstanceID == "" || d.intn("static restart", 2) != 0 {
			continue
		}
		start, end := c.Actions[0].Round, rounds-4
		if last := c.Actions[len(c.Actions)-1]; last.Kind == Close || last.Kind == Crash {
			end = min(end, last.Round)
		}
		at := start + 2 + d.intn("static restart round", max(end-start-2, 1))
		gap := 1 + d.intn("static restart gap", 2)
		seed := uint64(d.intn("client seed", 1<<30)) + 1
		if at >= end {
			continue
		}
		var acts []Action
		for _, a := range c.Actions {
			if a.Round < at {
				acts = append(acts, a)
			}
		}
		clients[i].Actions = append(acts, Action{Round: at, Kind: Close})
		out = append(out, ClientPlan{Name: fmt.Sprintf("c%d", len(out)), Group: c.Group, InstanceID: c.InstanceID,
			HeartbeatVersion: c.HeartbeatVersion, Topics: c.Topics, Seed: seed, Actions: []Action{{Round: at + gap, Kind: Join}}})
	}
	return out
}

func drawStaticCrashes(d drawer, clients []ClientPlan, base int) {
	for j := base; j < len(clients); j++ {
		for i := 0; i < base && i < len(clients); i++ {
			c := &clients[i]
			if c.InstanceID == "" || c.InstanceID != clients[j].InstanceID || c.Group != clients[j].Group || len(c.Actions) == 0 {
				continue
			}
			if last := &c.Actions[len(c.Actions)-1]; last.Kind == Close && d.intn("static crash", 3) == 0 {
				last.Kind = Crash
			}
		}
	}
}

var resubscriptions = []Action{
	{Topics: []string{"alpha"}}, {Topics: []string{"beta", "gamma"}}, {Topics: []string{"alpha", "gamma"}},
	{Regex: "a.*"}, {Regex: "(beta|gamma)"}, {Regex: ".*a"},
}

func drawResubscribes(d drawer, clients []ClientPlan, rounds int) {
	for i := range clients {
		c := &clients[i]
		pick, at, back := d.intn("resubscribe", 3*len(resubscriptions)), d.intn("resubscribe round", rounds), d.intn("resubscribe back", 2) == 0
		if pick >= len(resubscriptions) || len(c.Actions) == 0 {
			continue
		}
		a := resubscriptions[pick]
		if a.Regex != "" && c.HeartbeatVersion < 1 {
			a = resubscriptions[pick%3]
		}
		a.Round, a.Kind = at, Resubscribe
		insertAction(c, a)
		if back && at+8 < rounds {
			insertAction(c, Action{Round: at + 8, Kind: Resubscribe, Topics: append([]string(nil), c.Topics...)})
		}
	}
}

func drawOldClients(d drawer, clients []ClientPlan, rounds int) {
	for i := range clients {
		c := &clients[i]
		c.ClientIDEvery = d.intn("old client", 4) == 0
		if rename, at := d.intn("rename", 4) == 0, d.intn("rename round", rounds); rename && len(c.Actions) > 0 {
			insertAction(c, Action{Round: at, Kind: RenameClient})
		}
	}
}

// drawNullOwned has about half the clients send TopicPartitions null on a
// heartbeat whose owned partitions did not change, as Java's consumer does.
func drawNullOwned(d drawer, clients []ClientPlan) {
	for i := range clients {
		clients[i].NullOwned = d.intn("null owned", 2) == 0
	}
}

func insertAction(c *ClientPlan, a Action) {
	first := c.Actions[0].Round
	if a.Round <= first {
		a.Round = first + 1
	}
	if last := c.Actions[len(c.Actions)-1]; (last.Kind == Close || last.Kind == Crash) && a.Round >= last.Round {
		return
	}
	i := sort.Search(len(c.Actions), func(i int) bool { return c.Actions[i].Round > a.Round })
	c.Actions = append(c.Actions[:i], append([]Action{a}, c.Actions[i:]...)...)
}

// drawRareInputs draws, after everything else (a seed keeps the rest of
// its plan), what the run's clients otherwise never send the model: about
// one client in six rack-aware and one in six naming the assignor on its
// joins, the observer asking for authorized operations in one plan in
// four, and about one assignment probe every 30 rounds.
func drawRareInputs(d drawer, p *Plan) {
	for i := range p.Clients {
		c := &p.Clients[i]
		if d.intn("rack id", 6) == 0 {
			c.RackID = fmt.Sprintf("rack-%d", d.intn("rack", 3))
		}
		if d.intn("server assignor", 6) == 0 {
			c.ServerAssignor = "uniform"
		}
	}
	p.DescribeOps = d.intn("describe ops", 4) == 0
	kinds := assignmentProbeKinds()
	groups := p.Groups()
	for r := 10 + d.intn("assignment probes start", 20); r < p.Rounds; r += 20 + d.intn("assignment probes gap", 20) {
		p.Probes = append(p.Probes, Probe{Round: r, Kind: kinds[d.intn("assignment probe kind", len(kinds))],
			Group: groups[d.intn("assignment probe group", len(groups))], Pick: d.intn("assignment probe pick", 16)})
	}
}
