package model

import (
	"cmp"
	"maps"
	"slices"
	"strings"

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
	// Target is the member's target assignment; nil when the observer
	// cannot see a current one (a Describe whose assignment epoch lags
	// the group epoch, state "Assigning").
	Target []TopicPartition
	// SubscribedTopicNames (sorted, never nil) and SubscribedTopicRegex
	// are the member's subscription: a change of either moves the group
	// epoch on (A5.1), which StaticRestartTracker must tell from a
	// rebalance.
	SubscribedTopicNames []string
	SubscribedTopicRegex codec.NullableString
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
		if len(g.members) > 0 {
			gs.Members = make([]MemberSnapshot, 0, len(g.members))
		}
		for _, m := range g.members {
			gs.Members = append(gs.Members, MemberSnapshot{
				MemberID:             m.id,
				InstanceID:           m.instanceID.Value,
				Epoch:                m.epoch,
				Assigned:             toTopicPartitions(m.assigned),
				Pending:              toTopicPartitions(m.pending),
				Target:               toTopicPartitions(g.target[m.id]),
				SubscribedTopicNames: append([]string{}, m.subscribedNames...),
				SubscribedTopicRegex: m.subscribedRegex,
			})
		}
		out = append(out, gs)
	}
	return out
}

func toTopicPartitions(s partSet) []TopicPartition {
	out := make([]TopicPartition, 0, len(s))
	for _, p := range s {
		out = append(out, TopicPartition{p.topic, p.partition})
	}
	return out
}

// SnapshotFromDescribe is what ConsumerGroupDescribe lets an outside
// observer see: groups that exist (errors skipped), members, epochs,
// assignments, targets and subscriptions; pending revocations are not
// visible (Pending is nil), and neither is a current target while the
// group's assignment epoch lags its group epoch (Target is nil then).
func SnapshotFromDescribe(resp *codec.ConsumerGroupDescribeResponse) []GroupSnapshot {
	var out []GroupSnapshot
	for _, g := range resp.Groups {
		if g.ErrorCode != codec.None {
			continue
		}
		gs := GroupSnapshot{GroupID: g.GroupId, Epoch: g.GroupEpoch}
		for _, m := range g.Members {
			ms := MemberSnapshot{MemberID: m.MemberId, InstanceID: m.InstanceId.Value, Epoch: m.MemberEpoch,
				Assigned:             describedTopicPartitions(m.Assignment),
				SubscribedTopicNames: slices.Sorted(slices.Values(m.SubscribedTopicNames)),
				SubscribedTopicRegex: m.SubscribedTopicRegex}
			if ms.SubscribedTopicNames == nil {
				ms.SubscribedTopicNames = []string{}
			}
			if g.AssignmentEpoch == g.GroupEpoch {
				ms.Target = describedTopicPartitions(m.TargetAssignment)
			}
			gs.Members = append(gs.Members, ms)
		}
		slices.SortFunc(gs.Members, func(a, b MemberSnapshot) int { return strings.Compare(a.MemberID, b.MemberID) })
		out = append(out, gs)
	}
	slices.SortFunc(out, func(a, b GroupSnapshot) int { return strings.Compare(a.GroupID, b.GroupID) })
	return out
}

// describedTopicPartitions lists a Describe assignment's partitions in
// topic-name, then partition order (a broker may send them in any order).
func describedTopicPartitions(a codec.DescribedAssignment) []TopicPartition {
	n := 0
	for _, t := range a.TopicPartitions {
		n += len(t.Partitions)
	}
	out := make([]TopicPartition, 0, n)
	for _, t := range a.TopicPartitions {
		for _, p := range t.Partitions {
			out = append(out, TopicPartition{t.TopicName, p})
		}
	}
	slices.SortFunc(out, func(a, b TopicPartition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return cmp.Compare(a.Partition, b.Partition)
	})
	return out
}
