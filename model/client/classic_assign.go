package client

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The classic leader's assignment: docs/PROTOCOL.md A5.2's uniform
// assignor, run by the client over its JoinGroup answer's Members, as
// the coordinator runs it for a consumer group.

// subscriber is one member of the leader's JoinGroup answer, as the
// assignor sees it.
type subscriber struct {
	id, key string
	topics  []string
}

// assign is the leader's SyncGroup assignments: one entry per member of
// members, in their order, each a ConsumerProtocolAssignment. Topics are
// taken in name order with a running offset from 0; each topic's k
// subscribers are sorted by assignment key (instance id of a static
// member, member id of a dynamic one; member id on a tie); partition p
// goes to subscriber (offset + p) mod k; the offset then grows by the
// topic's partitions. A member whose metadata is not a subscription
// subscribes to nothing; a topic missing from Config.Partitions, or
// nobody's, is skipped, offset included.
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
		for p := 0; p < int(n); p++ {
			i := takers[(offset+p)%len(takers)]
			if got[i] == nil {
				got[i] = map[string][]int32{}
			}
			got[i][t] = append(got[i][t], int32(p))
		}
		offset += int(n)
	}
	out := make([]codec.SyncGroupRequestAssignment, 0, len(subs))
	for i, s := range subs {
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
