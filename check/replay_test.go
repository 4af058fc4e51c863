package check

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
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

// sameApiVersionsResponse stands for "encode the same" only where they do,
// at every version.
func TestSameApiVersionsResponse(t *testing.T) {
	base := func() *codec.ApiVersionsResponse {
		return &codec.ApiVersionsResponse{FinalizedFeaturesEpoch: -1, ApiKeys: []codec.ApiVersionsKey{
			{ApiKey: codec.ApiVersions, MaxVersion: 4}, {ApiKey: codec.JoinGroup, MaxVersion: 9}}}
	}
	for _, tc := range []struct {
		name string
		edit func(*codec.ApiVersionsResponse)
	}{
		{"same", func(*codec.ApiVersionsResponse) {}},
		{"error", func(r *codec.ApiVersionsResponse) { r.ErrorCode = codec.UnsupportedVersion }},
		{"throttle", func(r *codec.ApiVersionsResponse) { r.ThrottleTimeMs = 1 }},
		{"one api fewer", func(r *codec.ApiVersionsResponse) { r.ApiKeys = r.ApiKeys[:1] }},
		{"max version", func(r *codec.ApiVersionsResponse) { r.ApiKeys[1].MaxVersion = 3 }},
		{"min version", func(r *codec.ApiVersionsResponse) { r.ApiKeys[1].MinVersion = 1 }},
		{"api order", func(r *codec.ApiVersionsResponse) { r.ApiKeys[0], r.ApiKeys[1] = r.ApiKeys[1], r.ApiKeys[0] }},
		{"features epoch", func(r *codec.ApiVersionsResponse) { r.FinalizedFeaturesEpoch = 2 }},
		{"supported feature", func(r *codec.ApiVersionsResponse) {
			r.SupportedFeatures = []codec.SupportedFeature{{Name: "f", MaxVersion: 1}}
		}},
		{"finalized feature", func(r *codec.ApiVersionsResponse) {
			r.FinalizedFeatures = []codec.FinalizedFeature{{Name: "f", MaxVersionLevel: 1}}
		}},
		{"zk migration", func(r *codec.ApiVersionsResponse) { r.ZkMigrationReady = true }},
		{"tags", func(r *codec.ApiVersionsResponse) { r.UnknownTags = codec.TaggedFields{{Tag: 9}} }},
		{"key tags", func(r *codec.ApiVersionsResponse) { r.ApiKeys[0].UnknownTags = codec.TaggedFields{{Tag: 9}} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := base(), base()
			tc.edit(b)
			got := sameApiVersionsResponse(a, b)
			if got != (tc.name == "same") {
				t.Errorf("same = %v", got)
			}
			for v := int16(0); v <= 4 && got; v++ {
				ea, _ := a.AppendTo(nil, v)
				eb, _ := b.AppendTo(nil, v)
				if string(ea) != string(eb) {
					t.Errorf("v%d: the same, but encoded apart", v)
				}
			}
		})
	}
	if sameApiVersionsResponse(base(), &codec.ConsumerGroupDescribeResponse{}) {
		t.Error("an ApiVersions and a describe response are the same")
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

// partitionOps keeps first-appearance order and each partition's own
// order, ends every partition with the restarts, past partScan partitions
// too.
func TestPartitionOps(t *testing.T) {
	for _, groups := range []int{1, partScan, partScan + 1, 3 * partScan} {
		var ops []*history.Op
		want := map[string][]int{}
		var order []string
		for i := 0; i < 10*groups; i++ {
			g := fmt.Sprintf("g%d", (i*7)%groups)
			if i%13 == 12 {
				ops = append(ops, &history.Op{ID: i, Restart: true})
				continue
			}
			ops = append(ops, &history.Op{ID: i, Request: &codec.ConsumerGroupHeartbeatRequest{GroupId: g}})
			if _, ok := want[g]; !ok {
				order = append(order, g)
			}
			want[g] = append(want[g], i)
		}
		var restarts []int
		for _, op := range ops {
			if op.Restart {
				restarts = append(restarts, op.ID)
			}
		}
		keys, parts := partitionOps(ops, func(op *history.Op) *history.Op { return op })
		if len(keys) != len(order) || len(parts) != len(order) {
			t.Fatalf("%d groups: %d keys, %d parts, want %d", groups, len(keys), len(parts), len(order))
		}
		for p, k := range keys {
			if k.String() != "group:"+order[p] {
				t.Fatalf("%d groups: key %d is %s, want group:%s", groups, p, k, order[p])
			}
			var got []int
			for _, op := range parts[p] {
				got = append(got, op.ID)
			}
			if w := append(append([]int{}, want[order[p]]...), restarts...); !slices.Equal(got, w) {
				t.Fatalf("%d groups: partition %s holds %v, want %v", groups, k, got, w)
			}
		}
	}
}
