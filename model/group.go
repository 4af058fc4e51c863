package model

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// tp is one topic-partition, by topic name.
type tp struct {
	topic     string
	partition int32
}

// partSet is a set of topic-partitions.
type partSet map[tp]struct{}

func (s partSet) has(p tp) bool { _, ok := s[p]; return ok }

func (s partSet) clone() partSet {
	out := make(partSet, len(s))
	for p := range s {
		out[p] = struct{}{}
	}
	return out
}

func (s partSet) equal(o partSet) bool {
	if len(s) != len(o) {
		return false
	}
	for p := range s {
		if !o.has(p) {
			return false
		}
	}
	return true
}

// sorted lists the set in topic-name, then partition order.
func (s partSet) sorted() []tp {
	out := make([]tp, 0, len(s))
	for p := range s {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b tp) int { // not sort.Slice: the model's describes sort at every call
		return cmp.Or(strings.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
	})
	return out
}

// Member states of KIP-848 reconciliation (docs/PROTOCOL.md A5).
const (
	stateStable               = "STABLE"
	stateUnrevokedPartitions  = "UNREVOKED_PARTITIONS"
	stateUnreleasedPartitions = "UNRELEASED_PARTITIONS"
)

// member is one consumer-group member as the coordinator holds it.
type member struct {
	id         string
	instanceID codec.NullableString
	rackID     codec.NullableString
	clientID   string
	clientHost string

	epoch     int32 // -2 while a static member is parked
	prevEpoch int32
	state     string

	rebalanceTimeoutMs int32
	subscribedNames    []string // sorted, unique; nil when never set
	subscribedRegex    codec.NullableString
	serverAssignor     codec.NullableString

	assigned partSet // owned and acknowledged
	pending  partSet // owned, pending revocation

	sessionDeadline   int64
	rebalanceDeadline int64
}

// owns reports whether the member owns p (assigned or pending revocation).
func (m *member) owns(p tp) bool { return m.assigned.has(p) || m.pending.has(p) }

// group is one consumer group.
type group struct {
	id        string
	epoch     int32              // group epoch == target assignment epoch
	members   map[string]*member // by member id
	instances map[string]string  // instance id -> member id
	target    map[string]partSet // member id -> target partitions
}

func newGroup(id string) *group {
	return &group{id: id, members: map[string]*member{}, instances: map[string]string{}, target: map[string]partSet{}}
}

// subscribedTopics resolves a member's subscription against the existing
// topics: the named topics plus those the regex matches (resolved at once;
// Kafka resolves regexes asynchronously, which only delays the same result).
func (c *Coordinator) subscribedTopics(m *member) map[string]bool {
	out := map[string]bool{}
	for _, n := range m.subscribedNames {
		out[n] = true
	}
	if m.subscribedRegex.Valid && m.subscribedRegex.Value != "" {
		if re, err := regexp.Compile("^(?:" + m.subscribedRegex.Value + ")$"); err == nil {
			for _, t := range c.topics {
				if re.MatchString(t.Name) {
					out[t.Name] = true
				}
			}
		}
	}
	return out
}

// assignmentKey is what the assignor sorts a member by (docs/PROTOCOL.md
// A5.2): the group instance id of a static member, the member id of a
// dynamic one. Keying a static member by its instance id keeps its slot
// when a restarted process takes the instance over under a new member id,
// so a static restart moves no other member's target (A5.5).
func (m *member) assignmentKey() string {
	if m.instanceID.Valid {
		return m.instanceID.Value
	}
	return m.id
}

// keyLess orders members by assignment key. A static member's instance id
// may equal a dynamic member's id; the member ids, unique in a group, break
// that tie, so the order is total and every implementation agrees on it.
func keyLess(a, b *member) bool {
	if ka, kb := a.assignmentKey(), b.assignmentKey(); ka != kb {
		return ka < kb
	}
	return a.id < b.id
}

// computeTarget is the "uniform" assignor, a pure function of (assignment
// keys, subscriptions, topics): topics in name order with a running offset
// from 0; for each topic that has subscribers, sort them by assignment key
// (k of them), give partition p to subscriber (offset + p) mod k, then add
// the topic's partition count to the offset. A topic without subscribers
// is skipped whole, offset included: in A5 the offset step is one of the
// steps "for each topic with subscribers". No stickiness, no randomness.
func (c *Coordinator) computeTarget(g *group) {
	g.target = map[string]partSet{}
	ms := make([]*member, 0, len(g.members))
	subs := map[string]map[string]bool{}
	for id, m := range g.members {
		ms = append(ms, m)
		g.target[id] = partSet{}
		subs[id] = c.subscribedTopics(m)
	}
	slices.SortFunc(ms, func(a, b *member) int { // at every epoch bump: no reflection
		switch {
		case keyLess(a, b):
			return -1
		case keyLess(b, a):
			return 1
		}
		return 0
	})
	for _, m := range ms {
		if m.instanceID.Valid && len(subs[m.id]) > 0 {
			c.hit("A5.2/static-keyed-by-instance")
			break
		}
	}
	offset := 0
	for _, t := range c.topics {
		var subscribers []string
		for _, m := range ms {
			if subs[m.id][t.Name] {
				subscribers = append(subscribers, m.id)
			}
		}
		if len(subscribers) == 0 {
			continue
		}
		for p := 0; p < int(t.Partitions); p++ {
			owner := subscribers[(offset+p)%len(subscribers)]
			g.target[owner][tp{t.Name, int32(p)}] = struct{}{}
		}
		offset += int(t.Partitions)
	}
}

// bumpEpoch records a change of membership or subscription: the group epoch
// moves on and the target assignment is recomputed at once, so the target
// assignment epoch always equals the group epoch.
func (c *Coordinator) bumpEpoch(g *group) {
	g.epoch++
	c.computeTarget(g)
}

// removeMember takes m out of g (leave, session or rebalance timeout) as
// one change of membership: all its partitions are freed at once and the
// group epoch moves on.
func (c *Coordinator) removeMember(g *group, m *member) {
	dropMember(g, m)
	c.bumpEpoch(g)
}

// dropMember takes m out of g and frees all its partitions, without moving
// the epoch: a LeaveGroup drops every member it removes, then bumps once
// for the batch (A3.2).
func dropMember(g *group, m *member) {
	delete(g.members, m.id)
	if m.instanceID.Valid && g.instances[m.instanceID.Value] == m.id {
		delete(g.instances, m.instanceID.Value)
	}
}

// ownedByOther reports whether a member of g other than m owns p.
func ownedByOther(g *group, m *member, p tp) bool {
	for _, o := range g.members {
		if o != m && o.owns(p) {
			return true
		}
	}
	return false
}

// reconcile moves m towards its target after a successful heartbeat or join
// (docs/PROTOCOL.md A5):
//
//  1. Partitions pending revocation that the request no longer reports
//     (when it reports owned partitions at all) are released.
//  2. While any remain pending, nothing else changes.
//  3. Below the target epoch, partitions outside the target move to pending
//     revocation; if there are any, the member waits for the client to
//     revoke them (the rebalance timer starts). Otherwise the member takes
//     the target epoch.
//  4. At the target epoch, every target partition that no other member
//     owns is assigned; the rest follows once its owner lets go.
func (c *Coordinator) reconcile(g *group, m *member, reported []codec.ConsumerGroupHeartbeatTopicPartitions) {
	if reported != nil && len(m.pending) > 0 {
		rep := c.reportedSet(reported)
		for p := range m.pending {
			if !rep.has(p) {
				c.hit("A5.3/step-1-pending-released")
				delete(m.pending, p)
			}
		}
	}
	target := g.target[m.id]
	if len(m.pending) > 0 {
		c.hit("A5.3/step-2-still-revoking")
	} else if m.epoch < g.epoch {
		for p := range m.assigned {
			if !target.has(p) {
				delete(m.assigned, p)
				m.pending[p] = struct{}{}
			}
		}
		if len(m.pending) == 0 {
			c.hit("A5.3/step-3-epoch-advanced")
			m.prevEpoch, m.epoch = m.epoch, g.epoch
		} else {
			c.hit("A5.3/step-3-revoke")
		}
	}
	if len(m.pending) > 0 {
		if m.state != stateUnrevokedPartitions {
			c.hit("A5.6/rebalance-timer-started")
			// A timeout of zero or below (only -1 is refused, §B4.2)
			// fires at once: at the next Advance, at the current time.
			m.rebalanceDeadline = c.now + max(int64(m.rebalanceTimeoutMs), 0)
		}
		m.state = stateUnrevokedPartitions
		return
	}
	m.rebalanceDeadline = noDeadline
	m.state = stateStable
	for p := range target {
		if m.assigned.has(p) {
			continue
		}
		if ownedByOther(g, m, p) {
			c.hit("A5.3/step-4-unreleased")
			m.state = stateUnreleasedPartitions
			continue
		}
		c.hit("A5.3/step-4-assigned")
		m.assigned[p] = struct{}{}
	}
}

// reportedSet converts a request's TopicPartitions to a set; topics this
// coordinator does not know are ignored.
func (c *Coordinator) reportedSet(tps []codec.ConsumerGroupHeartbeatTopicPartitions) partSet {
	out := partSet{}
	for _, t := range tps {
		name, ok := c.topicName(t.TopicId)
		if !ok {
			continue
		}
		for _, p := range t.Partitions {
			out[tp{name, p}] = struct{}{}
		}
	}
	return out
}

// isSubset reports whether every reported partition is in assigned. An
// unknown topic is not a subset (Kafka's isSubset).
func (c *Coordinator) isSubset(tps []codec.ConsumerGroupHeartbeatTopicPartitions, assigned partSet) bool {
	for _, t := range tps {
		name, ok := c.topicName(t.TopicId)
		if !ok {
			return false
		}
		for _, p := range t.Partitions {
			if !assigned.has(tp{name, p}) {
				return false
			}
		}
	}
	return true
}

func (c *Coordinator) topicName(id codec.UUID) (string, bool) {
	for _, t := range c.topics {
		if t.ID == id {
			return t.Name, true
		}
	}
	return "", false
}

func (c *Coordinator) topicID(name string) codec.UUID {
	for _, t := range c.topics {
		if t.Name == name {
			return t.ID
		}
	}
	return codec.UUID{}
}

// heartbeatPartitions renders a set as a heartbeat's TopicPartitions, topics
// in name order.
func (c *Coordinator) heartbeatPartitions(s partSet) []codec.ConsumerGroupHeartbeatTopicPartitions {
	out := []codec.ConsumerGroupHeartbeatTopicPartitions{}
	for _, p := range s.sorted() {
		if n := len(out); n > 0 && out[n-1].TopicId == c.topicID(p.topic) {
			out[n-1].Partitions = append(out[n-1].Partitions, p.partition)
			continue
		}
		out = append(out, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: c.topicID(p.topic), Partitions: []int32{p.partition}})
	}
	return out
}

// describedPartitions renders a set for ConsumerGroupDescribe.
func (c *Coordinator) describedPartitions(s partSet) codec.DescribedAssignment {
	if len(s) == 0 {
		return codec.DescribedAssignment{}
	}
	sorted := s.sorted()
	// Every describe of every member comes here: the topics' lists share
	// one array (each capped at its end), made at its size.
	ntopics := 0
	for i, p := range sorted {
		if i == 0 || sorted[i-1].topic != p.topic {
			ntopics++
		}
	}
	out := make([]codec.DescribedTopicPartitions, 0, ntopics)
	parts := make([]int32, len(sorted))
	from := 0
	for i, p := range sorted {
		parts[i] = p.partition
		if i+1 == len(sorted) || sorted[i+1].topic != p.topic {
			out = append(out, codec.DescribedTopicPartitions{TopicId: c.topicID(p.topic), TopicName: p.topic, Partitions: parts[from : i+1 : i+1]})
			from = i + 1
		}
	}
	return codec.DescribedAssignment{TopicPartitions: out}
}
