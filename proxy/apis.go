package proxy

import (
	"strconv"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The proxy reads the header of every request, whatever its api, to record
// it (KIP-1313 is about headers), but codec knows the header version of
// only the apis it decodes. The header version follows from the first
// flexible version of the request's api (Kafka's rule: a flexible request
// has header v2, with tagged fields); this table has it, and Kafka's name,
// for every api key Kafka defines up to 94, from Kafka's message schemas
// (a test compares it with franz-go's kmsg).

// apiInfo is one api key: its name and first flexible version (-1: never
// flexible).
type apiInfo struct {
	name     string
	flexible int16
}

var apiTable = [...]apiInfo{
	0: {"Produce", 9}, 1: {"Fetch", 12}, 2: {"ListOffsets", 6}, 3: {"Metadata", 9},
	4: {"LeaderAndIsr", 4}, 5: {"StopReplica", 2}, 6: {"UpdateMetadata", 6}, 7: {"ControlledShutdown", 3},
	8: {"OffsetCommit", 8}, 9: {"OffsetFetch", 6}, 10: {"FindCoordinator", 3}, 11: {"JoinGroup", 6},
	12: {"Heartbeat", 4}, 13: {"LeaveGroup", 4}, 14: {"SyncGroup", 4}, 15: {"DescribeGroups", 5},
	16: {"ListGroups", 3}, 17: {"SaslHandshake", -1}, 18: {"ApiVersions", 3}, 19: {"CreateTopics", 5},
	20: {"DeleteTopics", 4}, 21: {"DeleteRecords", 2}, 22: {"InitProducerId", 2}, 23: {"OffsetForLeaderEpoch", 4},
	24: {"AddPartitionsToTxn", 3}, 25: {"AddOffsetsToTxn", 3}, 26: {"EndTxn", 3}, 27: {"WriteTxnMarkers", 1},
	28: {"TxnOffsetCommit", 3}, 29: {"DescribeAcls", 2}, 30: {"CreateAcls", 2}, 31: {"DeleteAcls", 2},
	32: {"DescribeConfigs", 4}, 33: {"AlterConfigs", 2}, 34: {"AlterReplicaLogDirs", 2}, 35: {"DescribeLogDirs", 2},
	36: {"SaslAuthenticate", 2}, 37: {"CreatePartitions", 2}, 38: {"CreateDelegationToken", 2}, 39: {"RenewDelegationToken", 2},
	40: {"ExpireDelegationToken", 2}, 41: {"DescribeDelegationToken", 2}, 42: {"DeleteGroups", 2}, 43: {"ElectLeaders", 2},
	44: {"IncrementalAlterConfigs", 1}, 45: {"AlterPartitionReassignments", 0}, 46: {"ListPartitionReassignments", 0}, 47: {"OffsetDelete", -1},
	48: {"DescribeClientQuotas", 1}, 49: {"AlterClientQuotas", 1}, 50: {"DescribeUserScramCredentials", 0}, 51: {"AlterUserScramCredentials", 0},
	52: {"Vote", 0}, 53: {"BeginQuorumEpoch", 1}, 54: {"EndQuorumEpoch", 1}, 55: {"DescribeQuorum", 0},
	56: {"AlterPartition", 0}, 57: {"UpdateFeatures", 0}, 58: {"Envelope", 0}, 59: {"FetchSnapshot", 0},
	60: {"DescribeCluster", 0}, 61: {"DescribeProducers", 0}, 62: {"BrokerRegistration", 0}, 63: {"BrokerHeartbeat", 0},
	64: {"UnregisterBroker", 0}, 65: {"DescribeTransactions", 0}, 66: {"ListTransactions", 0}, 67: {"AllocateProducerIds", 0},
	68: {"ConsumerGroupHeartbeat", 0}, 69: {"ConsumerGroupDescribe", 0}, 70: {"ControllerRegistration", 0}, 71: {"GetTelemetrySubscriptions", 0},
	72: {"PushTelemetry", 0}, 73: {"AssignReplicasToDirs", 0}, 74: {"ListConfigResources", 0}, 75: {"DescribeTopicPartitions", 0},
	76: {"ShareGroupHeartbeat", 0}, 77: {"ShareGroupDescribe", 0}, 78: {"ShareFetch", 0}, 79: {"ShareAcknowledge", 0},
	80: {"AddRaftVoter", 0}, 81: {"RemoveRaftVoter", 0}, 82: {"UpdateRaftVoter", 0}, 83: {"InitializeShareGroupState", 0},
	84: {"ReadShareGroupState", 0}, 85: {"WriteShareGroupState", 0}, 86: {"DeleteShareGroupState", 0}, 87: {"ReadShareGroupStateSummary", 0},
	88: {"StreamsGroupHeartbeat", 0}, 89: {"StreamsGroupDescribe", 0}, 90: {"DescribeShareGroupOffsets", 0}, 91: {"AlterShareGroupOffsets", 0},
	92: {"DeleteShareGroupOffsets", 0}, 93: {"StreamsGroupTopologyDescriptionUpdate", 0}, 94: {"UnregisterController", 0},
}

// Kafka's api keys the proxy treats specially, beyond codec's.
const (
	keyProduce codec.APIKey = 0
)

// APIName is Kafka's name of an api key ("ApiKey(n)" for a key past the
// table).
func APIName(k codec.APIKey) string {
	if k >= 0 && int(k) < len(apiTable) && apiTable[k].name != "" {
		return apiTable[k].name
	}
	return "ApiKey(" + strconv.Itoa(int(k)) + ")"
}

// headerVersion is the request header version of key at version, and
// whether the key is known (an unknown key is read as header v1: its
// ClientId is there in both versions, and only its tags would be missed).
func headerVersion(k codec.APIKey, version int16) (int16, bool) {
	if k < 0 || int(k) >= len(apiTable) || apiTable[k].name == "" {
		return 1, false
	}
	if f := apiTable[k].flexible; f >= 0 && version >= f {
		return 2, true
	}
	return 1, true
}

// isGroupAPI reports the group apis faults are injected on: the KIP-848
// heartbeat, LeaveGroup, and the classic JoinGroup, SyncGroup and
// Heartbeat.
func isGroupAPI(k codec.APIKey) bool {
	switch k {
	case codec.ConsumerGroupHeartbeat, codec.LeaveGroup, codec.JoinGroup, codec.SyncGroup, codec.Heartbeat:
		return true
	}
	return false
}

// decodedBodies reports the apis whose request and response bodies the
// proxy records for the client rules: the group apis of both protocols and
// telemetry.
func decodedBodies(k codec.APIKey) bool {
	switch k {
	case codec.ConsumerGroupHeartbeat, codec.LeaveGroup, codec.GetTelemetrySubscriptions, codec.PushTelemetry,
		codec.JoinGroup, codec.SyncGroup, codec.Heartbeat:
		return true
	}
	return false
}

// parseHeader reads the request header at the start of frame (without its
// size prefix) into h, reusing h's ClientId when unchanged (a client that
// repeats its ClientId costs no allocation). It returns the header
// version (0 for a key the table lacks) and where the body starts.
func parseHeader(frame []byte, h *codec.RequestHeader) (hv int16, body int, err error) {
	if len(frame) < 8 {
		return 0, 0, errShortHeader
	}
	key := codec.APIKey(int16(uint16(frame[0])<<8 | uint16(frame[1])))
	version := int16(uint16(frame[2])<<8 | uint16(frame[3]))
	hv, known := headerVersion(key, version)
	r := codec.NewReader(frame, "RequestHeader", hv, hv >= 2, codec.DecodeOptions{})
	h.ReadFrom(&r, hv)
	if err := r.Err(); err != nil {
		return 0, 0, err
	}
	if !known {
		hv = 0
	}
	return hv, r.Offset(), nil
}

// produceNeedsNoResponse reports a Produce request with acks=0, which a
// broker never answers: the proxy must not wait for its response. body is
// the request body at version.
func produceNeedsNoResponse(body []byte, version int16) bool {
	off := 0
	switch {
	case version >= 9: // compact nullable TransactionalId
		n, w := uvarint(body)
		if w <= 0 || n > uint64(len(body)) {
			return false
		}
		off = w
		if n > 0 {
			off += int(n) - 1
		}
	case version >= 3: // nullable TransactionalId
		if len(body) < 2 {
			return false
		}
		n := int(int16(uint16(body[0])<<8 | uint16(body[1])))
		off = 2
		if n > 0 {
			off += n
		}
	}
	return off+2 <= len(body) && body[off] == 0 && body[off+1] == 0
}

// uvarint reads an unsigned varint of at most 5 bytes; w <= 0 when b does
// not hold one.
func uvarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 5; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, -1
}
