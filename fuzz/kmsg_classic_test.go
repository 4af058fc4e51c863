package fuzz

import (
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Conversions of the classic group protocol's apis between this codec and
// kmsg, in the manner of kmsg_test.go. kmsg names the classic fields
// Generation, Protocol (a *string at every version in JoinGroup; a string
// for DescribeGroups' ProtocolData), LeaderID, ProtocolMetadata,
// GroupAssignment and State, and holds the defaults this codec reads for
// the fields a version lacks (RebalanceTimeoutMillis -1,
// AuthorizedOperations INT32_MIN).

func classicToKmsg(m codec.Message) kmsgMessage {
	switch m := m.(type) {
	case *codec.JoinGroupRequest:
		return &kmsg.JoinGroupRequest{Group: m.GroupId, SessionTimeoutMillis: m.SessionTimeoutMs,
			RebalanceTimeoutMillis: m.RebalanceTimeoutMs, MemberID: m.MemberId, InstanceID: m.GroupInstanceId.Ptr(),
			ProtocolType: m.ProtocolType,
			Protocols: mapSlice(m.Protocols, func(p *codec.JoinGroupRequestProtocol) kmsg.JoinGroupRequestProtocol {
				return kmsg.JoinGroupRequestProtocol{Name: p.Name, Metadata: p.Metadata, UnknownTags: tagsToKmsg(p.UnknownTags)}
			}),
			Reason: m.Reason.Ptr(), UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.JoinGroupResponse:
		return &kmsg.JoinGroupResponse{ThrottleMillis: m.ThrottleTimeMs, ErrorCode: int16(m.ErrorCode),
			Generation: m.GenerationId, ProtocolType: m.ProtocolType.Ptr(), Protocol: m.ProtocolName.Ptr(),
			LeaderID: m.Leader, SkipAssignment: m.SkipAssignment, MemberID: m.MemberId,
			Members: mapSlice(m.Members, func(mb *codec.JoinGroupResponseMember) kmsg.JoinGroupResponseMember {
				return kmsg.JoinGroupResponseMember{MemberID: mb.MemberId, InstanceID: mb.GroupInstanceId.Ptr(),
					ProtocolMetadata: mb.Metadata, UnknownTags: tagsToKmsg(mb.UnknownTags)}
			}),
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.HeartbeatRequest:
		return &kmsg.HeartbeatRequest{Group: m.GroupId, Generation: m.GenerationId, MemberID: m.MemberId,
			InstanceID: m.GroupInstanceId.Ptr(), UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.HeartbeatResponse:
		return &kmsg.HeartbeatResponse{ThrottleMillis: m.ThrottleTimeMs, ErrorCode: int16(m.ErrorCode),
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.SyncGroupRequest:
		return &kmsg.SyncGroupRequest{Group: m.GroupId, Generation: m.GenerationId, MemberID: m.MemberId,
			InstanceID: m.GroupInstanceId.Ptr(), ProtocolType: m.ProtocolType.Ptr(), Protocol: m.ProtocolName.Ptr(),
			GroupAssignment: mapSlice(m.Assignments, func(a *codec.SyncGroupRequestAssignment) kmsg.SyncGroupRequestGroupAssignment {
				return kmsg.SyncGroupRequestGroupAssignment{MemberID: a.MemberId, MemberAssignment: a.Assignment,
					UnknownTags: tagsToKmsg(a.UnknownTags)}
			}),
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.SyncGroupResponse:
		return &kmsg.SyncGroupResponse{ThrottleMillis: m.ThrottleTimeMs, ErrorCode: int16(m.ErrorCode),
			ProtocolType: m.ProtocolType.Ptr(), Protocol: m.ProtocolName.Ptr(), MemberAssignment: m.Assignment,
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.DescribeGroupsRequest:
		return &kmsg.DescribeGroupsRequest{Groups: m.Groups, IncludeAuthorizedOperations: m.IncludeAuthorizedOperations,
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.DescribeGroupsResponse:
		return &kmsg.DescribeGroupsResponse{ThrottleMillis: m.ThrottleTimeMs,
			Groups: mapSlice(m.Groups, func(g *codec.DescribeGroupsGroup) kmsg.DescribeGroupsResponseGroup {
				return kmsg.DescribeGroupsResponseGroup{ErrorCode: int16(g.ErrorCode), ErrorMessage: g.ErrorMessage.Ptr(),
					Group: g.GroupId, State: g.GroupState, ProtocolType: g.ProtocolType, Protocol: g.ProtocolData,
					Members: mapSlice(g.Members, func(mb *codec.DescribeGroupsMember) kmsg.DescribeGroupsResponseGroupMember {
						return kmsg.DescribeGroupsResponseGroupMember{MemberID: mb.MemberId, InstanceID: mb.GroupInstanceId.Ptr(),
							ClientID: mb.ClientId, ClientHost: mb.ClientHost, ProtocolMetadata: mb.MemberMetadata,
							MemberAssignment: mb.MemberAssignment, UnknownTags: tagsToKmsg(mb.UnknownTags)}
					}),
					AuthorizedOperations: g.AuthorizedOperations, UnknownTags: tagsToKmsg(g.UnknownTags)}
			}),
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	}
	panic("classicToKmsg: not a classic message")
}

// classicFromKmsg converts a kmsg classic message into the value this
// codec's decoder gives: empty arrays and byte strings nil.
func classicFromKmsg(k kmsgMessage) codec.Message {
	switch k := k.(type) {
	case *kmsg.JoinGroupRequest:
		return &codec.JoinGroupRequest{GroupId: k.Group, SessionTimeoutMs: k.SessionTimeoutMillis,
			RebalanceTimeoutMs: k.RebalanceTimeoutMillis, MemberId: k.MemberID, GroupInstanceId: codec.FromPtr(k.InstanceID),
			ProtocolType: k.ProtocolType,
			Protocols: nilIfEmpty(mapSlice(k.Protocols, func(p *kmsg.JoinGroupRequestProtocol) codec.JoinGroupRequestProtocol {
				return codec.JoinGroupRequestProtocol{Name: p.Name, Metadata: nilIfEmpty(p.Metadata), UnknownTags: tagsFromKmsg(p.UnknownTags)}
			})),
			Reason: codec.FromPtr(k.Reason), UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.JoinGroupResponse:
		return &codec.JoinGroupResponse{ThrottleTimeMs: k.ThrottleMillis, ErrorCode: codec.ErrorCode(k.ErrorCode),
			GenerationId: k.Generation, ProtocolType: codec.FromPtr(k.ProtocolType), ProtocolName: codec.FromPtr(k.Protocol),
			Leader: k.LeaderID, SkipAssignment: k.SkipAssignment, MemberId: k.MemberID,
			Members: nilIfEmpty(mapSlice(k.Members, func(mb *kmsg.JoinGroupResponseMember) codec.JoinGroupResponseMember {
				return codec.JoinGroupResponseMember{MemberId: mb.MemberID, GroupInstanceId: codec.FromPtr(mb.InstanceID),
					Metadata: nilIfEmpty(mb.ProtocolMetadata), UnknownTags: tagsFromKmsg(mb.UnknownTags)}
			})),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.HeartbeatRequest:
		return &codec.HeartbeatRequest{GroupId: k.Group, GenerationId: k.Generation, MemberId: k.MemberID,
			GroupInstanceId: codec.FromPtr(k.InstanceID), UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.HeartbeatResponse:
		return &codec.HeartbeatResponse{ThrottleTimeMs: k.ThrottleMillis, ErrorCode: codec.ErrorCode(k.ErrorCode),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.SyncGroupRequest:
		return &codec.SyncGroupRequest{GroupId: k.Group, GenerationId: k.Generation, MemberId: k.MemberID,
			GroupInstanceId: codec.FromPtr(k.InstanceID), ProtocolType: codec.FromPtr(k.ProtocolType),
			ProtocolName: codec.FromPtr(k.Protocol),
			Assignments: nilIfEmpty(mapSlice(k.GroupAssignment, func(a *kmsg.SyncGroupRequestGroupAssignment) codec.SyncGroupRequestAssignment {
				return codec.SyncGroupRequestAssignment{MemberId: a.MemberID, Assignment: nilIfEmpty(a.MemberAssignment),
					UnknownTags: tagsFromKmsg(a.UnknownTags)}
			})),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.SyncGroupResponse:
		return &codec.SyncGroupResponse{ThrottleTimeMs: k.ThrottleMillis, ErrorCode: codec.ErrorCode(k.ErrorCode),
			ProtocolType: codec.FromPtr(k.ProtocolType), ProtocolName: codec.FromPtr(k.Protocol),
			Assignment: nilIfEmpty(k.MemberAssignment), UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.DescribeGroupsRequest:
		return &codec.DescribeGroupsRequest{Groups: nilIfEmpty(k.Groups), IncludeAuthorizedOperations: k.IncludeAuthorizedOperations,
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.DescribeGroupsResponse:
		return &codec.DescribeGroupsResponse{ThrottleTimeMs: k.ThrottleMillis,
			Groups: nilIfEmpty(mapSlice(k.Groups, func(g *kmsg.DescribeGroupsResponseGroup) codec.DescribeGroupsGroup {
				return codec.DescribeGroupsGroup{ErrorCode: codec.ErrorCode(g.ErrorCode), ErrorMessage: codec.FromPtr(g.ErrorMessage),
					GroupId: g.Group, GroupState: g.State, ProtocolType: g.ProtocolType, ProtocolData: g.Protocol,
					Members: nilIfEmpty(mapSlice(g.Members, func(mb *kmsg.DescribeGroupsResponseGroupMember) codec.DescribeGroupsMember {
						return codec.DescribeGroupsMember{MemberId: mb.MemberID, GroupInstanceId: codec.FromPtr(mb.InstanceID),
							ClientId: mb.ClientID, ClientHost: mb.ClientHost, MemberMetadata: nilIfEmpty(mb.ProtocolMetadata),
							MemberAssignment: nilIfEmpty(mb.MemberAssignment), UnknownTags: tagsFromKmsg(mb.UnknownTags)}
					})),
					AuthorizedOperations: g.AuthorizedOperations, UnknownTags: tagsFromKmsg(g.UnknownTags)}
			})),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	}
	panic("classicFromKmsg: not a classic message")
}
