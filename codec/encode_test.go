package codec_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// A field that a version lacks may hold only its default there, unless the
// field is ignorable, in which case the writer drops it (Kafka's generated
// writers do both). Tags cannot be written at a non-flexible version.
func TestEncodeRefusals(t *testing.T) {
	long := strings.Repeat("x", 0x8000)
	cases := []struct {
		name    string
		msg     codec.Message
		version int16
		kind    error
		field   string
	}{
		{"CGH SubscribedTopicRegex at v0", &codec.ConsumerGroupHeartbeatRequest{GroupId: "g",
			SubscribedTopicRegex: codec.Str("a.*")}, 0, codec.ErrNotRepresentable, "SubscribedTopicRegex"},
		{"CGH empty (non-null) SubscribedTopicRegex at v0", &codec.ConsumerGroupHeartbeatRequest{
			SubscribedTopicRegex: codec.Str("")}, 0, codec.ErrNotRepresentable, "SubscribedTopicRegex"},
		{"LeaveGroup v0 with Members", &codec.LeaveGroupRequest{GroupId: "g",
			Members: []codec.LeaveGroupMember{{MemberId: "m"}}}, 0, codec.ErrNotRepresentable, "Members"},
		{"LeaveGroup v2 with Members", &codec.LeaveGroupRequest{GroupId: "g", MemberId: "m",
			Members: []codec.LeaveGroupMember{{MemberId: "m"}}}, 2, codec.ErrNotRepresentable, "Members"},
		{"LeaveGroup v3 with top-level MemberId", &codec.LeaveGroupRequest{GroupId: "g", MemberId: "m"},
			3, codec.ErrNotRepresentable, "MemberId"},
		{"LeaveGroup v5 with top-level MemberId", &codec.LeaveGroupRequest{GroupId: "g", MemberId: "m",
			Members: []codec.LeaveGroupMember{{MemberId: "m"}}}, 5, codec.ErrNotRepresentable, "MemberId"},
		{"LeaveGroup response v2 with Members", &codec.LeaveGroupResponse{
			Members: []codec.LeaveGroupMemberResponse{{MemberId: "m"}}}, 2, codec.ErrNotRepresentable, "Members"},
		{"GetTelemetrySubscriptions request v1 with ClientInstanceId", &codec.GetTelemetrySubscriptionsRequest{
			ClientInstanceId: u10}, 1, codec.ErrNotRepresentable, "ClientInstanceId"},
		{"GetTelemetrySubscriptions response v1 with ClientInstanceId", &codec.GetTelemetrySubscriptionsResponse{
			ClientInstanceId: u10}, 1, codec.ErrNotRepresentable, "ClientInstanceId"},
		{"PushTelemetry request v1 with ClientInstanceId", &codec.PushTelemetryRequest{
			ClientInstanceId: u10}, 1, codec.ErrNotRepresentable, "ClientInstanceId"},
		{"tags at LeaveGroup v3", &codec.LeaveGroupRequest{GroupId: "g",
			UnknownTags: codec.TaggedFields{{Tag: 1}}}, 3, codec.ErrNotRepresentable, "TaggedFields"},
		{"member tags at LeaveGroup v3", &codec.LeaveGroupRequest{GroupId: "g",
			Members: []codec.LeaveGroupMember{{UnknownTags: codec.TaggedFields{{Tag: 1}}}}}, 3, codec.ErrNotRepresentable, "Members.TaggedFields"},
		{"tags at LeaveGroup v1", &codec.LeaveGroupRequest{GroupId: "g",
			UnknownTags: codec.TaggedFields{{Tag: 1}}}, 1, codec.ErrNotRepresentable, "TaggedFields"},
		{"tags at LeaveGroup response v0", &codec.LeaveGroupResponse{
			UnknownTags: codec.TaggedFields{{Tag: 1}}}, 0, codec.ErrNotRepresentable, "TaggedFields"},
		{"tags at ApiVersions request v2", &codec.ApiVersionsRequest{
			UnknownTags: codec.TaggedFields{{Tag: 1}}}, 2, codec.ErrNotRepresentable, "TaggedFields"},
		{"ApiKeys tags at ApiVersions response v1", &codec.ApiVersionsResponse{FinalizedFeaturesEpoch: -1,
			ApiKeys: []codec.ApiVersionsKey{{UnknownTags: codec.TaggedFields{{Tag: 1}}}}}, 1, codec.ErrNotRepresentable, "ApiKeys.TaggedFields"},
		{"unknown tags descending", &codec.GetTelemetrySubscriptionsRequest{
			UnknownTags: codec.TaggedFields{{Tag: 5}, {Tag: 1}}}, 1, codec.ErrTagOrder, "TaggedFields"},
		{"unknown tag repeated", &codec.PushTelemetryResponse{
			UnknownTags: codec.TaggedFields{{Tag: 1}, {Tag: 1}}}, 0, codec.ErrTagOrder, "TaggedFields"},
		{"nested unknown tags descending", &codec.ConsumerGroupHeartbeatRequest{
			TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{{UnknownTags: codec.TaggedFields{{Tag: 3}, {Tag: 2}}}}},
			0, codec.ErrTagOrder, "TopicPartitions.TaggedFields"},
		{"unknown tag 1 beside FinalizedFeaturesEpoch", &codec.ApiVersionsResponse{FinalizedFeaturesEpoch: 5,
			UnknownTags: codec.TaggedFields{{Tag: 1, Data: make([]byte, 8)}}}, 3, codec.ErrTagOrder, "TaggedFields"},
		{"unknown tag 3 while ZkMigrationReady is at its default", &codec.ApiVersionsResponse{FinalizedFeaturesEpoch: -1,
			UnknownTags: codec.TaggedFields{{Tag: 3, Data: []byte{1}}}}, 4, codec.ErrTagOrder, "TaggedFields"},
		{"unknown tags out of order among known ones", &codec.ApiVersionsResponse{FinalizedFeaturesEpoch: -1,
			ZkMigrationReady: true, UnknownTags: codec.TaggedFields{{Tag: 9}, {Tag: 4}}}, 3, codec.ErrTagOrder, "TaggedFields"},
		{"string of 32768 bytes", &codec.ConsumerGroupHeartbeatRequest{GroupId: long}, 1, codec.ErrStringTooLong, "GroupId"},
		{"classic string of 32768 bytes", &codec.LeaveGroupRequest{GroupId: "g", MemberId: long}, 0, codec.ErrStringTooLong, "MemberId"},
		{"nullable string of 32768 bytes", &codec.ConsumerGroupHeartbeatResponse{ErrorMessage: codec.Str(long)}, 0, codec.ErrStringTooLong, "ErrorMessage"},
		{"array element of 32768 bytes", &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g", long}}, 0, codec.ErrStringTooLong, "GroupIds"},
		{"Metadata v0 null topic name", &codec.MetadataRequest{AllowAutoTopicCreation: true,
			Topics: []codec.MetadataRequestTopic{{Name: codec.Null}}}, 0, codec.ErrNotRepresentable, "Topics.Name"},
		{"Metadata v9 null topic name (nullable from v10)", &codec.MetadataRequest{AllowAutoTopicCreation: true,
			Topics: []codec.MetadataRequestTopic{{Name: codec.Null}}}, 9, codec.ErrNotRepresentable, "Topics.Name"},
		{"Metadata v3 without auto topic creation", &codec.MetadataRequest{}, 3, codec.ErrNotRepresentable, "AllowAutoTopicCreation"},
		{"Metadata v11 IncludeClusterAuthorizedOperations", &codec.MetadataRequest{AllowAutoTopicCreation: true,
			IncludeClusterAuthorizedOperations: true}, 11, codec.ErrNotRepresentable, "IncludeClusterAuthorizedOperations"},
		{"Metadata v7 IncludeTopicAuthorizedOperations", &codec.MetadataRequest{AllowAutoTopicCreation: true,
			IncludeTopicAuthorizedOperations: true}, 7, codec.ErrNotRepresentable, "IncludeTopicAuthorizedOperations"},
		{"Metadata response v11 ClusterAuthorizedOperations", &codec.MetadataResponse{ControllerId: -1},
			11, codec.ErrNotRepresentable, "ClusterAuthorizedOperations"},
		{"Metadata response v7 TopicAuthorizedOperations", &codec.MetadataResponse{ClusterAuthorizedOperations: opsUnknown,
			Topics: []codec.MetadataResponseTopic{{Name: codec.Str("t")}}}, 7, codec.ErrNotRepresentable, "Topics.TopicAuthorizedOperations"},
		{"Metadata response v11 null topic name (nullable from v12)", &codec.MetadataResponse{ClusterAuthorizedOperations: opsUnknown,
			Topics: []codec.MetadataResponseTopic{{TopicAuthorizedOperations: opsUnknown}}}, 11, codec.ErrNotRepresentable, "Topics.Name"},
		{"Metadata response broker host of 32768 bytes", &codec.MetadataResponse{ClusterAuthorizedOperations: opsUnknown,
			Brokers: []codec.MetadataResponseBroker{{Host: long}}}, 12, codec.ErrStringTooLong, "Brokers.Host"},
		{"FindCoordinator v4 with Key", &codec.FindCoordinatorRequest{CoordinatorKey: "g",
			CoordinatorKeys: []string{"g"}}, 4, codec.ErrNotRepresentable, "Key"},
		{"FindCoordinator v3 with CoordinatorKeys", &codec.FindCoordinatorRequest{CoordinatorKey: "g",
			CoordinatorKeys: []string{"h"}}, 3, codec.ErrNotRepresentable, "CoordinatorKeys"},
		{"FindCoordinator v0 transaction key", &codec.FindCoordinatorRequest{CoordinatorKey: "t",
			KeyType: codec.CoordinatorKeyTransaction}, 0, codec.ErrNotRepresentable, "KeyType"},
		{"FindCoordinator response v4 with a single answer", &codec.FindCoordinatorResponse{NodeId: 1,
			Coordinators: []codec.FindCoordinatorCoordinator{{Key: "g"}}}, 4, codec.ErrNotRepresentable, "NodeId"},
		{"FindCoordinator response v3 with Coordinators", &codec.FindCoordinatorResponse{
			Coordinators: []codec.FindCoordinatorCoordinator{{Key: "g"}}}, 3, codec.ErrNotRepresentable, "Coordinators"},
		{"known-tag array element of 32768 bytes", &codec.ApiVersionsResponse{FinalizedFeaturesEpoch: -1,
			SupportedFeatures: []codec.SupportedFeature{{Name: long}}}, 3, codec.ErrStringTooLong, "SupportedFeatures.Name"},
		{"JoinGroup v4 with GroupInstanceId (v5+)", &codec.JoinGroupRequest{GroupId: "g",
			GroupInstanceId: codec.Str("i")}, 4, codec.ErrNotRepresentable, "GroupInstanceId"},
		{"JoinGroup v0 with an empty (non-null) GroupInstanceId", &codec.JoinGroupRequest{GroupId: "g",
			GroupInstanceId: codec.Str("")}, 0, codec.ErrNotRepresentable, "GroupInstanceId"},
		{"tags at JoinGroup v5", &codec.JoinGroupRequest{GroupId: "g",
			UnknownTags: codec.TaggedFields{{Tag: 1}}}, 5, codec.ErrNotRepresentable, "TaggedFields"},
		{"protocol tags at JoinGroup v5", &codec.JoinGroupRequest{GroupId: "g",
			Protocols: []codec.JoinGroupRequestProtocol{{Name: "p", UnknownTags: codec.TaggedFields{{Tag: 1}}}}},
			5, codec.ErrNotRepresentable, "Protocols.TaggedFields"},
		{"JoinGroup protocol name of 32768 bytes", &codec.JoinGroupRequest{GroupId: "g",
			Protocols: []codec.JoinGroupRequestProtocol{{Name: long}}}, 6, codec.ErrStringTooLong, "Protocols.Name"},
		{"JoinGroup response v8 SkipAssignment (v9+)", &codec.JoinGroupResponse{SkipAssignment: true},
			8, codec.ErrNotRepresentable, "SkipAssignment"},
		{"JoinGroup response v5 member tags", &codec.JoinGroupResponse{Members: []codec.JoinGroupResponseMember{
			{MemberId: "m", UnknownTags: codec.TaggedFields{{Tag: 1}}}}}, 5, codec.ErrNotRepresentable, "Members.TaggedFields"},
		{"Heartbeat v2 with GroupInstanceId (v3+)", &codec.HeartbeatRequest{GroupId: "g",
			GroupInstanceId: codec.Str("i")}, 2, codec.ErrNotRepresentable, "GroupInstanceId"},
		{"tags at Heartbeat v3", &codec.HeartbeatRequest{GroupId: "g",
			UnknownTags: codec.TaggedFields{{Tag: 1}}}, 3, codec.ErrNotRepresentable, "TaggedFields"},
		{"tags at Heartbeat response v3", &codec.HeartbeatResponse{
			UnknownTags: codec.TaggedFields{{Tag: 1}}}, 3, codec.ErrNotRepresentable, "TaggedFields"},
		{"SyncGroup v2 with GroupInstanceId (v3+)", &codec.SyncGroupRequest{GroupId: "g",
			GroupInstanceId: codec.Str("i")}, 2, codec.ErrNotRepresentable, "GroupInstanceId"},
		{"assignment tags at SyncGroup v3", &codec.SyncGroupRequest{GroupId: "g",
			Assignments: []codec.SyncGroupRequestAssignment{{MemberId: "m", UnknownTags: codec.TaggedFields{{Tag: 1}}}}},
			3, codec.ErrNotRepresentable, "Assignments.TaggedFields"},
		{"SyncGroup assignment member id of 32768 bytes", &codec.SyncGroupRequest{GroupId: "g",
			Assignments: []codec.SyncGroupRequestAssignment{{MemberId: long}}}, 5, codec.ErrStringTooLong, "Assignments.MemberId"},
		{"DescribeGroups v2 IncludeAuthorizedOperations (v3+)", &codec.DescribeGroupsRequest{
			IncludeAuthorizedOperations: true}, 2, codec.ErrNotRepresentable, "IncludeAuthorizedOperations"},
		{"DescribeGroups response v5 ErrorMessage (v6+)", &codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{{
			ErrorMessage: codec.Str("m"), AuthorizedOperations: opsUnknown}}}, 5, codec.ErrNotRepresentable, "Groups.ErrorMessage"},
		{"DescribeGroups response v2 AuthorizedOperations 0 (v3+, default INT32_MIN)", &codec.DescribeGroupsResponse{
			Groups: []codec.DescribeGroupsGroup{{GroupId: "g"}}}, 2, codec.ErrNotRepresentable, "Groups.AuthorizedOperations"},
		{"DescribeGroups response v4 member tags", &codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{{
			AuthorizedOperations: opsUnknown, Members: []codec.DescribeGroupsMember{{UnknownTags: codec.TaggedFields{{Tag: 1}}}}}}},
			4, codec.ErrNotRepresentable, "Members.TaggedFields"},
		{"DescribeGroups response client host of 32768 bytes", &codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{{
			Members: []codec.DescribeGroupsMember{{ClientHost: long}}}}}, 6, codec.ErrStringTooLong, "Members.ClientHost"},
		{"JoinGroup response v2 protocol name of 32768 bytes", &codec.JoinGroupResponse{ProtocolName: codec.Str(long)},
			2, codec.ErrStringTooLong, "ProtocolName"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.msg.AppendTo(nil, tc.version)
			name := codec.Lookup(tc.msg.Key()).MessageName(tc.msg.IsResponse())
			wantError(t, tc.name, err, tc.kind, name, tc.field, tc.version, -1)
		})
	}
}

func TestEncodeHeaderRefusals(t *testing.T) {
	long := strings.Repeat("x", 0x8000)
	cases := []struct {
		name  string
		h     codec.RequestHeader
		hv    int16
		kind  error
		field string
	}{
		{"unknown tags at header v1", codec.RequestHeader{RequestApiKey: codec.LeaveGroup,
			UnknownTags: codec.TaggedFields{{Tag: 1}}}, 1, codec.ErrNotRepresentable, "UnknownTags"},
		{"unknown tag 0 beside ClientInstanceId", codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 4,
			ClientInstanceId: codec.SomeUUID(u00), UnknownTags: codec.TaggedFields{{Tag: 0, Data: make([]byte, 16)}}},
			2, codec.ErrTagOrder, "UnknownTags"},
		{"unknown tag 0 without ClientInstanceId", codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 4,
			UnknownTags: codec.TaggedFields{{Tag: 0, Data: make([]byte, 16)}}}, 2, codec.ErrTagOrder, "UnknownTags"},
		{"unknown tags descending", codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 4,
			UnknownTags: codec.TaggedFields{{Tag: 2}, {Tag: 1}}}, 2, codec.ErrTagOrder, "UnknownTags"},
		{"ClientId of 32768 bytes", codec.RequestHeader{RequestApiKey: codec.LeaveGroup, ClientId: codec.Str(long)},
			1, codec.ErrStringTooLong, "ClientId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.h.AppendTo(nil, tc.hv)
			wantError(t, tc.name, err, tc.kind, "RequestHeader", tc.field, tc.hv, -1)
		})
	}
	// AppendRequest refuses a body that does not match the header's key.
	h := codec.RequestHeader{RequestApiKey: codec.LeaveGroup}
	_, err := codec.AppendRequest(nil, &h, &codec.PushTelemetryRequest{})
	wantError(t, "mismatched body", err, codec.ErrNotRepresentable, "RequestHeader", "RequestApiKey", 0, -1)
	_, err = codec.AppendResponse(nil, 1, 0, &codec.LeaveGroupRequest{})
	wantError(t, "request as response", err, codec.ErrNotRepresentable, "ResponseHeader", "", 0, -1)
}

// Ignorable fields are dropped silently at versions that lack them; the
// expected bytes are those of the message without the field.
func TestEncodeDropsIgnorable(t *testing.T) {
	cases := []struct {
		name    string
		msg     codec.Message
		version int16
		wire    string
	}{
		{"ThrottleTimeMs at LeaveGroup v0", &codec.LeaveGroupResponse{ThrottleTimeMs: 50, ErrorCode: codec.UnknownMemberID}, 0, `
			00 19  # ErrorCode only`},
		{"ThrottleTimeMs at ApiVersions v0", &codec.ApiVersionsResponse{ThrottleTimeMs: 50, FinalizedFeaturesEpoch: -1}, 0, `
			00 00 00 00 00 00  # ErrorCode 0, ApiKeys empty, no ThrottleTimeMs`},
		{"known tags at ApiVersions v2", &codec.ApiVersionsResponse{FinalizedFeaturesEpoch: 3, ZkMigrationReady: true,
			SupportedFeatures: []codec.SupportedFeature{{Name: "f"}}}, 2, `
			00 00 00 00 00 00 00 00 00 00  # ErrorCode, ApiKeys empty, ThrottleTimeMs 0; no tags at v2`},
		{"LeaveGroup Reason at v3", &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{
			{MemberId: "m", Reason: codec.Str("bye")}}}, 3, `
			00 01 67  00 00 00 01  00 01 6d  ff ff  # GroupId, 1 member "m", instance null, no Reason`},
		{"LeaveGroup Reason at v4", &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{
			{MemberId: "m", Reason: codec.Str("bye")}}}, 4, `
			02 67  02  02 6d 00 00  00  # GroupId, 1 member "m", instance null, member tags; no Reason; tags`},
		{"CGD MemberType at v0", &codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{{
			Members: []codec.DescribedMember{{MemberType: codec.MemberTypeConsumer}}}}}, 0, `
			00 00 00 00  02  00 00 00 01 01 00 00 00 00 00 00 00 00 01  # ThrottleTimeMs; 1 group header
			02  01 00 00 00 00 00 00 01 01 01 00 01 00 01 00 00  # 1 member, no MemberType at v0
			00 00 00 00 00 00`},
		{"Metadata response fields of later versions at v0", &codec.MetadataResponse{ThrottleTimeMs: 9,
			Brokers:   []codec.MetadataResponseBroker{{NodeId: 1, Host: "h", Port: 2, Rack: codec.Str("r")}},
			ClusterId: codec.Str("c"), ControllerId: 3, ClusterAuthorizedOperations: opsUnknown, ErrorCode: codec.UnknownServerError,
			Topics: []codec.MetadataResponseTopic{{Name: codec.Str("t"), TopicId: u00, IsInternal: true,
				TopicAuthorizedOperations: opsUnknown, Partitions: []codec.MetadataResponsePartition{{
					LeaderEpoch: 5, OfflineReplicas: []int32{1}}}}}}, 0, `
			00 00 00 01  00 00 00 01 00 01 68 00 00 00 02  # Brokers: 1, NodeId 1, "h", Port 2; no Rack
			00 00 00 01  00 00 00 01 74                     # Topics: 1, ErrorCode 0, "t"; no TopicId, IsInternal
			00 00 00 01  00 00 00 00 00 00 00 00 00 00      # Partitions: 1, ErrorCode, PartitionIndex, LeaderId; no LeaderEpoch
			00 00 00 00  00 00 00 00                        # ReplicaNodes, IsrNodes empty; no OfflineReplicas`},
		{"Metadata request topic id at v9", &codec.MetadataRequest{AllowAutoTopicCreation: true,
			Topics: []codec.MetadataRequestTopic{{TopicId: u00, Name: codec.Str("t")}}}, 9, `
			02 02 74 00  01 00 00  00  # Topics: ["t"] without its TopicId; flags; tags`},
		{"FindCoordinator response throttle and message at v0", &codec.FindCoordinatorResponse{ThrottleTimeMs: 1,
			ErrorMessage: codec.Str("m"), NodeId: 1, Host: "h", Port: 2}, 0, `
			00 00  00 00 00 01  00 01 68  00 00 00 02  # ErrorCode, NodeId, Host, Port only`},
		{"FindCoordinator response top-level message at v4", &codec.FindCoordinatorResponse{ErrorMessage: codec.Str("m")}, 4, `
			00 00 00 00  01  00  # ThrottleTimeMs, Coordinators empty, tags`},
		{"ApiVersions software name and version at v2", &codec.ApiVersionsRequest{
			ClientSoftwareName: "gc", ClientSoftwareVersion: "1"}, 2, ``},
		{"ApiVersions software name and version at v0", &codec.ApiVersionsRequest{
			ClientSoftwareName: "gc", ClientSoftwareVersion: "1"}, 0, ``},
		{"JoinGroup RebalanceTimeoutMs at v0", &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 1,
			RebalanceTimeoutMs: 5, ProtocolType: "c"}, 0, `
			00 01 67  00 00 00 01  00 00  00 01 63  00 00 00 00  # GroupId, SessionTimeoutMs, MemberId, ProtocolType, Protocols; no RebalanceTimeoutMs`},
		{"JoinGroup Reason at v7", &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 1, RebalanceTimeoutMs: 2,
			ProtocolType: "c", Reason: codec.Str("r")}, 7, `
			02 67  00 00 00 01  00 00 00 02  01 00 02 63 01  00  # ..., Protocols empty; no Reason; tags`},
		{"ThrottleTimeMs at Heartbeat response v0", &codec.HeartbeatResponse{ThrottleTimeMs: 50,
			ErrorCode: codec.RebalanceInProgress}, 0, `
			00 1b  # ErrorCode only`},
		{"SyncGroup protocol type and name at v4", &codec.SyncGroupRequest{GroupId: "g", GenerationId: 1, MemberId: "m",
			ProtocolType: codec.Str("c"), ProtocolName: codec.Str("p")}, 4, `
			02 67  00 00 00 01  02 6d  00  01  00  # GroupId, GenerationId, MemberId, GroupInstanceId null, Assignments empty, tags`},
		{"SyncGroup response fields of later versions at v0", &codec.SyncGroupResponse{ThrottleTimeMs: 1,
			ProtocolType: codec.Str("c"), ProtocolName: codec.Str("p"), Assignment: []byte{1}}, 0, `
			00 00  00 00 00 01 01  # ErrorCode, Assignment; no ThrottleTimeMs, ProtocolType, ProtocolName`},
		{"DescribeGroups response fields of later versions at v0", &codec.DescribeGroupsResponse{ThrottleTimeMs: 3,
			Groups: []codec.DescribeGroupsGroup{{GroupId: "g", AuthorizedOperations: opsUnknown,
				Members: []codec.DescribeGroupsMember{{MemberId: "m", GroupInstanceId: codec.Str("i")}}}}}, 0, `
			00 00 00 01  00 00  00 01 67  00 00  00 00  00 00  # no ThrottleTimeMs; Groups: 1, ErrorCode, "g", "", "", ""
			00 00 00 01  00 01 6d  00 00  00 00  00 00 00 00  00 00 00 00  # Members: "m", no GroupInstanceId, ...`},
		{"JoinGroup response fields of later versions at v1", &codec.JoinGroupResponse{ThrottleTimeMs: 9,
			GenerationId: 1, ProtocolType: codec.Str("c"), ProtocolName: codec.Str("p"), Leader: "m", MemberId: "m",
			Members: []codec.JoinGroupResponseMember{{MemberId: "m", GroupInstanceId: codec.Str("i")}}}, 1, `
			00 00  00 00 00 01  00 01 70  00 01 6d  00 01 6d  # ErrorCode, GenerationId, ProtocolName, Leader, MemberId; no ThrottleTimeMs, ProtocolType
			00 00 00 01  00 01 6d  00 00 00 00                # Members: "m", no GroupInstanceId, no metadata`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.msg.AppendTo(nil, tc.version)
			if want := wire(t, tc.wire); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("got % x, %v\nwant % x", got, err, want)
			}
		})
	}
	// A request header v1 has no tag section; ClientInstanceId is an
	// ignorable tagged field (docs/PROTOCOL.md A2), so it is dropped there.
	h := codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 3, CorrelationId: 1,
		ClientId: codec.Null, ClientInstanceId: codec.SomeUUID(u00)}
	got, err := h.AppendTo(nil, 1)
	if want := wire(t, `00 0d 00 03 00 00 00 01 ff ff`); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("header v1 with ClientInstanceId: % x, %v; want % x", got, err, want)
	}
}

// Strings of exactly 32767 bytes are the longest allowed and round-trip.
func TestLongestString(t *testing.T) {
	s := strings.Repeat("y", 0x7fff)
	for _, v := range []int16{0, 3} {
		m := &codec.LeaveGroupRequest{GroupId: s}
		if v == 0 {
			m.MemberId = s
		}
		b, err := m.AppendTo(nil, v)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		var got codec.LeaveGroupRequest
		if err := codec.DecodeBody(&got, b, v, codec.DecodeOptions{Strict: true}); err != nil || got.GroupId != s || got.MemberId != m.MemberId {
			t.Fatalf("v%d: round trip: %v", v, err)
		}
	}
	m := &codec.ConsumerGroupHeartbeatRequest{GroupId: s, MemberId: s}
	b, err := m.AppendTo(nil, 1)
	if err != nil || !bytes.Equal(b[:3], []byte{0x80, 0x80, 0x02}) {
		t.Fatalf("compact length of 32767 is uvarint(32768) = 80 80 02: % x, %v", b[:3], err)
	}
}

// Below v7 a JoinGroup response's ProtocolName is not nullable: null is
// written as the empty string, as Kafka's broker writes it (its
// JoinGroupResponse constructor does so below v7), so one error answer
// encodes at every version. From v7 null is null and the empty string
// stays empty.
func TestJoinGroupNullProtocolName(t *testing.T) {
	m := &codec.JoinGroupResponse{ErrorCode: codec.UnknownMemberID, GenerationId: -1}
	cases := []struct {
		version int16
		wire    string
	}{
		{0, `00 19  ff ff ff ff  00 00  00 00  00 00  00 00 00 00  # ProtocolName "", Leader, MemberId, Members`},
		{6, `00 00 00 00  00 19  ff ff ff ff  01  01  01  01  00  # ProtocolName "" (compact)`},
		{7, `00 00 00 00  00 19  ff ff ff ff  00  00  01  01  01  00  # ProtocolType null, ProtocolName null`},
	}
	for _, tc := range cases {
		got, err := m.AppendTo(nil, tc.version)
		if want := wire(t, tc.wire); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("v%d: got % x, %v\nwant % x", tc.version, got, err, want)
		}
	}
	empty := &codec.JoinGroupResponse{ProtocolName: codec.Str("")}
	got, err := empty.AppendTo(nil, 7)
	if want := wire(t, `00 00 00 00  00 00  00 00 00 00  00  01  01 01 01 00  # ProtocolName "" stays empty`); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("empty name at v7: got % x, %v\nwant % x", got, err, want)
	}
}
