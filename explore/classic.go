package explore

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
)

// The classic protocol's clients: each process a client.Classic, the
// reference classic consumer (docs/PROTOCOL.md A6.6), beside a
// client.Client that gives it its headers (ClientId on a connection's
// first request, the client instance id); what it does at each event, as
// the driver of `ghostcheck run` drives it (driver/classic.go). The
// coordinator holds a JoinGroup or SyncGroup that must wait (and what its
// connection sends behind it): its answer comes out of a later step,
// through Released (settle).
//
// Abstracted: a backoff is none (the retry is due at once); a JoinGroup's
// answer is awaited for the rebalance timeout and a request timeout
// (Kafka's client: the rebalance timeout and 5 s), a SyncGroup's and a
// Heartbeat's for a request timeout; a heartbeat is due one heartbeat
// interval after the join's answer and after each heartbeat's. When a
// JoinGroup or SyncGroup and a heartbeat are due at once, the JoinGroup
// or SyncGroup goes first.

// startClassic starts a new classic process in slot i: its client
// instance id is made now, and it opens a connection.
func (w *worker) startClassic(t *state, i int) error {
	sl := t.mut(i)
	cl := w.cfg.Clients[i]
	sl.next(t.now)
	c, err := client.New(client.Config{ClientID: clientID, GroupID: w.cfg.GroupOf(i), InstanceID: cl.Instance, Topics: []string{topicName},
		RebalanceTimeoutMs: w.cfg.RebalanceTimeoutMs, Rand: newIDReader(instanceUUID(i, sl.inc), [16]byte{})})
	if err != nil {
		return fmt.Errorf("explore: starting client %d: %w", i, err)
	}
	k, err := client.NewClassic(client.ClassicConfig{GroupID: w.cfg.GroupOf(i), InstanceID: cl.Instance, Topics: []string{topicName},
		Partitions: map[string]int32{topicName: w.cfg.Partitions}, SessionTimeoutMs: int32(w.cfg.SessionTimeoutMs), RebalanceTimeoutMs: w.cfg.RebalanceTimeoutMs})
	if err != nil {
		return fmt.Errorf("explore: starting classic client %d: %w", i, err)
	}
	sl.c, sl.k, sl.live, sl.made, sl.sent = c, k, true, "", 0
	sl.hb, sl.lv, sl.gm, sl.hbReq = outstanding{}, outstanding{}, outstanding{}, nil
	sl.rec = record{inc: sl.inc, instance: c.InstanceID()}
	sl.conns = append(sl.conns, w.newConn(sl, i, sl.inc))
	return nil
}

// joinClassic is the join operation of a classic slot: a process that
// lives and has left wants membership again (it joins anew); otherwise a
// new process starts.
func (w *worker) joinClassic(t *state, i int) error {
	sl := t.mut(i)
	sl.ops--
	if !sl.live {
		if err := w.startClassic(t, i); err != nil {
			return err
		}
	}
	sl.wants = true
	sl.ownClassic().Start()
	return nil
}

// leaveClassic is the leave operation: the consumer leaves its group (a
// dynamic member's LeaveGroup; a static member sends none) and lives on.
func (w *worker) leaveClassic(t *state, i int) {
	sl := t.mut(i)
	sl.ops--
	sl.wants = false
	sl.gm, sl.hb, sl.hbReq = outstanding{}, outstanding{}, nil // their answers, if they come, are dropped
	if req, v := sl.ownClassic().Leave(); req != nil {
		sl.lv = outstanding{set: true, corr: w.sendRequest(t, i, req, v), sentAt: t.now}
	}
}

// endClassic ends slot i's classic process: cleanly (a close: a dynamic
// member's LeaveGroup first) or not (a crash, or a fatal error: it sends
// nothing more). Its connection closes once the requests it wrote have
// arrived; co is the coordinator already stepped in this transition, nil
// if none was.
func (w *worker) endClassic(t *state, i int, clean bool, co *coord) error {
	sl := t.mut(i)
	k := sl.ownClassic()
	sl.rec.memberID = k.MemberID()
	switch {
	case clean:
		if req, v := k.Close(); req != nil {
			w.sendRequest(t, i, req, v)
		}
	case k.State() != client.ClassicFatal:
		k.Crash()
	}
	sl.live, sl.wants = false, false
	sl.gm, sl.hb, sl.lv, sl.hbReq = outstanding{}, outstanding{}, outstanding{}, nil
	c := sl.current()
	sl.conns[c].draining = true
	sl.conns[c].resps = nil
	if len(sl.conns[c].reqs) > 0 {
		return nil
	}
	if co != nil {
		w.closeConn(t, co, sl, c)
		return nil
	}
	co = w.step(t)
	w.closeConn(t, co, sl, c)
	return w.settle(t)
}

// sendClassic sends what the consumer has due: its JoinGroup or
// SyncGroup, else its heartbeat.
func (w *worker) sendClassic(t *state, i int) error {
	sl := t.mut(i)
	k := sl.ownClassic()
	if !sl.gm.set && k.Due() != client.DueNothing {
		var req codec.Message
		var v int16
		join := k.Due() == client.DueJoin
		if join {
			r, rv := k.JoinGroup()
			if r == nil { // the consumer cannot join this broker: fatal
				return w.endClassic(t, i, false, nil)
			}
			if r.MemberId != "" {
				sl.rec.known = withID(sl.rec.known, r.MemberId)
			}
			req, v = r, rv
		} else {
			r, rv := k.SyncGroup()
			if r == nil {
				return fmt.Errorf("explore: client %d had a SyncGroup due and built none", i)
			}
			req, v = r, rv
		}
		sl.gm, sl.gmJoin = outstanding{set: true, corr: w.sendRequest(t, i, req, v), sentAt: t.now}, join
		return nil
	}
	req, v := k.Heartbeat()
	sl.hbReq = req
	sl.hb = outstanding{set: true, corr: w.sendRequest(t, i, req, v), sentAt: t.now}
	return nil
}

// classicDue reports whether slot's classic process must send now: a
// JoinGroup or SyncGroup it has due, or a heartbeat.
func (sl *slot) classicDue(now int64) bool {
	if !sl.live || !sl.wants {
		return false
	}
	return !sl.gm.set && sl.k.Due() != client.DueNothing || sl.k.Heartbeating() && !sl.hb.set && sl.due <= now
}

// absorbClassic gives an answer to the slot's live classic process: the
// answer to its JoinGroup or SyncGroup, its heartbeat or its leave; a late
// answer to a request it gave up on is dropped. Then it does what the
// consumer asks (react).
func (w *worker) absorbClassic(t *state, i int, m msg) error {
	sl := t.mut(i)
	var re client.Reaction
	switch {
	case sl.gm.set && m.corr == sl.gm.corr:
		sl.gm = outstanding{}
		k := sl.ownClassic()
		switch resp := m.resp.(type) {
		case *codec.JoinGroupResponse:
			re = k.OnJoinGroup(resp)
			if id := k.MemberID(); id != "" {
				sl.rec.known = withID(sl.rec.known, id)
			}
			sl.rec.memberID = k.MemberID()
			if resp.ErrorCode == codec.None {
				sl.due = t.now + int64(w.cfg.HeartbeatIntervalMs) // the first heartbeat one interval after the join
			}
		case *codec.SyncGroupResponse:
			re = k.OnSyncGroup(resp)
		}
	case sl.hb.set && m.corr == sl.hb.corr:
		sl.hb = outstanding{}
		sl.due = t.now + int64(w.cfg.HeartbeatIntervalMs)
		if resp, ok := m.resp.(*codec.HeartbeatResponse); ok && sl.hbReq != nil {
			re = sl.ownClassic().OnHeartbeat(sl.hbReq, resp)
		}
		sl.hbReq = nil
	case sl.lv.set && m.corr == sl.lv.corr:
		sl.lv = outstanding{}
		return nil
	default:
		return nil
	}
	return w.react(t, i, re, nil)
}

// react does what the consumer asked after an answer or a lost one: a new
// connection now (the old one closes: what the coordinator held of it is
// an orphan); and a consumer that failed ends its process. co is the
// coordinator already stepped in this transition, nil if none was (then
// react steps and settles it itself, if it must).
func (w *worker) react(t *state, i int, re client.Reaction, co *coord) error {
	sl := t.mut(i)
	if sl.k.State() == client.ClassicFatal {
		return w.endClassic(t, i, false, co)
	}
	if re != client.Reconnect {
		return nil
	}
	sl.gm, sl.hb, sl.hbReq = outstanding{}, outstanding{}, nil
	settle := co == nil
	if settle {
		co = w.step(t)
	}
	c := sl.current()
	inc := sl.conns[c].inc
	w.closeConn(t, co, sl, c)
	sl.conns = append(sl.conns, w.newConn(sl, i, inc))
	if settle {
		return w.settle(t)
	}
	return nil
}

// connectionLost is what a classic consumer does when its connection
// closes under it (a disconnect, a coordinator restart): its network
// client fails the requests on their way at once, so the JoinGroup or
// SyncGroup goes again on the new connection (as after a lost answer) and
// heartbeats go on.
func (w *worker) connectionLost(sl *slot) {
	if sl.gm.set {
		sl.gm = outstanding{}
		if sl.gmJoin {
			sl.ownClassic().OnJoinGroupLost()
		} else {
			sl.ownClassic().OnSyncGroupLost()
		}
	}
	sl.hb, sl.hbReq, sl.lv = outstanding{}, nil, outstanding{}
}

// classicTimeouts gives up on slot i's requests that waited too long by
// now: a JoinGroup after the rebalance timeout and a request timeout, a
// SyncGroup or Heartbeat after a request timeout (the consumer reconnects),
// a LeaveGroup after a request timeout. co is the tick's coordinator.
func (w *worker) classicTimeouts(t *state, i int, co *coord) {
	sl := t.mut(i)
	if !sl.live {
		return
	}
	rt := w.cfg.RequestTimeoutMs
	if sl.lv.set && sl.lv.sentAt+rt <= t.now {
		sl.lv = outstanding{}
	}
	var re client.Reaction
	switch {
	case sl.gm.set && sl.gm.sentAt+w.gmTimeout(sl.gmJoin) <= t.now:
		sl.gm = outstanding{}
		if sl.gmJoin {
			re = sl.ownClassic().OnJoinGroupLost()
		} else {
			re = sl.ownClassic().OnSyncGroupLost()
		}
	case sl.hb.set && sl.hb.sentAt+rt <= t.now:
		sl.hb, sl.hbReq = outstanding{}, nil
		re = sl.ownClassic().OnHeartbeatLost()
	default:
		return
	}
	// An error of react is a step's, and there is none here: co is given.
	_ = w.react(t, i, re, co)
}

// gmTimeout is how long a classic consumer awaits its JoinGroup's answer
// (join) or its SyncGroup's.
func (w *worker) gmTimeout(join bool) int64 {
	if join {
		return int64(w.cfg.RebalanceTimeoutMs) + w.cfg.RequestTimeoutMs
	}
	return w.cfg.RequestTimeoutMs
}
