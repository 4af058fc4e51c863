package model

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// tp is one topic-partition. The topic is its index in the coordinator's
// topics, which are in name order, so indexes order as names do; a name
// listed twice is always its first index (Coordinator.firstOfName), so one
// name is one topic, as it was when sets held names.
type tp struct {
	topic     int32
	partition int32
}

// partSet is a set of topic-partitions, kept sorted in topic-name, then
// partition order (tpCompare): a group's sets are small, every response
// lists them in that order, and a sorted slice (of plain numbers, which
// the garbage collector does not scan) is looked up and copied without
// the allocations and hashing of a map. nil is the empty set.
type partSet []tp

// tpCompare orders topic-partitions by topic name, then partition.
func tpCompare(a, b tp) int {
	return cmp.Or(cmp.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
}

// smallSet is the size up to which has scans a set instead of searching
// it: a member mostly owns few partitions, and for few a scan beats a
// binary search.
const smallSet = 32

func (s partSet) has(p tp) bool {
	if len(s) <= smallSet { // most sets: a scan beats a search
		return slices.Contains(s, p)
	}
	_, ok := slices.BinarySearchFunc(s, p, tpCompare)
	return ok
}

// add puts p in the set, in its place (at the end, without a search, when
// the set is built in order).
func (s *partSet) add(p tp) {
	if n := len(*s); n == 0 || tpCompare((*s)[n-1], p) < 0 {
		*s = append(*s, p)
		return
	}
	if i, ok := slices.BinarySearchFunc(*s, p, tpCompare); !ok {
		*s = slices.Insert(*s, i, p)
	}
}

func (s partSet) clone() partSet { return slices.Clone(s) }

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
	// matcher is subscribedRegex compiled for the assignor (topicMatcher),
	// made when the regex changes so that an epoch bump compiles nothing.
	// A compiled regexp is immutable: clones share it.
	matcher        *regexp.Regexp
	serverAssignor codec.NullableString

	assigned partSet // owned and acknowledged
	pending  partSet // owned, pending revocation

	sessionDeadline   int64
	rebalanceDeadline int64

	// classic is set for a member that uses the classic protocol (a mixed
	// group, A7; mixed.go); nil for one of the consumer protocol.
	classic *classicInfo
}

// owns reports whether the member owns p (assigned or pending revocation).
func (m *member) owns(p tp) bool { return m.assigned.has(p) || m.pending.has(p) }

// group is one consumer group.
type group struct {
	id    string
	epoch int32 // group epoch == target assignment epoch
	// members are in member id order: a group has few, and every
	// Describe, snapshot and state encoding lists them in that order.
	members   []*member
	instances map[string]string  // instance id -> member id
	target    map[string]partSet // member id -> target partitions

	// block and parts are the memory a clone's members and partition sets
	// are cut from (cloneInto), kept for the next clone made in it.
	block []member
	parts []tp
}

func newGroup(id string) *group {
	return &group{id: id, instances: map[string]string{}, target: map[string]partSet{}}
}

// memberCompare orders members by id, and finds one by its id.
func memberCompare(m *member, id string) int { return strings.Compare(m.id, id) }

// member returns the member with id, nil if the group holds none.
func (g *group) member(id string) *member {
	if i, ok := slices.BinarySearchFunc(g.members, id, memberCompare); ok {
		return g.members[i]
	}
	return nil
}

// put adds m to the group, or replaces the member with its id.
func (g *group) put(m *member) {
	i, ok := slices.BinarySearchFunc(g.members, m.id, memberCompare)
	if ok {
		g.members[i] = m
		return
	}
	g.members = slices.Insert(g.members, i, m)
}

// remove takes the member with id out of the group, if it holds one.
func (g *group) remove(id string) {
	if i, ok := slices.BinarySearchFunc(g.members, id, memberCompare); ok {
		g.members = slices.Delete(g.members, i, i+1)
	}
}

// subscribedTopics resolves a member's subscription against the existing
// topics: into[i] is set when the member subscribes to c.topics[i], by
// name or by its regex (resolved at once; Kafka resolves regexes
// asynchronously, which only delays the same result).
func (c *Coordinator) subscribedTopics(m *member, into []bool) {
	for i, t := range c.topics {
		_, named := slices.BinarySearch(m.subscribedNames, t.Name)
		into[i] = named || m.matcher != nil && m.matcher.MatchString(t.Name)
	}
}

// topicMatcher compiles a subscription regex as the assignor matches it,
// against whole topic names; nil for a null or empty regex, or one that
// does not compile (it matches nothing).
func topicMatcher(re codec.NullableString) *regexp.Regexp {
	if !re.Valid || re.Value == "" {
		return nil
	}
	m, err := regexp.Compile("^(?:" + re.Value + ")$")
	if err != nil {
		return nil
	}
	return m
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
	// The target is replaced whole: its map is reused (nothing outside the
	// group holds it; a caller that needs the old target clones it first).
	if g.target == nil {
		g.target = make(map[string]partSet, len(g.members))
	} else {
		clear(g.target)
	}
	ms := make([]*member, 0, len(g.members))
	for _, m := range g.members {
		ms = append(ms, m)
		g.target[m.id] = nil
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
	// subs[i*nt+j]: member ms[i] subscribes to topic c.topics[j] (one
	// array for the whole group, made at every epoch bump).
	nt := len(c.topics)
	subs := make([]bool, len(ms)*nt)
	for i, m := range ms {
		c.subscribedTopics(m, subs[i*nt:(i+1)*nt])
	}
	for i, m := range ms {
		// Subscribed to anything: a name (existing or not) or a topic its
		// regex matches.
		if m.instanceID.Valid && (len(m.subscribedNames) > 0 || slices.Contains(subs[i*nt:(i+1)*nt], true)) {
			c.hit("A5.2/static-keyed-by-instance")
			break
		}
	}
	// The deal runs twice over the same subscribers: first counting each
	// member's share, then filling one array, each member's part of it
	// capped at its end.
	subscribers := make([]int, 0, len(ms)) // indexes into ms
	deal := func(give func(owner int, p tp)) {
		offset := 0
		for j, t := range c.topics {
			subscribers = subscribers[:0]
			for i := range ms {
				if subs[i*nt+j] {
					subscribers = append(subscribers, i)
				}
			}
			if len(subscribers) == 0 {
				continue
			}
			for p := 0; p < int(t.Partitions); p++ {
				give(subscribers[(offset+p)%len(subscribers)], tp{c.firstOfName[j], int32(p)})
			}
			offset += int(t.Partitions)
		}
	}
	share := make([]int, len(ms))
	total := 0
	deal(func(owner int, _ tp) { share[owner]++; total++ })
	all := make([]tp, 0, total)
	var few [8]partSet // a group has few members: their parts on the stack
	parts := few[:]
	if len(ms) > len(few) {
		parts = make([]partSet, len(ms))
	}
	parts = parts[:len(ms)]
	for i, n := range share {
		parts[i] = all[len(all) : len(all) : len(all)+n]
		all = all[:len(all)+n]
	}
	deal(func(owner int, p tp) { parts[owner].add(p) })
	for i, m := range ms {
		if len(parts[i]) > 0 {
			g.target[m.id] = parts[i]
		}
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
	g.remove(m.id)
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
//
// It reports whether m's assignment changed.
func (c *Coordinator) reconcile(g *group, m *member, reported []codec.ConsumerGroupHeartbeatTopicPartitions) (assignmentChanged bool) {
	if reported != nil && len(m.pending) > 0 {
		m.pending = slices.DeleteFunc(m.pending, func(p tp) bool {
			if c.reports(reported, p) {
				return false
			}
			c.hit("A5.3/step-1-pending-released")
			return true
		})
	}
	target := g.target[m.id]
	if len(m.pending) > 0 {
		c.hit("A5.3/step-2-still-revoking")
	} else if m.epoch < g.epoch {
		// Split the assignment in order: what stays, what is revoked.
		kept := m.assigned[:0]
		for _, p := range m.assigned {
			if target.has(p) {
				kept = append(kept, p)
			} else {
				m.pending = append(m.pending, p)
			}
		}
		assignmentChanged = len(kept) < len(m.assigned)
		m.assigned = kept
		if len(m.pending) == 0 {
			c.hit("A5.3/step-3-epoch-advanced")
			m.prevEpoch, m.epoch = m.epoch, g.epoch
		} else {
			c.hit("A5.3/step-3-revoke")
		}
	}
	if len(m.pending) > 0 {
		if m.state != stateUnrevokedPartitions && m.classic == nil { // a classic member has its join and sync timers instead (A7.1)
			c.hit("A5.6/rebalance-timer-started")
			// A timeout of zero or below (only -1 is refused, §B4.2)
			// fires at once: at the next Advance, at the current time.
			m.rebalanceDeadline = c.now + max(int64(m.rebalanceTimeoutMs), 0)
		}
		m.state = stateUnrevokedPartitions
		return assignmentChanged
	}
	m.rebalanceDeadline = noDeadline
	m.state = stateStable
	for _, p := range target {
		if m.assigned.has(p) {
			continue
		}
		if ownedByOther(g, m, p) {
			c.hit("A5.3/step-4-unreleased")
			m.state = stateUnreleasedPartitions
			continue
		}
		c.hit("A5.3/step-4-assigned")
		m.assigned.add(p)
		assignmentChanged = true
	}
	return assignmentChanged
}

// reports reports whether a request's TopicPartitions name p; topics this
// coordinator does not know are ignored.
func (c *Coordinator) reports(tps []codec.ConsumerGroupHeartbeatTopicPartitions, p tp) bool {
	for _, t := range tps {
		if topic, ok := c.topicByID(t.TopicId); ok && topic == p.topic && slices.Contains(t.Partitions, p.partition) {
			return true
		}
	}
	return false
}

// isSubset reports whether every reported partition is in assigned. An
// unknown topic is not a subset (Kafka's isSubset).
func (c *Coordinator) isSubset(tps []codec.ConsumerGroupHeartbeatTopicPartitions, assigned partSet) bool {
	for _, t := range tps {
		topic, ok := c.topicByID(t.TopicId)
		if !ok {
			return false
		}
		for _, p := range t.Partitions {
			if !assigned.has(tp{topic, p}) {
				return false
			}
		}
	}
	return true
}

// topicByID finds the topic with id (the first, were two given one id) as
// a tp's topic.
func (c *Coordinator) topicByID(id codec.UUID) (int32, bool) {
	for i, t := range c.topics {
		if t.ID == id {
			return c.firstOfName[i], true
		}
	}
	return 0, false
}

// firstOfName maps each topic's index to the index of the first topic of
// its name: a tp's topic.
func firstOfName(topics []Topic) []int32 {
	out := make([]int32, len(topics))
	for i, t := range topics {
		out[i] = int32(slices.IndexFunc(topics, func(o Topic) bool { return o.Name == t.Name }))
	}
	return out
}

// heartbeatAssignment renders a set as a heartbeat's assignment, topics in
// name order.
func (c *Coordinator) heartbeatAssignment(s partSet) *codec.ConsumerGroupHeartbeatAssignment {
	var a *codec.ConsumerGroupHeartbeatAssignment
	if nt := topicsIn(s); nt == 1 {
		// One topic, most often: the assignment and its list in one
		// allocation.
		one := &oneTopicAssignment{}
		a = &one.assignment
		a.TopicPartitions = one.topics[:0:1]
	} else {
		a = &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: make([]codec.ConsumerGroupHeartbeatTopicPartitions, 0, nt)}
	}
	a.TopicPartitions = c.heartbeatPartitions(a.TopicPartitions, s)
	return a
}

// oneTopicAssignment is a heartbeat's assignment of one topic, with its
// list.
type oneTopicAssignment struct {
	assignment codec.ConsumerGroupHeartbeatAssignment
	topics     [1]codec.ConsumerGroupHeartbeatTopicPartitions
}

// heartbeatPartitions appends a set to out as a heartbeat's
// TopicPartitions, topics in name order.
func (c *Coordinator) heartbeatPartitions(out []codec.ConsumerGroupHeartbeatTopicPartitions, s partSet) []codec.ConsumerGroupHeartbeatTopicPartitions {
	// The topics' lists share one array, each capped at its end.
	parts := make([]int32, len(s))
	from := 0
	for i, p := range s {
		parts[i] = p.partition
		id := c.topics[p.topic].ID
		if n := len(out); n > 0 && out[n-1].TopicId == id {
			out[n-1].Partitions = parts[from : i+1 : i+1]
			continue
		}
		from = i
		out = append(out, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: id, Partitions: parts[i : i+1 : i+1]})
	}
	return out
}

// topicsIn counts the topics of a set.
func topicsIn(s partSet) int {
	n := 0
	for i, p := range s {
		if i == 0 || s[i-1].topic != p.topic {
			n++
		}
	}
	return n
}

// describeArrays are what the members of one described group take their
// lists from (describeGroup) when the answer they are written into holds
// none long enough: each is made on first need (take), at the size np,
// nt or nn says all lists still to take need.
type describeArrays struct {
	parts      []int32
	topics     []codec.DescribedTopicPartitions
	names      []string
	np, nt, nn int
}

// describedPartitions renders a set for ConsumerGroupDescribe, its topics
// in old's array and each topic's partitions in the one old's element
// held, where they fit, or else in arrays taken from a.
func (c *Coordinator) describedPartitions(s partSet, old []codec.DescribedTopicPartitions, a *describeArrays) []codec.DescribedTopicPartitions {
	out := take(old, topicsIn(s), &a.topics, &a.nt)
	from, k := 0, 0
	for i, p := range s {
		if i+1 == len(s) || s[i+1].topic != p.topic {
			t := &c.topics[p.topic]
			tp := &out[k]
			parts := take(tp.Partitions, i+1-from, &a.parts, &a.np)
			for j := range parts {
				parts[j] = s[from+j].partition
			}
			*tp = codec.DescribedTopicPartitions{TopicId: t.ID, TopicName: t.Name, Partitions: parts}
			from, k = i+1, k+1
		}
	}
	return out
}
