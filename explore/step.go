package explore

import (
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// apply makes the state event e leads to from s. s is not changed. The
// error is impl differing from the model (*lockstepError), a path out of
// the explorer's bounds, or a harness error.
func (w *worker) apply(s *state, e event) (*state, error) {
	t := s.clone()
	i, k, dir := e.slot(), e.conn(), e.dir()
	var err error
	switch e.kind() {
	case evJoin:
		err = w.join(t, i)
	case evLeave:
		w.leave(t, i)
	case evClose:
		err = w.end(t, i, true)
	case evSend:
		w.send(t, i)
	case evDeliver:
		if dir == 0 {
			err = w.deliverRequest(t, i, k, false)
		} else {
			w.deliverAnswer(t, i, k)
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
		err = w.end(t, i, false)
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
// again), and puts the answer on the connection if its process lives.
func (w *worker) deliverRequest(t *state, i, k int, dup bool) error {
	sl := &t.slots[i]
	sl.ownConns()
	cn := &sl.conns[k]
	m := cn.reqs[0]
	if !dup {
		cn.reqs = cn.reqs[1:]
	}
	co := w.step(t)
	resp, n, err := w.request(co, t.now, t.nextID, cn.id, m.h, m.req)
	t.nextID = n
	if err != nil {
		return err
	}
	if rec := sl.record(cn.inc); rec != nil {
		rec.seen, rec.graceEnd = true, t.now+w.cfg.SessionTimeoutMs
		if hb, ok := m.req.(*codec.ConsumerGroupHeartbeatRequest); ok {
			switch hb.MemberEpoch {
			case rules.LeaveEpoch:
				rec.left = true
			case rules.JoinEpoch:
				rec.left = false
			}
		}
		if hb, ok := resp.(*codec.ConsumerGroupHeartbeatResponse); ok && hb.ErrorCode == codec.None && hb.MemberId.Valid {
			rec.ids = withID(rec.ids, hb.MemberId.Value)
		}
	}
	if !cn.draining && sl.live && sl.inc == cn.inc {
		cn.resps = push(cn.resps, msg{seq: t.seq, n: m.n, corr: m.corr, version: m.version, resp: resp})
		t.seq++
	}
	if cn.draining && len(cn.reqs) == 0 {
		w.closeConn(co, sl, k)
	}
	return w.settle(co, t.now)
}

// closeConn closes slot's connection k on co (stepped already): the
// coordinator forgets its context, and it leaves the slot's list.
func (w *worker) closeConn(co *coord, sl *slot, k int) {
	id := sl.conns[k].id
	co.m.Disconnect(id)
	co.i.Disconnect(id)
	sl.conns = slices.Delete(slices.Clone(sl.conns), k, k+1)
}

// deliverAnswer gives the head answer of slot i's connection k to its
// process.
func (w *worker) deliverAnswer(t *state, i, k int) {
	sl := &t.slots[i]
	sl.ownConns()
	cn := &sl.conns[k]
	m := cn.resps[0]
	cn.resps = cn.resps[1:]
	w.absorb(t, sl, m)
}

// lose drops the head of a queue. A draining connection whose last
// request is lost closes.
func (w *worker) lose(t *state, i, k, dir int) error {
	sl := &t.slots[i]
	sl.ownConns()
	cn := &sl.conns[k]
	if dir == 1 {
		cn.resps = cn.resps[1:]
		return nil
	}
	cn.reqs = cn.reqs[1:]
	if cn.draining && len(cn.reqs) == 0 {
		co := w.step(t)
		w.closeConn(co, sl, k)
		return w.settle(co, t.now)
	}
	return nil
}

// delay marks the head of a queue as one that may wait while time moves.
func (w *worker) delay(t *state, i, k, dir int) {
	sl := &t.slots[i]
	sl.ownConns()
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
	sl := &t.slots[i]
	k := sl.current()
	co := w.step(t)
	inc := sl.conns[k].inc
	w.closeConn(co, sl, k)
	sl.conns = append(sl.conns, w.newConn(sl, i, inc))
	return w.settle(co, t.now)
}

// restartCoordinator restarts the coordinator at the current time: every
// connection closes with what is on it, each live process goes on on a
// new one, and every session still running starts afresh (so does every
// ended process's grace, as rules.Process.GraceUntil says).
func (w *worker) restartCoordinator(t *state) error {
	co := w.step(t)
	w.clock.now = t.now
	co.m.Restart()
	co.i.Restart()
	for i := range t.slots {
		sl := &t.slots[i]
		sl.conns = nil
		if sl.live {
			sl.conns = []conn{w.newConn(sl, i, sl.inc)}
		}
		restartGrace := func(r *record) {
			if r.seen && r.graceEnd > t.now {
				r.graceEnd = t.now + w.cfg.SessionTimeoutMs
			}
		}
		restartGrace(&sl.rec)
		sl.ended = slices.Clone(sl.ended)
		for k := range sl.ended {
			restartGrace(&sl.ended[k])
		}
	}
	return w.settle(co, t.now)
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
	co.m.Advance(at)
	w.clock.now = at
	co.i.Expire()
	t.now = at
	for i := range t.slots {
		w.timeouts(t, &t.slots[i])
		sl := &t.slots[i]
		over := func(r record) bool { return !sl.accounts(&r, t.now) }
		if slices.ContainsFunc(sl.ended, over) {
			sl.ended = slices.DeleteFunc(slices.Clone(sl.ended), over)
		}
	}
	return w.settle(co, t.now)
}

// newConn is a new connection for slot i's process inc, under the slot's
// connection id no open connection of it has (a slot has two: a
// connection of an ended process may still drain while the next
// process's is open).
func (w *worker) newConn(sl *slot, i, inc int) conn {
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
	sl := &t.slots[i]
	sl.ownConns()
	cn := &sl.conns[sl.current()]
	h := sl.c.Header(&cn.cc, req.Key(), version)
	sl.sent++
	cn.reqs = push(cn.reqs, msg{seq: t.seq, n: sl.sent, corr: h.CorrelationId, version: version, h: &h, req: req})
	t.seq++
	return h.CorrelationId
}
