package fuzz

import (
	"reflect"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Conversions between this codec's messages and franz-go's kmsg, the
// independent codec the differential tests compare against. kmsg names
// fields differently (Group for GroupId, Topics for TopicPartitions,
// ThrottleMillis for ThrottleTimeMs, ...), uses *string for nullable
// strings and a map for unknown tags; fromKmsg maps a kmsg value to the
// exact shape this codec's decoder produces (empty non-nullable arrays nil,
// unknown tags ascending with non-nil data).

// kmsgMessage is what kmsg requests and responses have in common.
type kmsgMessage interface {
	Key() int16
	MaxVersion() int16
	SetVersion(int16)
	AppendTo([]byte) []byte
	ReadFrom([]byte) error
}

// newKmsg returns a fresh kmsg message of kind (key, response) at version v.
func newKmsg(key codec.APIKey, response bool, v int16) kmsgMessage {
	var m kmsgMessage
	if response {
		m = kmsg.ResponseForKey(int16(key))
	} else {
		m = kmsg.RequestForKey(int16(key))
	}
	m.SetVersion(v)
	return m
}

// kmsgMaxVersion is the highest version both codecs implement for key.
// kmsg has ApiVersions v5, this codec stops at v4; kmsg has only v0 of the
// telemetry apis, whose v1 is docs/PROTOCOL.md A2's (KIP-1313) layout.
func kmsgMaxVersion(key codec.APIKey) int16 {
	ours := codec.Lookup(key).MaxVersion
	theirs := kmsg.RequestForKey(int16(key)).MaxVersion()
	return min(ours, theirs)
}

func tagsToKmsg(ts codec.TaggedFields) kmsg.Tags {
	var k kmsg.Tags
	for _, t := range ts {
		k.Set(t.Tag, t.Data)
	}
	return k
}

func tagsFromKmsg(k kmsg.Tags) codec.TaggedFields {
	var ts codec.TaggedFields
	k.Each(func(tag uint32, data []byte) {
		ts = append(ts, codec.TaggedField{Tag: tag, Data: append([]byte{}, data...)})
	})
	return ts
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// mapSlice converts each element; nil stays nil and a non-nil empty slice
// stays non-nil (for nullable arrays).
func mapSlice[A, B any](in []A, f func(*A) B) []B {
	if in == nil {
		return nil
	}
	out := make([]B, len(in))
	for i := range in {
		out[i] = f(&in[i])
	}
	return out
}

// toKmsg converts m, to be encoded at version v.
func toKmsg(m codec.Message, v int16) kmsgMessage {
	var k kmsgMessage
	switch m := m.(type) {
	case *codec.ApiVersionsRequest:
		k = &kmsg.ApiVersionsRequest{ClientSoftwareName: m.ClientSoftwareName, ClientSoftwareVersion: m.ClientSoftwareVersion,
			NodeID: -1, UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.ApiVersionsResponse:
		k = &kmsg.ApiVersionsResponse{
			ErrorCode: int16(m.ErrorCode),
			ApiKeys: mapSlice(m.ApiKeys, func(a *codec.ApiVersionsKey) kmsg.ApiVersionsResponseApiKey {
				return kmsg.ApiVersionsResponseApiKey{ApiKey: int16(a.ApiKey), MinVersion: a.MinVersion, MaxVersion: a.MaxVersion, UnknownTags: tagsToKmsg(a.UnknownTags)}
			}),
			ThrottleMillis: m.ThrottleTimeMs,
			SupportedFeatures: mapSlice(m.SupportedFeatures, func(f *codec.SupportedFeature) kmsg.ApiVersionsResponseSupportedFeature {
				return kmsg.ApiVersionsResponseSupportedFeature{Name: f.Name, MinVersion: f.MinVersion, MaxVersion: f.MaxVersion, UnknownTags: tagsToKmsg(f.UnknownTags)}
			}),
			FinalizedFeaturesEpoch: m.FinalizedFeaturesEpoch,
			FinalizedFeatures: mapSlice(m.FinalizedFeatures, func(f *codec.FinalizedFeature) kmsg.ApiVersionsResponseFinalizedFeature {
				return kmsg.ApiVersionsResponseFinalizedFeature{Name: f.Name, MaxVersionLevel: f.MaxVersionLevel, MinVersionLevel: f.MinVersionLevel, UnknownTags: tagsToKmsg(f.UnknownTags)}
			}),
			ZkMigrationReady: m.ZkMigrationReady,
			UnknownTags:      tagsToKmsg(m.UnknownTags),
		}
	case *codec.LeaveGroupRequest:
		k = &kmsg.LeaveGroupRequest{Group: m.GroupId, MemberID: m.MemberId,
			Members: mapSlice(m.Members, func(mb *codec.LeaveGroupMember) kmsg.LeaveGroupRequestMember {
				return kmsg.LeaveGroupRequestMember{MemberID: mb.MemberId, InstanceID: mb.GroupInstanceId.Ptr(), Reason: mb.Reason.Ptr(), UnknownTags: tagsToKmsg(mb.UnknownTags)}
			}),
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.LeaveGroupResponse:
		k = &kmsg.LeaveGroupResponse{ThrottleMillis: m.ThrottleTimeMs, ErrorCode: int16(m.ErrorCode),
			Members: mapSlice(m.Members, func(mb *codec.LeaveGroupMemberResponse) kmsg.LeaveGroupResponseMember {
				return kmsg.LeaveGroupResponseMember{MemberID: mb.MemberId, InstanceID: mb.GroupInstanceId.Ptr(), ErrorCode: int16(mb.ErrorCode), UnknownTags: tagsToKmsg(mb.UnknownTags)}
			}),
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.ConsumerGroupHeartbeatRequest:
		k = &kmsg.ConsumerGroupHeartbeatRequest{Group: m.GroupId, MemberID: m.MemberId, MemberEpoch: m.MemberEpoch,
			InstanceID: m.InstanceId.Ptr(), RackID: m.RackId.Ptr(), RebalanceTimeoutMillis: m.RebalanceTimeoutMs,
			SubscribedTopicNames: m.SubscribedTopicNames, SubscribedTopicRegex: m.SubscribedTopicRegex.Ptr(),
			ServerAssignor: m.ServerAssignor.Ptr(),
			Topics: mapSlice(m.TopicPartitions, func(tp *codec.ConsumerGroupHeartbeatTopicPartitions) kmsg.ConsumerGroupHeartbeatRequestTopic {
				return kmsg.ConsumerGroupHeartbeatRequestTopic{TopicID: tp.TopicId, Partitions: tp.Partitions, UnknownTags: tagsToKmsg(tp.UnknownTags)}
			}),
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.ConsumerGroupHeartbeatResponse:
		r := &kmsg.ConsumerGroupHeartbeatResponse{ThrottleMillis: m.ThrottleTimeMs, ErrorCode: int16(m.ErrorCode),
			ErrorMessage: m.ErrorMessage.Ptr(), MemberID: m.MemberId.Ptr(), MemberEpoch: m.MemberEpoch,
			HeartbeatIntervalMillis: m.HeartbeatIntervalMs, UnknownTags: tagsToKmsg(m.UnknownTags)}
		if a := m.Assignment; a != nil {
			r.Assignment = &kmsg.ConsumerGroupHeartbeatResponseAssignment{
				Topics: mapSlice(a.TopicPartitions, func(tp *codec.ConsumerGroupHeartbeatTopicPartitions) kmsg.ConsumerGroupHeartbeatResponseAssignmentTopic {
					return kmsg.ConsumerGroupHeartbeatResponseAssignmentTopic{TopicID: tp.TopicId, Partitions: tp.Partitions, UnknownTags: tagsToKmsg(tp.UnknownTags)}
				}),
				UnknownTags: tagsToKmsg(a.UnknownTags)}
		}
		k = r
	case *codec.ConsumerGroupDescribeRequest:
		k = &kmsg.ConsumerGroupDescribeRequest{Groups: m.GroupIds, IncludeAuthorizedOperations: m.IncludeAuthorizedOperations,
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.ConsumerGroupDescribeResponse:
		k = &kmsg.ConsumerGroupDescribeResponse{ThrottleMillis: m.ThrottleTimeMs,
			Groups:      mapSlice(m.Groups, describedGroupToKmsg),
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.GetTelemetrySubscriptionsRequest:
		k = &kmsg.GetTelemetrySubscriptionsRequest{ClientInstanceID: m.ClientInstanceId, UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.GetTelemetrySubscriptionsResponse:
		k = &kmsg.GetTelemetrySubscriptionsResponse{ThrottleMillis: m.ThrottleTimeMs, ErrorCode: int16(m.ErrorCode),
			ClientInstanceID: m.ClientInstanceId, SubscriptionID: m.SubscriptionId,
			AcceptedCompressionTypes: m.AcceptedCompressionTypes, PushIntervalMillis: m.PushIntervalMs,
			TelemetryMaxBytes: m.TelemetryMaxBytes, DeltaTemporality: m.DeltaTemporality,
			RequestedMetrics: m.RequestedMetrics, UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.PushTelemetryRequest:
		k = &kmsg.PushTelemetryRequest{ClientInstanceID: m.ClientInstanceId, SubscriptionID: m.SubscriptionId,
			Terminating: m.Terminating, CompressionType: m.CompressionType, Metrics: m.Metrics,
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.PushTelemetryResponse:
		k = &kmsg.PushTelemetryResponse{ThrottleMillis: m.ThrottleTimeMs, ErrorCode: int16(m.ErrorCode),
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.MetadataRequest, *codec.MetadataResponse, *codec.FindCoordinatorRequest, *codec.FindCoordinatorResponse:
		k = routingToKmsg(m)
	case *codec.JoinGroupRequest, *codec.JoinGroupResponse, *codec.HeartbeatRequest, *codec.HeartbeatResponse,
		*codec.SyncGroupRequest, *codec.SyncGroupResponse, *codec.DescribeGroupsRequest, *codec.DescribeGroupsResponse:
		k = classicToKmsg(m)
	case *codec.SaslHandshakeRequest, *codec.SaslHandshakeResponse, *codec.SaslAuthenticateRequest, *codec.SaslAuthenticateResponse:
		k = authToKmsg(m)
	default:
		panic("toKmsg: no conversion for " + reflect.TypeOf(m).String())
	}
	k.SetVersion(v)
	return k
}

func describedGroupToKmsg(g *codec.DescribedGroup) kmsg.ConsumerGroupDescribeResponseGroup {
	return kmsg.ConsumerGroupDescribeResponseGroup{ErrorCode: int16(g.ErrorCode), ErrorMessage: g.ErrorMessage.Ptr(),
		Group: g.GroupId, State: g.GroupState, Epoch: g.GroupEpoch, AssignmentEpoch: g.AssignmentEpoch,
		AssignorName: g.AssignorName,
		Members: mapSlice(g.Members, func(mb *codec.DescribedMember) kmsg.ConsumerGroupDescribeResponseGroupMember {
			return kmsg.ConsumerGroupDescribeResponseGroupMember{MemberID: mb.MemberId, InstanceID: mb.InstanceId.Ptr(),
				RackID: mb.RackId.Ptr(), MemberEpoch: mb.MemberEpoch, ClientID: mb.ClientId, ClientHost: mb.ClientHost,
				SubscribedTopics: mb.SubscribedTopicNames, SubscribedTopicRegex: mb.SubscribedTopicRegex.Ptr(),
				Assignment: describedAssignmentToKmsg(&mb.Assignment), TargetAssignment: describedAssignmentToKmsg(&mb.TargetAssignment),
				MemberType: mb.MemberType, UnknownTags: tagsToKmsg(mb.UnknownTags)}
		}),
		AuthorizedOperations: g.AuthorizedOperations, UnknownTags: tagsToKmsg(g.UnknownTags)}
}

func describedAssignmentToKmsg(a *codec.DescribedAssignment) kmsg.Assignment {
	return kmsg.Assignment{
		TopicPartitions: mapSlice(a.TopicPartitions, func(tp *codec.DescribedTopicPartitions) kmsg.AssignmentTopicPartition {
			return kmsg.AssignmentTopicPartition{TopicID: tp.TopicId, Topic: tp.TopicName, Partitions: tp.Partitions, UnknownTags: tagsToKmsg(tp.UnknownTags)}
		}),
		UnknownTags: tagsToKmsg(a.UnknownTags)}
}

// fromKmsg converts a kmsg message decoded at version v into the value this
// codec's decoder gives for the same bytes.
func fromKmsg(k kmsgMessage, v int16) codec.Message {
	switch k := k.(type) {
	case *kmsg.ApiVersionsRequest:
		return &codec.ApiVersionsRequest{ClientSoftwareName: k.ClientSoftwareName, ClientSoftwareVersion: k.ClientSoftwareVersion,
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.ApiVersionsResponse:
		return &codec.ApiVersionsResponse{
			ErrorCode: codec.ErrorCode(k.ErrorCode),
			ApiKeys: nilIfEmpty(mapSlice(k.ApiKeys, func(a *kmsg.ApiVersionsResponseApiKey) codec.ApiVersionsKey {
				return codec.ApiVersionsKey{ApiKey: codec.APIKey(a.ApiKey), MinVersion: a.MinVersion, MaxVersion: a.MaxVersion, UnknownTags: tagsFromKmsg(a.UnknownTags)}
			})),
			ThrottleTimeMs: k.ThrottleMillis,
			SupportedFeatures: nilIfEmpty(mapSlice(k.SupportedFeatures, func(f *kmsg.ApiVersionsResponseSupportedFeature) codec.SupportedFeature {
				return codec.SupportedFeature{Name: f.Name, MinVersion: f.MinVersion, MaxVersion: f.MaxVersion, UnknownTags: tagsFromKmsg(f.UnknownTags)}
			})),
			FinalizedFeaturesEpoch: k.FinalizedFeaturesEpoch,
			FinalizedFeatures: nilIfEmpty(mapSlice(k.FinalizedFeatures, func(f *kmsg.ApiVersionsResponseFinalizedFeature) codec.FinalizedFeature {
				return codec.FinalizedFeature{Name: f.Name, MaxVersionLevel: f.MaxVersionLevel, MinVersionLevel: f.MinVersionLevel, UnknownTags: tagsFromKmsg(f.UnknownTags)}
			})),
			ZkMigrationReady: k.ZkMigrationReady,
			UnknownTags:      tagsFromKmsg(k.UnknownTags),
		}
	case *kmsg.LeaveGroupRequest:
		return &codec.LeaveGroupRequest{GroupId: k.Group, MemberId: k.MemberID,
			Members: nilIfEmpty(mapSlice(k.Members, func(mb *kmsg.LeaveGroupRequestMember) codec.LeaveGroupMember {
				return codec.LeaveGroupMember{MemberId: mb.MemberID, GroupInstanceId: codec.FromPtr(mb.InstanceID),
					Reason: codec.FromPtr(mb.Reason), UnknownTags: tagsFromKmsg(mb.UnknownTags)}
			})),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.LeaveGroupResponse:
		return &codec.LeaveGroupResponse{ThrottleTimeMs: k.ThrottleMillis, ErrorCode: codec.ErrorCode(k.ErrorCode),
			Members: nilIfEmpty(mapSlice(k.Members, func(mb *kmsg.LeaveGroupResponseMember) codec.LeaveGroupMemberResponse {
				return codec.LeaveGroupMemberResponse{MemberId: mb.MemberID, GroupInstanceId: codec.FromPtr(mb.InstanceID),
					ErrorCode: codec.ErrorCode(mb.ErrorCode), UnknownTags: tagsFromKmsg(mb.UnknownTags)}
			})),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.ConsumerGroupHeartbeatRequest:
		return &codec.ConsumerGroupHeartbeatRequest{GroupId: k.Group, MemberId: k.MemberID, MemberEpoch: k.MemberEpoch,
			InstanceId: codec.FromPtr(k.InstanceID), RackId: codec.FromPtr(k.RackID), RebalanceTimeoutMs: k.RebalanceTimeoutMillis,
			SubscribedTopicNames: k.SubscribedTopicNames, SubscribedTopicRegex: codec.FromPtr(k.SubscribedTopicRegex),
			ServerAssignor: codec.FromPtr(k.ServerAssignor),
			TopicPartitions: mapSlice(k.Topics, func(tp *kmsg.ConsumerGroupHeartbeatRequestTopic) codec.ConsumerGroupHeartbeatTopicPartitions {
				return codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: tp.TopicID, Partitions: nilIfEmpty(tp.Partitions), UnknownTags: tagsFromKmsg(tp.UnknownTags)}
			}),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.ConsumerGroupHeartbeatResponse:
		m := &codec.ConsumerGroupHeartbeatResponse{ThrottleTimeMs: k.ThrottleMillis, ErrorCode: codec.ErrorCode(k.ErrorCode),
			ErrorMessage: codec.FromPtr(k.ErrorMessage), MemberId: codec.FromPtr(k.MemberID), MemberEpoch: k.MemberEpoch,
			HeartbeatIntervalMs: k.HeartbeatIntervalMillis, UnknownTags: tagsFromKmsg(k.UnknownTags)}
		if a := k.Assignment; a != nil {
			m.Assignment = &codec.ConsumerGroupHeartbeatAssignment{
				TopicPartitions: nilIfEmpty(mapSlice(a.Topics, func(tp *kmsg.ConsumerGroupHeartbeatResponseAssignmentTopic) codec.ConsumerGroupHeartbeatTopicPartitions {
					return codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: tp.TopicID, Partitions: nilIfEmpty(tp.Partitions), UnknownTags: tagsFromKmsg(tp.UnknownTags)}
				})),
				UnknownTags: tagsFromKmsg(a.UnknownTags)}
		}
		return m
	case *kmsg.ConsumerGroupDescribeRequest:
		return &codec.ConsumerGroupDescribeRequest{GroupIds: nilIfEmpty(k.Groups), IncludeAuthorizedOperations: k.IncludeAuthorizedOperations,
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.ConsumerGroupDescribeResponse:
		return &codec.ConsumerGroupDescribeResponse{ThrottleTimeMs: k.ThrottleMillis,
			Groups:      nilIfEmpty(mapSlice(k.Groups, describedGroupFromKmsg)),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.GetTelemetrySubscriptionsRequest:
		return &codec.GetTelemetrySubscriptionsRequest{ClientInstanceId: k.ClientInstanceID, UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.GetTelemetrySubscriptionsResponse:
		return &codec.GetTelemetrySubscriptionsResponse{ThrottleTimeMs: k.ThrottleMillis, ErrorCode: codec.ErrorCode(k.ErrorCode),
			ClientInstanceId: k.ClientInstanceID, SubscriptionId: k.SubscriptionID,
			AcceptedCompressionTypes: nilIfEmpty(k.AcceptedCompressionTypes), PushIntervalMs: k.PushIntervalMillis,
			TelemetryMaxBytes: k.TelemetryMaxBytes, DeltaTemporality: k.DeltaTemporality,
			RequestedMetrics: nilIfEmpty(k.RequestedMetrics), UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.PushTelemetryRequest:
		return &codec.PushTelemetryRequest{ClientInstanceId: k.ClientInstanceID, SubscriptionId: k.SubscriptionID,
			Terminating: k.Terminating, CompressionType: k.CompressionType, Metrics: nilIfEmpty(k.Metrics),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.PushTelemetryResponse:
		return &codec.PushTelemetryResponse{ThrottleTimeMs: k.ThrottleMillis, ErrorCode: codec.ErrorCode(k.ErrorCode),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.MetadataRequest, *kmsg.MetadataResponse, *kmsg.FindCoordinatorRequest, *kmsg.FindCoordinatorResponse:
		return routingFromKmsg(k, v)
	case *kmsg.JoinGroupRequest, *kmsg.JoinGroupResponse, *kmsg.HeartbeatRequest, *kmsg.HeartbeatResponse,
		*kmsg.SyncGroupRequest, *kmsg.SyncGroupResponse, *kmsg.DescribeGroupsRequest, *kmsg.DescribeGroupsResponse:
		return classicFromKmsg(k)
	case *kmsg.SASLHandshakeRequest, *kmsg.SASLHandshakeResponse, *kmsg.SASLAuthenticateRequest, *kmsg.SASLAuthenticateResponse:
		return authFromKmsg(k)
	}
	panic("fromKmsg: no conversion for " + reflect.TypeOf(k).String())
}

func describedGroupFromKmsg(g *kmsg.ConsumerGroupDescribeResponseGroup) codec.DescribedGroup {
	return codec.DescribedGroup{ErrorCode: codec.ErrorCode(g.ErrorCode), ErrorMessage: codec.FromPtr(g.ErrorMessage),
		GroupId: g.Group, GroupState: g.State, GroupEpoch: g.Epoch, AssignmentEpoch: g.AssignmentEpoch,
		AssignorName: g.AssignorName,
		Members: nilIfEmpty(mapSlice(g.Members, func(mb *kmsg.ConsumerGroupDescribeResponseGroupMember) codec.DescribedMember {
			return codec.DescribedMember{MemberId: mb.MemberID, InstanceId: codec.FromPtr(mb.InstanceID),
				RackId: codec.FromPtr(mb.RackID), MemberEpoch: mb.MemberEpoch, ClientId: mb.ClientID, ClientHost: mb.ClientHost,
				SubscribedTopicNames: nilIfEmpty(mb.SubscribedTopics), SubscribedTopicRegex: codec.FromPtr(mb.SubscribedTopicRegex),
				Assignment: describedAssignmentFromKmsg(&mb.Assignment), TargetAssignment: describedAssignmentFromKmsg(&mb.TargetAssignment),
				MemberType: mb.MemberType, UnknownTags: tagsFromKmsg(mb.UnknownTags)}
		})),
		AuthorizedOperations: g.AuthorizedOperations, UnknownTags: tagsFromKmsg(g.UnknownTags)}
}

func describedAssignmentFromKmsg(a *kmsg.Assignment) codec.DescribedAssignment {
	return codec.DescribedAssignment{
		TopicPartitions: nilIfEmpty(mapSlice(a.TopicPartitions, func(tp *kmsg.AssignmentTopicPartition) codec.DescribedTopicPartitions {
			return codec.DescribedTopicPartitions{TopicId: tp.TopicID, TopicName: tp.Topic, Partitions: nilIfEmpty(tp.Partitions), UnknownTags: tagsFromKmsg(tp.UnknownTags)}
		})),
		UnknownTags: tagsFromKmsg(a.UnknownTags)}
}

// normalizeTags rewrites every TaggedFields inside m the way kmsg's map
// holds unknown tags: ascending, a repeated tag keeping its last value, and
// nil when empty. A lenient decode keeps tags as read, which kmsg cannot
// represent; the values are the same otherwise.
func normalizeTags(m any) {
	normalizeValue(reflect.ValueOf(m))
}

var taggedFieldsType = reflect.TypeFor[codec.TaggedFields]()

func normalizeValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			normalizeValue(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			normalizeValue(v.Field(i))
		}
	case reflect.Slice:
		if v.Type() == taggedFieldsType {
			ts := v.Interface().(codec.TaggedFields)
			last := map[uint32][]byte{}
			for _, t := range ts {
				last[t.Tag] = t.Data
			}
			var out codec.TaggedFields
			for tag, data := range last {
				out = append(out, codec.TaggedField{Tag: tag, Data: data})
			}
			slices.SortFunc(out, func(a, b codec.TaggedField) int {
				if a.Tag < b.Tag {
					return -1
				}
				return 1
			})
			if v.CanSet() {
				v.Set(reflect.ValueOf(out))
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			normalizeValue(v.Index(i))
		}
	}
}
