package impl

import "github.com/ghostcheck/ghostcheck/codec"

// The join phase (docs/PROTOCOL.md B8.7), as model's classic_rebalance.go.

// rebalanceOrComplete starts a rebalance, or in a join phase completes it
// if it may.
func (g *classicGroup) rebalanceOrComplete(op *cop) {
	if g.state == classicPreparing {
		g.maybeCompleteJoin(op)
		return
	}
	g.rebalance(op)
}

// rebalance starts a join phase from Empty, CompletingRebalance or Stable.
func (g *classicGroup) rebalance(op *cop) {
	from := g.state
	if from == classicCompleting {
		for _, m := range g.members {
			m.assignment = nil
		}
		for _, m := range g.members {
			if m.sync.on && !g.mut.Has(MutRebalanceKeepsSyncsWaiting) {
				p := m.sync
				m.sync.on = false
				op.answer(p, syncError(codec.RebalanceInProgress))
				g.armSession(m, deadline(op.now, int64(m.sessionMs)))
			}
		}
	}
	g.clearAwaiting()
	g.sync.at = noDeadline
	g.transition(classicPreparing)
	if from == classicEmpty {
		d := int64(op.c.cfg.InitialRebalanceDelayMs)
		switch {
		case g.mut.Has(MutInitialDelayEarly) && d > 0:
			d--
		case g.mut.Has(MutInitialDelayLate):
			d++
		}
		g.armJoin(joinTimer{at: deadline(op.now, d), initial: true, delay: d, remaining: max(g.rebalanceTimeout()-d, 0)})
		return
	}
	if g.allJoined() {
		g.completeJoin(op)
		return
	}
	rt := g.rebalanceTimeout()
	if g.mut.Has(MutJoinTimerEarly) && rt > 0 {
		rt--
	}
	g.armJoin(joinTimer{at: deadline(op.now, rt)})
}

// maybeCompleteJoin completes a join phase other than the first once every
// member waits in it and no id is pending.
func (g *classicGroup) maybeCompleteJoin(op *cop) bool {
	if g.state != classicPreparing || g.prev == classicEmpty || !g.allJoined() || g.mut.Has(MutJoinWaitsForTimer) {
		return false
	}
	g.completeJoin(op)
	return true
}

// completeJoin completes the join phase.
func (g *classicGroup) completeJoin(op *cop) {
	g.join.at = noDeadline
	for i := 0; i < len(g.members); {
		if m := g.members[i]; !m.join.on && (!m.instance.Valid && !g.mut.Has(MutDynamicKeptNotRejoined) || m.instance.Valid && g.mut.Has(MutStaticRemovedAtCompletion)) {
			g.removeMember(op, m)
			continue
		}
		i++
	}
	if len(g.members) > 0 {
		if g.nJoin == 0 && !g.mut.Has(MutNobodyRejoinedNewGeneration) {
			g.armJoin(joinTimer{at: op.now + max(g.rebalanceTimeout(), 1)}) // at least 1 ms, as the model
			return
		}
		if l := g.byID[g.leader]; (l == nil || !l.join.on) && !g.mut.Has(MutLeaderNotReelected) && g.nJoin > 0 {
			for _, m := range g.members {
				if m.join.on {
					g.leader = m.id
					break
				}
			}
		}
	}
	if len(g.members) > 0 || !g.mut.Has(MutEmptyGenerationKept) {
		g.generation++
	}
	g.clearAwaiting()
	if len(g.members) == 0 {
		g.protocol = ""
		g.transition(classicEmpty)
		g.writeRecord()
		return
	}
	g.protocol = g.selectProtocol()
	g.transition(classicCompleting)
	for _, m := range g.members {
		if m.join.on {
			p := m.join
			g.clearJoin(m)
			op.answer(p, g.joinAnswer(m.id, p.version, m.id == g.leader))
		}
		g.armSession(m, deadline(op.now, int64(m.sessionMs)))
		m.isNew = false
		g.setAwait(m, true)
	}
	if !g.mut.Has(MutSyncTimerNotStarted) {
		g.armSync(syncTimer{at: deadline(op.now, g.rebalanceTimeout()), generation: g.generation})
	}
}
