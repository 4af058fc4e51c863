package explore

import (
	"fmt"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// traceOf replays a path from the initial state and says each step: the
// event, and for a request or an answer that moves, what it carries; and
// the same as data.
func traceOf(cfg *Config, path []event) ([]string, []Step) {
	w := newWorker(cfg)
	w.counting = true // every step held to lockstep again, to say where it broke
	s := w.root()
	lines := make([]string, 0, len(path))
	steps := make([]Step, 0, len(path))
	from := map[uint32]int{} // an answer's send order: the step that gave it
	for n, e := range path {
		line := fmt.Sprintf("%3d  t=%-6d %s", n+1, s.now, e)
		if what := w.carried(s, e); what != "" {
			line += ": " + what
		}
		step := stepOf(s, e)
		if step.Answer {
			cn := s.slots[e.slot()].conns[e.conn()]
			step.From = from[cn.resps[0].seq]
		}
		if e.kind() == evAdmin {
			step.Members = w.groupMembers(s, e.slot())
		}
		t, err := w.apply(s, e)
		if err != nil {
			line += "  <- " + err.Error()
		}
		if e.kind() == evTick {
			line += fmt.Sprintf(" (to t=%d)", t.now)
			step.At = t.now
		}
		if e.kind() == evJoin || e.kind() == evSend {
			step.Process = t.slots[e.slot()].inc // a join may start a process
		}
		if e.kind() != evTick && e.kind() != evRestart && e.kind() != evAdmin {
			step.Sent, step.Conns = t.slots[e.slot()].sent, t.slots[e.slot()].opened
		}
		lines, steps = append(lines, line), append(steps, step)
		for _, sl := range t.slots {
			for _, cn := range sl.conns {
				for _, m := range cn.resps {
					if m.seq >= s.seq {
						from[m.seq] = n
					}
				}
			}
		}
		w.discard(s)
		s = t
	}
	w.discard(s)
	return lines, steps
}

// stepOf is event e from s as data.
func stepOf(s *state, e event) Step {
	st := Step{At: s.now, Event: evNames[e.kind()]}
	switch e.kind() {
	case evTick, evRestart:
		return st
	case evAdmin:
		st.Group, st.Admin = e.slot(), adminNames[e.conn()%adminKinds]
		return st
	}
	sl := s.slots[e.slot()]
	st.Client, st.Process = e.slot(), sl.inc
	switch e.kind() {
	case evDeliver, evLose, evDuplicate, evDelay:
		cn := sl.conns[e.conn()]
		st.Process, st.Answer = cn.inc, e.dir() == 1
		if st.Answer {
			st.Request = cn.resps[0].n
		} else {
			st.Request = cn.reqs[0].n
		}
	}
	return st
}

// carried says what the message an event moves carries.
func (w *worker) carried(s *state, e event) string {
	switch e.kind() {
	case evDeliver, evLose, evDuplicate, evDelay:
	default:
		return ""
	}
	cn := s.slots[e.slot()].conns[e.conn()]
	if e.dir() == 0 {
		return describeMessage(cn.reqs[0].req, cn.reqs[0].version)
	}
	return describeMessage(cn.resps[0].resp, cn.resps[0].version)
}

// describeMessage says a heartbeat or its answer in a few words.
func describeMessage(m codec.Message, version int16) string {
	switch r := m.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		var b strings.Builder
		fmt.Fprintf(&b, "ConsumerGroupHeartbeat v%d group %s member %q epoch %d", version, r.GroupId, r.MemberId, r.MemberEpoch)
		if r.InstanceId.Valid {
			fmt.Fprintf(&b, " instance %s", r.InstanceId.Value)
		}
		if r.TopicPartitions != nil {
			fmt.Fprintf(&b, " owned %s", partitions(r.TopicPartitions))
		}
		return b.String()
	case *codec.ConsumerGroupHeartbeatResponse:
		if r.ErrorCode != codec.None {
			return fmt.Sprintf("error %v (%s)", r.ErrorCode, r.ErrorMessage.Value)
		}
		s := fmt.Sprintf("member %q epoch %d", r.MemberId.Value, r.MemberEpoch)
		if r.Assignment != nil {
			s += " assigned " + partitions(r.Assignment.TopicPartitions)
		}
		return s
	}
	return fmt.Sprintf("%v", m)
}

func partitions(tps []codec.ConsumerGroupHeartbeatTopicPartitions) string {
	var ps []string
	for _, t := range tps {
		for _, p := range t.Partitions {
			ps = append(ps, fmt.Sprint(p))
		}
	}
	return "[" + strings.Join(ps, " ") + "]"
}
