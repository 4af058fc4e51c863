package driver

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// RoundViolation is an invariant broken at one observation.
type RoundViolation struct {
	Round int    `json:"round"`
	At    int64  `json:"at"`
	Rule  string `json:"rule"`
	What  string `json:"what"`
}

// Result is what one run produced.
type Result struct {
	Plan    plan.Plan
	History history.History
	// Violations are the invariants broken, in order; each rule is
	// reported at its first observation only, plus a count.
	Violations []RoundViolation
	// ViolationCounts counts observations that broke each rule.
	ViolationCounts map[string]int
	// Ghosts are the distinct member ids NoGhosts flagged.
	Ghosts []string
	// HarnessErrors are failures of the harness's own assumptions (a
	// target error it cannot interpret, a request it could not build).
	HarnessErrors []string
	// Faults counts the faults actually applied, by kind.
	Faults map[plan.FaultKind]int
	// ClusterFaults counts the cluster faults played, by kind.
	ClusterFaults map[plan.ClusterFaultKind]int
	// Quiescent reports whether the run ended with everything delivered
	// and one session timeout passed (QuiescentMembership was checked).
	Quiescent bool
	// ModelExact records that the target declared itself model-exact
	// (ModelExacter): Check at LevelAuto then holds it to the model.
	ModelExact bool
	// DroppedRestarts counts the coordinator restarts of the plan that
	// Run left out because the target cannot restart (Plan holds the plan
	// as run, without them).
	DroppedRestarts int
	// DroppedClusterFaults counts the cluster faults of the plan that
	// Run left out because the target cannot play them (ClusterFaulter).
	DroppedClusterFaults int
}

// Notes say what the run left out, for reports.
func (r *Result) Notes() []string {
	var out []string
	if r.DroppedRestarts > 0 {
		out = append(out, fmt.Sprintf("plan's %d restarts dropped: the target cannot restart (it is no Restarter)", r.DroppedRestarts))
	}
	if r.DroppedClusterFaults > 0 {
		out = append(out, fmt.Sprintf("plan's %d cluster faults dropped: the target cannot play them (it is no ClusterFaulter)", r.DroppedClusterFaults))
	}
	return out
}

// driver is one run: the clock and the coordinator's restarts, what the
// run produced, and its parts, each a type of its own with a pointer back
// here: the simulated network, the processes (the plan's clients, the
// admin, the prober and the observer process), the observer that judges
// what the coordinator holds, and the record of the clients' requests
// that the client rules judge.
type driver struct {
	plan   *plan.Plan
	target Target
	// round is the round running; now its start (ms), at the target's
	// clock: the round's start, or the time of the last delivery within
	// the round (Plan.SubRoundMs).
	round   int
	now, at int64
	// events numbers the calls and returns of the target's handling, the
	// history's logical times.
	events atomic.Int64
	// restartAt are the coordinator times of the restarts so far.
	restartAt []int64
	// canaries: this history's canaries run (canaryEvery picks them by
	// seed).
	canaries bool
	// classicGroups are the plan's classic groups (their clients speak
	// the classic protocol, plan.ClientPlan.Classic).
	classicGroups map[string]bool
	// lagger and staller are the target's clocks (lag, stall) when it
	// runs on real time, nil on logical time: asked for once, since the
	// observer reads both for every process every round.
	lagger  interface{ MaxLagMs() int64 }
	staller interface{ MaxStallMs() int64 }

	// mu guards the history, the result and what delivery touches while
	// requests are delivered concurrently (Plan.Parallel).
	mu   sync.Mutex
	hist history.History
	res  *Result

	net     network
	procs   processes
	prober  prober
	obs     observer
	clients clientLog
}

// Run executes p against target. The run is deterministic for a
// deterministic target unless p.Parallel is set. A target that cannot
// restart runs the plan without its coordinator restarts
// (Result.DroppedRestarts). It returns an error only when the plan is
// malformed; what went wrong in the run is in the Result.
func Run(target Target, p plan.Plan) (*Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p, dropped := planFor(target, p)
	p, droppedCluster := clusterFaultsFor(target, p)
	d, err := newDriver(target, p)
	if err != nil {
		return nil, err
	}
	d.res.ModelExact, d.res.DroppedRestarts, d.res.DroppedClusterFaults = IsModelExact(target), dropped, droppedCluster
	if !d.runRounds() || !d.quiesce() {
		return d.res, nil
	}
	d.res.Quiescent = true
	if len(d.hist) > 0 { // nil when empty, as before it was made ahead
		d.res.History = d.hist
	}
	sort.Strings(d.res.Ghosts)
	return d.res, nil
}

// planFor is p as t can run it: without its coordinator restarts when t
// cannot restart (CanRestart), with how many were left out. Restarts are
// drawn last (plan.New), so the rest of the plan is the one its seed
// gives.
func planFor(t Target, p plan.Plan) (plan.Plan, int) {
	n := len(p.Restarts)
	if n == 0 || CanRestart(t) {
		return p, 0
	}
	p.Restarts = nil
	return p, n
}

// newDriver sets up a run of p: its parts, then its processes (processes
// and its new).
func newDriver(target Target, p plan.Plan) (*driver, error) {
	d := &driver{
		plan:     &p,
		target:   target,
		res:      &Result{Plan: p, ViolationCounts: map[string]int{}, Faults: map[plan.FaultKind]int{}, ClusterFaults: map[plan.ClusterFaultKind]int{}},
		canaries: p.Seed%canaryEvery == 1,
	}
	d.lagger, _ = target.(interface{ MaxLagMs() int64 })
	d.staller, _ = target.(interface{ MaxStallMs() int64 })
	for _, c := range p.Clients {
		if c.Classic != nil {
			if d.classicGroups == nil {
				d.classicGroups = map[string]bool{}
			}
			d.classicGroups[c.Group] = true
		}
	}
	d.net.init(d)
	d.procs = processes{d: d, hbEvery: max(int(int64(p.HeartbeatIntervalMs)/p.RoundMs), 1), classic: classicClients{d}}
	d.prober = prober{d: d}
	d.obs.init(d)
	// The history and the clients' requests are made about the size they
	// will be (a default plan's histories hold about 0.8 operations per
	// client and heartbeat interval), not grown to it.
	size := min(len(p.Clients)*p.Rounds*4/(5*d.procs.hbEvery)+32, 1<<14)
	d.hist = make(history.History, 0, size)
	d.clients = newClientLog(d, size*3/5) // about half the operations are a plan client's requests
	return d, d.procs.start()
}

// runRounds runs the planned rounds, then closing: every live client
// closes, the network drains, and one session timeout passes. It reports
// false when the target failed (a harness error ends the run).
func (d *driver) runRounds() bool {
	closing := d.plan.Rounds
	last := d.plan.Rounds + 4*d.plan.RequestTimeout + 50
	restarts, faults := d.plan.Restarts, d.plan.ClusterFaults
	for d.round = 0; d.round <= last; d.round++ {
		d.now = int64(d.round) * d.plan.RoundMs
		if !d.advance(d.now) {
			return false
		}
		if len(restarts) > 0 && restarts[0] == d.round {
			restarts = restarts[1:]
			if !d.restart() {
				return false
			}
		}
		for len(faults) > 0 && faults[0].Round == d.round {
			f := faults[0]
			faults = faults[1:]
			if !d.clusterFault(f) {
				return false
			}
		}
		d.runRound(closing)
		if d.round > closing && d.net.idle() && d.procs.noneOutstanding() {
			break
		}
	}
	return true
}

// runRound is one round after the clock moved: responses due reach their
// processes, unanswered requests time out, every process takes its turn
// (at the closing round, every live client closes first), the requests
// due reach the target, the processes that ended close their connections,
// and the invariants are checked.
func (d *driver) runRound(closing int) {
	d.net.deliverResponses()
	d.procs.timeouts()
	if d.round == closing {
		d.procs.closeClients()
	}
	d.procs.act()
	d.net.deliverRequests()
	d.procs.closeEnded()
	d.obs.observe(false)
}

// quiesce moves the clock one session timeout past the last request any
// client process got delivered (or the last restart, which starts every
// session afresh), and past the lag and the stall the target measured
// (so that every ended process's grace is over: a member of a crash is
// then a ghost if it is still there), has the observer describe every
// group, and checks the final observation, QuiescentMembership included.
// It reports false when the target failed.
func (d *driver) quiesce() bool {
	d.procs.closeEnded()
	lastSeen := d.procs.lastSeen()
	if n := len(d.restartAt); n > 0 && d.restartAt[n-1] > lastSeen {
		lastSeen = d.restartAt[n-1]
	}
	// Waiting may add lag: wait again, a few times at most.
	for i := 0; i < 3; i++ {
		end := lastSeen + d.plan.SessionTimeoutMs + d.lag() + d.stall() + d.plan.RoundMs + d.classicSettleMs()
		if end <= d.at {
			break
		}
		settled, ok := d.settleClassic(end)
		if !ok {
			return false
		}
		if settled {
			break
		}
		d.now = end
		d.round++
		if !d.advance(d.now) {
			return false
		}
	}
	d.procs.describeAll()
	d.net.deliverRequests()
	d.net.park.unreleased()
	d.obs.observe(true)
	d.clients.check()
	return true
}

// restart restarts the coordinator at the start of the round, before any
// delivery: it is recorded as an operation of its own; every connection
// closes, so the requests and responses still on them are lost (requests
// time out and are retried as after a lost response); each live process
// reconnects and sends ApiVersions first, and its next first request on
// the new connection carries ClientId again. It reports false when the
// target failed to restart (a harness error).
func (d *driver) restart() bool {
	r, _ := d.target.(Restarter)
	// The connections that hold parked requests close first, as a failing
	// broker's sockets do before its successor loads the groups: what
	// waited unread on them is never read (parked.go).
	for _, p := range d.procs.all {
		if d.net.park.parkedOn(p) {
			d.net.disconnect(p)
		}
	}
	call := d.events.Add(1)
	err := ErrCannotRestart
	if r != nil {
		err = r.Restart()
	}
	ret := d.events.Add(1)
	if err != nil {
		d.harness("restart: %v", err)
		return false
	}
	d.mu.Lock()
	d.procs.connectionsLost()
	d.obs.classic.restarted(d.now)
	d.obs.noteKinds()
	op := history.Op{ID: len(d.hist), Client: len(d.procs.all), Name: "coordinator", At: d.now, Sent: d.round,
		Call: call, Return: ret, Restart: true, Note: "coordinator restarted: every connection closed"}
	if d.net.park.parker != nil {
		op.Releases = d.net.park.release(d.net.park.parker.Released(), ret)
	}
	d.hist = append(d.hist, op)
	d.mu.Unlock()
	d.restartAt = append(d.restartAt, d.now)
	d.procs.reconnectLive()
	return true
}

// sessionEnd is when a session refreshed at t ends, counting the restarts
// after t that found it running: each starts it afresh.
func (d *driver) sessionEnd(t int64) int64 {
	end := t + d.plan.SessionTimeoutMs
	for _, r := range d.restartAt {
		if r >= t && r < end {
			end = r + d.plan.SessionTimeoutMs
		}
	}
	return end
}

// advanceTo moves the target's clock to t within the round, if it is not
// there yet.
func (d *driver) advanceTo(t int64) {
	if t > d.at {
		d.advance(t)
	}
}

// advance moves the target's clock to t and records what its timers
// released (a tick, parked.go) and, in a plan that migrates, the groups
// its timers converted (noteKinds). It reports false when the target
// failed (a harness error).
func (d *driver) advance(t int64) bool {
	err := d.target.Advance(t)
	d.at = t
	if err != nil {
		d.harness("advance to %d: %v", t, err)
		return false
	}
	d.mu.Lock()
	d.net.park.tick(history.TickAdvance, Conn{}, nil)
	d.obs.noteKinds()
	d.mu.Unlock()
	return true
}

// lag is how far the target's real time has run ahead of the driver's
// logical time (tcptarget.Target.MaxLagMs); 0 for a target on logical
// time.
func (d *driver) lag() int64 {
	if d.lagger != nil {
		return d.lagger.MaxLagMs()
	}
	return 0
}

// stall is the longest the checking process was kept from running
// (tcptarget.Target.MaxStallMs); 0 for a target on logical time.
func (d *driver) stall() int64 {
	if d.staller != nil {
		return d.staller.MaxStallMs()
	}
	return 0
}

// violate records a broken invariant: each rule at its first observation
// (Result.Violations), and how often (Result.ViolationCounts). A check
// failing without naming its rule is the harness's error.
func (d *driver) violate(err error) {
	v, ok := err.(*rules.Violation)
	if !ok {
		d.harness("an invariant check failed without naming its rule: %v", err)
		return
	}
	if d.res.ViolationCounts[v.Rule] == 0 {
		d.res.Violations = append(d.res.Violations, RoundViolation{Round: d.round, At: d.at, Rule: v.Rule, What: v.Detail})
	}
	d.res.ViolationCounts[v.Rule]++
}

// harness records a failure of the harness's own assumptions.
func (d *driver) harness(format string, args ...any) {
	d.res.HarnessErrors = append(d.res.HarnessErrors, fmt.Sprintf("round %d: ", d.round)+fmt.Sprintf(format, args...))
}
