package impl

import (
	"sort"

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
}

// GroupSnapshot is one group, members in id order.
type GroupSnapshot struct {
	GroupID string
	Epoch   int32
	Members []MemberSnapshot
}

// Snapshot returns every group, in group id order, including what Describe
// cannot show (pending revocations). Groups are read one at a time under
// their own locks. It is meant for tests (it mirrors model.Snapshot).
func (c *Coordinator) Snapshot() []GroupSnapshot {
	var out []GroupSnapshot
	for _, g := range c.live.list() {
		g.mu.Lock()
		if g.status != gLive {
			g.mu.Unlock()
			continue
		}
		gs := GroupSnapshot{GroupID: g.id, Epoch: g.epoch}
		for _, e := range g.sortedMembers() {
			m := &g.mem[e.mi]
			sub := g.subOf(e.mi)
			ms := MemberSnapshot{MemberID: e.id, InstanceID: g.instanceOf(e.mi).Value, Epoch: m.epoch,
				Assigned: []TopicPartition{}, Pending: []TopicPartition{}, Target: []TopicPartition{},
				SubscribedTopicNames: append([]string{}, sub.names...), SubscribedTopicRegex: sub.regex}
			if s := g.sideOf(e.mi); s != nil {
				ms.Assigned = c.topicPartitions(s.assigned)
				ms.Pending = c.topicPartitions(s.pending)
				ms.Target = c.topicPartitions(s.target)
			}
			gs.Members = append(gs.Members, ms)
		}
		g.mu.Unlock()
		out = append(out, gs)
	}
	return out
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

func (c *Coordinator) topicPartitions(ps []int32) []TopicPartition {
	out := make([]TopicPartition, 0, len(ps))
	for _, p := range ps {
		t := c.topicOf(p)
		out = append(out, TopicPartition{c.topics[t].Name, p - c.base[t]})
	}
	return out
}
