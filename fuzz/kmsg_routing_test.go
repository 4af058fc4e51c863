package fuzz

import (
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Conversions of the routing apis (Metadata, FindCoordinator) between this
// codec and kmsg, in the manner of kmsg_test.go. kmsg names Metadata's
// fields Topic (a *string at every version), Partition, Leader, Replicas,
// ISR and AuthorizedOperations, and FindCoordinator's CoordinatorKey and
// CoordinatorType.

// nameToKmsg is a topic name as kmsg holds it: a *string, nil for null.
func nameToKmsg(n codec.NullableString) *string { return n.Ptr() }

func routingToKmsg(m codec.Message) kmsgMessage {
	switch m := m.(type) {
	case *codec.MetadataRequest:
		return &kmsg.MetadataRequest{
			Topics: mapSlice(m.Topics, func(t *codec.MetadataRequestTopic) kmsg.MetadataRequestTopic {
				return kmsg.MetadataRequestTopic{TopicID: t.TopicId, Topic: nameToKmsg(t.Name), UnknownTags: tagsToKmsg(t.UnknownTags)}
			}),
			AllowAutoTopicCreation:             m.AllowAutoTopicCreation,
			IncludeClusterAuthorizedOperations: m.IncludeClusterAuthorizedOperations,
			IncludeTopicAuthorizedOperations:   m.IncludeTopicAuthorizedOperations,
			UnknownTags:                        tagsToKmsg(m.UnknownTags)}
	case *codec.MetadataResponse:
		return &kmsg.MetadataResponse{ThrottleMillis: m.ThrottleTimeMs,
			Brokers: mapSlice(m.Brokers, func(b *codec.MetadataResponseBroker) kmsg.MetadataResponseBroker {
				return kmsg.MetadataResponseBroker{NodeID: b.NodeId, Host: b.Host, Port: b.Port, Rack: b.Rack.Ptr(), UnknownTags: tagsToKmsg(b.UnknownTags)}
			}),
			ClusterID: m.ClusterId.Ptr(), ControllerID: m.ControllerId,
			Topics: mapSlice(m.Topics, func(t *codec.MetadataResponseTopic) kmsg.MetadataResponseTopic {
				return kmsg.MetadataResponseTopic{ErrorCode: int16(t.ErrorCode), Topic: nameToKmsg(t.Name), TopicID: t.TopicId,
					IsInternal: t.IsInternal, AuthorizedOperations: t.TopicAuthorizedOperations, UnknownTags: tagsToKmsg(t.UnknownTags),
					Partitions: mapSlice(t.Partitions, func(p *codec.MetadataResponsePartition) kmsg.MetadataResponseTopicPartition {
						return kmsg.MetadataResponseTopicPartition{ErrorCode: int16(p.ErrorCode), Partition: p.PartitionIndex,
							Leader: p.LeaderId, LeaderEpoch: p.LeaderEpoch, Replicas: p.ReplicaNodes, ISR: p.IsrNodes,
							OfflineReplicas: p.OfflineReplicas, UnknownTags: tagsToKmsg(p.UnknownTags)}
					})}
			}),
			AuthorizedOperations: m.ClusterAuthorizedOperations, ErrorCode: int16(m.ErrorCode),
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.FindCoordinatorRequest:
		return &kmsg.FindCoordinatorRequest{CoordinatorKey: m.CoordinatorKey, CoordinatorType: m.KeyType,
			CoordinatorKeys: m.CoordinatorKeys, UnknownTags: tagsToKmsg(m.UnknownTags)}
	case *codec.FindCoordinatorResponse:
		return &kmsg.FindCoordinatorResponse{ThrottleMillis: m.ThrottleTimeMs, ErrorCode: int16(m.ErrorCode),
			ErrorMessage: m.ErrorMessage.Ptr(), NodeID: m.NodeId, Host: m.Host, Port: m.Port,
			Coordinators: mapSlice(m.Coordinators, func(c *codec.FindCoordinatorCoordinator) kmsg.FindCoordinatorResponseCoordinator {
				return kmsg.FindCoordinatorResponseCoordinator{Key: c.Key, NodeID: c.NodeId, Host: c.Host, Port: c.Port,
					ErrorCode: int16(c.ErrorCode), ErrorMessage: c.ErrorMessage.Ptr(), UnknownTags: tagsToKmsg(c.UnknownTags)}
			}),
			UnknownTags: tagsToKmsg(m.UnknownTags)}
	}
	panic("routingToKmsg: not a routing message")
}

// routingFromKmsg converts a kmsg routing message decoded at version v into
// the value this codec's decoder gives: Kafka's defaults for the fields v
// lacks (kmsg leaves AllowAutoTopicCreation false below v4, where Kafka
// means true), and the request's Topics at v0, a non-nullable array, nil
// when empty.
func routingFromKmsg(k kmsgMessage, v int16) codec.Message {
	switch k := k.(type) {
	case *kmsg.MetadataRequest:
		m := &codec.MetadataRequest{
			Topics: mapSlice(k.Topics, func(t *kmsg.MetadataRequestTopic) codec.MetadataRequestTopic {
				return codec.MetadataRequestTopic{TopicId: t.TopicID, Name: codec.FromPtr(t.Topic), UnknownTags: tagsFromKmsg(t.UnknownTags)}
			}),
			AllowAutoTopicCreation:             k.AllowAutoTopicCreation || v < 4,
			IncludeClusterAuthorizedOperations: k.IncludeClusterAuthorizedOperations,
			IncludeTopicAuthorizedOperations:   k.IncludeTopicAuthorizedOperations,
			UnknownTags:                        tagsFromKmsg(k.UnknownTags)}
		if v < 1 {
			m.Topics = nilIfEmpty(m.Topics)
		}
		return m
	case *kmsg.MetadataResponse:
		return &codec.MetadataResponse{ThrottleTimeMs: k.ThrottleMillis,
			Brokers: nilIfEmpty(mapSlice(k.Brokers, func(b *kmsg.MetadataResponseBroker) codec.MetadataResponseBroker {
				return codec.MetadataResponseBroker{NodeId: b.NodeID, Host: b.Host, Port: b.Port, Rack: codec.FromPtr(b.Rack), UnknownTags: tagsFromKmsg(b.UnknownTags)}
			})),
			ClusterId: codec.FromPtr(k.ClusterID), ControllerId: k.ControllerID,
			Topics: nilIfEmpty(mapSlice(k.Topics, func(t *kmsg.MetadataResponseTopic) codec.MetadataResponseTopic {
				return codec.MetadataResponseTopic{ErrorCode: codec.ErrorCode(t.ErrorCode), Name: codec.FromPtr(t.Topic), TopicId: t.TopicID,
					IsInternal: t.IsInternal, TopicAuthorizedOperations: t.AuthorizedOperations, UnknownTags: tagsFromKmsg(t.UnknownTags),
					Partitions: nilIfEmpty(mapSlice(t.Partitions, func(p *kmsg.MetadataResponseTopicPartition) codec.MetadataResponsePartition {
						return codec.MetadataResponsePartition{ErrorCode: codec.ErrorCode(p.ErrorCode), PartitionIndex: p.Partition,
							LeaderId: p.Leader, LeaderEpoch: p.LeaderEpoch, ReplicaNodes: nilIfEmpty(p.Replicas), IsrNodes: nilIfEmpty(p.ISR),
							OfflineReplicas: nilIfEmpty(p.OfflineReplicas), UnknownTags: tagsFromKmsg(p.UnknownTags)}
					}))}
			})),
			ClusterAuthorizedOperations: k.AuthorizedOperations, ErrorCode: codec.ErrorCode(k.ErrorCode),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.FindCoordinatorRequest:
		return &codec.FindCoordinatorRequest{CoordinatorKey: k.CoordinatorKey, KeyType: k.CoordinatorType,
			CoordinatorKeys: nilIfEmpty(k.CoordinatorKeys), UnknownTags: tagsFromKmsg(k.UnknownTags)}
	case *kmsg.FindCoordinatorResponse:
		return &codec.FindCoordinatorResponse{ThrottleTimeMs: k.ThrottleMillis, ErrorCode: codec.ErrorCode(k.ErrorCode),
			ErrorMessage: codec.FromPtr(k.ErrorMessage), NodeId: k.NodeID, Host: k.Host, Port: k.Port,
			Coordinators: nilIfEmpty(mapSlice(k.Coordinators, func(c *kmsg.FindCoordinatorResponseCoordinator) codec.FindCoordinatorCoordinator {
				return codec.FindCoordinatorCoordinator{Key: c.Key, NodeId: c.NodeID, Host: c.Host, Port: c.Port,
					ErrorCode: codec.ErrorCode(c.ErrorCode), ErrorMessage: codec.FromPtr(c.ErrorMessage), UnknownTags: tagsFromKmsg(c.UnknownTags)}
			})),
			UnknownTags: tagsFromKmsg(k.UnknownTags)}
	}
	panic("routingFromKmsg: not a routing message")
}
