package rules

import (
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

func assignmentBytes(t *testing.T, a codec.ConsumerProtocolAssignment) []byte {
	t.Helper()
	b, err := a.AppendTo(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// DescribeGroups shows existing classic groups (not the "Dead" of a missing
// one, nor a v6 error), in id order, members in id order with their
// assignments decoded; what it cannot show stays zero.
func TestSnapshotFromDescribeGroups(t *testing.T) {
	a := assignmentBytes(t, codec.ConsumerProtocolAssignment{AssignedPartitions: []codec.ConsumerProtocolTopicPartitions{
		{Topic: "b", Partitions: []int32{2, 0}}, {Topic: "a", Partitions: []int32{1, 1}}}})
	resp := &codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{
		{GroupId: "z", GroupState: "Stable", ProtocolType: "consumer", ProtocolData: "uniform", Members: []codec.DescribeGroupsMember{
			{MemberId: "m2", GroupInstanceId: codec.Str("i"), MemberAssignment: a},
			{MemberId: "m1", MemberAssignment: []byte{0xff}}}},
		{GroupId: "gone", GroupState: "Dead"},
		{GroupId: "missing", ErrorCode: codec.GroupIDNotFound, GroupState: "Dead"},
		{GroupId: "e", GroupState: "Empty", ProtocolType: "consumer"},
	}}
	got := SnapshotFromDescribeGroups(resp)
	want := []GroupSnapshot{
		{GroupID: "e", Kind: KindClassic, Classic: &ClassicGroup{State: ClassicEmpty, ProtocolType: "consumer"}},
		{GroupID: "z", Kind: KindClassic, Classic: &ClassicGroup{State: ClassicStable, ProtocolType: "consumer", Protocol: "uniform"}, Members: []MemberSnapshot{
			{MemberID: "m1", Assigned: []TopicPartition{}, SubscribedTopicNames: []string{}, Classic: &ClassicMember{Assignment: []byte{0xff}}},
			{MemberID: "m2", InstanceID: "i", SubscribedTopicNames: []string{}, Classic: &ClassicMember{Assignment: a},
				Assigned: []TopicPartition{{"a", 1}, {"b", 0}, {"b", 2}}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	// The invariants take classic snapshots as they are.
	if err := NoDoubleClientAssignment(got); err != nil {
		t.Fatal(err)
	}
	got[1].Members[0].Assigned = []TopicPartition{{"a", 1}}
	if err := NoDoubleClientAssignment(got); err == nil {
		t.Fatal("a partition assigned twice in a classic group passed")
	}
	var e EpochTracker
	if err := e.Observe(got); err != nil {
		t.Fatal(err)
	}
	if err := e.StaticRestarts(got); err != nil {
		t.Fatal(err)
	}
}
