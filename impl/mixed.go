package impl

import (
	"slices"
	"sort"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Mixed groups (docs/PROTOCOL.md A7): a consumer group whose members use
// either protocol, and the conversions between the two kinds of group,
// as the model's mixed.go states them. A classic member of a consumer
// group is a member like any (its record, side, subscription and place
// in the assignor's lists), flagged flClassic, with what only a classic
// member has (its session timeout, protocols, join and sync timers) in
// the group's mixedState. A conversion rebuilds the group's state of the
// other kind in place, under the group's lock, as A6.4's replacement of
// an empty group does. Nothing here runs under MigrationOutside.

// consumerProtocolType is the only protocol type a classic member of a
// consumer group may use, and the one an upgraded classic group must have.
const consumerProtocolType = "consumer"

// mixedState is what a consumer group holds of its classic members.
type mixedState struct {
	info   map[uint32]*classicInfo // by member index
	timers []mtimer                // min-heap by deadline (mixed_timers.go)
	serial uint64                  // the last classicInfo.serial given
}

// classicInfo is a classic member's own state (Kafka's
// ClassicMemberMetadata, and its timers).
type classicInfo struct {
	sessionMs int32
	// protocols are its last JoinGroup's, in the request's order (never
	// changed in place).
	protocols []cprotocol
	// join and sync are its join and sync timers' deadlines (noDeadline:
	// off); its session deadline is the member record's.
	join, sync int64
	// sessAt is the deadline of its earliest session entry in the heap
	// (noDeadline: none); serial marks the entries armed for this state.
	sessAt int64
	serial uint64
}

// makeClassic gives member mi a fresh classic state (a JoinGroup's): it
// leaves the session list; its timers are armed by the caller.
func (g *group) makeClassicMember(mi uint32, sessionMs int32, protocols []cprotocol) {
	if g.mx == nil {
		g.mx = &mixedState{info: map[uint32]*classicInfo{}}
	}
	g.unlinkSession(mi)
	g.mem[mi].session = noDeadline
	g.mem[mi].flags |= flClassic
	g.mx.serial++
	g.mx.info[mi] = &classicInfo{sessionMs: sessionMs, protocols: protocols, join: noDeadline, sync: noDeadline,
		sessAt: noDeadline, serial: g.mx.serial}
}

// dropClassic forgets mi's classic state (it switched protocol, or is
// removed); its heap entries are stale from now on. The group's
// mixedState goes with its last classic member.
func (g *group) dropClassic(mi uint32) {
	m := &g.mem[mi]
	if m.flags&flClassic == 0 {
		return
	}
	m.flags &^= flClassic
	m.session = noDeadline
	delete(g.mx.info, mi)
	if len(g.mx.info) == 0 {
		g.mx = nil
	}
}

// downgradesWithout reports whether removing member mi (a leave or a
// timer) converts g to a classic group instead (A7.5): mi is its one
// member of the consumer protocol, some other member remains, the policy
// allows it and the others fit group.max.size.
func (g *group) downgradesWithout(mi uint32) bool {
	if g.mx == nil || !g.c.cfg.MigrationPolicy.downgrades() || g.mem[mi].flags&flClassic != 0 ||
		len(g.mx.info) != g.count-1 || g.count < 2 {
		return false
	}
	max := g.c.cfg.ClassicMaxGroupSize
	return max <= 0 || g.count-1 <= max
}

// downgradesReplacing reports whether a classic static join replacing
// member mi converts g (A7.5): mi is its one member of the consumer
// protocol, the policy allows it and the group fits group.max.size.
func (g *group) downgradesReplacing(mi uint32) bool {
	classic := 0
	if g.mx != nil {
		classic = len(g.mx.info)
	}
	if !g.c.cfg.MigrationPolicy.downgrades() || g.mem[mi].flags&flClassic != 0 || classic != g.count-1 {
		return false
	}
	max := g.c.cfg.ClassicMaxGroupSize
	return max <= 0 || g.count <= max
}

// fence removes member mi as a ConsumerGroupHeartbeat leave does: it
// converts the group when mi is its last consumer-protocol member (A7.5),
// and otherwise removes it and moves the epoch on.
func (g *group) fence(op *cop, mi uint32) {
	if g.downgradesWithout(mi) {
		g.downgrade(op, mi, g.epoch, nil, true)
		return
	}
	g.removeMember(mi)
	g.bump()
}

// downgrade makes g a classic group of its members but leaving (A7.5, the
// model's downgrade): generation the given epoch, protocol type
// "consumer", Stable, each member with its classic session (started now)
// and protocols, its assignment its target (targets, by member index; nil:
// the group's target now) written at its metadata's version for the
// selected protocol; the smallest id leads. The record is written; after
// a removal (rebalances) the group rebalances.
func (g *group) downgrade(op *cop, leaving uint32, epoch int32, targets map[uint32][]int32, rebalances bool) {
	c := g.c
	cl := newClassicGroup(c.mut)
	cl.generation, cl.protocolType = epoch, consumerProtocolType
	if c.mut.Has(MutDowngradeGenerationReset) {
		cl.generation = 0
	}
	cl.state, cl.prev = classicStable, classicStable
	target := map[string][]int32{}
	for mi := uint32(1); mi < uint32(len(g.mem)); mi++ {
		m := &g.mem[mi]
		if m.flags&flLive == 0 || mi == leaving {
			continue
		}
		ci := g.mx.info[mi]
		client := g.clientOf(mi)
		cm := &cmember{id: g.idString(mi), clientID: client.id, host: client.host, instance: g.instanceOf(mi),
			sessionMs: ci.sessionMs, rebalanceMs: m.rto, protocolType: consumerProtocolType, protocols: ci.protocols, hpos: -1}
		if targets != nil {
			target[cm.id] = targets[mi]
		} else if s := g.sideOf(mi); s != nil {
			target[cm.id] = s.target
		}
		cl.put(cm)
	}
	for _, cm := range cl.members {
		cl.armSession(cm, deadline(op.now, int64(cm.sessionMs)))
	}
	cl.leader = cl.members[0].id
	cl.protocol = cl.selectProtocol()
	for _, cm := range cl.members {
		cm.assignment = c.assignmentBytes(target[cm.id], metadataVersion(cm.metadata(cl.protocol)))
	}
	g.resetConsumer()
	g.kind, g.cl = kindClassic, cl
	cl.writeRecord()
	if rebalances && !c.mut.Has(MutDowngradeNoRebalance) {
		cl.rebalance(op)
	}
	g.registerClassic()
}

// upgrade is the conversion a ConsumerGroupHeartbeat join to classic
// group g with members starts (A7.4, the model's upgrade): refused unless
// the policy, the protocol type and group.consumer.max.size allow it;
// then the waiting JoinGroups and SyncGroups are answered
// REBALANCE_IN_PROGRESS; then every member's assignment and metadata must
// read, or it fails. On success g holds, beside its classic state, the
// consumer group it becomes: the caller makes it the group's kind if the
// join succeeds, and resets it (resetConsumer) otherwise.
func (g *group) upgrade(op *cop) *hbError {
	c, cl := g.c, g.cl
	if !c.cfg.MigrationPolicy.upgrades() || cl.protocolType != consumerProtocolType && !c.mut.Has(MutUpgradeIgnoresProtocolType) ||
		c.cfg.MaxGroupSize > 0 && len(cl.members) > c.cfg.MaxGroupSize {
		return notConsumerGroup(g.id)
	}
	for _, m := range cl.members {
		if m.join.on {
			p := m.join
			cl.clearJoin(m)
			code := codec.RebalanceInProgress
			if c.mut.Has(MutUpgradeWaitingUnknown) {
				code = codec.UnknownMemberID
			}
			op.answer(p, joinError(code, m.id))
		}
	}
	for _, m := range cl.members {
		if m.sync.on {
			p := m.sync
			m.sync.on = false
			code := codec.RebalanceInProgress
			if c.mut.Has(MutUpgradeWaitingUnknown) {
				code = codec.UnknownMemberID
			}
			op.answer(p, syncError(code))
		}
	}
	assignments := make([]codec.ConsumerProtocolAssignment, len(cl.members))
	subs := make([]codec.ConsumerProtocolSubscription, len(cl.members))
	for i, m := range cl.members {
		_, errA := assignments[i].Decode(m.assignment, codec.DecodeOptions{})
		if len(m.assignment) == 0 && c.mut.Has(MutUpgradeEmptyAssignmentRead) {
			assignments[i], errA = codec.ConsumerProtocolAssignment{}, nil
		}
		_, errS := subs[i].Decode(m.metadata(cl.protocol), codec.DecodeOptions{})
		if errA != nil || errS != nil {
			return &hbError{codec.GroupIDNotFound, "Cannot upgrade the classic group " + g.id +
				" to consumer group because the embedded consumer protocol is malformed."}
		}
	}
	g.resetConsumer()
	g.epoch = cl.generation
	for i, cm := range cl.members {
		if c.mut.Has(MutUpgradeDropsLastMember) && i > 0 && i == len(cl.members)-1 {
			break
		}
		mi := g.alloc(cm.id)
		m := &g.mem[mi]
		m.epoch, m.prevEpoch, m.rto = cl.generation, cl.generation, cm.rebalanceMs
		m.flags |= flNames
		if cm.instance.Valid {
			g.setInstance(mi, cm.instance.Value)
			g.insts.get(g.mem[mi].inst).val = mi
		}
		if subs[i].RackId.Valid {
			g.setRack(mi, subs[i].RackId.Value)
		}
		g.setClient(mi, cm.clientID, cm.host)
		g.setSubscription(mi, sortedUnique(subs[i].Topics), codec.Null)
		if owned := c.partitionsByName(assignments[i].AssignedPartitions); len(owned) > 0 {
			s := g.ensureSide(mi)
			s.assigned, s.target = owned, slices.Clone(owned)
			for _, p := range owned {
				g.owner[p], g.tgt[p] = mi<<1, mi
			}
		}
		g.makeClassicMember(mi, cm.sessionMs, cm.protocols)
		g.armClassicSession(mi, deadline(op.now, int64(cm.sessionMs)))
	}
	return nil
}

// partitionsByName is a ConsumerProtocolAssignment's partitions of the
// topics the coordinator knows, as sorted global indexes. A partition
// past its topic's count has no index: impl cannot hold it (see
// docs/DESIGN.md); a well-behaved leader never assigns one.
func (c *Coordinator) partitionsByName(tps []codec.ConsumerProtocolTopicPartitions) []int32 {
	var out []int32
	for _, t := range tps {
		ti, ok := c.topicIndex(t.Topic)
		if !ok {
			continue
		}
		for _, p := range t.Partitions {
			if p >= 0 && p < c.topics[ti].Partitions {
				out = append(out, c.base[ti]+p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// topicIndex finds the topic named name.
func (c *Coordinator) topicIndex(name string) (int, bool) {
	i := sort.Search(len(c.topics), func(i int) bool { return c.topics[i].Name >= name })
	return i, i < len(c.topics) && c.topics[i].Name == name
}

// ownedReport is a subscription's owned partitions as a heartbeat reports
// them (topics by id; a topic the coordinator does not know is left out).
// Never nil: a classic JoinGroup always reports what it owns.
func (c *Coordinator) ownedReport(owned []codec.ConsumerProtocolTopicPartitions) []codec.ConsumerGroupHeartbeatTopicPartitions {
	out := []codec.ConsumerGroupHeartbeatTopicPartitions{}
	for _, t := range owned {
		if ti, ok := c.topicIndex(t.Topic); ok {
			out = append(out, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: c.topics[ti].ID, Partitions: t.Partitions})
		}
	}
	return out
}

// metadataVersion is the version a consumer-protocol structure starts
// with (0 when the bytes are too short to hold one).
func metadataVersion(b []byte) int16 {
	if len(b) < 2 {
		return 0
	}
	return int16(uint16(b[0])<<8 | uint16(b[1]))
}

// assignmentBytes writes sorted global partitions ps as a
// ConsumerProtocolAssignment at version (clamped to what the codec
// writes), topics in name order, UserData null.
func (c *Coordinator) assignmentBytes(ps []int32, version int16) []byte {
	version = min(max(version, 0), codec.ConsumerProtocolMaxVersion)
	var a codec.ConsumerProtocolAssignment
	for _, p := range ps {
		t := c.topicOf(p)
		name := c.topics[t].Name
		if n := len(a.AssignedPartitions); n > 0 && a.AssignedPartitions[n-1].Topic == name {
			a.AssignedPartitions[n-1].Partitions = append(a.AssignedPartitions[n-1].Partitions, p-c.base[t])
			continue
		}
		a.AssignedPartitions = append(a.AssignedPartitions, codec.ConsumerProtocolTopicPartitions{Topic: name, Partitions: []int32{p - c.base[t]}})
	}
	b, err := a.AppendTo(nil, version)
	if err != nil {
		return nil // never: the version is one the codec writes
	}
	return b
}

// supportsClassicProtocols is the model's: type "consumer", and some
// protocol named that every classic member lists.
func (g *group) supportsClassicProtocols(r *codec.JoinGroupRequest) bool {
	if r.ProtocolType != consumerProtocolType && !g.c.mut.Has(MutClassicJoinProtocolTypeUnchecked) {
		return false
	}
	for i := range r.Protocols {
		name, all := r.Protocols[i].Name, true
		if g.mx != nil {
			for _, ci := range g.mx.info {
				if !slices.ContainsFunc(ci.protocols, func(p cprotocol) bool { return p.name == name }) {
					all = false
					break
				}
			}
		}
		if all {
			return true
		}
	}
	return false
}

// classicJoinToConsumer serves a JoinGroup to consumer group g with
// members (A7.1, the model's classicJoinToConsumer): the member joins as
// a classic member and is answered at once, its generation its epoch.
func (c *Coordinator) classicJoinToConsumer(g *group, op *cop, j joining) codec.Message {
	r := j.r
	memberID := r.MemberId
	unknown := memberID == ""
	if unknown && c.mut.Has(MutClassicJoinClassicStyleID) {
		memberID = c.makeMemberID(j.clientID)
	} else if unknown {
		memberID = c.ids.next().String()
	}
	// 1. The size cap.
	if max := c.cfg.MaxGroupSize; max > 0 && g.count >= max && g.find(memberID) == 0 && !(g.count == max && c.mut.Has(MutClassicJoinMaxSizeOffByOne)) {
		return joinError(codec.GroupMaxSizeReached, r.MemberId)
	}
	// 2. The protocols.
	if !g.supportsClassicProtocols(r) {
		return joinError(codec.InconsistentGroupProtocol, r.MemberId)
	}
	// 3. KIP-394: nothing kept.
	if unknown && !r.GroupInstanceId.Valid && j.version >= 4 && !c.mut.Has(MutClassicJoinNoMemberIDRequired) {
		return joinError(codec.MemberIDRequired, memberID)
	}
	// 4. The member.
	var mi, replaced uint32
	isNew := false
	switch {
	case !r.GroupInstanceId.Valid:
		mi = g.find(memberID)
		isNew = mi == 0
	case unknown:
		if replaced = g.holder(r.GroupInstanceId.Value); replaced == 0 {
			isNew = true
		}
	default:
		holder := g.holder(r.GroupInstanceId.Value)
		if holder == 0 && c.mut.Has(MutClassicUnknownInstanceJoins) && g.find(memberID) == 0 {
			isNew = true
			break
		}
		if holder == 0 {
			return joinError(codec.UnknownMemberID, r.MemberId)
		}
		if !g.idIs(holder, memberID) && c.mut.Has(MutClassicJoinFencedAsUnknown) {
			return joinError(codec.UnknownMemberID, r.MemberId)
		}
		if !g.idIs(holder, memberID) {
			return joinError(codec.FencedInstanceID, r.MemberId)
		}
		mi = holder
	}
	// 5. The subscription.
	var sub codec.ConsumerProtocolSubscription
	if _, err := sub.Decode(r.Protocols[0].Metadata, codec.DecodeOptions{}); err != nil && c.mut.Has(MutClassicJoinUndecodableAsEmpty) {
		sub = codec.ConsumerProtocolSubscription{}
	} else if err != nil {
		return joinError(codec.UnknownServerError, r.MemberId)
	}
	// Every check has passed. A static replacement of the last
	// consumer-protocol member downgrades the group, judged on the group
	// as it was (A7.5).
	downgrade := replaced != 0 && g.downgradesReplacing(replaced)
	var before map[uint32][]int32
	epochBefore := g.epoch
	if downgrade {
		before = map[uint32][]int32{}
		for k := uint32(1); k < uint32(len(g.mem)); k++ {
			if s := g.sideOf(k); s != nil && g.mem[k].flags&flLive != 0 {
				before[k] = slices.Clone(s.target)
			}
		}
	}
	if isNew || replaced != 0 {
		mi = g.alloc(memberID)
	}
	if replaced != 0 {
		g.takeOver(mi, replaced) // its holder goes at once, whatever its protocol and epoch
	}
	changed := g.applyClassicFields(mi, op.conn, j, sub) || isNew || replaced != 0 && c.mut.Has(MutClassicStaticReplacementBumps)
	if isNew && c.mut.Has(MutClassicMemberJoinedNoBump) || !isNew && replaced == 0 && c.mut.Has(MutClassicSubscriptionChangeNoBump) {
		changed = false
	}
	sessionMs := r.SessionTimeoutMs
	if c.mut.Has(MutClassicSessionGroupTimeout) {
		sessionMs = int32(c.cfg.SessionTimeoutMs)
	}
	g.makeClassicMember(mi, sessionMs, protocolsOf(r.Protocols))
	if g.mem[mi].inst != 0 {
		g.insts.get(g.mem[mi].inst).val = mi
	}
	if changed {
		g.bump()
	}
	g.reconcile(mi, c.ownedReport(sub.OwnedPartitions), op.now)
	resp := &codec.JoinGroupResponse{MemberId: memberID, GenerationId: g.mem[mi].epoch,
		ProtocolType: codec.Str(consumerProtocolType), ProtocolName: codec.Str(r.Protocols[0].Name)}
	if downgrade {
		before[mi] = before[replaced]
		g.downgrade(op, 0, epochBefore, before, false)
		return resp
	}
	g.armClassicSync(mi, deadline(op.now, int64(j.rebalanceMs)))
	g.armClassicSession(mi, deadline(op.now, int64(sessionMs)))
	return resp
}

// applyClassicFields applies a classic member's JoinGroup to it as the
// model's: instance, rack (when the subscription names one), rebalance
// timeout (unless -1), the subscribed names (the regex stays), client id
// and host. It reports whether the subscription changed.
func (g *group) applyClassicFields(mi uint32, conn Conn, j joining, sub codec.ConsumerProtocolSubscription) (changed bool) {
	if j.r.GroupInstanceId.Valid {
		g.setInstance(mi, j.r.GroupInstanceId.Value)
	}
	if sub.RackId.Valid {
		g.setRack(mi, sub.RackId.Value)
	}
	if j.rebalanceMs != -1 {
		g.mem[mi].rto = j.rebalanceMs
	}
	names := sortedUnique(sub.Topics)
	cur := g.subOf(mi)
	if g.mem[mi].flags&flNames == 0 || !equalStrings(names, cur.names) {
		changed = true
	}
	g.mem[mi].flags |= flNames
	if !equalStrings(names, cur.names) {
		g.setSubscription(mi, names, cur.regex)
	}
	g.setClient(mi, j.clientID, conn.Host)
	return changed
}

// classicMemberOf is the check a classic SyncGroup or Heartbeat to a
// consumer group passes (A6.4, A7.2); it returns the member.
func (g *group) classicMemberOf(memberID string, instance codec.NullableString) (uint32, codec.ErrorCode) {
	var mi uint32
	if instance.Valid {
		mi = g.holder(instance.Value)
		if mi == 0 {
			return 0, codec.UnknownMemberID
		}
		if !g.idIs(mi, memberID) {
			return 0, codec.FencedInstanceID
		}
	} else {
		mi = g.find(memberID)
	}
	if mi != 0 && g.mem[mi].flags&flClassic == 0 && g.c.mut.Has(MutConsumerMemberIllegalGeneration) {
		return 0, codec.IllegalGeneration
	}
	if mi == 0 || g.mem[mi].flags&flClassic == 0 {
		return 0, codec.UnknownMemberID
	}
	return mi, codec.None
}

// rejoinDue reports whether classic member mi must rejoin (A7.2): the
// group epoch moved past its own, it has partitions to revoke, or all it
// waits for is free now.
func (g *group) rejoinDue(mi uint32) bool {
	m := &g.mem[mi]
	switch {
	case m.epoch < g.epoch, m.state == stUnrevoked:
		return true
	case m.state == stUnreleased:
		if s := g.sideOf(mi); s != nil {
			for _, p := range s.target {
				if o := g.owner[p]; o != 0 && o>>1 != mi {
					return false
				}
			}
		}
		return true
	}
	return false
}

// classicSyncToConsumer serves a SyncGroup to consumer group g (A7.2).
func (g *group) classicSyncToConsumer(r *codec.SyncGroupRequest, now int64) *codec.SyncGroupResponse {
	mi, code := g.classicMemberOf(r.MemberId, r.GroupInstanceId)
	if code != codec.None {
		return syncError(code)
	}
	m := &g.mem[mi]
	if r.GenerationId != m.epoch && !g.c.mut.Has(MutClassicSyncGenerationUnchecked) {
		return syncError(codec.IllegalGeneration)
	}
	ci := g.mx.info[mi]
	if r.ProtocolType.Valid && r.ProtocolType.Value != consumerProtocolType ||
		r.ProtocolName.Valid && r.ProtocolName.Value != ci.protocols[0].name && !g.c.mut.Has(MutClassicSyncProtocolNameUnchecked) {
		return syncError(codec.InconsistentGroupProtocol)
	}
	if g.epoch > m.epoch && m.state != stUnrevoked && !g.c.mut.Has(MutClassicSyncIgnoresEpoch) {
		g.armClassicJoin(mi, deadline(now, int64(m.rto)))
		return syncError(codec.RebalanceInProgress)
	}
	ci.sync = noDeadline
	g.armClassicSession(mi, deadline(now, int64(ci.sessionMs)))
	var assigned []int32
	if s := g.sideOf(mi); s != nil {
		assigned = s.assigned
		if g.c.mut.Has(MutSyncHandsPending) && len(s.pending) > 0 {
			assigned = slices.Sorted(slices.Values(slices.Concat(s.assigned, s.pending)))
		}
	}
	return &codec.SyncGroupResponse{ProtocolType: r.ProtocolType, ProtocolName: r.ProtocolName,
		Assignment: g.c.assignmentBytes(assigned, metadataVersion(ci.protocols[0].metadata))}
}

// classicHeartbeatToConsumer serves a Heartbeat to consumer group g (A7.2).
func (g *group) classicHeartbeatToConsumer(r *codec.HeartbeatRequest, now int64) *codec.HeartbeatResponse {
	mi, code := g.classicMemberOf(r.MemberId, r.GroupInstanceId)
	if code != codec.None {
		return &codec.HeartbeatResponse{ErrorCode: code}
	}
	if r.GenerationId != g.mem[mi].epoch && !g.c.mut.Has(MutClassicHeartbeatGenerationUnchecked) {
		return &codec.HeartbeatResponse{ErrorCode: codec.IllegalGeneration}
	}
	rejoin := g.rejoinDue(mi) && !g.c.mut.Has(MutClassicHeartbeatNoRejoin)
	if rejoin || !g.c.mut.Has(MutClassicHeartbeatNoSession) {
		g.armClassicSession(mi, deadline(now, int64(g.mx.info[mi].sessionMs)))
	}
	if rejoin {
		g.armClassicJoin(mi, deadline(now, int64(g.mem[mi].rto)))
		return &codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress}
	}
	return &codec.HeartbeatResponse{}
}
