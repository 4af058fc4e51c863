package linearize

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
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
	Plan    Plan
	History History
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
	Faults map[FaultKind]int
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
}

type driver struct {
	plan    *Plan
	target  Target
	snap    Snapshotter
	procs   []*proc
	round   int
	now     int64
	events  atomic.Int64
	connSeq uint64

	reqs  []*request
	resps []*response
	due   []*request // deliverRequests' list, reused
	// lastDeliver keeps each connection FIFO: a delayed request or
	// response delays what follows it on the same connection.
	lastReqDeliver  map[uint64]int64 // ms (request.due)
	lastRespDeliver map[uint64]int
	connClientID    map[uint64]string
	closedConns     map[uint64]bool
	// freeWires are the target-facing ids of closed connections, for
	// Plan.ReuseConnIDs (openConn).
	freeWires []uint64
	// at is the target's clock: the round's start, or the time of the
	// last delivery within the round (Plan.SubRoundMs).
	at int64
	// creqs are the plan clients' requests for the client rules, and
	// connReqs how many each connection (by handle) carried
	// (clientcheck.go).
	creqs    []rules.ClientRequest
	connReqs map[uint64]int
	// observed is the array observe lists the processes in, kept from
	// round to round.
	observed []rules.Process
	// lastGroups are the groups observe judged last, and groupErrs what
	// NoDoubleClientAssignment and the epoch tracker found in them.
	lastGroups []rules.GroupSnapshot
	groupErrs  [2]error
	// breqs are the admin's, prober's and observer's (canary.go); none
	// are kept when skipCanary (the canary does not judge this history).
	breqs      []rules.ClientRequest
	skipCanary bool

	mu      sync.Mutex
	hist    History
	res     *Result
	epochs  rules.EpochTracker
	ids     rules.MemberIDTracker
	ghosts  map[string]bool
	hbEvery int
	genIDs  []codec.UUID
	// described are the describe responses delivered this round, for
	// observe when the target has no snapshot.
	described []*codec.ConsumerGroupDescribeResponse
	// describedAt is when the first of them reached the target.
	describedAt int64
	// spoil, when set, spoils the next prober header (probe.go).
	spoil func(*codec.RequestHeader)
	// restartAt are the coordinator times of the restarts so far.
	restartAt []int64
	// enc is deliver's buffer for encoding a response (under mu).
	enc []byte

	// canaried: the invariants' canary ran on a round's observation
	// (canary_invariants.go).
	canaried bool
}

// Run executes plan against target. The run is deterministic for a
// deterministic target unless plan.Parallel is set. A target that cannot
// restart runs the plan without its coordinator restarts
// (Result.DroppedRestarts). It returns an error only when the plan is
// malformed; what went wrong in the run is in the Result.
func Run(target Target, plan Plan) (*Result, error) {
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	plan, dropped := planFor(target, plan)
	d, err := newDriver(target, plan)
	if err != nil {
		return nil, err
	}
	d.res.ModelExact, d.res.DroppedRestarts = IsModelExact(target), dropped
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

// newDriver sets up a run of plan: the plan's client processes, then the
// admin, the prober and the observer (in this order: each draws its
// connection ids and its UUIDs from its place).
func newDriver(target Target, plan Plan) (*driver, error) {
	d := &driver{
		plan:            &plan,
		target:          target,
		lastReqDeliver:  map[uint64]int64{},
		lastRespDeliver: map[uint64]int{},
		connClientID:    map[uint64]string{},
		closedConns:     map[uint64]bool{},
		connReqs:        map[uint64]int{},
		ghosts:          map[string]bool{},
		res:             &Result{Plan: plan, ViolationCounts: map[string]int{}, Faults: map[FaultKind]int{}},
		skipCanary:      plan.Seed%canaryEvery != 1,
	}
	d.snap, _ = target.(Snapshotter)
	d.hbEvery = int(int64(plan.HeartbeatIntervalMs) / plan.RoundMs)
	if d.hbEvery < 1 {
		d.hbEvery = 1
	}
	// The history and the clients' requests are made about the size they
	// will be (a default plan's histories hold about 0.8 operations per
	// client and heartbeat interval), not grown to it.
	size := min(len(plan.Clients)*plan.Rounds*4/(5*d.hbEvery)+32, 1<<14)
	d.hist = make(History, 0, size)
	d.creqs = make([]rules.ClientRequest, 0, size*3/5) // about half the operations are a plan client's requests
	for i, cp := range plan.Clients {
		p, err := d.newProc(i, cp.Name, cp.Group, "client", cp)
		if err != nil {
			return nil, err
		}
		d.procs = append(d.procs, p)
	}
	admin, err := d.newProc(len(plan.Clients), "admin", "", "admin", ClientPlan{Name: "admin", Seed: plan.Seed ^ 0xad, HeartbeatVersion: 1})
	if err != nil {
		return nil, err
	}
	prober, err := d.newProc(len(plan.Clients)+1, "prober", "", "prober", ClientPlan{Name: "prober", Seed: plan.Seed ^ 0x9b, HeartbeatVersion: 1})
	if err != nil {
		return nil, err
	}
	observer, err := d.newProc(len(plan.Clients)+2, "observer", "", "observer", ClientPlan{Name: "observer", Seed: plan.Seed ^ 0x0b, HeartbeatVersion: 1})
	if err != nil {
		return nil, err
	}
	d.procs = append(d.procs, admin, prober, observer)
	for _, f := range plan.Faults {
		if f.Client >= 0 && f.Client < len(plan.Clients) {
			d.procs[f.Client].faults = append(d.procs[f.Client].faults, f)
		}
	}
	for _, p := range d.procs {
		slices.SortStableFunc(p.faults, func(a, b Fault) int { return cmp.Compare(a.Request, b.Request) })
	}
	return d, nil
}

// runRounds runs the planned rounds, then closing: every live client
// closes, the network drains, and one session timeout passes. It reports
// false when the target failed (a harness error ends the run).
func (d *driver) runRounds() bool {
	closing := d.plan.Rounds
	last := d.plan.Rounds + 4*d.plan.RequestTimeout + 50
	restarts := d.plan.Restarts
	for d.round = 0; d.round <= last; d.round++ {
		d.now = int64(d.round) * d.plan.RoundMs
		if err := d.target.Advance(d.now); err != nil {
			d.harness("advance to %d: %v", d.now, err)
			return false
		}
		d.at = d.now
		if len(restarts) > 0 && restarts[0] == d.round {
			restarts = restarts[1:]
			if !d.restart() {
				return false
			}
		}
		d.runRound(closing)
		if d.round > closing && len(d.reqs) == 0 && len(d.resps) == 0 && d.noneOutstanding() {
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
	d.deliverResponses()
	d.timeouts()
	if d.round == closing {
		for _, p := range d.procs[:len(d.plan.Clients)] {
			if p.live {
				d.close(p)
			}
		}
	}
	for _, p := range d.procs {
		d.act(p)
	}
	d.deliverRequests()
	d.closeEnded()
	d.observe(false)
}

// quiesce moves the clock one session timeout past the last request any
// client process got delivered (or the last restart, which starts every
// session afresh), and past the lag and the stall the target measured
// (so that every ended process's grace is over: a member of a crash is
// then a ghost if it is still there), has the observer describe every group, and checks
// the final observation, QuiescentMembership included. It reports false
// when the target failed.
func (d *driver) quiesce() bool {
	d.closeEnded()
	var lastSeen int64
	for _, p := range d.procs[:len(d.plan.Clients)] {
		if p.lastSeen > lastSeen {
			lastSeen = p.lastSeen
		}
	}
	if n := len(d.restartAt); n > 0 && d.restartAt[n-1] > lastSeen {
		lastSeen = d.restartAt[n-1]
	}
	// Waiting may add lag: wait again, a few times at most.
	for i := 0; i < 3; i++ {
		end := lastSeen + d.plan.SessionTimeoutMs + d.lag() + d.stall() + d.plan.RoundMs
		if end <= d.at {
			break
		}
		d.now = end
		d.round++
		if err := d.target.Advance(d.now); err != nil {
			d.harness("advance to %d: %v", d.now, err)
			return false
		}
		d.at = d.now
	}
	d.observer().versions = true
	for _, g := range d.plan.Groups() {
		d.sendDescribe(d.observer(), g)
	}
	d.deliverRequests()
	d.observe(true)
	d.checkClients()
	return true
}

func (d *driver) observer() *proc { return d.procs[len(d.procs)-1] }

// restart restarts the coordinator at the start of the round, before any
// delivery: it is recorded as an operation of its own; every connection
// closes, so the requests and responses still on them are lost (requests
// time out and are retried as after a lost response); each live process
// reconnects and sends ApiVersions first, and its next first request on
// the new connection carries ClientId again. It reports false when the
// target failed to restart (a harness error).
func (d *driver) restart() bool {
	r, _ := d.target.(Restarter)
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
	d.hist = append(d.hist, Op{ID: len(d.hist), Client: len(d.procs), Name: "coordinator", At: d.now, Sent: d.round,
		Call: call, Return: ret, Restart: true, Note: "coordinator restarted: every connection closed"})
	for _, p := range d.procs {
		d.closedConns[p.connID] = true
	}
	d.mu.Unlock()
	d.restartAt = append(d.restartAt, d.now)
	for _, p := range d.procs {
		if p.live {
			d.reconnect(p)
		}
	}
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

func (d *driver) noneOutstanding() bool {
	for _, p := range d.procs {
		if p.live && (p.hb != nil || p.leave != nil || len(p.others) > 0) {
			return false
		}
	}
	return true
}

func (d *driver) harness(format string, args ...any) {
	d.res.HarnessErrors = append(d.res.HarnessErrors, fmt.Sprintf("round %d: ", d.round)+fmt.Sprintf(format, args...))
}
