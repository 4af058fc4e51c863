package linearize

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// sameHeartbeatResponse stands for "encode the same" only where they do.
func TestSameHeartbeatResponse(t *testing.T) {
	base := func() *codec.ConsumerGroupHeartbeatResponse {
		return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("m"), MemberEpoch: 3, HeartbeatIntervalMs: 500,
			Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{{TopicId: codec.UUID{1}, Partitions: []int32{0, 1}}}}}
	}
	for _, tc := range []struct {
		name string
		edit func(*codec.ConsumerGroupHeartbeatResponse)
	}{
		{"same", func(*codec.ConsumerGroupHeartbeatResponse) {}},
		{"error", func(r *codec.ConsumerGroupHeartbeatResponse) { r.ErrorCode = codec.FencedMemberEpoch }},
		{"message", func(r *codec.ConsumerGroupHeartbeatResponse) { r.ErrorMessage = codec.Str("x") }},
		{"member id", func(r *codec.ConsumerGroupHeartbeatResponse) { r.MemberId = codec.Null }},
		{"epoch", func(r *codec.ConsumerGroupHeartbeatResponse) { r.MemberEpoch++ }},
		{"interval", func(r *codec.ConsumerGroupHeartbeatResponse) { r.HeartbeatIntervalMs = 0 }},
		{"throttle", func(r *codec.ConsumerGroupHeartbeatResponse) { r.ThrottleTimeMs = 1 }},
		{"no assignment", func(r *codec.ConsumerGroupHeartbeatResponse) { r.Assignment = nil }},
		{"empty assignment", func(r *codec.ConsumerGroupHeartbeatResponse) { r.Assignment.TopicPartitions = nil }},
		{"topic", func(r *codec.ConsumerGroupHeartbeatResponse) { r.Assignment.TopicPartitions[0].TopicId = codec.UUID{2} }},
		{"partitions", func(r *codec.ConsumerGroupHeartbeatResponse) {
			r.Assignment.TopicPartitions[0].Partitions = []int32{1, 0}
		}},
		{"tags", func(r *codec.ConsumerGroupHeartbeatResponse) { r.UnknownTags = codec.TaggedFields{{Tag: 9}} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := base(), base()
			tc.edit(b)
			checkSame(t, sameHeartbeatResponse, a, b, tc.name == "same")
		})
	}
	if sameHeartbeatResponse(base(), &codec.ConsumerGroupDescribeResponse{}) {
		t.Error("a heartbeat and a describe response are the same")
	}
}

// sameDescribeResponse stands for "encode the same" only where they do.
func TestSameDescribeResponse(t *testing.T) {
	base := func() *codec.ConsumerGroupDescribeResponse {
		a := codec.DescribedAssignment{TopicPartitions: []codec.DescribedTopicPartitions{{TopicId: codec.UUID{1}, TopicName: "t", Partitions: []int32{0, 1}}}}
		return &codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{{GroupId: "g", GroupState: "Stable", GroupEpoch: 3, AssignmentEpoch: 3, AssignorName: "uniform",
			Members: []codec.DescribedMember{{MemberId: "m", InstanceId: codec.Str("i"), MemberEpoch: 3, ClientId: "c", ClientHost: "/h",
				SubscribedTopicNames: []string{"t"}, Assignment: a, TargetAssignment: a, MemberType: codec.MemberTypeConsumer}}}}}
	}
	for _, tc := range []struct {
		name string
		edit func(*codec.ConsumerGroupDescribeResponse)
	}{
		{"same", func(*codec.ConsumerGroupDescribeResponse) {}},
		{"throttle", func(r *codec.ConsumerGroupDescribeResponse) { r.ThrottleTimeMs = 1 }},
		{"no group", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups = nil }},
		{"error", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].ErrorCode = codec.GroupIDNotFound }},
		{"message", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].ErrorMessage = codec.Str("x") }},
		{"state", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].GroupState = "Assigning" }},
		{"group epoch", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].GroupEpoch++ }},
		{"assignment epoch", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].AssignmentEpoch++ }},
		{"assignor", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].AssignorName = "range" }},
		{"operations", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].AuthorizedOperations = 8 }},
		{"no member", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].Members = nil }},
		{"member id", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].Members[0].MemberId = "n" }},
		{"instance", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].Members[0].InstanceId = codec.Null }},
		{"rack", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].Members[0].RackId = codec.Str("r") }},
		{"member epoch", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].Members[0].MemberEpoch = -2 }},
		{"client id", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].Members[0].ClientId = "d" }},
		{"host", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].Members[0].ClientHost = "/k" }},
		{"names", func(r *codec.ConsumerGroupDescribeResponse) { r.Groups[0].Members[0].SubscribedTopicNames = nil }},
		{"regex", func(r *codec.ConsumerGroupDescribeResponse) {
			r.Groups[0].Members[0].SubscribedTopicRegex = codec.Str("t.*")
		}},
		{"partitions", func(r *codec.ConsumerGroupDescribeResponse) {
			r.Groups[0].Members[0].Assignment.TopicPartitions = []codec.DescribedTopicPartitions{{TopicId: codec.UUID{1}, TopicName: "t", Partitions: []int32{1}}}
		}},
		{"topic name", func(r *codec.ConsumerGroupDescribeResponse) {
			r.Groups[0].Members[0].TargetAssignment.TopicPartitions = []codec.DescribedTopicPartitions{{TopicId: codec.UUID{1}, TopicName: "u", Partitions: []int32{0, 1}}}
		}},
		{"member tags", func(r *codec.ConsumerGroupDescribeResponse) {
			r.Groups[0].Members[0].UnknownTags = codec.TaggedFields{{Tag: 9}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := base(), base()
			tc.edit(b)
			checkSame(t, sameDescribeResponse, a, b, tc.name == "same")
		})
	}
}

// checkSame holds same(a, b) to want, and to a and b encoding the same at
// v1 whenever it says they are the same.
func checkSame(t *testing.T, same func(a, b codec.Message) bool, a, b codec.Message, want bool) {
	t.Helper()
	ea, _ := a.AppendTo(nil, 1)
	eb, _ := b.AppendTo(nil, 1)
	sameBytes := string(ea) == string(eb)
	if got := same(a, b); got && !sameBytes || got != want {
		t.Errorf("same = %v, want %v; encodings equal %v", got, want, sameBytes)
	}
}
