package codec

// GroupOf is the group req is about, when it is a group api's request
// about one group: a ConsumerGroupHeartbeat, LeaveGroup, JoinGroup,
// SyncGroup or Heartbeat, a ConsumerGroupDescribe or DescribeGroups of one
// group. A cluster routes such a request to that group's coordinator, and
// a history's check partitions by it. The group id may be empty (Kafka's
// FindCoordinator hashes it as any other); a describe of several groups,
// and any other api, is about none.
func GroupOf(req Message) (string, bool) {
	switch r := req.(type) {
	case *ConsumerGroupHeartbeatRequest:
		return r.GroupId, true
	case *LeaveGroupRequest:
		return r.GroupId, true
	case *JoinGroupRequest:
		return r.GroupId, true
	case *SyncGroupRequest:
		return r.GroupId, true
	case *HeartbeatRequest:
		return r.GroupId, true
	case *ConsumerGroupDescribeRequest:
		if len(r.GroupIds) == 1 {
			return r.GroupIds[0], true
		}
	case *DescribeGroupsRequest:
		if len(r.Groups) == 1 {
			return r.Groups[0], true
		}
	}
	return "", false
}

// GroupErrorCode is a group api response's top-level error code: a
// ConsumerGroupHeartbeat's, LeaveGroup's, JoinGroup's, SyncGroup's or
// Heartbeat's; false for any other message. A client reacts to it, and
// the client rules read it, the same way for every one of them.
func GroupErrorCode(resp Message) (ErrorCode, bool) {
	switch r := resp.(type) {
	case *ConsumerGroupHeartbeatResponse:
		return r.ErrorCode, true
	case *LeaveGroupResponse:
		return r.ErrorCode, true
	case *JoinGroupResponse:
		return r.ErrorCode, true
	case *SyncGroupResponse:
		return r.ErrorCode, true
	case *HeartbeatResponse:
		return r.ErrorCode, true
	}
	return 0, false
}
