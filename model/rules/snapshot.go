package rules

import (
	"cmp"
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

// SnapshotFromDescribe is what ConsumerGroupDescribe lets an outside
// observer see: groups that exist (errors skipped), members, epochs,
// assignments, targets and subscriptions; pending revocations are not
// visible (Pending is nil), and neither is a current target while the
// group's assignment epoch lags its group epoch (Target is nil then).
func SnapshotFromDescribe(resp *codec.ConsumerGroupDescribeResponse) []GroupSnapshot {
	// The groups' members, the members' partition lists and their
	// subscriptions share three arrays, each made at its size (a run
	// reads every Describe it makes): counted first.
	ngroups, nmembers, nparts, nnames := 0, 0, 0, 0
	for i := range resp.Groups { // by pointer: a described group and member are large
		g := &resp.Groups[i]
		if g.ErrorCode != codec.None {
			continue
		}
		ngroups++
		nmembers += len(g.Members)
		for j := range g.Members {
			m := &g.Members[j]
			nparts += partitionsIn(m.Assignment)
			if g.AssignmentEpoch == g.GroupEpoch {
				nparts += partitionsIn(m.TargetAssignment)
			}
			nnames += len(m.SubscribedTopicNames)
		}
	}
	if ngroups == 0 {
		return nil
	}
	out := make([]GroupSnapshot, 0, ngroups)
	members := make([]MemberSnapshot, 0, nmembers)
	parts := make([]TopicPartition, 0, nparts)
	names := make([]string, 0, nnames)
	for i := range resp.Groups {
		g := &resp.Groups[i]
		if g.ErrorCode != codec.None {
			continue
		}
		gs := GroupSnapshot{GroupID: g.GroupId, Epoch: g.GroupEpoch}
		first := len(members)
		for j := range g.Members {
			m := &g.Members[j]
			ms := MemberSnapshot{MemberID: m.MemberId, InstanceID: m.InstanceId.Value, Epoch: m.MemberEpoch,
				SubscribedTopicRegex: m.SubscribedTopicRegex}
			ms.Assigned, parts = describedTopicPartitions(m.Assignment, parts)
			from := len(names)
			names = append(names, m.SubscribedTopicNames...)
			ms.SubscribedTopicNames = names[from:len(names):len(names)] // never nil
			slices.Sort(ms.SubscribedTopicNames)
			if g.AssignmentEpoch == g.GroupEpoch {
				ms.Target, parts = describedTopicPartitions(m.TargetAssignment, parts)
			}
			members = append(members, ms)
		}
		if len(members) > first { // nil for a group without members
			gs.Members = members[first:len(members):len(members)]
		}
		slices.SortFunc(gs.Members, func(a, b MemberSnapshot) int { return strings.Compare(a.MemberID, b.MemberID) })
		out = append(out, gs)
	}
	slices.SortFunc(out, func(a, b GroupSnapshot) int { return strings.Compare(a.GroupID, b.GroupID) })
	return out
}

// partitionsIn counts a Describe assignment's partitions.
func partitionsIn(a codec.DescribedAssignment) int {
	n := 0
	for _, t := range a.TopicPartitions {
		n += len(t.Partitions)
	}
	return n
}

// describedTopicPartitions lists a Describe assignment's partitions in
// topic-name, then partition order (a broker may send them in any order),
// appended to buf: it returns the list, capped at its end, and buf.
func describedTopicPartitions(a codec.DescribedAssignment, buf []TopicPartition) (list, rest []TopicPartition) {
	from := len(buf)
	for _, t := range a.TopicPartitions {
		for _, p := range t.Partitions {
			buf = append(buf, TopicPartition{t.TopicName, p})
		}
	}
	list = buf[from:len(buf):len(buf)]
	if !inOrder(list) { // they mostly are: looked at without a sort's calls
		slices.SortFunc(list, func(a, b TopicPartition) int {
			return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
		})
	}
	return list, buf
}

// inOrder reports whether ps are in topic-name, then partition order.
func inOrder(ps []TopicPartition) bool {
	for i := 1; i < len(ps); i++ {
		a, b := ps[i-1], ps[i]
		if a.Topic == b.Topic && a.Partition > b.Partition || a.Topic != b.Topic && a.Topic > b.Topic {
			return false
		}
	}
	return true
}
