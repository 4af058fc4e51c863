package model

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"maps"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Clone returns a deep copy of the coordinator: state changes to either do
// not affect the other. The copy shares the configuration, including the id
// source (replace it with SetIDSource). The linearizability checker steps
// clones, never the original. The answers to held requests not yet
// released are copied too.
func (c *Coordinator) Clone() *Coordinator { return c.CloneInto(new(Coordinator)) }

// CloneInto is Clone made in dst's memory: dst's maps, group records,
// members and partition sets are reused for the copy. It is for a caller
// that makes a clone per step and lets go of as many (the explorer,
// package explore), and spares the allocator most of a coordinator's
// weight. dst must be a coordinator its caller no longer uses, nor
// anything dst returned or held (nothing a coordinator returns shares its
// memory: answers and snapshots are built apart); nil makes a new one.
// Empty maps stay nil (their writers make them): most clones the explorer
// makes have no telemetry and no held request. The connections' map of a
// reused dst is kept, emptied: most clones open a connection.
func (c *Coordinator) CloneInto(dst *Coordinator) *Coordinator {
	if dst == nil {
		dst = new(Coordinator)
	}
	groups, conns := dst.groups, dst.conns
	*dst = Coordinator{
		cfg:         c.cfg,
		topics:      c.topics,
		firstOfName: c.firstOfName,
		apis:        c.apis,
		served:      c.served,
		now:         c.now,
	}
	if groups == nil {
		groups = make(map[string]*group, len(c.groups))
	}
	for id := range groups {
		if _, ok := c.groups[id]; !ok {
			delete(groups, id)
		}
	}
	for id, g := range c.groups {
		groups[id] = g.cloneInto(groups[id])
	}
	dst.groups = groups
	if len(c.conns) > 0 || conns != nil {
		if conns == nil {
			conns = make(map[uint64]string, len(c.conns))
		} else {
			clear(conns)
		}
		maps.Copy(conns, c.conns)
		dst.conns = conns
	}
	if len(c.classic) > 0 {
		dst.classic = make(map[string]*classicGroup, len(c.classic))
		for id, g := range c.classic {
			dst.classic[id] = g.clone()
		}
	}
	c.cloneHeld(dst)
	if len(c.telemetry) > 0 {
		dst.telemetry = make(map[codec.UUID]*telemetryClient, len(c.telemetry))
		for id, t := range c.telemetry {
			v := *t
			dst.telemetry[id] = &v
		}
	}
	return dst
}

// cloneInto is clone made in dst's memory (nil: a new group): its maps
// cleared and refilled, its members copied into one block and its
// partition sets into one other, each kept from dst's last clone when
// large enough. Every set is cut with no room past its end, so that a
// set the model grows (add, append) moves out of the block rather than
// write over the next one; what it changes within its length (a filter
// in place) is its own.
func (g *group) cloneInto(dst *group) *group {
	if dst == nil {
		return g.clone()
	}
	instances, target, block, parts, members := dst.instances, dst.target, dst.block, dst.parts, dst.members
	n := 0
	for _, m := range g.members {
		n += len(m.assigned) + len(m.pending)
	}
	for _, p := range g.target {
		n += len(p)
	}
	if parts == nil || cap(parts) < n { // non-nil: an empty set cut from it is not nil
		parts = make([]tp, 0, n)
	}
	if instances == nil {
		instances = make(map[string]string, len(g.instances))
	}
	if target == nil {
		target = make(map[string]partSet, len(g.target))
	}
	parts = parts[:0]
	cut := func(s partSet) partSet {
		if s == nil {
			return nil
		}
		at := len(parts)
		parts = append(parts, s...)
		return partSet(parts[at:len(parts):len(parts)])
	}
	if cap(block) < len(g.members) {
		block = make([]member, len(g.members))
	}
	block = block[:len(g.members)]
	members = members[:0]
	for i, m := range g.members {
		v := &block[i]
		*v = *m
		v.assigned = cut(m.assigned)
		v.pending = cut(m.pending)
		if m.classic != nil {
			ci := *m.classic // its protocols are never changed in place
			v.classic = &ci
		}
		members = append(members, v)
	}
	clear(instances)
	maps.Copy(instances, g.instances)
	clear(target)
	for k, v := range g.target {
		target[k] = cut(v)
	}
	*dst = group{id: g.id, epoch: g.epoch, members: members, instances: instances, target: target, block: block, parts: parts}
	return dst
}

func (g *group) clone() *group {
	out := &group{
		id:        g.id,
		epoch:     g.epoch,
		members:   make([]*member, 0, len(g.members)),
		instances: make(map[string]string, len(g.instances)),
		target:    make(map[string]partSet, len(g.target)),
	}
	// The members in one block: a clone is made on every transition the
	// explorer tries. A subscription is shared: it is replaced when it
	// changes, never changed in place.
	block := make([]member, len(g.members))
	for i, m := range g.members {
		v := &block[i]
		*v = *m
		v.assigned = m.assigned.clone()
		v.pending = m.pending.clone()
		if m.classic != nil {
			ci := *m.classic // its protocols are never changed in place
			v.classic = &ci
		}
		out.members = append(out.members, v)
	}
	if len(g.instances) > 0 {
		out.instances = maps.Clone(g.instances)
	}
	for k, v := range g.target {
		out.target[k] = v.clone()
	}
	return out
}

// SetIDSource replaces the source of coordinator-made ids.
func (c *Coordinator) SetIDSource(f func() codec.UUID) { c.cfg.NewID = f }

// SetClauseCounter replaces the clause counter (Config.Clauses); nil
// counts nothing. A clone shares its original's counter until given one of
// its own: the explorer (package explore) counts each of its workers'
// clones apart, and nothing while it replays a path it already counted.
func (c *Coordinator) SetClauseCounter(cc ClauseCounter) { c.cfg.Clauses = cc }

// AppendState appends a canonical encoding of the coordinator's whole state
// (time, groups, members with every field, connections, telemetry clients,
// classic groups, held requests and answers not yet released):
// two coordinators behave the same from now on if their encodings are
// equal. The linearizability checker uses it for Equal and Hash.
func (c *Coordinator) AppendState(b []byte) []byte { return c.AppendStateForm(b, StateForm{}) }

// StateForm is how AppendStateForm writes the parts of the state a caller
// abstracts: the explorer (package explore) renames member ids by their
// order of appearance, lists connections under the client that holds them
// and counts time from now, so that two states equal up to those renamings
// and a shift in time encode equally. The zero StateForm is AppendState's.
type StateForm struct {
	// MemberID appends a member id in the caller's form (nil: as it is).
	// Members are listed in member id order, so a renaming that keeps the
	// order of ids keeps the encoding canonical.
	MemberID func(b []byte, id string) []byte
	// RelativeTime leaves the time out and writes every deadline as its
	// distance from it (a deadline that is not set stays apart).
	RelativeTime bool
	// NoConns leaves the connections' KIP-1313 contexts out, for a caller
	// that writes each with its client (ConnClientID).
	NoConns bool
	// Request appends a request held unread behind a held one on its
	// connection, in the caller's form (nil: as fmt prints it). The
	// explorer writes its member ids through its own renaming and leaves
	// its correlation id out.
	Request func(b []byte, h *codec.RequestHeader, req codec.Message) []byte
}

// AppendStateForm appends the canonical encoding of AppendState, with the
// abstractions f asks for.
func (c *Coordinator) AppendStateForm(b []byte, f StateForm) []byte {
	if !f.RelativeTime {
		b = binary.AppendVarint(b, c.now)
	}
	var gbuf [4]string
	gids := sortedKeys(c.groups, gbuf[:0])
	b = binary.AppendUvarint(b, uint64(len(gids)))
	for _, id := range gids {
		b = c.groups[id].appendState(b, c.topics, f, c.now)
	}
	if !f.NoConns {
		var cbuf [8]uint64
		cids := sortedKeys(c.conns, cbuf[:0])
		b = binary.AppendUvarint(b, uint64(len(cids)))
		for _, id := range cids {
			b = binary.AppendUvarint(b, id)
			b = appendString(b, c.conns[id])
		}
	}
	tids := make([]codec.UUID, 0, len(c.telemetry))
	for id := range c.telemetry {
		tids = append(tids, id)
	}
	slices.SortFunc(tids, func(a, b codec.UUID) int { return bytes.Compare(a[:], b[:]) }) // no reflection
	b = binary.AppendUvarint(b, uint64(len(tids)))
	for _, id := range tids {
		t := c.telemetry[id]
		b = append(b, id[:]...)
		b = appendTime(b, t.lastGet, f, c.now)
		b = appendTime(b, t.lastPush, f, c.now)
		b = appendBool(b, t.terminating)
	}
	return c.appendClassicState(b, f)
}

// appendTime appends a time or deadline: as it is, or (RelativeTime) as
// its distance from now, noDeadline kept apart.
func appendTime(b []byte, t int64, f StateForm, now int64) []byte {
	if !f.RelativeTime {
		return binary.AppendVarint(b, t)
	}
	if t == noDeadline {
		return append(b, 0)
	}
	return binary.AppendVarint(append(b, 1), t-now)
}

func (g *group) appendState(b []byte, topics []Topic, f StateForm, now int64) []byte {
	b = appendString(b, g.id)
	b = binary.AppendVarint(b, int64(g.epoch))
	b = binary.AppendUvarint(b, uint64(len(g.members)))
	for _, m := range g.members {
		if f.MemberID != nil {
			b = f.MemberID(b, m.id)
		} else {
			b = appendString(b, m.id)
		}
		b = appendNullable(b, m.instanceID)
		b = appendNullable(b, m.rackID)
		b = appendString(b, m.clientID)
		b = appendString(b, m.clientHost)
		b = binary.AppendVarint(b, int64(m.epoch))
		b = binary.AppendVarint(b, int64(m.prevEpoch))
		b = appendString(b, m.state)
		b = binary.AppendVarint(b, int64(m.rebalanceTimeoutMs))
		b = appendBool(b, m.subscribedNames != nil)
		b = binary.AppendUvarint(b, uint64(len(m.subscribedNames)))
		for _, n := range m.subscribedNames {
			b = appendString(b, n)
		}
		b = appendNullable(b, m.subscribedRegex)
		b = appendNullable(b, m.serverAssignor)
		b = appendParts(b, m.assigned, topics)
		b = appendParts(b, m.pending, topics)
		b = appendTime(b, m.sessionDeadline, f, now)
		b = appendTime(b, m.rebalanceDeadline, f, now)
		if m.classic != nil { // a mixed group's classic member (A7)
			b = append(b, 1)
			b = binary.AppendVarint(b, int64(m.classic.sessionMs))
			b = binary.AppendUvarint(b, uint64(len(m.classic.protocols)))
			for _, p := range m.classic.protocols {
				b = appendString(b, p.name)
				b = appendString(b, string(p.metadata))
			}
			b = appendTime(b, m.classic.joinDeadline, f, now)
			b = appendTime(b, m.classic.syncDeadline, f, now)
		}
	}
	// The instance map and the target are functions of the members.
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendNullable(b []byte, s codec.NullableString) []byte {
	b = appendBool(b, s.Valid)
	return appendString(b, s.Value)
}

func appendParts(b []byte, s partSet, topics []Topic) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	for _, p := range s {
		b = appendString(b, topics[p.topic].Name)
		b = binary.AppendVarint(b, int64(p.partition))
	}
	return b
}

// sortedKeys appends m's keys to buf, in order. The state form is written
// on every transition the explorer tries: given a buf on its stack, a
// caller sorts a map of a few keys without allocating.
func sortedKeys[K cmp.Ordered, V any](m map[K]V, buf []K) []K {
	for k := range m {
		buf = append(buf, k)
	}
	slices.Sort(buf)
	return buf
}
