package codec_test

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Every strict prefix of a valid message is malformed: all fields are
// required, so the decoder must report the input ended early (ErrTruncated,
// or ErrLengthOverrun when a length prefix promises more than is left) at an
// offset inside the prefix, and must not panic.
func TestTruncationAtEveryByte(t *testing.T) {
	for _, tc := range goldenBodies {
		b := wire(t, tc.wire)
		for i := 0; i < len(b); i++ {
			m := fresh(tc.msg)
			err := codec.DecodeBody(m, b[:i:i], tc.version, codec.DecodeOptions{})
			checkTruncated(t, tc.name, i, err)
		}
	}
	for _, tc := range goldenRequestHeaders {
		b := wire(t, tc.wire)
		for i := 0; i < len(b); i++ {
			var h codec.RequestHeader
			_, err := codec.ParseRequestHeader(b[:i:i], &h, codec.DecodeOptions{})
			checkTruncated(t, "RequestHeader "+tc.name, i, err)
		}
	}
}

func checkTruncated(t *testing.T, name string, i int, err error) {
	t.Helper()
	var ce *codec.Error
	if !errors.As(err, &ce) {
		t.Fatalf("%s: prefix of %d bytes: want *codec.Error, got %v", name, i, err)
	}
	if !errors.Is(err, codec.ErrTruncated) && !errors.Is(err, codec.ErrLengthOverrun) {
		t.Fatalf("%s: prefix of %d bytes: want truncated or length overrun, got %v", name, i, err)
	}
	if ce.Offset < 0 || ce.Offset > i {
		t.Fatalf("%s: prefix of %d bytes: offset %d outside the input", name, i, ce.Offset)
	}
}

// decodeErrorCases are malformed bodies with the exact error each must give.
var decodeErrorCases = []struct {
	name    string
	msg     codec.Message
	version int16
	wire    string
	kind    error
	field   string
	offset  int
}{
	{"truncated int16", &codec.LeaveGroupResponse{}, 0, `00`,
		codec.ErrTruncated, "ErrorCode", 0},
	{"truncated inside a string", &codec.LeaveGroupRequest{}, 0, `00 01 67  00 02 6d`,
		codec.ErrLengthOverrun, "MemberId", 3},
	{"truncated uuid", &codec.PushTelemetryRequest{}, 0, `00 01 02`,
		codec.ErrTruncated, "ClientInstanceId", 0},
	{"negative length, classic non-nullable string", &codec.LeaveGroupRequest{}, 0, `ff ff 00 00`,
		codec.ErrNegativeLength, "GroupId", 0},
	{"null (0) length, compact non-nullable string", &codec.ConsumerGroupHeartbeatRequest{}, 1, `02 67 00`,
		codec.ErrNegativeLength, "MemberId", 2},
	{"negative count, classic non-nullable array", &codec.LeaveGroupRequest{}, 3, `00 01 67  ff ff ff ff`,
		codec.ErrNegativeLength, "Members", 3},
	{"null count, compact non-nullable array", &codec.ConsumerGroupDescribeRequest{}, 0, `00 00 00`,
		codec.ErrNegativeLength, "GroupIds", 0},
	{"null Partitions inside TopicPartitions", &codec.ConsumerGroupHeartbeatRequest{}, 0, `
		02 67 02 6d 00 00 00 01 00 00 ff ff ff ff 00 00
		02 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f
		00  # Partitions null: not allowed
		00 00`,
		codec.ErrNegativeLength, "TopicPartitions.Partitions", 33},
	{"null compact bytes", &codec.PushTelemetryRequest{}, 1, `00 00 00 01 00 00  00  00`,
		codec.ErrNegativeLength, "Metrics", 6},
	{"array count larger than the input", &codec.ConsumerGroupDescribeRequest{}, 0, `09 02 67 00 00`,
		codec.ErrLengthOverrun, "GroupIds", 0},
	{"array count times element size larger than the input", &codec.ConsumerGroupHeartbeatRequest{}, 1, `
		02 67 02 6d 00 00 00 01 00 00 ff ff ff ff 00 00 00
		03  # TopicPartitions: 2 entries need at least 36 bytes
		00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 01 00 00`,
		codec.ErrLengthOverrun, "TopicPartitions", 17},
	{"classic array count 2^31-1", &codec.ApiVersionsResponse{}, 0, `00 00 7f ff ff ff 00`,
		codec.ErrLengthOverrun, "ApiKeys", 2},
	{"compact string longer than 32767", &codec.ConsumerGroupDescribeRequest{}, 0, `02 81 80 02`,
		codec.ErrStringTooLong, "GroupIds", 1},
	{"over-long varint: fifth byte has the high bit", &codec.ConsumerGroupDescribeRequest{}, 0, `80 80 80 80 80 01 00 00`,
		codec.ErrVarintTooLong, "GroupIds", 0},
	{"varint truncated mid-way", &codec.ConsumerGroupDescribeRequest{}, 0, `80 80`,
		codec.ErrTruncated, "GroupIds", 0},
	{"tag size overruns the input", &codec.GetTelemetrySubscriptionsRequest{}, 1, `01 05 05 aa`,
		codec.ErrLengthOverrun, "TaggedFields", 2},
	{"tag count larger than the input", &codec.GetTelemetrySubscriptionsRequest{}, 1, `05 01 00`,
		codec.ErrLengthOverrun, "TaggedFields", 0},
	{"tag count negative as int32", &codec.GetTelemetrySubscriptionsRequest{}, 1, `ff ff ff ff 0f`,
		codec.ErrNegativeLength, "TaggedFields", 0},
	{"tag size negative as int32", &codec.GetTelemetrySubscriptionsRequest{}, 1, `01 05 ff ff ff ff 0f`,
		codec.ErrNegativeLength, "TaggedFields", 2},
	{"known tag 1 (int64) declared 4 bytes", &codec.ApiVersionsResponse{}, 3, `
		00 00 01 00 00 00 00
		01 01 04 00 00 00 07  # tag 1, size 4: too small for an int64
		00 00 00 00`,
		codec.ErrTagSize, "FinalizedFeaturesEpoch", 10},
	{"known tag 3 (bool) declared 2 bytes", &codec.ApiVersionsResponse{}, 3, `
		00 00 01 00 00 00 00
		01 03 02 01 00  # tag 3, size 2: a bool is 1 byte`,
		codec.ErrTagSize, "ZkMigrationReady", 10},
	{"known tag 0 array overruns its declared size", &codec.ApiVersionsResponse{}, 4, `
		00 00 01 00 00 00 00
		01 00 03        # tag 0, size 3
		02 02 67        # one feature named "g": MinVersion, MaxVersion and tags lie past the size
		00 01 00 02 00`,
		codec.ErrTagSize, "SupportedFeatures", 10},
	{"Metadata v0: null topics (nullable from v1)", &codec.MetadataRequest{}, 0, `ff ff ff ff`,
		codec.ErrNegativeLength, "Topics", 0},
	{"Metadata v9: null topic name (nullable from v10)", &codec.MetadataRequest{}, 9, `02 00 00 01 00 00 00`,
		codec.ErrNegativeLength, "Topics.Name", 1},
	{"Metadata v10: topic count needs 18 bytes each", &codec.MetadataRequest{}, 10, `
		02           # Topics: 1 (TopicId 16 + Name 1 + tags 1 at least)
		00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  # 16 bytes only`,
		codec.ErrLengthOverrun, "Topics", 0},
	{"Metadata response v0: null brokers", &codec.MetadataResponse{}, 0, `ff ff ff ff 00 00 00 00`,
		codec.ErrNegativeLength, "Brokers", 0},
	{"Metadata response v9: partition count larger than the input", &codec.MetadataResponse{}, 9, `
		00 00 00 00  01  00  ff ff ff ff  # ThrottleTimeMs, Brokers empty, ClusterId null, ControllerId
		02  00 00  02 74  00  # Topics: 1, ErrorCode, Name "t", IsInternal
		05           # Partitions: 4, at least 18 bytes each
		00 00 00 00 00 00 00 00 00 00`,
		codec.ErrLengthOverrun, "Topics.Partitions", 16},
	{"Metadata response v12: input ends inside a topic", &codec.MetadataResponse{}, 12, `
		00 00 00 00  01  00  ff ff ff ff  # ThrottleTimeMs, Brokers empty, ClusterId null, ControllerId
		02           # Topics: 1 (26 bytes at least, and 26 follow)
		00 00  03 61 62  # ErrorCode, Name "ab"
		00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  # TopicId
		00  01       # IsInternal, Partitions empty
		80 00 00     # TopicAuthorizedOperations: 3 of its 4 bytes`,
		codec.ErrTruncated, "Topics.TopicAuthorizedOperations", 34},
	{"FindCoordinator v4: null keys", &codec.FindCoordinatorRequest{}, 4, `00 00 00`,
		codec.ErrNegativeLength, "CoordinatorKeys", 1},
	{"FindCoordinator response v4: coordinators larger than the input", &codec.FindCoordinatorResponse{}, 4, `
		00 00 00 00  03  02 67 00 00 00 01 02 68 00 00 00 01 00 00 00 00  00`,
		codec.ErrLengthOverrun, "Coordinators", 4},
	{"JoinGroup v0: null protocol metadata", &codec.JoinGroupRequest{}, 0, `
		00 01 67  00 00 27 10  00 00  00 01 63  # GroupId, SessionTimeoutMs, MemberId, ProtocolType
		00 00 00 01  00 01 70  # Protocols: 1, Name "p"
		ff ff ff ff            # Metadata: null, not allowed`,
		codec.ErrNegativeLength, "Protocols.Metadata", 19},
	{"JoinGroup v6: protocol count needs 3 bytes each", &codec.JoinGroupRequest{}, 6, `
		02 67  00 00 27 10  00 00 ea 60  01  00  02 63  # ..., ProtocolType "c"
		05           # Protocols: 4, 12 bytes at least
		02 70 01 00`,
		codec.ErrLengthOverrun, "Protocols", 14},
	{"JoinGroup response v6: null protocol name (nullable from v7)", &codec.JoinGroupResponse{}, 6, `
		00 00 00 00  00 00  ff ff ff ff
		00           # ProtocolName null
		01 01 01 00`,
		codec.ErrNegativeLength, "ProtocolName", 10},
	{"JoinGroup response v5: members need 8 bytes each", &codec.JoinGroupResponse{}, 5, `
		00 00 00 00  00 00  00 00 00 01  00 00  00 00  00 00
		00 00 00 02  # Members: 2, 16 bytes at least
		00 00  ff ff  00 00 00 00  00 00`,
		codec.ErrLengthOverrun, "Members", 16},
	{"Heartbeat v4: null member id", &codec.HeartbeatRequest{}, 4, `02 67  00 00 00 01  00  00 00`,
		codec.ErrNegativeLength, "MemberId", 6},
	{"Heartbeat v3: truncated instance id", &codec.HeartbeatRequest{}, 3, `00 01 67  00 00 00 01  00 00  00 02 69`,
		codec.ErrLengthOverrun, "GroupInstanceId", 9},
	{"SyncGroup v4: null assignment", &codec.SyncGroupRequest{}, 4, `
		02 67  00 00 00 01  02 6d  00  # GroupId, GenerationId, MemberId, GroupInstanceId null
		02  02 6d                      # Assignments: 1, MemberId "m"
		00                             # Assignment null: not allowed
		00 00`,
		codec.ErrNegativeLength, "Assignments.Assignment", 12},
	{"SyncGroup v0: assignments need 6 bytes each", &codec.SyncGroupRequest{}, 0, `
		00 01 67  00 00 00 01  00 01 6d
		00 00 00 02  # Assignments: 2, 12 bytes at least
		00 01 6d 00 00 00 00`,
		codec.ErrLengthOverrun, "Assignments", 10},
	{"SyncGroup response v5: assignment longer than the input", &codec.SyncGroupResponse{}, 5, `
		00 00 00 00  00 00  00  00
		05 01 02     # Assignment: 4 bytes announced, 2 left`,
		codec.ErrLengthOverrun, "Assignment", 8},
	{"DescribeGroups v2: null groups", &codec.DescribeGroupsRequest{}, 2, `ff ff ff ff`,
		codec.ErrNegativeLength, "Groups", 0},
	{"DescribeGroups response v3: groups need 18 bytes each", &codec.DescribeGroupsResponse{}, 3, `
		00 00 00 00
		00 00 00 02  # Groups: 2, 36 bytes at least
		00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00`,
		codec.ErrLengthOverrun, "Groups", 4},
	{"DescribeGroups response v5: null member metadata", &codec.DescribeGroupsResponse{}, 5, `
		00 00 00 00  02  00 00  02 67  01 01 01  # ThrottleTimeMs, Groups: 1, ErrorCode, "g", "", "", ""
		02  02 6d  00  01 01                     # Members: 1, "m", GroupInstanceId null, ClientId "", ClientHost ""
		00                                       # MemberMetadata null: not allowed
		01 00  00 00 00 00  00  00`,
		codec.ErrNegativeLength, "Members.MemberMetadata", 18},
	{"DescribeGroups response v6: null group state", &codec.DescribeGroupsResponse{}, 6, `
		00 00 00 00  02  00 00  00  02 67
		00           # GroupState null: not allowed
		01 01 01  80 00 00 00  00  00`,
		codec.ErrNegativeLength, "Groups.GroupState", 10},
	{"DescribeGroups v7", &codec.DescribeGroupsRequest{}, 7, `00`,
		codec.ErrUnsupportedVersion, "", 0},
	{"Heartbeat v5", &codec.HeartbeatRequest{}, 5, `00`,
		codec.ErrUnsupportedVersion, "", 0},
	{"JoinGroup v10", &codec.JoinGroupRequest{}, 10, `00`,
		codec.ErrUnsupportedVersion, "", 0},
	{"FindCoordinator v7", &codec.FindCoordinatorRequest{}, 7, `00`,
		codec.ErrUnsupportedVersion, "", 0},
	{"Metadata v14", &codec.MetadataResponse{}, 14, `00`,
		codec.ErrUnsupportedVersion, "", 0},
	{"unsupported version", &codec.ConsumerGroupHeartbeatRequest{}, 2, `00`,
		codec.ErrUnsupportedVersion, "", 0},
	{"negative version", &codec.LeaveGroupResponse{}, -1, `00 00`,
		codec.ErrUnsupportedVersion, "", 0},
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range decodeErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			b := wire(t, tc.wire)
			for _, opts := range []codec.DecodeOptions{{}, {Strict: true}, {NoCopy: true}, {OneCopy: true}} {
				err := codec.DecodeBody(fresh(tc.msg), b, tc.version, opts)
				name := codec.Lookup(tc.msg.Key()).MessageName(tc.msg.IsResponse())
				wantError(t, tc.name, err, tc.kind, name, tc.field, tc.version, tc.offset)
			}
		})
	}
}

// A request header's tag 0 is a uuid: any other declared size is
// ErrTagSize at the value's offset, whether the size is short or long.
func TestRequestHeaderTagErrors(t *testing.T) {
	cases := []struct {
		name   string
		wire   string
		kind   error
		field  string
		offset int
	}{
		{"tag 0 declared 15 bytes", `
			00 44 00 01 00 00 00 01 ff ff
			01 00 0f  # tag 0, size 15
			00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e  0f 10 11`,
			codec.ErrTagSize, "ClientInstanceId", 13},
		{"tag 0 declared 17 bytes", `
			00 44 00 01 00 00 00 01 ff ff
			01 00 11  # tag 0, size 17
			00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10`,
			codec.ErrTagSize, "ClientInstanceId", 13},
		{"tag 0 declared 0 bytes", `
			00 44 00 01 00 00 00 01 ff ff
			02 00 00 01 00`,
			codec.ErrTagSize, "ClientInstanceId", 13},
		{"tag size overruns the frame", `
			00 44 00 01 00 00 00 01 ff ff
			01 03 10 00`,
			codec.ErrLengthOverrun, "TaggedFields", 12},
		{"strict: tags out of order", `
			00 44 00 01 00 00 00 01 ff ff
			02 03 00 01 00  # tag 3 at byte 11, tag 1 at byte 13`,
			codec.ErrTagOrder, "TaggedFields", 13},
		{"truncated ClientId", `00 44 00 01 00 00 00 01 00 05 61`,
			codec.ErrLengthOverrun, "ClientId", 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var h codec.RequestHeader
			_, err := codec.ParseRequestHeader(wire(t, tc.wire), &h, codec.DecodeOptions{Strict: true})
			wantError(t, tc.name, err, tc.kind, "RequestHeader", tc.field, 2, tc.offset)
		})
	}
}

func TestStrictAndLenient(t *testing.T) {
	cases := []struct {
		name    string
		msg     codec.Message
		version int16
		wire    string
		kind    error
		field   string
		offset  int
	}{
		{"trailing bytes after a classic body", &codec.LeaveGroupResponse{}, 0, `00 00  01`,
			codec.ErrTrailingBytes, "", 2},
		{"trailing bytes after a flexible body", &codec.PushTelemetryResponse{}, 1, `00 00 00 00 00 00 00  00 00`,
			codec.ErrTrailingBytes, "", 7},
		{"tags descending", &codec.GetTelemetrySubscriptionsRequest{}, 1, `02 05 00 01 00`,
			codec.ErrTagOrder, "TaggedFields", 3},
		{"tag repeated", &codec.PushTelemetryResponse{}, 0, `00 00 00 00 00 00  02 01 00 01 00`,
			codec.ErrTagOrder, "TaggedFields", 9},
		{"known tags descending", &codec.ApiVersionsResponse{}, 3, `
			00 00 01 00 00 00 00
			02 03 01 01  01 08 00 00 00 00 00 00 00 01  # tag 3 then tag 1`,
			codec.ErrTagOrder, "TaggedFields", 11},
		{"nested tags out of order", &codec.LeaveGroupRequest{}, 4, `
			02 67 02 02 6d 00
			02 02 00 01 00  # member tags: tag 2 then tag 1
			00`,
			codec.ErrTagOrder, "Members.TaggedFields", 9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := wire(t, tc.wire)
			if err := codec.DecodeBody(fresh(tc.msg), b, tc.version, codec.DecodeOptions{}); err != nil {
				t.Fatalf("lenient decode must accept what Kafka's readers accept: %v", err)
			}
			err := codec.DecodeBody(fresh(tc.msg), b, tc.version, codec.DecodeOptions{Strict: true})
			name := codec.Lookup(tc.msg.Key()).MessageName(tc.msg.IsResponse())
			wantError(t, tc.name, err, tc.kind, name, tc.field, tc.version, tc.offset)
		})
	}
}

func TestHeaderVersionErrors(t *testing.T) {
	h := codec.RequestHeader{RequestApiKey: codec.LeaveGroup, ClientId: codec.Str("c")}
	_, err := h.AppendTo(nil, 0)
	wantError(t, "request header v0 encode", err, codec.ErrHeaderVersion, "RequestHeader", "", 0, -1)
	_, err = h.AppendTo(nil, 3)
	wantError(t, "request header v3 encode", err, codec.ErrHeaderVersion, "RequestHeader", "", 3, -1)

	b := wire(t, `00 0d 00 00 00 00 00 01 00 01 63`)
	r := codec.NewReader(b, "RequestHeader", 0, false, codec.DecodeOptions{})
	h.ReadFrom(&r, 0)
	wantError(t, "request header v0 decode", r.Err(), codec.ErrHeaderVersion, "RequestHeader", "", 0, 0)

	rh := codec.ResponseHeader{CorrelationId: 1}
	_, err = rh.AppendTo(nil, 2)
	wantError(t, "response header v2 encode", err, codec.ErrHeaderVersion, "ResponseHeader", "", 2, -1)
	r = codec.NewReader(b, "ResponseHeader", 2, true, codec.DecodeOptions{})
	rh.ReadFrom(&r, 2)
	wantError(t, "response header v2 decode", r.Err(), codec.ErrHeaderVersion, "ResponseHeader", "", 2, 0)
}

func TestUnknownKeyAndUnsupportedVersion(t *testing.T) {
	cases := []struct {
		name   string
		wire   string
		kind   error
		msg    string
		field  string
		ver    int16
		offset int
	}{
		{"api key 1 (Fetch) is not ours", `00 01 00 0c 00 00 00 01 ff ff 00`,
			codec.ErrUnknownAPIKey, "RequestHeader", "RequestApiKey", 0, 0},
		{"api key -1", `ff ff 00 00 00 00 00 01 ff ff`,
			codec.ErrUnknownAPIKey, "RequestHeader", "RequestApiKey", 0, 0},
		{"api key 1000", `03 e8 00 00 00 00 00 01 ff ff`,
			codec.ErrUnknownAPIKey, "RequestHeader", "RequestApiKey", 0, 0},
		{"negative api version", `00 44 ff ff 00 00 00 01 ff ff 00`,
			codec.ErrUnsupportedVersion, "RequestHeader", "RequestApiVersion", 0, 2},
		{"ConsumerGroupHeartbeat v2: header parses, body refused", `00 44 00 02 00 00 00 01 ff ff 00  02 67`,
			codec.ErrUnsupportedVersion, "ConsumerGroupHeartbeatRequest", "", 2, 11},
		{"ApiVersions v5: header v2 parses (KIP-511), body refused", `00 12 00 05 00 00 00 09 00 01 63 00  01 01 00 ff ff ff ff 00`,
			codec.ErrUnsupportedVersion, "ApiVersionsRequest", "", 5, 12},
		{"LeaveGroup v6", `00 0d 00 06 00 00 00 01 ff ff 00  02 67 01 00`,
			codec.ErrUnsupportedVersion, "LeaveGroupRequest", "", 6, 11},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, _, err := codec.DecodeRequest(wire(t, tc.wire), codec.DecodeOptions{})
			wantError(t, tc.name, err, tc.kind, tc.msg, tc.field, tc.ver, tc.offset)
			if errors.Is(err, codec.ErrUnsupportedVersion) && tc.field == "" && h.CorrelationId == 0 {
				t.Fatalf("the header of a refused version must still be returned, got %+v", h)
			}
		})
	}
	// The same keys and versions refused on the encoding side.
	_, err := (&codec.ConsumerGroupHeartbeatRequest{}).AppendTo(nil, 2)
	wantError(t, "encode CGH v2", err, codec.ErrUnsupportedVersion, "ConsumerGroupHeartbeatRequest", "", 2, -1)
	_, err = (&codec.ApiVersionsResponse{}).AppendTo(nil, 5)
	wantError(t, "encode ApiVersions v5", err, codec.ErrUnsupportedVersion, "ApiVersionsResponse", "", 5, -1)
	_, err = codec.RequestHeaderVersion(codec.APIKey(1), 0)
	wantError(t, "header version of key 1", err, codec.ErrUnknownAPIKey, "RequestHeader", "RequestApiKey", 0, 0)
	_, _, err = codec.DecodeResponse(wire(t, `00 00 00 01`), codec.APIKey(1), 0, codec.DecodeOptions{})
	if !errors.Is(err, codec.ErrUnknownAPIKey) {
		t.Fatalf("DecodeResponse for key 1: %v", err)
	}
}

func TestFrameErrors(t *testing.T) {
	cases := []struct {
		name string
		wire string
		max  int
		kind error
	}{
		{"size over max", `00 00 00 0b  00 00 00 00 00 00 00 00 00 00 00`, 10, codec.ErrFrameTooLarge},
		{"negative size", `ff ff ff ff  00`, 10, codec.ErrFrameTooLarge},
		{"size over the default max", `06 40 00 01`, 0, codec.ErrFrameTooLarge},
		{"size prefix cut short", `00 00 00`, 10, codec.ErrTruncated},
		{"body cut short", `00 00 00 05 01 02 03`, 10, codec.ErrTruncated},
		{"size prefix and no body (found by FuzzFrame)", `00 00 00 05`, 10, codec.ErrTruncated},
		{"size prefix and no body, beyond a small buffer", `00 30 30 30`, 0, codec.ErrTruncated},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := wire(t, tc.wire)
			frame, rest, err := codec.SplitFrame(b, tc.max)
			if !errors.Is(err, tc.kind) || frame != nil || !bytes.Equal(rest, b) {
				t.Fatalf("SplitFrame: %v, frame %x, rest %x", err, frame, rest)
			}
			if tc.kind == codec.ErrFrameTooLarge {
				wantError(t, tc.name, err, codec.ErrFrameTooLarge, "Frame", "Size", 0, 0)
				_, err = codec.ReadFrame(bytes.NewReader(b), nil, tc.max)
				wantError(t, tc.name+" (ReadFrame)", err, codec.ErrFrameTooLarge, "Frame", "Size", 0, 0)
			} else {
				_, err = codec.ReadFrame(bytes.NewReader(b), nil, tc.max)
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("ReadFrame of a cut frame: %v, want io.ErrUnexpectedEOF", err)
				}
			}
		})
	}
	// Size exactly max is allowed, and two frames split in turn.
	b := wire(t, `00 00 00 02 aa bb  00 00 00 00  00 00 00 01`)
	f, rest, err := codec.SplitFrame(b, 2)
	if err != nil || !bytes.Equal(f, []byte{0xaa, 0xbb}) {
		t.Fatalf("first frame: %x %v", f, err)
	}
	f, rest, err = codec.SplitFrame(rest, 2)
	if err != nil || len(f) != 0 || len(rest) != 4 {
		t.Fatalf("empty frame: %x %x %v", f, rest, err)
	}
	if _, err := codec.ReadFrame(bytes.NewReader(nil), nil, 2); err != io.EOF {
		t.Fatalf("ReadFrame at a clean end: %v, want io.EOF", err)
	}
}

// AppendFrameBytes grows as the bytes arrive, not by the size announced:
// a peer announcing 100 MiB and sending 40 KiB costs about 64 KiB. A
// buffer with room is filled in place; bytes come out in order, across
// chunks.
func TestAppendFrameBytes(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := codec.AppendFrameBytes(nil, bytes.NewReader(make([]byte, 40<<10)), 100<<20)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a frame cut short: %v, want io.ErrUnexpectedEOF", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("40 KiB of an announced 100 MiB allocated %d KiB", grew>>10)
	}
	if len(got) > 40<<10 {
		t.Errorf("returned %d bytes, more than arrived", len(got))
	}
	src := make([]byte, 300<<10+7)
	for i := range src {
		src[i] = byte(i * 13)
	}
	got, err = codec.AppendFrameBytes([]byte("pre"), bytes.NewReader(src), len(src))
	if err != nil || !bytes.Equal(got, append([]byte("pre"), src...)) {
		t.Fatalf("a frame across chunks came out changed (%d bytes, %v)", len(got), err)
	}
	buf := make([]byte, 0, 16)
	got, err = codec.AppendFrameBytes(buf, bytes.NewReader(src), 16)
	if err != nil || &got[0] != &buf[:1][0] || !bytes.Equal(got, src[:16]) {
		t.Errorf("a buffer with room should be filled in place: %x, %v", got, err)
	}
}
