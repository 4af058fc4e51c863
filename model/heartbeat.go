package model

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// hbError is a failed heartbeat: the code and Kafka's message, and for a
// validation failure the §B4.2 row it breaks (for the clause counter).
type hbError struct {
	code   codec.ErrorCode
	msg    string
	clause Clause
}

func invalid(msg string) *hbError { return &hbError{code: codec.InvalidRequest, msg: msg} }

// invalidRow is a §B4.2 validation failure of row clause.
func invalidRow(clause Clause, msg string) *hbError {
	return &hbError{code: codec.InvalidRequest, msg: msg, clause: clause}
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// errorResponse is how Kafka answers a failed heartbeat: the code and
// message, MemberId null, epoch 0, interval 0, no assignment.
func errorResponse(e *hbError) *codec.ConsumerGroupHeartbeatResponse {
	return &codec.ConsumerGroupHeartbeatResponse{ErrorCode: e.code, ErrorMessage: codec.Str(e.msg)}
}

// validateHeartbeat holds the request-only rules of §B4.2, in Kafka's order.
// They run before any state is looked at.
func validateHeartbeat(version int16, r *codec.ConsumerGroupHeartbeatRequest) *hbError {
	if (version >= rules.MemberIDRequiredVersion || r.MemberEpoch > 0 || r.MemberEpoch == rules.LeaveEpoch) && blank(r.MemberId) {
		return invalidRow("B4.2/member-id-blank", "MemberId can't be empty.")
	}
	if blank(r.GroupId) {
		return invalidRow("B4.2/group-id-blank", "GroupId can't be empty.")
	}
	if r.InstanceId.Valid && blank(r.InstanceId.Value) {
		return invalidRow("B4.2/instance-id-blank", "InstanceId can't be empty.")
	}
	if r.RackId.Valid && blank(r.RackId.Value) {
		return invalidRow("B4.2/rack-id-blank", "RackId can't be empty.")
	}
	switch {
	case r.MemberEpoch == rules.JoinEpoch:
		if r.RebalanceTimeoutMs == -1 {
			return invalidRow("B4.2/join-without-rebalance-timeout", "RebalanceTimeoutMs must be provided in first request.")
		}
		if r.TopicPartitions == nil || len(r.TopicPartitions) > 0 {
			return invalidRow("B4.2/join-topic-partitions", "TopicPartitions must be empty when (re-)joining.")
		}
		if r.SubscribedTopicNames == nil && !r.SubscribedTopicRegex.Valid {
			return invalidRow("B4.2/join-without-subscription", "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")
		}
	case r.MemberEpoch == rules.StaticLeaveEpoch:
		if !r.InstanceId.Valid {
			return invalidRow("B4.2/static-leave-null-instance", "InstanceId can't be null.")
		}
	case r.MemberEpoch < rules.StaticLeaveEpoch:
		return invalidRow("B4.2/epoch-invalid", "MemberEpoch is invalid.")
	}
	if r.ServerAssignor.Valid && r.ServerAssignor.Value != uniformAssignor {
		return &hbError{code: codec.UnsupportedAssignor, msg: "ServerAssignor " + r.ServerAssignor.Value +
			" is not supported. Supported assignors: " + uniformAssignor + ".", clause: "B4.2/unsupported-assignor"}
	}
	return nil
}

func groupNotFound(id string) *hbError {
	return &hbError{code: codec.GroupIDNotFound, msg: "Group " + id + " not found."}
}

func unknownMember(memberID, groupID string) *hbError {
	return &hbError{code: codec.UnknownMemberID, msg: "Member " + memberID + " is not a member of group " + groupID + "."}
}

func unknownInstance(instanceID string) *hbError {
	return &hbError{code: codec.UnknownMemberID, msg: "Instance id " + instanceID + " is unknown."}
}

func fencedInstance(memberID, instanceID, holder string) *hbError {
	return &hbError{code: codec.FencedInstanceID, msg: "Static member " + memberID + " with instance id " + instanceID +
		" was fenced by member " + holder + "."}
}

// heartbeat serves ConsumerGroupHeartbeat: validation, then the leave path
// (epoch -1/-2) or the join/heartbeat path. It returns
// ErrUnsupportedRequest, changing nothing, for a join that would convert a
// classic group with members (A6.4: outside the model).
func (c *Coordinator) heartbeat(conn Conn, clientID string, version int16, r *codec.ConsumerGroupHeartbeatRequest) (codec.Message, error) {
	if e := validateHeartbeat(version, r); e != nil {
		c.hit(e.clause)
		return errorResponse(e), nil
	}
	if r.MemberEpoch == rules.LeaveEpoch || r.MemberEpoch == rules.StaticLeaveEpoch {
		resp, e := c.leave(r)
		if e != nil {
			return errorResponse(e), nil
		}
		return resp, nil
	}
	resp, e := c.joinOrHeartbeat(conn, clientID, r)
	if e == errUpgradeRefused {
		return nil, ErrUnsupportedRequest
	}
	if e != nil {
		return errorResponse(e), nil
	}
	return resp, nil
}

// notConsumerGroup is the answer of a ConsumerGroupHeartbeat that is not a
// join, and of ConsumerGroupDescribe, for a classic group (A6.4).
func notConsumerGroup(id string) *hbError {
	return &hbError{code: codec.GroupIDNotFound, msg: "Group " + id + " is not a consumer group."}
}

// errUpgradeRefused marks a join to a classic group with members: Kafka
// converts the group if its migration policy allows, which is outside the
// model (A6.4, A6.5); Handle refuses the request.
var errUpgradeRefused = &hbError{}

// leave is the leave path of §B4.4: no epoch check against the stored epoch.
// A successful leave answers the member id and the epoch (-1 or -2) and
// nothing else: HeartbeatIntervalMs 0 and no Assignment, as Kafka's leave
// does. A5's "configured interval on success" belongs to the join and
// heartbeat path it describes (there is no next heartbeat to schedule after
// a leave), and A4 sends the leave rules to §B4.4.
func (c *Coordinator) leave(r *codec.ConsumerGroupHeartbeatRequest) (*codec.ConsumerGroupHeartbeatResponse, *hbError) {
	if c.classic[r.GroupId] != nil {
		c.hit("A6.4/heartbeat-classic-not-found")
		return nil, notConsumerGroup(r.GroupId)
	}
	g := c.groups[r.GroupId]
	if g == nil {
		c.hit("B4.4/leave-group-not-found")
		return nil, groupNotFound(r.GroupId)
	}
	if !r.InstanceId.Valid {
		m := g.member(r.MemberId)
		if m == nil {
			c.hit("B4.4/leave-unknown-member")
			return nil, unknownMember(r.MemberId, r.GroupId)
		}
		c.hit("B4.4/leave-removes")
		c.fence(g, m)
		return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(r.MemberId), MemberEpoch: rules.LeaveEpoch}, nil
	}
	holder, ok := g.instances[r.InstanceId.Value]
	if !ok {
		c.hit("B4.4/leave-unknown-instance")
		return nil, unknownInstance(r.InstanceId.Value)
	}
	if holder != r.MemberId {
		c.hit("B4.4/leave-fenced-instance")
		return nil, fencedInstance(r.MemberId, r.InstanceId.Value, holder)
	}
	m := g.member(holder)
	if r.MemberEpoch == rules.LeaveEpoch {
		c.hit("B4.4/leave-removes")
		c.fence(g, m)
		return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(m.id), MemberEpoch: rules.LeaveEpoch}, nil
	}
	// A static member leaving temporarily is parked at -2: it keeps its
	// assignment (and its place in the target) until it rejoins or its
	// session expires; its pending revocations are released; its timers
	// keep running. The group epoch does not move.
	c.hit("B4.4/leave-parks")
	m.epoch = rules.StaticLeaveEpoch
	m.pending = partSet{}
	m.rebalanceDeadline = noDeadline // nothing left to revoke
	return &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(m.id), MemberEpoch: rules.StaticLeaveEpoch}, nil
}

// joinOrHeartbeat is the join/heartbeat path of §B4.4 with the decisions of
// docs/PROTOCOL.md A1 (idempotent joins, dynamic and static) and A5.
func (c *Coordinator) joinOrHeartbeat(conn Conn, clientID string, r *codec.ConsumerGroupHeartbeatRequest) (*codec.ConsumerGroupHeartbeatResponse, *hbError) {
	join := r.MemberEpoch == rules.JoinEpoch
	// 1. Group lookup: a join creates the group, but only if it succeeds.
	// A classic group's id is not a consumer group's (A6.4): only a join
	// to an Empty one may replace it, and only if it succeeds.
	// With members, it is upgraded (A7.4): the consumer group it becomes
	// replaces it only if the join succeeds.
	replaces := c.classic[r.GroupId]
	var g *group
	created := false
	if replaces != nil {
		switch {
		case !join:
			c.hit("A6.4/heartbeat-classic-not-found")
			return nil, notConsumerGroup(r.GroupId)
		case replaces.state != classicEmpty && !c.cfg.MigrationPolicy.mixed():
			c.hit("A6.4/upgrade-refused")
			return nil, errUpgradeRefused
		case replaces.state != classicEmpty:
			converted, e := c.upgrade(replaces)
			if e != nil {
				return nil, e
			}
			g, created = converted, true
		}
	}
	if g == nil {
		g = c.groups[r.GroupId]
	}
	if g == nil {
		if !join {
			c.hit("B4.4/group-not-found")
			return nil, groupNotFound(r.GroupId)
		}
		g = newGroup(r.GroupId)
		created = true
	}
	// 2. Size cap, before the member lookup; parked members count.
	if c.groupFull(g, r) {
		c.hit("B4.4/group-max-size")
		return nil, &hbError{code: codec.GroupMaxSizeReached, msg: fmt.Sprintf("The consumer group has reached its maximum capacity of %d members.", c.cfg.MaxGroupSize)}
	}
	// 3. v0 only: the coordinator makes the member id (the ghost-prone
	// behaviour KIP-1082 removed).
	memberID := r.MemberId
	if memberID == "" {
		c.hit("A1/v0-member-id-made")
		memberID = c.cfg.NewID().String()
	}
	// 4./5. Find, create or replace the member, and check the epoch.
	lk, e := c.lookupMember(g, memberID, r)
	if e != nil {
		return nil, e
	}
	m := lk.member
	// 6. The subscription: a changed regex must compile (v1+).
	if re := r.SubscribedTopicRegex; re.Valid && re.Value != "" && re != m.subscribedRegex {
		if _, err := regexp.Compile(re.Value); err != nil {
			c.hit("B4.4/invalid-regex")
			return nil, &hbError{code: codec.InvalidRegularExpression, msg: "SubscribedTopicRegex `" + re.Value + "` is not a valid regular expression: " + err.Error() + "."}
		}
	}
	// Every check has passed: from here on the request takes effect.
	if lk.replaces != nil {
		// A static takeover: the new id takes the old one's place, its
		// slot in the target included; the group epoch stays.
		old := lk.replaces
		c.hit("A5.5/takeover")
		g.remove(old.id)
		delete(g.instances, old.instanceID.Value)
		g.target[m.id] = g.target[old.id]
		delete(g.target, old.id)
	}
	if join && m.epoch == rules.StaticLeaveEpoch {
		// A parked static member joining under its own id resumes: the
		// same membership (no group-epoch bump, A5 "Static members"), back
		// at epoch 0 to reconcile. This holds on the dynamic path too (an
		// InstanceId of null means "unchanged"): a successful response
		// never carries epoch -2, which a client would send back as a
		// leave (§B3.4).
		c.hit("A5.5/parked-resumes")
		m.epoch, m.prevEpoch = 0, 0
		m.state, m.rebalanceDeadline = stateStable, noDeadline
	}
	// 6. (cont.) The fields take effect; a new member or a changed
	// subscription bumps the group epoch (a static takeover is neither,
	// A5.5), and the member is reconciled.
	changed := applyFields(m, conn, clientID, r) || lk.isNew
	if m.classic != nil {
		// A member's ConsumerGroupHeartbeat makes it a member of the
		// consumer protocol: its classic state and timers go (A7.3).
		c.hit("A7.3/classic-member-switches")
		m.classic = nil
	}
	if created {
		switch {
		case replaces != nil && replaces.state != classicEmpty:
			c.hit("A7.4/upgraded")
			delete(c.classic, g.id)
		case replaces != nil:
			// The Empty classic group goes, its pending ids and its
			// record with it.
			c.hit("A6.4/heartbeat-replaces-classic-group")
			delete(c.classic, g.id)
		}
		c.hit("B4.4/group-created")
		c.groups[g.id] = g
	}
	g.put(m)
	if m.instanceID.Valid {
		g.instances[m.instanceID.Value] = m.id
	}
	if changed {
		if lk.isNew {
			c.hit("A5.1/member-joined")
		} else {
			c.hit("A5.1/subscription-changed")
		}
		c.bumpEpoch(g)
	}
	assignmentChanged := c.reconcile(g, m, r.TopicPartitions)
	// 7. Success only: the session timer is (re)armed.
	m.sessionDeadline = c.now + c.cfg.SessionTimeoutMs

	resp := &codec.ConsumerGroupHeartbeatResponse{
		MemberId:            codec.Str(m.id),
		MemberEpoch:         m.epoch,
		HeartbeatIntervalMs: c.cfg.HeartbeatIntervalMs,
	}
	if fullRequest(r) || assignmentChanged {
		c.hitAssignment(r, !assignmentChanged)
		resp.Assignment = c.heartbeatAssignment(m.assigned)
	} else {
		c.hit("A5.7/no-assignment")
	}
	return resp, nil
}

// hitAssignment counts why a response carries the assignment (A5.7).
func (c *Coordinator) hitAssignment(r *codec.ConsumerGroupHeartbeatRequest, unchanged bool) {
	switch {
	case r.MemberEpoch == rules.JoinEpoch:
		c.hit("A5.7/assignment-on-join")
	case fullRequest(r) && r.SubscribedTopicNames == nil:
		c.hit("A5.7/assignment-full-by-regex")
	case fullRequest(r):
		c.hit("A5.7/assignment-full-request")
	}
	if !unchanged {
		c.hit("A5.7/assignment-changed")
	}
}

// groupFull is step 2 of §B4.4, the size cap: a group holding MaxGroupSize
// members (parked members count) refuses a request whose member id is
// empty or not in the group, unless the request's instance id is held in
// the group: a static member coming back under a new member id takes the
// slot its old incarnation already fills, and goes on to the static rules
// (a takeover of a parked instance, UNRELEASED_INSTANCE_ID otherwise).
// That exception is Kafka's since KAFKA-20601; before it a static
// takeover in a full group was GROUP_MAX_SIZE_REACHED.
func (c *Coordinator) groupFull(g *group, r *codec.ConsumerGroupHeartbeatRequest) bool {
	if c.cfg.MaxGroupSize <= 0 || len(g.members) < c.cfg.MaxGroupSize {
		return false
	}
	if r.MemberId != "" && g.member(r.MemberId) != nil {
		return false
	}
	if r.InstanceId.Valid {
		if _, held := g.instances[r.InstanceId.Value]; held {
			return false
		}
	}
	return true
}

// fullRequest is Kafka's isFullRequest (A5.7): a join, or a heartbeat that
// sends everything a client that lost its state would (RebalanceTimeoutMs,
// a subscription by names or by regex, and its owned partitions). Its
// response carries the assignment whether or not it changed.
func fullRequest(r *codec.ConsumerGroupHeartbeatRequest) bool {
	subscribed := r.SubscribedTopicNames != nil || r.SubscribedTopicRegex.Valid
	return r.MemberEpoch == rules.JoinEpoch || (r.RebalanceTimeoutMs != -1 && subscribed && r.TopicPartitions != nil)
}

// applyFields applies the fields a join or heartbeat may change (a null
// field, or a RebalanceTimeoutMs of -1, means unchanged, §B3.2) and
// records the client's id and host. It reports whether the subscription
// changed, which moves the group epoch on (§B4.4 rule 6).
func applyFields(m *member, conn Conn, clientID string, r *codec.ConsumerGroupHeartbeatRequest) (subscriptionChanged bool) {
	if r.InstanceId.Valid {
		m.instanceID = r.InstanceId
	}
	if r.RackId.Valid {
		m.rackID = r.RackId
	}
	if r.RebalanceTimeoutMs != -1 {
		m.rebalanceTimeoutMs = r.RebalanceTimeoutMs
	}
	if r.ServerAssignor.Valid {
		m.serverAssignor = r.ServerAssignor
	}
	// Most full heartbeats repeat the subscription the member has (sorted,
	// unique): it is kept then, not made again (it is replaced, never
	// changed in place).
	if r.SubscribedTopicNames != nil && (m.subscribedNames == nil || !slices.Equal(r.SubscribedTopicNames, m.subscribedNames)) {
		names := uniqueSorted(r.SubscribedTopicNames)
		if !slices.Equal(names, m.subscribedNames) {
			subscriptionChanged = true
		}
		m.subscribedNames = names
	}
	if r.SubscribedTopicRegex.Valid && r.SubscribedTopicRegex != m.subscribedRegex {
		m.subscribedRegex = r.SubscribedTopicRegex
		m.matcher = topicMatcher(m.subscribedRegex)
		subscriptionChanged = true
	}
	m.clientID = clientID
	m.clientHost = conn.Host
	return subscriptionChanged
}

// lookup is what lookupMember found: the member the request is for, and
// what accepting the request will change in the membership.
type lookup struct {
	member *member
	isNew  bool // a member joins: the membership changes
	// replaces is the parked static member this new member id takes over:
	// the same membership under a new id, not a change (A5.5).
	replaces *member
}

// lookupMember finds the member a join or heartbeat is for, or prepares a
// new one (a join), including a new member id taking over a parked static
// member, and applies the epoch check. It changes nothing: the caller
// commits the result once every check has passed.
func (c *Coordinator) lookupMember(g *group, memberID string, r *codec.ConsumerGroupHeartbeatRequest) (lookup, *hbError) {
	join := r.MemberEpoch == rules.JoinEpoch
	existing := g.member(memberID)
	if !r.InstanceId.Valid {
		// Dynamic path (also a static member's keepalive with InstanceId
		// null, meaning "unchanged").
		if existing == nil {
			if !join {
				c.hit("B4.4/unknown-member")
				return lookup{}, unknownMember(memberID, g.id)
			}
			return lookup{member: c.newMember(memberID), isNew: true}, nil
		}
		if !join {
			if e := c.checkEpoch(existing, r); e != nil {
				return lookup{}, e
			}
		} else {
			// A1: a join that repeats an id already in the group is
			// accepted in place (KAFKA-19233).
			c.hit("A1/retried-join-in-place")
		}
		return lookup{member: existing}, nil
	}

	instanceID := r.InstanceId.Value
	holderID, held := g.instances[instanceID]
	if !join {
		if !held {
			c.hit("B4.4/static-unknown-instance")
			return lookup{}, unknownInstance(instanceID)
		}
		if holderID != memberID {
			c.hit("B4.4/static-fenced-instance")
			return lookup{}, fencedInstance(memberID, instanceID, holderID)
		}
		holder := g.member(holderID)
		if e := c.checkEpoch(holder, r); e != nil {
			return lookup{}, e
		}
		return lookup{member: holder}, nil
	}
	// A static join.
	if existing != nil && !(held && holderID == memberID) {
		// The member id is in the group under another (or no) instance id.
		c.hit("A1/join-member-other-instance")
		return lookup{}, invalid(fmt.Sprintf("Member %s is already in group %s with a different instance id.", memberID, g.id))
	}
	if !held {
		return lookup{member: c.newMember(memberID), isNew: true}, nil
	}
	holder := g.member(holderID)
	if holderID == memberID {
		// A1: a static member's retried join is accepted in place (Kafka
		// still answers UNRELEASED_INSTANCE_ID, apache/kafka PR #23542); a
		// parked one resumes (see joinOrHeartbeat).
		c.hit("A1/static-retried-join-in-place")
		return lookup{member: holder}, nil
	}
	if holder.classic != nil {
		// A classic holder is replaced whatever its epoch (A7.3).
		c.hit("A7.3/consumer-replaces-classic-static")
		return lookup{member: takeOver(holder, memberID), replaces: holder}, nil
	}
	if holder.epoch != rules.StaticLeaveEpoch {
		c.hit("A1/join-unreleased-instance")
		return lookup{}, &hbError{code: codec.UnreleasedInstanceID, msg: "Static member " + memberID + " with instance id " + instanceID +
			" cannot join the group because the instance id is owned by " + holderID + " member."}
	}
	return lookup{member: takeOver(holder, memberID), replaces: holder}, nil
}

// takeOver is KIP-345's static restart (A5.5, §B4.4 rule 5): a new member
// id joins with the instance id of a member parked at -2, and replaces it
// as Kafka does, by a copy of the parked member under the new id at epoch
// 0 with previous epoch 0. What the copy keeps, exactly:
//
//   - the parked member's settings: instance id, rack, rebalance timeout,
//     server assignor and subscription (the join's own fields then apply
//     on top; only a changed subscription moves the group epoch);
//   - its assigned partitions, which stay owned: they never left the
//     instance while it was parked;
//   - no pending revocations: parking released them, and a parked member
//     does not reconcile, so it has none;
//   - no timers: the parked member's session ends with it, the new
//     member's starts with its successful join (rule 7), and no rebalance
//     timer runs (parking stopped it; reconciling may start one).
//
// The caller gives the new id the old one's slot in the target and does
// not move the group epoch. Reconciled at epoch 0, the copy normally has
// nothing outside its target, so it takes the target epoch at once and its
// join response carries the old member's target; were a partition it
// kept no longer in its target (the epoch moved while it was parked), it
// would first revoke it at epoch 0, as the parked member resuming would.
func takeOver(parked *member, memberID string) *member {
	m := *parked
	m.id = memberID
	m.epoch, m.prevEpoch = 0, 0
	m.assigned = parked.assigned.clone()
	m.pending = partSet{}
	m.state = stateStable
	m.sessionDeadline, m.rebalanceDeadline = noDeadline, noDeadline
	return &m
}

func (c *Coordinator) newMember(id string) *member {
	return &member{
		id:                id,
		state:             stateStable,
		assigned:          partSet{},
		pending:           partSet{},
		sessionDeadline:   noDeadline,
		rebalanceDeadline: noDeadline,
	}
}

// checkEpoch is Kafka's member epoch check for a heartbeat (epoch > 0): the
// current epoch is accepted; the previous one only with owned partitions
// that are a subset of the assignment (a lost response); anything else is
// FENCED_MEMBER_EPOCH.
func (c *Coordinator) checkEpoch(m *member, r *codec.ConsumerGroupHeartbeatRequest) *hbError {
	e := r.MemberEpoch
	switch {
	case e > m.epoch:
		c.hit("A5.4/epoch-ahead-fenced")
		return &hbError{code: codec.FencedMemberEpoch, msg: "The consumer group member has a greater member epoch (" + itoa(e) +
			") than the one known by the group coordinator (" + itoa(m.epoch) + "). The member must abandon all its partitions and rejoin."}
	case e < m.epoch:
		if e != m.prevEpoch || r.TopicPartitions == nil || !c.isSubset(r.TopicPartitions, m.assigned) {
			c.hit("A5.4/epoch-behind-fenced")
			return &hbError{code: codec.FencedMemberEpoch, msg: "The consumer group member has a smaller member epoch (" + itoa(e) +
				") than the one known by the group coordinator (" + itoa(m.epoch) + "). The member must abandon all its partitions and rejoin."}
		}
		c.hit("A5.4/previous-epoch-accepted")
	default:
		c.hit("A5.4/current-epoch")
	}
	return nil
}

// itoa formats an epoch for an error message (fenced members are frequent
// in a run: no fmt).
func itoa(n int32) string { return strconv.FormatInt(int64(n), 10) }

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
