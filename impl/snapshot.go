package impl

import (
	"slices"
	"sort"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// MemberSnapshot is one member as the coordinator holds it.
type MemberSnapshot struct {
	MemberID   string
	InstanceID string // "" for a dynamic member
	Epoch      int32
	Assigned   []TopicPartition // owned and acknowledged
	Pending    []TopicPartition // owned, pending revocation
	Target     []TopicPartition
	// SubscribedTopicNames (sorted, never nil) and SubscribedTopicRegex
	// are the member's subscription.
	SubscribedTopicNames []string
	SubscribedTopicRegex codec.NullableString
	// ClassicProtocol is true for a member of a consumer group that uses
	// the classic protocol (a mixed group, docs/PROTOCOL.md A7).
	ClassicProtocol bool
	// Classic is a classic group member's own state (nil in a consumer
	// group); such a member's Epoch is 0 and its partition lists nil (its
	// assignment bytes are decoded by whoever needs them).
	Classic *ClassicMemberSnapshot
}

// ClassicMemberSnapshot is a classic member's own state, as
// rules.ClassicMember: the request it has waiting ("join", "sync" or ""),
// its session timeout, whether it is new, its assignment bytes (nil when
// none).
type ClassicMemberSnapshot struct {
	Waiting          string
	SessionTimeoutMs int32
	New              bool
	Assignment       []byte
}

// GroupSnapshot is one group, members in id order.
type GroupSnapshot struct {
	GroupID string
	// Epoch is a consumer group's epoch and a classic group's generation.
	Epoch   int32
	Members []MemberSnapshot
	// Classic is a classic group's own state; nil for a consumer group.
	Classic *ClassicSnapshot
}

// ClassicSnapshot is a classic group's own state, as rules.ClassicGroup
// (its generation is the group's Epoch).
type ClassicSnapshot struct {
	State        string
	ProtocolType string
	Protocol     string
	Leader       string
	Pending      []PendingSnapshot // in id order; nil when none
}

// PendingSnapshot is a classic group's pending member id and its expiry.
type PendingSnapshot struct {
	ID       string
	Deadline int64
}

// Snapshot returns every group, in group id order, including what Describe
// cannot show (pending revocations). Groups are read one at a time under
// their own locks. It is meant for tests (it mirrors model.Snapshot).
func (c *Coordinator) Snapshot() []GroupSnapshot { return c.SnapshotInto(nil) }

// SnapshotInto is Snapshot written into dst's arrays: its list, its
// groups' and members' lists, their classic parts. It returns what
// Snapshot would (reflect.DeepEqual to it), so nil when there is no group,
// and members nil for a group without any. dst's earlier contents, nested
// lists included, are overwritten; dst must share no array with anything
// still read (a snapshot of Snapshot or SnapshotInto qualifies). A caller
// that takes a snapshot after every step (the explorer) keeps the result
// and hands it back: once the lists have the room, a snapshot allocates
// nothing (but the list of the groups to visit, beyond four). What nil
// stands for drops the arrays it replaces: no group (all of dst), a group
// without members (its members'), a consumer group where a classic one
// was (its classic parts).
func (c *Coordinator) SnapshotInto(dst []GroupSnapshot) []GroupSnapshot {
	var few [4]*group // mostly a few: no array made
	live := c.live.appendTo(few[:0])
	out := resized(dst, len(live))
	n := 0
	for _, g := range live {
		g.mu.Lock()
		if g.status == gLive {
			c.snapshotGroupInto(g, &out[n])
			n++
		}
		g.mu.Unlock()
	}
	if n == 0 {
		return nil // as before the list was made ahead
	}
	return out[:n]
}

// snapshotGroup is g's snapshot, in lists of its own; g is locked.
func (c *Coordinator) snapshotGroup(g *group) GroupSnapshot {
	var gs GroupSnapshot
	c.snapshotGroupInto(g, &gs)
	return gs
}

// snapshotGroupInto writes g's snapshot into gs, reusing its lists; g is
// locked. What it shows of a member, sameAsSnapshot compares in place: a
// field added here goes there too (internal/targets'
// TestCachedSnapshotsAreFresh catches one that does not).
func (c *Coordinator) snapshotGroupInto(g *group, gs *GroupSnapshot) {
	if g.kind == kindClassic {
		g.cl.snapshotInto(g.id, gs)
		return
	}
	members := g.sortedMembers()
	ms := resized(gs.Members, len(members))
	*gs = GroupSnapshot{GroupID: g.id, Epoch: g.epoch}
	// The members' lists go in those of the snapshot written over, or in
	// one array for the partitions and one for the subscribed names, made
	// at the size of what does not fit there (a snapshot made afresh makes
	// just those two). Each list is capped, so that appending to one
	// cannot reach the next.
	var parts listPool[TopicPartition]
	var names listPool[string]
	for _, e := range members {
		if s := g.sideOf(e.mi); s != nil {
			parts.left += len(s.assigned) + len(s.pending) + len(s.target)
		}
		names.left += len(g.subOf(e.mi).names)
	}
	for j, e := range members {
		m := &g.mem[e.mi]
		ms := &ms[j]
		sub := g.subOf(e.mi)
		subscribed := names.take(ms.SubscribedTopicNames, len(sub.names))
		copy(subscribed, sub.names)
		if subscribed == nil {
			subscribed = []string{} // never nil
		}
		var assigned, pending, target []int32
		if s := g.sideOf(e.mi); s != nil {
			assigned, pending, target = s.assigned, s.pending, s.target
		}
		*ms = MemberSnapshot{MemberID: e.id, InstanceID: g.instanceOf(e.mi).Value, Epoch: m.epoch,
			Assigned:             c.topicPartitionsInto(ms.Assigned, assigned, &parts),
			Pending:              c.topicPartitionsInto(ms.Pending, pending, &parts),
			Target:               c.topicPartitionsInto(ms.Target, target, &parts),
			SubscribedTopicNames: subscribed, SubscribedTopicRegex: sub.regex,
			ClassicProtocol: m.flags&flClassic != 0}
	}
	if len(members) > 0 {
		gs.Members = ms // else nil, as Snapshot always gave a group without members
	}
}

// topicPartitionsInto lists ps as topic partitions, in old's array or
// one of parts (never nil).
func (c *Coordinator) topicPartitionsInto(old []TopicPartition, ps []int32, parts *listPool[TopicPartition]) []TopicPartition {
	out := parts.take(old, len(ps))
	if out == nil {
		return []TopicPartition{}
	}
	for i, p := range ps {
		t := c.topicOf(p)
		out[i] = TopicPartition{c.topics[t].Name, p - c.base[t]}
	}
	return out
}

// SnapshotCache takes snapshots of one coordinator again and again (a
// checked run takes one after every round), building again only the groups
// that may have changed since the previous one: a group changes only under
// a lock taken to change it (group.lock), which moves its version. Most
// rounds leave most groups alone, and half the groups whose version moved
// show nothing new (a heartbeat that only kept its session): such a group
// keeps its last snapshot too (sameAsSnapshot). A SnapshotCache is for one
// caller at a time.
type SnapshotCache struct {
	c    *Coordinator
	last map[*group]cachedGroup
	// live, gs and same are the arrays each call lists into again.
	live []*group
	gs   []GroupSnapshot
	same []bool
}

type cachedGroup struct {
	ver  uint64
	snap GroupSnapshot
}

// NewSnapshotCache returns a SnapshotCache of c.
func (c *Coordinator) NewSnapshotCache() *SnapshotCache {
	return &SnapshotCache{c: c, last: map[*group]cachedGroup{}}
}

// Snapshot is Coordinator.Snapshot; same[i] reports that gs[i] is the very
// snapshot of its group the previous call returned (its lists shared with
// it): nothing a snapshot shows of the group has changed since. What it returns is to be read
// only; the two lists themselves (not the snapshots in them) are good
// until the next call, which lists into the same arrays.
func (s *SnapshotCache) Snapshot() (gs []GroupSnapshot, same []bool) {
	s.live = s.c.live.appendTo(s.live[:0])
	gs, same = s.gs[:0], s.same[:0]
	for _, g := range s.live {
		g.mu.Lock()
		if g.status == gLive {
			last, ok := s.last[g]
			hit := ok && last.ver == g.ver
			if ok && !hit {
				hit = s.c.sameAsSnapshot(g, last.snap)
				last.ver = g.ver
				if !hit {
					last.snap = s.c.snapshotGroup(g)
				}
				s.last[g] = last
			} else if !ok {
				last = cachedGroup{ver: g.ver, snap: s.c.snapshotGroup(g)}
				s.last[g] = last
			}
			gs = append(gs, last.snap)
			same = append(same, hit)
		}
		g.mu.Unlock()
	}
	clear(s.live) // no group is kept alive by the list
	s.gs, s.same = gs, same
	if len(gs) == 0 {
		return nil, nil
	}
	return gs, same
}

// sameAsSnapshot reports that snapshotGroup(g) would equal snap, without
// making it; g is locked.
func (c *Coordinator) sameAsSnapshot(g *group, snap GroupSnapshot) bool {
	if g.kind == kindClassic || snap.Classic != nil {
		return false // a classic group is built again whenever it was locked to change
	}
	if g.epoch != snap.Epoch || int(g.count) != len(snap.Members) {
		return false
	}
	var buf [64]byte
	seen := 0
	for mi := 1; mi < len(g.mem); mi++ {
		m := &g.mem[mi]
		if m.flags&flLive == 0 {
			continue
		}
		seen++
		id := g.appendIDTo(buf[:0], uint32(mi))
		j, found := sort.Find(len(snap.Members), func(j int) int { return compareID(id, snap.Members[j].MemberID) })
		if !found {
			return false
		}
		ms := &snap.Members[j]
		sub := g.subOf(uint32(mi))
		if m.epoch != ms.Epoch || g.instanceOf(uint32(mi)).Value != ms.InstanceID || (m.flags&flClassic != 0) != ms.ClassicProtocol ||
			sub.regex != ms.SubscribedTopicRegex || !slices.Equal(sub.names, ms.SubscribedTopicNames) {
			return false
		}
		var assigned, pending, target []int32
		if sd := g.sideOf(uint32(mi)); sd != nil {
			assigned, pending, target = sd.assigned, sd.pending, sd.target
		}
		if !c.samePartitions(assigned, ms.Assigned) || !c.samePartitions(pending, ms.Pending) || !c.samePartitions(target, ms.Target) {
			return false
		}
	}
	return seen == len(snap.Members)
}

// compareID compares id with s as strings, without making a string of id.
func compareID(id []byte, s string) int {
	switch {
	case string(id) == s:
		return 0
	case string(id) < s:
		return -1
	}
	return 1
}

// samePartitions reports that appendTopicPartitions would list ps as tps.
func (c *Coordinator) samePartitions(ps []int32, tps []TopicPartition) bool {
	if len(ps) != len(tps) {
		return false
	}
	for i, p := range ps {
		t := c.topicOf(p)
		if tps[i].Topic != c.topics[t].Name || tps[i].Partition != p-c.base[t] {
			return false
		}
	}
	return true
}

// allGroups returns every group, phantoms included, in id order, by
// visiting every shard (CheckInternal); liveGroups is the quick way to the
// live ones.
func (c *Coordinator) allGroups() []*group {
	var gs []*group
	for i := range c.groups {
		s := &c.groups[i]
		s.mu.RLock()
		for _, g := range s.m {
			gs = append(gs, g)
		}
		s.mu.RUnlock()
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].id < gs[j].id })
	return gs
}

// snapshotInto writes a classic group's snapshot into gs, reusing its
// lists and classic parts.
func (g *classicGroup) snapshotInto(id string, gs *GroupSnapshot) {
	cs := gs.Classic
	if cs == nil {
		cs = &ClassicSnapshot{}
	}
	oldMembers, oldPending := gs.Members, cs.Pending
	*cs = ClassicSnapshot{State: g.state.String(), ProtocolType: g.protocolType, Protocol: g.protocol, Leader: g.leader}
	*gs = GroupSnapshot{GroupID: id, Epoch: g.generation, Classic: cs}
	if len(g.members) > 0 { // else nil
		gs.Members = resized(oldMembers, len(g.members))
	}
	for i, m := range g.members {
		ms := &gs.Members[i]
		mc := ms.Classic
		if mc == nil {
			mc = &ClassicMemberSnapshot{}
		}
		*mc = ClassicMemberSnapshot{SessionTimeoutMs: m.sessionMs, New: m.isNew, Assignment: bytesInto(mc.Assignment, m.assignment)}
		switch {
		case m.join.on:
			mc.Waiting = "join"
		case m.sync.on:
			mc.Waiting = "sync"
		}
		*ms = MemberSnapshot{MemberID: m.id, InstanceID: m.instance.Value, Classic: mc}
	}
	if len(g.pending) > 0 { // else nil
		cs.Pending = oldPending[:0]
		for id, at := range g.pending {
			cs.Pending = append(cs.Pending, PendingSnapshot{id, at})
		}
		slices.SortFunc(cs.Pending, func(a, b PendingSnapshot) int { return strings.Compare(a.ID, b.ID) })
	}
}

// bytesInto is a copy of b (nil for nil, as slices.Clone), in old's array
// when it has the room.
func bytesInto(old, b []byte) []byte {
	if b == nil {
		return nil
	}
	if cap(old) < len(b) {
		return slices.Clone(b)
	}
	out := old[:len(b)]
	copy(out, b)
	if out == nil {
		return []byte{}
	}
	return out
}
