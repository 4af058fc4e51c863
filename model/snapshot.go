package model

import (
	"maps"
	"slices"
	"sort"

	"github.com/ghostcheck/ghostcheck/codec"
)

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// MemberSnapshot is one member as an observer sees it.
type MemberSnapshot struct {
	MemberID   string
	InstanceID string // "" for a dynamic member
	Epoch      int32
	// Assigned are the partitions the member owns and has acknowledged.
	Assigned []TopicPartition
	// Pending are owned partitions waiting to be revoked; nil when the
	// observer cannot see them (ConsumerGroupDescribe does not show them).
	Pending []TopicPartition
}

// Owned is Assigned plus Pending.
func (m MemberSnapshot) Owned() []TopicPartition {
	return append(append([]TopicPartition(nil), m.Assigned...), m.Pending...)
}

// GroupSnapshot is one group as an observer sees it, members by id.
type GroupSnapshot struct {
	GroupID string
	Epoch   int32
	Members []MemberSnapshot
}

// Snapshot returns every group the coordinator holds, in group id order,
// including what Describe cannot show (pending revocations).
func (c *Coordinator) Snapshot() []GroupSnapshot {
	ids := slices.Sorted(maps.Keys(c.groups))
	out := make([]GroupSnapshot, 0, len(ids))
	for _, id := range ids {
		g := c.groups[id]
		gs := GroupSnapshot{GroupID: id, Epoch: g.epoch}
		for _, mid := range slices.Sorted(maps.Keys(g.members)) {
			m := g.members[mid]
			gs.Members = append(gs.Members, MemberSnapshot{
				MemberID:   m.id,
				InstanceID: m.instanceID.Value,
				Epoch:      m.epoch,
				Assigned:   toTopicPartitions(m.assigned),
				Pending:    toTopicPartitions(m.pending),
			})
		}
		out = append(out, gs)
	}
	return out
}

func toTopicPartitions(s partSet) []TopicPartition {
	out := []TopicPartition{}
	for _, p := range s.sorted() {
		out = append(out, TopicPartition{p.topic, p.partition})
	}
	return out
}

// SnapshotFromDescribe is what ConsumerGroupDescribe lets an outside
// observer see: groups that exist (errors skipped), members, epochs and
// assignments; pending revocations are not visible (Pending is nil).
func SnapshotFromDescribe(resp *codec.ConsumerGroupDescribeResponse) []GroupSnapshot {
	var out []GroupSnapshot
	for _, g := range resp.Groups {
		if g.ErrorCode != codec.None {
			continue
		}
		gs := GroupSnapshot{GroupID: g.GroupId, Epoch: g.GroupEpoch}
		for _, m := range g.Members {
			ms := MemberSnapshot{MemberID: m.MemberId, InstanceID: m.InstanceId.Value, Epoch: m.MemberEpoch, Assigned: []TopicPartition{}}
			for _, t := range m.Assignment.TopicPartitions {
				for _, p := range t.Partitions {
					ms.Assigned = append(ms.Assigned, TopicPartition{t.TopicName, p})
				}
			}
			gs.Members = append(gs.Members, ms)
		}
		sort.Slice(gs.Members, func(i, j int) bool { return gs.Members[i].MemberID < gs.Members[j].MemberID })
		out = append(out, gs)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GroupID < out[j].GroupID })
	return out
}
