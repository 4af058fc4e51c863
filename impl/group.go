package impl

import (
	"bytes"
	"math"
	"regexp"
	"sync"
	"unsafe"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Member states of KIP-848 reconciliation (docs/PROTOCOL.md A5).
const (
	stStable uint8 = iota
	stUnrevoked
	stUnreleased
)

const noDeadline = int64(-1)

// Member flags.
const (
	flLive   uint8 = 1 << iota // the slot holds a member
	flLinked                   // the member is in its group's session list
)

// member is one consumer-group member: a fixed-size, pointer-free record
// in its group's arena (72 bytes). Strings are interned per group; the
// partition state is in a side record that most members do not need.
type member struct {
	id        [16]byte // the id in compact form (formHex, formB64)
	form      idForm
	state     uint8
	flags     uint8
	_         uint8
	epoch     int32 // -2 while a static member is parked
	prevEpoch int32
	rto       int32  // RebalanceTimeoutMs
	sub       uint32 // group.subs reference; 0 = nothing subscribed
	client    uint32 // group.clients reference (client id, host)
	inst      uint32 // group.insts reference; 0 = null
	rack      uint32 // group.racks reference; 0 = null
	side      uint32 // group.sides index; 0 = none
	prev      uint32 // session list
	next      uint32
	session   int64 // session deadline, noDeadline if none
}

// side is the partition state of a member that owns or is targeted by
// partitions, or has a rebalance timer. Partitions are global partition
// indexes (topics in name order, then partition), kept sorted.
type side struct {
	assigned []int32 // owned and acknowledged
	pending  []int32 // owned, pending revocation
	target   []int32
	rdl      int64 // rebalance deadline, noDeadline if none
	hpos     int32 // position in group.rheap, -1 if absent
	mem      uint32
}

// subscription is an interned (names, regex) pair and the topics it
// resolves to.
type subscription struct {
	names  []string // sorted, unique
	regex  codec.NullableString
	topics []int32 // topic indexes, ascending
}

type clientKey struct{ id, host string }

// Group status: a phantom group exists only for the join creating it and is
// invisible to everything else; a dead one was a phantom whose join failed.
const (
	gPhantom uint8 = iota
	gLive
	gDead
)

// group is one consumer group. Everything in it is guarded by mu.
type group struct {
	mu     sync.Mutex
	c      *Coordinator
	id     string
	status uint8
	shard  *timerShard

	epoch int32 // group epoch == target assignment epoch
	mem   []member
	free  []uint32
	count int

	byHex  map[[16]byte]uint32
	byB64  map[[16]byte]uint32
	byStr  map[string]uint32
	strIDs map[uint32]string

	insts   table[string, uint32] // instance id -> holder member index (val)
	racks   table[string, struct{}]
	clients table[clientKey, struct{}]
	subs    table[string, *subscription]

	sides     []side
	freeSides []uint32

	owner     []uint32 // per partition: owner<<1 | 1 if pending revocation; 0 = free
	tgt       []uint32 // per partition: target member; 0 = none
	topicSubs []olist  // per topic: subscribers in member-id order

	sessHead, sessTail uint32
	rheap              []uint32 // side indexes, min-heap by rdl

	registered int64  // earliest deadline pushed to the shard's heap
	expireGen  uint64 // last Expire round that processed the group
	scratch    []uint64
	oldHolders []uint32
	less       lessFunc
}

func newGroup(c *Coordinator, id string) *group {
	g := &group{
		c:          c,
		id:         id,
		mem:        make([]member, 1, 2),
		sides:      make([]side, 1),
		owner:      make([]uint32, c.nparts),
		tgt:        make([]uint32, c.nparts),
		topicSubs:  make([]olist, len(c.topics)),
		registered: math.MaxInt64,
	}
	g.less = g.idLess
	return g
}

// ---- member ids ----

// find returns the index of the member with id s, or 0.
func (g *group) find(s string) uint32 {
	u, f := parseID(s)
	switch f {
	case formHex:
		return g.byHex[u]
	case formB64:
		return g.byB64[u]
	}
	return g.byStr[s]
}

// idString is member mi's id.
func (g *group) idString(mi uint32) string {
	m := &g.mem[mi]
	if m.form == formStr {
		return g.strIDs[mi]
	}
	var b [36]byte
	return string(appendID(b[:0], &m.id, m.form))
}

// appendIDTo appends member mi's id to dst without allocating for compact
// forms.
func (g *group) appendIDTo(dst []byte, mi uint32) []byte {
	m := &g.mem[mi]
	if m.form == formStr {
		return append(dst, g.strIDs[mi]...)
	}
	return appendID(dst, &m.id, m.form)
}

// idLess orders members by id as strings.
func (g *group) idLess(a, b uint32) bool {
	ma, mb := &g.mem[a], &g.mem[b]
	if ma.form == formHex && mb.form == formHex {
		// Lowercase hex with dashes at fixed places sorts like the bytes.
		return bytes.Compare(ma.id[:], mb.id[:]) < 0
	}
	var ba, bb [64]byte
	return bytes.Compare(g.appendIDTo(ba[:0], a), g.appendIDTo(bb[:0], b)) < 0
}

// idIs reports whether member mi's id is s.
func (g *group) idIs(mi uint32, s string) bool {
	m := &g.mem[mi]
	if m.form == formStr {
		return g.strIDs[mi] == s
	}
	u, f := parseID(s)
	return f == m.form && u == m.id
}

// alloc makes a new member with id s at epoch 0 and indexes it.
func (g *group) alloc(s string) uint32 {
	var mi uint32
	if n := len(g.free); n > 0 {
		mi = g.free[n-1]
		g.free = g.free[:n-1]
	} else {
		mi = uint32(len(g.mem))
		g.mem = append(g.mem, member{})
	}
	u, f := parseID(s)
	g.mem[mi] = member{id: u, form: f, flags: flLive, state: stStable, session: noDeadline}
	switch f {
	case formHex:
		if g.byHex == nil {
			g.byHex = map[[16]byte]uint32{}
		}
		g.byHex[u] = mi
	case formB64:
		if g.byB64 == nil {
			g.byB64 = map[[16]byte]uint32{}
		}
		g.byB64[u] = mi
	default:
		if g.byStr == nil {
			g.byStr, g.strIDs = map[string]uint32{}, map[uint32]string{}
		}
		g.byStr[s] = mi
		g.strIDs[mi] = s
	}
	g.count++
	return mi
}

// ---- interned fields ----

func (g *group) instanceOf(mi uint32) codec.NullableString {
	if r := g.mem[mi].inst; r != 0 {
		return codec.Str(g.insts.get(r).key)
	}
	return codec.Null
}

func (g *group) rackOf(mi uint32) codec.NullableString {
	if r := g.mem[mi].rack; r != 0 {
		return codec.Str(g.racks.get(r).key)
	}
	return codec.Null
}

// holder returns the member holding instance id s, or 0.
func (g *group) holder(s string) uint32 {
	if r := g.insts.find(s); r != 0 {
		return g.insts.get(r).val
	}
	return 0
}

func (g *group) setInstance(mi uint32, s string) {
	m := &g.mem[mi]
	if m.inst != 0 && g.insts.get(m.inst).key == s {
		return
	}
	r := g.insts.acquire(s, nil)
	g.dropInstance(mi)
	g.mem[mi].inst = r
}

// dropInstance releases mi's instance id, and the instance's holder slot
// when mi holds it.
func (g *group) dropInstance(mi uint32) {
	m := &g.mem[mi]
	if m.inst == 0 {
		return
	}
	if e := g.insts.get(m.inst); e.val == mi {
		e.val = 0
	}
	g.insts.release(m.inst)
	m.inst = 0
}

func (g *group) setRack(mi uint32, s string) {
	m := &g.mem[mi]
	if m.rack != 0 && g.racks.get(m.rack).key == s {
		return
	}
	r := g.racks.acquire(s, nil)
	g.racks.release(m.rack)
	m.rack = r
}

// setClient records the client id and host of mi's latest request; the
// common case (unchanged) compares two strings and allocates nothing.
func (g *group) setClient(mi uint32, clientID, host string) {
	m := &g.mem[mi]
	if m.client != 0 {
		if k := g.clients.get(m.client).key; k.id == clientID && k.host == host {
			return
		}
	}
	r := g.clients.acquire(clientKey{clientID, host}, nil)
	g.clients.release(m.client)
	m.client = r
}

func (g *group) clientOf(mi uint32) clientKey {
	if r := g.mem[mi].client; r != 0 {
		return g.clients.get(r).key
	}
	return clientKey{}
}

func (g *group) subOf(mi uint32) *subscription {
	if r := g.mem[mi].sub; r != 0 {
		return g.subs.get(r).val
	}
	return &emptySubscription
}

var emptySubscription subscription

// subscriptionKey encodes (names, regex) as an intern key.
func subscriptionKey(names []string, regex codec.NullableString) string {
	var b []byte
	for _, n := range names {
		b = append(b, byte(len(n)>>24), byte(len(n)>>16), byte(len(n)>>8), byte(len(n)))
		b = append(b, n...)
	}
	if regex.Valid {
		b = append(b, 1)
		b = append(b, regex.Value...)
	} else {
		b = append(b, 0)
	}
	return string(b)
}

// setSubscription gives mi the subscription (names, regex) and moves it
// between the topics' subscriber lists.
func (g *group) setSubscription(mi uint32, names []string, regex codec.NullableString) {
	var r uint32
	if len(names) > 0 || regex.Valid {
		r = g.subs.acquire(subscriptionKey(names, regex), func() *subscription {
			return &subscription{names: names, regex: regex, topics: g.c.resolveTopics(names, regex)}
		})
	}
	g.moveSubscription(mi, r)
}

// moveSubscription replaces mi's subscription reference by r (already
// acquired) and updates the topic lists.
func (g *group) moveSubscription(mi, r uint32) {
	old := g.mem[mi].sub
	if old == r {
		g.subs.release(r) // the caller's extra reference
		return
	}
	var ot, nt []int32
	if old != 0 {
		ot = g.subs.get(old).val.topics
	}
	if r != 0 {
		nt = g.subs.get(r).val.topics
	}
	// Both lists are ascending: walk them together.
	i, j := 0, 0
	for i < len(ot) || j < len(nt) {
		switch {
		case j == len(nt) || (i < len(ot) && ot[i] < nt[j]):
			g.topicSubs[ot[i]].remove(mi, g.less)
			i++
		case i == len(ot) || nt[j] < ot[i]:
			g.topicSubs[nt[j]].insert(mi, g.less)
			j++
		default:
			i++
			j++
		}
	}
	g.mem[mi].sub = r
	g.subs.release(old)
}

// resolveTopics is the model's subscribedTopics: the named topics plus
// those the regex matches, as topic indexes.
func (c *Coordinator) resolveTopics(names []string, regex codec.NullableString) []int32 {
	var re *regexp.Regexp
	if regex.Valid && regex.Value != "" {
		re, _ = regexp.Compile("^(?:" + regex.Value + ")$")
	}
	var out []int32
	for ti, t := range c.topics {
		in := false
		for _, n := range names {
			if n == t.Name {
				in = true
				break
			}
		}
		if !in && re != nil && re.MatchString(t.Name) {
			in = true
		}
		if in {
			out = append(out, int32(ti))
		}
	}
	return out
}

// ---- side records ----

func (g *group) sideOf(mi uint32) *side {
	if s := g.mem[mi].side; s != 0 {
		return &g.sides[s]
	}
	return nil
}

func (g *group) ensureSide(mi uint32) *side {
	if s := g.mem[mi].side; s != 0 {
		return &g.sides[s]
	}
	var si uint32
	if n := len(g.freeSides); n > 0 {
		si = g.freeSides[n-1]
		g.freeSides = g.freeSides[:n-1]
	} else {
		si = uint32(len(g.sides))
		g.sides = append(g.sides, side{})
	}
	s := &g.sides[si]
	*s = side{assigned: s.assigned[:0], pending: s.pending[:0], target: s.target[:0], rdl: noDeadline, hpos: -1, mem: mi}
	g.mem[mi].side = si
	return s
}

// maybeFreeSide returns mi's side record once it holds nothing.
func (g *group) maybeFreeSide(mi uint32) {
	si := g.mem[mi].side
	if si == 0 {
		return
	}
	s := &g.sides[si]
	if len(s.assigned) > 0 || len(s.pending) > 0 || len(s.target) > 0 || s.rdl != noDeadline || s.hpos >= 0 {
		return
	}
	s.mem = 0
	g.mem[mi].side = 0
	g.freeSides = append(g.freeSides, si)
}

// ---- rebalance timers: an indexed min-heap of side records ----

func (g *group) heapLess(i, j int) bool { return g.sides[g.rheap[i]].rdl < g.sides[g.rheap[j]].rdl }

func (g *group) heapSwap(i, j int) {
	h := g.rheap
	h[i], h[j] = h[j], h[i]
	g.sides[h[i]].hpos = int32(i)
	g.sides[h[j]].hpos = int32(j)
}

func (g *group) heapUp(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !g.heapLess(i, p) {
			break
		}
		g.heapSwap(i, p)
		i = p
	}
}

func (g *group) heapDown(i int) {
	n := len(g.rheap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && g.heapLess(r, l) {
			m = r
		}
		if !g.heapLess(m, i) {
			return
		}
		g.heapSwap(i, m)
		i = m
	}
}

func (g *group) heapRemove(si uint32) {
	s := &g.sides[si]
	i := int(s.hpos)
	if i < 0 {
		return
	}
	last := len(g.rheap) - 1
	if i != last {
		g.heapSwap(i, last)
	}
	g.rheap = g.rheap[:last]
	g.sides[si].hpos = -1
	if i != last {
		g.heapDown(i)
		g.heapUp(i)
	}
}

// setRebalance sets mi's rebalance deadline (noDeadline clears it).
func (g *group) setRebalance(mi uint32, at int64) {
	if at == noDeadline {
		if si := g.mem[mi].side; si != 0 {
			g.heapRemove(si)
			g.sides[si].rdl = noDeadline
		}
		return
	}
	s := g.ensureSide(mi)
	si := g.mem[mi].side
	s.rdl = at
	if s.hpos < 0 {
		s.hpos = int32(len(g.rheap))
		g.rheap = append(g.rheap, si)
		g.heapUp(int(s.hpos))
	} else {
		g.heapDown(int(s.hpos))
		g.heapUp(int(g.sides[si].hpos))
	}
	g.register(at)
}

// ---- session timers: a list in deadline order ----

func (g *group) unlinkSession(mi uint32) {
	m := &g.mem[mi]
	if m.flags&flLinked == 0 {
		return
	}
	if m.prev != 0 {
		g.mem[m.prev].next = m.next
	} else {
		g.sessHead = m.next
	}
	if m.next != 0 {
		g.mem[m.next].prev = m.prev
	} else {
		g.sessTail = m.prev
	}
	m.prev, m.next = 0, 0
	m.flags &^= flLinked
}

// armSession (re)arms mi's session timer to now + the session timeout. The
// clock never goes back, so the new deadline is the latest: the member
// goes to the tail.
func (g *group) armSession(mi uint32, now int64) {
	at := now + g.c.cfg.SessionTimeoutMs
	m := &g.mem[mi]
	if m.flags&flLinked != 0 && m.next == 0 {
		m.session = at // already the tail
		return
	}
	g.unlinkSession(mi)
	m.session = at
	if at == noDeadline {
		return // the model's "no deadline" sentinel
	}
	m.prev = g.sessTail
	if g.sessTail != 0 {
		g.mem[g.sessTail].next = mi
	} else {
		g.sessHead = mi
	}
	g.sessTail = mi
	m.flags |= flLinked
	if at < g.registered {
		g.register(at)
	}
}

// register makes sure the group's shard will visit it by at.
func (g *group) register(at int64) {
	if at >= g.registered {
		return
	}
	g.registered = at
	g.shard.push(at, g)
}

// earliest is the group's earliest timer.
func (g *group) earliest() (int64, bool) {
	at, ok := int64(math.MaxInt64), false
	if g.sessHead != 0 {
		at, ok = g.mem[g.sessHead].session, true
	}
	if len(g.rheap) > 0 {
		if d := g.sides[g.rheap[0]].rdl; !ok || d < at {
			at, ok = d, true
		}
	}
	return at, ok
}

// expire fires every timer of the group due at now: sessions from the head
// of the list, rebalance timers from the top of the heap. Each removal
// moves the group epoch on; the target is recomputed once at the end (the
// intermediate targets are never observed).
func (g *group) expire(now int64) {
	removed := int32(0)
	for g.sessHead != 0 && g.mem[g.sessHead].session <= now {
		mi := g.sessHead
		if g.c.mut.Has(MutParkedNeverExpires) && g.mem[mi].epoch == -2 {
			g.unlinkSession(mi)
			g.mem[mi].session = noDeadline
			continue
		}
		g.removeMember(mi)
		removed++
	}
	for len(g.rheap) > 0 && g.sides[g.rheap[0]].rdl <= now {
		si := g.rheap[0]
		g.heapRemove(si)
		s := &g.sides[si]
		s.rdl = noDeadline
		mi := s.mem
		if len(s.pending) > 0 {
			g.removeMember(mi)
			removed++
		} else {
			g.maybeFreeSide(mi)
		}
	}
	if removed > 0 {
		g.epoch += removed
		g.computeTarget()
	}
	g.registered = math.MaxInt64
	if at, ok := g.earliest(); ok {
		g.register(at)
	}
}

// ---- partitions ----

// release frees p if mi owns it (pending or not).
func (g *group) release(p int32, mi uint32) {
	if g.owner[p]>>1 == mi {
		g.owner[p] = 0
	}
}

// removeMember takes mi out of the group (leave, admin removal, session or
// rebalance timeout), freeing all its partitions. The caller moves the
// epoch on and recomputes the target.
func (g *group) removeMember(mi uint32) {
	g.dropInstance(mi)
	m := &g.mem[mi]
	g.racks.release(m.rack)
	g.clients.release(m.client)
	g.moveSubscription(mi, 0)
	if si := g.mem[mi].side; si != 0 {
		s := &g.sides[si]
		for _, p := range s.assigned {
			g.release(p, mi)
		}
		for _, p := range s.pending {
			g.release(p, mi)
		}
		for _, p := range s.target {
			if g.tgt[p] == mi {
				g.tgt[p] = 0
			}
		}
		g.heapRemove(si)
		s = &g.sides[si]
		s.assigned, s.pending, s.target = s.assigned[:0], s.pending[:0], s.target[:0]
		s.rdl = noDeadline
		g.maybeFreeSide(mi)
	}
	g.unlinkSession(mi)
	m = &g.mem[mi]
	switch m.form {
	case formHex:
		delete(g.byHex, m.id)
	case formB64:
		delete(g.byB64, m.id)
	default:
		delete(g.byStr, g.strIDs[mi])
		delete(g.strIDs, mi)
	}
	*m = member{}
	g.free = append(g.free, mi)
	g.count--
}

// bump records a change of membership or subscription: the group epoch
// moves on and the target is recomputed at once.
func (g *group) bump() {
	g.epoch++
	g.computeTarget()
}

// computeTarget is the uniform assignor (docs/PROTOCOL.md A5): topics in name
// order with a running offset from 0; for each topic with k subscribers in
// member-id order, partition p goes to subscriber (offset+p) mod k, then
// the offset grows by the partition count. The subscribers of each topic
// are kept sorted, so this is one select per partition.
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
	if s := g.sideOf(mi); s != nil && reported != nil && len(s.pending) > 0 {
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
	if s := g.sideOf(mi); (s == nil || len(s.pending) == 0) && m.epoch < g.epoch {
		if s != nil && len(s.assigned) > 0 {
			keep := s.assigned[:0]
			for _, p := range s.assigned {
				if g.tgt[p] == mi {
					keep = append(keep, p)
				} else {
					s.pending = append(s.pending, p)
					g.owner[p] = mi<<1 | 1
					changed = true
				}
			}
			s.assigned = keep
		}
		if s == nil || len(s.pending) == 0 {
			m.prevEpoch, m.epoch = m.epoch, g.epoch
		}
	}
	// 2./3. While anything is pending, wait for the client.
	if s := g.sideOf(mi); s != nil && len(s.pending) > 0 {
		if m.state != stUnrevoked {
			// A timeout of zero or below fires at the next Expire.
			g.setRebalance(mi, now+max(int64(m.rto), 0))
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

// state is the group state ConsumerGroupDescribe shows.
func (g *group) stateName() string {
	if g.count == 0 {
		return "Empty"
	}
	for mi := 1; mi < len(g.mem); mi++ {
		m := &g.mem[mi]
		if m.flags&flLive != 0 && (m.epoch != g.epoch || m.state != stStable) {
			return "Reconciling"
		}
	}
	return "Stable"
}

func sizeofMember() uintptr { return unsafe.Sizeof(member{}) }
