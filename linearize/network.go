package linearize

// The simulated network: requests put on it (with the plan's faults),
// delivered to the target in order per connection, responses delivered back
// to their processes, and requests given up on.

import (
	"errors"
	"fmt"
	"sync"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
)

// outstanding is a request a process awaits the response to.
type outstanding struct {
	corr int32
	sent int // round
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

func (d *driver) openConn(p *proc) {
	d.connSeq++
	p.connID = d.connSeq
	p.conn = &model.ClientConn{}
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
