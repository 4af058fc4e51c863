package impl

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Member epochs with a meaning of their own (docs/PROTOCOL.md §B3.4).
const (
	joinEpoch        int32 = 0
	leaveEpoch       int32 = -1
	staticLeaveEpoch int32 = -2
)

// hbError is a failed heartbeat: the code and Kafka's message.
type hbError struct {
	code codec.ErrorCode
	msg  string
}

func invalid(msg string) *hbError { return &hbError{codec.InvalidRequest, msg} }

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// validate holds the request-only rules of §B4.2, in Kafka's order.
func (c *Coordinator) validate(version int16, r *codec.ConsumerGroupHeartbeatRequest) *hbError {
	requireID := version >= MemberIDRequiredVersion && !c.mut.Has(MutV1EmptyMemberID)
	if (requireID || r.MemberEpoch > 0 || r.MemberEpoch == leaveEpoch) && blank(r.MemberId) {
		return invalid("MemberId can't be empty.")
	}
	if blank(r.GroupId) && !(r.GroupId != "" && c.mut.Has(MutGroupIDNotTrimmed)) {
		return invalid("GroupId can't be empty.")
	}
	if r.InstanceId.Valid && blank(r.InstanceId.Value) && !c.mut.Has(MutInstanceIDBlankAccepted) {
		return invalid("InstanceId can't be empty.")
	}
	if r.RackId.Valid && blank(r.RackId.Value) && !(r.RackId.Value != "" && c.mut.Has(MutRackIDNotTrimmed)) {
		return invalid("RackId can't be empty.")
	}
	switch {
	case r.MemberEpoch == joinEpoch:
		if r.RebalanceTimeoutMs == -1 && !c.mut.Has(MutJoinWithoutRebalanceTimeoutAccepted) {
			return invalid("RebalanceTimeoutMs must be provided in first request.")
		}
		if (r.TopicPartitions == nil && !c.mut.Has(MutJoinNullPartitionsAccepted)) || len(r.TopicPartitions) > 0 {
			return invalid("TopicPartitions must be empty when (re-)joining.")
		}
		if r.SubscribedTopicNames == nil && !r.SubscribedTopicRegex.Valid && !c.mut.Has(MutJoinWithoutSubscriptionAccepted) {
			return invalid("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")
		}
	case r.MemberEpoch == staticLeaveEpoch:
		if !r.InstanceId.Valid && !c.mut.Has(MutStaticLeaveNullInstanceAsLeave) {
			return invalid("InstanceId can't be null.")
		}
	case r.MemberEpoch < staticLeaveEpoch && !(r.MemberEpoch == staticLeaveEpoch-1 && c.mut.Has(MutEpochMinusThreeAccepted)):
		return invalid("MemberEpoch is invalid.")
	}
	if r.ServerAssignor.Valid && r.ServerAssignor.Value != UniformAssignor && !c.mut.Has(MutAssignorUnchecked) {
		return &hbError{codec.UnsupportedAssignor, "ServerAssignor " + r.ServerAssignor.Value +
			" is not supported. Supported assignors: " + UniformAssignor + "."}
	}
	return nil
}

func groupNotFound(id string) *hbError {
	return &hbError{codec.GroupIDNotFound, msgGroup + id + msgNotFound}
}

// The parts of the messages of a group that does not exist, or is of
// another kind ("Group g is not a consumer group."), which Describe
// answers build again only when they change (reusedMessage).
const (
	msgGroup    = "Group "
	msgNotFound = " not found."
)

func unknownMember(memberID, groupID string) *hbError {
	return &hbError{codec.UnknownMemberID, fmt.Sprintf("Member %s is not a member of group %s.", memberID, groupID)}
}

func unknownInstance(instanceID string) *hbError {
	return &hbError{codec.UnknownMemberID, "Instance id " + instanceID + " is unknown."}
}

func fencedInstance(memberID, instanceID, holder string) *hbError {
	return &hbError{codec.FencedInstanceID, "Static member " + memberID + " with instance id " + instanceID +
		" was fenced by member " + holder + "."}
}

// resetResponse clears resp for a new answer, keeping its assignment buffer.
func resetResponse(resp *codec.ConsumerGroupHeartbeatResponse) *codec.ConsumerGroupHeartbeatAssignment {
	a := resp.Assignment
	*resp = codec.ConsumerGroupHeartbeatResponse{}
	return a
}

func fail(resp *codec.ConsumerGroupHeartbeatResponse, e *hbError) {
	resetResponse(resp)
	resp.ErrorCode = e.code
	resp.ErrorMessage = codec.Str(e.msg)
}

// heartbeat serves ConsumerGroupHeartbeat into resp: validation, then the
// leave path (epoch -1/-2) or the join/heartbeat path. It reports refused,
// with resp untouched, for a join to a classic group with members, which
// the coordinator does not serve (A6.4, A6.5).
func (c *Coordinator) heartbeat(conn Conn, clientID string, cs *connState, version int16, r *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) (refused bool) {
	if e := c.validate(version, r); e != nil {
		fail(resp, e)
		return false
	}
	if r.MemberEpoch == leaveEpoch || r.MemberEpoch == staticLeaveEpoch {
		c.leave(r, resp)
		return false
	}
	return c.joinOrHeartbeat(conn, clientID, cs, r, resp)
}

// notConsumerGroup answers a ConsumerGroupHeartbeat that is not a join,
// and ConsumerGroupDescribe, for a classic group (A6.4).
func notConsumerGroup(id string) *hbError {
	return &hbError{codec.GroupIDNotFound, msgGroup + id + " is not a consumer group."}
}

// missing is the answer for a group id that names no consumer group: a
// classic group's, or nobody's.
func (c *Coordinator) missing(id string) *hbError {
	if c.isClassic(id) {
		return notConsumerGroup(id)
	}
	return groupNotFound(id)
}

// leave is the leave path of §B4.4: no epoch check against the stored epoch.
func (c *Coordinator) leave(r *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) {
	g := c.liveGroup(r.GroupId)
	if g == nil {
		if c.mut.Has(MutLeaveMissingGroupNone) {
			resetResponse(resp)
			resp.MemberId, resp.MemberEpoch = codec.Str(r.MemberId), r.MemberEpoch
			return
		}
		fail(resp, c.missing(r.GroupId))
		return
	}
	defer g.mu.Unlock()
	ok := func(id string, epoch int32) {
		resetResponse(resp)
		resp.MemberId = codec.Str(id)
		resp.MemberEpoch = epoch
	}
	if !r.InstanceId.Valid {
		mi := g.find(r.MemberId)
		if mi == 0 {
			if c.mut.Has(MutLeaveUnknownIgnored) {
				ok(r.MemberId, leaveEpoch)
				return
			}
			c.failKnown(g, r, resp, unknownMember(r.MemberId, r.GroupId))
			return
		}
		if g.mx == nil && c.mut.Has(MutLeaveNoBump) {
			g.removeMember(mi) // and no bump
		} else {
			c.fenceLeaving(g, mi)
		}
		ok(r.MemberId, leaveEpoch)
		return
	}
	holder := g.holder(r.InstanceId.Value)
	if holder == 0 {
		if c.mut.Has(MutStaticLeaveUnknownInstanceNone) {
			ok(r.MemberId, r.MemberEpoch)
			return
		}
		c.failKnown(g, r, resp, unknownInstance(r.InstanceId.Value))
		return
	}
	if !g.idIs(holder, r.MemberId) && !c.mut.Has(MutStaticLeaveFencedRemoves) {
		c.failKnown(g, r, resp, fencedInstance(r.MemberId, r.InstanceId.Value, g.idString(holder)))
		return
	}
	if r.MemberEpoch == leaveEpoch {
		c.fenceLeaving(g, holder)
		ok(r.MemberId, leaveEpoch)
		return
	}
	// Parked at -2: keeps its assignment and its place in the target until
	// it rejoins or its session expires; pending revocations are released;
	// the session timer keeps running; the group epoch does not move.
	m := &g.mem[holder]
	m.epoch = staticLeaveEpoch
	if s := g.sideOf(holder); s != nil && !c.mut.Has(MutParkKeepsPending) {
		for _, p := range s.pending {
			g.release(p, holder)
		}
		s.pending = s.pending[:0]
	}
	if !c.mut.Has(MutParkKeepsPending) {
		g.setRebalance(holder, noDeadline)
		g.maybeFreeSide(holder)
	}
	if c.mut.Has(MutStaticLeaveRefreshesSession) && g.mem[holder].flags&flClassic == 0 {
		g.armSession(holder, c.clock.Now())
	}
	ok(r.MemberId, staticLeaveEpoch)
}

// fenceLeaving removes member mi for its leave (epoch -1): removed and the
// epoch moved on, or, for a group's last consumer-protocol member, the
// group converted to a classic one (A7.5). The classic group made
// rebalances from Stable, which answers no held request: there is nothing
// to publish.
func (c *Coordinator) fenceLeaving(g *group, mi uint32) {
	if g.mx == nil {
		g.removeMember(mi)
		g.bump()
		return
	}
	g.fence(&cop{c: c, now: c.clock.Now()}, mi)
}

// failKnown answers e; with MutErrorRefreshesSession it also refreshes the
// session of the member the request names, if it exists.
func (c *Coordinator) failKnown(g *group, r *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse, e *hbError) {
	if c.mut.Has(MutErrorRefreshesSession) && g != nil && g.status == gLive {
		if mi := g.find(r.MemberId); mi != 0 && g.mem[mi].flags&flClassic == 0 {
			g.armSession(mi, c.clock.Now())
		}
	}
	fail(resp, e)
}

// lookup is what lookupMember found.
type lookup struct {
	mi    uint32 // the existing member, 0 for a new one
	id    string // the member id
	isNew bool   // a member joins: the membership changes
	// replaces is a parked static member the new member id takes over:
	// the same membership under a new id, not a change (A5.5).
	replaces uint32
}

// joinOrHeartbeat is the join/heartbeat path of §B4.4 with the decisions of
// docs/PROTOCOL.md A1 and A5, step for step as in the model. A join to an
// Empty classic group replaces it if it succeeds (A6.4); one to a classic
// group with members is refused.
func (c *Coordinator) joinOrHeartbeat(conn Conn, clientID string, cs *connState, r *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) (refused bool) {
	join := r.MemberEpoch == joinEpoch
	// 1. Group lookup: a join creates the group, but only if it succeeds.
	var g *group
	if cg := cs.group.Load(); cg != nil && cg.id == r.GroupId {
		cg.lock()
		if cg.kind == kindConsumer { // live groups stay live
			g = cg
		} else {
			cg.mu.Unlock()
		}
	}
	switch {
	case g != nil:
	case join:
		g = c.joinGroup(r.GroupId)
		if g.kind == kindClassic && g.cl.state == classicEmpty && c.mut.Has(MutEmptyClassicGroupKept) {
			g.mu.Unlock()
			fail(resp, notConsumerGroup(r.GroupId))
			return false
		}
		if g.kind == kindClassic && g.cl.state != classicEmpty {
			// Upgraded (A7.4), or refused outside A7: g is unlocked.
			return c.upgradeJoin(g, conn, clientID, cs, r, resp)
		}
	default:
		if g = c.liveGroup(r.GroupId); g == nil {
			if c.mut.Has(MutMissingGroupUnknownMember) || c.mut.Has(MutClassicGroupUnknownMember) && c.isClassic(r.GroupId) {
				fail(resp, unknownMember(r.MemberId, r.GroupId))
				return false
			}
			fail(resp, c.missing(r.GroupId))
			return false
		}
		cs.group.Store(g)
	}
	defer g.mu.Unlock()
	now := c.clock.Now()
	e := c.joinLocked(g, conn, clientID, r, resp, now)
	if e != nil {
		if e.code == codec.InvalidRegularExpression && g.status == gPhantom && c.mut.Has(MutRegexRefusedGroupKept) {
			g.status = gLive
			c.live.add(g)
		}
		c.dropPhantom(g)
		c.failKnown(g, r, resp, e)
		return false
	}
	if g.kind == kindClassic {
		// The Empty classic group goes, its pending ids and record with
		// it: the join made a consumer group in its place.
		g.kind, g.cl = kindConsumer, nil
	}
	cs.group.Store(g)
	return false
}

// upgradeJoin is a join to classic group g with members (A7.4): the group
// is upgraded, and becomes the consumer group made only if the join
// succeeds; the answers the upgrade gives to waiting requests stand
// either way. Outside A7 it is refused (A6.4, A6.5). g is locked;
// upgradeJoin unlocks it.
func (c *Coordinator) upgradeJoin(g *group, conn Conn, clientID string, cs *connState, r *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) (refused bool) {
	if !c.cfg.MigrationPolicy.mixed() && c.mut.Has(MutUpgradeRefusedAnswered) {
		g.mu.Unlock()
		fail(resp, notConsumerGroup(g.id))
		return false
	}
	if !c.cfg.MigrationPolicy.mixed() {
		g.mu.Unlock()
		return true
	}
	now := c.clock.Now()
	op := &cop{c: c, now: now}
	e := g.upgrade(op)
	if e == nil {
		if e = c.joinLocked(g, conn, clientID, r, resp, now); e != nil {
			g.resetConsumer()
		}
	}
	if e != nil {
		c.failKnown(nil, r, resp, e)
	} else {
		g.kind, g.cl = kindConsumer, nil
		cs.group.Store(g)
	}
	g.mu.Unlock()
	op.publish()
	return false
}

// joinLocked runs steps 2 to 7 of the join/heartbeat path on g, locked,
// writing the response into resp on success; on failure it returns the
// error and the group is as it was.
func (c *Coordinator) joinLocked(g *group, conn Conn, clientID string, r *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse, now int64) *hbError {
	join := r.MemberEpoch == joinEpoch
	// 2. Size cap, before the member lookup; parked members count. A
	// held instance id skips it (KAFKA-20601), as in the model's groupFull.
	if max := c.cfg.MaxGroupSize; max > 0 && g.count >= max && !(g.count == max && c.mut.Has(MutGroupMaxSizeOffByOne)) {
		known := r.MemberId != "" && g.find(r.MemberId) != 0
		held := r.InstanceId.Valid && g.holder(r.InstanceId.Value) != 0
		if !known && !held {
			return &hbError{codec.GroupMaxSizeReached, fmt.Sprintf("The consumer group has reached its maximum capacity of %d members.", max)}
		}
	}
	// 3. v0 only: the coordinator makes the member id.
	memberID := r.MemberId
	if memberID == "" {
		memberID = c.ids.next().String()
		if c.mut.Has(MutV0MemberIDZero) {
			memberID = codec.UUID{}.String()
		}
	}
	// 4./5. Find, create or replace the member, and check the epoch.
	lk, e := c.lookupMember(g, memberID, r)
	if e != nil {
		return e
	}
	// 6. The subscription: a changed regex must compile (v1+).
	if e := g.checkRegex(lk, r.SubscribedTopicRegex); e != nil {
		return e
	}
	// Every check has passed: from here on the request takes effect.
	mi := lk.mi
	if lk.isNew || lk.replaces != 0 {
		mi = g.alloc(lk.id)
		if old := lk.replaces; old != 0 {
			g.takeOver(mi, old)
		}
	}
	resumed := false
	if join && g.mem[mi].epoch == staticLeaveEpoch {
		resumed = true
		// A parked static member joining under its own id resumes, on the
		// dynamic path too: back at epoch 0 to reconcile, no epoch bump.
		m := &g.mem[mi]
		m.epoch, m.prevEpoch, m.state = 0, 0, stStable
		g.setRebalance(mi, noDeadline)
		g.maybeFreeSide(mi)
	}
	// 6. (cont.) The fields take effect; a new member or a changed
	// subscription bumps the group epoch (a static takeover is neither,
	// A5.5, unless the mutant makes it a rebalance), and the member is
	// reconciled.
	changed := g.applyFields(mi, conn, clientID, r) || lk.isNew
	if lk.isNew && r.InstanceId.Valid && c.mut.Has(MutNewStaticMemberNoBump) {
		changed = false // taken for a takeover
	}
	if lk.replaces != 0 && c.mut.Has(MutStaticRestartRebalances) || resumed && c.mut.Has(MutParkedResumeBumps) {
		changed = true
	}
	if g.status != gLive {
		g.status = gLive
		c.live.add(g)
	}
	if g.mem[mi].inst != 0 {
		g.insts.get(g.mem[mi].inst).val = mi
	}
	if changed {
		g.bump()
	}
	assignmentChanged := g.reconcile(mi, r.TopicPartitions, now)
	// 7. Success only: the session timer is (re)armed.
	g.armSession(mi, now)

	c.succeed(g, mi, lk.id, r, resp, assignmentChanged)
	return nil
}

// checkRegex is step 6's check: a regex the member did not already have
// must compile. It changes nothing.
func (g *group) checkRegex(lk lookup, re codec.NullableString) *hbError {
	if !re.Valid || re.Value == "" {
		return nil
	}
	cur := codec.Null
	switch {
	case lk.replaces != 0:
		cur = g.subOf(lk.replaces).regex
	case !lk.isNew:
		cur = g.subOf(lk.mi).regex
	}
	if re != cur && !g.c.mut.Has(MutRegexNotCompiled) {
		if _, err := regexp.Compile(re.Value); err != nil {
			return &hbError{codec.InvalidRegularExpression, "SubscribedTopicRegex `" + re.Value + "` is not a valid regular expression: " + err.Error() + "."}
		}
	}
	return nil
}

// applyFields applies the fields a join or heartbeat may change (null or
// -1 means unchanged) and records the client's id and host, as the
// model's applyFields. It reports whether the subscription changed, which
// moves the group epoch on (step 6).
func (g *group) applyFields(mi uint32, conn Conn, clientID string, r *codec.ConsumerGroupHeartbeatRequest) (subscriptionChanged bool) {
	if r.InstanceId.Valid {
		g.setInstance(mi, r.InstanceId.Value)
	}
	if r.RackId.Valid {
		g.setRack(mi, r.RackId.Value)
	}
	if r.RebalanceTimeoutMs != -1 {
		g.mem[mi].rto = r.RebalanceTimeoutMs
	}
	if r.SubscribedTopicNames != nil || r.SubscribedTopicRegex.Valid {
		cur := g.subOf(mi)
		names, regex := cur.names, cur.regex
		// Most heartbeats that carry names carry the same, in order (names
		// are sorted, without repeats): they are compared as sent before a
		// sorted copy is made, if they need one.
		if rn := r.SubscribedTopicNames; rn != nil && !equalStrings(rn, names) {
			n := sortedUnique(rn)
			if !equalStrings(n, names) {
				subscriptionChanged = len(n) != len(names) || !g.c.mut.Has(MutSubscriptionComparedByCount)
				names = n
			}
		}
		if r.SubscribedTopicRegex.Valid && r.SubscribedTopicRegex != regex {
			regex = r.SubscribedTopicRegex
			subscriptionChanged = true
		}
		if !equalStrings(names, cur.names) || regex != cur.regex {
			g.setSubscription(mi, names, regex)
		}
	}
	g.setClient(mi, clientID, conn.Host)
	// Below the calls, so that the profile's call sites (default.pgo) stay
	// where they were: names set (for a classic JoinGroup's comparison,
	// A7.1), and a classic member's ConsumerGroupHeartbeat makes it one of
	// the consumer protocol, its classic state and timers gone (A7.3).
	if m := &g.mem[mi]; r.SubscribedTopicNames != nil || m.flags&flClassic != 0 {
		if r.SubscribedTopicNames != nil {
			m.flags |= flNames
		}
		if !g.c.mut.Has(MutSwitchKeepsClassicState) {
			g.dropClassic(mi)
		}
	}
	return subscriptionChanged
}

// succeed writes a successful join or heartbeat's response for member mi
// (id memberID) into resp, reusing its assignment. The assignment goes
// with a join, with a full request (a client that may have lost its
// state), and whenever it changed.
func (c *Coordinator) succeed(g *group, mi uint32, memberID string, r *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse, assignmentChanged bool) {
	asg := resetResponse(resp)
	resp.MemberId = codec.Str(memberID)
	resp.MemberEpoch = g.mem[mi].epoch
	resp.HeartbeatIntervalMs = c.cfg.HeartbeatIntervalMs
	full := fullRequest(r)
	if full && c.mut.Has(MutRegexNotFullRequest) && r.MemberEpoch != joinEpoch && r.SubscribedTopicNames == nil {
		full = false
	}
	if full && (r.MemberEpoch == joinEpoch && c.mut.Has(MutJoinWithoutAssignment) || r.MemberEpoch != joinEpoch && c.mut.Has(MutFullRequestNoAssignment)) {
		full = false
	}
	if full || assignmentChanged {
		if asg == nil {
			asg = &codec.ConsumerGroupHeartbeatAssignment{}
		}
		var assigned []int32
		if s := g.sideOf(mi); s != nil {
			assigned = s.assigned
		}
		asg.TopicPartitions = c.heartbeatPartitions(asg.TopicPartitions[:0], assigned)
		asg.UnknownTags = nil
		resp.Assignment = asg
	}
}

// fullRequest is Kafka's isFullRequest (A5.7), as the model's: a join, or
// RebalanceTimeoutMs, a subscription by names or regex, and owned
// partitions.
func fullRequest(r *codec.ConsumerGroupHeartbeatRequest) bool {
	subscribed := r.SubscribedTopicNames != nil || r.SubscribedTopicRegex.Valid
	return r.MemberEpoch == joinEpoch || (r.RebalanceTimeoutMs != -1 && subscribed && r.TopicPartitions != nil)
}

// takeOver is a static takeover (A5.5), as the model's takeOver: new
// member mi, at epoch 0, inherits parked member old's settings, assigned
// partitions (still owned) and slot in the target; the parked member has
// no pending revocations and no rebalance timer, and its session ends with
// it (mi's starts at its join). The old member goes; the group epoch does
// not move.
func (g *group) takeOver(mi, old uint32) {
	o := &g.mem[old]
	m := &g.mem[mi]
	m.rto = o.rto
	m.flags |= o.flags & flNames
	if o.inst != 0 {
		g.insts.get(o.inst).refs++
		m.inst = o.inst
	}
	if o.rack != 0 {
		g.racks.get(o.rack).refs++
		m.rack = o.rack
	}
	if o.client != 0 {
		g.clients.get(o.client).refs++
		m.client = o.client
	}
	if o.sub != 0 {
		g.subs.get(o.sub).refs++
		g.moveSubscription(mi, o.sub)
	}
	var assigned, target []int32
	if os := g.sideOf(old); os != nil {
		// Copied out before ensureSide, which may move the side records.
		assigned = append([]int32(nil), os.assigned...)
		target = append([]int32(nil), os.target...)
		os.assigned, os.target = os.assigned[:0], os.target[:0]
	}
	if len(assigned) > 0 || len(target) > 0 {
		s := g.ensureSide(mi)
		s.assigned, s.target = assigned, target
		for _, p := range assigned {
			g.owner[p] = mi << 1
		}
		for _, p := range target {
			g.tgt[p] = mi
		}
	}
	g.removeMember(old)
}

// lookupMember finds the member a join or heartbeat is for, or prepares a
// new one, and applies the epoch check. It changes nothing.
func (c *Coordinator) lookupMember(g *group, memberID string, r *codec.ConsumerGroupHeartbeatRequest) (lookup, *hbError) {
	join := r.MemberEpoch == joinEpoch
	existing := g.find(memberID)
	if !r.InstanceId.Valid {
		if existing == 0 {
			if !join {
				if c.mut.Has(MutUnknownMemberFenced) {
					return lookup{}, &hbError{codec.FencedMemberEpoch, "The consumer group member has a greater member epoch than the one known by the group coordinator."}
				}
				return lookup{}, unknownMember(memberID, g.id)
			}
			return lookup{id: memberID, isNew: true}, nil
		}
		if !join {
			if e := c.checkEpoch(g, existing, r); e != nil {
				return lookup{}, e
			}
		} else if c.mut.Has(MutRetriedJoinNewMember) {
			return lookup{id: c.ids.next().String(), isNew: true}, nil
		}
		return lookup{mi: existing, id: memberID}, nil
	}
	instanceID := r.InstanceId.Value
	holder := g.holder(instanceID)
	if !join {
		if holder == 0 {
			if c.mut.Has(MutStaticUnknownInstanceFenced) {
				return lookup{}, fencedInstance(memberID, instanceID, "")
			}
			return lookup{}, unknownInstance(instanceID)
		}
		if holder != existing {
			if c.mut.Has(MutStaticFencedAsUnknown) {
				return lookup{}, unknownMember(memberID, g.id)
			}
			return lookup{}, fencedInstance(memberID, instanceID, g.idString(holder))
		}
		if e := c.checkEpoch(g, holder, r); e != nil {
			return lookup{}, e
		}
		return lookup{mi: holder, id: memberID}, nil
	}
	if existing != 0 && holder != existing {
		if holder == 0 && c.mut.Has(MutMemberInstanceRewritten) {
			return lookup{mi: existing, id: memberID}, nil
		}
		return lookup{}, invalid(fmt.Sprintf("Member %s is already in group %s with a different instance id.", memberID, g.id))
	}
	if holder == 0 {
		return lookup{id: memberID, isNew: true}, nil
	}
	if holder == existing {
		if c.mut.Has(MutStaticRetriedJoinUnreleased) && g.mem[holder].epoch != staticLeaveEpoch {
			return lookup{}, &hbError{codec.UnreleasedInstanceID, "Static member " + memberID + " with instance id " + instanceID +
				" cannot join the group because the instance id is owned by " + memberID + " member."}
		}
		return lookup{mi: holder, id: memberID}, nil
	}
	if g.mem[holder].epoch != staticLeaveEpoch && (g.mem[holder].flags&flClassic == 0 || c.mut.Has(MutClassicHolderUnreleased)) && !c.mut.Has(MutUnreleasedInstanceTakenOver) { // a classic holder goes at once (A7.3)
		holderID := g.idString(holder)
		return lookup{}, &hbError{codec.UnreleasedInstanceID, "Static member " + memberID + " with instance id " + instanceID +
			" cannot join the group because the instance id is owned by " + holderID + " member."}
	}
	return lookup{id: memberID, replaces: holder}, nil
}

// checkEpoch is Kafka's member epoch check for a heartbeat (epoch > 0).
func (c *Coordinator) checkEpoch(g *group, mi uint32, r *codec.ConsumerGroupHeartbeatRequest) *hbError {
	e, m := r.MemberEpoch, &g.mem[mi]
	switch {
	case e == m.epoch && m.epoch != g.epoch && c.mut.Has(MutEpochCheckedAgainstGroup):
		return &hbError{codec.FencedMemberEpoch, fmt.Sprintf("The consumer group member has a smaller member epoch (%d) than the group's (%d).", e, g.epoch)}
	case e > m.epoch && !(e == m.epoch+1 && c.mut.Has(MutEpochOneAheadAccepted)):
		return &hbError{codec.FencedMemberEpoch, fmt.Sprintf("The consumer group member has a greater member epoch (%d) than the one known by the group coordinator (%d). The member must abandon all its partitions and rejoin.", e, m.epoch)}
	case e < m.epoch:
		nullOK := c.mut.Has(MutPrevEpochWithoutOwned) // isSubset(nil) holds
		if e != m.prevEpoch || (r.TopicPartitions == nil && !nullOK) || !g.isSubset(r.TopicPartitions, mi) || c.mut.Has(MutPreviousEpochFenced) {
			return &hbError{codec.FencedMemberEpoch, fmt.Sprintf("The consumer group member has a smaller member epoch (%d) than the one known by the group coordinator (%d). The member must abandon all its partitions and rejoin.", e, m.epoch)}
		}
	}
	return nil
}

// heartbeatPartitions renders sorted partition indexes as a heartbeat's
// TopicPartitions, reusing dst's slices.
func (c *Coordinator) heartbeatPartitions(dst []codec.ConsumerGroupHeartbeatTopicPartitions, ps []int32) []codec.ConsumerGroupHeartbeatTopicPartitions {
	if cap(dst) == 0 && len(ps) > 0 {
		// A new response's lists, made at their sizes: the topics' from
		// one array, each capped at its end, so that a reuse appending to
		// one cannot reach the next.
		nt := c.topicsIn(ps)
		dst = make([]codec.ConsumerGroupHeartbeatTopicPartitions, nt)
		parts := make([]int32, len(ps))
		ti, k, from := -1, -1, 0
		for i, p := range ps {
			if t := c.topicOf(p); t != ti {
				if k >= 0 {
					dst[k].Partitions = parts[from:i:i]
				}
				ti, from = t, i
				k++
				dst[k].TopicId = c.topics[t].ID
			}
			parts[i] = p - c.base[ti]
		}
		dst[k].Partitions = parts[from:len(ps):len(ps)]
		return dst
	}
	if dst == nil {
		dst = []codec.ConsumerGroupHeartbeatTopicPartitions{}
	}
	ti := -1
	for _, p := range ps {
		t := c.topicOf(p)
		if t != ti {
			ti = t
			n := len(dst)
			if n < cap(dst) {
				dst = dst[:n+1]
				dst[n].Partitions = dst[n].Partitions[:0]
				dst[n].UnknownTags = nil
			} else {
				dst = append(dst, codec.ConsumerGroupHeartbeatTopicPartitions{})
			}
			dst[n].TopicId = c.topics[t].ID
		}
		n := len(dst) - 1
		dst[n].Partitions = append(dst[n].Partitions, p-c.base[t])
	}
	return dst
}

// topicOf is the topic index of global partition p.
func (c *Coordinator) topicOf(p int32) int {
	return sort.Search(len(c.base), func(i int) bool { return c.base[i] > p }) - 1
}

// sortedUnique is in sorted, without repeats: in itself when it is so
// already (as clients send their subscriptions), not to be kept then (a
// subscription made keeps a copy, setSubscription), else a sorted copy.
func sortedUnique(in []string) []string {
	for i := 1; i < len(in); i++ {
		if in[i-1] >= in[i] {
			return uniqueSorted(in)
		}
	}
	return in
}

func uniqueSorted(in []string) []string {
	out := append([]string{}, in...)
	sort.Strings(out)
	j := 0
	for i, s := range out {
		if i == 0 || s != out[j-1] {
			out[j] = s
			j++
		}
	}
	return out[:j]
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
