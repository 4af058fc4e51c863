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
			ea, _ := a.AppendTo(nil, 1)
			eb, _ := b.AppendTo(nil, 1)
			sameBytes := string(ea) == string(eb)
			if got := sameHeartbeatResponse(a, b); got && !sameBytes || got != (tc.name == "same") {
				t.Errorf("sameHeartbeatResponse = %v; encodings equal %v", got, sameBytes)
			}
		})
	}
	if sameHeartbeatResponse(base(), &codec.ConsumerGroupDescribeResponse{}) {
		t.Error("a heartbeat and a describe response are the same")
	}
}
