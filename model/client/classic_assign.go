package client

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The classic leader's assignment, by the protocol the coordinator
// selected: docs/PROTOCOL.md A5.2's uniform assignor (as the coordinator
// runs it for a consumer group), Kafka's range assignor, or the failover
// stand-in for a custom one (every partition of a topic to its first
// subscriber), run by the client over its JoinGroup answer's Members.

// subscriber is one member of the leader's JoinGroup answer, as the
// assignor sees it.
type subscriber struct {
	id, key string
	topics  []string
}

// assign is the leader's SyncGroup assignments: one entry per member of
// members, in their order, each a ConsumerProtocolAssignment of what the
// selected protocol's assignor gives it (uniformAssign, rangeAssign, or
// failover: each topic wholly to the first of its subscribers sorted as
// for uniformAssign);
// with Config.OmitEmpty, none for a member given no partition. A member
// whose metadata is not a subscription subscribes to nothing; a topic
// missing from Config.Partitions, or nobody's, is skipped.
func (c *Classic) assign(members []codec.JoinGroupResponseMember) []codec.SyncGroupRequestAssignment {
	subs := make([]subscriber, 0, len(members))
	var topics []string
	for _, m := range members {
		s := subscriber{id: m.MemberId, key: m.MemberId}
		if m.GroupInstanceId.Valid {
			s.key = m.GroupInstanceId.Value
		}
		var sub codec.ConsumerProtocolSubscription
		if _, err := sub.Decode(m.Metadata, codec.DecodeOptions{}); err == nil {
			s.topics = sub.Topics
			topics = append(topics, sub.Topics...)
		}
		subs = append(subs, s)
	}
	slices.Sort(topics)
	topics = slices.Compact(topics)
	got := make([]map[string][]int32, len(subs))
	give := func(i int, t string, p int32) {
		if got[i] == nil {
			got[i] = map[string][]int32{}
		}
		got[i][t] = append(got[i][t], p)
	}
	offset := 0
	for _, t := range topics {
		n, known := c.cfg.Partitions[t]
		if !known || n <= 0 {
			continue
		}
		var takers []int
		for i, s := range subs {
			if slices.Contains(s.topics, t) {
				takers = append(takers, i)
			}
		}
		slices.SortFunc(takers, func(a, b int) int {
			return cmp.Or(strings.Compare(subs[a].key, subs[b].key), strings.Compare(subs[a].id, subs[b].id))
		})
		switch c.protocol {
		case AssignorRange:
			rangeAssign(takers, n, func(i int, p int32) { give(i, t, p) })
			continue
		case AssignorFailover:
			for p := range n {
				give(takers[0], t, p)
			}
			continue
		}
		uniformAssign(takers, n, offset, func(i int, p int32) { give(i, t, p) })
		offset += int(n)
	}
	out := make([]codec.SyncGroupRequestAssignment, 0, len(subs))
	for i, s := range subs {
		if got[i] == nil && c.cfg.OmitEmpty {
			continue
		}
		a := codec.ConsumerProtocolAssignment{AssignedPartitions: []codec.ConsumerProtocolTopicPartitions{}}
		for _, t := range slices.Sorted(maps.Keys(got[i])) {
			a.AssignedPartitions = append(a.AssignedPartitions, codec.ConsumerProtocolTopicPartitions{Topic: t, Partitions: got[i][t]})
		}
		// The assignment's version is one the codec writes: it cannot fail.
		b, _ := a.AppendTo(nil, consumerProtocolVersion)
		out = append(out, codec.SyncGroupRequestAssignment{MemberId: s.id, Assignment: b})
	}
	return out
}

// uniformAssign is A5.2's uniform assignor for one topic of n partitions:
// topics are taken in name order with a running offset from 0 (the
// partitions of the topics before); partition p goes to the subscriber at
// (offset + p) mod k of the topic's k subscribers (takers, sorted by
// assignment key: instance id of a static member, member id of a dynamic
// one; member id on a tie).
func uniformAssign(takers []int, n int32, offset int, give func(int, int32)) {
	for p := range n {
		give(takers[(offset+int(p))%len(takers)], p)
	}
}

// rangeAssign is Kafka's range assignor for one topic of n partitions:
// each of its k subscribers (takers, sorted as for uniformAssign) gets a
// contiguous range of n/k partitions, the first n mod k of them one more,
// so that with more subscribers than partitions the last ones get none of
// the topic.
func rangeAssign(takers []int, n int32, give func(int, int32)) {
	k := int32(len(takers))
	p := int32(0)
	for i, t := range takers {
		size := n / k
		if int32(i) < n%k {
			size++
		}
		for range size {
			give(t, p)
			p++
		}
	}
}

// normalize is an assignment's partitions with each topic once, in name
// order, its partitions sorted and distinct.
func normalize(tps []codec.ConsumerProtocolTopicPartitions) []codec.ConsumerProtocolTopicPartitions {
	by := map[string][]int32{}
	for _, t := range tps {
		by[t.Topic] = append(by[t.Topic], t.Partitions...)
	}
	var out []codec.ConsumerProtocolTopicPartitions
	for _, t := range slices.Sorted(maps.Keys(by)) {
		ps := slices.Clone(by[t])
		slices.Sort(ps)
		out = append(out, codec.ConsumerProtocolTopicPartitions{Topic: t, Partitions: slices.Compact(ps)})
	}
	return out
}
