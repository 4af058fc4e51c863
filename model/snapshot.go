package model

import (
	"maps"
	"slices"

	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Snapshot returns every group the coordinator holds, in group id order,
// including what Describe cannot show (pending revocations).
func (c *Coordinator) Snapshot() []rules.GroupSnapshot {
	ids := slices.Sorted(maps.Keys(c.groups))
	out := make([]rules.GroupSnapshot, 0, len(ids))
	for _, id := range ids {
		g := c.groups[id]
		gs := rules.GroupSnapshot{GroupID: id, Epoch: g.epoch}
		if len(g.members) > 0 {
			gs.Members = make([]rules.MemberSnapshot, 0, len(g.members))
		}
		for _, m := range g.members {
			gs.Members = append(gs.Members, rules.MemberSnapshot{
				MemberID:             m.id,
				InstanceID:           m.instanceID.Value,
				Epoch:                m.epoch,
				Assigned:             c.toTopicPartitions(m.assigned),
				Pending:              c.toTopicPartitions(m.pending),
				Target:               c.toTopicPartitions(g.target[m.id]),
				SubscribedTopicNames: append([]string{}, m.subscribedNames...),
				SubscribedTopicRegex: m.subscribedRegex,
			})
		}
		out = append(out, gs)
	}
	return out
}

func (c *Coordinator) toTopicPartitions(s partSet) []rules.TopicPartition {
	out := make([]rules.TopicPartition, 0, len(s))
	for _, p := range s {
		out = append(out, rules.TopicPartition{Topic: c.topics[p.topic].Name, Partition: p.partition})
	}
	return out
}
