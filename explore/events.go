package explore

import "fmt"

// evKind is what happens in one step.
type evKind uint8

// The events the explorer branches on. Joins and leaves are the clients'
// operations (Config.Ops); a close is a process ending cleanly; a send is
// a client's due heartbeat; a delivery moves the head of a connection's
// queue; the faults (Config.Faults) cost one of MaxFaults each; a tick
// moves time to the next deadline.
const (
	evJoin       evKind = iota // a process joins (starting one if none lives)
	evLeave                    // it leaves its group for good (epoch -1)
	evClose                    // the process ends cleanly (a leave first if a member)
	evSend                     // it sends its due heartbeat
	evDeliver                  // the head of a queue arrives
	evLose                     // fault: the head of a queue is lost
	evDuplicate                // fault: the head request arrives twice
	evDelay                    // fault: the head of a queue waits while time moves
	evDisconnect               // fault: the process's connection closes
	evCrash                    // fault: the process dies without a leave
	evRestart                  // fault: the coordinator restarts
	evAdmin                    // the admin's LeaveGroup arrives (admin.go)
	evTick                     // time moves to the next deadline
	evEnd
)

var evNames = [...]string{"join", "leave", "close", "send", "deliver", "lose", "duplicate", "delay", "disconnect", "crash", "restart", "admin", "tick"}

// event is one step, packed for the search tree: its kind, the client
// slot, the connection (its index in the slot's list) and the direction
// (0 a request, 1 an answer) it concerns.
type event uint32

func mkEvent(k evKind, slot, conn, dir int) event {
	return event(uint32(k) | uint32(slot)<<8 | uint32(conn)<<16 | uint32(dir)<<24)
}

func (e event) kind() evKind { return evKind(e & 0xff) }
func (e event) slot() int    { return int(e>>8) & 0xff }
func (e event) conn() int    { return int(e>>16) & 0xff }
func (e event) dir() int     { return int(e>>24) & 0xff }

// String names the event for a trace.
func (e event) String() string {
	k := e.kind()
	if k >= evEnd {
		return fmt.Sprintf("event(%#x)", uint32(e))
	}
	switch k {
	case evTick, evRestart:
		return evNames[k]
	case evAdmin:
		return fmt.Sprintf("admin LeaveGroup %s to %s", adminNames[e.conn()%adminKinds], groupID(e.slot()))
	case evDeliver, evLose, evDuplicate, evDelay:
		what := "request"
		if e.dir() == 1 {
			what = "answer"
		}
		return fmt.Sprintf("%s c%d %s (conn %d)", evNames[k], e.slot(), what, e.conn())
	}
	return fmt.Sprintf("%s c%d", evNames[k], e.slot())
}

// enabled appends every event enabled in s, in a fixed order.
func (w *worker) enabled(s *state, out []event) []event {
	cfg := w.cfg
	fault := func(f Fault) bool { return cfg.Faults.Has(f) && s.faults > 0 }
	for i := range s.slots {
		sl := s.slots[i]
		if sl.ops > 0 && (!sl.live || !sl.wants) && s.nextID < maxIDs {
			out = append(out, mkEvent(evJoin, i, 0, 0))
		}
		if sl.ops > 0 && sl.live && sl.wants {
			out = append(out, mkEvent(evLeave, i, 0, 0))
		}
		if sl.live {
			out = append(out, mkEvent(evClose, i, 0, 0))
		}
		if sl.sendDue(s.now) {
			out = append(out, mkEvent(evSend, i, 0, 0))
		}
	}
	oldest, anyHead := w.oldest(s)
	for i := range s.slots {
		for k, cn := range s.slots[i].conns {
			for dir, q := range [2][]msg{cn.reqs, cn.resps} {
				if len(q) == 0 {
					continue
				}
				h := q[0]
				if !h.delayed && !cfg.Faults.Has(Reorder) && (!anyHead || h.seq != oldest) {
					continue
				}
				out = append(out, mkEvent(evDeliver, i, k, dir))
				if dir == 0 && fault(LostRequest) || dir == 1 && fault(LostResponse) {
					out = append(out, mkEvent(evLose, i, k, dir))
				}
				if dir == 0 && fault(Duplicate) {
					out = append(out, mkEvent(evDuplicate, i, k, dir))
				}
				if !h.delayed && fault(Delay) {
					out = append(out, mkEvent(evDelay, i, k, dir))
				}
			}
		}
	}
	for i := range s.slots {
		sl := s.slots[i]
		if sl.live && fault(Disconnect) {
			out = append(out, mkEvent(evDisconnect, i, 0, 0))
		}
		if sl.live && fault(Crash) && sl.current() == 0 && len(sl.conns) == 1 {
			out = append(out, mkEvent(evCrash, i, 0, 0))
		}
	}
	if fault(CoordinatorRestart) {
		out = append(out, mkEvent(evRestart, 0, 0, 0))
	}
	if s.admin > 0 {
		for _, g := range w.groups {
			for kind := 0; kind < adminKinds; kind++ {
				if len(w.adminEntries(s, g, kind)) > 0 {
					out = append(out, mkEvent(evAdmin, g, kind, 0))
				}
			}
		}
	}
	if _, ok := w.tickTo(s); ok {
		out = append(out, mkEvent(evTick, 0, 0, 0))
	}
	return out
}

// sendDue reports whether the slot's process must send its heartbeat now
// (a classic one: its JoinGroup, SyncGroup or heartbeat).
func (sl *slot) sendDue(now int64) bool {
	if sl.k != nil {
		return sl.classicDue(now)
	}
	return sl.live && sl.wants && !sl.hb.set && !sl.lv.set && sl.due <= now
}

// oldest is the send order of the oldest message at the head of a queue
// and not delayed: without Reorder, the only one that may arrive (besides
// delayed ones).
func (w *worker) oldest(s *state) (uint32, bool) {
	var best uint32
	found := false
	for i := range s.slots {
		for _, cn := range s.slots[i].conns {
			for _, q := range [2][]msg{cn.reqs, cn.resps} {
				if len(q) > 0 && !q[0].delayed && (!found || q[0].seq < best) {
					best, found = q[0].seq, true
				}
			}
		}
	}
	return best, found
}

// tickTo is where time moves next, if it may move: nothing is urgent (no
// heartbeat due, no message at the head of a queue that is not delayed)
// and some deadline is ahead (a coordinator timer, a request's timeout, a
// heartbeat's interval).
func (w *worker) tickTo(s *state) (int64, bool) {
	at, ok := s.co.next, s.co.hasNext
	consider := func(t int64) {
		if !ok || t < at {
			at, ok = t, true
		}
	}
	for i := range s.slots {
		sl := s.slots[i]
		if sl.sendDue(s.now) {
			return 0, false
		}
		for _, cn := range sl.conns {
			if len(cn.reqs) > 0 && !cn.reqs[0].delayed || len(cn.resps) > 0 && !cn.resps[0].delayed {
				return 0, false
			}
		}
		if !sl.live {
			continue
		}
		if sl.k != nil {
			if sl.gm.set {
				consider(sl.gm.sentAt + w.gmTimeout(sl.gmJoin))
			}
			if sl.hb.set {
				consider(sl.hb.sentAt + w.cfg.RequestTimeoutMs)
			} else if sl.wants && sl.k.Heartbeating() {
				consider(sl.due)
			}
			if sl.lv.set {
				consider(sl.lv.sentAt + w.cfg.RequestTimeoutMs)
			}
			continue
		}
		if sl.hb.set {
			consider(sl.hb.sentAt + w.cfg.RequestTimeoutMs)
		}
		if sl.lv.set {
			consider(sl.lv.sentAt + w.cfg.RequestTimeoutMs)
		}
		if sl.wants && !sl.hb.set && !sl.lv.set {
			consider(sl.due)
		}
	}
	return at, ok
}
