package impl

import (
	"cmp"
	"maps"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Clone returns a deep copy of the coordinator on its own clock and id
// source (a copy shares neither with its original: each answers to the
// caller that steps it): state changes to either do not affect the other.
// The explorer (package explore) steps a clone for each transition it
// tries, as the linearizability checker steps clones of the model. The
// configuration, topics and mutants are shared; groups, members, timers,
// connection contexts and telemetry state are copied.
//
// Clone is for a coordinator used by one goroutine: it takes none of c's
// locks, so it must not run while anything else (a request, Expire,
// Restart, Snapshot) runs on c. A clone has no SnapshotCache of its own.
func (c *Coordinator) Clone(clock Clock, newID func() codec.UUID) *Coordinator {
	out := &Coordinator{clock: clock}
	out.ids.new = newID
	c.copyTo(out)
	return out
}

// CopyTo makes dst a copy of c, as Clone does, in dst's memory: dst keeps
// its clock and id source and nothing else of what it held (c's
// configuration and mutants included). Neither may be in use by anything
// else meanwhile. A caller that steps many short-lived copies (the
// explorer) recycles them through CopyTo instead of allocating each anew:
// a coordinator's shard arrays are about 28 KB.
func (c *Coordinator) CopyTo(dst *Coordinator) {
	for _, g := range dst.live.gs {
		delete(dst.groupShardOf(g.id).m, g.id)
	}
	dst.live.gs = dst.live.gs[:0]
	for i := range dst.conns {
		clear(dst.conns[i].m)
	}
	for i := range dst.telemetry {
		clear(dst.telemetry[i].m)
	}
	c.copyTo(dst)
}

// copyTo copies c's configuration and state into out, whose groups,
// connections and telemetry state are empty; out keeps its clock and id
// source.
func (c *Coordinator) copyTo(out *Coordinator) {
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
	for _, g := range c.live.gs {
		ng := g.clone(out, c)
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
	for i := range c.shards {
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
	for i := range c.conns {
		m := c.conns[i].m
		if len(m) == 0 {
			continue
		}
		nm := out.conns[i].m
		if nm == nil {
			nm = make(map[uint64]*connState, len(m))
			out.conns[i].m = nm
		}
		for id, cs := range m {
			ncs := &connState{first: cs.first}
			ncs.group.Store(newOf(cs.group.Load()))
			nm[id] = ncs
		}
	}
	for i := range c.telemetry {
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
}

// clone copies g for the coordinator to, whose timer
// shards are at the same places as from's. Interned subscriptions are
// shared: nothing changes one once it is made.
func (g *group) clone(to, from *Coordinator) *group {
	ng := &group{
		c: to, id: g.id, status: g.status, epoch: g.epoch,
		mem: slices.Clone(g.mem), free: slices.Clone(g.free), count: g.count,
		byHex: cloneMap(g.byHex), byB64: cloneMap(g.byB64), byStr: cloneMap(g.byStr), strIDs: cloneMap(g.strIDs),
		insts: g.insts.clone(), racks: g.racks.clone(), clients: g.clients.clone(), subs: g.subs.clone(),
		sides: make([]side, len(g.sides)), freeSides: slices.Clone(g.freeSides),
		owner: slices.Clone(g.owner), tgt: slices.Clone(g.tgt), topicSubs: make([]olist, len(g.topicSubs)),
		sessHead: g.sessHead, sessTail: g.sessTail, rheap: slices.Clone(g.rheap),
		ver: g.ver, registered: g.registered, expireGen: g.expireGen,
	}
	for i := range from.shards {
		if g.shard == &from.shards[i] {
			ng.shard = &to.shards[i]
			break
		}
	}
	for i, s := range g.sides {
		s.assigned, s.pending, s.target = slices.Clone(s.assigned), slices.Clone(s.pending), slices.Clone(s.target)
		ng.sides[i] = s
	}
	for i, l := range g.topicSubs {
		nl := olist{tree: slices.Clone(l.tree), valid: l.valid, n: l.n}
		if len(l.chunks) > 0 {
			nl.chunks = make([][]uint32, len(l.chunks))
			for j, ch := range l.chunks {
				// A chunk grows in place (olist.insert): each gets an
				// array of its own.
				nl.chunks[j] = append(make([]uint32, 0, cap(ch)), ch...)
			}
		}
		ng.topicSubs[i] = nl
	}
	ng.less = ng.keyLess
	return ng
}

// cloneMap is maps.Clone that keeps a nil map nil (the group makes its id
// maps at their first entry).
func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return nil
	}
	return maps.Clone(m)
}

// clone copies the table; the values are copied as they are (pointers
// shared).
func (t *table[K, V]) clone() table[K, V] {
	return table[K, V]{idx: cloneMap(t.idx), ents: slices.Clone(t.ents), free: slices.Clone(t.free)}
}
