package codec_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// golden is one hand-written wire vector: decoding Wire at Version must
// give Msg, and encoding Msg at Version must give Wire. The bytes were
// written from docs/PROTOCOL.md Part B (§B2 primitives, §B3 ConsumerGroupHeartbeat,
// §B5 LeaveGroup, §B6 telemetry with Part A2's v1, §B7 ApiVersions and
// ConsumerGroupDescribe), never produced by this codec.
type golden struct {
	name    string
	version int16
	msg     codec.Message
	wire    string
}

// Two uuids whose bytes are easy to read in a listing.
var (
	u00 = uuidOf(0x00) // 00 01 02 ... 0f
	u10 = uuidOf(0x10) // 10 11 12 ... 1f
)

// goldenBodies are every body vector: those of the apis ghostcheck checks
// and those of the routing apis (golden_routing_test.go), of the
// authentication apis (golden_auth_test.go) and of the classic ones
// (golden_classic_test.go).
var goldenBodies = append(append(append(goldenChecked[:len(goldenChecked):len(goldenChecked)], goldenRouting...), goldenAuth...), goldenClassic...)

var goldenChecked = []golden{
	// ---------------------------------------------------------------- ApiVersions (18)
	{"ApiVersionsRequest v0 empty body", 0, &codec.ApiVersionsRequest{}, ``},
	{"ApiVersionsRequest v1 empty body", 1, &codec.ApiVersionsRequest{}, ``},
	{"ApiVersionsRequest v2 empty body", 2, &codec.ApiVersionsRequest{}, ``},
	{"ApiVersionsRequest v3 software name and version", 3,
		&codec.ApiVersionsRequest{ClientSoftwareName: "gc", ClientSoftwareVersion: "1.0"}, `
		03 67 63     # ClientSoftwareName: compact string, uvarint(2+1), "gc"
		04 31 2e 30  # ClientSoftwareVersion: uvarint(3+1), "1.0"
		00           # tagged fields: none`},
	{"ApiVersionsRequest v4 unknown tag", 4,
		&codec.ApiVersionsRequest{ClientSoftwareName: "g", ClientSoftwareVersion: "1",
			UnknownTags: codec.TaggedFields{{Tag: 5, Data: []byte{0xab, 0xcd}}}}, `
		02 67        # ClientSoftwareName "g"
		02 31        # ClientSoftwareVersion "1"
		01           # one tagged field
		05 02 ab cd  # tag 5, size 2, data`},
	{"ApiVersionsResponse v0", 0,
		&codec.ApiVersionsResponse{ErrorCode: codec.None, FinalizedFeaturesEpoch: -1, ApiKeys: []codec.ApiVersionsKey{
			{ApiKey: codec.ApiVersions, MinVersion: 0, MaxVersion: 4},
			{ApiKey: codec.ConsumerGroupHeartbeat, MinVersion: 0, MaxVersion: 1}}}, `
		00 00          # ErrorCode 0
		00 00 00 02    # ApiKeys: int32 count 2
		00 12 00 00 00 04  # ApiKey 18, MinVersion 0, MaxVersion 4
		00 44 00 00 00 01  # ApiKey 68, MinVersion 0, MaxVersion 1
		               # no ThrottleTimeMs at v0`},
	{"ApiVersionsResponse v1 unsupported version", 1,
		&codec.ApiVersionsResponse{ErrorCode: codec.UnsupportedVersion, ThrottleTimeMs: 10, FinalizedFeaturesEpoch: -1,
			ApiKeys: []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MinVersion: 0, MaxVersion: 2}}}, `
		00 23              # ErrorCode 35 UNSUPPORTED_VERSION
		00 00 00 01        # ApiKeys: 1
		00 12 00 00 00 02  # ApiKey 18, 0..2
		00 00 00 0a        # ThrottleTimeMs 10 (v1+)`},
	{"ApiVersionsResponse v2 empty ApiKeys", 2,
		&codec.ApiVersionsResponse{FinalizedFeaturesEpoch: -1}, `
		00 00        # ErrorCode 0
		00 00 00 00  # ApiKeys: empty (non-nullable, decodes to nil)
		00 00 00 00  # ThrottleTimeMs 0`},
	{"ApiVersionsResponse v3 no tags", 3,
		&codec.ApiVersionsResponse{FinalizedFeaturesEpoch: -1,
			ApiKeys: []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MinVersion: 0, MaxVersion: 4}}}, `
		00 00                # ErrorCode 0
		02                   # ApiKeys: compact array, uvarint(1+1)
		00 12 00 00 00 04 00 # ApiKey 18, 0..4, no tags
		00 00 00 00          # ThrottleTimeMs 0
		00                   # tagged fields: none (FinalizedFeaturesEpoch stays -1)`},
	{"ApiVersionsResponse v3 known tags 0-3", 3,
		&codec.ApiVersionsResponse{
			SupportedFeatures:      []codec.SupportedFeature{{Name: "mv", MinVersion: 1, MaxVersion: 20}},
			FinalizedFeaturesEpoch: 7,
			FinalizedFeatures:      []codec.FinalizedFeature{{Name: "mv", MaxVersionLevel: 20, MinVersionLevel: 1}},
			ZkMigrationReady:       true}, `
		00 00        # ErrorCode 0
		01           # ApiKeys: empty
		00 00 00 00  # ThrottleTimeMs 0
		04           # four tagged fields
		00 09        # tag 0 SupportedFeatures, size 9
		  02           # compact array of 1
		  03 6d 76     # Name "mv"
		  00 01 00 14  # MinVersion 1, MaxVersion 20
		  00           # entry tags
		01 08 00 00 00 00 00 00 00 07  # tag 1 FinalizedFeaturesEpoch, size 8, int64 7
		02 09        # tag 2 FinalizedFeatures, size 9
		  02 03 6d 76  # 1 entry, Name "mv"
		  00 14 00 01  # MaxVersionLevel 20, MinVersionLevel 1
		  00           # entry tags
		03 01 01     # tag 3 ZkMigrationReady, size 1, true`},
	{"ApiVersionsResponse v4 known and unknown tags", 4,
		&codec.ApiVersionsResponse{ThrottleTimeMs: 1, FinalizedFeaturesEpoch: 0,
			ApiKeys: []codec.ApiVersionsKey{{ApiKey: codec.LeaveGroup, MinVersion: 0, MaxVersion: 5,
				UnknownTags: codec.TaggedFields{{Tag: 1, Data: []byte{}}}}},
			UnknownTags: codec.TaggedFields{{Tag: 4, Data: []byte{0x99}}, {Tag: 200, Data: []byte{}}}}, `
		00 00              # ErrorCode 0
		02                 # ApiKeys: 1
		00 0d 00 00 00 05  # ApiKey 13, 0..5
		01 01 00           # entry tags: 1 field, tag 1, size 0
		00 00 00 01        # ThrottleTimeMs 1
		03                 # three tagged fields
		01 08 00 00 00 00 00 00 00 00  # tag 1 FinalizedFeaturesEpoch 0 (not the default -1)
		04 01 99           # unknown tag 4, size 1
		c8 01 00           # unknown tag 200 = uvarint c8 01, size 0`},

	// ---------------------------------------------------------------- LeaveGroup (13)
	{"LeaveGroupRequest v0", 0, &codec.LeaveGroupRequest{GroupId: "g", MemberId: "m"}, `
		00 01 67  # GroupId: int16 length 1, "g"
		00 01 6d  # MemberId "m"`},
	{"LeaveGroupRequest v1 empty member id", 1, &codec.LeaveGroupRequest{GroupId: "g"}, `
		00 01 67  # GroupId "g"
		00 00     # MemberId ""`},
	{"LeaveGroupRequest v2", 2, &codec.LeaveGroupRequest{GroupId: "gr", MemberId: "m1"}, `
		00 02 67 72  # GroupId "gr"
		00 02 6d 31  # MemberId "m1"`},
	{"LeaveGroupRequest v3 batch", 3, &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{
		{MemberId: "m", GroupInstanceId: codec.Str("i")},
		{MemberId: "", GroupInstanceId: codec.Null}}}, `
		00 01 67     # GroupId "g"
		00 00 00 02  # Members: int32 count 2
		00 01 6d     #   MemberId "m"
		00 01 69     #   GroupInstanceId "i"
		00 00        #   MemberId ""
		ff ff        #   GroupInstanceId null (int16 -1)`},
	{"LeaveGroupRequest v3 no members", 3, &codec.LeaveGroupRequest{GroupId: "g"}, `
		00 01 67     # GroupId "g"
		00 00 00 00  # Members: empty (decodes to nil)`},
	{"LeaveGroupRequest v4 flexible", 4, &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{
		{MemberId: "m"}}}, `
		02 67  # GroupId: compact "g"
		02     # Members: 1
		02 6d  #   MemberId "m"
		00     #   GroupInstanceId null (compact 0)
		00     #   member tags
		00     # tags`},
	{"LeaveGroupRequest v5 reasons and member tags", 5, &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{
		{MemberId: "m", GroupInstanceId: codec.Str("i"), Reason: codec.Str("by")},
		{MemberId: "", GroupInstanceId: codec.Str("i"), Reason: codec.Null,
			UnknownTags: codec.TaggedFields{{Tag: 7, Data: []byte{0xff}}}}}}, `
		02 67     # GroupId "g"
		03        # Members: 2
		02 6d     #   MemberId "m"
		02 69     #   GroupInstanceId "i"
		03 62 79  #   Reason "by" (v5+)
		00        #   member tags
		01        #   MemberId ""
		02 69     #   GroupInstanceId "i"
		00        #   Reason null
		01 07 01 ff  # member tags: 1 field, tag 7, size 1, ff
		00        # tags`},
	{"LeaveGroupResponse v0", 0, &codec.LeaveGroupResponse{ErrorCode: codec.UnknownMemberID}, `
		00 19  # ErrorCode 25 UNKNOWN_MEMBER_ID`},
	{"LeaveGroupResponse v1", 1, &codec.LeaveGroupResponse{ThrottleTimeMs: 100}, `
		00 00 00 64  # ThrottleTimeMs 100 (v1+, first field)
		00 00        # ErrorCode 0`},
	{"LeaveGroupResponse v2", 2, &codec.LeaveGroupResponse{ErrorCode: codec.FencedInstanceID}, `
		00 00 00 00  # ThrottleTimeMs 0
		00 52        # ErrorCode 82 FENCED_INSTANCE_ID`},
	{"LeaveGroupResponse v3", 3, &codec.LeaveGroupResponse{Members: []codec.LeaveGroupMemberResponse{
		{MemberId: "m", GroupInstanceId: codec.Str("i"), ErrorCode: codec.FencedInstanceID}}}, `
		00 00 00 00  # ThrottleTimeMs 0
		00 00        # ErrorCode 0
		00 00 00 01  # Members: 1
		00 01 6d     #   MemberId "m"
		00 01 69     #   GroupInstanceId "i"
		00 52        #   ErrorCode 82`},
	{"LeaveGroupResponse v4", 4, &codec.LeaveGroupResponse{ThrottleTimeMs: 5, Members: []codec.LeaveGroupMemberResponse{
		{MemberId: "m", ErrorCode: codec.UnknownMemberID}}}, `
		00 00 00 05  # ThrottleTimeMs 5
		00 00        # ErrorCode 0
		02           # Members: 1
		02 6d        #   MemberId "m"
		00           #   GroupInstanceId null
		00 19        #   ErrorCode 25
		00           #   member tags
		00           # tags`},
	{"LeaveGroupResponse v5 group error", 5, &codec.LeaveGroupResponse{ErrorCode: codec.NotCoordinator}, `
		00 00 00 00  # ThrottleTimeMs 0
		00 10        # ErrorCode 16 NOT_COORDINATOR
		01           # Members: empty
		00           # tags`},

	// ---------------------------------------------------------------- ConsumerGroupHeartbeat (68)
	{"ConsumerGroupHeartbeatRequest v0 join with empty member id", 0, &codec.ConsumerGroupHeartbeatRequest{
		GroupId: "g", MemberEpoch: 0, RackId: codec.Str("r"), RebalanceTimeoutMs: 60000,
		SubscribedTopicNames: []string{"a", "b"},
		TopicPartitions:      []codec.ConsumerGroupHeartbeatTopicPartitions{}}, `
		02 67        # GroupId "g"
		01           # MemberId "" (allowed at v0)
		00 00 00 00  # MemberEpoch 0 (join)
		00           # InstanceId null
		02 72        # RackId "r"
		00 00 ea 60  # RebalanceTimeoutMs 60000
		03 02 61 02 62  # SubscribedTopicNames: 2 entries, "a", "b"
		             # (no SubscribedTopicRegex at v0)
		00           # ServerAssignor null
		01           # TopicPartitions: empty, not null
		00           # tags`},
	{"ConsumerGroupHeartbeatRequest v1 heartbeat with regex and owned partitions", 1, &codec.ConsumerGroupHeartbeatRequest{
		GroupId: "g", MemberId: "m", MemberEpoch: 5, InstanceId: codec.Str("i"), RebalanceTimeoutMs: -1,
		SubscribedTopicRegex: codec.Str("a.*"),
		TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{
			{TopicId: u00, Partitions: []int32{0, 2}}}}, `
		02 67        # GroupId "g"
		02 6d        # MemberId "m"
		00 00 00 05  # MemberEpoch 5
		02 69        # InstanceId "i"
		00           # RackId null
		ff ff ff ff  # RebalanceTimeoutMs -1 (unchanged)
		00           # SubscribedTopicNames null (unchanged)
		04 61 2e 2a  # SubscribedTopicRegex "a.*" (v1+)
		00           # ServerAssignor null
		02           # TopicPartitions: 1
		00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  # TopicId
		03 00 00 00 00 00 00 00 02  # Partitions [0, 2]
		00           #   entry tags
		00           # tags`},
	{"ConsumerGroupHeartbeatRequest v1 nulls, empty names and unknown tags", 1, &codec.ConsumerGroupHeartbeatRequest{
		GroupId: "g", MemberId: "m", MemberEpoch: -1, RebalanceTimeoutMs: -1,
		SubscribedTopicNames: []string{}, ServerAssignor: codec.Str("u"),
		UnknownTags: codec.TaggedFields{{Tag: 0, Data: []byte{0xaa}}, {Tag: 10, Data: []byte{}}}}, `
		02 67        # GroupId "g"
		02 6d        # MemberId "m"
		ff ff ff ff  # MemberEpoch -1 (leave)
		00           # InstanceId null
		00           # RackId null
		ff ff ff ff  # RebalanceTimeoutMs -1
		01           # SubscribedTopicNames: empty, not null
		00           # SubscribedTopicRegex null
		02 75        # ServerAssignor "u"
		00           # TopicPartitions null
		02 00 01 aa 0a 00  # tags: 2 fields: tag 0 size 1 aa; tag 10 size 0`},
	{"ConsumerGroupHeartbeatResponse v0 with assignment", 0, &codec.ConsumerGroupHeartbeatResponse{
		MemberId: codec.Str("m"), MemberEpoch: 1, HeartbeatIntervalMs: 5000,
		Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{
			{TopicId: u10, Partitions: []int32{3}}}}}, `
		00 00 00 00  # ThrottleTimeMs 0
		00 00        # ErrorCode 0
		00           # ErrorMessage null
		02 6d        # MemberId "m"
		00 00 00 01  # MemberEpoch 1
		00 00 13 88  # HeartbeatIntervalMs 5000
		01           # Assignment present (int8 marker >= 0)
		02           #   TopicPartitions: 1
		10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f  # TopicId
		02 00 00 00 03  # Partitions [3]
		00           #   entry tags
		00           #   Assignment tags
		00           # tags`},
	{"ConsumerGroupHeartbeatResponse v1 error without assignment", 1, &codec.ConsumerGroupHeartbeatResponse{
		ErrorCode: codec.InvalidRequest, ErrorMessage: codec.Str("bad")}, `
		00 00 00 00  # ThrottleTimeMs 0
		00 2a        # ErrorCode 42 INVALID_REQUEST
		04 62 61 64  # ErrorMessage "bad"
		00           # MemberId null
		00 00 00 00  # MemberEpoch 0
		00 00 00 00  # HeartbeatIntervalMs 0
		ff           # Assignment null (int8 -1)
		00           # tags`},
	{"ConsumerGroupHeartbeatResponse v1 empty assignment", 1, &codec.ConsumerGroupHeartbeatResponse{
		ThrottleTimeMs: 2, MemberId: codec.Str(""), MemberEpoch: 3,
		Assignment: &codec.ConsumerGroupHeartbeatAssignment{}}, `
		00 00 00 02  # ThrottleTimeMs 2
		00 00        # ErrorCode 0
		00           # ErrorMessage null
		01           # MemberId "" (empty, not null)
		00 00 00 03  # MemberEpoch 3
		00 00 00 00  # HeartbeatIntervalMs 0
		01           # Assignment present
		01           #   TopicPartitions: empty (non-nullable, decodes to nil)
		00           #   Assignment tags
		00           # tags`},

	// ---------------------------------------------------------------- ConsumerGroupDescribe (69)
	{"ConsumerGroupDescribeRequest v0", 0, &codec.ConsumerGroupDescribeRequest{
		GroupIds: []string{"g", "g2"}, IncludeAuthorizedOperations: true}, `
		03 02 67 03 67 32  # GroupIds: 2 entries, "g", "g2"
		01                 # IncludeAuthorizedOperations true
		00                 # tags`},
	{"ConsumerGroupDescribeRequest v1 no groups", 1, &codec.ConsumerGroupDescribeRequest{}, `
		01  # GroupIds: empty
		00  # IncludeAuthorizedOperations false
		00  # tags`},
	{"ConsumerGroupDescribeResponse v0", 0, &codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{{
		GroupId: "g", GroupState: "Empty", GroupEpoch: 3, AssignmentEpoch: 3, AssignorName: "uniform",
		AuthorizedOperations: codec.AuthorizedOperationsOmitted,
		Members: []codec.DescribedMember{{
			MemberId: "m", MemberEpoch: 3, ClientId: "c", ClientHost: "/h",
			SubscribedTopicNames: []string{"t"},
			Assignment: codec.DescribedAssignment{TopicPartitions: []codec.DescribedTopicPartitions{
				{TopicId: u00, TopicName: "t", Partitions: []int32{0}}}},
			MemberType: codec.MemberTypeUnknown, // not on the wire at v0; decodes to the default
		}}}}}, `
		00 00 00 00        # ThrottleTimeMs 0
		02                 # Groups: 1
		00 00              #   ErrorCode 0
		00                 #   ErrorMessage null
		02 67              #   GroupId "g"
		06 45 6d 70 74 79  #   GroupState "Empty"
		00 00 00 03        #   GroupEpoch 3
		00 00 00 03        #   AssignmentEpoch 3
		08 75 6e 69 66 6f 72 6d  # AssignorName "uniform"
		02                 #   Members: 1
		02 6d              #     MemberId "m"
		00                 #     InstanceId null
		00                 #     RackId null
		00 00 00 03        #     MemberEpoch 3
		02 63              #     ClientId "c"
		03 2f 68           #     ClientHost "/h"
		02 02 74           #     SubscribedTopicNames ["t"]
		00                 #     SubscribedTopicRegex null
		02                 #     Assignment.TopicPartitions: 1
		00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  # TopicId
		02 74              #       TopicName "t"
		02 00 00 00 00     #       Partitions [0]
		00                 #       entry tags
		00                 #     Assignment tags
		01 00              #     TargetAssignment: no topics, no tags
		                   #     (no MemberType at v0)
		00                 #     member tags
		80 00 00 00        #   AuthorizedOperations INT32_MIN (not requested)
		00                 #   group tags
		00                 # tags`},
	{"ConsumerGroupDescribeResponse v1 group not found", 1, &codec.ConsumerGroupDescribeResponse{
		ThrottleTimeMs: 10, Groups: []codec.DescribedGroup{{
			ErrorCode: codec.GroupIDNotFound, ErrorMessage: codec.Str("no"), GroupId: "x",
			AuthorizedOperations: codec.AuthorizedOperationsOmitted}}}, `
		00 00 00 0a  # ThrottleTimeMs 10
		02           # Groups: 1
		00 45        #   ErrorCode 69 GROUP_ID_NOT_FOUND
		03 6e 6f     #   ErrorMessage "no"
		02 78        #   GroupId "x"
		01           #   GroupState ""
		00 00 00 00  #   GroupEpoch 0
		00 00 00 00  #   AssignmentEpoch 0
		01           #   AssignorName ""
		01           #   Members: empty
		80 00 00 00  #   AuthorizedOperations INT32_MIN
		00           #   group tags
		00           # tags`},
	{"ConsumerGroupDescribeResponse v1 parked static member", 1, &codec.ConsumerGroupDescribeResponse{
		Groups: []codec.DescribedGroup{{
			GroupId: "g", GroupState: "", AssignorName: "", AuthorizedOperations: 0,
			Members: []codec.DescribedMember{{
				MemberId: "m", InstanceId: codec.Str("i"), RackId: codec.Str("r"), MemberEpoch: -2,
				ClientId: "c", ClientHost: "h", SubscribedTopicRegex: codec.Str("t.*"),
				MemberType: codec.MemberTypeConsumer}}}}}, `
		00 00 00 00  # ThrottleTimeMs 0
		02           # Groups: 1
		00 00 00     #   ErrorCode 0, ErrorMessage null
		02 67 01     #   GroupId "g", GroupState ""
		00 00 00 00 00 00 00 00  # GroupEpoch 0, AssignmentEpoch 0
		01           #   AssignorName ""
		02           #   Members: 1
		02 6d        #     MemberId "m"
		02 69        #     InstanceId "i"
		02 72        #     RackId "r"
		ff ff ff fe  #     MemberEpoch -2 (parked static member)
		02 63 02 68  #     ClientId "c", ClientHost "h"
		01           #     SubscribedTopicNames: empty (decodes to nil)
		04 74 2e 2a  #     SubscribedTopicRegex "t.*"
		01 00        #     Assignment: empty
		01 00        #     TargetAssignment: empty
		01           #     MemberType 1 consumer (v1+)
		00           #     member tags
		00 00 00 00  #   AuthorizedOperations 0
		00           #   group tags
		00           # tags`},

	// ---------------------------------------------------------------- GetTelemetrySubscriptions (71)
	{"GetTelemetrySubscriptionsRequest v0 zero id", 0, &codec.GetTelemetrySubscriptionsRequest{}, `
		00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  # ClientInstanceId zero (first call)
		00  # tags`},
	{"GetTelemetrySubscriptionsRequest v0 with id", 0, &codec.GetTelemetrySubscriptionsRequest{ClientInstanceId: u10}, `
		10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f  # ClientInstanceId
		00  # tags`},
	{"GetTelemetrySubscriptionsRequest v1 no id in body", 1, &codec.GetTelemetrySubscriptionsRequest{}, `
		00  # tags only: ClientInstanceId moved to the request header (A2)`},
	{"GetTelemetrySubscriptionsRequest v1 unknown tag", 1, &codec.GetTelemetrySubscriptionsRequest{
		UnknownTags: codec.TaggedFields{{Tag: 0, Data: []byte{1, 2}}}}, `
		01 00 02 01 02  # 1 tag: tag 0 (unknown in this body), size 2, 01 02`},
	{"GetTelemetrySubscriptionsResponse v0", 0, &codec.GetTelemetrySubscriptionsResponse{
		ClientInstanceId: u00, SubscriptionId: 7, AcceptedCompressionTypes: []int8{0, 4},
		PushIntervalMs: 60000, TelemetryMaxBytes: 1 << 20, DeltaTemporality: true,
		RequestedMetrics: []string{""}}, `
		00 00 00 00  # ThrottleTimeMs 0
		00 00        # ErrorCode 0
		00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  # ClientInstanceId (v0 only)
		00 00 00 07  # SubscriptionId 7
		03 00 04     # AcceptedCompressionTypes [0 none, 4 zstd]
		00 00 ea 60  # PushIntervalMs 60000
		00 10 00 00  # TelemetryMaxBytes 1 MiB
		01           # DeltaTemporality true
		02 01        # RequestedMetrics [""] = all metrics
		00           # tags`},
	{"GetTelemetrySubscriptionsResponse v1 throttled", 1, &codec.GetTelemetrySubscriptionsResponse{
		ErrorCode: codec.ThrottlingQuotaExceeded}, `
		00 00 00 00  # ThrottleTimeMs 0
		00 59        # ErrorCode 89 THROTTLING_QUOTA_EXCEEDED
		             # (no ClientInstanceId at v1)
		00 00 00 00  # SubscriptionId 0
		01           # AcceptedCompressionTypes: empty
		00 00 00 00  # PushIntervalMs 0
		00 00 00 00  # TelemetryMaxBytes 0
		00           # DeltaTemporality false
		01           # RequestedMetrics: empty = none
		00           # tags`},

	// ---------------------------------------------------------------- PushTelemetry (72)
	{"PushTelemetryRequest v0", 0, &codec.PushTelemetryRequest{
		ClientInstanceId: u10, SubscriptionId: 7, Metrics: []byte{1, 2, 3}}, `
		10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f  # ClientInstanceId (v0 only)
		00 00 00 07  # SubscriptionId 7
		00           # Terminating false
		00           # CompressionType 0
		04 01 02 03  # Metrics: compact bytes, 3 bytes
		00           # tags`},
	{"PushTelemetryRequest v1 terminating", 1, &codec.PushTelemetryRequest{
		SubscriptionId: -1, Terminating: true, CompressionType: 4}, `
		ff ff ff ff  # SubscriptionId -1
		01           # Terminating true
		04           # CompressionType 4 zstd
		01           # Metrics: empty (decodes to nil)
		00           # tags`},
	{"PushTelemetryResponse v0", 0, &codec.PushTelemetryResponse{ErrorCode: codec.TelemetryTooLarge}, `
		00 00 00 00  # ThrottleTimeMs 0
		00 76        # ErrorCode 118 TELEMETRY_TOO_LARGE
		00           # tags`},
	{"PushTelemetryResponse v1", 1, &codec.PushTelemetryResponse{ThrottleTimeMs: 1}, `
		00 00 00 01  # ThrottleTimeMs 1
		00 00        # ErrorCode 0
		00           # tags`},
}

func TestGoldenBodies(t *testing.T) {
	for _, tc := range goldenBodies {
		t.Run(tc.name, func(t *testing.T) {
			b := wire(t, tc.wire)
			for _, opts := range []codec.DecodeOptions{{Strict: true}, {}, {NoCopy: true}, {OneCopy: true}} {
				got := fresh(tc.msg)
				if err := codec.DecodeBody(got, b, tc.version, opts); err != nil {
					t.Fatalf("decode %+v: %v", opts, err)
				}
				if !reflect.DeepEqual(got, tc.msg) {
					t.Fatalf("decode %+v:\n got %#v\nwant %#v", opts, got, tc.msg)
				}
			}
			// The concrete Decode method agrees with DecodeBody.
			d := fresh(tc.msg)
			if err := d.(decoder).Decode(b, tc.version, codec.DecodeOptions{Strict: true}); err != nil || !reflect.DeepEqual(d, tc.msg) {
				t.Fatalf("Decode: %v\n got %#v", err, d)
			}
			enc, err := tc.msg.AppendTo(nil, tc.version)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if !bytes.Equal(enc, b) {
				t.Fatalf("encode:\n got % x\nwant % x", enc, b)
			}
			// Appending keeps what dst held.
			prefix := []byte{0xde, 0xad}
			enc, err = tc.msg.AppendTo(prefix, tc.version)
			if err != nil || !bytes.Equal(enc[:2], prefix) || !bytes.Equal(enc[2:], b) {
				t.Fatalf("encode after a prefix: % x, %v", enc, err)
			}
		})
	}
}

// Every (api, version) in scope has at least one request and one response
// vector above, so the table cannot silently miss a version.
func TestGoldenCoversEveryVersion(t *testing.T) {
	type kv struct {
		key      codec.APIKey
		version  int16
		response bool
	}
	seen := map[kv]bool{}
	for _, tc := range goldenBodies {
		seen[kv{tc.msg.Key(), tc.version, tc.msg.IsResponse()}] = true
	}
	for _, a := range codec.AllAPIs() {
		for v := a.MinVersion; v <= a.MaxVersion; v++ {
			for _, resp := range []bool{false, true} {
				if !seen[kv{a.Key, v, resp}] {
					t.Errorf("no golden vector for %s v%d", a.MessageName(resp), v)
				}
			}
		}
	}
}

// goldenRequestHeaders are request headers, decoded with ParseRequestHeader
// (which picks the header version from the api key and version it reads)
// and encoded with AppendTo at the version HeaderVersion reports. docs/PROTOCOL.md
// §B1.2 and Part A2: ClientId is int16-prefixed in every version; v2 ends
// with a tag section whose tag 0 is the ClientInstanceId uuid.
var goldenRequestHeaders = []struct {
	name          string
	headerVersion int16
	h             codec.RequestHeader
	wire          string
}{
	{"v1 LeaveGroup v3", 1, codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 3,
		CorrelationId: 7, ClientId: codec.Str("gc")}, `
		00 0d        # RequestApiKey 13
		00 03        # RequestApiVersion 3 (not flexible: header v1)
		00 00 00 07  # CorrelationId 7
		00 02 67 63  # ClientId "gc"`},
	{"v1 ApiVersions v2 null client id", 1, codec.RequestHeader{RequestApiKey: codec.ApiVersions, RequestApiVersion: 2,
		CorrelationId: -1, ClientId: codec.Null}, `
		00 12        # RequestApiKey 18
		00 02        # RequestApiVersion 2
		ff ff ff ff  # CorrelationId -1
		ff ff        # ClientId null`},
	{"v2 no tags", 2, codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1,
		CorrelationId: 1, ClientId: codec.Str("c")}, `
		00 44        # RequestApiKey 68
		00 01        # RequestApiVersion 1 (flexible: header v2)
		00 00 00 01  # CorrelationId 1
		00 01 63     # ClientId "c": int16 length even in v2
		00           # tags: none`},
	{"v2 empty client id", 2, codec.RequestHeader{RequestApiKey: codec.ApiVersions, RequestApiVersion: 3,
		CorrelationId: 0, ClientId: codec.Str("")}, `
		00 12 00 03 00 00 00 00  # ApiVersions v3 (flexible: header v2), CorrelationId 0
		00 00        # ClientId "" (empty, not null)
		00           # tags`},
	{"v2 null client id with ClientInstanceId", 2, codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 5,
		CorrelationId: 2, ClientId: codec.Null, ClientInstanceId: codec.SomeUUID(u10)}, `
		00 0d 00 05  # LeaveGroup v5
		00 00 00 02  # CorrelationId 2
		ff ff        # ClientId null (later requests of a connection, A2)
		01           # one tagged field
		00 10        # tag 0 ClientInstanceId, size 16
		10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f`},
	{"v2 zero ClientInstanceId is present, not absent", 2, codec.RequestHeader{RequestApiKey: codec.PushTelemetry, RequestApiVersion: 1,
		CorrelationId: 3, ClientId: codec.Str("c"), ClientInstanceId: codec.SomeUUID(codec.UUID{})}, `
		00 48 00 01 00 00 00 03  # PushTelemetry v1, CorrelationId 3
		00 01 63     # ClientId "c"
		01 00 10     # 1 tag: tag 0, size 16
		00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  # the zero uuid`},
	{"v2 ClientInstanceId and unknown tags", 2, codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 0,
		CorrelationId: 4, ClientId: codec.Str("c"), ClientInstanceId: codec.SomeUUID(u00),
		UnknownTags: codec.TaggedFields{{Tag: 1, Data: []byte{0xff}}, {Tag: 5, Data: []byte{}}}}, `
		00 45 00 00 00 00 00 04  # ConsumerGroupDescribe v0, CorrelationId 4
		00 01 63     # ClientId "c"
		03           # three tagged fields
		00 10 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  # tag 0, size 16, uuid
		01 01 ff     # tag 1 (unknown), size 1
		05 00        # tag 5 (unknown), size 0`},
	{"v2 only an unknown tag", 2, codec.RequestHeader{RequestApiKey: codec.GetTelemetrySubscriptions, RequestApiVersion: 1,
		CorrelationId: 5, ClientId: codec.Str("c"),
		UnknownTags: codec.TaggedFields{{Tag: 2, Data: []byte{0xab, 0xcd}}}}, `
		00 47 00 01 00 00 00 05  # GetTelemetrySubscriptions v1, CorrelationId 5
		00 01 63     # ClientId "c"
		01 02 02 ab cd  # 1 tag: tag 2, size 2`},
}

func TestGoldenRequestHeaders(t *testing.T) {
	for _, tc := range goldenRequestHeaders {
		t.Run(tc.name, func(t *testing.T) {
			b := wire(t, tc.wire)
			hv, err := tc.h.HeaderVersion()
			if err != nil || hv != tc.headerVersion {
				t.Fatalf("HeaderVersion = %d, %v; want %d", hv, err, tc.headerVersion)
			}
			for _, opts := range []codec.DecodeOptions{{Strict: true}, {NoCopy: true}, {OneCopy: true}} {
				var got codec.RequestHeader
				off, err := codec.ParseRequestHeader(b, &got, opts)
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if off != len(b) {
					t.Fatalf("body offset %d, want %d", off, len(b))
				}
				if !reflect.DeepEqual(got, tc.h) {
					t.Fatalf("decode:\n got %#v\nwant %#v", got, tc.h)
				}
			}
			enc, err := tc.h.AppendTo(nil, tc.headerVersion)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if !bytes.Equal(enc, b) {
				t.Fatalf("encode:\n got % x\nwant % x", enc, b)
			}
		})
	}
}

// Response headers: v0 is the correlation id; v1 adds a tag section
// (§B1.3). ApiVersions answers always use v0, even when flexible (§B1.4).
func TestGoldenResponseHeaders(t *testing.T) {
	cases := []struct {
		name          string
		key           codec.APIKey
		version       int16
		headerVersion int16
		h             codec.ResponseHeader
		wire          string
	}{
		{"v0 LeaveGroup v3", codec.LeaveGroup, 3, 0, codec.ResponseHeader{CorrelationId: 7}, `
			00 00 00 07  # CorrelationId 7`},
		{"v0 ApiVersions v3 (flexible, still v0)", codec.ApiVersions, 3, 0, codec.ResponseHeader{CorrelationId: 1}, `
			00 00 00 01  # CorrelationId 1, no tag section`},
		{"v1 LeaveGroup v4", codec.LeaveGroup, 4, 1, codec.ResponseHeader{CorrelationId: -2}, `
			ff ff ff fe  # CorrelationId -2
			00           # tags`},
		{"v1 with an unknown tag", codec.ConsumerGroupHeartbeat, 1, 1, codec.ResponseHeader{CorrelationId: 9,
			UnknownTags: codec.TaggedFields{{Tag: 0, Data: []byte{0xee}}}}, `
			00 00 00 09  # CorrelationId 9
			01 00 01 ee  # 1 tag: tag 0, size 1`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := wire(t, tc.wire)
			hv, err := codec.ResponseHeaderVersion(tc.key, tc.version)
			if err != nil || hv != tc.headerVersion {
				t.Fatalf("ResponseHeaderVersion = %d, %v; want %d", hv, err, tc.headerVersion)
			}
			r := codec.NewReader(b, "ResponseHeader", hv, hv >= 1, codec.DecodeOptions{Strict: true})
			var got codec.ResponseHeader
			got.ReadFrom(&r, hv)
			if err := r.Finish(); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(got, tc.h) {
				t.Fatalf("decode:\n got %#v\nwant %#v", got, tc.h)
			}
			enc, err := tc.h.AppendTo(nil, hv)
			if err != nil || !bytes.Equal(enc, b) {
				t.Fatalf("encode: % x, %v; want % x", enc, err, b)
			}
		})
	}
}

// Whole frames: size prefix, header, body. The size counts the bytes after
// the prefix (§B1.1).
func TestGoldenFrames(t *testing.T) {
	reqFrame := wire(t, `
		00 00 00 12  # size 18
		00 0d 00 00  # LeaveGroup v0 -> header v1
		00 00 00 2a  # CorrelationId 42
		00 01 63     # ClientId "c"
		00 01 67     # GroupId "g"
		00 02 6d 31  # MemberId "m1"`)
	h := codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 0, CorrelationId: 42, ClientId: codec.Str("c")}
	body := &codec.LeaveGroupRequest{GroupId: "g", MemberId: "m1"}
	enc, err := codec.AppendRequest(nil, &h, body)
	if err != nil || !bytes.Equal(enc, reqFrame) {
		t.Fatalf("AppendRequest: % x, %v\nwant % x", enc, err, reqFrame)
	}
	frame, rest, err := codec.SplitFrame(reqFrame, 100)
	if err != nil || len(rest) != 0 {
		t.Fatalf("SplitFrame: %v, %d left", err, len(rest))
	}
	gh, gb, err := codec.DecodeRequest(frame, codec.DecodeOptions{Strict: true})
	if err != nil || !reflect.DeepEqual(gh, h) || !reflect.DeepEqual(gb, codec.Message(body)) {
		t.Fatalf("DecodeRequest: %#v %#v %v", gh, gb, err)
	}

	respFrame := wire(t, `
		00 00 00 0f  # size 15
		00 00 00 2a  # CorrelationId 42 (ApiVersions: header v0 even at v3)
		00 00        # ErrorCode 0
		01           # ApiKeys: empty
		00 00 00 00  # ThrottleTimeMs 0
		01 03 01 01  # 1 tag: ZkMigrationReady true`)
	resp := &codec.ApiVersionsResponse{FinalizedFeaturesEpoch: -1, ZkMigrationReady: true}
	enc, err = codec.AppendResponse(nil, 42, 3, resp)
	if err != nil || !bytes.Equal(enc, respFrame) {
		t.Fatalf("AppendResponse: % x, %v\nwant % x", enc, err, respFrame)
	}
	rh, rb, err := codec.DecodeResponse(respFrame[4:], codec.ApiVersions, 3, codec.DecodeOptions{Strict: true})
	if err != nil || rh.CorrelationId != 42 || !reflect.DeepEqual(rb, codec.Message(resp)) {
		t.Fatalf("DecodeResponse: %#v %#v %v", rh, rb, err)
	}
}

// Decode-only edge cases: inputs a canonical writer never produces but a
// reader must accept as Kafka's does (§B2).
func TestDecodeEdgeCases(t *testing.T) {
	cases := []struct {
		name    string
		version int16
		want    codec.Message
		wire    string
	}{
		{"nullable struct marker: any negative int8 is null", 1,
			&codec.ConsumerGroupHeartbeatResponse{}, `
			00 00 00 00 00 00  # ThrottleTimeMs 0, ErrorCode 0
			00 00              # ErrorMessage null, MemberId null
			00 00 00 00 00 00 00 00  # MemberEpoch 0, HeartbeatIntervalMs 0
			80  # Assignment marker -128: null
			00  # tags`},
		{"nullable struct marker: any non-negative int8 is present", 1,
			&codec.ConsumerGroupHeartbeatResponse{Assignment: &codec.ConsumerGroupHeartbeatAssignment{}}, `
			00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  # as above
			7f     # Assignment marker 127: present
			01 00  # empty TopicPartitions, no tags
			00`},
		{"bool: any non-zero byte is true", 0,
			&codec.ConsumerGroupDescribeRequest{IncludeAuthorizedOperations: true}, `
			01  # GroupIds empty
			fe  # IncludeAuthorizedOperations: 0xfe reads as true
			00`},
		{"non-minimal uvarint is accepted", 0,
			&codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}, `
			82 80 80 80 00  # GroupIds count: uvarint 2 in five bytes
			82 00 67        # "g": length uvarint 2 in two bytes
			00 00`},
		{"fifth varint byte: bits above 32 are dropped", 0,
			&codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}, `
			82 80 80 80 70  # 2 | 0x70<<28: the high bits overflow away, as in Kafka's reader
			02 67 00 00`},
		{"compact length that wraps negative reads as null", 0,
			&codec.ConsumerGroupHeartbeatResponse{ErrorMessage: codec.Null}, `
			00 00 00 00 00 00
			ff ff ff ff 0f  # ErrorMessage length uvarint 0xffffffff: int32 -1, minus 1 = -2 -> null
			00 00 00 00 00 00 00 00 00
			ff 00`},
		{"lenient: tags out of order and repeated are kept as read", 1,
			&codec.GetTelemetrySubscriptionsRequest{UnknownTags: codec.TaggedFields{
				{Tag: 5, Data: []byte{}}, {Tag: 1, Data: []byte{0xaa}}, {Tag: 1, Data: []byte{}}}}, `
			03 05 00 01 01 aa 01 00`},
		{"lenient: trailing bytes are ignored", 0,
			&codec.LeaveGroupResponse{ErrorCode: 1}, `
			00 01  # ErrorCode 1
			ff ff  # trailing`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := fresh(tc.want)
			if err := codec.DecodeBody(got, wire(t, tc.wire), tc.version, codec.DecodeOptions{}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("\n got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// The smallest member of a ConsumerGroupDescribe v0 response is 16 bytes
// (v1 adds the 1-byte MemberType). A decoder that assumes 17 before
// allocating rejects a valid v0 response whose last group has seven or more
// minimal members; this vector has eight.
func TestDescribeV0ManyMinimalMembers(t *testing.T) {
	const member = `
		01 00 00      # MemberId "", InstanceId null, RackId null
		00 00 00 00   # MemberEpoch 0
		01 01         # ClientId "", ClientHost ""
		01 00         # SubscribedTopicNames empty, SubscribedTopicRegex null
		01 00 01 00   # Assignment, TargetAssignment: empty, no tags
		00            # member tags: 16 bytes in all`
	listing := `
		00 00 00 00   # ThrottleTimeMs
		02            # Groups: 1
		00 00 00 01 01 00 00 00 00 00 00 00 00 01  # ErrorCode .. AssignorName
		09            # Members: 8` + strings.Repeat(member, 8) + `
		00 00 00 00   # AuthorizedOperations
		00 00         # group tags, tags`
	want := &codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{{
		Members: make([]codec.DescribedMember, 8)}}}
	for i := range want.Groups[0].Members {
		want.Groups[0].Members[i].MemberType = codec.MemberTypeUnknown
	}
	b := wire(t, listing)
	got := new(codec.ConsumerGroupDescribeResponse)
	if err := codec.DecodeBody(got, b, 0, codec.DecodeOptions{Strict: true}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("\n got %#v\nwant %#v", got, want)
	}
	if enc, err := want.AppendTo(nil, 0); err != nil || !bytes.Equal(enc, b) {
		t.Fatalf("encode: % x, %v", enc, err)
	}
}
