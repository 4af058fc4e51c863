package driver

// Parked requests (Parker): a request the target holds is recorded at its
// handling with no answer (history.Op.Parked); its answer comes when a
// later handling, a timer, a restart or a closed connection releases it,
// and then travels back as any answer does, with the fault planned for
// it. The operation that released it lists it (Op.Releases); a timer or a
// closed connection that released something is recorded as a tick of its
// own, one per group, so that the check can replay every release where it
// happened.

import (
	"slices"
	"sync/atomic"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
)

// parking is the network's part for parked requests: the target as a
// Parker (nil if it is not), the deliveries numbered so far, the requests
// it holds by delivery number, and whether it ever released one.
type parking struct {
	n           *network
	parker      Parker
	deliveries  atomic.Uint64
	parked      map[uint64]*parkedRequest
	releasedAny bool
}

// init makes k the parking of n's run.
func (k *parking) init(n *network) {
	k.n, k.parked = n, map[uint64]*parkedRequest{}
	k.parker, _ = n.d.target.(Parker)
}

// parkedRequest is a request the target parked: the id of its operation in
// the history, and the request, whose answer goes back as any other.
type parkedRequest struct {
	op int
	r  *request
}

// handling is what the target did with one request: its answer or error,
// the events bracketing the call, and the answers to parked requests it
// released.
type handling struct {
	resp      codec.Message
	err       error
	call, ret int64
	released  []Release
}

// handle hands r to the target under a fresh delivery number and drains
// what the handling released.
func (k *parking) handle(r *request) handling {
	d := k.n.d
	r.conn.Delivery = k.deliveries.Add(1)
	var h handling
	h.call = d.events.Add(1)
	h.resp, h.err = d.target.Handle(r.conn, &r.handed, r.req)
	h.ret = d.events.Add(1)
	if k.parker != nil {
		h.released = k.parker.Released()
	}
	return h
}

// park holds op, r's operation, open: the target answered nothing yet. A
// target that parks without being a Parker can never answer: a harness
// error. The caller holds mu.
func (k *parking) park(r *request, op *history.Op, handled int64) {
	op.Response, op.Return = nil, history.Never
	if k.parker == nil {
		k.n.d.harness("op %d (%s): the target parked it (driver.ErrParked) but is not a driver.Parker, so its answer can never come", op.ID, history.RequestLabel(op))
		op.Note = joinNote(op.Note, "parked by a target that cannot release it")
		return
	}
	op.Parked, op.Handled = true, handled
	k.parked[r.conn.Delivery] = &parkedRequest{op: op.ID, r: r}
}

// release records the answers rel gave parked requests at event ret: each
// parked operation gets its answer and return time (or stays unanswered,
// dropped), and the answer goes back to its process as answer sends any.
// It returns the released operations' ids, in rel's order. The caller
// holds mu.
func (k *parking) release(rel []Release, ret int64) []int {
	return k.releaseHandled(rel, ret, nil)
}

// releaseHandled is release for what the handling of self (the operation
// being recorded, the history's last; nil for none) released. The
// target may have parked self and released it within the same handling:
// answered, self is simply answered (not parked); dropped (its member
// went in the same step), self is listed among its own releases.
func (k *parking) releaseHandled(rel []Release, ret int64, self *history.Op) []int {
	d := k.n.d
	var ids []int
	for _, x := range rel {
		pk := k.parked[x.Delivery]
		if pk == nil {
			d.harness("the target released delivery %d, which it had not parked (or released before)", x.Delivery)
			continue
		}
		delete(k.parked, x.Delivery)
		k.releasedAny = true
		op := self
		switch {
		case self != nil && pk.op == self.ID && !x.Dropped:
			// Parked and answered within its own handling (what the
			// handling released completed it): simply answered, as the
			// check's replay takes it too.
			// (The observer takes its answer with the handling's.)
			self.Parked, self.Handled = false, 0
			if x.Response != nil {
				self.Response, self.Return = x.Response, ret
				k.n.answer(pk.r, x.Response, self)
			}
			continue
		case self == nil || pk.op != self.ID:
			op = &d.hist[pk.op]
		}
		ids = append(ids, pk.op)
		d.obs.classic.released(pk.r, op, x.Response, d.at)
		switch {
		case x.Dropped:
			op.Note = joinNote(op.Note, "dropped: the coordinator will never answer it")
			continue
		case x.Response == nil:
			d.harness("op %d (%s): the target released it with no answer and did not drop it", op.ID, history.RequestLabel(op))
			continue
		}
		op.Response, op.Return = x.Response, ret
		if k.n.closed[pk.r.handle] {
			// As a broker's answer to a closed socket: written nowhere.
			// An id it carries was still made for the process.
			if j, ok := x.Response.(*codec.JoinGroupResponse); ok && j.MemberId != "" && pk.r.p.role == roleClient {
				pk.r.p.heard(j.MemberId)
			}
			op.Note = joinNote(op.Note, "answered after its connection closed: the answer went nowhere")
			d.obs.answered(pk.r.h.RequestApiVersion, x.Response)
			continue
		}
		k.n.answer(pk.r, x.Response, op)
	}
	return ids
}

// groupOfDelivery is the group of the parked request with delivery
// number id ("" if there is none such).
func (k *parking) groupOfDelivery(id uint64) string {
	if pk := k.parked[id]; pk != nil {
		return k.n.d.hist[pk.op].GroupID()
	}
	return ""
}

// tick drains what a coordinator event other than a request released (its
// clock moving, or connection conn closing) and records it as tick
// operations, one per group, in the order the groups' first answers
// came; also, for a closed connection, one for each other group in also
// (the groups of requests still parked on it, whose later answers now go
// nowhere: the check replays the close). The caller holds mu.
func (k *parking) tick(kind history.TickKind, conn Conn, also []string) {
	d := k.n.d
	var rel []Release
	if k.parker != nil {
		rel = k.parker.Released()
	}
	if len(rel) == 0 && len(also) == 0 {
		return
	}
	var groups []string
	byGroup := map[string][]Release{}
	for _, x := range rel {
		g := k.groupOfDelivery(x.Delivery)
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], x)
	}
	for _, g := range also {
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
			byGroup[g] = nil
		}
	}
	for _, g := range groups {
		call := d.events.Add(1)
		ret := d.events.Add(1)
		op := history.Op{ID: len(d.hist), Client: len(d.procs.all), Name: "coordinator", At: d.at, Sent: d.round,
			Call: call, Return: ret, Tick: kind, Group: g}
		if kind == history.TickDisconnect {
			op.Conn = Conn{ID: conn.ID, Host: conn.Host}
		}
		op.Releases = k.release(byGroup[g], ret)
		d.hist = append(d.hist, op)
	}
}

// disconnected records what closing p's connection released, and the
// groups of what it still held on it (tick).
func (k *parking) disconnected(p *proc) {
	k.n.d.mu.Lock()
	defer k.n.d.mu.Unlock()
	var held []string
	for _, pk := range k.parked {
		if pk.r.handle == p.connID {
			if g := k.n.d.hist[pk.op].GroupID(); !slices.Contains(held, g) {
				held = append(held, g)
			}
		}
	}
	slices.Sort(held)
	k.tick(history.TickDisconnect, Conn{ID: p.wire, Host: p.host}, held)
}

// unreleased notes the operations the target parked and never released
// by the end of the run. A target that released nothing at all, ever,
// while it parked requests cannot answer them (a Parker in name only): a
// harness error naming them. One that answers others leaves these open
// for the check, which holds them to what the coordinator should have
// answered (the model releases them somewhere: a mismatch).
func (k *parking) unreleased() {
	if len(k.parked) == 0 {
		return
	}
	var ids []int
	for _, pk := range k.parked {
		ids = append(ids, pk.op)
	}
	slices.Sort(ids)
	if !k.releasedAny {
		k.n.d.harness("the target parked ops %v and never answered or dropped any request it parked (driver.Parker): the first, %s", ids, history.Describe(&k.n.d.hist[ids[0]]))
		return
	}
	for _, id := range ids {
		op := &k.n.d.hist[id]
		op.Note = joinNote(op.Note, "never answered nor dropped by the end of the run")
	}
}

// parkedOn reports whether a request of p's is parked on its connection.
func (k *parking) parkedOn(p *proc) bool {
	for _, pk := range k.parked {
		if pk.r.handle == p.connID {
			return true
		}
	}
	return false
}
