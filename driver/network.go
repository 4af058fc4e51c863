package driver

// The simulated network: requests put on it (with the plan's faults),
// delivered to the target in order per connection, responses delivered back
// to their processes.

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// network is the simulated network of a run: the connections, the
// requests on their way to the target and the responses on their way back.
// What delivery touches is guarded by the driver's mu while requests are
// delivered concurrently (Plan.Parallel).
type network struct {
	d *driver
	// connSeq numbers the connections (their handles).
	connSeq uint64
	// reqs are the requests not yet delivered, resps the responses; due
	// is deliverRequests' list, reused.
	reqs  []*request
	resps []*response
	due   []*request
	// lastReqDeliver and lastRespDeliver keep each connection FIFO: a
	// delayed request or response delays what follows it on the same
	// connection.
	lastReqDeliver  map[uint64]int64 // ms (request.due)
	lastRespDeliver map[uint64]int
	// clientIDs are the ClientId the coordinator must attribute to each
	// connection's requests (KIP-1313), by handle; closed the connections
	// closed.
	clientIDs map[uint64]string
	closed    map[uint64]bool
	// freeWires are the target-facing ids of closed connections, for
	// Plan.ReuseConnIDs (openConn).
	freeWires []uint64
	// enc is deliver's buffer for encoding a response (under mu).
	enc []byte
	// park is the part for the requests the target parks (parked.go).
	park parking
	// router is the target as a Router (routerOf), nil when it routes
	// nothing.
	router Router
}

// init makes n the network of d's run.
func (n *network) init(d *driver) {
	n.d, n.lastReqDeliver, n.lastRespDeliver = d, map[uint64]int64{}, map[uint64]int{}
	n.clientIDs, n.closed = map[uint64]string{}, map[uint64]bool{}
	n.park.init(n)
	n.router = routerOf(d.target)
}

// outstanding is a request a process awaits the response to.
type outstanding struct {
	corr int32
	sent int // round
}

type request struct {
	p *proc
	// conn is the connection as the target sees it (its id may be a
	// closed connection's, Plan.ReuseConnIDs); handle is the driver's own
	// name for it, never reused.
	conn    Conn
	handle  uint64
	h       codec.RequestHeader
	req     codec.Message
	sent    int
	deliver int
	at      int64       // ms into the delivery round (Plan.SubRoundMs)
	creq    int         // the client-rule record (clientLog), 1-based; 0 none
	fault   *plan.Fault // what happens to the response (lost/delayed)
	dup     bool
	note    string
	// out, handed (the target's copy of the header), resp and id are
	// what send and deliver would otherwise allocate one by one: the
	// process's wait for the response, the header the target gets, the
	// response on its way back and the member id it carries.
	out     outstanding
	handed  codec.RequestHeader
	resp    response
	idSpace [1]string
}

// due is when the request reaches the coordinator, in ms.
func (r *request) due(roundMs int64) int64 { return int64(r.deliver)*roundMs + r.at }

type response struct {
	p       *proc
	conn    uint64 // the connection's handle
	corr    int32
	resp    codec.Message
	deliver int
	ids     []string
	creq    int // as request.creq
}

// idle reports whether nothing is on its way, either way.
func (n *network) idle() bool { return len(n.reqs) == 0 && len(n.resps) == 0 }

// openConn gives p a new connection: a fresh handle, and as the target's
// id the handle too, or with Plan.ReuseConnIDs the lowest id of a closed
// connection (p's previous one included, once closed), as a broker keying
// connections by socket would see them.
func (n *network) openConn(p *proc) {
	n.releaseWire(p)
	n.connSeq++
	p.connID = n.connSeq
	p.wire, p.wireFreed = n.connSeq, false
	if n.d.plan.ReuseConnIDs && len(n.freeWires) > 0 {
		sort.Slice(n.freeWires, func(i, j int) bool { return n.freeWires[i] < n.freeWires[j] })
		p.wire, n.freeWires = n.freeWires[0], n.freeWires[1:]
	}
	p.conn = &client.Conn{}
}

// releaseWire makes p's connection id free for reuse once its connection
// is closed.
func (n *network) releaseWire(p *proc) {
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	if p.wire == 0 || p.wireFreed || !n.closed[p.connID] {
		return
	}
	p.wireFreed = true
	n.freeWires = append(n.freeWires, p.wire)
}

// reconnect opens p a new connection (its old one is closed) and sends
// ApiVersions on it first, without blocking p's other requests.
func (n *network) reconnect(p *proc) {
	n.openConn(p)
	req, v := p.c.ApiVersionsRequest()
	p.others = append(p.others, n.send(p, codec.ApiVersions, v, req))
}

// disconnect closes p's connection: what is still on its way to the
// coordinator on it is lost, and the target is told (Target.Disconnect).
func (n *network) disconnect(p *proc) {
	n.d.mu.Lock()
	closed := n.closed[p.connID]
	n.closed[p.connID] = true
	n.d.mu.Unlock()
	if !closed {
		n.d.target.Disconnect(p.wire)
		n.park.disconnected(p)
	}
	n.releaseWire(p)
}

// queuedOn reports whether a request is still on its way on the
// connection with this handle.
func (n *network) queuedOn(handle uint64) bool {
	for _, r := range n.reqs {
		if r.handle == handle {
			return true
		}
	}
	return false
}

// subRoundOffset is when, within its round, the k-th request of p reaches
// the coordinator: a multiple of Plan.SubRoundMs below the round's length,
// drawn from the process's seed and k (so a plan replays), or 0 on the
// round grid; with Plan.EdgeMs, about one in four (not at the round's
// start) comes EdgeMs before its multiple.
func (n *network) subRoundOffset(p *proc, k int) int64 {
	step := n.d.plan.SubRoundMs
	if step <= 0 || n.d.plan.RoundMs/step < 2 {
		return 0
	}
	x := p.plan.Seed ^ uint64(k)*0x9e3779b97f4a7c15
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	at := int64(x%uint64(n.d.plan.RoundMs/step)) * step
	if edge := n.d.plan.EdgeMs; edge > 0 && at > 0 && x>>62 == 0 {
		at -= edge
	}
	return at
}

// send puts a request of p on the simulated network, applying the fault
// planned for it.
func (n *network) send(p *proc, key codec.APIKey, version int16, req codec.Message) *outstanding {
	d := n.d
	first := p.conn.Fresh()
	r := &request{p: p, conn: Conn{ID: p.wire, Host: p.host}, handle: p.connID, req: req, sent: d.round, deliver: d.round}
	r.h = p.c.Header(p.conn, key, version)
	if p.role == roleProber {
		d.prober.spoilHeader(&r.h)
	} else if err := rules.CheckRequestHeader(&r.h, p.c.InstanceID(), p.c.ClientID(), first || p.plan.ClientIDEvery); err != nil {
		d.violate(err)
	}
	p.nreq++
	r.at = n.subRoundOffset(p, p.nreq)
	if p.atRoundStart {
		r.at, p.atRoundStart = 0, false
	}
	d.clients.record(r)
	r.out = outstanding{corr: r.h.CorrelationId, sent: d.round}
	o := &r.out
	if f, ok := p.faultAt(p.nreq); ok && p.role == roleClient {
		d.res.Faults[f.Kind]++
		switch f.Kind {
		case plan.LostRequest:
			d.clients.fault(r.creq, "request lost")
			return o // never delivered
		case plan.DelayRequest:
			r.deliver += f.Delay
			r.note = fmt.Sprintf("request delayed %d rounds", f.Delay)
		case plan.Duplicate:
			dup := *r
			dup.dup, dup.creq = true, 0
			dup.note = "duplicate delivery"
			defer n.enqueue(&dup)
		case plan.LostResponse, plan.DelayResponse:
			ff := f
			r.fault = &ff
		}
	}
	n.enqueue(r)
	return o
}

// enqueue puts r on the network; each connection stays FIFO: r reaches
// the coordinator no sooner than what was sent before it on its
// connection.
func (n *network) enqueue(r *request) {
	roundMs := n.d.plan.RoundMs
	if last, ok := n.lastReqDeliver[r.handle]; ok && last > r.due(roundMs) {
		r.deliver, r.at = int(last/roundMs), last%roundMs
	}
	n.lastReqDeliver[r.handle] = r.due(roundMs)
	n.reqs = append(n.reqs, r)
}

// deliverRequests hands every request due this round to the target, in
// order of their times within the round (Plan.SubRoundMs; the target's
// clock moves to each first), and at one time in send order, or
// concurrently per connection when the plan is parallel.
func (n *network) deliverRequests() {
	// The requests due go to a list of the network's own and the rest
	// stay in n.reqs, in order: both lists are reused from round to round.
	due, later := n.due[:0], n.reqs[:0]
	for _, r := range n.reqs {
		if r.deliver <= n.d.round {
			due = append(due, r)
		} else {
			later = append(later, r)
		}
	}
	clear(n.reqs[len(later):])
	n.reqs, n.due = later, due
	slices.SortStableFunc(due, func(a, b *request) int { return cmp.Compare(a.at, b.at) })
	for len(due) > 0 {
		k := 1
		for k < len(due) && due[k].at == due[0].at {
			k++
		}
		n.d.advanceTo(n.d.now + due[0].at)
		n.deliverAt(due[:k])
		due = due[k:]
	}
}

// deliverAt delivers requests due at one time: in send order, or
// concurrently per connection when the plan is parallel (but in send order
// for a plan with classic clients against a Parker: what one handling
// released must be drained before the next handling).
func (n *network) deliverAt(due []*request) {
	if !n.d.plan.Parallel || n.park.parker != nil && n.d.plan.HasClassic() {
		for _, r := range due {
			n.deliver(r)
		}
		return
	}
	byConn := map[uint64][]*request{}
	var order []uint64
	for _, r := range due {
		if _, ok := byConn[r.handle]; !ok {
			order = append(order, r.handle)
		}
		byConn[r.handle] = append(byConn[r.handle], r)
	}
	var wg sync.WaitGroup
	for _, id := range order {
		rs := byConn[id]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range rs {
				n.deliver(r)
			}
		}()
	}
	wg.Wait()
}

// deliver gives one request to the target, records the operation, and
// sends its response on its way back (as the plan's fault has it), or
// holds the operation open while the target parks it (parked.go); the
// answers its handling released reach theirs.
func (n *network) deliver(r *request) {
	d := n.d
	clientID, open := n.attribute(r)
	if !open {
		return // the connection was reset before the request arrived
	}
	// The operation's interval is the target's handling of it: the
	// tightest interval known to contain its linearization point.
	r.handed = r.h
	before := d.obs.classic.before(r)
	h := n.park.handle(r)
	resp, err := h.resp, h.err

	d.mu.Lock()
	defer d.mu.Unlock()
	// The operation is recorded in its place in the history (an op is
	// some forty words, not built aside and copied in): nothing else
	// joins the history while mu is held.
	d.hist = append(d.hist, history.Op{ID: len(d.hist), Client: r.p.idx, Name: r.p.name, Conn: Conn{ID: r.conn.ID, Host: r.conn.Host}, ClientID: clientID, At: d.at,
		Sent: r.sent, Call: h.call, Return: h.ret, Header: r.h, Request: r.req, Response: resp, Note: r.note,
		Route: n.route(r.conn.ID)})
	op := &d.hist[len(d.hist)-1]
	r.p.delivered(r.req, d.at)
	parked := err != nil && errors.Is(err, ErrParked) // most answers: no error to unwrap
	if parked {
		n.park.park(r, op, h.ret)
	}
	if h.released != nil {
		op.Releases = n.park.releaseHandled(h.released, h.ret, op)
	}
	switch {
	case parked:
	case err != nil:
		op.Response = nil
		if errors.Is(err, ErrNoResponse) {
			op.Return = history.Never
		} else {
			op.Refused = true
			r.p.refused = true // a broker closes the connection
		}
		op.Note = joinNote(op.Note, "no response: "+err.Error())
	default:
		n.answer(r, resp, op)
	}
	d.obs.classic.handled(r, op, before)
	if d.obs.classic.mixed != nil && !op.Refused {
		d.obs.classic.handledKind(r, op.At)
	}
}

// answer sends resp, the target's answer to r (whose operation is op,
// given at its handling or at its release), on its way back to r's
// process, as the fault planned for r has it: lost, delayed, or dropped
// by the client as the answer to a duplicate. The caller holds mu.
func (n *network) answer(r *request, resp codec.Message, op *history.Op) {
	d := n.d
	if resp != nil {
		var err error
		if n.enc, err = resp.AppendTo(n.enc[:0], r.h.RequestApiVersion); err != nil {
			d.harness("%s v%d response does not encode: %v", r.h.RequestApiKey, r.h.RequestApiVersion, err)
		}
	}
	out := n.respond(r, resp)
	d.obs.answered(r.h.RequestApiVersion, resp)
	switch {
	case r.dup:
		op.Note = joinNote(op.Note, "response to the duplicate dropped by the client")
		return
	case r.fault != nil && r.fault.Kind == plan.LostResponse:
		d.clients.fault(r.creq, "response dropped")
		op.Note = joinNote(op.Note, "response lost")
		return
	case r.fault != nil && r.fault.Kind == plan.DelayResponse:
		out.deliver += r.fault.Delay
		op.Note = joinNote(op.Note, fmt.Sprintf("response delayed %d rounds", r.fault.Delay))
	}
	if last, ok := n.lastRespDeliver[out.conn]; ok && last > out.deliver {
		out.deliver = last
	}
	n.lastRespDeliver[out.conn] = out.deliver
	r.p.awaiting(out.ids)
	n.resps = append(n.resps, out)
}

// route is how the target routed the last request on connection id, if
// it routes (Router).
func (n *network) route(id uint64) *history.Route {
	if n.router != nil {
		return n.router.Route(id)
	}
	return nil
}

// attribute is the ClientId the coordinator must attribute r to, and
// whether r's connection is still open. KIP-1313: the coordinator
// remembers the ClientId of a connection's first delivered request (null
// reads as "") and attributes every later request that sends none to it;
// a request that sends one is attributed to its own (docs/PROTOCOL.md A2).
func (n *network) attribute(r *request) (string, bool) {
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	if n.closed[r.handle] {
		return "", false
	}
	clientID, seen := n.clientIDs[r.handle]
	if !seen {
		clientID = r.h.ClientId.Value
		n.clientIDs[r.handle] = clientID
	}
	if r.h.ClientId.Valid {
		clientID = r.h.ClientId.Value
	}
	return clientID, true
}

// respond is the response to r, made ready to go back (in r's own space):
// due next round, carrying the member id a client's successful heartbeat
// was answered with (the process may hold it as soon as it is sent).
func (n *network) respond(r *request, resp codec.Message) *response {
	r.resp = response{p: r.p, conn: r.handle, corr: r.h.CorrelationId, resp: resp, deliver: n.d.round + 1, creq: r.creq}
	out := &r.resp
	if hb, ok := resp.(*codec.ConsumerGroupHeartbeatResponse); ok && hb.ErrorCode == codec.None && hb.MemberId.Valid && r.p.role == roleClient {
		r.p.heard(hb.MemberId.Value)
		r.idSpace[0] = hb.MemberId.Value
		out.ids = r.idSpace[:1]
	}
	if j, ok := resp.(*codec.JoinGroupResponse); ok && r.p.role == roleClient && j.MemberId != "" &&
		(j.ErrorCode == codec.None || j.ErrorCode == codec.MemberIDRequired) {
		// A classic member's or pending id the coordinator made for the
		// process, which it holds once the answer arrives.
		r.p.heard(j.MemberId)
		r.idSpace[0] = j.MemberId
		out.ids = r.idSpace[:1]
	} else if ok && r.p.role == roleClient && j.MemberId != "" && j.ErrorCode == codec.RebalanceInProgress {
		// A failed upgrade's answer to a waiting join (A7.4): the id
		// was made for the process, which does not take it from this
		// answer; its next join replaces a static member of it.
		r.p.heard(j.MemberId)
	}
	return out
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// deliverResponses gives the processes the responses due this round.
func (n *network) deliverResponses() {
	later := n.resps[:0] // the ones not due stay, in order
	k := len(n.resps)
	for _, r := range n.resps[:k] {
		if r.deliver > n.d.round {
			later = append(later, r)
			continue
		}
		r.p.arrived(r.ids)
		if r.p.live && r.p.connID == r.conn && !n.closed[r.conn] {
			n.d.clients.response(r.creq, r.resp)
			n.d.procs.absorb(r.p, r)
		}
	}
	clear(n.resps[len(later):k])
	n.resps = later
}
