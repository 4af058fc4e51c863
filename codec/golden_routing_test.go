package codec_test

import "github.com/ghostcheck/ghostcheck/codec"

// Golden vectors of the routing apis, written from Apache Kafka's
// MetadataRequest/Response.json and FindCoordinatorRequest/Response.json
// (field order, versions, nullability, flexible versions), never produced
// by this codec. They join goldenChecked in goldenBodies.

// opsUnknown is the authorized-operations default, INT32_MIN (80 00 00 00).
const opsUnknown = codec.AuthorizedOperationsUnknown

// The fields a Metadata version lacks decode to Kafka's defaults; these
// helpers fill them in so the vectors show only what is on the wire.

func mdRequest(topics []codec.MetadataRequestTopic) *codec.MetadataRequest {
	return &codec.MetadataRequest{Topics: topics, AllowAutoTopicCreation: true}
}

func mdTopic(name string) codec.MetadataRequestTopic {
	return codec.MetadataRequestTopic{Name: codec.Str(name)}
}

func mdResponse(f func(m *codec.MetadataResponse)) *codec.MetadataResponse {
	m := codec.NewMetadataResponse()
	f(m)
	return m
}

func mdRespTopic(code codec.ErrorCode, name string, parts ...codec.MetadataResponsePartition) codec.MetadataResponseTopic {
	return codec.MetadataResponseTopic{ErrorCode: code, Name: codec.Str(name), Partitions: parts,
		TopicAuthorizedOperations: opsUnknown}
}

func mdPartition(index, leader int32, replicas, isr, offline []int32) codec.MetadataResponsePartition {
	return codec.MetadataResponsePartition{PartitionIndex: index, LeaderId: leader, LeaderEpoch: -1,
		ReplicaNodes: replicas, IsrNodes: isr, OfflineReplicas: offline}
}

var goldenRouting = []golden{
	// ---------------------------------------------------------------- Metadata (3)
	{"MetadataRequest v0 all topics", 0, mdRequest(nil), `
		00 00 00 00  # Topics: empty = all topics at v0 (non-nullable, decodes to nil)`},
	{"MetadataRequest v1 null topics", 1, mdRequest(nil), `
		ff ff ff ff  # Topics: null = all topics (v1+)`},
	{"MetadataRequest v2 no topics", 2, mdRequest([]codec.MetadataRequestTopic{}), `
		00 00 00 00  # Topics: empty, not null = no topics`},
	{"MetadataRequest v3 two topics", 3, mdRequest([]codec.MetadataRequestTopic{mdTopic("a"), mdTopic("bc")}), `
		00 00 00 02  # Topics: 2
		00 01 61     #   Name "a"
		00 02 62 63  #   Name "bc"`},
	{"MetadataRequest v4 no auto creation", 4, &codec.MetadataRequest{
		Topics: []codec.MetadataRequestTopic{mdTopic("t")}}, `
		00 00 00 01 00 01 74  # Topics: ["t"]
		00                    # AllowAutoTopicCreation false (v4+)`},
	{"MetadataRequest v5", 5, mdRequest(nil), `
		ff ff ff ff  # Topics null
		01           # AllowAutoTopicCreation true`},
	{"MetadataRequest v6", 6, mdRequest([]codec.MetadataRequestTopic{mdTopic("t")}), `
		00 00 00 01 00 01 74 01  # Topics ["t"], AllowAutoTopicCreation true`},
	{"MetadataRequest v7", 7, mdRequest([]codec.MetadataRequestTopic{}), `
		00 00 00 00 01  # Topics empty, AllowAutoTopicCreation true`},
	{"MetadataRequest v8 authorized operations", 8, &codec.MetadataRequest{
		Topics: []codec.MetadataRequestTopic{mdTopic("t")}, AllowAutoTopicCreation: true,
		IncludeClusterAuthorizedOperations: true}, `
		00 00 00 01 00 01 74  # Topics ["t"]
		01                    # AllowAutoTopicCreation true
		01                    # IncludeClusterAuthorizedOperations true (v8-v10)
		00                    # IncludeTopicAuthorizedOperations false (v8+)`},
	{"MetadataRequest v9 flexible", 9, &codec.MetadataRequest{
		Topics: []codec.MetadataRequestTopic{mdTopic("t")}, AllowAutoTopicCreation: true,
		IncludeTopicAuthorizedOperations: true}, `
		02           # Topics: compact array of 1
		02 74        #   Name "t"
		00           #   topic tags
		01 00 01     # AllowAutoTopicCreation true, IncludeCluster.. false, IncludeTopic.. true
		00           # tags`},
	{"MetadataRequest v10 topic id", 10, &codec.MetadataRequest{
		Topics: []codec.MetadataRequestTopic{{TopicId: u00, Name: codec.Str("t")}}}, `
		02           # Topics: 1
		00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  # TopicId (v10+)
		02 74        #   Name "t" (nullable from v10)
		00           #   topic tags
		00 00 00     # AllowAutoTopicCreation false, IncludeCluster.. false, IncludeTopic.. false
		00           # tags`},
	{"MetadataRequest v11 null topics", 11, mdRequest(nil), `
		00     # Topics: null (compact 0)
		01 00  # AllowAutoTopicCreation true, IncludeTopicAuthorizedOperations false
		       # (no IncludeClusterAuthorizedOperations from v11)
		00     # tags`},
	{"MetadataRequest v12 topic by id", 12, &codec.MetadataRequest{
		Topics:                           []codec.MetadataRequestTopic{{TopicId: u10, Name: codec.Null}},
		IncludeTopicAuthorizedOperations: true,
		UnknownTags:                      codec.TaggedFields{{Tag: 3, Data: []byte{0xaa}}}}, `
		02           # Topics: 1
		10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f  # TopicId
		00           #   Name null: asked by id
		00           #   topic tags
		00 01        # AllowAutoTopicCreation false, IncludeTopicAuthorizedOperations true
		01 03 01 aa  # tags: tag 3, size 1, aa`},
	{"MetadataRequest v13 no topics", 13, mdRequest([]codec.MetadataRequestTopic{}), `
		01     # Topics: empty
		01 00  # AllowAutoTopicCreation true, IncludeTopicAuthorizedOperations false
		00     # tags`},

	{"MetadataResponse v0", 0, mdResponse(func(m *codec.MetadataResponse) {
		m.Brokers = []codec.MetadataResponseBroker{{NodeId: 1, Host: "h", Port: 9092}}
		m.Topics = []codec.MetadataResponseTopic{mdRespTopic(codec.None, "t", mdPartition(0, 1, []int32{1}, []int32{1}, nil))}
	}), `
		00 00 00 01        # Brokers: 1
		00 00 00 01        #   NodeId 1
		00 01 68           #   Host "h"
		00 00 23 84        #   Port 9092
		00 00 00 01        # Topics: 1
		00 00              #   ErrorCode 0
		00 01 74           #   Name "t"
		00 00 00 01        #   Partitions: 1
		00 00              #     ErrorCode 0
		00 00 00 00        #     PartitionIndex 0
		00 00 00 01        #     LeaderId 1
		00 00 00 01 00 00 00 01  # ReplicaNodes [1]
		00 00 00 01 00 00 00 01  # IsrNodes [1]`},
	{"MetadataResponse v1 rack, controller, internal", 1, mdResponse(func(m *codec.MetadataResponse) {
		m.Brokers = []codec.MetadataResponseBroker{{NodeId: 1, Host: "h", Port: 9092, Rack: codec.Str("r")}}
		m.ControllerId = 1
		t := mdRespTopic(codec.None, "t")
		t.IsInternal = true
		m.Topics = []codec.MetadataResponseTopic{t}
	}), `
		00 00 00 01  00 00 00 01  00 01 68  00 00 23 84  # Brokers: 1, NodeId 1, Host "h", Port 9092
		00 01 72           #   Rack "r" (v1+)
		00 00 00 01        # ControllerId 1 (v1+)
		00 00 00 01        # Topics: 1
		00 00  00 01 74    #   ErrorCode 0, Name "t"
		01                 #   IsInternal true (v1+)
		00 00 00 00        #   Partitions: empty`},
	{"MetadataResponse v2 cluster id", 2, mdResponse(func(m *codec.MetadataResponse) {
		m.ClusterId = codec.Str("c")
		m.ControllerId = 2
	}), `
		00 00 00 00  # Brokers: empty
		00 01 63     # ClusterId "c" (v2+)
		00 00 00 02  # ControllerId 2
		00 00 00 00  # Topics: empty`},
	{"MetadataResponse v3 throttled, unknown topic", 3, mdResponse(func(m *codec.MetadataResponse) {
		m.ThrottleTimeMs = 5
		m.Brokers = []codec.MetadataResponseBroker{{NodeId: 2, Host: "h2", Port: 9093}}
		m.Topics = []codec.MetadataResponseTopic{mdRespTopic(codec.UnknownTopicOrPartition, "x")}
	}), `
		00 00 00 05  # ThrottleTimeMs 5 (v3+, first)
		00 00 00 01  00 00 00 02  00 02 68 32  00 00 23 85  # Brokers: 1, NodeId 2, Host "h2", Port 9093
		ff ff        #   Rack null
		ff ff        # ClusterId null
		ff ff ff ff  # ControllerId -1
		00 00 00 01  # Topics: 1
		00 03        #   ErrorCode 3 UNKNOWN_TOPIC_OR_PARTITION
		00 01 78     #   Name "x"
		00           #   IsInternal false
		00 00 00 00  #   Partitions: empty`},
	{"MetadataResponse v4 two brokers", 4, mdResponse(func(m *codec.MetadataResponse) {
		m.Brokers = []codec.MetadataResponseBroker{{NodeId: 0, Host: "a", Port: 1}, {NodeId: 1, Host: "b", Port: 2, Rack: codec.Str("")}}
		m.ControllerId = 0
	}), `
		00 00 00 00  # ThrottleTimeMs 0
		00 00 00 02  # Brokers: 2
		00 00 00 00  00 01 61  00 00 00 01  ff ff  # NodeId 0, "a", Port 1, Rack null
		00 00 00 01  00 01 62  00 00 00 02  00 00  # NodeId 1, "b", Port 2, Rack "" (empty, not null)
		ff ff        # ClusterId null
		00 00 00 00  # ControllerId 0
		00 00 00 00  # Topics: empty`},
	{"MetadataResponse v5 offline replicas", 5, mdResponse(func(m *codec.MetadataResponse) {
		m.ControllerId = 1
		p := mdPartition(0, 1, []int32{1, 2}, []int32{1}, []int32{2})
		p.ErrorCode = 9
		m.Topics = []codec.MetadataResponseTopic{mdRespTopic(codec.None, "t", p)}
	}), `
		00 00 00 00  # ThrottleTimeMs 0
		00 00 00 00  # Brokers: empty
		ff ff        # ClusterId null
		00 00 00 01  # ControllerId 1
		00 00 00 01  # Topics: 1
		00 00  00 01 74  00  # ErrorCode 0, Name "t", IsInternal false
		00 00 00 01  #   Partitions: 1
		00 09        #     ErrorCode 9 REPLICA_NOT_AVAILABLE
		00 00 00 00  #     PartitionIndex 0
		00 00 00 01  #     LeaderId 1
		00 00 00 02  00 00 00 01  00 00 00 02  # ReplicaNodes [1 2]
		00 00 00 01  00 00 00 01               # IsrNodes [1]
		00 00 00 01  00 00 00 02               # OfflineReplicas [2] (v5+)`},
	{"MetadataResponse v6", 6, mdResponse(func(m *codec.MetadataResponse) {
		m.Topics = []codec.MetadataResponseTopic{mdRespTopic(codec.None, "t", mdPartition(3, -1, nil, nil, nil))}
	}), `
		00 00 00 00  00 00 00 00  ff ff  ff ff ff ff  # ThrottleTimeMs, Brokers empty, ClusterId null, ControllerId -1
		00 00 00 01  00 00  00 01 74  00  # Topics: 1, ErrorCode 0, Name "t", IsInternal false
		00 00 00 01  # Partitions: 1
		00 00  00 00 00 03  ff ff ff ff  # ErrorCode 0, PartitionIndex 3, LeaderId -1 (none)
		00 00 00 00  00 00 00 00  00 00 00 00  # ReplicaNodes, IsrNodes, OfflineReplicas: empty`},
	{"MetadataResponse v7 leader epoch", 7, mdResponse(func(m *codec.MetadataResponse) {
		p := mdPartition(0, 1, []int32{1}, []int32{1}, nil)
		p.LeaderEpoch = 4
		m.Topics = []codec.MetadataResponseTopic{mdRespTopic(codec.None, "t", p)}
	}), `
		00 00 00 00  00 00 00 00  ff ff  ff ff ff ff  # ThrottleTimeMs, Brokers empty, ClusterId null, ControllerId -1
		00 00 00 01  00 00  00 01 74  00  # Topics: 1, "t"
		00 00 00 01  # Partitions: 1
		00 00  00 00 00 00  00 00 00 01  # ErrorCode 0, PartitionIndex 0, LeaderId 1
		00 00 00 04  # LeaderEpoch 4 (v7+)
		00 00 00 01 00 00 00 01  00 00 00 01 00 00 00 01  # ReplicaNodes [1], IsrNodes [1]
		00 00 00 00  # OfflineReplicas: empty`},
	{"MetadataResponse v8 authorized operations", 8, mdResponse(func(m *codec.MetadataResponse) {
		t := mdRespTopic(codec.None, "t")
		t.TopicAuthorizedOperations = 0x0f8
		m.Topics = []codec.MetadataResponseTopic{t}
		m.ClusterAuthorizedOperations = 0
	}), `
		00 00 00 00  00 00 00 00  ff ff  ff ff ff ff  # ThrottleTimeMs, Brokers empty, ClusterId null, ControllerId -1
		00 00 00 01  00 00  00 01 74  00  00 00 00 00  # Topics: 1, "t", not internal, no partitions
		00 00 00 f8  #   TopicAuthorizedOperations 0xf8 (v8+)
		00 00 00 00  # ClusterAuthorizedOperations 0 (v8-v10)`},
	{"MetadataResponse v9 flexible", 9, mdResponse(func(m *codec.MetadataResponse) {
		m.Brokers = []codec.MetadataResponseBroker{{NodeId: 1, Host: "h", Port: 9092}}
		m.ClusterId = codec.Str("c")
		m.ControllerId = 1
		m.Topics = []codec.MetadataResponseTopic{mdRespTopic(codec.None, "t", mdPartition(0, 1, []int32{1}, []int32{1}, nil))}
	}), `
		00 00 00 00  # ThrottleTimeMs 0
		02           # Brokers: compact array of 1
		00 00 00 01  02 68  00 00 23 84  # NodeId 1, Host "h", Port 9092
		00  00       #   Rack null, broker tags
		02 63        # ClusterId "c"
		00 00 00 01  # ControllerId 1
		02           # Topics: 1
		00 00  02 74  00  # ErrorCode 0, Name "t", IsInternal false
		02           #   Partitions: 1
		00 00  00 00 00 00  00 00 00 01  ff ff ff ff  # ErrorCode, PartitionIndex 0, LeaderId 1, LeaderEpoch -1
		02 00 00 00 01  02 00 00 00 01  01  # ReplicaNodes [1], IsrNodes [1], OfflineReplicas empty
		00           #     partition tags
		80 00 00 00  #   TopicAuthorizedOperations INT32_MIN
		00           #   topic tags
		80 00 00 00  # ClusterAuthorizedOperations INT32_MIN
		00           # tags`},
	{"MetadataResponse v10 topic id and tags", 10, mdResponse(func(m *codec.MetadataResponse) {
		t := mdRespTopic(codec.None, "t")
		t.TopicId = u00
		t.UnknownTags = codec.TaggedFields{{Tag: 0, Data: []byte{}}}
		m.Topics = []codec.MetadataResponseTopic{t}
	}), `
		00 00 00 00  01  00  ff ff ff ff  # ThrottleTimeMs, Brokers empty, ClusterId null, ControllerId -1
		02           # Topics: 1
		00 00  02 74 #   ErrorCode 0, Name "t"
		00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  # TopicId (v10+)
		00  01       #   IsInternal false, Partitions empty
		80 00 00 00  #   TopicAuthorizedOperations INT32_MIN
		01 00 00     #   topic tags: tag 0, size 0
		80 00 00 00  # ClusterAuthorizedOperations INT32_MIN (last at v10)
		00           # tags`},
	{"MetadataResponse v11 no cluster operations", 11, mdResponse(func(m *codec.MetadataResponse) {
		m.Brokers = []codec.MetadataResponseBroker{{NodeId: 7, Host: "broker-7", Port: 19092, Rack: codec.Str("az1")}}
		m.ControllerId = 7
	}), `
		00 00 00 00  # ThrottleTimeMs 0
		02           # Brokers: 1
		00 00 00 07  # NodeId 7
		09 62 72 6f 6b 65 72 2d 37  # Host "broker-7"
		00 00 4a 94  # Port 19092
		04 61 7a 31  # Rack "az1"
		00           # broker tags
		00           # ClusterId null
		00 00 00 07  # ControllerId 7
		01           # Topics: empty
		             # (no ClusterAuthorizedOperations from v11)
		00           # tags`},
	{"MetadataResponse v12 unknown topic id", 12, mdResponse(func(m *codec.MetadataResponse) {
		m.Topics = []codec.MetadataResponseTopic{{ErrorCode: codec.UnknownTopicID, Name: codec.Null, TopicId: u10,
			TopicAuthorizedOperations: opsUnknown}}
	}), `
		00 00 00 00  01  00  ff ff ff ff  # ThrottleTimeMs, Brokers empty, ClusterId null, ControllerId -1
		02           # Topics: 1
		00 64        #   ErrorCode 100 UNKNOWN_TOPIC_ID
		00           #   Name null (nullable from v12)
		10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f  # TopicId
		00 01        #   IsInternal false, Partitions empty
		80 00 00 00  #   TopicAuthorizedOperations INT32_MIN
		00           #   topic tags
		00           # tags`},
	{"MetadataResponse v13 top-level error", 13, mdResponse(func(m *codec.MetadataResponse) {
		m.ThrottleTimeMs = 1
		m.ErrorCode = 129 // REBOOTSTRAP_REQUIRED (KIP-1102)
	}), `
		00 00 00 01  # ThrottleTimeMs 1
		01  00       # Brokers empty, ClusterId null
		ff ff ff ff  # ControllerId -1
		01           # Topics: empty
		00 81        # ErrorCode 129 (v13+)
		00           # tags`},

	// ---------------------------------------------------------------- FindCoordinator (10)
	{"FindCoordinatorRequest v0", 0, &codec.FindCoordinatorRequest{CoordinatorKey: "g"}, `
		00 01 67  # Key "g"`},
	{"FindCoordinatorRequest v1 group", 1, &codec.FindCoordinatorRequest{CoordinatorKey: "g"}, `
		00 01 67  # Key "g"
		00        # KeyType 0 group (v1+)`},
	{"FindCoordinatorRequest v2 transaction", 2, &codec.FindCoordinatorRequest{CoordinatorKey: "tx",
		KeyType: codec.CoordinatorKeyTransaction}, `
		00 02 74 78  # Key "tx"
		01           # KeyType 1 transaction`},
	{"FindCoordinatorRequest v3 flexible", 3, &codec.FindCoordinatorRequest{CoordinatorKey: "g"}, `
		02 67  # Key: compact "g"
		00     # KeyType 0
		00     # tags`},
	{"FindCoordinatorRequest v4 batch", 4, &codec.FindCoordinatorRequest{CoordinatorKeys: []string{"g1", "g2"}}, `
		00              # KeyType 0 (no Key from v4)
		03 03 67 31 03 67 32  # CoordinatorKeys: ["g1", "g2"]
		00              # tags`},
	{"FindCoordinatorRequest v5 transactions", 5, &codec.FindCoordinatorRequest{KeyType: codec.CoordinatorKeyTransaction,
		CoordinatorKeys: []string{"t"}}, `
		01        # KeyType 1
		02 02 74  # CoordinatorKeys: ["t"]
		00        # tags`},
	{"FindCoordinatorRequest v6 share group, no keys, a tag", 6, &codec.FindCoordinatorRequest{KeyType: codec.CoordinatorKeyShare,
		UnknownTags: codec.TaggedFields{{Tag: 9, Data: []byte{1, 2}}}}, `
		02           # KeyType 2 share (v6)
		01           # CoordinatorKeys: empty (decodes to nil)
		01 09 02 01 02  # tags: tag 9, size 2`},

	{"FindCoordinatorResponse v0", 0, &codec.FindCoordinatorResponse{NodeId: 1, Host: "h", Port: 9092}, `
		00 00        # ErrorCode 0
		00 00 00 01  # NodeId 1
		00 01 68     # Host "h"
		00 00 23 84  # Port 9092`},
	{"FindCoordinatorResponse v1 not available", 1, &codec.FindCoordinatorResponse{ErrorCode: codec.CoordinatorNotAvailable,
		ErrorMessage: codec.Str("no"), NodeId: -1, Port: -1}, `
		00 00 00 00  # ThrottleTimeMs 0 (v1+)
		00 0f        # ErrorCode 15 COORDINATOR_NOT_AVAILABLE
		00 02 6e 6f  # ErrorMessage "no" (v1+)
		ff ff ff ff  # NodeId -1
		00 00        # Host ""
		ff ff ff ff  # Port -1`},
	{"FindCoordinatorResponse v2", 2, &codec.FindCoordinatorResponse{ThrottleTimeMs: 10, NodeId: 2, Host: "h", Port: 9093}, `
		00 00 00 0a  # ThrottleTimeMs 10
		00 00        # ErrorCode 0
		ff ff        # ErrorMessage null
		00 00 00 02  00 01 68  00 00 23 85  # NodeId 2, Host "h", Port 9093`},
	{"FindCoordinatorResponse v3 flexible", 3, &codec.FindCoordinatorResponse{NodeId: 1, Host: "h", Port: 9092}, `
		00 00 00 00  # ThrottleTimeMs 0
		00 00        # ErrorCode 0
		00           # ErrorMessage null (compact)
		00 00 00 01  02 68  00 00 23 84  # NodeId 1, Host "h", Port 9092
		00           # tags`},
	{"FindCoordinatorResponse v4 batch", 4, &codec.FindCoordinatorResponse{Coordinators: []codec.FindCoordinatorCoordinator{
		{Key: "g", NodeId: 1, Host: "h", Port: 9092}}}, `
		00 00 00 00  # ThrottleTimeMs 0 (no single answer from v4)
		02           # Coordinators: 1
		02 67        #   Key "g"
		00 00 00 01  #   NodeId 1
		02 68        #   Host "h"
		00 00 23 84  #   Port 9092
		00 00        #   ErrorCode 0
		00           #   ErrorMessage null
		00           #   coordinator tags
		00           # tags`},
	{"FindCoordinatorResponse v5 one error", 5, &codec.FindCoordinatorResponse{ThrottleTimeMs: 3, Coordinators: []codec.FindCoordinatorCoordinator{
		{Key: "a", NodeId: 2, Host: "h", Port: 1},
		{Key: "b", NodeId: -1, Host: "", Port: -1, ErrorCode: codec.CoordinatorLoadInProgress, ErrorMessage: codec.Str("x")}}}, `
		00 00 00 03  # ThrottleTimeMs 3
		03           # Coordinators: 2
		02 61  00 00 00 02  02 68  00 00 00 01  00 00  00  00  # "a": node 2, "h":1, no error, null message, tags
		02 62  ff ff ff ff  01     ff ff ff ff  00 0e  02 78  00  # "b": node -1, "":-1, error 14, message "x", tags
		00           # tags`},
	{"FindCoordinatorResponse v6 no coordinators", 6, &codec.FindCoordinatorResponse{}, `
		00 00 00 00  # ThrottleTimeMs 0
		01           # Coordinators: empty
		00           # tags`},
}
