package linearize

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
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
}

// outstanding is a request a process awaits the response to.
type outstanding struct {
	corr int32
	sent int // round
}

type proc struct {
	idx   int
	name  string
	group string
	plan  ClientPlan
	role  string // "client", "admin", "observer"
	c     *model.Client

	conn     *model.ClientConn
	connID   uint64
	host     string
	versions bool // an ApiVersions response has arrived

	live     bool
	wants    bool
	hb       *outstanding
	leave    *outstanding
	others   []*outstanding
	lastHB   int
	nextTry  int
	nreq     int
	nextAct  int
	subID    int32
	hasSub   bool
	allIDs   map[string]bool
	inflight map[string]int
	lastSeen int64 // coordinator time of the last delivered request; -1 none
	leftAt   int64 // coordinator time its last leave (epoch -1) was processed; -1 none
	ended    int   // round the process ended
}

type request struct {
	p       *proc
	conn    Conn
	h       codec.RequestHeader
	req     codec.Message
	sent    int
	deliver int
	fault   *Fault // what happens to the response (lost/delayed)
	dup     bool
	note    string
}

type response struct {
	p       *proc
	conn    uint64
	corr    int32
	resp    codec.Message
	deliver int
	ids     []string
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
	// lastDeliver keeps each connection FIFO: a delayed request or
	// response delays what follows it on the same connection.
	lastReqDeliver  map[uint64]int
	lastRespDeliver map[uint64]int
	connClientID    map[uint64]*string
	closedConns     map[uint64]bool

	mu      sync.Mutex
	hist    History
	faults  map[[2]int]Fault
	res     *Result
	epochs  model.EpochTracker
	ids     model.MemberIDTracker
	ghosts  map[string]bool
	hbEvery int
	genIDs  []codec.UUID
	// described are the describe responses delivered this round, for
	// observe when the target has no snapshot.
	described []*codec.ConsumerGroupDescribeResponse
	// nextProbeHeader spoils the next prober header (probe.go).
	nextProbeHeader ProbeKind
	// restartAt are the coordinator times of the restarts so far.
	restartAt []int64
}

// Run executes plan against target. The run is deterministic for a
// deterministic target unless plan.Parallel is set. It returns an error
// only when the plan is malformed; what went wrong in the run is in the
// Result.
func Run(target Target, plan Plan) (*Result, error) {
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	d := &driver{
		plan:            &plan,
		target:          target,
		lastReqDeliver:  map[uint64]int{},
		lastRespDeliver: map[uint64]int{},
		connClientID:    map[uint64]*string{},
		closedConns:     map[uint64]bool{},
		faults:          map[[2]int]Fault{},
		ghosts:          map[string]bool{},
		res:             &Result{Plan: plan, ViolationCounts: map[string]int{}, Faults: map[FaultKind]int{}},
	}
	d.snap, _ = target.(Snapshotter)
	d.hbEvery = int(int64(plan.HeartbeatIntervalMs) / plan.RoundMs)
	if d.hbEvery < 1 {
		d.hbEvery = 1
	}
	for _, f := range plan.Faults {
		d.faults[[2]int{f.Client, f.Request}] = f
	}
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

	if len(plan.Restarts) > 0 && !CanRestart(target) {
		d.harness("the plan restarts the coordinator %d times, and the target cannot restart (linearize.Restarter)", len(plan.Restarts))
		return d.res, nil
	}

	// The planned rounds, then closing: every live client closes, the
	// network drains, and one session timeout passes.
	closing := plan.Rounds
	last := plan.Rounds + 4*plan.RequestTimeout + 50
	restarts := plan.Restarts
	for d.round = 0; d.round <= last; d.round++ {
		d.now = int64(d.round) * plan.RoundMs
		if err := target.Advance(d.now); err != nil {
			d.harness("advance to %d: %v", d.now, err)
			return d.res, nil
		}
		if len(restarts) > 0 && restarts[0] == d.round {
			restarts = restarts[1:]
			if !d.restart() {
				return d.res, nil
			}
		}
		d.deliverResponses()
		d.timeouts()
		if d.round == closing {
			for _, p := range d.procs[:len(plan.Clients)] {
				if p.live {
					d.close(p)
				}
			}
		}
		for _, p := range d.procs {
			d.act(p)
		}
		d.deliverRequests()
		d.observe(false)
		if d.round > closing && len(d.reqs) == 0 && len(d.resps) == 0 && d.noneOutstanding() {
			break
		}
	}
	// Quiescence: one session timeout after the last request any client
	// process got delivered.
	var lastSeen int64
	for _, p := range d.procs[:len(plan.Clients)] {
		if p.lastSeen > lastSeen {
			lastSeen = p.lastSeen
		}
	}
	// A restart starts every session afresh.
	if n := len(d.restartAt); n > 0 && d.restartAt[n-1] > lastSeen {
		lastSeen = d.restartAt[n-1]
	}
	end := lastSeen + plan.SessionTimeoutMs + plan.RoundMs
	if end > d.now {
		d.now = end
		d.round++
		if err := target.Advance(d.now); err != nil {
			d.harness("advance to %d: %v", d.now, err)
			return d.res, nil
		}
	}
	d.observer().versions = true
	for _, g := range plan.Groups() {
		d.sendDescribe(d.observer(), g)
	}
	d.deliverRequests()
	d.observe(true)
	d.res.Quiescent = true
	d.res.History = d.hist
	sort.Strings(d.res.Ghosts)
	return d.res, nil
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

// reconnect opens p a new connection (its old one is closed) and sends
// ApiVersions on it first, without blocking p's other requests.
func (d *driver) reconnect(p *proc) {
	d.openConn(p)
	req, v := p.c.ApiVersionsRequest()
	p.others = append(p.others, d.send(p, codec.ApiVersions, v, req))
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

// seedReader is an io.Reader of deterministic bytes for a client's UUIDs.
type seedReader struct{ r *rand.Rand }

func (s seedReader) Read(b []byte) (int, error) {
	for i := 0; i < len(b); i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], s.r.Uint64())
		copy(b[i:], w[:])
	}
	return len(b), nil
}

func (d *driver) newProc(idx int, name, group, role string, cp ClientPlan) (*proc, error) {
	c, err := model.NewClient(model.ClientConfig{
		ClientID:           "ghostcheck-" + name,
		GroupID:            group,
		InstanceID:         cp.InstanceID,
		Topics:             cp.Topics,
		HeartbeatVersion:   cp.HeartbeatVersion,
		RebalanceTimeoutMs: int32(4 * d.plan.RoundMs * int64(d.plan.RequestTimeout)),
		Rand:               seedReader{rand.New(rand.NewPCG(cp.Seed, uint64(idx)))},
	})
	if err != nil {
		return nil, err
	}
	p := &proc{idx: idx, name: name, group: group, plan: cp, role: role, c: c, live: true,
		allIDs: map[string]bool{}, inflight: map[string]int{}, lastSeen: -1, leftAt: -1, lastHB: -1 << 30,
		host: fmt.Sprintf("/10.0.%d.%d", idx/250, idx%250+1)}
	if id := c.MemberID(); id != "" {
		p.allIDs[id] = true
	}
	d.openConn(p)
	return p, nil
}

func (d *driver) openConn(p *proc) {
	d.connSeq++
	p.connID = d.connSeq
	p.conn = &model.ClientConn{}
}

// send puts a request of p on the simulated network, applying the fault
// planned for it.
func (d *driver) send(p *proc, key codec.APIKey, version int16, req codec.Message) *outstanding {
	first := p.conn.Fresh()
	h := p.c.Header(p.conn, key, version)
	if p.role == "prober" {
		d.probeHeader(&h)
	} else if err := model.CheckRequestHeader(&h, p.c.InstanceID(), p.c.Config().ClientID, first); err != nil {
		d.violate(err)
	}
	p.nreq++
	r := &request{p: p, conn: Conn{ID: p.connID, Host: p.host}, h: h, req: req, sent: d.round, deliver: d.round}
	o := &outstanding{corr: h.CorrelationId, sent: d.round}
	if f, ok := d.faults[[2]int{p.idx, p.nreq}]; ok && p.role == "client" {
		d.res.Faults[f.Kind]++
		switch f.Kind {
		case LostRequest:
			return o // never delivered
		case DelayRequest:
			r.deliver += f.Delay
			r.note = fmt.Sprintf("request delayed %d rounds", f.Delay)
		case Duplicate:
			dup := *r
			dup.dup = true
			dup.note = "duplicate delivery"
			defer d.enqueue(&dup)
		case LostResponse, DelayResponse:
			ff := f
			r.fault = &ff
		}
	}
	d.enqueue(r)
	return o
}

func (d *driver) enqueue(r *request) {
	if last, ok := d.lastReqDeliver[r.conn.ID]; ok && last > r.deliver {
		r.deliver = last
	}
	d.lastReqDeliver[r.conn.ID] = r.deliver
	d.reqs = append(d.reqs, r)
}

// deliverRequests hands every request due this round to the target, in
// send order (or concurrently per connection when the plan is parallel).
func (d *driver) deliverRequests() {
	var due, later []*request
	for _, r := range d.reqs {
		if r.deliver <= d.round {
			due = append(due, r)
		} else {
			later = append(later, r)
		}
	}
	d.reqs = later
	if !d.plan.Parallel {
		for _, r := range due {
			d.deliver(r)
		}
		return
	}
	byConn := map[uint64][]*request{}
	var order []uint64
	for _, r := range due {
		if _, ok := byConn[r.conn.ID]; !ok {
			order = append(order, r.conn.ID)
		}
		byConn[r.conn.ID] = append(byConn[r.conn.ID], r)
	}
	var wg sync.WaitGroup
	for _, id := range order {
		rs := byConn[id]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range rs {
				d.deliver(r)
			}
		}()
	}
	wg.Wait()
}

// deliver gives one request to the target and schedules its response.
func (d *driver) deliver(r *request) {
	d.mu.Lock()
	if d.closedConns[r.conn.ID] {
		d.mu.Unlock()
		return // the connection was reset before the request arrived
	}
	// KIP-1313: the coordinator attributes the ClientId of a
	// connection's first delivered request to the whole connection.
	if d.connClientID[r.conn.ID] == nil {
		s := r.h.ClientId.Value
		d.connClientID[r.conn.ID] = &s
	}
	clientID := *d.connClientID[r.conn.ID]
	d.mu.Unlock()

	// The operation's interval is the target's handling of it: the
	// tightest interval known to contain its linearization point.
	h := r.h
	call := d.events.Add(1)
	resp, err := d.target.Handle(r.conn, &h, r.req)
	ret := d.events.Add(1)

	d.mu.Lock()
	defer d.mu.Unlock()
	op := Op{ID: len(d.hist), Client: r.p.idx, Name: r.p.name, Conn: r.conn, ClientID: clientID, At: d.now,
		Sent: r.sent, Call: call, Return: ret, Header: r.h, Request: r.req, Response: resp, Note: r.note}
	if r.p.role == "client" {
		if d.now > r.p.lastSeen {
			r.p.lastSeen = d.now
		}
		if hb, ok := r.req.(*codec.ConsumerGroupHeartbeatRequest); ok {
			switch hb.MemberEpoch {
			case model.LeaveEpoch:
				r.p.leftAt = d.now
			case model.JoinEpoch:
				r.p.leftAt = -1
			}
		}
	}
	if err != nil {
		op.Response = nil
		if errors.Is(err, ErrNoResponse) {
			op.Return = Unknown
		} else {
			op.Refused = true
		}
		op.Note = joinNote(op.Note, "no response: "+err.Error())
		d.hist = append(d.hist, op)
		return
	}
	if resp != nil {
		if _, err := resp.AppendTo(nil, r.h.RequestApiVersion); err != nil {
			d.harness("%s v%d response does not encode: %v", r.h.RequestApiKey, r.h.RequestApiVersion, err)
		}
	}
	out := &response{p: r.p, conn: r.conn.ID, corr: r.h.CorrelationId, resp: resp, deliver: d.round + 1}
	if hb, ok := resp.(*codec.ConsumerGroupHeartbeatResponse); ok && hb.ErrorCode == codec.None && hb.MemberId.Valid && r.p.role == "client" {
		r.p.allIDs[hb.MemberId.Value] = true
		out.ids = []string{hb.MemberId.Value}
	}
	if r, ok := resp.(*codec.ConsumerGroupDescribeResponse); ok {
		d.described = append(d.described, r)
	}
	if g, ok := resp.(*codec.GetTelemetrySubscriptionsResponse); ok && r.h.RequestApiVersion == 0 && g.ErrorCode == codec.None {
		d.genIDs = append(d.genIDs, g.ClientInstanceId)
	}
	switch {
	case r.dup:
		op.Note = joinNote(op.Note, "response to the duplicate dropped by the client")
		d.hist = append(d.hist, op)
		return
	case r.fault != nil && r.fault.Kind == LostResponse:
		op.Note = joinNote(op.Note, "response lost")
		d.hist = append(d.hist, op)
		return
	case r.fault != nil && r.fault.Kind == DelayResponse:
		out.deliver += r.fault.Delay
		op.Note = joinNote(op.Note, fmt.Sprintf("response delayed %d rounds", r.fault.Delay))
	}
	if last, ok := d.lastRespDeliver[out.conn]; ok && last > out.deliver {
		out.deliver = last
	}
	d.lastRespDeliver[out.conn] = out.deliver
	for _, id := range out.ids {
		r.p.inflight[id]++
	}
	d.resps = append(d.resps, out)
	d.hist = append(d.hist, op)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// deliverResponses gives clients the responses due this round.
func (d *driver) deliverResponses() {
	var later []*response
	for _, r := range d.resps {
		if r.deliver > d.round {
			later = append(later, r)
			continue
		}
		for _, id := range r.ids {
			if r.p.inflight[id]--; r.p.inflight[id] <= 0 {
				delete(r.p.inflight, id)
			}
		}
		if r.p.live && r.p.connID == r.conn && !d.closedConns[r.conn] {
			d.absorb(r.p, r)
		}
	}
	d.resps = later
}

// absorb hands a response to the process that awaits it.
func (d *driver) absorb(p *proc, r *response) {
	switch {
	case p.hb != nil && p.hb.corr == r.corr:
		p.hb = nil
		hb := r.resp.(*codec.ConsumerGroupHeartbeatResponse)
		p.c.OnHeartbeat(hb)
		p.lastHB = d.round
		if hb.ErrorCode != codec.None {
			p.nextTry = d.round + 1
		}
		return
	case p.leave != nil && p.leave.corr == r.corr:
		p.leave = nil
		p.c.OnLeaveDone()
		return
	}
	for i, o := range p.others {
		if o.corr != r.corr {
			continue
		}
		p.others = append(p.others[:i], p.others[i+1:]...)
		switch resp := r.resp.(type) {
		case *codec.ApiVersionsResponse:
			p.c.OnApiVersions(resp)
			if resp.ErrorCode == codec.None {
				p.versions = true
			}
		case *codec.GetTelemetrySubscriptionsResponse:
			if resp.ErrorCode == codec.None {
				p.subID, p.hasSub = resp.SubscriptionId, true
			}
		case *codec.PushTelemetryResponse:
			if resp.ErrorCode == codec.UnknownSubscriptionID {
				p.hasSub = false
			}
		}
		return
	}
	// A late response to a request the client gave up on: dropped.
}

// timeouts gives up on requests that went unanswered too long.
func (d *driver) timeouts() {
	limit := d.round - d.plan.RequestTimeout
	for _, p := range d.procs {
		if !p.live {
			continue
		}
		if p.hb != nil && p.hb.sent <= limit {
			p.hb = nil
			p.c.OnHeartbeatLost()
			p.nextTry = d.round
		}
		if p.leave != nil && p.leave.sent <= limit {
			p.leave = nil
			p.c.OnLeaveDone()
		}
		kept := p.others[:0]
		for _, o := range p.others {
			if o.sent > limit {
				kept = append(kept, o)
			}
		}
		p.others = kept
	}
}

// act runs one process's turn: its scheduled actions, then whatever
// request its state calls for.
func (d *driver) act(p *proc) {
	if !p.live {
		return
	}
	if !p.versions {
		if len(p.others) == 0 {
			req, v := p.c.ApiVersionsRequest()
			p.others = append(p.others, d.send(p, codec.ApiVersions, v, req))
		}
		return
	}
	switch p.role {
	case "admin":
		d.actAdmin(p)
		return
	case "prober":
		d.actProber(p)
		return
	case "observer":
		if d.plan.DescribeEvery > 0 && d.round%d.plan.DescribeEvery == 0 {
			for _, g := range d.plan.Groups() {
				d.sendDescribe(p, g)
			}
		}
		return
	}
	for p.nextAct < len(p.plan.Actions) && p.plan.Actions[p.nextAct].Round <= d.round {
		a := p.plan.Actions[p.nextAct]
		p.nextAct++
		d.do(p, a.Kind)
		if !p.live {
			return
		}
	}
	if p.wants && p.hb == nil && p.leave == nil && d.round >= p.nextTry {
		st := p.c.State()
		if st != model.Joined || d.round-p.lastHB >= d.hbEvery {
			req, v := p.c.NextHeartbeat()
			p.hb = d.send(p, codec.ConsumerGroupHeartbeat, v, req)
		}
	}
}

func (d *driver) do(p *proc, k ActionKind) {
	switch k {
	case Join:
		p.wants = true
		p.nextTry = d.round
	case Leave, StaticLeave:
		p.wants = false
		st := p.c.State()
		if st == model.Joined || st == model.Joining {
			p.hb = nil
			req, v := p.c.Leave(k == StaticLeave)
			p.leave = d.send(p, codec.ConsumerGroupHeartbeat, v, req)
		}
	case Close:
		d.close(p)
	case Crash:
		p.c.Crash()
		p.live, p.wants, p.ended = false, false, d.round
	case Reset:
		d.mu.Lock()
		d.closedConns[p.connID] = true
		d.mu.Unlock()
		d.target.Disconnect(p.connID)
		d.reconnect(p)
	case Telemetry:
		if p.hasSub {
			v := p.version(codec.PushTelemetry, 1)
			req := p.c.PushTelemetry(v, p.subID, false, []byte("metrics"))
			p.others = append(p.others, d.send(p, codec.PushTelemetry, v, req))
		} else {
			v := p.version(codec.GetTelemetrySubscriptions, 1)
			req := p.c.GetTelemetrySubscriptions(v)
			p.others = append(p.others, d.send(p, codec.GetTelemetrySubscriptions, v, req))
		}
	}
}

func (p *proc) version(key codec.APIKey, want int16) int16 {
	if m, ok := p.c.BrokerMaxVersion(key); ok && m < want {
		return m
	}
	return want
}

// close ends a process cleanly: its leave (if any) is sent with its own id.
func (d *driver) close(p *proc) {
	req, v := p.c.Close()
	if req != nil {
		d.send(p, codec.ConsumerGroupHeartbeat, v, req)
	}
	p.live, p.wants, p.ended = false, false, d.round
	p.hb, p.leave, p.others = nil, nil, nil
}

func (d *driver) actAdmin(p *proc) {
	for _, a := range d.plan.Admin {
		if a.Round != d.round {
			continue
		}
		var members []codec.LeaveGroupMember
		for _, id := range a.InstanceIDs {
			members = append(members, codec.LeaveGroupMember{GroupInstanceId: codec.Str(id), Reason: codec.Str("ghostcheck admin removal")})
		}
		max := p.version(codec.LeaveGroup, 5)
		calls, _ := model.PlanLeaveGroup(a.Group, members, max)
		for _, call := range calls {
			p.others = append(p.others, d.send(p, codec.LeaveGroup, call.Version, call.Request))
		}
	}
}

func (d *driver) sendDescribe(p *proc, group string) {
	v := p.version(codec.ConsumerGroupDescribe, 1)
	req := &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group}}
	p.others = append(p.others, d.send(p, codec.ConsumerGroupDescribe, v, req))
}

func (d *driver) violate(err error) {
	v, ok := err.(*model.Violation)
	rule, what := "Harness", err.Error()
	if ok {
		rule, what = v.Rule, v.Detail
	}
	if d.res.ViolationCounts[rule] == 0 {
		d.res.Violations = append(d.res.Violations, RoundViolation{Round: d.round, At: d.now, Rule: rule, What: what})
	}
	d.res.ViolationCounts[rule]++
}

// observe checks the invariants on what the coordinator holds now: its
// snapshot when the target offers one, else the describes delivered this
// round.
func (d *driver) observe(final bool) {
	var groups []model.GroupSnapshot
	described := d.described
	d.described = nil
	if d.snap != nil {
		groups = d.snap.Snapshot()
	} else {
		if len(described) == 0 {
			return
		}
		for _, r := range described {
			groups = append(groups, model.SnapshotFromDescribe(r)...)
		}
	}
	o := model.Observation{Now: d.now, Groups: groups, GeneratedIDs: d.genIDs}
	for _, p := range d.procs[:len(d.plan.Clients)] {
		mp := model.Process{
			Name:             p.name,
			GroupID:          p.group,
			ClientInstanceID: p.c.InstanceID(),
			MemberID:         p.c.MemberID(),
			Live:             p.live,
			Left:             p.c.State() == model.Left || (p.live && !p.wants && p.c.State() != model.Joined),
			Joined:           p.live && p.c.State() == model.Joined,
		}
		mp.InFlight = slices.Sorted(maps.Keys(p.inflight))
		mp.AllIDs = slices.Sorted(maps.Keys(p.allIDs))
		// A member may outlive its process by one session timeout (a
		// crash, a lost leave, a static member parked at -2), counted
		// afresh from each coordinator restart it lived through, but not a
		// leave the coordinator processed: from then on, a member left
		// behind (KAFKA-17116's leave with an empty id) is a ghost.
		switch {
		case p.lastSeen < 0:
			mp.GraceUntil = 0
		case p.leftAt >= 0:
			mp.GraceUntil = p.leftAt
		default:
			mp.GraceUntil = d.sessionEnd(p.lastSeen)
		}
		o.Processes = append(o.Processes, mp)
		if p.plan.HeartbeatVersion >= model.MemberIDRequiredVersion {
			if err := d.ids.Observe(mp); err != nil {
				d.violate(err)
			}
		}
	}
	if err := model.NoGhosts(o); err != nil {
		d.violate(err)
		for _, g := range model.Ghosts(o) {
			if id := g.Member.MemberID; !d.ghosts[id] {
				d.ghosts[id] = true
				d.res.Ghosts = append(d.res.Ghosts, id)
			}
		}
	}
	for _, check := range []func(model.Observation) error{model.OneMemberPerProcess, model.UniqueMemberIDs, model.NoZeroUUIDs} {
		if err := check(o); err != nil {
			d.violate(err)
		}
	}
	if err := model.NoDoubleClientAssignment(groups); err != nil {
		d.violate(err)
	}
	if err := d.epochs.Observe(groups); err != nil {
		d.violate(err)
	}
	if final {
		if err := model.QuiescentMembership(o); err != nil {
			d.violate(err)
		}
	}
}
