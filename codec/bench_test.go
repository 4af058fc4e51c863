package codec_test

import (
	"encoding/binary"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Benchmarks of this codec beside franz-go's kmsg on the two hot requests
// of a coordinator: a ConsumerGroupHeartbeat v1 (request header v2) and a
// batch LeaveGroup v5. Run them together so benchstat compares them:
//
//	go test ./codec -run '^$' -bench . -benchmem -count 6 > /tmp/bench.txt
//
// Sub-benchmark names: ours (fresh message each time), ours-reused (decode
// into one message, strings copied), ours-onecopy (reused, strings sharing
// one copy of the input per message), ours-nocopy (reused, strings aliasing
// the input), kmsg (kmsg's ReadFrom into a fresh message, body only: kmsg
// has no header decoder, so ours does more work in this comparison).

const benchMemberID = "5f0c3a5e-8c1d-4e5b-9a2f-3d7b6c1e0a94" // 36 characters

func benchHeartbeat() (codec.RequestHeader, *codec.ConsumerGroupHeartbeatRequest) {
	h := codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, CorrelationId: 12345,
		ClientId: codec.Str("ghostcheck-consumer-1"), ClientInstanceId: codec.SomeUUID(uuidOf(0x40))}
	m := &codec.ConsumerGroupHeartbeatRequest{
		GroupId: "orders-consumers", MemberId: benchMemberID, MemberEpoch: 17,
		InstanceId: codec.Null, RackId: codec.Str("rack-a"), RebalanceTimeoutMs: 300000,
		SubscribedTopicNames: []string{"orders", "payments", "shipments"},
		ServerAssignor:       codec.Str("uniform"),
		TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{
			{TopicId: uuidOf(0x00), Partitions: []int32{0, 3, 6}},
			{TopicId: uuidOf(0x10), Partitions: []int32{1, 4}},
			{TopicId: uuidOf(0x20), Partitions: []int32{2, 5, 8, 11}},
		},
	}
	return h, m
}

func kmsgHeartbeat() *kmsg.ConsumerGroupHeartbeatRequest {
	_, m := benchHeartbeat()
	k := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	k.Version = 1
	k.Group, k.MemberID, k.MemberEpoch = m.GroupId, m.MemberId, m.MemberEpoch
	k.RackID, k.RebalanceTimeoutMillis = m.RackId.Ptr(), m.RebalanceTimeoutMs
	k.SubscribedTopicNames, k.ServerAssignor = m.SubscribedTopicNames, m.ServerAssignor.Ptr()
	for _, tp := range m.TopicPartitions {
		k.Topics = append(k.Topics, kmsg.ConsumerGroupHeartbeatRequestTopic{TopicID: tp.TopicId, Partitions: tp.Partitions})
	}
	return k
}

func benchLeave() (codec.RequestHeader, *codec.LeaveGroupRequest) {
	h := codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 5, CorrelationId: 99,
		ClientId: codec.Null, ClientInstanceId: codec.SomeUUID(uuidOf(0x40))}
	m := &codec.LeaveGroupRequest{GroupId: "orders-consumers"}
	for i := 0; i < 10; i++ {
		id := []byte(benchMemberID)
		id[0] = byte('a' + i)
		m.Members = append(m.Members, codec.LeaveGroupMember{
			MemberId: string(id), GroupInstanceId: codec.Str("instance-" + string(rune('0'+i))),
			Reason: codec.Str("the consumer is being closed")})
	}
	return h, m
}

func kmsgLeave() *kmsg.LeaveGroupRequest {
	_, m := benchLeave()
	k := kmsg.NewPtrLeaveGroupRequest()
	k.Version = 5
	k.Group = m.GroupId
	for _, mb := range m.Members {
		k.Members = append(k.Members, kmsg.LeaveGroupRequestMember{MemberID: mb.MemberId,
			InstanceID: mb.GroupInstanceId.Ptr(), Reason: mb.Reason.Ptr()})
	}
	return k
}

// kmsgBody skips the request header in front of a kmsg frame (size, key,
// version, correlation id, client id, and the empty tag section of a
// flexible header) to reach the body.
func kmsgBody(frame []byte) []byte {
	b := frame[4+8:]
	n := int(int16(binary.BigEndian.Uint16(b)))
	b = b[2:]
	if n > 0 {
		b = b[n:]
	}
	return b[1:]
}

func BenchmarkEncodeHeartbeatV1(b *testing.B) {
	h, m := benchHeartbeat()
	b.Run("ours", func(b *testing.B) {
		buf := make([]byte, 0, 512)
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = codec.AppendRequest(buf[:0], &h, m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kmsg", func(b *testing.B) {
		k := kmsgHeartbeat()
		f := kmsg.NewRequestFormatter(kmsg.FormatterClientID(h.ClientId.Value))
		buf := make([]byte, 0, 512)
		b.ReportAllocs()
		for b.Loop() {
			buf = f.AppendRequest(buf[:0], k, h.CorrelationId)
		}
	})
}

func BenchmarkDecodeHeartbeatV1(b *testing.B) {
	h, m := benchHeartbeat()
	frame, err := codec.AppendRequest(nil, &h, m)
	if err != nil {
		b.Fatal(err)
	}
	frame = frame[4:]
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var gh codec.RequestHeader
			off, err := codec.ParseRequestHeader(frame, &gh, codec.DecodeOptions{})
			if err != nil {
				b.Fatal(err)
			}
			var req codec.ConsumerGroupHeartbeatRequest
			if err := req.Decode(frame[off:], gh.RequestApiVersion, codec.DecodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	benchDecodeReused(b, frame, new(codec.ConsumerGroupHeartbeatRequest))
	b.Run("kmsg", func(b *testing.B) {
		k := kmsgHeartbeat()
		body := kmsgBody(kmsg.NewRequestFormatter(kmsg.FormatterClientID(h.ClientId.Value)).AppendRequest(nil, k, 1))
		b.ReportAllocs()
		for b.Loop() {
			req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			req.Version = 1
			if err := req.ReadFrom(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkEncodeLeaveGroupV5(b *testing.B) {
	h, m := benchLeave()
	b.Run("ours", func(b *testing.B) {
		buf := make([]byte, 0, 2048)
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = codec.AppendRequest(buf[:0], &h, m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kmsg", func(b *testing.B) {
		k := kmsgLeave()
		f := kmsg.NewRequestFormatter()
		buf := make([]byte, 0, 2048)
		b.ReportAllocs()
		for b.Loop() {
			buf = f.AppendRequest(buf[:0], k, h.CorrelationId)
		}
	})
}

func BenchmarkDecodeLeaveGroupV5(b *testing.B) {
	h, m := benchLeave()
	frame, err := codec.AppendRequest(nil, &h, m)
	if err != nil {
		b.Fatal(err)
	}
	frame = frame[4:]
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var gh codec.RequestHeader
			off, err := codec.ParseRequestHeader(frame, &gh, codec.DecodeOptions{})
			if err != nil {
				b.Fatal(err)
			}
			var req codec.LeaveGroupRequest
			if err := req.Decode(frame[off:], gh.RequestApiVersion, codec.DecodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	benchDecodeReused(b, frame, new(codec.LeaveGroupRequest))
	b.Run("kmsg", func(b *testing.B) {
		body := kmsgBody(kmsg.NewRequestFormatter().AppendRequest(nil, kmsgLeave(), 1))
		b.ReportAllocs()
		for b.Loop() {
			req := kmsg.NewPtrLeaveGroupRequest()
			req.Version = 5
			if err := req.ReadFrom(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// decoder is the concrete, non-escaping decode path of a message type.
type decoder interface {
	Decode(b []byte, version int16, opts codec.DecodeOptions) error
}

// benchDecodeReused decodes the frame's header and body into one header
// and one message again and again, copying strings (ours-reused) and
// aliasing them (ours-nocopy).
func benchDecodeReused(b *testing.B, frame []byte, m decoder) {
	for _, mode := range []struct {
		name string
		opts codec.DecodeOptions
	}{{"ours-reused", codec.DecodeOptions{}}, {"ours-onecopy", codec.DecodeOptions{OneCopy: true}},
		{"ours-nocopy", codec.DecodeOptions{NoCopy: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			var gh codec.RequestHeader
			b.ReportAllocs()
			for b.Loop() {
				off, err := codec.ParseRequestHeader(frame, &gh, mode.opts)
				if err != nil {
					b.Fatal(err)
				}
				if err := m.Decode(frame[off:], gh.RequestApiVersion, mode.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
