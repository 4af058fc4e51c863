package codec_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Golden vectors of the classic group protocol's apis, written from Apache
// Kafka's JoinGroupRequest/Response.json, HeartbeatRequest/Response.json,
// SyncGroupRequest/Response.json and DescribeGroupsRequest/Response.json
// (field order, the versions of each field, nullability, flexible
// versions), never produced by this codec. Each api has a vector at every
// version, and each field at the first and last version of its range and
// on both sides of the flexible switch. They join goldenChecked in
// goldenBodies.

var goldenClassic = []golden{
	// ---------------------------------------------------------------- JoinGroup (11)
	{"JoinGroupRequest v0 first join", 0, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000,
		RebalanceTimeoutMs: -1, ProtocolType: "consumer",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{1, 2}}}}, `
		00 01 67                       # GroupId "g"
		00 00 27 10                    # SessionTimeoutMs 10000
		                               # no RebalanceTimeoutMs at v0: reads as -1
		00 00                          # MemberId ""
		00 08 63 6f 6e 73 75 6d 65 72  # ProtocolType "consumer"
		00 00 00 01                    # Protocols: int32 count 1
		00 05 72 61 6e 67 65           #   Name "range"
		00 00 00 02 01 02              #   Metadata: int32 length 2`},
	{"JoinGroupRequest v1 rebalance timeout", 1, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000,
		RebalanceTimeoutMs: 300000, MemberId: "m", ProtocolType: "c",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "a"}, {Name: "b", Metadata: []byte{0xff}}}}, `
		00 01 67     # GroupId "g"
		00 00 27 10  # SessionTimeoutMs 10000
		00 04 93 e0  # RebalanceTimeoutMs 300000 (v1+)
		00 01 6d     # MemberId "m"
		00 01 63     # ProtocolType "c"
		00 00 00 02  # Protocols: 2
		00 01 61     #   Name "a"
		00 00 00 00  #   Metadata: empty (decodes to nil)
		00 01 62     #   Name "b"
		00 00 00 01 ff  # Metadata: 1 byte`},
	{"JoinGroupRequest v2 no protocols", 2, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 1,
		RebalanceTimeoutMs: 2, ProtocolType: "c"}, `
		00 01 67  00 00 00 01  00 00 00 02  # GroupId "g", SessionTimeoutMs 1, RebalanceTimeoutMs 2
		00 00  00 01 63                     # MemberId "", ProtocolType "c"
		00 00 00 00                         # Protocols: empty (decodes to nil)`},
	{"JoinGroupRequest v3 negative rebalance timeout", 3, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 45000,
		RebalanceTimeoutMs: -1, MemberId: "m", ProtocolType: "c",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "p", Metadata: []byte{0}}}}, `
		00 01 67     # GroupId "g"
		00 00 af c8  # SessionTimeoutMs 45000
		ff ff ff ff  # RebalanceTimeoutMs -1, sent as such
		00 01 6d  00 01 63             # MemberId "m", ProtocolType "c"
		00 00 00 01  00 01 70  00 00 00 01 00  # Protocols: "p" with one zero byte`},
	{"JoinGroupRequest v4 rejoin with the id MEMBER_ID_REQUIRED gave", 4, &codec.JoinGroupRequest{GroupId: "g",
		SessionTimeoutMs: 10000, RebalanceTimeoutMs: 60000, MemberId: "c-1", ProtocolType: "c",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "p"}}}, `
		00 01 67  00 00 27 10  00 00 ea 60  # GroupId "g", SessionTimeoutMs 10000, RebalanceTimeoutMs 60000
		00 03 63 2d 31                      # MemberId "c-1"
		00 01 63                            # ProtocolType "c"
		00 00 00 01  00 01 70  00 00 00 00  # Protocols: "p", no metadata`},
	{"JoinGroupRequest v5 static member", 5, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000,
		RebalanceTimeoutMs: 60000, GroupInstanceId: codec.Str("i-1"), ProtocolType: "c",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "p", Metadata: []byte{7}}}}, `
		00 01 67  00 00 27 10  00 00 ea 60  # GroupId, SessionTimeoutMs, RebalanceTimeoutMs
		00 00                               # MemberId "" (a static member's first join)
		00 03 69 2d 31                      # GroupInstanceId "i-1" (v5+)
		00 01 63                            # ProtocolType "c"
		00 00 00 01  00 01 70  00 00 00 01 07  # Protocols: "p", metadata 07`},
	{"JoinGroupRequest v5 dynamic member", 5, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000,
		RebalanceTimeoutMs: 60000, MemberId: "m", ProtocolType: "c"}, `
		00 01 67  00 00 27 10  00 00 ea 60  # GroupId, SessionTimeoutMs, RebalanceTimeoutMs
		00 01 6d     # MemberId "m"
		ff ff        # GroupInstanceId null (int16 -1)
		00 01 63     # ProtocolType "c"
		00 00 00 00  # Protocols: empty`},
	{"JoinGroupRequest v6 flexible", 6, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000,
		RebalanceTimeoutMs: 60000, MemberId: "m", GroupInstanceId: codec.Str("i"), ProtocolType: "c",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "p", Metadata: []byte{1, 2, 3}}}}, `
		02 67        # GroupId: compact, uvarint(1+1)
		00 00 27 10  # SessionTimeoutMs 10000
		00 00 ea 60  # RebalanceTimeoutMs 60000
		02 6d        # MemberId "m"
		02 69        # GroupInstanceId "i"
		02 63        # ProtocolType "c"
		02           # Protocols: compact count 1
		02 70        #   Name "p"
		04 01 02 03  #   Metadata: compact bytes, uvarint(3+1)
		00           #   protocol tags
		00           # tags`},
	{"JoinGroupRequest v7 tags and null instance", 7, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000,
		RebalanceTimeoutMs: 60000, ProtocolType: "c",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "p",
			UnknownTags: codec.TaggedFields{{Tag: 3, Data: []byte{0xaa}}}}},
		UnknownTags: codec.TaggedFields{{Tag: 0, Data: []byte{}}}}, `
		02 67  00 00 27 10  00 00 ea 60  # GroupId, SessionTimeoutMs, RebalanceTimeoutMs
		01           # MemberId ""
		00           # GroupInstanceId null (compact 0)
		02 63        # ProtocolType "c"
		02  02 70  01  # Protocols: 1, Name "p", Metadata empty (decodes to nil)
		01 03 01 aa  #   protocol tags: 1 field, tag 3, size 1
		01 00 00     # tags: 1 field, tag 0, size 0`},
	{"JoinGroupRequest v8 reason", 8, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000,
		RebalanceTimeoutMs: 60000, MemberId: "m", ProtocolType: "c",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "p"}}, Reason: codec.Str("rejoin")}, `
		02 67  00 00 27 10  00 00 ea 60  # GroupId, SessionTimeoutMs, RebalanceTimeoutMs
		02 6d  00  02 63                 # MemberId "m", GroupInstanceId null, ProtocolType "c"
		02  02 70 01 00                  # Protocols: "p", no metadata, no tags
		07 72 65 6a 6f 69 6e             # Reason "rejoin" (v8+)
		00                               # tags`},
	{"JoinGroupRequest v8 null reason", 8, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000,
		RebalanceTimeoutMs: 60000, ProtocolType: "c"}, `
		02 67  00 00 27 10  00 00 ea 60  01  00  02 63  01  # ..., Protocols empty
		00   # Reason null
		00   # tags`},
	{"JoinGroupRequest v9", 9, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000,
		RebalanceTimeoutMs: 60000, MemberId: "m", GroupInstanceId: codec.Str("i"), ProtocolType: "c",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "a", Metadata: []byte{1}}, {Name: "b", Metadata: []byte{2}}},
		Reason:    codec.Str("")}, `
		02 67  00 00 27 10  00 00 ea 60  # GroupId, SessionTimeoutMs, RebalanceTimeoutMs
		02 6d  02 69  02 63              # MemberId "m", GroupInstanceId "i", ProtocolType "c"
		03                               # Protocols: 2
		02 61  02 01  00                 #   "a", metadata 01, no tags
		02 62  02 02  00                 #   "b", metadata 02, no tags
		01                               # Reason "" (empty, not null)
		00                               # tags`},
	{"JoinGroupResponse v0 leader", 0, &codec.JoinGroupResponse{GenerationId: 1, ProtocolName: codec.Str("range"),
		Leader: "m", MemberId: "m", Members: []codec.JoinGroupResponseMember{{MemberId: "m", Metadata: []byte{0x0a}}}}, `
		00 00                 # ErrorCode 0
		00 00 00 01           # GenerationId 1
		00 05 72 61 6e 67 65  # ProtocolName "range"
		00 01 6d              # Leader "m"
		00 01 6d              # MemberId "m"
		00 00 00 01           # Members: 1
		00 01 6d              #   MemberId "m"
		00 00 00 01 0a        #   Metadata: 1 byte`},
	{"JoinGroupResponse v1 unknown member", 1, &codec.JoinGroupResponse{ErrorCode: codec.UnknownMemberID,
		GenerationId: -1, ProtocolName: codec.Str("")}, `
		00 19        # ErrorCode 25 UNKNOWN_MEMBER_ID
		ff ff ff ff  # GenerationId -1
		00 00        # ProtocolName "" (not nullable below v7)
		00 00        # Leader ""
		00 00        # MemberId ""
		00 00 00 00  # Members: empty`},
	{"JoinGroupResponse v2 throttle time", 2, &codec.JoinGroupResponse{ThrottleTimeMs: 7, GenerationId: 3,
		ProtocolName: codec.Str("p"), Leader: "l", MemberId: "m"}, `
		00 00 00 07  # ThrottleTimeMs 7 (v2+, first)
		00 00        # ErrorCode 0
		00 00 00 03  # GenerationId 3
		00 01 70  00 01 6c  00 01 6d  # ProtocolName "p", Leader "l", MemberId "m"
		00 00 00 00  # Members: empty (a follower)`},
	{"JoinGroupResponse v3 rebalance in progress", 3, &codec.JoinGroupResponse{ErrorCode: codec.RebalanceInProgress,
		GenerationId: -1, ProtocolName: codec.Str("")}, `
		00 00 00 00  00 1b  ff ff ff ff  # ThrottleTimeMs 0, ErrorCode 27, GenerationId -1
		00 00  00 00  00 00  00 00 00 00  # ProtocolName, Leader, MemberId "", Members empty`},
	{"JoinGroupResponse v4 member id required", 4, &codec.JoinGroupResponse{ErrorCode: codec.MemberIDRequired,
		GenerationId: -1, ProtocolName: codec.Str(""), MemberId: "c-1"}, `
		00 00 00 00  # ThrottleTimeMs 0
		00 4f        # ErrorCode 79 MEMBER_ID_REQUIRED (KIP-394, v4+)
		ff ff ff ff  # GenerationId -1
		00 00  00 00 # ProtocolName "", Leader ""
		00 03 63 2d 31  # MemberId "c-1": the id to join again with
		00 00 00 00  # Members: empty`},
	{"JoinGroupResponse v5 members with instance ids", 5, &codec.JoinGroupResponse{GenerationId: 2,
		ProtocolName: codec.Str("p"), Leader: "a", MemberId: "a", Members: []codec.JoinGroupResponseMember{
			{MemberId: "a", GroupInstanceId: codec.Str("i"), Metadata: []byte{1}},
			{MemberId: "b", GroupInstanceId: codec.Null}}}, `
		00 00 00 00  00 00  00 00 00 02  # ThrottleTimeMs, ErrorCode, GenerationId 2
		00 01 70  00 01 61  00 01 61     # ProtocolName "p", Leader "a", MemberId "a"
		00 00 00 02  # Members: 2
		00 01 61  00 01 69  00 00 00 01 01  #   "a", GroupInstanceId "i" (v5+), metadata 01
		00 01 62  ff ff     00 00 00 00     #   "b", GroupInstanceId null, no metadata`},
	{"JoinGroupResponse v6 flexible", 6, &codec.JoinGroupResponse{ThrottleTimeMs: 1, GenerationId: 2,
		ProtocolName: codec.Str("p"), Leader: "a", MemberId: "b",
		Members: []codec.JoinGroupResponseMember{{MemberId: "a", Metadata: []byte{9, 9}}}}, `
		00 00 00 01  00 00  00 00 00 02  # ThrottleTimeMs 1, ErrorCode 0, GenerationId 2
		02 70        # ProtocolName "p": compact, still not nullable at v6
		02 61  02 62 # Leader "a", MemberId "b"
		02           # Members: 1
		02 61  00  03 09 09  00  #   "a", GroupInstanceId null, metadata 09 09, tags
		00           # tags`},
	{"JoinGroupResponse v6 empty protocol name", 6, &codec.JoinGroupResponse{ErrorCode: codec.NotCoordinator,
		GenerationId: -1, ProtocolName: codec.Str("")}, `
		00 00 00 00  00 10  ff ff ff ff  # ThrottleTimeMs, ErrorCode 16, GenerationId -1
		01           # ProtocolName "" (compact length 0+1)
		01  01  01   # Leader "", MemberId "", Members empty
		00           # tags`},
	{"JoinGroupResponse v7 protocol type and name", 7, &codec.JoinGroupResponse{GenerationId: 5,
		ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("range"), Leader: "a", MemberId: "a"}, `
		00 00 00 00  00 00  00 00 00 05  # ThrottleTimeMs, ErrorCode, GenerationId 5
		09 63 6f 6e 73 75 6d 65 72  # ProtocolType "consumer" (v7+)
		06 72 61 6e 67 65           # ProtocolName "range"
		02 61  02 61  01            # Leader "a", MemberId "a", Members empty
		00                          # tags`},
	{"JoinGroupResponse v7 null protocol", 7, &codec.JoinGroupResponse{ErrorCode: codec.InconsistentGroupProtocol,
		GenerationId: -1}, `
		00 00 00 00  00 17  ff ff ff ff  # ThrottleTimeMs, ErrorCode 23, GenerationId -1
		00           # ProtocolType null
		00           # ProtocolName null (nullable from v7)
		01 01 01 00  # Leader "", MemberId "", Members empty, tags`},
	{"JoinGroupResponse v8", 8, &codec.JoinGroupResponse{GenerationId: 5, ProtocolType: codec.Str("c"),
		ProtocolName: codec.Str("p"), Leader: "a", MemberId: "b",
		UnknownTags: codec.TaggedFields{{Tag: 1, Data: []byte{0xff}}}}, `
		00 00 00 00  00 00  00 00 00 05  # ThrottleTimeMs, ErrorCode, GenerationId 5
		02 63  02 70  02 61  02 62  01   # ProtocolType "c", ProtocolName "p", Leader "a", MemberId "b", Members empty
		01 01 01 ff  # tags: tag 1, size 1`},
	{"JoinGroupResponse v9 skip assignment", 9, &codec.JoinGroupResponse{GenerationId: 5, ProtocolType: codec.Str("c"),
		ProtocolName: codec.Str("p"), Leader: "a", SkipAssignment: true, MemberId: "a",
		Members: []codec.JoinGroupResponseMember{{MemberId: "a", GroupInstanceId: codec.Str("i"),
			UnknownTags: codec.TaggedFields{{Tag: 2, Data: []byte{}}}}}}, `
		00 00 00 00  00 00  00 00 00 05  # ThrottleTimeMs, ErrorCode, GenerationId 5
		02 63  02 70  02 61              # ProtocolType "c", ProtocolName "p", Leader "a"
		01                               # SkipAssignment true (v9+)
		02 61                            # MemberId "a"
		02  02 61  02 69  01  01 02 00   # Members: "a", "i", metadata empty, tags: tag 2 size 0
		00                               # tags`},

	// ---------------------------------------------------------------- Heartbeat (12)
	{"HeartbeatRequest v0", 0, &codec.HeartbeatRequest{GroupId: "g", GenerationId: 1, MemberId: "m"}, `
		00 01 67     # GroupId "g"
		00 00 00 01  # GenerationId 1
		00 01 6d     # MemberId "m"`},
	{"HeartbeatRequest v1", 1, &codec.HeartbeatRequest{GroupId: "gr", GenerationId: 258, MemberId: "m-1"}, `
		00 02 67 72     # GroupId "gr"
		00 00 01 02     # GenerationId 258
		00 03 6d 2d 31  # MemberId "m-1"`},
	{"HeartbeatRequest v2 generation -1", 2, &codec.HeartbeatRequest{GroupId: "g", GenerationId: -1}, `
		00 01 67  ff ff ff ff  00 00  # GroupId "g", GenerationId -1, MemberId ""`},
	{"HeartbeatRequest v3 static member", 3, &codec.HeartbeatRequest{GroupId: "g", GenerationId: 3, MemberId: "m",
		GroupInstanceId: codec.Str("i")}, `
		00 01 67  00 00 00 03  00 01 6d  # GroupId, GenerationId 3, MemberId
		00 01 69                         # GroupInstanceId "i" (v3+)`},
	{"HeartbeatRequest v3 dynamic member", 3, &codec.HeartbeatRequest{GroupId: "g", GenerationId: 3, MemberId: "m"}, `
		00 01 67  00 00 00 03  00 01 6d  # GroupId, GenerationId 3, MemberId
		ff ff                            # GroupInstanceId null`},
	{"HeartbeatRequest v4 flexible", 4, &codec.HeartbeatRequest{GroupId: "g", GenerationId: 3, MemberId: "m",
		GroupInstanceId: codec.Str("i")}, `
		02 67  00 00 00 03  02 6d  02 69  # compact GroupId, GenerationId, MemberId, GroupInstanceId
		00                                # tags`},
	{"HeartbeatRequest v4 null instance and a tag", 4, &codec.HeartbeatRequest{GroupId: "g", GenerationId: 0,
		UnknownTags: codec.TaggedFields{{Tag: 9, Data: []byte{1, 2}}}}, `
		02 67  00 00 00 00  01  00  # GroupId, GenerationId 0, MemberId "", GroupInstanceId null
		01 09 02 01 02              # tags: tag 9, size 2`},
	{"HeartbeatResponse v0", 0, &codec.HeartbeatResponse{}, `
		00 00  # ErrorCode 0`},
	{"HeartbeatResponse v1 rebalance in progress", 1, &codec.HeartbeatResponse{ThrottleTimeMs: 3,
		ErrorCode: codec.RebalanceInProgress}, `
		00 00 00 03  # ThrottleTimeMs 3 (v1+, first)
		00 1b        # ErrorCode 27 REBALANCE_IN_PROGRESS: rejoin`},
	{"HeartbeatResponse v2 illegal generation", 2, &codec.HeartbeatResponse{ErrorCode: codec.IllegalGeneration}, `
		00 00 00 00  00 16  # ThrottleTimeMs 0, ErrorCode 22 ILLEGAL_GENERATION`},
	{"HeartbeatResponse v3 fenced instance", 3, &codec.HeartbeatResponse{ErrorCode: codec.FencedInstanceID}, `
		00 00 00 00  00 52  # ThrottleTimeMs 0, ErrorCode 82 FENCED_INSTANCE_ID`},
	{"HeartbeatResponse v4 flexible", 4, &codec.HeartbeatResponse{ErrorCode: codec.UnknownMemberID}, `
		00 00 00 00  00 19  # ThrottleTimeMs 0, ErrorCode 25 UNKNOWN_MEMBER_ID
		00                  # tags`},
	{"HeartbeatResponse v4 unknown tag", 4, &codec.HeartbeatResponse{ThrottleTimeMs: 1,
		UnknownTags: codec.TaggedFields{{Tag: 0, Data: []byte{0xee}}}}, `
		00 00 00 01  00 00  01 00 01 ee  # ThrottleTimeMs 1, ErrorCode 0, tags: tag 0 size 1`},

	// ---------------------------------------------------------------- SyncGroup (14)
	{"SyncGroupRequest v0 leader", 0, &codec.SyncGroupRequest{GroupId: "g", GenerationId: 1, MemberId: "a",
		Assignments: []codec.SyncGroupRequestAssignment{{MemberId: "a", Assignment: []byte{1, 2}}, {MemberId: "b"}}}, `
		00 01 67     # GroupId "g"
		00 00 00 01  # GenerationId 1
		00 01 61     # MemberId "a"
		00 00 00 02  # Assignments: 2
		00 01 61  00 00 00 02 01 02  #   "a": 2 bytes
		00 01 62  00 00 00 00        #   "b": empty (decodes to nil)`},
	{"SyncGroupRequest v1 follower", 1, &codec.SyncGroupRequest{GroupId: "g", GenerationId: 1, MemberId: "b"}, `
		00 01 67  00 00 00 01  00 01 62  # GroupId, GenerationId 1, MemberId "b"
		00 00 00 00                      # Assignments: empty`},
	{"SyncGroupRequest v2", 2, &codec.SyncGroupRequest{GroupId: "gr", GenerationId: 300, MemberId: "m",
		Assignments: []codec.SyncGroupRequestAssignment{{MemberId: "m", Assignment: []byte{0xff}}}}, `
		00 02 67 72  00 00 01 2c  00 01 6d  # GroupId "gr", GenerationId 300, MemberId "m"
		00 00 00 01  00 01 6d  00 00 00 01 ff  # Assignments: "m", 1 byte`},
	{"SyncGroupRequest v3 static member", 3, &codec.SyncGroupRequest{GroupId: "g", GenerationId: 2, MemberId: "m",
		GroupInstanceId: codec.Str("i")}, `
		00 01 67  00 00 00 02  00 01 6d  # GroupId, GenerationId 2, MemberId
		00 01 69                         # GroupInstanceId "i" (v3+)
		00 00 00 00                      # Assignments: empty`},
	{"SyncGroupRequest v3 dynamic member", 3, &codec.SyncGroupRequest{GroupId: "g", GenerationId: 2, MemberId: "m"}, `
		00 01 67  00 00 00 02  00 01 6d  ff ff  00 00 00 00  # ..., GroupInstanceId null, Assignments empty`},
	{"SyncGroupRequest v4 flexible", 4, &codec.SyncGroupRequest{GroupId: "g", GenerationId: 2, MemberId: "m",
		GroupInstanceId: codec.Str("i"), Assignments: []codec.SyncGroupRequestAssignment{
			{MemberId: "m", Assignment: []byte{5}, UnknownTags: codec.TaggedFields{{Tag: 4, Data: []byte{}}}}}}, `
		02 67  00 00 00 02  02 6d  02 69  # compact GroupId, GenerationId, MemberId, GroupInstanceId
		02                                # Assignments: 1
		02 6d  02 05                      #   "m", compact bytes 05
		01 04 00                          #   assignment tags: tag 4, size 0
		00                                # tags`},
	{"SyncGroupRequest v5 protocol type and name", 5, &codec.SyncGroupRequest{GroupId: "g", GenerationId: 2,
		MemberId: "m", ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("range"),
		Assignments: []codec.SyncGroupRequestAssignment{{MemberId: "m", Assignment: []byte{5}}}}, `
		02 67  00 00 00 02  02 6d  00     # GroupId, GenerationId, MemberId, GroupInstanceId null
		09 63 6f 6e 73 75 6d 65 72        # ProtocolType "consumer" (v5+)
		06 72 61 6e 67 65                 # ProtocolName "range" (v5+)
		02  02 6d  02 05  00              # Assignments: "m", 05, no tags
		00                                # tags`},
	{"SyncGroupRequest v5 null protocol", 5, &codec.SyncGroupRequest{GroupId: "g", GenerationId: 2, MemberId: "m",
		GroupInstanceId: codec.Str("i")}, `
		02 67  00 00 00 02  02 6d  02 69  # GroupId, GenerationId, MemberId, GroupInstanceId "i"
		00  00                            # ProtocolType, ProtocolName null (a broker answers INCONSISTENT_GROUP_PROTOCOL)
		01  00                            # Assignments empty, tags`},
	{"SyncGroupResponse v0", 0, &codec.SyncGroupResponse{Assignment: []byte{1, 2, 3}}, `
		00 00              # ErrorCode 0
		00 00 00 03 01 02 03  # Assignment: 3 bytes`},
	{"SyncGroupResponse v1 rebalance in progress", 1, &codec.SyncGroupResponse{ThrottleTimeMs: 2,
		ErrorCode: codec.RebalanceInProgress}, `
		00 00 00 02  # ThrottleTimeMs 2 (v1+, first)
		00 1b        # ErrorCode 27
		00 00 00 00  # Assignment: empty (decodes to nil)`},
	{"SyncGroupResponse v2 illegal generation", 2, &codec.SyncGroupResponse{ErrorCode: codec.IllegalGeneration}, `
		00 00 00 00  00 16  00 00 00 00  # ThrottleTimeMs, ErrorCode 22, Assignment empty`},
	{"SyncGroupResponse v3 fenced instance", 3, &codec.SyncGroupResponse{ErrorCode: codec.FencedInstanceID}, `
		00 00 00 00  00 52  00 00 00 00  # ThrottleTimeMs, ErrorCode 82, Assignment empty`},
	{"SyncGroupResponse v4 flexible", 4, &codec.SyncGroupResponse{Assignment: []byte{9}}, `
		00 00 00 00  00 00  # ThrottleTimeMs, ErrorCode
		02 09               # Assignment: compact bytes, 1 byte
		00                  # tags`},
	{"SyncGroupResponse v5 protocol type and name", 5, &codec.SyncGroupResponse{ProtocolType: codec.Str("c"),
		ProtocolName: codec.Str("p"), Assignment: []byte{9},
		UnknownTags: codec.TaggedFields{{Tag: 1, Data: []byte{7}}}}, `
		00 00 00 00  00 00  # ThrottleTimeMs, ErrorCode
		02 63  02 70        # ProtocolType "c", ProtocolName "p" (v5+)
		02 09               # Assignment
		01 01 01 07         # tags: tag 1, size 1`},
	{"SyncGroupResponse v5 error, nulls", 5, &codec.SyncGroupResponse{ErrorCode: codec.UnknownMemberID}, `
		00 00 00 00  00 19  00  00  01  00  # ..., ErrorCode 25, ProtocolType null, ProtocolName null, Assignment empty, tags`},

	// ---------------------------------------------------------------- DescribeGroups (15)
	{"DescribeGroupsRequest v0", 0, &codec.DescribeGroupsRequest{Groups: []string{"g"}}, `
		00 00 00 01  00 01 67  # Groups: ["g"]`},
	{"DescribeGroupsRequest v1", 1, &codec.DescribeGroupsRequest{Groups: []string{"a", "bc"}}, `
		00 00 00 02  00 01 61  00 02 62 63  # Groups: ["a", "bc"]`},
	{"DescribeGroupsRequest v2 no groups", 2, &codec.DescribeGroupsRequest{}, `
		00 00 00 00  # Groups: empty (decodes to nil)`},
	{"DescribeGroupsRequest v3 authorized operations", 3, &codec.DescribeGroupsRequest{Groups: []string{"g"},
		IncludeAuthorizedOperations: true}, `
		00 00 00 01  00 01 67  # Groups: ["g"]
		01                     # IncludeAuthorizedOperations true (v3+)`},
	{"DescribeGroupsRequest v4", 4, &codec.DescribeGroupsRequest{Groups: []string{"g"}}, `
		00 00 00 01  00 01 67  00  # Groups ["g"], IncludeAuthorizedOperations false`},
	{"DescribeGroupsRequest v5 flexible", 5, &codec.DescribeGroupsRequest{Groups: []string{"g"},
		IncludeAuthorizedOperations: true}, `
		02  02 67  # Groups: compact array of 1, "g"
		01         # IncludeAuthorizedOperations true
		00         # tags`},
	{"DescribeGroupsRequest v6", 6, &codec.DescribeGroupsRequest{Groups: []string{"g", ""},
		UnknownTags: codec.TaggedFields{{Tag: 0, Data: []byte{1}}}}, `
		03  02 67  01  # Groups: ["g", ""]
		00             # IncludeAuthorizedOperations false
		01 00 01 01    # tags: tag 0, size 1`},
	{"DescribeGroupsResponse v0 stable group", 0, &codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{{
		GroupId: "g", GroupState: "Stable", ProtocolType: "consumer", ProtocolData: "range",
		Members: []codec.DescribeGroupsMember{{MemberId: "m", ClientId: "c", ClientHost: "/h",
			MemberMetadata: []byte{1}, MemberAssignment: []byte{2}}},
		AuthorizedOperations: opsUnknown}}}, `
		00 00 00 01                    # Groups: 1
		00 00                          #   ErrorCode 0
		00 01 67                       #   GroupId "g"
		00 06 53 74 61 62 6c 65        #   GroupState "Stable"
		00 08 63 6f 6e 73 75 6d 65 72  #   ProtocolType "consumer"
		00 05 72 61 6e 67 65           #   ProtocolData "range"
		00 00 00 01                    #   Members: 1
		00 01 6d                       #     MemberId "m"
		00 01 63                       #     ClientId "c"
		00 02 2f 68                    #     ClientHost "/h"
		00 00 00 01 01                 #     MemberMetadata: 1 byte
		00 00 00 01 02                 #     MemberAssignment: 1 byte
		                               #   no AuthorizedOperations before v3: reads as INT32_MIN`},
	{"DescribeGroupsResponse v1 unknown group is Dead", 1, &codec.DescribeGroupsResponse{ThrottleTimeMs: 4,
		Groups: []codec.DescribeGroupsGroup{{GroupId: "x", GroupState: "Dead", AuthorizedOperations: opsUnknown}}}, `
		00 00 00 04        # ThrottleTimeMs 4 (v1+, first)
		00 00 00 01        # Groups: 1
		00 00  00 01 78    #   ErrorCode 0, GroupId "x"
		00 04 44 65 61 64  #   GroupState "Dead" (an unknown group, before v6)
		00 00  00 00       #   ProtocolType "", ProtocolData ""
		00 00 00 00        #   Members: empty`},
	{"DescribeGroupsResponse v2 empty group", 2, &codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{{
		ErrorCode: codec.CoordinatorLoadInProgress, GroupId: "g", GroupState: "Empty", ProtocolType: "consumer",
		AuthorizedOperations: opsUnknown}}}, `
		00 00 00 00  00 00 00 01  # ThrottleTimeMs 0, Groups: 1
		00 0e  00 01 67           #   ErrorCode 14, GroupId "g"
		00 05 45 6d 70 74 79      #   GroupState "Empty"
		00 08 63 6f 6e 73 75 6d 65 72  00 00  # ProtocolType "consumer", ProtocolData ""
		00 00 00 00               #   Members: empty`},
	{"DescribeGroupsResponse v3 authorized operations", 3, &codec.DescribeGroupsResponse{
		Groups: []codec.DescribeGroupsGroup{{GroupId: "g", GroupState: "Stable", AuthorizedOperations: 0x0f00}}}, `
		00 00 00 00  00 00 00 01  # ThrottleTimeMs, Groups: 1
		00 00  00 01 67  00 06 53 74 61 62 6c 65  00 00  00 00  00 00 00 00  # ..., Members empty
		00 00 0f 00               #   AuthorizedOperations 0x0f00 (v3+)`},
	{"DescribeGroupsResponse v3 operations not asked", 3, &codec.DescribeGroupsResponse{
		Groups: []codec.DescribeGroupsGroup{{GroupId: "g", GroupState: "Dead", AuthorizedOperations: opsUnknown}}}, `
		00 00 00 00  00 00 00 01
		00 00  00 01 67  00 04 44 65 61 64  00 00  00 00  00 00 00 00
		80 00 00 00               #   AuthorizedOperations INT32_MIN, sent`},
	{"DescribeGroupsResponse v4 instance ids", 4, &codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{{
		GroupId: "g", GroupState: "PreparingRebalance", ProtocolType: "c",
		Members: []codec.DescribeGroupsMember{
			{MemberId: "a", GroupInstanceId: codec.Str("i"), ClientId: "c", ClientHost: "h"},
			{MemberId: "b", ClientId: "c", ClientHost: "h"}},
		AuthorizedOperations: opsUnknown}}}, `
		00 00 00 00  00 00 00 01  00 00  00 01 67  # ThrottleTimeMs, Groups: 1, ErrorCode, GroupId
		00 12 50 72 65 70 61 72 69 6e 67 52 65 62 61 6c 61 6e 63 65  # GroupState "PreparingRebalance"
		00 01 63  00 00           #   ProtocolType "c", ProtocolData "" (not Stable)
		00 00 00 02               #   Members: 2
		00 01 61  00 01 69  00 01 63  00 01 68  00 00 00 00  00 00 00 00  # "a", GroupInstanceId "i" (v4+), no metadata
		00 01 62  ff ff     00 01 63  00 01 68  00 00 00 00  00 00 00 00  # "b", GroupInstanceId null
		80 00 00 00               #   AuthorizedOperations INT32_MIN`},
	{"DescribeGroupsResponse v5 flexible", 5, &codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{{
		GroupId: "g", GroupState: "Stable", ProtocolType: "c", ProtocolData: "p",
		Members: []codec.DescribeGroupsMember{{MemberId: "a", GroupInstanceId: codec.Str("i"), ClientId: "c",
			ClientHost: "h", MemberMetadata: []byte{1}, MemberAssignment: []byte{2, 3}}},
		AuthorizedOperations: 8}}}, `
		00 00 00 00               # ThrottleTimeMs
		02                        # Groups: compact 1
		00 00  02 67              #   ErrorCode, GroupId "g"
		07 53 74 61 62 6c 65      #   GroupState "Stable"
		02 63  02 70              #   ProtocolType "c", ProtocolData "p"
		02                        #   Members: 1
		02 61  02 69  02 63  02 68  02 01  03 02 03  00  # "a", "i", "c", "h", metadata 01, assignment 02 03, tags
		00 00 00 08               #   AuthorizedOperations 8
		00                        #   group tags
		00                        # tags`},
	{"DescribeGroupsResponse v6 group id not found", 6, &codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{{
		ErrorCode: codec.GroupIDNotFound, ErrorMessage: codec.Str("nf"), GroupId: "x", GroupState: "Dead",
		AuthorizedOperations: opsUnknown}}}, `
		00 00 00 00  02           # ThrottleTimeMs, Groups: 1
		00 45                     #   ErrorCode 69 GROUP_ID_NOT_FOUND (KIP-1043)
		03 6e 66                  #   ErrorMessage "nf" (v6+)
		02 78  05 44 65 61 64     #   GroupId "x", GroupState "Dead"
		01 01  01                 #   ProtocolType "", ProtocolData "", Members empty
		80 00 00 00  00           #   AuthorizedOperations INT32_MIN, group tags
		00                        # tags`},
	{"DescribeGroupsResponse v6 tags and null message", 6, &codec.DescribeGroupsResponse{Groups: []codec.DescribeGroupsGroup{{
		GroupId: "g", GroupState: "Stable", Members: []codec.DescribeGroupsMember{{MemberId: "a",
			UnknownTags: codec.TaggedFields{{Tag: 5, Data: []byte{}}}}},
		AuthorizedOperations: 0, UnknownTags: codec.TaggedFields{{Tag: 1, Data: []byte{9}}}}}}, `
		00 00 00 00  02           # ThrottleTimeMs, Groups: 1
		00 00  00                 #   ErrorCode 0, ErrorMessage null
		02 67  07 53 74 61 62 6c 65  01 01  # GroupId, GroupState "Stable", ProtocolType "", ProtocolData ""
		02  02 61 00 01 01 01 01  01 05 00  # Members: "a", null, "", "", empty, empty, tags: tag 5 size 0
		00 00 00 00               #   AuthorizedOperations 0
		01 01 01 09               #   group tags: tag 1, size 1
		00                        # tags`},
}

// The classic apis switch to request header v2 and response header v1 at
// their first flexible version (JoinGroup v6, Heartbeat v4, SyncGroup v4,
// DescribeGroups v5, from Kafka's flexibleVersions), on both sides of which
// the header versions are pinned here.
func TestClassicHeaderVersions(t *testing.T) {
	for _, tc := range []struct {
		key           codec.APIKey
		lastClassic   int16
		firstFlexible int16
	}{
		{codec.JoinGroup, 5, 6},
		{codec.Heartbeat, 3, 4},
		{codec.SyncGroup, 3, 4},
		{codec.DescribeGroups, 4, 5},
	} {
		for _, c := range []struct {
			version int16
			req     int16
			resp    int16
		}{{0, 1, 0}, {tc.lastClassic, 1, 0}, {tc.firstFlexible, 2, 1}, {codec.Lookup(tc.key).MaxVersion, 2, 1}} {
			req, err := codec.RequestHeaderVersion(tc.key, c.version)
			if err != nil || req != c.req {
				t.Errorf("%v v%d: request header v%d, %v; want v%d", tc.key, c.version, req, err, c.req)
			}
			resp, err := codec.ResponseHeaderVersion(tc.key, c.version)
			if err != nil || resp != c.resp {
				t.Errorf("%v v%d: response header v%d, %v; want v%d", tc.key, c.version, resp, err, c.resp)
			}
		}
	}
}

// Whole Heartbeat frames on both sides of the flexible switch: v3 has
// request header v1 and response header v0, v4 request header v2 (a tag
// section after ClientId) and response header v1 (a tag section after the
// correlation id).
func TestGoldenClassicFrames(t *testing.T) {
	for _, tc := range []struct {
		name      string
		version   int16
		req       codec.Message
		reqFrame  string
		resp      codec.Message
		respFrame string
	}{
		{"Heartbeat v3", 3, &codec.HeartbeatRequest{GroupId: "g", GenerationId: 2, MemberId: "m"}, `
			00 00 00 17  # size 23
			00 0c 00 03  # Heartbeat v3: header v1
			00 00 00 05  # CorrelationId 5
			00 01 63     # ClientId "c", no tag section
			00 01 67  00 00 00 02  00 01 6d  ff ff  # GroupId "g", GenerationId 2, MemberId "m", GroupInstanceId null`,
			&codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress}, `
			00 00 00 0a  # size 10
			00 00 00 05  # CorrelationId 5: header v0
			00 00 00 00  00 1b  # ThrottleTimeMs 0, ErrorCode 27`},
		{"Heartbeat v4", 4, &codec.HeartbeatRequest{GroupId: "g", GenerationId: 2, MemberId: "m"}, `
			00 00 00 16  # size 22
			00 0c 00 04  # Heartbeat v4: header v2
			00 00 00 05  # CorrelationId 5
			00 01 63     # ClientId "c": int16 length even in v2
			00           # header tags: none
			02 67  00 00 00 02  02 6d  00  00  # compact body, GroupInstanceId null, tags`,
			&codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress}, `
			00 00 00 0c  # size 12
			00 00 00 05  # CorrelationId 5
			00           # header tags: header v1
			00 00 00 00  00 1b  00  # ThrottleTimeMs 0, ErrorCode 27, tags`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := codec.RequestHeader{RequestApiKey: codec.Heartbeat, RequestApiVersion: tc.version, CorrelationId: 5,
				ClientId: codec.Str("c")}
			want := wire(t, tc.reqFrame)
			got, err := codec.AppendRequest(nil, &h, tc.req)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("AppendRequest: % x, %v\nwant % x", got, err, want)
			}
			gh, body, err := codec.DecodeRequest(want[4:], codec.DecodeOptions{Strict: true})
			if err != nil || !reflect.DeepEqual(gh, h) || !reflect.DeepEqual(body, tc.req) {
				t.Fatalf("DecodeRequest: %#v %#v %v", gh, body, err)
			}
			want = wire(t, tc.respFrame)
			got, err = codec.AppendResponse(nil, 5, tc.version, tc.resp)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("AppendResponse: % x, %v\nwant % x", got, err, want)
			}
			rh, rb, err := codec.DecodeResponse(want[4:], codec.Heartbeat, tc.version, codec.DecodeOptions{Strict: true})
			if err != nil || rh.CorrelationId != 5 || !reflect.DeepEqual(rb, tc.resp) {
				t.Fatalf("DecodeResponse: %#v %#v %v", rh, rb, err)
			}
		})
	}
}
