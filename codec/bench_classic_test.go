package codec_test

import (
	"bytes"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Benchmarks of the classic group protocol's messages beside franz-go's
// kmsg, in the manner of bench_test.go: a static consumer's JoinGroup v9
// (request header v2) with two protocols, its Heartbeat v4, the classic
// protocol's hot request, the leader's SyncGroup v5 with the assignments
// of ten members, and the DescribeGroups v6 answer that shows such a group
// (a body: responses have no request header to compare).

// consumerMetadata is a consumer's protocol metadata of about the size a
// Java consumer subscribed to three topics sends.
var consumerMetadata = bytes.Repeat([]byte{0, 3, 0, 0, 0, 3, 0, 6, 'o', 'r', 'd', 'e', 'r', 's'}, 4)

func benchJoinGroup() (codec.RequestHeader, *codec.JoinGroupRequest) {
	h := codec.RequestHeader{RequestApiKey: codec.JoinGroup, RequestApiVersion: 9, CorrelationId: 7,
		ClientId: codec.Str("ghostcheck-consumer-1"), ClientInstanceId: codec.SomeUUID(uuidOf(0x40))}
	m := &codec.JoinGroupRequest{GroupId: "orders-consumers", SessionTimeoutMs: 45000, RebalanceTimeoutMs: 300000,
		MemberId: benchMemberID, GroupInstanceId: codec.Str("instance-1"), ProtocolType: "consumer",
		Protocols: []codec.JoinGroupRequestProtocol{
			{Name: "cooperative-sticky", Metadata: consumerMetadata},
			{Name: "range", Metadata: consumerMetadata[:40]},
		},
		Reason: codec.Str("rebalance failed due to MemberIdRequiredException")}
	return h, m
}

func kmsgJoinGroup() *kmsg.JoinGroupRequest {
	_, m := benchJoinGroup()
	k := kmsg.NewPtrJoinGroupRequest()
	k.Version = 9
	k.Group, k.SessionTimeoutMillis, k.RebalanceTimeoutMillis = m.GroupId, m.SessionTimeoutMs, m.RebalanceTimeoutMs
	k.MemberID, k.InstanceID, k.ProtocolType, k.Reason = m.MemberId, m.GroupInstanceId.Ptr(), m.ProtocolType, m.Reason.Ptr()
	for _, p := range m.Protocols {
		k.Protocols = append(k.Protocols, kmsg.JoinGroupRequestProtocol{Name: p.Name, Metadata: p.Metadata})
	}
	return k
}

func BenchmarkEncodeJoinGroupV9(b *testing.B) {
	h, m := benchJoinGroup()
	benchEncode(b, h, m, kmsgJoinGroup(), kmsg.NewRequestFormatter(kmsg.FormatterClientID(h.ClientId.Value)))
}

func BenchmarkDecodeJoinGroupV9(b *testing.B) {
	h, m := benchJoinGroup()
	frame := benchDecodeFresh(b, h, m, func(body []byte, v int16) error {
		var req codec.JoinGroupRequest
		return req.Decode(body, v, codec.DecodeOptions{})
	})
	benchDecodeReused(b, frame, changedFrame(b, benchJoinGroup), new(codec.JoinGroupRequest))
	body := kmsgBody(kmsg.NewRequestFormatter(kmsg.FormatterClientID(h.ClientId.Value)).AppendRequest(nil, kmsgJoinGroup(), 1))
	benchKmsgDecode(b, body, 9, func() kmsgRequest { return kmsg.NewPtrJoinGroupRequest() })
}

func benchClassicHeartbeat() (codec.RequestHeader, *codec.HeartbeatRequest) {
	h := codec.RequestHeader{RequestApiKey: codec.Heartbeat, RequestApiVersion: 4, CorrelationId: 12345,
		ClientId: codec.Str("ghostcheck-consumer-1"), ClientInstanceId: codec.SomeUUID(uuidOf(0x40))}
	m := &codec.HeartbeatRequest{GroupId: "orders-consumers", GenerationId: 17, MemberId: benchMemberID,
		GroupInstanceId: codec.Str("instance-1")}
	return h, m
}

func kmsgClassicHeartbeat() *kmsg.HeartbeatRequest {
	_, m := benchClassicHeartbeat()
	k := kmsg.NewPtrHeartbeatRequest()
	k.Version = 4
	k.Group, k.Generation, k.MemberID, k.InstanceID = m.GroupId, m.GenerationId, m.MemberId, m.GroupInstanceId.Ptr()
	return k
}

func BenchmarkEncodeClassicHeartbeatV4(b *testing.B) {
	h, m := benchClassicHeartbeat()
	benchEncode(b, h, m, kmsgClassicHeartbeat(), kmsg.NewRequestFormatter(kmsg.FormatterClientID(h.ClientId.Value)))
}

func BenchmarkDecodeClassicHeartbeatV4(b *testing.B) {
	h, m := benchClassicHeartbeat()
	frame := benchDecodeFresh(b, h, m, func(body []byte, v int16) error {
		var req codec.HeartbeatRequest
		return req.Decode(body, v, codec.DecodeOptions{})
	})
	benchDecodeReused(b, frame, changedFrame(b, benchClassicHeartbeat), new(codec.HeartbeatRequest))
	body := kmsgBody(kmsg.NewRequestFormatter(kmsg.FormatterClientID(h.ClientId.Value)).AppendRequest(nil, kmsgClassicHeartbeat(), 1))
	benchKmsgDecode(b, body, 4, func() kmsgRequest { return kmsg.NewPtrHeartbeatRequest() })
}

func benchSyncGroup() (codec.RequestHeader, *codec.SyncGroupRequest) {
	h := codec.RequestHeader{RequestApiKey: codec.SyncGroup, RequestApiVersion: 5, CorrelationId: 8,
		ClientId: codec.Str("ghostcheck-consumer-1"), ClientInstanceId: codec.SomeUUID(uuidOf(0x40))}
	m := &codec.SyncGroupRequest{GroupId: "orders-consumers", GenerationId: 17, MemberId: benchMemberID,
		GroupInstanceId: codec.Str("instance-1"), ProtocolType: codec.Str("consumer"),
		ProtocolName: codec.Str("cooperative-sticky")}
	for i := 0; i < 10; i++ {
		id := []byte(benchMemberID)
		id[0] = byte('a' + i)
		m.Assignments = append(m.Assignments, codec.SyncGroupRequestAssignment{MemberId: string(id),
			Assignment: consumerMetadata[:30]})
	}
	return h, m
}

func kmsgSyncGroup() *kmsg.SyncGroupRequest {
	_, m := benchSyncGroup()
	k := kmsg.NewPtrSyncGroupRequest()
	k.Version = 5
	k.Group, k.Generation, k.MemberID, k.InstanceID = m.GroupId, m.GenerationId, m.MemberId, m.GroupInstanceId.Ptr()
	k.ProtocolType, k.Protocol = m.ProtocolType.Ptr(), m.ProtocolName.Ptr()
	for _, a := range m.Assignments {
		k.GroupAssignment = append(k.GroupAssignment, kmsg.SyncGroupRequestGroupAssignment{MemberID: a.MemberId,
			MemberAssignment: a.Assignment})
	}
	return k
}

func BenchmarkEncodeSyncGroupV5(b *testing.B) {
	h, m := benchSyncGroup()
	benchEncode(b, h, m, kmsgSyncGroup(), kmsg.NewRequestFormatter(kmsg.FormatterClientID(h.ClientId.Value)))
}

func BenchmarkDecodeSyncGroupV5(b *testing.B) {
	h, m := benchSyncGroup()
	frame := benchDecodeFresh(b, h, m, func(body []byte, v int16) error {
		var req codec.SyncGroupRequest
		return req.Decode(body, v, codec.DecodeOptions{})
	})
	benchDecodeReused(b, frame, changedFrame(b, benchSyncGroup), new(codec.SyncGroupRequest))
	body := kmsgBody(kmsg.NewRequestFormatter(kmsg.FormatterClientID(h.ClientId.Value)).AppendRequest(nil, kmsgSyncGroup(), 1))
	benchKmsgDecode(b, body, 5, func() kmsgRequest { return kmsg.NewPtrSyncGroupRequest() })
}

func benchDescribeGroupsResponse() *codec.DescribeGroupsResponse {
	g := codec.DescribeGroupsGroup{GroupId: "orders-consumers", GroupState: "Stable", ProtocolType: "consumer",
		ProtocolData: "cooperative-sticky", AuthorizedOperations: codec.AuthorizedOperationsUnknown}
	for i := 0; i < 10; i++ {
		id := []byte(benchMemberID)
		id[0] = byte('a' + i)
		g.Members = append(g.Members, codec.DescribeGroupsMember{MemberId: string(id),
			GroupInstanceId: codec.Str("instance-" + string(rune('0'+i))), ClientId: "ghostcheck-consumer-1",
			ClientHost: "/10.0.0." + string(rune('0'+i)), MemberMetadata: consumerMetadata, MemberAssignment: consumerMetadata[:30]})
	}
	return &codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{g}}
}

func kmsgDescribeGroupsResponse() *kmsg.DescribeGroupsResponse {
	m := benchDescribeGroupsResponse()
	k := kmsg.NewPtrDescribeGroupsResponse()
	k.Version = 6
	for _, g := range m.Groups {
		kg := kmsg.DescribeGroupsResponseGroup{Group: g.GroupId, State: g.GroupState, ProtocolType: g.ProtocolType,
			Protocol: g.ProtocolData, AuthorizedOperations: g.AuthorizedOperations}
		for _, mb := range g.Members {
			kg.Members = append(kg.Members, kmsg.DescribeGroupsResponseGroupMember{MemberID: mb.MemberId,
				InstanceID: mb.GroupInstanceId.Ptr(), ClientID: mb.ClientId, ClientHost: mb.ClientHost,
				ProtocolMetadata: mb.MemberMetadata, MemberAssignment: mb.MemberAssignment})
		}
		k.Groups = append(k.Groups, kg)
	}
	return k
}

func BenchmarkEncodeDescribeGroupsV6Response(b *testing.B) {
	m, k := benchDescribeGroupsResponse(), kmsgDescribeGroupsResponse()
	b.Run("ours", func(b *testing.B) {
		buf := make([]byte, 0, 4096)
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = m.AppendTo(buf[:0], 6); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kmsg", func(b *testing.B) {
		buf := make([]byte, 0, 4096)
		b.ReportAllocs()
		for b.Loop() {
			buf = k.AppendTo(buf[:0])
		}
	})
}

// BenchmarkDecodeDescribeGroupsV6Response decodes the body into a fresh
// message (ours, kmsg, kmsg-unsafe) and into a reused one (ours-reused,
// ours-nocopy).
func BenchmarkDecodeDescribeGroupsV6Response(b *testing.B) {
	body, err := benchDescribeGroupsResponse().AppendTo(nil, 6)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m codec.DescribeGroupsResponse
			if err := m.Decode(body, 6, codec.DecodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, mode := range []struct {
		name string
		opts codec.DecodeOptions
	}{{"ours-reused", codec.DecodeOptions{}}, {"ours-nocopy", codec.DecodeOptions{NoCopy: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			var m codec.DescribeGroupsResponse
			b.ReportAllocs()
			for b.Loop() {
				if err := m.Decode(body, 6, mode.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	benchKmsgDecode(b, body, 6, func() kmsgRequest { return kmsg.NewPtrDescribeGroupsResponse() })
}
