package client_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
)

// The client's hot path in a property run: one joined client's heartbeat
// loop.
//
//	go test ./model/client -run '^$' -bench . -benchmem -count 6

func BenchmarkNextHeartbeat(b *testing.B) {
	for _, nullOwned := range []bool{false, true} {
		name := "every"
		if nullOwned {
			name = "null-when-unchanged"
		}
		b.Run(name, func(b *testing.B) {
			cl, err := client.New(client.Config{ClientID: "c", GroupID: "g", Topics: []string{"alpha", "beta"},
				HeartbeatVersion: 1, NullOwnedWhenUnchanged: nullOwned, Rand: seededReader(1)})
			if err != nil {
				b.Fatal(err)
			}
			cl.NextHeartbeat()
			cl.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(cl.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000,
				Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{
					{TopicId: topicID('b'), Partitions: []int32{2, 0}},
					{TopicId: topicID('a'), Partitions: []int32{1, 4, 5}},
				}}})
			ok := &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(cl.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cl.NextHeartbeat()
				cl.OnHeartbeat(ok)
			}
		})
	}
}
