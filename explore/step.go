package explore

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// apply makes the state event e leads to from s. s is not changed. The
// error is impl differing from the model (*lockstepError), a path out of
// the explorer's bounds, or a harness error.
func (w *worker) apply(s *state, e event) (*state, error) {
	t := s.clone()
	i, k, dir := e.slot(), e.conn(), e.dir()
	var err error
	classic := i < len(w.cfg.Clients) && w.cfg.Clients[i].Classic
	switch e.kind() {
	case evJoin:
		if classic {
			err = w.joinClassic(t, i)
		} else {
			err = w.join(t, i)
		}
	case evLeave:
		if classic {
			w.leaveClassic(t, i)
		} else {
			w.leave(t, i)
		}
	case evClose:
		if classic {
			err = w.endClassic(t, i, true, nil)
		} else {
			err = w.end(t, i, true)
		}
	case evSend:
		if classic {
			err = w.sendClassic(t, i)
		} else {
			w.send(t, i)
		}
	case evDeliver:
		if dir == 0 {
			err = w.deliverRequest(t, i, k, false)
		} else {
			err = w.deliverAnswer(t, i, k)
		}
	case evLose:
		t.faults--
		err = w.lose(t, i, k, dir)
	case evDuplicate:
		t.faults--
		err = w.deliverRequest(t, i, k, true)
	case evDelay:
		t.faults--
		w.delay(t, i, k, dir)
	case evDisconnect:
		t.faults--
		err = w.disconnect(t, i)
	case evCrash:
		t.faults--
		if classic {
			err = w.endClassic(t, i, false, nil)
		} else {
			err = w.end(t, i, false)
		}
	case evRestart:
		t.faults--
		err = w.restartCoordinator(t)
	case evAdmin:
		err = w.admin(t, i, k)
	case evTick:
		err = w.tick(t)
	default:
		err = fmt.Errorf("explore: unknown event %v", e)
	}
	t.co.retain() // the parent's, or the one its step made
	return t, err
}

// step replaces t's coordinator by a fork of it, to be stepped.
func (w *worker) step(t *state) *coord {
	co := w.fork(t.co)
	t.co = co
	return co
}

// deliverRequest hands the head request of slot i's connection k to the
// coordinator (twice over for a duplicate: the head then stays, to arrive
// again), and puts the answer on the connection if its process lives; a
// request the coordinator holds waits in t.held for its answer.
func (w *worker) deliverRequest(t *state, i, k int, dup bool) error {
	sl := t.mut(i)
	cn := &sl.conns[k]
	m := cn.reqs[0]
	if !dup {
		cn.reqs = cn.reqs[1:]
	}
	co := w.step(t)
	d := t.nextDelivery()
	resp, n, parked, err := w.request(co, t.now, t.nextID, cn.id, d, m.h, m.req)
	t.nextID = n
	if err != nil {
		return err
	}
	if rec := sl.record(cn.inc); rec != nil {
		rec.seen, rec.graceEnd = true, t.now+w.cfg.SessionTimeoutMs
		switch r := m.req.(type) {
		case *codec.ConsumerGroupHeartbeatRequest:
			switch r.MemberEpoch {
			case rules.LeaveEpoch:
				rec.left = true
			case rules.JoinEpoch:
				rec.left = false
			}
		case *codec.LeaveGroupRequest:
			rec.left = true
		case *codec.JoinGroupRequest:
			rec.left = false
		}
	}
	if parked {
		h := held{delivery: d, slot: i, conn: cn.id, inc: cn.inc, n: m.n, corr: m.corr, version: m.version}
		t.ownHeld()
		at, _ := slices.BinarySearchFunc(t.held, d, func(h held, d uint64) int { return cmp.Compare(h.delivery, d) })
		t.held = slices.Insert(t.held, at, h)
	} else {
		w.answer(t, i, cn.id, cn.inc, m.n, m.corr, m.version, resp)
	}
	cn = &sl.conns[k]
	if cn.draining && len(cn.reqs) == 0 {
		w.closeConn(t, co, sl, k)
	}
	return w.settle(t)
}

// answer records the coordinator's answer to a request of slot i's process
// inc, sent on connection conn (the coordinator's id), and puts it on that
// connection if it is still open and its process lives: the ids it
// carries join the process's record (AllIDs), made and told to it.
func (w *worker) answer(t *state, i int, conn uint64, inc, n int, corr int32, version int16, resp codec.Message) {
	sl := t.mut(i)
	if rec := sl.record(inc); rec != nil {
		switch r := resp.(type) {
		case *codec.ConsumerGroupHeartbeatResponse:
			if r.ErrorCode == codec.None && r.MemberId.Valid {
				rec.ids = withID(rec.ids, r.MemberId.Value)
			}
		case *codec.JoinGroupResponse:
			if r.MemberId != "" {
				rec.ids = withID(rec.ids, r.MemberId)
			}
		}
	}
	for k := range sl.conns {
		cn := &sl.conns[k]
		if cn.id != conn || cn.inc != inc {
			continue
		}
		if !cn.draining && sl.live && sl.inc == inc {
			cn = &sl.conns[k]
			cn.resps = push(cn.resps, msg{seq: t.seq, n: n, corr: corr, version: version, resp: resp})
			t.seq++
		}
		return
	}
}

// released takes the answers the coordinators gave held requests in the
// step just made, holds impl's to the model's (the same requests, in the
// same order, byte-identical answers), and hands each to its request's
// connection (answer); a dropped one is never answered.
func (w *worker) released(t *state) error {
	mr, ir := t.co.m.Released(), t.co.i.Released()
	if len(mr) == 0 && len(ir) == 0 {
		return nil
	}
	if w.counting && len(mr) != len(ir) {
		return &lockstepError{fmt.Sprintf("the model released %d held requests' answers, impl %d", len(mr), len(ir))}
	}
	t.ownHeld()
	for j, r := range mr {
		at, ok := slices.BinarySearchFunc(t.held, r.Delivery, func(h held, d uint64) int { return cmp.Compare(h.delivery, d) })
		if !ok {
			return fmt.Errorf("explore: the coordinator released delivery %d, which it did not hold", r.Delivery)
		}
		h := t.held[at]
		t.held = slices.Delete(t.held, at, at+1)
		if w.counting {
			x := ir[j]
			if x.Delivery != r.Delivery || x.Dropped != r.Dropped {
				return &lockstepError{fmt.Sprintf("released: the model answered delivery %d (dropped %v), impl delivery %d (dropped %v)", r.Delivery, r.Dropped, x.Delivery, x.Dropped)}
			}
			if !r.Dropped {
				w.menc, _ = r.Response.AppendTo(w.menc[:0], h.version)
				w.ienc, _ = x.Response.AppendTo(w.ienc[:0], h.version)
				if !bytes.Equal(w.menc, w.ienc) {
					return &lockstepError{fmt.Sprintf("the answer to held %v v%d: impl answered %s where the model answered %s", r.Response.Key(), h.version, showMessage(x.Response), showMessage(r.Response))}
				}
			}
		}
		if !r.Dropped && !h.orphan {
			w.answer(t, h.slot, h.conn, h.inc, h.n, h.corr, h.version, r.Response)
		}
	}
	return nil
}

// closeConn closes slot's connection k on co (stepped already): the
// coordinator forgets its context, and it leaves the slot's list; the
// requests of it the coordinator holds are orphans, their answers going
// nowhere.
func (w *worker) closeConn(t *state, co *coord, sl *slot, k int) {
	id, inc := sl.conns[k].id, sl.conns[k].inc
	co.m.Disconnect(id)
	co.i.Disconnect(id)
	sl.conns = slices.Delete(sl.conns, k, k+1)
	owned := false
	for j, h := range t.held {
		if h.conn == id && h.inc == inc && t.slots[h.slot] == sl && !h.orphan {
			if !owned {
				t.ownHeld()
				owned = true
			}
			t.held[j].orphan = true
		}
	}
}

// deliverAnswer gives the head answer of slot i's connection k to its
// process.
func (w *worker) deliverAnswer(t *state, i, k int) error {
	sl := t.mut(i)
	cn := &sl.conns[k]
	m := cn.resps[0]
	cn.resps = cn.resps[1:]
	if sl.k != nil {
		return w.absorbClassic(t, i, m)
	}
	w.absorb(t, sl, m)
	if sl.c.State() == client.Fatal {
		return w.end(t, i, false) // FENCED_INSTANCE_ID: the consumer failed
	}
	return nil
}

// lose drops the head of a queue. A draining connection whose last
// request is lost closes.
func (w *worker) lose(t *state, i, k, dir int) error {
	sl := t.mut(i)
	cn := &sl.conns[k]
	if dir == 1 {
		cn.resps = cn.resps[1:]
		return nil
	}
	cn.reqs = cn.reqs[1:]
	if cn.draining && len(cn.reqs) == 0 {
		co := w.step(t)
		w.closeConn(t, co, sl, k)
		return w.settle(t)
	}
	return nil
}

// delay marks the head of a queue as one that may wait while time moves.
func (w *worker) delay(t *state, i, k, dir int) {
	sl := t.mut(i)
	cn := &sl.conns[k]
	q := &cn.reqs
	if dir == 1 {
		q = &cn.resps
	}
	*q = slices.Clone(*q)
	(*q)[0].delayed = true
}

// disconnect closes the current connection of slot i's process: what is
// on it is lost, and the process goes on on a new one.
func (w *worker) disconnect(t *state, i int) error {
	sl := t.mut(i)
	k := sl.current()
	co := w.step(t)
	inc := sl.conns[k].inc
	w.closeConn(t, co, sl, k)
	sl.conns = append(sl.conns, w.newConn(sl, i, inc))
	if sl.k != nil {
		w.connectionLost(sl)
	}
	return w.settle(t)
}

// restartCoordinator restarts the coordinator at the current time: every
// connection closes with what is on it, each live process goes on on a
// new one, and every session still running starts afresh (so does every
// ended process's grace, as rules.Process.GraceUntil says).
//
// The requests the coordinator held are orphans (their connections
// closed): Restart answers them NOT_COORDINATOR, and the answers go
// nowhere; a classic process gives up its JoinGroup, SyncGroup and
// Heartbeat at once, as its network client fails them when the connection
// drops (connectionLost).
func (w *worker) restartCoordinator(t *state) error {
	co := w.step(t)
	w.clock.now = t.now
	if len(t.held) > 0 {
		t.ownHeld()
		for j := range t.held {
			t.held[j].orphan = true
		}
	}
	co.m.Restart()
	co.i.Restart()
	if w.classic {
		if err := w.released(t); err != nil {
			return err
		}
	}
	for i := range t.slots {
		sl := t.mut(i)
		if w.classic {
			for _, cn := range sl.conns { // the coordinator forgets what it held of them
				co.m.Disconnect(cn.id)
				co.i.Disconnect(cn.id)
			}
		}
		clear(sl.conns)
		sl.conns = sl.conns[:0]
		if sl.live {
			sl.conns = append(sl.conns, w.newConn(sl, i, sl.inc))
			if sl.k != nil {
				w.connectionLost(sl)
			}
		}
		restartGrace := func(r *record) {
			if r.seen && r.graceEnd > t.now {
				r.graceEnd = t.now + w.cfg.SessionTimeoutMs
			}
		}
		restartGrace(&sl.rec)
		for k := range sl.ended {
			restartGrace(&sl.ended[k])
		}
	}
	return w.settle(t)
}

// tick moves time to the next deadline: the coordinator's timers due by
// then fire (model.Advance, impl.Expire), then the clients' (a request
// that timed out is given up on), and ended processes whose grace is over
// are forgotten.
func (w *worker) tick(t *state) error {
	at, ok := w.tickTo(t)
	if !ok {
		return fmt.Errorf("explore: a tick with no deadline ahead")
	}
	co := w.step(t)
	// The timers may end a wait and so serve a request held unread behind
	// it on its connection (model/parked.go): a JoinGroup that makes a
	// member id. Both coordinators draw from the state's next id, as in
	// request.
	mn, in := w.drawIDs(t.nextID, true, func() { co.m.Advance(at) }, func() {
		w.clock.now = at
		co.i.Expire()
	})
	if mn > maxIDs || in > maxIDs {
		return errTooManyIDs
	}
	if w.counting && mn != in {
		return &lockstepError{fmt.Sprintf("a tick to t=%d: the model made %d member ids, impl %d", at, mn-t.nextID, in-t.nextID)}
	}
	t.now, t.nextID = at, mn
	for i := range t.slots {
		if w.cfg.Clients[i].Classic {
			w.classicTimeouts(t, i, co)
		} else {
			w.timeouts(t, t.mut(i))
		}
		sl := t.mut(i)
		over := func(r record) bool { return !sl.accounts(&r, t.now) }
		sl.ended = slices.DeleteFunc(sl.ended, over) // the slot's own (mut)
	}
	return w.settle(t)
}

// newConn is a new connection for slot i's process inc, under the slot's
// connection id no open connection of it has (a slot has two: a
// connection of an ended process may still drain while the next
// process's is open).
func (w *worker) newConn(sl *slot, i, inc int) conn {
	sl.opened++
	id := uint64(2*i + 1)
	for _, c := range sl.conns {
		if c.id == id {
			id++
		}
	}
	return conn{id: id, inc: inc}
}

// send puts a request of slot i's process on its current connection and
// returns its correlation id.
func (w *worker) sendRequest(t *state, i int, req codec.Message, version int16) int32 {
	sl := t.mut(i)
	cn := &sl.conns[sl.current()]
	h := sl.c.Header(&cn.cc, req.Key(), version)
	sl.sent++
	cn.reqs = push(cn.reqs, msg{seq: t.seq, n: sl.sent, corr: h.CorrelationId, version: version, h: &h, req: req})
	t.seq++
	return h.CorrelationId
}
