package codectest

import (
	"github.com/ghostcheck/ghostcheck/codec"
	"pgregory.net/rapid"
)

// Generators of the classic group protocol's messages (JoinGroup,
// Heartbeat, SyncGroup, DescribeGroups), listed in messageGens. Fields a
// version lacks keep the value the decoder gives them there: Kafka's
// default (RebalanceTimeoutMs -1, AuthorizedOperations INT32_MIN, null,
// false); a JoinGroup response's ProtocolName, a plain string below v7, is
// never null there.

// genBytes draws a non-nullable byte string: nil when empty, as decoded.
var genBytes = rapid.Custom(func(t *rapid.T) []byte {
	return nilIfEmpty(rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "bytes"))
})

func genJoinGroupRequest(v int16) *rapid.Generator[codec.Message] {
	flex := flexible(codec.JoinGroup, v)
	protocol := rapid.Custom(func(t *rapid.T) codec.JoinGroupRequestProtocol {
		return codec.JoinGroupRequestProtocol{Name: genString.Draw(t, "Name"), Metadata: genBytes.Draw(t, "Metadata"),
			UnknownTags: genTags(t, flex, 0)}
	})
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := &codec.JoinGroupRequest{GroupId: genString.Draw(t, "GroupId"),
			SessionTimeoutMs: int32s().Draw(t, "SessionTimeoutMs"), RebalanceTimeoutMs: -1}
		if v >= 1 {
			m.RebalanceTimeoutMs = int32s().Draw(t, "RebalanceTimeoutMs")
		}
		m.MemberId = genString.Draw(t, "MemberId")
		if v >= 5 {
			m.GroupInstanceId = genNullableString.Draw(t, "GroupInstanceId")
		}
		m.ProtocolType = genString.Draw(t, "ProtocolType")
		m.Protocols = genArray(t, "Protocols", 4, protocol)
		if v >= 8 {
			m.Reason = genNullableString.Draw(t, "Reason")
		}
		m.UnknownTags = genTags(t, flex, 0)
		return m
	})
}

func genJoinGroupResponse(v int16) *rapid.Generator[codec.Message] {
	flex := flexible(codec.JoinGroup, v)
	member := rapid.Custom(func(t *rapid.T) codec.JoinGroupResponseMember {
		mb := codec.JoinGroupResponseMember{MemberId: genString.Draw(t, "MemberId")}
		if v >= 5 {
			mb.GroupInstanceId = genNullableString.Draw(t, "GroupInstanceId")
		}
		mb.Metadata = genBytes.Draw(t, "Metadata")
		mb.UnknownTags = genTags(t, flex, 0)
		return mb
	})
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := &codec.JoinGroupResponse{}
		if v >= 2 {
			m.ThrottleTimeMs = int32s().Draw(t, "ThrottleTimeMs")
		}
		m.ErrorCode = codec.ErrorCode(int16s().Draw(t, "ErrorCode"))
		m.GenerationId = int32s().Draw(t, "GenerationId")
		if v >= 7 {
			m.ProtocolType = genNullableString.Draw(t, "ProtocolType")
		}
		m.ProtocolName = genNullableAt(t, "ProtocolName", v >= 7)
		m.Leader = genString.Draw(t, "Leader")
		if v >= 9 {
			m.SkipAssignment = rapid.Bool().Draw(t, "SkipAssignment")
		}
		m.MemberId = genString.Draw(t, "MemberId")
		m.Members = genArray(t, "Members", 5, member)
		m.UnknownTags = genTags(t, flex, 0)
		return m
	})
}

func genHeartbeatRequest(v int16) *rapid.Generator[codec.Message] {
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := &codec.HeartbeatRequest{GroupId: genString.Draw(t, "GroupId"),
			GenerationId: int32s().Draw(t, "GenerationId"), MemberId: genString.Draw(t, "MemberId")}
		if v >= 3 {
			m.GroupInstanceId = genNullableString.Draw(t, "GroupInstanceId")
		}
		m.UnknownTags = genTags(t, flexible(codec.Heartbeat, v), 0)
		return m
	})
}

func genHeartbeatResponse(v int16) *rapid.Generator[codec.Message] {
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := &codec.HeartbeatResponse{}
		if v >= 1 {
			m.ThrottleTimeMs = int32s().Draw(t, "ThrottleTimeMs")
		}
		m.ErrorCode = codec.ErrorCode(int16s().Draw(t, "ErrorCode"))
		m.UnknownTags = genTags(t, flexible(codec.Heartbeat, v), 0)
		return m
	})
}

func genSyncGroupRequest(v int16) *rapid.Generator[codec.Message] {
	flex := flexible(codec.SyncGroup, v)
	assignment := rapid.Custom(func(t *rapid.T) codec.SyncGroupRequestAssignment {
		return codec.SyncGroupRequestAssignment{MemberId: genString.Draw(t, "MemberId"),
			Assignment: genBytes.Draw(t, "Assignment"), UnknownTags: genTags(t, flex, 0)}
	})
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := &codec.SyncGroupRequest{GroupId: genString.Draw(t, "GroupId"),
			GenerationId: int32s().Draw(t, "GenerationId"), MemberId: genString.Draw(t, "MemberId")}
		if v >= 3 {
			m.GroupInstanceId = genNullableString.Draw(t, "GroupInstanceId")
		}
		if v >= 5 {
			m.ProtocolType = genNullableString.Draw(t, "ProtocolType")
			m.ProtocolName = genNullableString.Draw(t, "ProtocolName")
		}
		m.Assignments = genArray(t, "Assignments", 5, assignment)
		m.UnknownTags = genTags(t, flex, 0)
		return m
	})
}

func genSyncGroupResponse(v int16) *rapid.Generator[codec.Message] {
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := &codec.SyncGroupResponse{}
		if v >= 1 {
			m.ThrottleTimeMs = int32s().Draw(t, "ThrottleTimeMs")
		}
		m.ErrorCode = codec.ErrorCode(int16s().Draw(t, "ErrorCode"))
		if v >= 5 {
			m.ProtocolType = genNullableString.Draw(t, "ProtocolType")
			m.ProtocolName = genNullableString.Draw(t, "ProtocolName")
		}
		m.Assignment = genBytes.Draw(t, "Assignment")
		m.UnknownTags = genTags(t, flexible(codec.SyncGroup, v), 0)
		return m
	})
}

func genDescribeGroupsRequest(v int16) *rapid.Generator[codec.Message] {
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := &codec.DescribeGroupsRequest{Groups: genArray(t, "Groups", 5, genString)}
		if v >= 3 {
			m.IncludeAuthorizedOperations = rapid.Bool().Draw(t, "IncludeAuthorizedOperations")
		}
		m.UnknownTags = genTags(t, flexible(codec.DescribeGroups, v), 0)
		return m
	})
}

func genDescribeGroupsResponse(v int16) *rapid.Generator[codec.Message] {
	flex := flexible(codec.DescribeGroups, v)
	member := rapid.Custom(func(t *rapid.T) codec.DescribeGroupsMember {
		mb := codec.DescribeGroupsMember{MemberId: genString.Draw(t, "MemberId")}
		if v >= 4 {
			mb.GroupInstanceId = genNullableString.Draw(t, "GroupInstanceId")
		}
		mb.ClientId = genString.Draw(t, "ClientId")
		mb.ClientHost = genString.Draw(t, "ClientHost")
		mb.MemberMetadata = genBytes.Draw(t, "MemberMetadata")
		mb.MemberAssignment = genBytes.Draw(t, "MemberAssignment")
		mb.UnknownTags = genTags(t, flex, 0)
		return mb
	})
	group := rapid.Custom(func(t *rapid.T) codec.DescribeGroupsGroup {
		g := codec.DescribeGroupsGroup{ErrorCode: codec.ErrorCode(int16s().Draw(t, "ErrorCode")),
			AuthorizedOperations: codec.AuthorizedOperationsUnknown}
		if v >= 6 {
			g.ErrorMessage = genNullableString.Draw(t, "ErrorMessage")
		}
		g.GroupId = genString.Draw(t, "GroupId")
		g.GroupState = genString.Draw(t, "GroupState")
		g.ProtocolType = genString.Draw(t, "ProtocolType")
		g.ProtocolData = genString.Draw(t, "ProtocolData")
		g.Members = genArray(t, "Members", 6, member)
		if v >= 3 {
			g.AuthorizedOperations = int32s().Draw(t, "AuthorizedOperations")
		}
		g.UnknownTags = genTags(t, flex, 0)
		return g
	})
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := &codec.DescribeGroupsResponse{}
		if v >= 1 {
			m.ThrottleTimeMs = int32s().Draw(t, "ThrottleTimeMs")
		}
		m.Groups = genArray(t, "Groups", 3, group)
		m.UnknownTags = genTags(t, flex, 0)
		return m
	})
}
