package linearize

// The simulated network: requests put on it (with the plan's faults),
// delivered to the target in order per connection, responses delivered back
// to their processes, and requests given up on.

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

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
	at      int64  // ms into the delivery round (Plan.SubRoundMs)
	creq    int    // the client-rule record (clientcheck.go), 1-based; 0 none
	fault   *Fault // what happens to the response (lost/delayed)
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

// openConn gives p a new connection: a fresh handle, and as the target's
// id the handle too, or with Plan.ReuseConnIDs the lowest id of a closed
// connection (p's previous one included, once closed), as a broker keying
// connections by socket would see them.
func (d *driver) openConn(p *proc) {
	d.releaseWire(p)
	d.connSeq++
	p.connID = d.connSeq
	p.wire, p.wireFreed = d.connSeq, false
	if d.plan.ReuseConnIDs && len(d.freeWires) > 0 {
		sort.Slice(d.freeWires, func(i, j int) bool { return d.freeWires[i] < d.freeWires[j] })
		p.wire, d.freeWires = d.freeWires[0], d.freeWires[1:]
	}
	p.conn = &client.Conn{}
}

// releaseWire makes p's connection id free for reuse once its connection
// is closed.
func (d *driver) releaseWire(p *proc) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p.wire == 0 || p.wireFreed || !d.closedConns[p.connID] {
		return
	}
	p.wireFreed = true
	d.freeWires = append(d.freeWires, p.wire)
}

// subRoundOffset is when, within its round, the n-th request of p reaches
// the coordinator: a multiple of Plan.SubRoundMs below the round's length,
// drawn from the process's seed and n (so a plan replays), or 0 on the
// round grid.
func (d *driver) subRoundOffset(p *proc, n int) int64 {
	step := d.plan.SubRoundMs
	if step <= 0 || d.plan.RoundMs/step < 2 {
		return 0
	}
	x := p.plan.Seed ^ uint64(n)*0x9e3779b97f4a7c15
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	return int64(x%uint64(d.plan.RoundMs/step)) * step
}

// reconnect opens p a new connection (its old one is closed) and sends
// ApiVersions on it first, without blocking p's other requests.
func (d *driver) reconnect(p *proc) {
	d.openConn(p)
	req, v := p.c.ApiVersionsRequest()
	p.others = append(p.others, d.send(p, codec.ApiVersions, v, req))
}

// send puts a request of p on the simulated network, applying the fault
// planned for it.
func (d *driver) send(p *proc, key codec.APIKey, version int16, req codec.Message) *outstanding {
	first := p.conn.Fresh()
	r := &request{p: p, conn: Conn{ID: p.wire, Host: p.host}, handle: p.connID, req: req, sent: d.round, deliver: d.round}
	r.h = p.c.Header(p.conn, key, version)
	if p.role == "prober" {
		d.probeHeader(&r.h)
	} else if err := rules.CheckRequestHeader(&r.h, p.c.InstanceID(), p.c.ClientID(), first || p.plan.ClientIDEvery); err != nil {
		d.violate(err)
	}
	p.nreq++
	r.at = d.subRoundOffset(p, p.nreq)
	d.recordClientRequest(r)
	r.out = outstanding{corr: r.h.CorrelationId, sent: d.round}
	o := &r.out
	if f, ok := p.faultAt(p.nreq); ok && p.role == "client" {
		d.res.Faults[f.Kind]++
		switch f.Kind {
		case LostRequest:
			d.clientFault(r.creq, "request lost")
			return o // never delivered
		case DelayRequest:
			r.deliver += f.Delay
			r.note = fmt.Sprintf("request delayed %d rounds", f.Delay)
		case Duplicate:
			dup := *r
			dup.dup, dup.creq = true, 0
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

// enqueue puts r on the network; each connection stays FIFO: r reaches
// the coordinator no sooner than what was sent before it on its
// connection.
func (d *driver) enqueue(r *request) {
	if last, ok := d.lastReqDeliver[r.handle]; ok && last > r.due(d.plan.RoundMs) {
		r.deliver, r.at = int(last/d.plan.RoundMs), last%d.plan.RoundMs
	}
	d.lastReqDeliver[r.handle] = r.due(d.plan.RoundMs)
	d.reqs = append(d.reqs, r)
}

// deliverRequests hands every request due this round to the target, in
// order of their times within the round (Plan.SubRoundMs; the target's
// clock moves to each first), and at one time in send order, or
// concurrently per connection when the plan is parallel.
func (d *driver) deliverRequests() {
	// The requests due go to a list of the driver's own and the rest stay
	// in d.reqs, in order: both lists are reused from round to round.
	due, later := d.due[:0], d.reqs[:0]
	for _, r := range d.reqs {
		if r.deliver <= d.round {
			due = append(due, r)
		} else {
			later = append(later, r)
		}
	}
	clear(d.reqs[len(later):])
	d.reqs, d.due = later, due
	slices.SortStableFunc(due, func(a, b *request) int { return cmp.Compare(a.at, b.at) })
	for len(due) > 0 {
		n := 1
		for n < len(due) && due[n].at == due[0].at {
			n++
		}
		d.advanceTo(d.now + due[0].at)
		d.deliverAt(due[:n])
		due = due[n:]
	}
}

// advanceTo moves the target's clock to t within the round, if it is not
// there yet.
func (d *driver) advanceTo(t int64) {
	if t <= d.at {
		return
	}
	if err := d.target.Advance(t); err != nil {
		d.harness("advance to %d: %v", t, err)
	}
	d.at = t
}

// deliverAt delivers requests due at one time: in send order, or
// concurrently per connection when the plan is parallel.
func (d *driver) deliverAt(due []*request) {
	if !d.plan.Parallel {
		for _, r := range due {
			d.deliver(r)
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
				d.deliver(r)
			}
		}()
	}
	wg.Wait()
}

// deliver gives one request to the target and schedules its response.
func (d *driver) deliver(r *request) {
	d.mu.Lock()
	if d.closedConns[r.handle] {
		d.mu.Unlock()
		return // the connection was reset before the request arrived
	}
	// KIP-1313: the coordinator remembers the ClientId of a connection's
	// first delivered request (null reads as "") and attributes every
	// later request that sends none to it; a request that sends one is
	// attributed to its own (docs/PROTOCOL.md A2).
	clientID, seen := d.connClientID[r.handle]
	if !seen {
		clientID = r.h.ClientId.Value
		d.connClientID[r.handle] = clientID
	}
	if r.h.ClientId.Valid {
		clientID = r.h.ClientId.Value
	}
	d.mu.Unlock()

	// The operation's interval is the target's handling of it: the
	// tightest interval known to contain its linearization point.
	r.handed = r.h
	call := d.events.Add(1)
	resp, err := d.target.Handle(r.conn, &r.handed, r.req)
	ret := d.events.Add(1)

	d.mu.Lock()
	defer d.mu.Unlock()
	op := Op{ID: len(d.hist), Client: r.p.idx, Name: r.p.name, Conn: r.conn, ClientID: clientID, At: d.at,
		Sent: r.sent, Call: call, Return: ret, Header: r.h, Request: r.req, Response: resp, Note: r.note}
	d.noteDelivered(r)
	if err != nil {
		op.Response = nil
		if errors.Is(err, ErrNoResponse) {
			op.Return = Unknown
		} else {
			op.Refused = true
			r.p.refused = true // a broker closes the connection
		}
		op.Note = joinNote(op.Note, "no response: "+err.Error())
		d.hist = append(d.hist, op)
		return
	}
	if resp != nil {
		var err error
		if d.enc, err = resp.AppendTo(d.enc[:0], r.h.RequestApiVersion); err != nil {
			d.harness("%s v%d response does not encode: %v", r.h.RequestApiKey, r.h.RequestApiVersion, err)
		}
	}
	r.resp = response{p: r.p, conn: r.handle, corr: r.h.CorrelationId, resp: resp, deliver: d.round + 1, creq: r.creq}
	out := &r.resp
	if hb, ok := resp.(*codec.ConsumerGroupHeartbeatResponse); ok && hb.ErrorCode == codec.None && hb.MemberId.Valid && r.p.role == "client" {
		if !r.p.allIDs[hb.MemberId.Value] {
			r.p.allIDs[hb.MemberId.Value] = true
			r.p.allDirty = true
		}
		r.idSpace[0] = hb.MemberId.Value
		out.ids = r.idSpace[:1]
	}
	if r, ok := resp.(*codec.ConsumerGroupDescribeResponse); ok {
		if len(d.described) == 0 {
			d.describedAt = d.at
		}
		d.described = append(d.described, r)
		d.checkDescribe(r)
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
		d.clientFault(r.creq, "response dropped")
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
		if r.p.inflight[id]++; r.p.inflight[id] == 1 {
			r.p.inflightDirty = true
		}
	}
	d.resps = append(d.resps, out)
	d.hist = append(d.hist, op)
}

// noteDelivered records, for a client's request that reached the target,
// when its process was last seen and whether it left (for NoGhosts'
// grace).
func (d *driver) noteDelivered(r *request) {
	if r.p.role != "client" {
		return
	}
	if d.at > r.p.lastSeen {
		r.p.lastSeen = d.at
	}
	if hb, ok := r.req.(*codec.ConsumerGroupHeartbeatRequest); ok {
		switch hb.MemberEpoch {
		case rules.LeaveEpoch:
			r.p.leftAt = d.at
		case rules.JoinEpoch:
			r.p.leftAt = -1
		}
	}
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// deliverResponses gives clients the responses due this round.
func (d *driver) deliverResponses() {
	later := d.resps[:0] // the ones not due stay, in order
	n := len(d.resps)
	for _, r := range d.resps[:n] {
		if r.deliver > d.round {
			later = append(later, r)
			continue
		}
		for _, id := range r.ids {
			if r.p.inflight[id]--; r.p.inflight[id] <= 0 {
				delete(r.p.inflight, id)
				r.p.inflightDirty = true
			}
		}
		if r.p.live && r.p.connID == r.conn && !d.closedConns[r.conn] {
			d.clientResponse(r.creq, r.resp)
			d.absorb(r.p, r)
		}
	}
	clear(d.resps[len(later):n])
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
