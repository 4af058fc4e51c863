package explore

import (
	"fmt"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// traceOf replays a path from the initial state and says each step: the
// event, and for a request or an answer that moves, what it carries.
func traceOf(cfg *Config, path []event) []string {
	w := newWorker(cfg)
	w.counting = true // every step held to lockstep again, to say where it broke
	s := w.root()
	out := make([]string, 0, len(path))
	for n, e := range path {
		line := fmt.Sprintf("%3d  t=%-6d %s", n+1, s.now, e)
		if what := w.carried(s, e); what != "" {
			line += ": " + what
		}
		t, err := w.apply(s, e)
		if err != nil {
			line += "  <- " + err.Error()
		}
		if e.kind() == evTick {
			line += fmt.Sprintf(" (to t=%d)", t.now)
		}
		out = append(out, line)
		w.discard(s)
		s = t
	}
	w.discard(s)
	return out
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
