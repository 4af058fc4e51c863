package model

import (
	"maps"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Mixed groups (docs/PROTOCOL.md A7): a consumer group whose members use
// either protocol, and the conversions between a classic group and a
// consumer group. A classic member of a consumer group is a consumer-group
// member (group.go's member) with classic set: it has a member epoch (its
// JoinGroup's GenerationId), takes its assignment from the group's target
// like any member, and learns it through SyncGroup; a Heartbeat asks it to
// rejoin (REBALANCE_IN_PROGRESS) where a ConsumerGroupHeartbeat would hand
// a consumer-protocol member its next assignment. Nothing here runs while
// Config.MigrationPolicy is MigrationOutside.

// consumerProtocolType is the protocol type of the consumer protocol: the
// only one a classic member of a consumer group may use, and the one a
// classic group must use to be upgraded.
const consumerProtocolType = "consumer"

// classicInfo is what a consumer group holds of a member that uses the
// classic protocol (Kafka's ClassicMemberMetadata, and its two timers).
type classicInfo struct {
	sessionMs int32
	// protocols are its last JoinGroup's, in the request's order: the
	// first names the protocol its answers carry and the version its
	// assignment is written at.
	protocols []classicProtocol
	// joinDeadline is the join timer (armed by a REBALANCE_IN_PROGRESS
	// answer when none runs, stopped by a JoinGroup); syncDeadline the
	// sync timer (armed by a JoinGroup, stopped by a SyncGroup). Either
	// removes the member when it fires (A7.1). noDeadline when off.
	joinDeadline, syncDeadline int64
}

// classicJoinToConsumer serves a JoinGroup to a consumer group with
// members (A7.1; Kafka's classicGroupJoinToConsumerGroup): the member joins
// the consumer group as a classic member and is answered at once with its
// member epoch as the generation; its assignment comes through SyncGroup.
func (c *Coordinator) classicJoinToConsumer(j joining, g *group) codec.Message {
	r := j.r
	memberID := r.MemberId
	unknown := memberID == ""
	if unknown {
		c.hit("A7.1/member-id-made")
		memberID = c.cfg.NewID().String()
	}
	// 1. The size cap: a member id not in the group does not join a full
	// one.
	if c.cfg.MaxGroupSize > 0 && len(g.members) >= c.cfg.MaxGroupSize && g.member(memberID) == nil {
		c.hit("A7.1/group-max-size")
		return joinError(codec.GroupMaxSizeReached, r.MemberId)
	}
	// 2. The protocols: type "consumer", and a name every classic member
	// lists.
	if !supportsClassicProtocols(g, r) {
		c.hit("A7.1/inconsistent-protocol")
		return joinError(codec.InconsistentGroupProtocol, r.MemberId)
	}
	// 3. KIP-394: a dynamic member with no id at v4+ is given one, and
	// nothing else changes (no pending id, no timer).
	if unknown && !r.GroupInstanceId.Valid && j.version >= 4 {
		c.hit("A7.1/member-id-required")
		return joinError(codec.MemberIDRequired, memberID)
	}
	// 4. The member: a dynamic one is found or made under its id; a static
	// one with no id joins or replaces its instance's holder, whatever
	// protocol and epoch the holder has; a static one with an id must be
	// its instance's holder.
	var (
		m        *member
		isNew    bool
		replaced *member
	)
	switch {
	case !r.GroupInstanceId.Valid:
		if m = g.member(memberID); m == nil {
			m, isNew = c.newMember(memberID), true
		}
	case unknown:
		if holder, held := g.instances[r.GroupInstanceId.Value]; held {
			replaced = g.member(holder)
			m = takeOver(replaced, memberID)
		} else {
			m, isNew = c.newMember(memberID), true
		}
	default:
		holder, held := g.instances[r.GroupInstanceId.Value]
		if !held {
			c.hit("A7.1/unknown-instance")
			return joinError(codec.UnknownMemberID, r.MemberId)
		}
		if holder != memberID {
			c.hit("A7.1/fenced-instance")
			return joinError(codec.FencedInstanceID, r.MemberId)
		}
		m = g.member(holder)
	}
	// 5. The subscription: the first protocol's metadata.
	var sub codec.ConsumerProtocolSubscription
	if _, err := sub.Decode(r.Protocols[0].Metadata, codec.DecodeOptions{}); err != nil {
		c.hit("A7.1/subscription-undecodable")
		return joinError(codec.UnknownServerError, r.MemberId)
	}
	// Every check has passed. A static replacement of the last member
	// using the consumer protocol downgrades the group (A7.5), judged on
	// the group as it was.
	downgrade := replaced != nil && c.cfg.MigrationPolicy.downgrades() && onlyNonClassic(g, replaced) &&
		(c.cfg.ClassicMaxGroupSize <= 0 || len(g.members) <= c.cfg.ClassicMaxGroupSize)
	var before map[string]partSet
	epochBefore := g.epoch
	if downgrade {
		before = maps.Clone(g.target)
	}
	if replaced != nil {
		c.hit("A7.1/static-replaced")
		g.remove(replaced.id)
		delete(g.instances, replaced.instanceID.Value)
		g.target[m.id] = g.target[replaced.id]
		delete(g.target, replaced.id)
	}
	changed := applyClassicFields(m, j, sub) || isNew
	m.classic = &classicInfo{sessionMs: r.SessionTimeoutMs, protocols: protocolsOf(r.Protocols),
		joinDeadline: noDeadline, syncDeadline: noDeadline}
	g.put(m)
	if m.instanceID.Valid {
		g.instances[m.instanceID.Value] = m.id
	}
	if changed {
		if isNew {
			c.hit("A7.1/member-joined")
		} else {
			c.hit("A7.1/subscription-changed")
		}
		c.bumpEpoch(g)
	}
	c.reconcile(g, m, c.ownedByName(sub.OwnedPartitions))
	resp := &codec.JoinGroupResponse{MemberId: m.id, GenerationId: m.epoch, ProtocolType: codec.Str(consumerProtocolType),
		ProtocolName: codec.Str(r.Protocols[0].Name)}
	if downgrade {
		before[m.id] = before[replaced.id]
		c.downgrade(g, "", epochBefore, before, false)
		return resp
	}
	c.hit("A7.1/joined")
	m.classic.syncDeadline = c.delay(int64(j.rebalanceMs))
	m.sessionDeadline = c.delay(int64(r.SessionTimeoutMs))
	return resp
}

// applyClassicFields applies a classic member's JoinGroup to it as Kafka
// does: the instance id, the rack (from the subscription, when it names
// one), the rebalance timeout (unless -1), the subscribed topic names
// (the regex and server assignor are left as they are), the client id and
// host. It reports whether the subscription changed.
func applyClassicFields(m *member, j joining, sub codec.ConsumerProtocolSubscription) (subscriptionChanged bool) {
	if j.r.GroupInstanceId.Valid {
		m.instanceID = j.r.GroupInstanceId
	}
	if sub.RackId.Valid {
		m.rackID = sub.RackId
	}
	if j.rebalanceMs != -1 {
		m.rebalanceTimeoutMs = j.rebalanceMs
	}
	names := uniqueSorted(sub.Topics)
	if m.subscribedNames == nil || !slices.Equal(names, m.subscribedNames) {
		subscriptionChanged = true
	}
	m.subscribedNames = names
	m.clientID = j.clientID
	m.clientHost = j.conn.Host
	return subscriptionChanged
}

// supportsClassicProtocols is Kafka's ConsumerGroup.supportsClassicProtocols
// for a group with members: the type must be "consumer" and some protocol
// named must be listed by every classic member (any, when none is).
func supportsClassicProtocols(g *group, r *codec.JoinGroupRequest) bool {
	if r.ProtocolType != consumerProtocolType {
		return false
	}
	return slices.ContainsFunc(r.Protocols, func(p codec.JoinGroupRequestProtocol) bool {
		for _, m := range g.members {
			if m.classic != nil && !slices.ContainsFunc(m.classic.protocols, func(q classicProtocol) bool { return q.name == p.Name }) {
				return false
			}
		}
		return true
	})
}

// onlyNonClassic reports whether m is the one member of g that does not
// use the classic protocol (Kafka's allMembersUseClassicProtocolExcept).
func onlyNonClassic(g *group, m *member) bool {
	if m.classic != nil {
		return false
	}
	for _, o := range g.members {
		if o != m && o.classic == nil {
			return false
		}
	}
	return true
}

// ownedByName is a subscription's owned partitions as a heartbeat reports
// them (topics by id; a topic the coordinator does not know is left out).
// Never nil: a classic JoinGroup always reports what it owns, perhaps
// nothing.
func (c *Coordinator) ownedByName(owned []codec.ConsumerProtocolTopicPartitions) []codec.ConsumerGroupHeartbeatTopicPartitions {
	out := []codec.ConsumerGroupHeartbeatTopicPartitions{}
	for _, t := range owned {
		if i, ok := c.topicByName(t.Topic); ok {
			out = append(out, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: c.topics[i].ID, Partitions: t.Partitions})
		}
	}
	return out
}

// topicByName finds the topic named name, as a tp's topic.
func (c *Coordinator) topicByName(name string) (int32, bool) {
	i, ok := slices.BinarySearchFunc(c.topics, name, func(t Topic, n string) int {
		switch {
		case t.Name < n:
			return -1
		case t.Name > n:
			return 1
		}
		return 0
	})
	if !ok {
		return 0, false
	}
	return c.firstOfName[i], true
}

// classicMemberOf is the check a classic SyncGroup or Heartbeat to a
// consumer group passes (A6.4's member check, A7.2): with an instance id,
// UNKNOWN_MEMBER_ID if nobody holds it and FENCED_INSTANCE_ID if another
// member id does; without one, UNKNOWN_MEMBER_ID if the id is not a
// member; then UNKNOWN_MEMBER_ID for a member using the consumer protocol.
func classicMemberOf(g *group, memberID string, instance codec.NullableString) (*member, codec.ErrorCode) {
	id := memberID
	if instance.Valid {
		holder, held := g.instances[instance.Value]
		if !held {
			return nil, codec.UnknownMemberID
		}
		if holder != memberID {
			return nil, codec.FencedInstanceID
		}
		id = holder
	}
	m := g.member(id)
	if m == nil || m.classic == nil {
		return nil, codec.UnknownMemberID
	}
	return m, codec.None
}

// rejoinDue reports whether a classic member of g must rejoin, as its
// Heartbeat learns (Kafka's classicGroupHeartbeatToConsumerGroup): the
// group epoch moved past its epoch, it has partitions to revoke, or the
// partitions it waits for were all released.
func rejoinDue(g *group, m *member) bool {
	switch {
	case m.epoch < g.epoch, m.state == stateUnrevokedPartitions:
		return true
	case m.state == stateUnreleasedPartitions:
		for _, p := range g.target[m.id] {
			if !m.assigned.has(p) && ownedByOther(g, m, p) {
				return false
			}
		}
		return true
	}
	return false
}

// armJoinTimer starts a classic member's join timer unless one runs: it
// has one rebalance timeout to rejoin.
func (c *Coordinator) armJoinTimer(m *member) {
	if m.classic.joinDeadline == noDeadline {
		m.classic.joinDeadline = c.delay(int64(m.rebalanceTimeoutMs))
	}
}

// classicSyncToConsumer serves a SyncGroup to a consumer group (A7.2,
// Kafka's classicGroupSyncToConsumerGroup): a classic member at its
// current epoch, naming the protocol its join was answered with, gets its
// assigned partitions (not those it still has to revoke); one the group
// epoch has passed must rejoin first.
func (c *Coordinator) classicSyncToConsumer(g *group, r *codec.SyncGroupRequest) *codec.SyncGroupResponse {
	m, code := classicMemberOf(g, r.MemberId, r.GroupInstanceId)
	if code != codec.None {
		c.hit("A6.4/sync-consumer-group")
		return syncError(code)
	}
	if r.GenerationId != m.epoch {
		c.hit("A7.2/sync-illegal-generation")
		return syncError(codec.IllegalGeneration)
	}
	if r.ProtocolType.Valid && r.ProtocolType.Value != consumerProtocolType ||
		r.ProtocolName.Valid && r.ProtocolName.Value != m.classic.protocols[0].name {
		c.hit("A7.2/sync-inconsistent-protocol")
		return syncError(codec.InconsistentGroupProtocol)
	}
	if g.epoch > m.epoch && m.state != stateUnrevokedPartitions {
		c.hit("A7.2/sync-rebalance-in-progress")
		c.armJoinTimer(m)
		return syncError(codec.RebalanceInProgress)
	}
	c.hit("A7.2/sync-assignment")
	m.classic.syncDeadline = noDeadline
	m.sessionDeadline = c.delay(int64(m.classic.sessionMs))
	return &codec.SyncGroupResponse{ProtocolType: r.ProtocolType, ProtocolName: r.ProtocolName,
		Assignment: c.assignmentBytes(m.assigned, metadataVersion(m.classic.protocols[0].metadata))}
}

// classicHeartbeatToConsumer serves a Heartbeat to a consumer group (A7.2,
// Kafka's classicGroupHeartbeatToConsumerGroup): a classic member at its
// current epoch has its session started again, and is answered
// REBALANCE_IN_PROGRESS when it must rejoin (rejoinDue), which starts its
// join timer.
func (c *Coordinator) classicHeartbeatToConsumer(g *group, r *codec.HeartbeatRequest) *codec.HeartbeatResponse {
	m, code := classicMemberOf(g, r.MemberId, r.GroupInstanceId)
	if code != codec.None {
		c.hit("A6.4/heartbeat-consumer-group")
		return &codec.HeartbeatResponse{ErrorCode: code}
	}
	if r.GenerationId != m.epoch {
		c.hit("A7.2/heartbeat-illegal-generation")
		return &codec.HeartbeatResponse{ErrorCode: codec.IllegalGeneration}
	}
	m.sessionDeadline = c.delay(int64(m.classic.sessionMs))
	if rejoinDue(g, m) {
		c.hit("A7.2/heartbeat-rejoin")
		c.armJoinTimer(m)
		return &codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress}
	}
	c.hit("A7.2/heartbeat-ok")
	return &codec.HeartbeatResponse{}
}

// metadataVersion is the version a consumer-protocol structure starts
// with (0 when the bytes are too short to hold one).
func metadataVersion(b []byte) int16 {
	if len(b) < 2 {
		return 0
	}
	return int16(uint16(b[0])<<8 | uint16(b[1]))
}

// assignmentBytes writes s as a ConsumerProtocolAssignment at version
// (clamped to the versions the codec writes), topics in name order,
// UserData null.
func (c *Coordinator) assignmentBytes(s partSet, version int16) []byte {
	version = min(max(version, 0), codec.ConsumerProtocolMaxVersion)
	var a codec.ConsumerProtocolAssignment
	for _, p := range s {
		name := c.topics[p.topic].Name
		if n := len(a.AssignedPartitions); n > 0 && a.AssignedPartitions[n-1].Topic == name {
			a.AssignedPartitions[n-1].Partitions = append(a.AssignedPartitions[n-1].Partitions, p.partition)
			continue
		}
		a.AssignedPartitions = append(a.AssignedPartitions, codec.ConsumerProtocolTopicPartitions{Topic: name, Partitions: []int32{p.partition}})
	}
	b, err := a.AppendTo(nil, version)
	if err != nil {
		return nil // never: the version is one the codec writes
	}
	return b
}

// fence takes m out of g as Kafka's consumerGroupFenceMember does (a
// ConsumerGroupHeartbeat leave, a session, rebalance, join or sync timer):
// if m is the last member using the consumer protocol and the policy and
// group.max.size allow, the group becomes a classic group of the others,
// which rebalances (A7.5); otherwise m is removed (group.go).
func (c *Coordinator) fence(g *group, m *member) {
	if c.cfg.MigrationPolicy.downgrades() && len(g.members) > 1 && onlyNonClassic(g, m) &&
		(c.cfg.ClassicMaxGroupSize <= 0 || len(g.members)-1 <= c.cfg.ClassicMaxGroupSize) {
		c.downgrade(g, m.id, g.epoch, g.target, true)
		return
	}
	c.removeMember(g, m)
}

// downgrade replaces consumer group g by a classic group (A7.5, Kafka's
// convertToClassicGroup): generation g's epoch as it was before the
// request (epoch), Stable, protocol type "consumer", every member but
// leaving with its classic session and protocols, its session started
// now, its assignment its target (targets, by member id) written at its
// metadata's version for the selected protocol; the member with the
// smallest id leads. The record is written; after a leave (rebalances)
// the group rebalances.
func (c *Coordinator) downgrade(g *group, leaving string, epoch int32, targets map[string]partSet, rebalances bool) {
	c.hit("A7.5/downgraded")
	cg := newClassicGroup(g.id)
	cg.generation = epoch
	cg.protocolType = consumerProtocolType
	cg.state, cg.prev = classicStable, classicStable
	for _, m := range g.members {
		if m.id == leaving {
			continue
		}
		cg.put(&classicMember{id: m.id, clientID: m.clientID, host: m.clientHost, instance: m.instanceID,
			sessionMs: m.classic.sessionMs, rebalanceMs: m.rebalanceTimeoutMs, protocolType: consumerProtocolType,
			protocols: m.classic.protocols, sessionDeadline: c.delay(int64(m.classic.sessionMs))})
	}
	cg.leader = cg.members[0].id
	cg.protocol = c.selectProtocol(cg)
	for _, m := range cg.members {
		m.assignment = c.assignmentBytes(targets[m.id], metadataVersion(m.metadata(cg.protocol)))
	}
	delete(c.groups, g.id)
	if c.classic == nil {
		c.classic = map[string]*classicGroup{}
	}
	c.classic[g.id] = cg
	c.writeRecord(cg)
	if rebalances {
		c.rebalance(cg)
	}
}

// upgrade makes the consumer group a ConsumerGroupHeartbeat join converts
// classic group cg into (A7.4, Kafka's validateOnlineUpgrade and
// convertToConsumerGroup). Refused (GROUP_ID_NOT_FOUND, nothing changed)
// unless the policy allows upgrades, cg's protocol type is "consumer" and
// its size is within group.consumer.max.size. Otherwise every waiting
// JoinGroup and SyncGroup is answered REBALANCE_IN_PROGRESS first; then
// every member's assignment and its metadata for the group's protocol must
// read as consumer-protocol structures, or the upgrade fails
// (GROUP_ID_NOT_FOUND), cg staying as it is with its requests answered.
// The consumer group made is returned to the caller, which stores it in
// cg's place only if the join succeeds: its epoch is cg's generation; each
// member keeps its id, instance, client, rebalance timeout, classic
// session and protocols, and is Stable at that epoch, owning (and
// targeted with) the partitions its assignment names, subscribed to its
// metadata's topics, its session started now.
func (c *Coordinator) upgrade(cg *classicGroup) (*group, *hbError) {
	if !c.cfg.MigrationPolicy.upgrades() || cg.protocolType != consumerProtocolType ||
		c.cfg.MaxGroupSize > 0 && len(cg.members) > c.cfg.MaxGroupSize {
		c.hit("A7.4/upgrade-refused")
		return nil, notConsumerGroup(cg.id)
	}
	for _, m := range cg.members {
		if m.join != nil {
			c.hit("A7.4/waiting-answered")
			c.answer(m.join, joinError(codec.RebalanceInProgress, m.id))
			m.join = nil
		}
	}
	for _, m := range cg.members {
		if m.sync != nil {
			c.hit("A7.4/waiting-answered")
			c.answer(m.sync, syncError(codec.RebalanceInProgress))
			m.sync = nil
		}
	}
	g := newGroup(cg.id)
	g.epoch = cg.generation
	for _, cm := range cg.members {
		var a codec.ConsumerProtocolAssignment
		var s codec.ConsumerProtocolSubscription
		_, errA := a.Decode(cm.assignment, codec.DecodeOptions{})
		_, errS := s.Decode(cm.metadata(cg.protocol), codec.DecodeOptions{})
		if errA != nil || errS != nil {
			c.hit("A7.4/upgrade-failed")
			return nil, &hbError{code: codec.GroupIDNotFound, msg: "Cannot upgrade the classic group " + cg.id +
				" to consumer group because the embedded consumer protocol is malformed."}
		}
		var owned partSet
		for _, t := range a.AssignedPartitions {
			if i, ok := c.topicByName(t.Topic); ok {
				for _, p := range t.Partitions {
					owned.add(tp{i, p})
				}
			}
		}
		m := c.newMember(cm.id)
		m.instanceID, m.rackID = cm.instance, s.RackId
		m.clientID, m.clientHost = cm.clientID, cm.host
		m.epoch, m.prevEpoch = cg.generation, cg.generation
		m.rebalanceTimeoutMs = cm.rebalanceMs
		m.subscribedNames = uniqueSorted(s.Topics)
		if len(owned) > 0 {
			m.assigned = owned
			g.target[m.id] = owned.clone()
		} else {
			g.target[m.id] = nil
		}
		m.sessionDeadline = c.delay(int64(cm.sessionMs))
		m.classic = &classicInfo{sessionMs: cm.sessionMs, protocols: cm.protocols, joinDeadline: noDeadline, syncDeadline: noDeadline}
		g.put(m)
		if m.instanceID.Valid {
			g.instances[m.instanceID.Value] = m.id
		}
	}
	return g, nil
}

// MixedTimers calls f for every classic member of a consumer group, groups
// in id order and members in id order: its join and sync deadlines (-1
// for one not running), what Timers does not show of it (its session is
// there). impl.Coordinator.MixedTimers is held to it.
func (c *Coordinator) MixedTimers(f func(group, member string, join, sync int64)) {
	for _, id := range slices.Sorted(maps.Keys(c.groups)) {
		for _, m := range c.groups[id].members {
			if m.classic != nil {
				f(id, m.id, m.classic.joinDeadline, m.classic.syncDeadline)
			}
		}
	}
}
