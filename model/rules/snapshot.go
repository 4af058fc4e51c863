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
	// ClassicProtocol is true for a member of a consumer group that uses
	// the classic protocol (a mixed group, docs/PROTOCOL.md A7): it has a
	// member epoch like any member of its group, and learns its
	// assignment through JoinGroup and SyncGroup.
	ClassicProtocol bool

	// Classic is a classic group member's own state (nil in a consumer
	// group). A classic member's Epoch is 0 (the group's generation is
	// its epoch), its Pending and Target nil (the classic protocol
	// revokes nothing and has no target), its SubscribedTopicNames empty,
	// and Assigned its assignment decoded (ClassicMember.Assignment).
	Classic *ClassicMember
}

// ClassicMember is what a snapshot shows of a classic group's member
// beyond what every member has (kept apart, behind a pointer, so that the
// snapshots of consumer groups, taken after every round of a run, stay
// small).
type ClassicMember struct {
	// Waiting is the request of the member the coordinator holds:
	// WaitingJoin, WaitingSync or "" (none; always "" in a snapshot built
	// from DescribeGroups, which does not show it).
	Waiting string
	// SessionTimeoutMs is the session timeout of the member's last
	// JoinGroup; 0 when the observer cannot see it (DescribeGroups).
	SessionTimeoutMs int32
	// New is true while the member joined in the current join phase and
	// that phase has not completed (its session is the new-member
	// timeout, docs/PROTOCOL.md B8.10).
	New bool
	// Assignment is the member's assignment bytes as the leader gave them
	// (nil when empty); MemberSnapshot.Assigned has them decoded as a
	// ConsumerProtocolAssignment, in topic, then partition order: empty
	// when the bytes are empty or are not one.
	Assignment []byte
}

// Classic members' waiting requests (ClassicMember.Waiting).
const (
	WaitingJoin = "join"
	WaitingSync = "sync"
)

// Owned is Assigned plus Pending.
func (m MemberSnapshot) Owned() []TopicPartition {
	return append(append([]TopicPartition(nil), m.Assigned...), m.Pending...)
}

// GroupSnapshot is one group as an observer sees it, members by id.
type GroupSnapshot struct {
	GroupID string
	// Epoch is a consumer group's group epoch, and a classic group's
	// generation (also in Classic.Generation), so that MonotonicEpochs
	// holds both.
	Epoch int32
	// Kind tells a classic group (Classic then set) from a consumer group
	// (the zero value).
	Kind    GroupKind
	Members []MemberSnapshot
	// Classic is a classic group's own state; nil for a consumer group.
	Classic *ClassicGroup
}

// ClassicGroup is what a snapshot shows of a classic group beyond what
// every group has (apart, as ClassicMember is).
type ClassicGroup struct {
	// State is the group's state: ClassicEmpty, ClassicPreparingRebalance,
	// ClassicCompletingRebalance or ClassicStable.
	State      string
	Generation int32
	// ProtocolType is the group's ("" when none); Protocol is the protocol
	// the last join phase selected ("" when none, and while Empty).
	ProtocolType string
	Protocol     string
	// Leader is the leader's member id ("" when none).
	Leader string
	// Pending are the KIP-394 pending member ids (docs/PROTOCOL.md A6.1)
	// with the time each expires, in id order; nil when there are none
	// or the observer cannot see them (DescribeGroups does not list them).
	Pending []PendingSnapshot
}

// PendingSnapshot is one pending member id of a classic group and the time
// (coordinator time, ms) at which it is dropped unless it joins.
type PendingSnapshot struct {
	ID       string
	Deadline int64
}

// GroupKind is the protocol a group belongs to (docs/PROTOCOL.md A6.4).
type GroupKind uint8

// The group kinds.
const (
	KindConsumer GroupKind = iota // KIP-848's ConsumerGroupHeartbeat
	KindClassic                   // JoinGroup, SyncGroup, Heartbeat
)

func (k GroupKind) String() string {
	if k == KindClassic {
		return "classic"
	}
	return "consumer"
}

// The states of a classic group, as DescribeGroups names them
// (docs/PROTOCOL.md B8.5).
const (
	ClassicEmpty               = "Empty"
	ClassicPreparingRebalance  = "PreparingRebalance"
	ClassicCompletingRebalance = "CompletingRebalance"
	ClassicStable              = "Stable"
)

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

// SnapshotFromDescribeGroups is what DescribeGroups lets an outside
// observer see of classic groups: those that exist (an error, or the
// "Dead" state of a missing group below v6, is skipped), in id order, with
// their state, protocol type and (in Stable) protocol, and their members in
// id order with instance ids and assignments (decoded into Assigned).
// DescribeGroups shows no generation, leader, pending ids, waiting
// requests or timeouts: Epoch and Generation are 0, Leader "", Pending
// nil, and each member's Waiting "" and SessionTimeoutMs 0.
func SnapshotFromDescribeGroups(resp *codec.DescribeGroupsResponse) []GroupSnapshot {
	var out []GroupSnapshot
	for i := range resp.Groups {
		g := &resp.Groups[i]
		if g.ErrorCode != codec.None || g.GroupState == "Dead" {
			continue
		}
		gs := GroupSnapshot{GroupID: g.GroupId, Kind: KindClassic,
			Classic: &ClassicGroup{State: g.GroupState, ProtocolType: g.ProtocolType, Protocol: g.ProtocolData}}
		if len(g.Members) > 0 {
			gs.Members = make([]MemberSnapshot, 0, len(g.Members))
		}
		for j := range g.Members {
			m := &g.Members[j]
			gs.Members = append(gs.Members, ClassicMemberSnapshot(m.MemberId, m.GroupInstanceId.Value, m.MemberAssignment))
		}
		slices.SortFunc(gs.Members, func(a, b MemberSnapshot) int { return strings.Compare(a.MemberID, b.MemberID) })
		out = append(out, gs)
	}
	slices.SortFunc(out, func(a, b GroupSnapshot) int { return strings.Compare(a.GroupID, b.GroupID) })
	return out
}

// ClassicMemberSnapshot is a classic group member's snapshot with what
// every observer sees of it: its ids and its assignment, kept as bytes
// (nil when empty) and decoded into Assigned (DecodeAssignment). The
// coordinators add what only they see (Classic's Waiting,
// SessionTimeoutMs, New).
func ClassicMemberSnapshot(memberID, instanceID string, assignment []byte) MemberSnapshot {
	var ms MemberSnapshot
	ClassicMemberSnapshotInto(&ms, memberID, instanceID, assignment)
	return ms
}

// ClassicMemberSnapshotInto is ClassicMemberSnapshot written into ms's
// memory: its lists and its Classic record are reused where they fit (a
// coordinator's snapshot taken again into the same memory,
// model.Coordinator.SnapshotInto); everything ms held is overwritten.
func ClassicMemberSnapshotInto(ms *MemberSnapshot, memberID, instanceID string, assignment []byte) {
	assigned, names, cm := ms.Assigned, ms.SubscribedTopicNames, ms.Classic
	if cm == nil {
		cm = new(ClassicMember)
	}
	var b []byte // nil when empty
	if len(assignment) > 0 {
		b = append(cm.Assignment[:0], assignment...)
	}
	*cm = ClassicMember{Assignment: b}
	if assigned == nil {
		assigned = []TopicPartition{}
	}
	if names == nil {
		names = []string{}
	}
	*ms = MemberSnapshot{MemberID: memberID, InstanceID: instanceID, Assigned: appendAssignment(assigned[:0], b),
		SubscribedTopicNames: names[:0], Classic: cm}
}

// DecodeAssignment reads a classic member's assignment bytes as a
// ConsumerProtocolAssignment and lists its partitions in topic, then
// partition order, each once. Bytes that are empty or not a
// ConsumerProtocolAssignment (a group whose protocol type is not
// "consumer" may hold anything) assign nothing: the list is empty, never
// nil.
func DecodeAssignment(b []byte) []TopicPartition {
	return appendAssignment([]TopicPartition{}, b)
}

// appendAssignment is DecodeAssignment appended to out, an empty list.
func appendAssignment(out []TopicPartition, b []byte) []TopicPartition {
	if len(b) == 0 {
		return out
	}
	var a codec.ConsumerProtocolAssignment
	if _, err := a.Decode(b, codec.DecodeOptions{}); err != nil {
		return out
	}
	for _, t := range a.AssignedPartitions {
		for _, p := range t.Partitions {
			out = append(out, TopicPartition{Topic: t.Topic, Partition: p})
		}
	}
	slices.SortFunc(out, func(a, b TopicPartition) int {
		return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return slices.Compact(out)
}
