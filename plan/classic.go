package plan

// The classic group protocol in plans (docs/PROTOCOL.md A6): a client
// process that speaks JoinGroup, SyncGroup and Heartbeat instead of
// ConsumerGroupHeartbeat, and the plan-wide settings of classic groups.

// ClassicClient makes a client process a classic consumer (A6.6): it joins
// with JoinGroup, gets its assignment by SyncGroup from the group's
// leader, and heartbeats with Heartbeat. Its group is a classic group:
// every client of a group speaks the same protocol. A static classic
// client is one with an InstanceID.
type ClassicClient struct {
	// JoinGroupMaxVersion is the highest JoinGroup version the client
	// speaks: 9 for today's client, 3 for one from before KIP-394 (the
	// control that must show ghosts: a lost answer to a first join leaves
	// a member nobody owns). Against an older broker it speaks the
	// broker's highest (the v4→v3 downgrade).
	JoinGroupMaxVersion int16 `json:"joinGroupMaxVersion"`
	// SessionTimeoutMs and RebalanceTimeoutMs are what the client's
	// JoinGroups carry.
	SessionTimeoutMs   int32 `json:"sessionTimeoutMs"`
	RebalanceTimeoutMs int32 `json:"rebalanceTimeoutMs"`
}

// IsClassic reports whether the client process speaks the classic
// protocol.
func (c *ClientPlan) IsClassic() bool { return c.Classic != nil }

// HasClassic reports whether any client of the plan speaks the classic
// protocol.
func (p *Plan) HasClassic() bool {
	for i := range p.Clients {
		if p.Clients[i].Classic != nil {
			return true
		}
	}
	return false
}
