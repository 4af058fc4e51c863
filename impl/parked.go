package impl

import (
	"errors"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Held requests: the contract of model's parked.go, which impl keeps byte
// for byte (the equivalence property compares Released after every step):
//
//   - Conn.Delivery numbers each request handed to Handle, unique in a run;
//     a release names its request by it.
//   - Handle returns (nil, ErrParked) for a request the coordinator holds:
//     a classic JoinGroup or SyncGroup that must wait, or any request that
//     arrives on a connection whose earlier request is held (B8.5: unread
//     until that one is answered, then served in arrival order). A request
//     held and answered within its own call is simply answered.
//   - Released returns the answers given to held requests since the last
//     call: by a later Handle, by Expire (a timer), by Restart
//     (NOT_COORDINATOR). Dropped marks a request never to be answered (its
//     member was removed while its SyncGroup waited, or its connection
//     closed while it waited unread). Within a group they come in the
//     model's order; across groups in no promised order.
//   - An answer is to be encoded at its request's version, and, like every
//     response of impl, is read only (its byte slices may be the group's).
//   - Restart closes every connection: what each held unread is Dropped
//     first, and nothing held behind a request the restart answers is
//     served.
//   - Requests held behind those a timer answered are served after every
//     group's due timers have fired, at Expire's time; behind those a
//     Handle or Restart answered, before it returns; connection by
//     connection in ascending id order.
//   - A held request is kept, unread, until it is served: its caller must
//     not change it meanwhile (HandleHeartbeat's reused request included).
//
// A transport that blocks a connection while its request waits, as
// Kafka's socket server does, never has a request held behind another.

// ErrParked is Handle's error for a request the coordinator holds: its
// answer comes later, through Released.
var ErrParked = errors.New("impl: request held; its answer comes through Released")

// Release is the answer the coordinator gave to a request it held, as
// model.Release.
type Release struct {
	Delivery uint64
	// Response is nil when Dropped.
	Response codec.Message
	Dropped  bool
}

// Released returns the answers given to held requests since the last
// call, and forgets them.
// It takes no lock when there is nothing to return, so a transport may
// call it after every request.
func (c *Coordinator) Released() []Release {
	if c.nReleased.Load() == 0 {
		return nil
	}
	c.relMu.Lock()
	out := c.released
	c.released = nil
	c.nReleased.Store(0)
	c.relMu.Unlock()
	return out
}

// connHold is a connection with a held request: whether it waits (active,
// and for which delivery), and the requests behind it.
type connHold struct {
	active   bool
	delivery uint64
	queue    []heldRequest
}

type heldRequest struct {
	conn   Conn
	header codec.RequestHeader
	req    codec.Message
}

// cop is one classic operation under a group's lock: its time, the request
// it serves (self, whose answer may come within the operation), and the
// answers it gives, published once the lock is released.
type cop struct {
	c    *Coordinator
	now  int64
	conn Conn
	// self is the held record of the request being served while it waits;
	// selfAnswer its answer, if it came; selfDropped if it was dropped.
	self        heldReq
	selfAnswer  codec.Message
	selfDropped bool
	released    []Release
	unblocked   []heldReq
}

// park makes the held record of the request being served.
func (op *cop) park(version int16) heldReq {
	op.self = heldReq{on: true, version: version, delivery: op.conn.Delivery, conn: op.conn.ID}
	op.selfAnswer = nil
	return op.self
}

func (op *cop) isSelf(p heldReq) bool { return op.self.on && p == op.self }

// answer gives held request p its answer.
func (op *cop) answer(p heldReq, resp codec.Message) {
	if op.isSelf(p) {
		op.self.on, op.selfAnswer = false, resp
		return
	}
	op.released = append(op.released, Release{Delivery: p.delivery, Response: resp})
	op.unblocked = append(op.unblocked, p)
}

// drop ends held request p unanswered.
func (op *cop) drop(p heldReq) {
	if op.isSelf(p) {
		op.self.on, op.selfDropped = false, true
	}
	op.released = append(op.released, Release{Delivery: p.delivery, Dropped: true})
	op.unblocked = append(op.unblocked, p)
}

// finishLocked ends the operation while the group is still locked: a
// request that still waits holds its connection from now on.
func (op *cop) finishLocked() {
	if op.self.on {
		op.c.hold(op.conn)
	}
}

// publish hands the operation's answers to Released and lets the
// connections they unblock go on (resumeHeld serves what they hold).
func (op *cop) publish() {
	if len(op.released) == 0 {
		return
	}
	c := op.c
	c.relMu.Lock()
	c.released = append(c.released, op.released...)
	c.nReleased.Store(int32(len(c.released)))
	c.relMu.Unlock()
	for _, p := range op.unblocked {
		c.unblock(p)
	}
}

// result is what Handle returns for the operation's own request.
func (op *cop) result(resp codec.Message, err error) (codec.Message, error) {
	switch {
	case err != nil || resp != nil:
		return resp, err
	case op.self.on || op.selfDropped:
		return nil, ErrParked
	case op.selfAnswer != nil:
		return op.selfAnswer, nil
	}
	return nil, errors.New("impl: a classic request served without an answer")
}

// held reports whether conn's earlier request is held, and if so queues
// this one behind it; s is conn's shard, locked.
func (s *connShard) held(conn Conn, h *codec.RequestHeader, req codec.Message) bool {
	hd := s.holds[conn.ID]
	if hd == nil || !hd.active {
		return false
	}
	hd.queue = append(hd.queue, heldRequest{conn: conn, header: *h, req: req})
	return true
}

// hold makes conn wait for its request being served (delivery conn.Delivery).
func (c *Coordinator) hold(conn Conn) {
	s := &c.conns[conn.ID%nConnShards]
	s.mu.Lock()
	if s.holds == nil {
		s.holds = map[uint64]*connHold{}
		c.connsUsed.Or(1 << (conn.ID % nConnShards))
	}
	h := s.holds[conn.ID]
	if h == nil {
		h = &connHold{}
		s.holds[conn.ID] = h
	}
	h.active, h.delivery = true, conn.Delivery
	s.mu.Unlock()
}

// unblock lets p's connection go on if it still waits for p.
func (c *Coordinator) unblock(p heldReq) {
	s := &c.conns[p.conn%nConnShards]
	s.mu.Lock()
	h := s.holds[p.conn]
	resume := h != nil && h.active && h.delivery == p.delivery
	if resume {
		h.active = false
	}
	s.mu.Unlock()
	if resume {
		c.relMu.Lock()
		c.resume = append(c.resume, p.conn)
		c.nResume.Store(int32(len(c.resume)))
		c.relMu.Unlock()
	}
}

// nextResume takes the smallest connection id waiting to be resumed.
func (c *Coordinator) nextResume() (uint64, bool) {
	c.relMu.Lock()
	defer c.relMu.Unlock()
	if len(c.resume) == 0 {
		return 0, false
	}
	id := slices.Min(c.resume)
	c.resume = slices.DeleteFunc(c.resume, func(x uint64) bool { return x == id })
	c.nResume.Store(int32(len(c.resume)))
	return id, true
}

// nextHeld takes the next request held on conn, if the connection goes on;
// a connection with nothing left is forgotten.
func (c *Coordinator) nextHeld(conn uint64) (heldRequest, bool) {
	s := &c.conns[conn%nConnShards]
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.holds[conn]
	if h == nil || h.active {
		return heldRequest{}, false
	}
	if len(h.queue) == 0 {
		delete(s.holds, conn)
		return heldRequest{}, false
	}
	r := h.queue[0]
	h.queue[0] = heldRequest{}
	h.queue = h.queue[1:]
	return r, true
}

// resumeHeld serves the requests held behind answered ones, as the
// model's resumeHeld.
func (c *Coordinator) resumeHeld() {
	for {
		id, ok := c.nextResume()
		if !ok {
			return
		}
		for {
			r, ok := c.nextHeld(id)
			if !ok {
				break
			}
			resp, err := c.serve(r.conn, &r.header, r.req)
			switch {
			case errors.Is(err, ErrParked):
			case err != nil:
				c.release(Release{Delivery: r.conn.Delivery, Dropped: true})
			default:
				c.release(Release{Delivery: r.conn.Delivery, Response: resp})
			}
		}
	}
}

func (c *Coordinator) release(r Release) {
	c.relMu.Lock()
	c.released = append(c.released, r)
	c.nReleased.Store(int32(len(c.released)))
	c.relMu.Unlock()
}

// closeHeld is Restart's part for held requests: every connection closes,
// in id order, dropping what it held unread, as the model's closeHeld.
func (c *Coordinator) closeHeld() {
	var ids []uint64
	for i := range c.conns {
		s := &c.conns[i]
		s.mu.Lock()
		for id := range s.holds {
			ids = append(ids, id)
		}
		s.mu.Unlock()
	}
	slices.Sort(ids)
	for _, id := range ids {
		c.disconnectHeld(id)
	}
}

// disconnectHeld drops what conn held unread; a held JoinGroup or
// SyncGroup of it still waits in its group.
func (c *Coordinator) disconnectHeld(conn uint64) {
	s := &c.conns[conn%nConnShards]
	s.mu.Lock()
	h := s.holds[conn]
	delete(s.holds, conn)
	s.mu.Unlock()
	if h == nil {
		return
	}
	for _, r := range h.queue {
		c.release(Release{Delivery: r.conn.Delivery, Dropped: true})
	}
}
