package model

import "github.com/ghostcheck/ghostcheck/codec"

// classicHeartbeat serves Heartbeat (docs/PROTOCOL.md B8.4, B8.9, A6.4).
// Only an accepted Heartbeat starts the member's session again: an error
// refreshes nothing.
func (c *Coordinator) classicHeartbeat(r *codec.HeartbeatRequest) *codec.HeartbeatResponse {
	// 1. The group id.
	if r.GroupId == "" {
		c.hit("B8.4/invalid-group-id")
		return &codec.HeartbeatResponse{ErrorCode: codec.InvalidGroupID}
	}
	// 2. A consumer group (A6.4).
	if cg := c.groups[r.GroupId]; cg != nil {
		return c.classicHeartbeatToConsumer(cg, r)
	}
	// 3. A missing group.
	g := c.classic[r.GroupId]
	if g == nil {
		c.hit("B8.9/unknown-group")
		return &codec.HeartbeatResponse{ErrorCode: codec.UnknownMemberID}
	}
	// 4. The member check (an Empty group has no members: it answers
	// there); 5. the generation.
	m, code := c.memberCheck(g, r.MemberId, r.GroupInstanceId)
	if code != codec.None {
		return &codec.HeartbeatResponse{ErrorCode: code}
	}
	if r.GenerationId != g.generation {
		c.hit("B8.9/illegal-generation")
		return &codec.HeartbeatResponse{ErrorCode: codec.IllegalGeneration}
	}
	// 6. By state, the session started again.
	m.sessionDeadline = c.delay(int64(m.sessionMs))
	if g.state == classicPreparing {
		c.hit("B8.9/rebalancing")
		return &codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress}
	}
	c.hit("B8.9/ok")
	return &codec.HeartbeatResponse{}
}
