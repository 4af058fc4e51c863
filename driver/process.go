package driver

// The processes of a run: the plan's clients (each a client.Client), the
// admin (admin.go), the prober (probe.go) and the observer process, and
// what each does on its turn of a round.

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// role is what a process is in a run.
type role uint8

// The roles: the plan's clients, then one of each of the others.
const (
	// roleClient: a client process of the plan, a reference client
	// living the plan's life for it.
	roleClient role = iota
	// roleAdmin: the administrator, sending the plan's removals
	// (LeaveGroup).
	roleAdmin
	// roleProber: the prober, sending requests no good client sends.
	roleProber
	// roleObserver: the observer process, describing every group.
	roleObserver
	// roleWorker: a Kafka Connect worker the prober plays on a
	// connection of its own (plan.ProbeMixedOddRequest), only in the
	// plans whose prober needs one (Plan.HasConnectWorker).
	roleWorker
)

// String names the role as reports do.
func (r role) String() string {
	switch r {
	case roleClient:
		return "client"
	case roleAdmin:
		return "admin"
	case roleProber:
		return "prober"
	case roleObserver:
		return "observer"
	case roleWorker:
		return "worker"
	}
	return fmt.Sprintf("role(%d)", uint8(r))
}

type proc struct {
	idx   int
	name  string
	group string
	plan  plan.ClientPlan
	role  role
	c     *client.Client
	// classic is a classic client process's consumer (classic.go); nil
	// for a ConsumerGroupHeartbeat one and the other roles.
	classic *classicProc
	// faults are the plan's faults of this client's requests, in request
	// order (of two on one request, the later in the plan counts); the
	// ones before nextFault are behind it.
	faults    []plan.Fault
	nextFault int

	conn   *client.Conn
	connID uint64 // the connection's handle (request.handle)
	// wire is the connection's id as the target sees it; wireFreed once
	// it went back to the network's pool (Plan.ReuseConnIDs).
	wire      uint64
	wireFreed bool
	host      string
	versions  bool // an ApiVersions response has arrived
	// refused: the target refused a request (a broker closes the
	// connection then): the process reconnects at its next turn.
	refused bool
	renames int

	live   bool
	wants  bool
	hb     *outstanding
	leave  *outstanding
	others []*outstanding
	// atRoundStart puts the next request the process sends at the start
	// of its round, off the round grid too (the Connect worker's join,
	// which the prober's requests of the round must find made).
	atRoundStart bool
	lastHB       int
	nextTry      int
	nreq         int
	nextAct      int
	subID        int32
	hasSub       bool
	allIDs       map[string]bool
	inflight     map[string]int
	// sortedAll and sortedInflight are allIDs' and inflight's keys in
	// order, as each observation hands them to the invariants; allDirty
	// and inflightDirty say one must be made again (its map gained or
	// lost a key). They are made anew, never changed in place, since an
	// observation may keep them.
	sortedAll, sortedInflight []string
	keptInflight              []string // the last non-empty sortedInflight
	allDirty, inflightDirty   bool
	lastSeen                  int64 // coordinator time of the last delivered request; -1 none
	leftAt                    int64 // coordinator time its last leave (epoch -1) was processed; -1 none
	ended                     int   // round the process ended
	// closing: the process ended (crashed or closed) and its connection
	// closes once what it sent on it has been delivered (closeEnded).
	closing bool
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

// version is the version of key the process sends: want, or the
// broker's highest when it is lower.
func (p *proc) version(key codec.APIKey, want int16) int16 {
	if m, ok := p.c.BrokerMaxVersion(key); ok && m < want {
		return m
	}
	return want
}

// faultAt is the plan's fault of the process's request n (1-based), if
// any. n only grows from call to call.
func (p *proc) faultAt(n int) (plan.Fault, bool) {
	for p.nextFault < len(p.faults) && p.faults[p.nextFault].Request < n {
		p.nextFault++
	}
	var f plan.Fault
	found := false
	for i := p.nextFault; i < len(p.faults) && p.faults[i].Request == n; i++ {
		f, found = p.faults[i], true
	}
	return f, found
}

// busy reports whether the process awaits a response.
func (p *proc) busy() bool {
	return p.hb != nil || p.leave != nil || len(p.others) > 0 || p.classic != nil && p.classic.gm != nil
}

// delivered notes, for a client's request that reached the target at
// coordinator time at, when its process was last seen and whether it left
// (for NoGhosts' grace).
func (p *proc) delivered(req codec.Message, at int64) {
	if p.role != roleClient {
		return
	}
	if at > p.lastSeen {
		p.lastSeen = at
	}
	if hb, ok := req.(*codec.ConsumerGroupHeartbeatRequest); ok {
		switch hb.MemberEpoch {
		case rules.LeaveEpoch:
			p.leftAt = at
		case rules.JoinEpoch:
			p.leftAt = -1
		}
	}
}

// heard notes a member id the coordinator gave the process: one the
// process may hold from now on (Process.AllIDs).
func (p *proc) heard(id string) {
	if !p.allIDs[id] {
		p.allIDs[id] = true
		p.allDirty = true
	}
}

// awaiting notes the member ids of a response on its way to the process
// (Process.InFlight).
func (p *proc) awaiting(ids []string) {
	for _, id := range ids {
		if p.inflight[id]++; p.inflight[id] == 1 {
			p.inflightDirty = true
		}
	}
}

// arrived notes that a response with these member ids is in flight no
// more.
func (p *proc) arrived(ids []string) {
	for _, id := range ids {
		if p.inflight[id]--; p.inflight[id] <= 0 {
			delete(p.inflight, id)
			p.inflightDirty = true
		}
	}
}

// processes are the processes of a run: the plan's clients, in plan
// order, then the admin, the prober, the Connect worker (only in a plan
// that has one) and the observer process.
type processes struct {
	d   *driver
	all []*proc
	// classic is the part for classic client processes (classic.go).
	classic classicClients
	// hbEvery is how many rounds a joined client waits between
	// heartbeats.
	hbEvery int
}

// start makes the processes: the plan's clients, then the admin, the
// prober, the worker (Plan.HasConnectWorker) and the observer (in this
// order: each draws its connection ids and its UUIDs from its place),
// each with its faults in request order.
func (ps *processes) start() error {
	pl := ps.d.plan
	for i, cp := range pl.Clients {
		if err := ps.add(i, cp.Name, cp.Group, roleClient, cp); err != nil {
			return err
		}
	}
	n := len(pl.Clients)
	for _, r := range []struct {
		role role
		seed uint64
	}{{roleAdmin, pl.Seed ^ 0xad}, {roleProber, pl.Seed ^ 0x9b}, {roleWorker, pl.Seed ^ 0xc0}, {roleObserver, pl.Seed ^ 0x0b}} {
		if r.role == roleWorker && !pl.HasConnectWorker() {
			continue // the processes of every other plan as they were
		}
		name := r.role.String()
		if err := ps.add(len(ps.all), name, "", r.role, plan.ClientPlan{Name: name, Seed: r.seed, HeartbeatVersion: 1}); err != nil {
			return err
		}
	}
	for _, f := range pl.Faults {
		if f.Client >= 0 && f.Client < n {
			ps.all[f.Client].faults = append(ps.all[f.Client].faults, f)
		}
	}
	for _, p := range ps.all {
		slices.SortStableFunc(p.faults, func(a, b plan.Fault) int { return cmp.Compare(a.Request, b.Request) })
	}
	return nil
}

// add makes the process of cp, a reference client, with its connection.
func (ps *processes) add(idx int, name, group string, r role, cp plan.ClientPlan) error {
	c, err := client.New(client.Config{
		ClientID:               "ghostcheck-" + name,
		GroupID:                group,
		InstanceID:             cp.InstanceID,
		Topics:                 cp.Topics,
		HeartbeatVersion:       cp.HeartbeatVersion,
		RebalanceTimeoutMs:     ps.d.plan.ClientRebalanceTimeoutMs(),
		ClientIDEveryRequest:   cp.ClientIDEvery,
		NullOwnedWhenUnchanged: cp.NullOwned,
		RackID:                 cp.RackID,
		ServerAssignor:         cp.ServerAssignor,
		Rand:                   seedReader{rand.New(rand.NewPCG(cp.Seed, uint64(idx)))},
	})
	if err != nil {
		return err
	}
	p := &proc{idx: idx, name: name, group: group, plan: cp, role: r, c: c, live: true,
		allIDs: map[string]bool{}, inflight: map[string]int{}, allDirty: true, inflightDirty: true, lastSeen: -1, leftAt: -1, lastHB: -1 << 30,
		host: fmt.Sprintf("/10.0.%d.%d", idx/250, idx%250+1)}
	if id := c.MemberID(); id != "" && cp.Classic == nil {
		p.allIDs[id] = true
	}
	if r == roleClient && cp.Classic != nil {
		if p.classic, err = newClassicProc(ps.d.plan, cp); err != nil {
			return err
		}
	}
	ps.d.net.openConn(p)
	ps.all = append(ps.all, p)
	return nil
}

// clients are the plan's client processes.
func (ps *processes) clients() []*proc { return ps.all[:len(ps.d.plan.Clients)] }

// observer is the observer process.
func (ps *processes) observer() *proc { return ps.all[len(ps.all)-1] }

// worker is the Connect worker process, nil in a plan without one.
func (ps *processes) worker() *proc {
	if w := ps.all[len(ps.all)-2]; w.role == roleWorker {
		return w
	}
	return nil
}

// act runs every process's turn, in order.
func (ps *processes) act() {
	for _, p := range ps.all {
		ps.turn(p)
	}
}

// turn runs one process's turn: its scheduled actions, then whatever
// request its state calls for.
func (ps *processes) turn(p *proc) {
	d := ps.d
	if !p.live {
		return
	}
	if p.refused {
		p.refused = false
		d.net.disconnect(p)
		d.net.reconnect(p)
		return
	}
	if !p.versions {
		if len(p.others) == 0 {
			req, v := p.c.ApiVersionsRequest()
			p.others = append(p.others, d.net.send(p, codec.ApiVersions, v, req))
		}
		return
	}
	switch p.role {
	case roleAdmin:
		admin{d}.act(p)
		return
	case roleProber:
		d.prober.act(p)
		return
	case roleWorker:
		return // it sends what the prober has it send (migration_probes.go)
	case roleObserver:
		if d.plan.DescribeEvery > 0 && d.round%d.plan.DescribeEvery == 0 {
			for _, g := range d.plan.Groups() {
				ps.describe(p, g)
			}
		}
		return
	}
	for p.nextAct < len(p.plan.Actions) && p.plan.Actions[p.nextAct].Round <= d.round {
		a := p.plan.Actions[p.nextAct]
		p.nextAct++
		ps.do(p, a)
		if !p.live {
			return
		}
	}
	if p.classic != nil {
		ps.classic.turn(p)
		return
	}
	if p.wants && p.hb == nil && p.leave == nil && d.round >= p.nextTry {
		st := p.c.State()
		if st != client.Joined || d.round-p.lastHB >= ps.hbEvery {
			req, v := p.c.NextHeartbeat()
			p.hb = d.net.send(p, codec.ConsumerGroupHeartbeat, v, req)
		}
	}
}

// do carries out one of a client's planned actions.
func (ps *processes) do(p *proc, a plan.Action) {
	d := ps.d
	if p.classic != nil && ps.classic.do(p, a) {
		return
	}
	switch k := a.Kind; k {
	case plan.Join:
		p.wants = true
		p.nextTry = d.round
	case plan.Leave, plan.StaticLeave:
		p.wants = false
		st := p.c.State()
		if st == client.Joined || st == client.Joining {
			p.hb = nil
			req, v := p.c.Leave(k == plan.StaticLeave)
			p.leave = d.net.send(p, codec.ConsumerGroupHeartbeat, v, req)
		}
	case plan.Close:
		ps.close(p)
	case plan.Crash:
		p.c.Crash()
		p.live, p.wants, p.ended = false, false, d.round
		p.closing = true
	case plan.Reset:
		d.net.disconnect(p)
		if p.classic != nil {
			ps.classic.connectionLost(p)
		}
		d.net.reconnect(p)
	case plan.Telemetry:
		if p.hasSub {
			v := p.version(codec.PushTelemetry, 1)
			req := p.c.PushTelemetry(v, p.subID, false, []byte("metrics"))
			p.others = append(p.others, d.net.send(p, codec.PushTelemetry, v, req))
		} else {
			v := p.version(codec.GetTelemetrySubscriptions, 1)
			req := p.c.GetTelemetrySubscriptions(v)
			p.others = append(p.others, d.net.send(p, codec.GetTelemetrySubscriptions, v, req))
		}
	case plan.Resubscribe:
		p.c.Resubscribe(a.Topics, a.Regex)
	case plan.RenameClient:
		p.renames++
		p.c.SetClientID(fmt.Sprintf("ghostcheck-%s-r%d", p.name, p.renames))
	}
}

// close ends a process cleanly: its leave (if any) is sent with its own id,
// and its connection closes after it (closeEnded).
func (ps *processes) close(p *proc) {
	if p.classic != nil {
		ps.classic.close(p)
	} else if req, v := p.c.Close(); req != nil {
		ps.d.net.send(p, codec.ConsumerGroupHeartbeat, v, req)
	}
	p.live, p.wants, p.ended = false, false, ps.d.round
	p.hb, p.leave, p.others = nil, nil, nil
	p.closing = true
}

// endFatal ends a process whose consumer failed (FENCED_INSTANCE_ID and
// the like: Kafka's poll throws): it sends nothing more, as after a crash.
func (ps *processes) endFatal(p *proc) {
	p.live, p.wants, p.ended = false, false, ps.d.round
	p.hb, p.leave, p.others = nil, nil, nil
	if p.classic != nil {
		p.classic.gm, p.classic.hb = nil, nil
	}
	p.closing = true
}

// closeClients closes every live client (the closing round).
func (ps *processes) closeClients() {
	for _, p := range ps.clients() {
		if p.live {
			ps.close(p)
		}
	}
}

// closeEnded closes the connection of every process that ended (a crash
// or a close) once what it had sent on it has reached the coordinator, as
// a dying process's sockets close: the kernel sends what was written,
// then the FIN. A coordinator that takes an open connection for a live
// member, or keeps heartbeating for a member whose connection closed,
// then keeps a ghost the invariants see (NoGhosts).
func (ps *processes) closeEnded() {
	for _, p := range ps.all {
		if p.closing && !ps.d.net.queuedOn(p.connID) {
			p.closing = false
			ps.d.net.disconnect(p)
		}
	}
}

// connectionsLost marks every process's connection closed (a coordinator
// restart; the caller holds the driver's mu).
func (ps *processes) connectionsLost() {
	for _, p := range ps.all {
		ps.d.net.closed[p.connID] = true
	}
}

// reconnectLive opens every live process a new connection.
func (ps *processes) reconnectLive() {
	for _, p := range ps.all {
		if p.live {
			if p.classic != nil {
				ps.classic.connectionLost(p)
			}
			ps.d.net.reconnect(p)
		}
	}
}

// noneOutstanding reports whether no live process awaits a response.
func (ps *processes) noneOutstanding() bool {
	for _, p := range ps.all {
		if p.live && p.busy() {
			return false
		}
	}
	return true
}

// lastSeen is the coordinator time of the last request any client process
// got delivered (0 if none).
func (ps *processes) lastSeen() int64 {
	var last int64
	for _, p := range ps.clients() {
		last = max(last, p.lastSeen)
	}
	return last
}

// describeAll has the observer process describe every group (the final
// observation), whatever its negotiation got to.
func (ps *processes) describeAll() {
	o := ps.observer()
	o.versions = true
	for _, g := range ps.d.plan.Groups() {
		ps.describe(o, g)
	}
}

// describe sends p's ConsumerGroupDescribe of group, or DescribeGroups of
// a classic group.
func (ps *processes) describe(p *proc, group string) {
	if ps.d.classicGroups[group] {
		v := p.version(codec.DescribeGroups, 5)
		req := &codec.DescribeGroupsRequest{Groups: []string{group}, IncludeAuthorizedOperations: ps.d.plan.DescribeOps}
		p.others = append(p.others, ps.d.net.send(p, codec.DescribeGroups, v, req))
		return
	}
	v := p.version(codec.ConsumerGroupDescribe, 1)
	req := &codec.ConsumerGroupDescribeRequest{GroupIds: []string{group}, IncludeAuthorizedOperations: ps.d.plan.DescribeOps}
	p.others = append(p.others, ps.d.net.send(p, codec.ConsumerGroupDescribe, v, req))
}

// liveMember picks (by pick) a live client process of group that believes
// it is joined and returns its member id, or with instance its instance id
// (static clients only); "" if there is none.
func (ps *processes) liveMember(group string, pick int, instance bool) string {
	var out []string
	for _, p := range ps.clients() {
		if p.group != group || !p.live || !p.joined() || p.memberID() == "" {
			continue
		}
		switch {
		case !instance:
			out = append(out, p.memberID())
		case p.plan.InstanceID != "":
			out = append(out, p.plan.InstanceID)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return out[pick%len(out)]
}

// holdsMember reports whether member id of group belongs to a live
// KIP-1082 client process (heartbeat v1; fenced, it rejoins under the same
// id, where a v0 client's new id would leave the old member behind) that
// believes it is joined and whose plan ends or leaves nothing for a
// session timeout and a round from now: a request that refreshes the
// member's session then cannot keep it past its process.
func (ps *processes) holdsMember(group, id string) bool {
	pl := ps.d.plan
	until := ps.d.round + int(pl.SessionTimeoutMs/pl.RoundMs) + 2
	for _, p := range ps.clients() {
		if p.group != group || !p.live || p.plan.HeartbeatVersion < 1 || !p.joined() || p.memberID() != id {
			continue
		}
		for _, a := range p.plan.Actions {
			if a.Round >= ps.d.round && a.Round <= until && a.Kind != plan.Resubscribe && a.Kind != plan.RenameClient && a.Kind != plan.Telemetry {
				return false
			}
		}
		return true
	}
	return false
}

// absorb hands a response to the process that awaits it.
func (ps *processes) absorb(p *proc, r *response) {
	if p.classic != nil && ps.classic.absorb(p, r) {
		return
	}
	switch {
	case p.hb != nil && p.hb.corr == r.corr:
		p.hb = nil
		hb := r.resp.(*codec.ConsumerGroupHeartbeatResponse)
		p.c.OnHeartbeat(hb)
		p.lastHB = ps.d.round
		if hb.ErrorCode != codec.None {
			p.nextTry = ps.d.round + 1
		}
		if p.c.State() == client.Fatal {
			ps.endFatal(p)
		}
		return
	case p.leave != nil && p.leave.corr == r.corr:
		p.leave = nil
		if hb, ok := r.resp.(*codec.ConsumerGroupHeartbeatResponse); ok {
			p.c.OnLeave(hb)
		} else {
			p.c.OnLeaveDone()
		}
		if p.c.State() == client.Fatal {
			ps.endFatal(p)
		}
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
			if p.classic != nil {
				p.classic.cl.OnApiVersions(resp)
			}
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
	// A late response to a request the client gave up on: dropped, but
	// for a heartbeat's or a leave's FENCED_INSTANCE_ID, which reached
	// the process all the same (client.Client.OnAbandoned).
	if hb, ok := r.resp.(*codec.ConsumerGroupHeartbeatResponse); ok && p.role == roleClient && p.classic == nil {
		if p.c.OnAbandoned(hb); p.c.State() == client.Fatal {
			ps.endFatal(p)
		}
	}
}

// timeouts gives up on requests that went unanswered too long.
func (ps *processes) timeouts() {
	limit := ps.d.round - ps.d.plan.RequestTimeout
	for _, p := range ps.all {
		if !p.live {
			continue
		}
		if p.classic != nil {
			ps.classic.timeouts(p)
		} else if p.hb != nil && p.hb.sent <= limit {
			p.hb = nil
			p.c.OnHeartbeatLost()
			p.nextTry = ps.d.round
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
