package impl

import (
	"fmt"
	"strings"
)

// check verifies a classic group's bookkeeping (CheckInternal): the id
// order and maps against the members, the counts of waiting joins and
// awaited syncs, the timer heap's order and positions, every session
// deadline covered by an entry no later than it, and the shard knowing of
// the earliest entry.
func (g *group) checkClassic() error {
	cl := g.cl
	if len(cl.byID) != len(cl.members) {
		return fmt.Errorf("classic: %d members, %d ids", len(cl.members), len(cl.byID))
	}
	nJoin, nAwait, static := 0, 0, 0
	for i, m := range cl.members {
		if i > 0 && strings.Compare(cl.members[i-1].id, m.id) >= 0 {
			return fmt.Errorf("classic: members out of id order at %s", m.id)
		}
		if cl.byID[m.id] != m {
			return fmt.Errorf("classic: member %s not found by its id", m.id)
		}
		if m.instance.Valid {
			if cl.static[m.instance.Value] != m {
				return fmt.Errorf("classic: instance %s not held by %s", m.instance.Value, m.id)
			}
			static++
		}
		if m.join.on {
			nJoin++
		}
		if m.awaitSync {
			nAwait++
		}
		if _, pending := cl.pending[m.id]; pending {
			return fmt.Errorf("classic: %s both a member and pending", m.id)
		}
		if m.session != noDeadline {
			if m.hpos < 0 || int(m.hpos) >= len(cl.timers) || cl.timers[m.hpos].m != m || cl.timers[m.hpos].at > m.session {
				return fmt.Errorf("classic: member %s's session %d has no entry at or before it", m.id, m.session)
			}
		}
	}
	if static != len(cl.static) || nJoin != cl.nJoin || nAwait != cl.nAwait {
		return fmt.Errorf("classic: %d/%d static, %d/%d waiting joins, %d/%d awaited", static, len(cl.static), nJoin, cl.nJoin, nAwait, cl.nAwait)
	}
	if l := cl.leader; (l == "") != (len(cl.members) == 0) || l != "" && cl.byID[l] == nil {
		return fmt.Errorf("classic: leader %q of %d members", l, len(cl.members))
	}
	for i := range cl.timers {
		if p := (i - 1) / 2; i > 0 && ctimerLess(&cl.timers[i], &cl.timers[p]) {
			return fmt.Errorf("classic: timer heap out of order at %d", i)
		}
		if m := cl.timers[i].m; m != nil && int(m.hpos) != i {
			return fmt.Errorf("classic: member %s's timer at %d, position %d", m.id, i, m.hpos)
		}
	}
	if len(cl.timers) > 0 && g.registered > cl.timers[0].at {
		return fmt.Errorf("classic: earliest timer %d but registered %d", cl.timers[0].at, g.registered)
	}
	return nil
}
