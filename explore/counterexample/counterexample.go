// Package counterexample turns a violation the explorer found into a plan
// of `ghostcheck run` that reproduces it, so that it can be kept as a
// corpus history: replayed by `ghostcheck replay` and `go test ./corpus`,
// told by run's story page.
//
// The explorer's trace interleaves events at an instant in any order; the
// driver (package driver) moves in rounds, each with its phases (answers
// arrive, requests time out, clients act, requests arrive), its clients
// heartbeating by themselves and asking ApiVersions first on every
// connection. A trace is not a plan, then, and the one is made from the
// other by translation and search: the trace's operations become actions
// at the rounds their times map to, its faults become faults of the
// requests they hit (numbered as the driver numbers a process's requests,
// ApiVersions included), its restarts and admin LeaveGroups rounds of
// their own; a few roundings of time are tried, then mappings that follow
// the driver's phases (phased.go), and the first plan whose run the checks
// find Illegal is kept. A classic client of the trace (either protocol's,
// or both in a mixed configuration) is a classic client of the plan, at
// times scaled to the plan's limits (scale). A trace that no candidate
// reproduces is said so (Reproduce's error), and the explorer's own
// command reproduces it still.
package counterexample

import (
	"errors"
	"fmt"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/explore"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/plan"
)

// Found is a plan that reproduces a violation, and its run.
type Found struct {
	// Header is the corpus file's header: the plan, the target (impl
	// with the mutant, or the model), and the verdict the run got.
	Header history.FileHeader
	Run    *driver.Result
	Report *check.Report
}

// ErrNotReproduced is Reproduce's error when no candidate plan's run is
// Illegal.
var ErrNotReproduced = errors.New("counterexample: no plan of the driver reproduced the trace")

// Reproduce searches for a plan whose run is Illegal the way the
// explorer's trace v is, on cfg's configuration (mutant, clients, timers).
func Reproduce(cfg explore.Config, v *explore.Violation) (*Found, error) {
	if v == nil || len(v.Steps) == 0 {
		return nil, errors.New("counterexample: no trace")
	}
	target, mutant := "model", ""
	if cfg.Mutants.Any() {
		target, mutant = "impl", cfg.Mutants.String()
	}
	for _, c := range candidates(cfg) {
		p, err := translate(cfg, v.Steps, c)
		if err != nil {
			return nil, err
		}
		t, err := targets.New(target, p, mutant)
		if err != nil {
			return nil, err
		}
		res, err := driver.Run(t, p)
		if err != nil {
			return nil, err
		}
		rep := check.Check(res, check.Options{Timeout: 10 * time.Second})
		if rep.Verdict != history.Illegal {
			continue
		}
		h := history.FileHeader{Target: target, Mutant: mutant, Plan: p,
			Title:  fmt.Sprintf("explore: %s in %d events (%s)", v.Rule, v.Depth, cfg.Describe()),
			Expect: history.Expect{Verdict: rep.Verdict, Rule: rep.Rule, Linearizable: string(rep.Linearizable)}}
		return &Found{Header: h, Run: res, Report: rep}, nil
	}
	return nil, ErrNotReproduced
}

// candidate is one way of mapping the trace's time onto rounds.
type candidate struct {
	roundMs int64
	// spread puts the operations of one instant one round apart, in the
	// trace's order; otherwise they share the instant's round.
	spread bool
	// phased follows the driver's phases instead (phased.go): each step
	// goes to the first round whose phase for it comes after the step
	// before, and a message the trace moves later than the driver would
	// is delayed by the rounds between.
	phased bool
}

// candidates are the mappings tried, finest first: a round of a tenth,
// a fifth, a half and all of a heartbeat interval.
func candidates(cfg explore.Config) []candidate {
	var out []candidate
	sc := scaleOf(cfg)
	hb := sc.ms(int64(cfg.HeartbeatIntervalMs))
	for _, div := range []int64{10, 5, 2, 1} {
		r := max(hb/div, 1)
		out = append(out, candidate{roundMs: r, spread: true}, candidate{roundMs: r})
	}
	for _, div := range []int64{10, 20, 50} {
		out = append(out, candidate{roundMs: max(hb/div, 1), phased: true})
	}
	return out
}

// scale maps the explorer's milliseconds onto the plan's: num/den. Only
// the ratios of the explorer's timers matter, and a plan's coordinator
// and classic clients have limits of their own: a classic JoinGroup's
// session timeout at least plan.ClassicMinSessionTimeoutMs, and a classic
// client that awaits a JoinGroup's answer for its rebalance timeout and
// 5 s (plan.ClassicClient.JoinTimeoutMs), where the explorer's awaits it
// for the rebalance timeout and a request timeout. With a classic client,
// then, a request timeout becomes 5 s (the ratios kept), or more if the
// session would fall below the minimum; a consumer-only trace keeps its
// times.
type scale struct{ num, den int64 }

func (s scale) ms(x int64) int64 { return x * s.num / s.den }

func scaleOf(cfg explore.Config) scale {
	classic := false
	for i := range cfg.Clients {
		classic = classic || cfg.IsClassic(i)
	}
	if !classic {
		return scale{1, 1}
	}
	const joinLapseMs = 5000 // plan.ClassicClient.JoinTimeoutMs's
	s := scale{joinLapseMs, cfg.RequestTimeoutMs}
	if s.ms(cfg.SessionTimeoutMs) < plan.ClassicMinSessionTimeoutMs {
		s = scale{plan.ClassicMinSessionTimeoutMs, cfg.SessionTimeoutMs}
	}
	return s
}

// process is one process of the trace: a slot's incarnation, a client of
// the plan.
type process struct {
	slot, inc int
	index     int // in plan.Clients
	// conns[k] is the number of connections the process had opened when it
	// sent its request k+1 (each begins with an ApiVersions the driver
	// counts among its requests).
	conns []int
}

// translate makes the plan of the trace under mapping c.
func translate(cfg explore.Config, steps []explore.Step, c candidate) (plan.Plan, error) {
	sc := scaleOf(cfg)
	rounds := func(ms int64) int { return int(sc.ms(ms) / c.roundMs) }
	p := plan.Plan{
		Topics:              []plan.Topic{{Name: "t", Partitions: cfg.Partitions}},
		SessionTimeoutMs:    sc.ms(cfg.SessionTimeoutMs),
		HeartbeatIntervalMs: int32(sc.ms(int64(cfg.HeartbeatIntervalMs))),
		RoundMs:             c.roundMs,
		RequestTimeout:      max(rounds(cfg.RequestTimeoutMs), 1),
		RebalanceTimeoutMs:  int32(sc.ms(int64(cfg.RebalanceTimeoutMs))),
		ReuseConnIDs:        true, // as the explorer reuses a slot's connection ids
		DescribeEvery:       1,    // the observer describes every round (DescribeAgrees)
	}
	procs := map[[2]int]*process{}
	proc := func(slot, inc int) *process {
		k := [2]int{slot, inc}
		if pr := procs[k]; pr != nil {
			return pr
		}
		cl := cfg.Clients[slot]
		pr := &process{slot: slot, inc: inc, index: len(p.Clients)}
		name := fmt.Sprintf("c%d", slot)
		if inc > 1 {
			name = fmt.Sprintf("c%d-%d", slot, inc)
		}
		cp := plan.ClientPlan{Name: name, Group: cfg.GroupOf(slot), InstanceID: cl.Instance,
			HeartbeatVersion: cl.HeartbeatVersion, Topics: []string{"t"}, Seed: uint64(slot*64 + inc), NullOwned: cl.NullOwned}
		if cfg.IsClassic(slot) {
			// The reference classic consumer as the explorer runs it:
			// JoinGroup v9, the configuration's session and rebalance
			// timeouts (scaled).
			cp.HeartbeatVersion, cp.NullOwned = 1, false
			cp.Classic = &plan.ClassicClient{JoinGroupMaxVersion: 9, SessionTimeoutMs: int32(sc.ms(cfg.SessionTimeoutMs)),
				RebalanceTimeoutMs: int32(sc.ms(int64(cfg.RebalanceTimeoutMs))), RequestTimeoutMs: int32(sc.ms(cfg.RequestTimeoutMs))}
			p.InitialRebalanceDelayMs = int32(sc.ms(int64(cfg.InitialRebalanceDelayMs)))
		}
		p.Clients = append(p.Clients, cp)
		procs[k] = pr
		return pr
	}
	// The round of each step: the instant's, after the round ApiVersions
	// takes, the instant's operations one apart when spread; or as the
	// driver's phases order them.
	var at []int
	var delays map[int]int
	if c.phased {
		at, delays = phase(steps, rounds)
	} else {
		at = make([]int, len(steps))
		lastAt, n := int64(-1), 0
		for i, s := range steps {
			if s.At != lastAt {
				lastAt, n = s.At, 0
			}
			at[i] = 2 + rounds(s.At)
			if c.spread && isOperation(s.Event) {
				at[i] += n
				n++
			}
		}
	}
	// Requests are numbered by the sends of each process; note how many
	// connections it had opened at each.
	for _, s := range steps {
		switch s.Event {
		case "join", "send", "leave", "close":
			pr := proc(s.Client, s.Process)
			for len(pr.conns) < s.Sent {
				pr.conns = append(pr.conns, s.Conns)
			}
		}
	}
	driverRequest := func(pr *process, n int) int {
		if n-1 < len(pr.conns) {
			return n + pr.conns[n-1]
		}
		if k := len(pr.conns); k > 0 {
			return n + pr.conns[k-1]
		}
		return n + 1
	}
	for i, s := range steps {
		r := at[i]
		switch s.Event {
		case "join", "leave", "close", "crash", "disconnect":
			pr := proc(s.Client, s.Process)
			kind := map[string]plan.ActionKind{"join": plan.Join, "leave": plan.Leave, "close": plan.Close, "crash": plan.Crash, "disconnect": plan.Reset}[s.Event]
			cp := &p.Clients[pr.index]
			if s.Event == "join" && len(cp.Actions) == 0 && cfg.Clients[s.Client].Regex {
				cp.Actions = append(cp.Actions, plan.Action{Round: r, Kind: plan.Resubscribe, Regex: "t.*"})
			}
			cp.Actions = append(cp.Actions, plan.Action{Round: r, Kind: kind})
		case "lose", "duplicate", "delay":
			pr := proc(s.Client, s.Process)
			f := plan.Fault{Client: pr.index, Request: driverRequest(pr, s.Request)}
			switch {
			case s.Event == "duplicate":
				f.Kind = plan.Duplicate
			case s.Event == "lose" && s.Answer:
				f.Kind = plan.LostResponse
			case s.Event == "lose":
				f.Kind = plan.LostRequest
			case s.Answer:
				f.Kind, f.Delay = plan.DelayResponse, delayOf(steps, at, i)
			default:
				f.Kind, f.Delay = plan.DelayRequest, delayOf(steps, at, i)
			}
			p.Faults = append(p.Faults, f)
		case "deliver":
			// A message the driver would move sooner than the trace
			// does waits (phased candidates only).
			if d := delays[i]; d > 0 && !faulted(steps, s) {
				pr := proc(s.Client, s.Process)
				f := plan.Fault{Client: pr.index, Request: driverRequest(pr, s.Request), Kind: plan.DelayRequest, Delay: d}
				if s.Answer {
					f.Kind = plan.DelayResponse
				}
				p.Faults = append(p.Faults, f)
			}
		case "restart":
			if len(p.Restarts) == 0 || p.Restarts[len(p.Restarts)-1] < r {
				p.Restarts = append(p.Restarts, r)
			}
		case "admin":
			p.Admin = append(p.Admin, admin(cfg, &p, s, r))
		}
	}
	// The run closes every client at its last round: after the trace's
	// last step and a few heartbeats, so that what the trace did before
	// its end has happened.
	p.Rounds = at[len(at)-1] + 2 + 3*max(rounds(int64(cfg.HeartbeatIntervalMs)), 1)
	return p, p.Validate()
}

// isOperation reports whether a trace event is one a plan schedules (the
// rest the driver does by itself).
func isOperation(event string) bool {
	switch event {
	case "join", "leave", "close", "crash", "disconnect", "restart", "admin":
		return true
	}
	return false
}

// delayOf is how many rounds the message delayed at step i waited: until
// the step that delivers it, at least one.
func delayOf(steps []explore.Step, at []int, i int) int {
	d := steps[i]
	for j := i + 1; j < len(steps); j++ {
		s := steps[j]
		if s.Event == "deliver" && s.Client == d.Client && s.Process == d.Process && s.Request == d.Request && s.Answer == d.Answer {
			return max(at[j]-at[i], 1)
		}
	}
	return 1
}

// admin is the trace's admin LeaveGroup as a removal of the plan, naming
// the group's clients as the driver resolves entries (in plan order).
func admin(cfg explore.Config, p *plan.Plan, s explore.Step, r int) plan.AdminRemoval {
	group := fmt.Sprintf("g%d", s.Group)
	a := plan.AdminRemoval{Round: r, Group: group, InstanceIDs: []string{}}
	var members []int
	for i, c := range p.Clients {
		if c.Group == group {
			members = append(members, i)
		}
	}
	switch s.Admin {
	case "by instance":
		seen := map[string]bool{}
		for _, c := range cfg.Clients {
			if fmt.Sprintf("g%d", c.Group) == group && c.Instance != "" && !seen[c.Instance] {
				seen[c.Instance] = true
				a.InstanceIDs = append(a.InstanceIDs, c.Instance)
			}
		}
	case "by member":
		for k := range members {
			a.Entries = append(a.Entries, plan.LeaveEntry{Client: k, Member: plan.NameOwn})
		}
	case "fenced":
		// Another member's id, or an unknown one beside a lone member.
		other := plan.NameOther
		if s.Members < 2 {
			other = plan.NameUnknown
		}
		for k, i := range members {
			if p.Clients[i].InstanceID != "" {
				a.Entries = append(a.Entries, plan.LeaveEntry{Client: k, Member: other, Instance: plan.NameOwn})
			}
		}
	}
	return a
}
