package rules

import "github.com/ghostcheck/ghostcheck/codec"

// LeaveGroupCall is one LeaveGroup request of a removal, with the indexes of
// the members (in the caller's list) it carries.
type LeaveGroupCall struct {
	Version int16
	Request *codec.LeaveGroupRequest
	Members []int
}

// PlanLeaveGroup builds the LeaveGroup requests that remove members, for a
// broker whose highest LeaveGroup version is brokerMax (KIP-345 and
// docs/PROTOCOL.md A3). At v3+ it is one batch at min(brokerMax, 5). Below v3 a
// request names one member id, so it is one request per member with a
// member id; a member named only by instance id cannot be removed and gets
// UNSUPPORTED_VERSION in the returned per-member results (other entries are
// None until the calls are answered).
func PlanLeaveGroup(groupID string, members []codec.LeaveGroupMember, brokerMax int16) ([]LeaveGroupCall, []codec.ErrorCode) {
	results := make([]codec.ErrorCode, len(members))
	v := brokerMax
	if v > 5 {
		v = 5
	}
	if v >= 3 {
		req := &codec.LeaveGroupRequest{GroupId: groupID}
		call := LeaveGroupCall{Version: v, Request: req}
		for i, m := range members {
			if v < 5 {
				m.Reason = codec.Null
			}
			req.Members = append(req.Members, m)
			call.Members = append(call.Members, i)
		}
		return []LeaveGroupCall{call}, results
	}
	var calls []LeaveGroupCall
	for i, m := range members {
		if m.MemberId == "" || m.GroupInstanceId.Valid {
			results[i] = codec.UnsupportedVersion
			continue
		}
		calls = append(calls, LeaveGroupCall{Version: v, Request: &codec.LeaveGroupRequest{GroupId: groupID, MemberId: m.MemberId}, Members: []int{i}})
	}
	return calls, results
}
