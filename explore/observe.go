package explore

import (
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// What is checked, with the rules of package rules themselves:
//
//   - on every state, the first time it is found: NoGhosts,
//     OneMemberPerProcess, UniqueMemberIDs, NoZeroUUIDs and
//     NoDoubleClientAssignment on the observation of the state (the model's
//     snapshot and what the explorer knows of every process);
//   - on a state with no event enabled (every process ended, the network
//     empty, no timer left): QuiescentMembership;
//   - on every transition: impl equal to the model (coord.go), and the
//     rules that compare two observations, on the two states' (the
//     trackers of MonotonicEpochs, StaticRestartKeepsAssignment and
//     StableMemberID, each fed the pair).
//
// A transition property is checked on the pair alone, as TLC checks an
// action property: an epoch that went back between two states not
// adjacent would show on an edge between them, except a member's epoch
// compared with the one it had before it left the group, which no state
// keeps.

// observation is what the invariants see of s: the model's groups and a
// process for the current process of every slot and for every ended one
// still in its grace.
func (w *worker) observation(s *state) rules.Observation {
	o := rules.Observation{Now: s.now, Groups: s.co.groups(), Processes: w.procs[:0]}
	for i := range s.slots {
		sl := s.slots[i]
		group := w.cfg.GroupOf(i)
		if sl.k != nil {
			o.Processes = append(o.Processes, rules.Process{
				Name:             w.name(i, sl.inc),
				GroupID:          group,
				ClientInstanceID: sl.c.InstanceID(),
				MemberID:         sl.k.MemberID(),
				Live:             sl.live,
				Left:             sl.live && !sl.wants && sl.k.State() == client.ClassicUnjoined,
				Joined:           sl.live && sl.k.Heartbeating(),
				AllIDs:           sl.rec.ids,
				GraceUntil:       sl.rec.graceUntil(),
			})
		} else if sl.c != nil {
			st := sl.c.State()
			p := rules.Process{
				Name:             w.name(i, sl.inc),
				GroupID:          group,
				ClientInstanceID: sl.c.InstanceID(),
				MemberID:         sl.c.MemberID(),
				Live:             sl.live,
				Left:             st == client.Left || (sl.live && !sl.wants && st != client.Joined),
				Joined:           sl.live && st == client.Joined,
				AllIDs:           sl.rec.ids,
				GraceUntil:       sl.rec.graceUntil(),
			}
			if sl.live {
				if k := sl.current(); k >= 0 {
					for _, m := range sl.conns[k].resps {
						if hb, ok := m.resp.(*codec.ConsumerGroupHeartbeatResponse); ok && hb.ErrorCode == codec.None && hb.MemberId.Valid {
							p.InFlight = append(p.InFlight, hb.MemberId.Value)
						}
					}
				}
			}
			o.Processes = append(o.Processes, p)
		}
		for _, r := range sl.ended {
			o.Processes = append(o.Processes, rules.Process{
				Name: w.name(i, r.inc), GroupID: group, ClientInstanceID: r.instance, MemberID: r.memberID,
				AllIDs: r.ids, GraceUntil: r.graceUntil(),
			})
		}
	}
	w.procs = o.Processes[:0]
	return o
}

// name is the name of slot i's process inc in reports: "c0", then "c0'",
// "c0”" for the processes that followed it.
func (w *worker) name(i, inc int) string {
	for len(w.names) <= i {
		w.names = append(w.names, nil)
	}
	for len(w.names[i]) <= inc {
		n := len(w.names[i])
		name := fmt.Sprintf("c%d", i)
		for k := 1; k < n; k++ {
			name += "'"
		}
		w.names[i] = append(w.names[i], name)
	}
	return w.names[i][inc]
}

// checkState holds a state new to the search to the invariants; terminal
// says no event is enabled in it. As `ghostcheck run` judges them
// (driver/observation.go): NoGhosts and OneMemberPerProcess as written on
// the consumer groups, and on the classic groups the ghosts of KIP-394
// (classicGhosts); the others on every group. A ghost the coordinator
// made for a v0 join is expected, not a violation (membership): v0Ghost
// says whether s holds one.
func (w *worker) checkState(s *state, terminal bool) (v0Ghost bool, err error) {
	o := w.observation(s)
	consumer := o
	if w.classic {
		consumer.Groups = nil
		for _, g := range o.Groups {
			if g.Kind != rules.KindClassic {
				consumer.Groups = append(consumer.Groups, g)
			}
		}
		if err := w.classicGhosts(s, o); err != nil {
			return false, err
		}
	}
	if v0Ghost, err = w.membership(consumer); err != nil {
		return false, err
	}
	for _, check := range []func(rules.Observation) error{rules.UniqueMemberIDs, rules.NoZeroUUIDs} {
		if err := check(o); err != nil {
			return false, err
		}
	}
	if err := rules.NoDoubleClientAssignment(o.Groups); err != nil {
		return false, err
	}
	if terminal {
		if err := rules.QuiescentMembership(o); err != nil {
			return false, err
		}
	}
	if w.cfg.extra != nil {
		if err := w.cfg.extra(o); err != nil {
			return false, err
		}
	}
	return v0Ghost, nil
}

// membership holds o's consumer groups to NoGhosts and
// OneMemberPerProcess, but for the ghost KIP-1082 removed: a member whose
// id the coordinator made for a ConsumerGroupHeartbeat v0 join (Kafka's
// base64 form, never a KIP-1082 client's UUID text) and whose answer never
// reached its process (lost, or its connection or process gone first) is
// held by nobody until its session ends, and the process's retried join
// makes it a second member. That is what v0 does, in every Kafka release,
// so a v0 client's configuration finds it, as `ghostcheck run`'s v0
// control does: when the two rules hold once the members the coordinator
// made that no live process holds are set aside, the state is counted
// (v0Ghost), not reported. Such a member must still be gone once its
// session passes: QuiescentMembership holds every terminal state to it
// (and lockstep holds impl to the model on every transition). The id's
// form decides, not which process it was answered to: a v0 process that
// closes with its join on its way has ended before the answer, which then
// names no process's record.
func (w *worker) membership(o rules.Observation) (v0Ghost bool, err error) {
	if err = consumerMembership(o); err == nil || !w.v0 {
		return false, err
	}
	o.Groups = withoutV0Members(o)
	if err := consumerMembership(o); err != nil {
		return false, err
	}
	return true, nil
}

// consumerMembership is NoGhosts, then OneMemberPerProcess.
func consumerMembership(o rules.Observation) error {
	if err := rules.NoGhosts(o); err != nil {
		return err
	}
	return rules.OneMemberPerProcess(o)
}

// withoutV0Members are o's groups without the members whose ids the
// coordinator made for v0 joins and no live process holds.
func withoutV0Members(o rules.Observation) []rules.GroupSnapshot {
	held := func(id string) bool {
		return slices.ContainsFunc(o.Processes, func(p rules.Process) bool { return p.Live && p.MemberID == id })
	}
	groups := make([]rules.GroupSnapshot, len(o.Groups))
	for i, g := range o.Groups {
		groups[i] = g
		groups[i].Members = slices.DeleteFunc(slices.Clone(g.Members), func(m rules.MemberSnapshot) bool {
			return coordinatorMadeConsumerID(m.MemberID) && !held(m.MemberID)
		})
	}
	return groups
}

// checkTransition holds the move from s to t to the rules that compare two
// observations. Each tracker is fed the pair only when the pair may break
// its rule (a group or member epoch that went down; a member parked in s;
// a KIP-1082 process's id that changed), so that the common step costs no
// tracker.
func (w *worker) checkTransition(s, t *state) error {
	if s.co != t.co {
		if epochWentDown(s.co.groups(), t.co.groups()) {
			var tr rules.EpochTracker
			if err := tr.Observe(consumerGroups(s.co.groups())); err != nil {
				return err
			}
			if err := tr.Observe(consumerGroups(t.co.groups())); err != nil {
				return err
			}
		}
		if anyParked(s.co.groups()) {
			var tr rules.StaticRestartTracker
			if err := tr.Observe(s.co.groups()); err != nil {
				return err
			}
			if err := tr.Observe(t.co.groups()); err != nil {
				return err
			}
		}
	}
	for i := range t.slots {
		a, b := s.slots[i], t.slots[i]
		if b.c == nil || a.c == nil || a.inc != b.inc || w.cfg.Clients[i].Classic || w.cfg.Clients[i].HeartbeatVersion < rules.MemberIDRequiredVersion {
			continue
		}
		if a.c.MemberID() != b.c.MemberID() || b.c.MemberID() != b.made {
			var tr rules.MemberIDTracker
			p := rules.Process{Name: w.name(i, b.inc), MemberID: b.made}
			if err := tr.Observe(&p); err != nil {
				return err
			}
			p.MemberID = b.c.MemberID()
			if err := tr.Observe(&p); err != nil {
				return err
			}
		}
	}
	return nil
}

// epochWentDown reports whether a consumer group's epoch, or a member's
// positive epoch, is lower in b than in a (what EpochTracker reports; run
// feeds it the consumer groups only).
func epochWentDown(a, b []rules.GroupSnapshot) bool {
	for _, gb := range b {
		for _, ga := range a {
			if ga.GroupID != gb.GroupID || ga.Kind == rules.KindClassic || gb.Kind == rules.KindClassic {
				continue
			}
			if gb.Epoch < ga.Epoch {
				return true
			}
			for _, mb := range gb.Members {
				for _, ma := range ga.Members {
					if ma.MemberID == mb.MemberID && mb.Epoch > 0 && mb.Epoch < ma.Epoch {
						return true
					}
				}
			}
		}
	}
	return false
}

// anyParked reports whether a static member is parked at epoch -2 (only
// then can StaticRestartTracker find a rejoin).
func anyParked(gs []rules.GroupSnapshot) bool {
	for _, g := range gs {
		for _, m := range g.Members {
			if g.Kind != rules.KindClassic && m.Epoch == rules.StaticLeaveEpoch && m.InstanceID != "" {
				return true
			}
		}
	}
	return false
}

// consumerGroups is gs without its classic groups (a new list only when it
// has some).
func consumerGroups(gs []rules.GroupSnapshot) []rules.GroupSnapshot {
	if !slices.ContainsFunc(gs, func(g rules.GroupSnapshot) bool { return g.Kind == rules.KindClassic }) {
		return gs
	}
	return slices.DeleteFunc(slices.Clone(gs), func(g rules.GroupSnapshot) bool { return g.Kind == rules.KindClassic })
}

// classicGhosts is NoGhosts' classic form, as `ghostcheck run` judges it
// (driver/classic.go): a dynamic member of a classic group whose id the
// coordinator made for a JoinGroup of a live process and told it in an
// answer that never reached it (lost, or come after the process gave up
// on it), while no answer carrying the id is on its way to it and no
// request of it is held: the process will never learn the id, and the
// member holds a place in the rebalance and is given partitions. From
// JoinGroup v4 on (the explored clients speak v9) a first join makes only
// a pending id, which no member carries until its process joins with it.
func (w *worker) classicGhosts(s *state, o rules.Observation) error {
	for _, g := range o.Groups {
		if g.Kind != rules.KindClassic {
			continue
		}
		for _, m := range g.Members {
			if m.InstanceID != "" {
				continue // a static member's restart replaces it (KIP-345)
			}
			for i := range s.slots {
				sl := s.slots[i]
				if sl.k == nil || !sl.live || w.cfg.GroupOf(i) != g.GroupID ||
					!slices.Contains(sl.rec.ids, m.MemberID) || slices.Contains(sl.rec.known, m.MemberID) || w.inFlight(s, i, m.MemberID) {
					continue
				}
				return &rules.Violation{Rule: string(rules.RuleNoGhosts), Detail: fmt.Sprintf(
					"group %s holds member %s, made for a JoinGroup whose answer never reached its live process %s, at t=%d", g.GroupID, m.MemberID, w.name(i, sl.inc), s.now)}
			}
		}
	}
	return nil
}

// inFlight reports whether an answer carrying member id is on its way to
// slot i's current process, or a request of it is held (its answer yet to
// be given).
func (w *worker) inFlight(s *state, i int, id string) bool {
	sl := s.slots[i]
	for _, cn := range sl.conns {
		if cn.inc != sl.inc {
			continue
		}
		for _, m := range cn.resps {
			if r, ok := m.resp.(*codec.JoinGroupResponse); ok && r.MemberId == id {
				return true
			}
		}
	}
	for _, h := range s.held {
		if h.slot == i && h.inc == sl.inc && !h.orphan {
			return true
		}
	}
	return false
}
