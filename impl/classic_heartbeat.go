package impl

import "github.com/ghostcheck/ghostcheck/codec"

// heartbeatClassic serves Heartbeat (docs/PROTOCOL.md B8.4, B8.9, A6.4):
// the member's session moves later (its timer entry stays, timers.go), so
// an accepted Heartbeat is a lookup, two checks and a store.
func (c *Coordinator) heartbeatClassic(r *codec.HeartbeatRequest) *codec.HeartbeatResponse {
	if r.GroupId == "" {
		return &codec.HeartbeatResponse{ErrorCode: codec.InvalidGroupID}
	}
	g := c.loadGroup(r.GroupId)
	if g == nil {
		if c.mut.Has(MutHeartbeatMissingGroupNotFound) {
			return &codec.HeartbeatResponse{ErrorCode: codec.GroupIDNotFound}
		}
		return &codec.HeartbeatResponse{ErrorCode: codec.UnknownMemberID}
	}
	g.lock()
	defer g.mu.Unlock()
	switch {
	case g.status != gLive:
		return &codec.HeartbeatResponse{ErrorCode: codec.UnknownMemberID}
	case g.kind == kindConsumer:
		return g.classicHeartbeatToConsumer(r, c.clock.Now())
	}
	cl := g.cl
	if _, pending := cl.pending[r.MemberId]; pending && c.mut.Has(MutPendingHeartbeatAccepted) {
		if cl.state == classicPreparing {
			return &codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress}
		}
		return &codec.HeartbeatResponse{}
	}
	m, code := cl.memberCheck(r.MemberId, r.GroupInstanceId)
	if code == codec.UnknownMemberID && r.GenerationId != cl.generation && c.mut.Has(MutUnknownMemberIllegalGeneration) {
		code = codec.IllegalGeneration
	}
	if code != codec.None {
		return &codec.HeartbeatResponse{ErrorCode: code}
	}
	if r.GenerationId != cl.generation && !c.mut.Has(MutHeartbeatGenerationUnchecked) {
		if c.mut.Has(MutClassicErrorRefreshesSession) {
			cl.armSession(m, deadline(c.clock.Now(), int64(m.sessionMs)))
			g.registerClassic()
		}
		return &codec.HeartbeatResponse{ErrorCode: codec.IllegalGeneration}
	}
	cl.armSession(m, deadline(c.clock.Now(), int64(m.sessionMs)))
	g.registerClassic()
	if cl.state == classicPreparing && !c.mut.Has(MutHeartbeatRebalancingNone) || cl.state == classicCompleting && c.mut.Has(MutHeartbeatCompletingRebalancing) {
		return &codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress}
	}
	return &codec.HeartbeatResponse{}
}
