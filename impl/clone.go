package impl

import (
	"cmp"
	"maps"
	"math"
	"math/bits"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Clone returns a deep copy of the coordinator on its own clock and id
// source (a copy shares neither with its original: each answers to the
// caller that steps it): state changes to either do not affect the other.
// The explorer (package explore) steps a clone for each transition it
// tries, as the linearizability checker steps clones of the model. The
// configuration, topics and mutants are shared; groups (classic ones too),
// members, timers, connection contexts, held requests, answers not yet
// released and telemetry state are copied.
//
// Clone is for a coordinator used by one goroutine: it takes none of c's
// locks, so it must not run while anything else (a request, Expire,
// Restart, Snapshot) runs on c. A clone has no SnapshotCache of its own.
func (c *Coordinator) Clone(clock Clock, newID func() codec.UUID) *Coordinator {
	out := &Coordinator{clock: clock}
	out.ids.new = newID
	for i := range out.shards { // copyTo writes only the shards c uses
		out.shards[i].next.Store(math.MaxInt64)
	}
	c.copyTo(out, nil)
	return out
}

// CopyTo makes dst a copy of c, as Clone does, in dst's memory: dst keeps
// its clock and id source and nothing else of what it held (c's
// configuration and mutants included). Neither may be in use by anything
// else meanwhile. A caller that steps many short-lived copies (the
// explorer) recycles them through CopyTo instead of allocating each anew:
// a coordinator's shard arrays are about 28 KB, and dst's groups, members
// and connection contexts are reused for c's.
func (c *Coordinator) CopyTo(dst *Coordinator) {
	// dst's groups, and the spares it kept, are recycled for c's, and its
	// live list's array holds the new list: the groups move aside first
	// (into the spares' array). Those c does not need stay spares, for the
	// groups dst will make (makeGroup).
	for _, g := range dst.live.gs {
		delete(dst.groupShardOf(g.id).m, g.id)
	}
	spare := append(dst.spareGroups, dst.live.gs...)
	dst.spareGroups = nil
	dst.live.gs = dst.live.gs[:0]
	for used := dst.teleUsed.Load(); used != 0; used &= used - 1 {
		clear(dst.telemetry[bits.TrailingZeros64(used)].m)
	}
	spare = c.copyTo(dst, spare)
	keep := min(len(spare), maxSpareGroups)
	clear(spare[keep:cap(spare)]) // those it uses, and those beyond the bound
	dst.spareGroups = spare[:keep]
}

// copyTo copies c's configuration and state into out, whose groups and
// telemetry state are empty (its connection contexts are made c's);
// spare are groups out held, whose memory it may reuse, taken from the
// end: it returns those it did not use. out keeps its clock and id
// source.
func (c *Coordinator) copyTo(out *Coordinator, spare []*group) []*group {
	out.cfg = c.cfg
	out.cfg.Clock, out.cfg.NewID = out.clock, out.ids.new
	out.mut = c.mut
	out.topics, out.base, out.nparts, out.topicByID = c.topics, c.base, c.nparts, c.topicByID
	out.advertised, out.served, out.teleSeed = c.advertised, c.served, c.teleSeed
	out.nextShard.Store(c.nextShard.Load())
	out.expireGen.Store(c.expireGen.Load())
	// Every group in a shard's map is live between requests (a phantom
	// lives only inside the join that made it), so the live list finds
	// them all without visiting the 256 shards.
	var few [4][2]*group // old, new: mostly a clone holds a few groups
	groups := few[:0]
	var many map[*group]*group
	if len(c.live.gs) > len(few) {
		many = make(map[*group]*group, len(c.live.gs))
	}
	newOf := func(g *group) *group {
		if many != nil {
			return many[g]
		}
		for _, p := range groups {
			if p[0] == g {
				return p[1]
			}
		}
		return nil
	}
	if cap(out.live.gs) < len(c.live.gs) {
		out.live.gs = make([]*group, 0, len(c.live.gs))
	}
	out.live.gs = out.live.gs[:0]
	for _, g := range c.live.gs {
		var ng *group
		if n := len(spare); n > 0 {
			ng, spare = spare[n-1], spare[:n-1]
		} else {
			ng = new(group)
		}
		g.copyInto(ng, out, c)
		if many != nil {
			many[g] = ng
		} else {
			groups = append(groups, [2]*group{g, ng})
		}
		out.live.gs = append(out.live.gs, ng)
		s := out.groupShardOf(g.id)
		if s.m == nil {
			s.m = map[string]*group{}
		}
		s.m[g.id] = ng
	}
	out.live.sorted = c.live.sorted
	// Only the shards either coordinator ever gave a group can hold
	// timers (the others are empty, next at its maximum, in both): an
	// explorer's coordinator uses one or two of the 64.
	used := c.shardsUsed.Load() | out.shardsUsed.Load()
	out.shardsUsed.Store(c.shardsUsed.Load())
	for ; used != 0; used &= used - 1 {
		i := bits.TrailingZeros64(used)
		s, ns := &c.shards[i], &out.shards[i]
		ns.next.Store(s.next.Load())
		ns.h = ns.h[:0]
		for _, t := range s.h {
			if ng := newOf(t.g); ng != nil { // a live group's: no other has timers
				ns.h = append(ns.h, shardTimer{at: t.at, g: ng})
			}
		}
		if len(ns.h) < len(s.h) { // were one left out, a sorted array is a heap again
			slices.SortFunc(ns.h, func(a, b shardTimer) int { return cmp.Compare(a.at, b.at) })
		}
	}
	// The shards either coordinator made a map in (out keeps its maps).
	// The contexts of out's connections c does not have are recycled for
	// those of c's that out does not have (nothing else holds them: out
	// is not in use), and those left over kept for the next copy
	// (Coordinator.spareConns): a copy is made on every transition the
	// explorer tries, from states whose clients connected at other times.
	connsUsed := c.connsUsed.Load() | out.connsUsed.Load()
	out.connsUsed.Store(connsUsed)
	spareConns := out.spareConns
	out.spareConns = nil
	for used := connsUsed; used != 0; used &= used - 1 {
		i := bits.TrailingZeros64(used)
		m, nm := c.conns[i].m, out.conns[i].m
		for id, ncs := range nm {
			if _, ok := m[id]; !ok {
				delete(nm, id)
				spareConns = append(spareConns, ncs)
			}
		}
	}
	for used := connsUsed; used != 0; used &= used - 1 {
		i := bits.TrailingZeros64(used)
		m, nm := c.conns[i].m, out.conns[i].m
		if len(m) == 0 {
			continue
		}
		if nm == nil {
			nm = make(map[uint64]*connState, len(m))
			out.conns[i].m = nm
		}
		for id, cs := range m {
			ncs := nm[id]
			if ncs == nil {
				if n := len(spareConns); n > 0 {
					ncs, spareConns = spareConns[n-1], spareConns[:n-1]
					*ncs = connState{}
				} else {
					ncs = &connState{}
				}
				nm[id] = ncs
			}
			ncs.first = cs.first
			ncs.group.Store(newOf(cs.group.Load()))
		}
	}
	keep := min(len(spareConns), maxSpareConns)
	clear(spareConns[keep:cap(spareConns)]) // those in use, and those beyond the bound
	out.spareConns = spareConns[:keep]
	c.copyHeldTo(out, connsUsed)
	teleUsed := c.teleUsed.Load() | out.teleUsed.Load()
	out.teleUsed.Store(teleUsed)
	for used := c.teleUsed.Load(); used != 0; used &= used - 1 {
		i := bits.TrailingZeros64(used)
		m := c.telemetry[i].m
		if len(m) == 0 {
			continue
		}
		nm := out.telemetry[i].m
		if nm == nil {
			nm = make(map[codec.UUID]*telemetryClient, len(m))
			out.telemetry[i].m = nm
		}
		for id, t := range m {
			v := *t
			nm[id] = &v
		}
	}
	return spare
}

// copyInto makes ng a copy of g for the coordinator to, whose timer
// shards are at the same places as from's. ng is a new group, or one of
// to's that is no longer in use: its arrays and maps, never shared, are
// reused. Interned subscriptions are shared: nothing changes one once it
// is made.
func (g *group) copyInto(ng *group, to, from *Coordinator) {
	ng.c, ng.id, ng.status, ng.epoch, ng.count = to, g.id, g.status, g.epoch, g.count
	ng.mem = append(ng.mem[:0], g.mem...)
	ng.free = append(ng.free[:0], g.free...)
	ng.byHex, ng.byB64 = copyMap(ng.byHex, g.byHex), copyMap(ng.byB64, g.byB64)
	ng.byStr, ng.strIDs = copyMap(ng.byStr, g.byStr), copyMap(ng.strIDs, g.strIDs)
	ng.idText = append(ng.idText[:0], g.idText...) // strings never change: shared
	g.insts.copyInto(&ng.insts)
	g.racks.copyInto(&ng.racks)
	g.clients.copyInto(&ng.clients)
	g.subs.copyInto(&ng.subs)
	if cap(ng.sides) < len(g.sides) {
		ng.sides = append(ng.sides[:cap(ng.sides)], make([]side, len(g.sides)-cap(ng.sides))...)
	}
	ng.sides = ng.sides[:len(g.sides)]
	for i, s := range g.sides {
		ns := &ng.sides[i]
		a, p, t := ns.assigned, ns.pending, ns.target
		*ns = s
		ns.assigned, ns.pending, ns.target = append(a[:0], s.assigned...), append(p[:0], s.pending...), append(t[:0], s.target...)
	}
	ng.freeSides = append(ng.freeSides[:0], g.freeSides...)
	ng.owner = append(ng.owner[:0], g.owner...)
	ng.tgt = append(ng.tgt[:0], g.tgt...)
	if cap(ng.topicSubs) < len(g.topicSubs) {
		ng.topicSubs = append(ng.topicSubs[:cap(ng.topicSubs)], make([]olist, len(g.topicSubs)-cap(ng.topicSubs))...)
	}
	ng.topicSubs = ng.topicSubs[:len(g.topicSubs)]
	for i := range g.topicSubs {
		g.topicSubs[i].copyInto(&ng.topicSubs[i])
	}
	ng.sessHead, ng.sessTail = g.sessHead, g.sessTail
	ng.rheap = append(ng.rheap[:0], g.rheap...)
	ng.ver, ng.registered, ng.expireGen = g.ver, g.registered, g.expireGen
	ng.scratch = nil // a bit set assignment.go clears as it goes: made afresh
	ng.oldHolders = ng.oldHolders[:0]
	ng.shard = nil
	for i := range from.shards {
		if g.shard == &from.shards[i] {
			ng.shard = &to.shards[i]
			break
		}
	}
	if ng.less == nil { // a recycled group's is bound to it already
		ng.less = ng.keyLess
	}
	ng.mx = g.mx.clone()
	g.copyClassicInto(ng)
}

// copyInto makes nl a copy of l in nl's memory; a chunk grows in place
// (olist.insert), so each gets an array of its own.
func (l *olist) copyInto(nl *olist) {
	old := nl.chunks
	nl.chunks = nl.chunks[:0]
	for j, ch := range l.chunks {
		var dst []uint32
		if j < len(old) {
			dst = old[j][:0]
		} else if j < cap(old) {
			dst = old[:cap(old)][j][:0]
		}
		if cap(dst) < cap(ch) {
			dst = make([]uint32, 0, cap(ch))
		}
		nl.chunks = append(nl.chunks, append(dst, ch...))
	}
	nl.tree = append(nl.tree[:0], l.tree...)
	nl.valid, nl.n = l.valid, l.n
}

// copyMap makes dst a copy of src in dst's memory. A nil src gives nil
// only for a nil dst (the group makes its maps at their first entry): a
// map dst holds is kept, emptied, for the entries to come, which a
// recycled copy (CopyTo) would otherwise make again.
func copyMap[K comparable, V any](dst, src map[K]V) map[K]V {
	if dst == nil {
		if src == nil {
			return nil
		}
		return maps.Clone(src)
	}
	clear(dst)
	maps.Copy(dst, src)
	return dst
}

// copyInto makes nt a copy of the table in nt's memory; the values are
// copied as they are (pointers shared).
func (t *table[K, V]) copyInto(nt *table[K, V]) {
	nt.idx = copyMap(nt.idx, t.idx)
	nt.ents = append(nt.ents[:0], t.ents...)
	nt.free = append(nt.free[:0], t.free...)
}
