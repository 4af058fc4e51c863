package client

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// NextHeartbeat builds the client's next ConsumerGroupHeartbeat: a join
// while not a member (repeating the same member id after a lost response),
// a heartbeat at its epoch otherwise. A member the coordinator keeps at
// epoch 0 (one that took over, or resumed, a parked static member and must
// first revoke what it inherited, docs/PROTOCOL.md A5) sends joins too: a
// request at epoch 0 is a join and must be full (§B3.4, §B4.2). It returns
// the request and its version; the client then awaits OnHeartbeat or
// OnHeartbeatLost.
func (c *Client) NextHeartbeat() (*codec.ConsumerGroupHeartbeatRequest, int16) {
	r := &codec.ConsumerGroupHeartbeatRequest{
		GroupId:            c.cfg.GroupID,
		MemberId:           c.ids.memberID,
		MemberEpoch:        c.epoch,
		RebalanceTimeoutMs: -1,
	}
	if c.cfg.InstanceID != "" {
		r.InstanceId = codec.Str(c.cfg.InstanceID)
	}
	c.sentGen = -1
	switch {
	case c.state == Unjoined || c.state == Joining || c.state == Left || c.state == Joined && c.epoch == 0:
		c.state = Joining
		c.epoch = 0
		r.MemberEpoch = 0
		r.RebalanceTimeoutMs = c.cfg.RebalanceTimeoutMs
		c.subscription(r)
		r.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{}
		c.sentOwned = nil
		if c.cfg.RackID != "" {
			r.RackId = codec.Str(c.cfg.RackID)
		}
		if c.cfg.ServerAssignor != "" {
			r.ServerAssignor = codec.Str(c.cfg.ServerAssignor)
		}
	default:
		owned := c.Owned()
		// Only a client that sends null for unchanged partitions needs
		// the key of what it sent (made on the stack, most of the time).
		var buf [64]byte
		key := buf[:0]
		if c.cfg.NullOwnedWhenUnchanged {
			key = appendOwnedKey(key, owned)
		}
		if c.needFull || !c.cfg.NullOwnedWhenUnchanged || !bytes.Equal(key, c.sentOwned) {
			r.TopicPartitions = owned
			if !bytes.Equal(key, c.sentOwned) {
				c.sentOwned = bytes.Clone(key) // a new one: clones share the old
			}
		}
		if c.needFull {
			r.RebalanceTimeoutMs = c.cfg.RebalanceTimeoutMs
		}
		if c.needFull || c.subGen != c.ackedGen {
			c.subscription(r)
		}
	}
	return r, c.hbVersion
}

// subscription puts the client's subscription on r: its topic names, or
// its regex (names then stay null, so a full heartbeat is full by its
// regex alone, A5.7), with the clearing of the other kind while a change
// of kind is unacknowledged.
func (c *Client) subscription(r *codec.ConsumerGroupHeartbeatRequest) {
	if c.cfg.Regex != "" {
		r.SubscribedTopicRegex = codec.Str(c.cfg.Regex)
		if c.clearNames {
			r.SubscribedTopicNames = []string{}
		}
	} else {
		r.SubscribedTopicNames = append([]string{}, c.cfg.Topics...)
		if c.clearRegex {
			r.SubscribedTopicRegex = codec.Str("")
		}
	}
	c.sentGen = c.subGen
}

// appendOwnedKey appends a set of owned partitions (as Owned lists them)
// as comparable bytes, its key: each topic id and its partitions,
// length-prefixed, after a mark that keeps it apart from the empty key
// (nothing sent yet). It is made at every heartbeat, so it is built by
// hand, in a buffer of the caller's, rather than printed.
func appendOwnedKey(b []byte, owned []codec.ConsumerGroupHeartbeatTopicPartitions) []byte {
	b = append(b, 'o')
	for _, t := range owned {
		b = append(b, t.TopicId[:]...)
		b = binary.AppendUvarint(b, uint64(len(t.Partitions)))
		for _, p := range t.Partitions {
			b = binary.BigEndian.AppendUint32(b, uint32(p))
		}
	}
	return b
}

// OnHeartbeat absorbs the response to a join or heartbeat.
func (c *Client) OnHeartbeat(resp *codec.ConsumerGroupHeartbeatResponse) {
	if c.state != Joining && c.state != Joined {
		return // a late response after leave or close changes nothing
	}
	switch resp.ErrorCode {
	case codec.None:
		if c.ids.memberID == "" && resp.MemberId.Valid {
			c.setMemberID(resp.MemberId.Value) // v0: the broker's id
		}
		c.epoch = resp.MemberEpoch
		if resp.Assignment != nil {
			c.owned = nil // a new list: the clones share the old one
			for _, t := range resp.Assignment.TopicPartitions {
				if len(t.Partitions) == 0 {
					continue
				}
				ps := append([]int32(nil), t.Partitions...)
				slices.Sort(ps)
				// A topic listed twice owns its last list.
				if i := slices.IndexFunc(c.owned, func(o codec.ConsumerGroupHeartbeatTopicPartitions) bool { return o.TopicId == t.TopicId }); i >= 0 {
					c.owned[i].Partitions = ps
					continue
				}
				c.owned = append(c.owned, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: t.TopicId, Partitions: ps})
			}
			slices.SortFunc(c.owned, func(a, b codec.ConsumerGroupHeartbeatTopicPartitions) int {
				return bytes.Compare(a.TopicId[:], b.TopicId[:]) // no reflection
			})
		}
		c.state = Joined
		c.needFull = false
		if c.sentGen == c.subGen {
			c.ackedGen = c.subGen
			c.clearNames, c.clearRegex = false, false
		}
	case codec.FencedInstanceID:
		// Another member holds the instance: fatal, as in Java's
		// consumer (ConsumerHeartbeatRequestManager hands the error to
		// the application and the membership goes to FATAL). Joining
		// again would take the instance back and fence the other
		// process in turn (NoRejoinAfterFencedInstance).
		c.fail()
	case codec.FencedMemberEpoch, codec.UnknownMemberID:
		// Abandon the partitions and rejoin at epoch 0 with the same id (a
		// v0 client forgets an id the broker no longer knows).
		c.owned = nil
		c.epoch = 0
		c.state = Unjoined
		if resp.ErrorCode == codec.UnknownMemberID && c.cfg.HeartbeatVersion < rules.MemberIDRequiredVersion {
			c.setMemberID("")
		}
	default:
		// Retriable or not, the next attempt sends everything again.
		c.needFull = true
		if c.state == Joining {
			c.state = Unjoined
		}
	}
}

// OnHeartbeatLost records that the response to the last join or heartbeat
// never came. A join is retried as a join with the same member id; a
// heartbeat is retried in full at the same epoch.
func (c *Client) OnHeartbeatLost() {
	c.needFull = true
}

// Leave builds the leave heartbeat: epoch -1, or -2 when a static member
// leaves temporarily. It is sent with the client's own member id whatever
// the state, even before a join response (KIP-1082's fix for KAFKA-17116).
// The leave completes on any response or on its loss (OnLeaveDone).
func (c *Client) Leave(temporary bool) (*codec.ConsumerGroupHeartbeatRequest, int16) {
	epoch := rules.LeaveEpoch
	if temporary && c.cfg.InstanceID != "" {
		epoch = rules.StaticLeaveEpoch
	}
	r := &codec.ConsumerGroupHeartbeatRequest{
		GroupId:            c.cfg.GroupID,
		MemberId:           c.ids.memberID,
		MemberEpoch:        epoch,
		RebalanceTimeoutMs: -1,
	}
	if c.cfg.InstanceID != "" {
		r.InstanceId = codec.Str(c.cfg.InstanceID)
	}
	c.state = Leaving
	return r, c.hbVersion
}

// fail ends the consumer on FENCED_INSTANCE_ID (Fatal).
func (c *Client) fail() {
	c.state, c.epoch, c.owned = Fatal, 0, nil
}

// OnLeave absorbs the answer to a leave: FENCED_INSTANCE_ID is fatal here
// too (Java's consumer drops the leave and stays FATAL, joining no more
// under the instance); any other answer completes it (OnLeaveDone).
func (c *Client) OnLeave(resp *codec.ConsumerGroupHeartbeatResponse) {
	if resp.ErrorCode == codec.FencedInstanceID && c.state == Leaving {
		c.fail()
		return
	}
	c.OnLeaveDone()
}

// OnAbandoned takes a late answer to a heartbeat or leave the client no
// longer awaited (it timed out, or a leave replaced it): the answer still
// reached it on its connection. FENCED_INSTANCE_ID ends the consumer all
// the same, another process holding the instance (as Classic.OnAbandoned);
// anything else is of a request it has given up, and changes nothing.
func (c *Client) OnAbandoned(resp *codec.ConsumerGroupHeartbeatResponse) {
	if resp.ErrorCode == codec.FencedInstanceID && c.cfg.InstanceID != "" && c.state != Closed {
		c.fail()
	}
}

// OnLeaveDone completes a leave, whatever became of it: the client is no
// longer a member. It keeps its member id (a KIP-1082 client reuses it if
// it joins again).
func (c *Client) OnLeaveDone() {
	c.state = Left
	c.epoch = 0
	c.owned = nil
	c.needFull = false
}

// Close ends the process. If it is a member (or joining), the caller sends
// the returned leave first; a nil request means nothing needs sending.
func (c *Client) Close() (*codec.ConsumerGroupHeartbeatRequest, int16) {
	var r *codec.ConsumerGroupHeartbeatRequest
	var v int16
	if c.state == Joining || c.state == Joined {
		r, v = c.Leave(c.cfg.InstanceID != "")
	}
	c.state = Closed
	return r, v
}

// Crash ends the process without a leave.
func (c *Client) Crash() { c.state = Closed }
