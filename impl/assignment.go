package impl

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// ---- the assignor and reconciliation ----

// release frees p if mi owns it (pending or not).
func (g *group) release(p int32, mi uint32) {
	if g.owner[p]>>1 == mi {
		g.owner[p] = 0
	}
}

// bump records a change of membership or subscription: the group epoch
// moves on and the target is recomputed at once.
func (g *group) bump() {
	g.epoch++
	g.computeTarget()
}

// computeTarget is the uniform assignor (docs/PROTOCOL.md A5.2): topics in
// name order with a running offset from 0; for each topic with k
// subscribers in assignment-key order (keyLess), partition p goes to
// subscriber (offset+p) mod k, then the offset grows by the partition
// count. The subscribers of each topic are kept sorted, so this is one
// select per partition.
func (g *group) computeTarget() {
	c := g.c
	// Clear the old per-member targets, remembering their holders.
	old := g.oldHolders[:0]
	for p, mi := range g.tgt {
		if mi == 0 {
			continue
		}
		if s := g.sideOf(mi); s != nil && len(s.target) > 0 {
			s.target = s.target[:0]
			old = append(old, mi)
		}
		g.tgt[p] = 0
	}
	offset := 0
	for ti := range c.topics {
		l := &g.topicSubs[ti]
		k := l.len()
		if k == 0 {
			continue
		}
		base, n := int(c.base[ti]), int(c.topics[ti].Partitions)
		for p := 0; p < n; p++ {
			g.tgt[base+p] = l.at((offset + p) % k)
		}
		offset += n
	}
	for p, mi := range g.tgt {
		if mi != 0 {
			s := g.ensureSide(mi)
			s.target = append(s.target, int32(p))
		}
	}
	// Members that lost their whole target may not need a side any more.
	for _, mi := range old {
		g.maybeFreeSide(mi)
	}
	g.oldHolders = old[:0]
}

// markReported sets the scratch bits of the partitions a request reports;
// unknown topics and out-of-range partitions are skipped.
func (g *group) markReported(tps []codec.ConsumerGroupHeartbeatTopicPartitions, set bool) {
	if g.scratch == nil {
		g.scratch = make([]uint64, (g.c.nparts+63)/64)
	}
	for i := range tps {
		ti, ok := g.c.topicByID[tps[i].TopicId]
		if !ok {
			continue
		}
		n := g.c.topics[ti].Partitions
		for _, p := range tps[i].Partitions {
			if p < 0 || p >= n {
				continue
			}
			q := g.c.base[ti] + p
			if set {
				g.scratch[q>>6] |= 1 << (q & 63)
			} else {
				g.scratch[q>>6] = 0
			}
		}
	}
}

// isSubset reports whether every reported partition is in mi's assigned
// set; an unknown topic is not a subset (Kafka's isSubset).
func (g *group) isSubset(tps []codec.ConsumerGroupHeartbeatTopicPartitions, mi uint32) bool {
	for i := range tps {
		ti, ok := g.c.topicByID[tps[i].TopicId]
		if !ok {
			return false
		}
		n := g.c.topics[ti].Partitions
		for _, p := range tps[i].Partitions {
			if p < 0 || p >= n || g.owner[g.c.base[ti]+p] != mi<<1 {
				return false
			}
		}
	}
	return true
}

// reconcile moves mi towards its target after a successful heartbeat or
// join, exactly as the model's reconcile (docs/PROTOCOL.md A5). It reports
// whether the assigned set changed.
func (g *group) reconcile(mi uint32, reported []codec.ConsumerGroupHeartbeatTopicPartitions, now int64) bool {
	m := &g.mem[mi]
	if m.state == stStable && m.epoch == g.epoch {
		// Steady: all of the target is assigned, nothing is pending, no
		// timer runs; the general path below would change nothing.
		return false
	}
	changed := false
	// 1. Release pending revocations the request no longer reports.
	reports := reported != nil || g.c.mut.Has(MutNullOwnedReleases)
	if s := g.sideOf(mi); s != nil && reports && len(s.pending) > 0 {
		g.markReported(reported, true)
		keep := s.pending[:0]
		for _, p := range s.pending {
			if g.scratch[p>>6]&(1<<(p&63)) != 0 {
				keep = append(keep, p)
			} else {
				g.release(p, mi)
			}
		}
		s.pending = keep
		g.markReported(reported, false)
	}
	// 3. Below the target epoch: revoke what is outside the target.
	if s := g.sideOf(mi); (s == nil || len(s.pending) == 0 || g.c.mut.Has(MutRevokingTakesNewTarget)) && m.epoch < g.epoch {
		if s != nil && len(s.assigned) > 0 {
			keep := s.assigned[:0]
			for _, p := range s.assigned {
				if g.tgt[p] == mi {
					keep = append(keep, p)
				} else {
					s.pending = append(s.pending, p)
					g.owner[p] = mi<<1 | 1
					changed = !g.c.mut.Has(MutRevocationNotSent)
				}
			}
			s.assigned = keep
			if g.c.mut.Has(MutRevokingTakesNewTarget) {
				slices.Sort(s.pending) // added to pending it already had
			}
		}
		if s == nil || len(s.pending) == 0 {
			if g.c.mut.Has(MutPrevEpochNotRecorded) {
				m.epoch = g.epoch
			} else {
				m.prevEpoch, m.epoch = m.epoch, g.epoch
			}
			changed = changed || g.c.mut.Has(MutEpochBumpSendsAssignment)
		}
	}
	// 2./3. While anything is pending, wait for the client.
	if s := g.sideOf(mi); s != nil && len(s.pending) > 0 {
		if (m.state != stUnrevoked || g.c.mut.Has(MutRebalanceTimerRearmed)) && m.flags&flClassic == 0 { // a classic member has its join and sync timers instead (A7.1)
			// A timeout of zero or below fires at the next Expire.
			at := now + max(int64(m.rto), 0)
			if g.c.mut.Has(MutRebalanceDeadlineEarly) {
				at--
			}
			g.setRebalance(mi, at)
		}
		g.mem[mi].state = stUnrevoked
		return changed
	}
	g.setRebalance(mi, noDeadline)
	m = &g.mem[mi]
	m.state = stStable
	// 4. At the target epoch: take every target partition nobody else owns.
	if s := g.sideOf(mi); s != nil && len(s.target) > 0 {
		var added []int32
		for _, p := range s.target {
			o := g.owner[p]
			if o == mi<<1 {
				continue
			}
			if o != 0 && !(o&1 == 1 && g.c.mut.Has(MutEarlyHandoff)) {
				m.state = stUnreleased
				continue
			}
			g.owner[p] = mi << 1
			added = append(added, p)
		}
		if len(added) > 0 && m.state == stUnreleased && g.c.mut.Has(MutFreePartitionsHeldBack) {
			for _, p := range added {
				g.owner[p] = 0
			}
			added = nil
		}
		if len(added) > 0 {
			s.assigned = mergeSorted(s.assigned, added)
			changed = true
		}
	}
	g.maybeFreeSide(mi)
	return changed
}

// mergeSorted merges two ascending, disjoint lists into a.
func mergeSorted(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] < b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
