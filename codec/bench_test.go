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
// into one message, strings copied unless unchanged), ours-onecopy (reused,
// strings sharing one copy of the input per message), ours-nocopy (reused,
// strings aliasing the input); -changed marks the worst case in which every
// string changed since the previous decode (see benchDecodeReused); kmsg
// (kmsg's ReadFrom into a fresh message) and kmsg-unsafe (UnsafeReadFrom,
// aliasing), body only: kmsg has no header decoder, so ours does more work
// in every comparison.

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

// changeStrings changes every non-empty string of a benchmark header and
// message (header ClientId, group, member ids, instance ids, rack, topics,
// assignor, reasons, protocol types and names) to a different string of
// the same length, so that
// decoding it into a message that held the original copies every string.
func changeStrings(h *codec.RequestHeader, m codec.Message) {
	flip := func(s string) string {
		if s == "" {
			return s
		}
		b := []byte(s)
		b[len(b)-1] ^= 1
		return string(b)
	}
	flipN := func(n codec.NullableString) codec.NullableString {
		n.Value = flip(n.Value)
		return n
	}
	h.ClientId = flipN(h.ClientId)
	switch m := m.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		m.GroupId, m.MemberId = flip(m.GroupId), flip(m.MemberId)
		m.InstanceId, m.RackId, m.ServerAssignor = flipN(m.InstanceId), flipN(m.RackId), flipN(m.ServerAssignor)
		names := make([]string, len(m.SubscribedTopicNames))
		for i, n := range m.SubscribedTopicNames {
			names[i] = flip(n)
		}
		m.SubscribedTopicNames = names
	case *codec.LeaveGroupRequest:
		m.GroupId = flip(m.GroupId)
		members := append([]codec.LeaveGroupMember(nil), m.Members...)
		for i := range members {
			mb := &members[i]
			mb.MemberId, mb.GroupInstanceId, mb.Reason = flip(mb.MemberId), flipN(mb.GroupInstanceId), flipN(mb.Reason)
		}
		m.Members = members
	case *codec.JoinGroupRequest:
		m.GroupId, m.MemberId, m.ProtocolType = flip(m.GroupId), flip(m.MemberId), flip(m.ProtocolType)
		m.GroupInstanceId, m.Reason = flipN(m.GroupInstanceId), flipN(m.Reason)
		protocols := append([]codec.JoinGroupRequestProtocol(nil), m.Protocols...)
		for i := range protocols {
			protocols[i].Name = flip(protocols[i].Name)
		}
		m.Protocols = protocols
	case *codec.HeartbeatRequest:
		m.GroupId, m.MemberId, m.GroupInstanceId = flip(m.GroupId), flip(m.MemberId), flipN(m.GroupInstanceId)
	case *codec.SyncGroupRequest:
		m.GroupId, m.MemberId, m.GroupInstanceId = flip(m.GroupId), flip(m.MemberId), flipN(m.GroupInstanceId)
		m.ProtocolType, m.ProtocolName = flipN(m.ProtocolType), flipN(m.ProtocolName)
		assignments := append([]codec.SyncGroupRequestAssignment(nil), m.Assignments...)
		for i := range assignments {
			assignments[i].MemberId = flip(assignments[i].MemberId)
		}
		m.Assignments = assignments
	default:
		panic("changeStrings: unexpected message")
	}
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
	benchEncode(b, h, m, kmsgHeartbeat(), kmsg.NewRequestFormatter(kmsg.FormatterClientID(h.ClientId.Value)))
}

// benchEncode encodes h and m (ours) and k with f (kmsg) into a reused
// buffer again and again. kmsg's header has no KIP-1313 ClientInstanceId
// (tag 0); ours-kmsg-header leaves it out of ours too, so that both write
// the same bytes.
func benchEncode(b *testing.B, h codec.RequestHeader, m codec.Message, k kmsg.Request, f *kmsg.RequestFormatter) {
	bare := h
	bare.ClientInstanceId = codec.NullableUUID{}
	for _, c := range []struct {
		name string
		h    *codec.RequestHeader
	}{{"ours", &h}, {"ours-kmsg-header", &bare}} {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 0, 2048)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = codec.AppendRequest(buf[:0], c.h, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("kmsg", func(b *testing.B) {
		buf := make([]byte, 0, 2048)
		b.ReportAllocs()
		for b.Loop() {
			buf = f.AppendRequest(buf[:0], k, h.CorrelationId)
		}
	})
}

func BenchmarkDecodeHeartbeatV1(b *testing.B) {
	h, m := benchHeartbeat()
	frame := benchDecodeFresh(b, h, m, func(body []byte, v int16) error {
		var req codec.ConsumerGroupHeartbeatRequest
		return req.Decode(body, v, codec.DecodeOptions{})
	})
	benchDecodeReused(b, frame, changedFrame(b, benchHeartbeat), new(codec.ConsumerGroupHeartbeatRequest))
	body := kmsgBody(kmsg.NewRequestFormatter(kmsg.FormatterClientID(h.ClientId.Value)).AppendRequest(nil, kmsgHeartbeat(), 1))
	benchKmsgDecode(b, body, 1, func() kmsgRequest { return kmsg.NewPtrConsumerGroupHeartbeatRequest() })
}

// benchDecodeFresh runs "ours": the frame of h and m (returned, without
// its size) decoded into a fresh header and, by decode, a fresh message
// each time. decode declares the message itself, so that it stays on the
// stack, as a decoded message that does not outlive its use does.
func benchDecodeFresh(b *testing.B, h codec.RequestHeader, m codec.Message, decode func(body []byte, version int16) error) []byte {
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
			if err := decode(frame[off:], gh.RequestApiVersion); err != nil {
				b.Fatal(err)
			}
		}
	})
	return frame
}

// changedFrame is the frame (without its size) of the benchmark message
// build gives, with every string changed (changeStrings).
func changedFrame[M codec.Message](b *testing.B, build func() (codec.RequestHeader, M)) []byte {
	h, m := build()
	changeStrings(&h, m)
	frame, err := codec.AppendRequest(nil, &h, m)
	if err != nil {
		b.Fatal(err)
	}
	return frame[4:]
}

// kmsgRequest is what the benchmarks use of a kmsg request.
type kmsgRequest interface {
	SetVersion(int16)
	ReadFrom([]byte) error
	UnsafeReadFrom([]byte) error
}

// benchKmsgDecode runs kmsg's two decoders on body into fresh requests:
// kmsg (ReadFrom, strings copied) and kmsg-unsafe (UnsafeReadFrom, strings
// aliasing the input, the peer of ours-nocopy).
func benchKmsgDecode(b *testing.B, body []byte, version int16, newRequest func() kmsgRequest) {
	for _, unsafe := range []bool{false, true} {
		name := "kmsg"
		if unsafe {
			name = "kmsg-unsafe"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := newRequest()
				req.SetVersion(version)
				read := req.ReadFrom
				if unsafe {
					read = req.UnsafeReadFrom
				}
				if err := read(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeLeaveGroupV5(b *testing.B) {
	h, m := benchLeave()
	benchEncode(b, h, m, kmsgLeave(), kmsg.NewRequestFormatter())
}

func BenchmarkDecodeLeaveGroupV5(b *testing.B) {
	h, m := benchLeave()
	frame := benchDecodeFresh(b, h, m, func(body []byte, v int16) error {
		var req codec.LeaveGroupRequest
		return req.Decode(body, v, codec.DecodeOptions{})
	})
	benchDecodeReused(b, frame, changedFrame(b, benchLeave), new(codec.LeaveGroupRequest))
	body := kmsgBody(kmsg.NewRequestFormatter().AppendRequest(nil, kmsgLeave(), 1))
	benchKmsgDecode(b, body, 5, func() kmsgRequest { return kmsg.NewPtrLeaveGroupRequest() })
}

// decoder is the concrete, non-escaping decode path of a message type.
type decoder interface {
	Decode(b []byte, version int16, opts codec.DecodeOptions) error
}

// benchDecodeReused decodes frames' headers and bodies into one header and
// one message again and again: ours-reused copies strings, ours-onecopy
// shares one copy per message, ours-nocopy aliases the input. Without a
// suffix the same frame is decoded each time, as on a connection carrying
// one member's heartbeats: every string is unchanged and kept, so nothing
// is copied. The -changed variants alternate frame with changed, whose
// strings all differ, so every string is copied: the worst case.
func benchDecodeReused(b *testing.B, frame, changed []byte, m decoder) {
	for _, mode := range []struct {
		name    string
		opts    codec.DecodeOptions
		changed bool
	}{
		{"ours-reused", codec.DecodeOptions{}, false},
		{"ours-reused-changed", codec.DecodeOptions{}, true},
		{"ours-onecopy", codec.DecodeOptions{OneCopy: true}, false},
		{"ours-onecopy-changed", codec.DecodeOptions{OneCopy: true}, true},
		{"ours-nocopy", codec.DecodeOptions{NoCopy: true}, false},
	} {
		b.Run(mode.name, func(b *testing.B) {
			var gh codec.RequestHeader
			frames := [][]byte{frame, frame}
			if mode.changed {
				frames[1] = changed
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				f := frames[i&1]
				i++
				off, err := codec.ParseRequestHeader(f, &gh, mode.opts)
				if err != nil {
					b.Fatal(err)
				}
				if err := m.Decode(f[off:], gh.RequestApiVersion, mode.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
