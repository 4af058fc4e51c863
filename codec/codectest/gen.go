// Package codectest draws valid codec messages with rapid, for property
// tests and fuzz seeds in any package: codec's own round trips, the
// differential tests against franz-go's kmsg, and the harness's generators;
// and compares two messages as a peer reads them (WireDiff).
//
// A drawn value is valid for the version it was drawn for: only fields that
// exist at that version hold non-default values, and every value has the
// exact shape the decoder returns, so decode(encode(x)) == x holds with
// reflect.DeepEqual.
package codectest

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"pgregory.net/rapid"
)

// The shapes follow what the decoder returns:
//   - an empty non-nullable array is nil;
//   - a nullable array is nil for null and non-nil (maybe empty) otherwise;
//   - unknown tags exist only at flexible versions, are strictly ascending,
//     never reuse a known tag's number, and hold non-nil Data;
//   - a field a version lacks holds the value the decoder sets for it.

// genString draws short strings mostly, and now and then one long enough
// for a multi-byte compact length (> 126 bytes).
var genString = rapid.Custom(func(t *rapid.T) string {
	if rapid.IntRange(0, 9).Draw(t, "long") == 0 {
		return string(rapid.SliceOfN(rapid.Byte(), 127, 400).Draw(t, "bytes"))
	}
	return string(rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "bytes"))
})

var genNullableString = rapid.Custom(func(t *rapid.T) codec.NullableString {
	if rapid.Bool().Draw(t, "null") {
		return codec.Null
	}
	return codec.Str(genString.Draw(t, "s"))
})

var genUUID = rapid.Custom(func(t *rapid.T) codec.UUID {
	var u codec.UUID
	copy(u[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "uuid"))
	return u
})

// nilIfEmpty turns an empty slice into nil, as the decoder returns empty
// non-nullable arrays.
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// genArray draws a non-nullable array of up to max elements.
func genArray[T any](t *rapid.T, label string, max int, elem *rapid.Generator[T]) []T {
	return nilIfEmpty(rapid.SliceOfN(elem, 0, max).Draw(t, label))
}

// genNullableArray draws null (nil) or a non-nil, possibly empty, array.
func genNullableArray[T any](t *rapid.T, label string, max int, elem *rapid.Generator[T]) []T {
	if rapid.IntRange(0, 3).Draw(t, label+"Null") == 0 {
		return nil
	}
	s := rapid.SliceOfN(elem, 0, max).Draw(t, label)
	if s == nil {
		s = []T{}
	}
	return s
}

// genTags draws unknown tagged fields for a structure whose known tags are
// below firstFree; at a non-flexible version there are none.
func genTags(t *rapid.T, flexible bool, firstFree uint32) codec.TaggedFields {
	// Draw first: a Custom generator must draw something even when the
	// version has no tags.
	if rapid.IntRange(0, 3).Draw(t, "hasTags") != 0 || !flexible {
		return nil
	}
	n := rapid.IntRange(1, 3).Draw(t, "nTags")
	set := map[uint32]bool{}
	for i := 0; i < n; i++ {
		var tag uint32
		switch rapid.IntRange(0, 2).Draw(t, "tagRange") {
		case 0:
			tag = rapid.Uint32Range(firstFree, firstFree+10).Draw(t, "tag")
		case 1:
			tag = rapid.Uint32Range(firstFree, 1<<21).Draw(t, "tag")
		default:
			tag = rapid.Uint32Range(firstFree, ^uint32(0)).Draw(t, "tag")
		}
		set[tag] = true
	}
	var ts codec.TaggedFields
	for tag := range set {
		data := rapid.SliceOfN(rapid.Byte(), 0, 6).Draw(t, "data")
		if data == nil {
			data = []byte{}
		}
		ts = append(ts, codec.TaggedField{Tag: tag, Data: data})
	}
	slices.SortFunc(ts, func(a, b codec.TaggedField) int {
		if a.Tag < b.Tag {
			return -1
		}
		return 1
	})
	return ts
}

func int16s() *rapid.Generator[int16] { return rapid.Int16() }
func int32s() *rapid.Generator[int32] { return rapid.Int32() }

// Kind names a message type: a request or a response of one api key.
type Kind struct {
	Key      codec.APIKey
	Response bool
}

// Name is the message type's name, e.g. "LeaveGroupRequest".
func (k Kind) Name() string { return codec.Lookup(k.Key).MessageName(k.Response) }

// API is the api the kind belongs to.
func (k Kind) API() *codec.API { return codec.Lookup(k.Key) }

// Kinds lists every message type the codec implements (codec.AllAPIs),
// requests first within each key, in key order.
func Kinds() []Kind {
	var ks []Kind
	for _, a := range codec.AllAPIs() {
		ks = append(ks, Kind{a.Key, false}, Kind{a.Key, true})
	}
	return ks
}

// Message draws a valid message of kind k at version v. It returns nil for
// a kind the codec does not implement.
func Message(k Kind, v int16) *rapid.Generator[codec.Message] {
	for _, g := range messageGens {
		if g.key == k.Key && g.response == k.Response {
			return g.gen(v)
		}
	}
	return nil
}

// messageGen is a generator of one message type at a given version.
type messageGen struct {
	name     string
	key      codec.APIKey
	response bool
	gen      func(v int16) *rapid.Generator[codec.Message]
}

func flexible(key codec.APIKey, v int16) bool { return codec.Lookup(key).Flexible(v) }

var messageGens = []messageGen{
	{"MetadataRequest", codec.Metadata, false, genMetadataRequest},
	{"MetadataResponse", codec.Metadata, true, genMetadataResponse},
	{"FindCoordinatorRequest", codec.FindCoordinator, false, genFindCoordinatorRequest},
	{"FindCoordinatorResponse", codec.FindCoordinator, true, genFindCoordinatorResponse},
	{"JoinGroupRequest", codec.JoinGroup, false, genJoinGroupRequest},
	{"JoinGroupResponse", codec.JoinGroup, true, genJoinGroupResponse},
	{"HeartbeatRequest", codec.Heartbeat, false, genHeartbeatRequest},
	{"HeartbeatResponse", codec.Heartbeat, true, genHeartbeatResponse},
	{"SyncGroupRequest", codec.SyncGroup, false, genSyncGroupRequest},
	{"SyncGroupResponse", codec.SyncGroup, true, genSyncGroupResponse},
	{"DescribeGroupsRequest", codec.DescribeGroups, false, genDescribeGroupsRequest},
	{"DescribeGroupsResponse", codec.DescribeGroups, true, genDescribeGroupsResponse},
	{"SaslHandshakeRequest", codec.SaslHandshake, false, genSaslHandshakeRequest},
	{"SaslHandshakeResponse", codec.SaslHandshake, true, genSaslHandshakeResponse},
	{"SaslAuthenticateRequest", codec.SaslAuthenticate, false, genSaslAuthenticateRequest},
	{"SaslAuthenticateResponse", codec.SaslAuthenticate, true, genSaslAuthenticateResponse},
	{"ApiVersionsRequest", codec.ApiVersions, false, func(v int16) *rapid.Generator[codec.Message] {
		return rapid.Custom(func(t *rapid.T) codec.Message {
			m := &codec.ApiVersionsRequest{}
			if v >= 3 {
				m.ClientSoftwareName = genString.Draw(t, "name")
				m.ClientSoftwareVersion = genString.Draw(t, "version")
			}
			m.UnknownTags = genTags(t, flexible(codec.ApiVersions, v), 0)
			return m
		})
	}},
	{"ApiVersionsResponse", codec.ApiVersions, true, func(v int16) *rapid.Generator[codec.Message] {
		flex := flexible(codec.ApiVersions, v)
		return rapid.Custom(func(t *rapid.T) codec.Message {
			m := &codec.ApiVersionsResponse{FinalizedFeaturesEpoch: -1}
			m.ErrorCode = codec.ErrorCode(int16s().Draw(t, "ErrorCode"))
			m.ApiKeys = genArray(t, "ApiKeys", 5, rapid.Custom(func(t *rapid.T) codec.ApiVersionsKey {
				return codec.ApiVersionsKey{ApiKey: codec.APIKey(int16s().Draw(t, "key")),
					MinVersion: int16s().Draw(t, "min"), MaxVersion: int16s().Draw(t, "max"),
					UnknownTags: genTags(t, flex, 0)}
			}))
			if v >= 1 {
				m.ThrottleTimeMs = int32s().Draw(t, "ThrottleTimeMs")
			}
			if flex {
				m.SupportedFeatures = genArray(t, "SupportedFeatures", 3, rapid.Custom(func(t *rapid.T) codec.SupportedFeature {
					return codec.SupportedFeature{Name: genString.Draw(t, "name"),
						MinVersion: int16s().Draw(t, "min"), MaxVersion: int16s().Draw(t, "max"),
						UnknownTags: genTags(t, true, 0)}
				}))
				if rapid.Bool().Draw(t, "hasEpoch") {
					m.FinalizedFeaturesEpoch = rapid.Int64().Draw(t, "epoch")
				}
				m.FinalizedFeatures = genArray(t, "FinalizedFeatures", 3, rapid.Custom(func(t *rapid.T) codec.FinalizedFeature {
					return codec.FinalizedFeature{Name: genString.Draw(t, "name"),
						MaxVersionLevel: int16s().Draw(t, "max"), MinVersionLevel: int16s().Draw(t, "min"),
						UnknownTags: genTags(t, true, 0)}
				}))
				m.ZkMigrationReady = rapid.Bool().Draw(t, "zk")
				m.UnknownTags = genTags(t, true, 4)
			}
			return m
		})
	}},
	{"LeaveGroupRequest", codec.LeaveGroup, false, func(v int16) *rapid.Generator[codec.Message] {
		flex := flexible(codec.LeaveGroup, v)
		return rapid.Custom(func(t *rapid.T) codec.Message {
			m := &codec.LeaveGroupRequest{GroupId: genString.Draw(t, "GroupId")}
			if v <= 2 {
				m.MemberId = genString.Draw(t, "MemberId")
				return m
			}
			m.Members = genArray(t, "Members", 6, rapid.Custom(func(t *rapid.T) codec.LeaveGroupMember {
				mb := codec.LeaveGroupMember{MemberId: genString.Draw(t, "MemberId"),
					GroupInstanceId: genNullableString.Draw(t, "GroupInstanceId")}
				if v >= 5 {
					mb.Reason = genNullableString.Draw(t, "Reason")
				}
				mb.UnknownTags = genTags(t, flex, 0)
				return mb
			}))
			m.UnknownTags = genTags(t, flex, 0)
			return m
		})
	}},
	{"LeaveGroupResponse", codec.LeaveGroup, true, func(v int16) *rapid.Generator[codec.Message] {
		flex := flexible(codec.LeaveGroup, v)
		return rapid.Custom(func(t *rapid.T) codec.Message {
			m := &codec.LeaveGroupResponse{ErrorCode: codec.ErrorCode(int16s().Draw(t, "ErrorCode"))}
			if v >= 1 {
				m.ThrottleTimeMs = int32s().Draw(t, "ThrottleTimeMs")
			}
			if v >= 3 {
				m.Members = genArray(t, "Members", 6, rapid.Custom(func(t *rapid.T) codec.LeaveGroupMemberResponse {
					return codec.LeaveGroupMemberResponse{MemberId: genString.Draw(t, "MemberId"),
						GroupInstanceId: genNullableString.Draw(t, "GroupInstanceId"),
						ErrorCode:       codec.ErrorCode(int16s().Draw(t, "ErrorCode")),
						UnknownTags:     genTags(t, flex, 0)}
				}))
				m.UnknownTags = genTags(t, flex, 0)
			}
			return m
		})
	}},
	{"ConsumerGroupHeartbeatRequest", codec.ConsumerGroupHeartbeat, false, func(v int16) *rapid.Generator[codec.Message] {
		return rapid.Custom(func(t *rapid.T) codec.Message {
			m := &codec.ConsumerGroupHeartbeatRequest{
				GroupId:              genString.Draw(t, "GroupId"),
				MemberId:             genString.Draw(t, "MemberId"),
				MemberEpoch:          int32s().Draw(t, "MemberEpoch"),
				InstanceId:           genNullableString.Draw(t, "InstanceId"),
				RackId:               genNullableString.Draw(t, "RackId"),
				RebalanceTimeoutMs:   int32s().Draw(t, "RebalanceTimeoutMs"),
				SubscribedTopicNames: genNullableArray(t, "SubscribedTopicNames", 4, genString),
				ServerAssignor:       genNullableString.Draw(t, "ServerAssignor"),
				TopicPartitions:      genNullableArray(t, "TopicPartitions", 4, genHeartbeatTopicPartitions),
				UnknownTags:          genTags(t, true, 0),
			}
			if v >= 1 {
				m.SubscribedTopicRegex = genNullableString.Draw(t, "SubscribedTopicRegex")
			}
			return m
		})
	}},
	{"ConsumerGroupHeartbeatResponse", codec.ConsumerGroupHeartbeat, true, func(v int16) *rapid.Generator[codec.Message] {
		return rapid.Custom(func(t *rapid.T) codec.Message {
			m := &codec.ConsumerGroupHeartbeatResponse{
				ThrottleTimeMs:      int32s().Draw(t, "ThrottleTimeMs"),
				ErrorCode:           codec.ErrorCode(int16s().Draw(t, "ErrorCode")),
				ErrorMessage:        genNullableString.Draw(t, "ErrorMessage"),
				MemberId:            genNullableString.Draw(t, "MemberId"),
				MemberEpoch:         int32s().Draw(t, "MemberEpoch"),
				HeartbeatIntervalMs: int32s().Draw(t, "HeartbeatIntervalMs"),
				UnknownTags:         genTags(t, true, 0),
			}
			if rapid.Bool().Draw(t, "hasAssignment") {
				m.Assignment = &codec.ConsumerGroupHeartbeatAssignment{
					TopicPartitions: genArray(t, "TopicPartitions", 4, genHeartbeatTopicPartitions),
					UnknownTags:     genTags(t, true, 0),
				}
			}
			return m
		})
	}},
	{"ConsumerGroupDescribeRequest", codec.ConsumerGroupDescribe, false, func(v int16) *rapid.Generator[codec.Message] {
		return rapid.Custom(func(t *rapid.T) codec.Message {
			return &codec.ConsumerGroupDescribeRequest{
				GroupIds:                    genArray(t, "GroupIds", 5, genString),
				IncludeAuthorizedOperations: rapid.Bool().Draw(t, "IncludeAuthorizedOperations"),
				UnknownTags:                 genTags(t, true, 0),
			}
		})
	}},
	{"ConsumerGroupDescribeResponse", codec.ConsumerGroupDescribe, true, func(v int16) *rapid.Generator[codec.Message] {
		return rapid.Custom(func(t *rapid.T) codec.Message {
			return &codec.ConsumerGroupDescribeResponse{
				ThrottleTimeMs: int32s().Draw(t, "ThrottleTimeMs"),
				Groups:         genArray(t, "Groups", 3, genDescribedGroup(v)),
				UnknownTags:    genTags(t, true, 0),
			}
		})
	}},
	{"GetTelemetrySubscriptionsRequest", codec.GetTelemetrySubscriptions, false, func(v int16) *rapid.Generator[codec.Message] {
		return rapid.Custom(func(t *rapid.T) codec.Message {
			m := &codec.GetTelemetrySubscriptionsRequest{UnknownTags: genTags(t, true, 0)}
			if v == 0 {
				m.ClientInstanceId = genUUID.Draw(t, "ClientInstanceId")
			}
			return m
		})
	}},
	{"GetTelemetrySubscriptionsResponse", codec.GetTelemetrySubscriptions, true, func(v int16) *rapid.Generator[codec.Message] {
		return rapid.Custom(func(t *rapid.T) codec.Message {
			m := &codec.GetTelemetrySubscriptionsResponse{
				ThrottleTimeMs:           int32s().Draw(t, "ThrottleTimeMs"),
				ErrorCode:                codec.ErrorCode(int16s().Draw(t, "ErrorCode")),
				SubscriptionId:           int32s().Draw(t, "SubscriptionId"),
				AcceptedCompressionTypes: genArray(t, "AcceptedCompressionTypes", 5, rapid.Int8()),
				PushIntervalMs:           int32s().Draw(t, "PushIntervalMs"),
				TelemetryMaxBytes:        int32s().Draw(t, "TelemetryMaxBytes"),
				DeltaTemporality:         rapid.Bool().Draw(t, "DeltaTemporality"),
				RequestedMetrics:         genArray(t, "RequestedMetrics", 4, genString),
				UnknownTags:              genTags(t, true, 0),
			}
			if v == 0 {
				m.ClientInstanceId = genUUID.Draw(t, "ClientInstanceId")
			}
			return m
		})
	}},
	{"PushTelemetryRequest", codec.PushTelemetry, false, func(v int16) *rapid.Generator[codec.Message] {
		return rapid.Custom(func(t *rapid.T) codec.Message {
			m := &codec.PushTelemetryRequest{
				SubscriptionId:  int32s().Draw(t, "SubscriptionId"),
				Terminating:     rapid.Bool().Draw(t, "Terminating"),
				CompressionType: rapid.Int8().Draw(t, "CompressionType"),
				Metrics:         nilIfEmpty(rapid.SliceOfN(rapid.Byte(), 0, 300).Draw(t, "Metrics")),
				UnknownTags:     genTags(t, true, 0),
			}
			if v == 0 {
				m.ClientInstanceId = genUUID.Draw(t, "ClientInstanceId")
			}
			return m
		})
	}},
	{"PushTelemetryResponse", codec.PushTelemetry, true, func(v int16) *rapid.Generator[codec.Message] {
		return rapid.Custom(func(t *rapid.T) codec.Message {
			return &codec.PushTelemetryResponse{
				ThrottleTimeMs: int32s().Draw(t, "ThrottleTimeMs"),
				ErrorCode:      codec.ErrorCode(int16s().Draw(t, "ErrorCode")),
				UnknownTags:    genTags(t, true, 0),
			}
		})
	}},
}

var genHeartbeatTopicPartitions = rapid.Custom(func(t *rapid.T) codec.ConsumerGroupHeartbeatTopicPartitions {
	return codec.ConsumerGroupHeartbeatTopicPartitions{
		TopicId:     genUUID.Draw(t, "TopicId"),
		Partitions:  genArray(t, "Partitions", 6, int32s()),
		UnknownTags: genTags(t, true, 0),
	}
})

var genDescribedAssignment = rapid.Custom(func(t *rapid.T) codec.DescribedAssignment {
	return codec.DescribedAssignment{
		TopicPartitions: genArray(t, "TopicPartitions", 3, rapid.Custom(func(t *rapid.T) codec.DescribedTopicPartitions {
			return codec.DescribedTopicPartitions{
				TopicId:     genUUID.Draw(t, "TopicId"),
				TopicName:   genString.Draw(t, "TopicName"),
				Partitions:  genArray(t, "Partitions", 5, int32s()),
				UnknownTags: genTags(t, true, 0),
			}
		})),
		UnknownTags: genTags(t, true, 0),
	}
})

func genDescribedGroup(v int16) *rapid.Generator[codec.DescribedGroup] {
	return rapid.Custom(func(t *rapid.T) codec.DescribedGroup {
		return codec.DescribedGroup{
			ErrorCode:       codec.ErrorCode(int16s().Draw(t, "ErrorCode")),
			ErrorMessage:    genNullableString.Draw(t, "ErrorMessage"),
			GroupId:         genString.Draw(t, "GroupId"),
			GroupState:      genString.Draw(t, "GroupState"),
			GroupEpoch:      int32s().Draw(t, "GroupEpoch"),
			AssignmentEpoch: int32s().Draw(t, "AssignmentEpoch"),
			AssignorName:    genString.Draw(t, "AssignorName"),
			Members: genArray(t, "Members", 9, rapid.Custom(func(t *rapid.T) codec.DescribedMember {
				mb := codec.DescribedMember{
					MemberId:             genString.Draw(t, "MemberId"),
					InstanceId:           genNullableString.Draw(t, "InstanceId"),
					RackId:               genNullableString.Draw(t, "RackId"),
					MemberEpoch:          int32s().Draw(t, "MemberEpoch"),
					ClientId:             genString.Draw(t, "ClientId"),
					ClientHost:           genString.Draw(t, "ClientHost"),
					SubscribedTopicNames: genArray(t, "SubscribedTopicNames", 3, genString),
					SubscribedTopicRegex: genNullableString.Draw(t, "SubscribedTopicRegex"),
					Assignment:           genDescribedAssignment.Draw(t, "Assignment"),
					TargetAssignment:     genDescribedAssignment.Draw(t, "TargetAssignment"),
					MemberType:           codec.MemberTypeUnknown,
					UnknownTags:          genTags(t, true, 0),
				}
				if v >= 1 {
					mb.MemberType = rapid.Int8().Draw(t, "MemberType")
				}
				return mb
			})),
			AuthorizedOperations: int32s().Draw(t, "AuthorizedOperations"),
			UnknownTags:          genTags(t, true, 0),
		}
	})
}

// RequestHeader draws a header for a request of an implemented api at a
// version in range, at the header version its key and version call for:
// ClientInstanceId and unknown tags only in v2.
func RequestHeader() *rapid.Generator[codec.RequestHeader] { return genRequestHeader }

var genRequestHeader = rapid.Custom(func(t *rapid.T) codec.RequestHeader {
	a := rapid.SampledFrom(codec.AllAPIs()).Draw(t, "api")
	h := codec.RequestHeader{
		RequestApiKey:     a.Key,
		RequestApiVersion: rapid.Int16Range(a.MinVersion, a.MaxVersion).Draw(t, "version"),
		CorrelationId:     int32s().Draw(t, "CorrelationId"),
		ClientId:          genNullableString.Draw(t, "ClientId"),
	}
	if a.Flexible(h.RequestApiVersion) {
		if rapid.Bool().Draw(t, "hasInstanceId") {
			h.ClientInstanceId = codec.SomeUUID(genUUID.Draw(t, "ClientInstanceId"))
		}
		h.UnknownTags = genTags(t, true, 1)
	}
	return h
})

// genNullableAt draws a string that is nullable at this version only when
// nullable says so; otherwise it is never null.
func genNullableAt(t *rapid.T, label string, nullable bool) codec.NullableString {
	if nullable {
		return genNullableString.Draw(t, label)
	}
	return codec.Str(genString.Draw(t, label))
}

func genMetadataRequest(v int16) *rapid.Generator[codec.Message] {
	flex := flexible(codec.Metadata, v)
	return rapid.Custom(func(t *rapid.T) codec.Message {
		topic := rapid.Custom(func(t *rapid.T) codec.MetadataRequestTopic {
			tp := codec.MetadataRequestTopic{}
			if v >= 10 {
				tp.TopicId = genUUID.Draw(t, "TopicId")
			}
			tp.Name = genNullableAt(t, "Name", v >= 10)
			tp.UnknownTags = genTags(t, flex, 0)
			return tp
		})
		m := &codec.MetadataRequest{AllowAutoTopicCreation: true}
		if v >= 1 {
			m.Topics = genNullableArray(t, "Topics", 4, topic)
		} else {
			m.Topics = genArray(t, "Topics", 4, topic)
		}
		if v >= 4 {
			m.AllowAutoTopicCreation = rapid.Bool().Draw(t, "AllowAutoTopicCreation")
		}
		if v >= 8 && v <= 10 {
			m.IncludeClusterAuthorizedOperations = rapid.Bool().Draw(t, "IncludeClusterAuthorizedOperations")
		}
		if v >= 8 {
			m.IncludeTopicAuthorizedOperations = rapid.Bool().Draw(t, "IncludeTopicAuthorizedOperations")
		}
		m.UnknownTags = genTags(t, flex, 0)
		return m
	})
}

func genMetadataResponse(v int16) *rapid.Generator[codec.Message] {
	flex := flexible(codec.Metadata, v)
	broker := rapid.Custom(func(t *rapid.T) codec.MetadataResponseBroker {
		b := codec.MetadataResponseBroker{NodeId: int32s().Draw(t, "NodeId"), Host: genString.Draw(t, "Host"),
			Port: int32s().Draw(t, "Port")}
		if v >= 1 {
			b.Rack = genNullableString.Draw(t, "Rack")
		}
		b.UnknownTags = genTags(t, flex, 0)
		return b
	})
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := codec.NewMetadataResponse()
		if v >= 3 {
			m.ThrottleTimeMs = int32s().Draw(t, "ThrottleTimeMs")
		}
		m.Brokers = genArray(t, "Brokers", 4, broker)
		if v >= 2 {
			m.ClusterId = genNullableString.Draw(t, "ClusterId")
		}
		if v >= 1 {
			m.ControllerId = int32s().Draw(t, "ControllerId")
		}
		m.Topics = genArray(t, "Topics", 3, genMetadataTopic(v, flex))
		if v >= 8 && v <= 10 {
			m.ClusterAuthorizedOperations = int32s().Draw(t, "ClusterAuthorizedOperations")
		}
		if v >= 13 {
			m.ErrorCode = codec.ErrorCode(int16s().Draw(t, "ErrorCode"))
		}
		m.UnknownTags = genTags(t, flex, 0)
		return m
	})
}

func genMetadataTopic(v int16, flex bool) *rapid.Generator[codec.MetadataResponseTopic] {
	partition := rapid.Custom(func(t *rapid.T) codec.MetadataResponsePartition {
		p := codec.MetadataResponsePartition{ErrorCode: codec.ErrorCode(int16s().Draw(t, "ErrorCode")),
			PartitionIndex: int32s().Draw(t, "PartitionIndex"), LeaderId: int32s().Draw(t, "LeaderId"), LeaderEpoch: -1}
		if v >= 7 {
			p.LeaderEpoch = int32s().Draw(t, "LeaderEpoch")
		}
		p.ReplicaNodes = genArray(t, "ReplicaNodes", 4, int32s())
		p.IsrNodes = genArray(t, "IsrNodes", 4, int32s())
		if v >= 5 {
			p.OfflineReplicas = genArray(t, "OfflineReplicas", 3, int32s())
		}
		p.UnknownTags = genTags(t, flex, 0)
		return p
	})
	return rapid.Custom(func(t *rapid.T) codec.MetadataResponseTopic {
		tp := codec.MetadataResponseTopic{ErrorCode: codec.ErrorCode(int16s().Draw(t, "ErrorCode")),
			Name: genNullableAt(t, "Name", v >= 12), TopicAuthorizedOperations: codec.AuthorizedOperationsUnknown}
		if v >= 10 {
			tp.TopicId = genUUID.Draw(t, "TopicId")
		}
		if v >= 1 {
			tp.IsInternal = rapid.Bool().Draw(t, "IsInternal")
		}
		tp.Partitions = genArray(t, "Partitions", 4, partition)
		if v >= 8 {
			tp.TopicAuthorizedOperations = int32s().Draw(t, "TopicAuthorizedOperations")
		}
		tp.UnknownTags = genTags(t, flex, 0)
		return tp
	})
}

func genFindCoordinatorRequest(v int16) *rapid.Generator[codec.Message] {
	flex := flexible(codec.FindCoordinator, v)
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := &codec.FindCoordinatorRequest{}
		if v <= 3 {
			m.CoordinatorKey = genString.Draw(t, "Key")
		}
		if v >= 1 {
			m.KeyType = rapid.Int8().Draw(t, "KeyType")
		}
		if v >= 4 {
			m.CoordinatorKeys = genArray(t, "CoordinatorKeys", 4, genString)
		}
		m.UnknownTags = genTags(t, flex, 0)
		return m
	})
}

func genFindCoordinatorResponse(v int16) *rapid.Generator[codec.Message] {
	flex := flexible(codec.FindCoordinator, v)
	return rapid.Custom(func(t *rapid.T) codec.Message {
		m := &codec.FindCoordinatorResponse{}
		if v >= 1 {
			m.ThrottleTimeMs = int32s().Draw(t, "ThrottleTimeMs")
		}
		if v <= 3 {
			m.ErrorCode = codec.ErrorCode(int16s().Draw(t, "ErrorCode"))
			if v >= 1 {
				m.ErrorMessage = genNullableString.Draw(t, "ErrorMessage")
			}
			m.NodeId = int32s().Draw(t, "NodeId")
			m.Host = genString.Draw(t, "Host")
			m.Port = int32s().Draw(t, "Port")
		} else {
			m.Coordinators = genArray(t, "Coordinators", 4, rapid.Custom(func(t *rapid.T) codec.FindCoordinatorCoordinator {
				return codec.FindCoordinatorCoordinator{Key: genString.Draw(t, "Key"), NodeId: int32s().Draw(t, "NodeId"),
					Host: genString.Draw(t, "Host"), Port: int32s().Draw(t, "Port"),
					ErrorCode:    codec.ErrorCode(int16s().Draw(t, "ErrorCode")),
					ErrorMessage: genNullableString.Draw(t, "ErrorMessage"), UnknownTags: genTags(t, true, 0)}
			}))
		}
		m.UnknownTags = genTags(t, flex, 0)
		return m
	})
}
