package explore

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// The consumer protocol's clients: what each of the reference client's
// processes does at each event, as the driver of `ghostcheck run` drives
// it (model/client decides what is sent; the explorer moves the bytes
// and decides when). The classic protocol's are in classic.go.

// groupID names group g of the configuration.
func groupID(g int) string { return fmt.Sprintf("g%d", g) }

// GroupOf names the group of client i: groupID of its group; with
// the mixed protocol a classic client's is "c" and the number instead
// (the model keeps a group of one kind while it has members, A6.4: a
// classic JoinGroup to a consumer group with members is outside it).
func (cfg *Config) GroupOf(i int) string {
	if cfg.Protocol == Mixed && cfg.IsClassic(i) {
		return fmt.Sprintf("c%d", cfg.Clients[i].Group)
	}
	return groupID(cfg.Clients[i].Group)
}

// topicName is the one topic every client subscribes to, by name or by
// topicRegex.
const (
	topicName  = "t"
	topicRegex = "t.*"
)

// clientID is every process's ClientId: identically configured clients
// must look alike (symmetry), as the instances of one application do.
const clientID = "ghostcheck-explore"

// join is the operation: a process that lives and has left wants
// membership again; otherwise a new process starts in the slot (its
// predecessor's record kept while its grace lasts) and wants membership.
func (w *worker) join(t *state, i int) error {
	sl := t.mut(i)
	sl.ops--
	if !sl.live {
		if err := w.start(t, i); err != nil {
			return err
		}
	}
	sl.wants, sl.due = true, t.now
	return nil
}

// start starts a new process in slot i: its client instance id and, for
// KIP-1082, its member id are made now, and it opens a connection.
func (w *worker) start(t *state, i int) error {
	sl := t.mut(i)
	cl := w.cfg.Clients[i]
	sl.next(t.now)
	var member [16]byte
	if cl.HeartbeatVersion >= rules.MemberIDRequiredVersion {
		member = clientIDBytes(t.nextID)
		t.nextID++
	}
	cc := client.Config{
		ClientID:               clientID,
		GroupID:                w.cfg.GroupOf(i),
		InstanceID:             cl.Instance,
		Topics:                 []string{topicName},
		HeartbeatVersion:       cl.HeartbeatVersion,
		RebalanceTimeoutMs:     w.cfg.RebalanceTimeoutMs,
		NullOwnedWhenUnchanged: cl.NullOwned,
		Rand:                   newIDReader(instanceUUID(i, sl.inc), member),
	}
	if cl.Regex {
		cc.Regex = topicRegex
	}
	c, err := client.New(cc)
	if err != nil {
		return fmt.Errorf("explore: starting client %d: %w", i, err)
	}
	sl.c, sl.live, sl.made, sl.sent = c, true, c.MemberID(), 0
	sl.hb, sl.lv = outstanding{}, outstanding{}
	sl.rec = record{inc: sl.inc, instance: c.InstanceID(), memberID: c.MemberID()}
	if id := c.MemberID(); id != "" {
		sl.rec.ids = []string{id}
	}
	sl.conns = append(sl.conns, w.newConn(sl, i, sl.inc))
	return nil
}

// leave is the operation: the process leaves its group for good (epoch
// -1) if it is a member or joining, and lives on.
func (w *worker) leave(t *state, i int) {
	sl := t.mut(i)
	sl.ops--
	sl.wants = false
	if st := sl.c.State(); st != client.Joined && st != client.Joining {
		return
	}
	c := sl.ownClient()
	sl.hb = outstanding{} // its answer, if it comes, is dropped
	req, v := c.Leave(false)
	sl.lv = outstanding{set: true, corr: w.sendRequest(t, i, req, v), sentAt: t.now}
}

// end ends slot i's process: cleanly (a close: its leave, if it is a
// member or joining, is sent with its own id first) or not (a crash).
// Answers on their way to it are lost; its connection closes once the
// requests it wrote have arrived.
func (w *worker) end(t *state, i int, clean bool) error {
	sl := t.mut(i)
	c := sl.ownClient()
	if clean {
		if req, v := c.Close(); req != nil {
			w.sendRequest(t, i, req, v)
		}
	} else {
		c.Crash()
	}
	sl.live, sl.wants = false, false
	sl.hb, sl.lv = outstanding{}, outstanding{}
	sl.rec.memberID = c.MemberID()
	k := sl.current()
	sl.conns[k].draining = true
	sl.conns[k].resps = nil
	if len(sl.conns[k].reqs) == 0 {
		co := w.step(t)
		w.closeConn(t, co, sl, k)
		return w.settle(t)
	}
	return nil
}

// send sends the process's due heartbeat (a join while it is not a
// member).
func (w *worker) send(t *state, i int) {
	sl := t.mut(i)
	c := sl.ownClient()
	req, v := c.NextHeartbeat()
	sl.hb = outstanding{set: true, corr: w.sendRequest(t, i, req, v), sentAt: t.now}
}

// absorb gives an answer to the slot's live process: the answer to its
// heartbeat or its leave; a late answer to a request it gave up on is
// dropped. After a heartbeat's answer the next is due one interval later,
// or at once after an error.
func (w *worker) absorb(t *state, sl *slot, m msg) {
	switch {
	case sl.hb.set && m.corr == sl.hb.corr:
		sl.hb = outstanding{}
		resp := m.resp.(*codec.ConsumerGroupHeartbeatResponse)
		c := sl.ownClient()
		c.OnHeartbeat(resp)
		sl.rec.memberID = c.MemberID()
		sl.due = t.now
		if resp.ErrorCode == codec.None && c.State() == client.Joined {
			sl.due = t.now + int64(resp.HeartbeatIntervalMs)
		}
	case sl.lv.set && m.corr == sl.lv.corr:
		sl.lv = outstanding{}
		sl.ownClient().OnLeave(m.resp.(*codec.ConsumerGroupHeartbeatResponse))
	default:
		// A late answer to a request the process gave up on: dropped,
		// but for FENCED_INSTANCE_ID (client.Client.OnAbandoned).
		if resp, ok := m.resp.(*codec.ConsumerGroupHeartbeatResponse); ok && resp.ErrorCode == codec.FencedInstanceID {
			sl.ownClient().OnAbandoned(resp)
		}
	}
}

// timeouts gives up on the slot's requests that waited a request timeout
// by now (the answer is taken as lost); a heartbeat is then due at once.
func (w *worker) timeouts(t *state, sl *slot) {
	if !sl.live {
		return
	}
	rt := w.cfg.RequestTimeoutMs
	if sl.hb.set && sl.hb.sentAt+rt <= t.now {
		sl.hb = outstanding{}
		sl.ownClient().OnHeartbeatLost()
		sl.due = t.now
	}
	if sl.lv.set && sl.lv.sentAt+rt <= t.now {
		sl.lv = outstanding{}
		sl.ownClient().OnLeaveDone()
	}
}
