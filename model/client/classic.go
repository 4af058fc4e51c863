package client

import (
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// ClassicConfig configures a reference classic consumer (docs/PROTOCOL.md
// A6.6).
type ClassicConfig struct {
	GroupID string
	// InstanceID makes the member static (KIP-345); "" for a dynamic one.
	InstanceID string
	// Topics are the subscription.
	Topics []string
	// Partitions are the partition counts of the cluster's topics, by
	// name, which the leader assigns (Kafka's client learns them from
	// Metadata); a subscribed topic missing here is assigned to nobody.
	Partitions map[string]int32
	// SessionTimeoutMs and RebalanceTimeoutMs go on every JoinGroup.
	SessionTimeoutMs   int32
	RebalanceTimeoutMs int32
	// JoinGroupMaxVersion is the highest JoinGroup version the client
	// speaks: 0 means 9 (today's); 3 is a client from before KIP-394.
	JoinGroupMaxVersion int16
	// Protocols are the assignors the consumer offers, in its order of
	// preference (Kafka's partition.assignment.strategy list), each one
	// of Assignors; none means ["uniform"].
	Protocols []string
	// OmitEmpty makes the consumer's leader leave out of its SyncGroup
	// every member it assigns no partition, as a custom assignor may
	// (Kafka's own give every member an entry); the coordinator answers
	// such a member empty bytes (B8.8).
	OmitEmpty bool
	// RetrySync makes the consumer send its SyncGroup again, on a new
	// connection, when its answer is lost, where Kafka's Java consumer
	// joins again: the coordinator then holds the new one in the old
	// one's place (B8.8).
	RetrySync bool
}

// The assignors a classic consumer may offer (ClassicConfig.Protocols),
// each run by its leader over its JoinGroup answer's members.
const (
	// AssignorUniform is docs/PROTOCOL.md A5.2's uniform assignor.
	AssignorUniform = "uniform"
	// AssignorRange is Kafka's RangeAssignor: each topic's partitions in
	// contiguous ranges over its subscribers.
	AssignorRange = "range"
	// AssignorFailover stands for a custom assignor of an active/standby
	// fleet (Kafka ships none; users write them): each topic's partitions
	// all go to its first subscriber, the others stand by with none of
	// it.
	AssignorFailover = "failover"
)

// Assignors are the protocols a classic consumer can offer.
var Assignors = []string{AssignorFailover, AssignorRange, AssignorUniform}

// ClassicState is where a classic consumer stands in its group.
type ClassicState int

const (
	// ClassicUnjoined: not in the group; it joins when asked (Start).
	ClassicUnjoined ClassicState = iota
	// ClassicJoining: a JoinGroup is due (Due) or on its way.
	ClassicJoining
	// ClassicSyncing: it joined a generation; its SyncGroup is due or on
	// its way; it heartbeats.
	ClassicSyncing
	// ClassicStable: it holds its assignment for the generation and
	// heartbeats.
	ClassicStable
	// ClassicFatal: an error ended it (Fatal says which): the process
	// sends nothing more for the group.
	ClassicFatal
	// ClassicClosed: the process has ended.
	ClassicClosed
)

var classicStateNames = [...]string{"Unjoined", "Joining", "Syncing", "Stable", "Fatal", "Closed"}

func (s ClassicState) String() string {
	if int(s) < len(classicStateNames) {
		return classicStateNames[s]
	}
	return fmt.Sprintf("ClassicState(%d)", int(s))
}

// ClassicRequest names the group request a classic consumer wants to send
// now (Due).
type ClassicRequest uint8

const (
	// DueNothing: no JoinGroup or SyncGroup is due (one may be on its
	// way).
	DueNothing ClassicRequest = iota
	// DueJoin: send JoinGroup.
	DueJoin
	// DueSync: send SyncGroup.
	DueSync
)

// Reaction is what a classic consumer asks of its caller after an answer
// or a lost one, besides what its state makes due.
type Reaction uint8

const (
	// Proceed: nothing more; Due and Heartbeating say what to send.
	Proceed Reaction = iota
	// Reconnect: close the connection and go on after the backoff on a
	// new one (the coordinator moved or is not available; or an answer
	// never came).
	Reconnect
	// Backoff: go on after the backoff, on the same connection.
	Backoff
)

// The highest versions the classic consumer speaks.
const (
	classicJoinGroupMax int16 = 9
	classicSyncGroupMax int16 = 5
	classicHeartbeatMax int16 = 4
	// consumerProtocolVersion is the version of the subscription and
	// assignment bytes it writes: v2 carries the generation.
	consumerProtocolVersion int16 = 2
	// The versions a static member needs (KIP-345); Kafka's client
	// refuses to send an instance id below them.
	staticJoinGroup, staticSyncGroup, staticHeartbeat int16 = 5, 3, 3
	consumerType                                            = "consumer"
	// noGeneration is the generation of a consumer that has none.
	noGeneration int32 = -1
)

// Classic is the reference classic consumer of docs/PROTOCOL.md A6.6: a
// pure state machine that builds the JoinGroup, SyncGroup, Heartbeat and
// LeaveGroup requests Kafka's Java consumer sends (Kafka 4.0, eager
// rebalancing, the assignors of Config.Protocols) and absorbs their answers; the
// caller moves the bytes, keeps one request of each kind on its way, and
// decides which are lost. Its promises:
//
//   - after MEMBER_ID_REQUIRED it joins again at once with the id given
//     (KIP-394); below JoinGroup v4 (a broker, or a client, from before
//     KIP-394) no such answer comes and the first join makes the member;
//   - a static member (InstanceID) names its instance on every JoinGroup,
//     SyncGroup and Heartbeat, needs JoinGroup v5, SyncGroup v3 and
//     Heartbeat v3 (it stops before joining an older broker), and after
//     FENCED_INSTANCE_ID sends nothing more;
//   - it heartbeats only between a successful JoinGroup and its next
//     rejoin, never while a JoinGroup is on its way;
//   - on close a dynamic member that holds a member id sends one
//     LeaveGroup naming it (below v3, A3's downgrade), a static member
//     none; either way it forgets its id and generation.
//
// The leader assigns with the selected protocol's assignor (Assignors) over
// the Members of its JoinGroup answer (static members keyed by instance
// id).
type Classic struct {
	// cfg is shared by the clones of a consumer (Clone copies the
	// pointer): it changes only in Resubscribe, which makes a copy first.
	cfg   *ClassicConfig
	state ClassicState
	due   ClassicRequest
	fatal codec.ErrorCode

	memberID   string
	generation int32
	protocol   string
	// leader: the JoinGroup answer made this member the leader; members
	// is what it assigns (nil: a follower, or SkipAssignment).
	leader  bool
	members []codec.JoinGroupResponseMember
	// assigned is the assignment of the generation, topics in name order.
	assigned []codec.ConsumerProtocolTopicPartitions

	// The versions to speak: the lower of the client's and the broker's
	// (OnApiVersions).
	joinV, syncV, hbV, leaveV int16
}

// NewClassic makes a classic consumer process.
func NewClassic(cfg ClassicConfig) (*Classic, error) {
	switch {
	case cfg.JoinGroupMaxVersion < 0 || cfg.JoinGroupMaxVersion > classicJoinGroupMax:
		return nil, fmt.Errorf("client: JoinGroupMaxVersion %d: want 0 to %d", cfg.JoinGroupMaxVersion, classicJoinGroupMax)
	case cfg.GroupID == "":
		return nil, fmt.Errorf("client: a classic consumer needs a group id")
	}
	if cfg.JoinGroupMaxVersion == 0 {
		cfg.JoinGroupMaxVersion = classicJoinGroupMax
	}
	if len(cfg.Protocols) == 0 {
		cfg.Protocols = []string{AssignorUniform}
	}
	for i, p := range cfg.Protocols {
		if !slices.Contains(Assignors, p) || slices.Contains(cfg.Protocols[:i], p) {
			return nil, fmt.Errorf("client: protocol %q: want each of %v at most once", p, Assignors)
		}
	}
	cfg.Protocols = slices.Clone(cfg.Protocols)
	c := &Classic{cfg: &cfg, generation: noGeneration}
	c.joinV, c.syncV, c.hbV, c.leaveV = cfg.JoinGroupMaxVersion, classicSyncGroupMax, classicHeartbeatMax, maxLeaveGroupVersion
	return c, nil
}

// State, MemberID, Generation and Config describe the consumer.
func (c *Classic) State() ClassicState   { return c.state }
func (c *Classic) MemberID() string      { return c.memberID }
func (c *Classic) Generation() int32     { return c.generation }
func (c *Classic) Config() ClassicConfig { return *c.cfg }

// Fatal is the error that ended the consumer (State ClassicFatal), or
// NONE.
func (c *Classic) Fatal() codec.ErrorCode { return c.fatal }

// Due is the group request the consumer wants to send now.
func (c *Classic) Due() ClassicRequest { return c.due }

// Heartbeating reports whether the consumer heartbeats now: between a
// successful JoinGroup and its next rejoin.
func (c *Classic) Heartbeating() bool { return c.state == ClassicSyncing || c.state == ClassicStable }

// Assigned is the assignment the consumer holds, topics in name order
// (empty unless Stable).
func (c *Classic) Assigned() []codec.ConsumerProtocolTopicPartitions { return c.assigned }

// OnApiVersions negotiates: per api, the lower of the consumer's highest
// version and the broker's. A broker without JoinGroup, SyncGroup or
// Heartbeat is UNSUPPORTED_VERSION, fatal.
func (c *Classic) OnApiVersions(resp *codec.ApiVersionsResponse) {
	if resp.ErrorCode != codec.None {
		return
	}
	c.joinV, c.syncV, c.hbV, c.leaveV = c.cfg.JoinGroupMaxVersion, classicSyncGroupMax, classicHeartbeatMax, maxLeaveGroupVersion
	found := 0
	for _, k := range resp.ApiKeys {
		var v *int16
		switch k.ApiKey {
		case codec.JoinGroup:
			v = &c.joinV
		case codec.SyncGroup:
			v = &c.syncV
		case codec.Heartbeat:
			v = &c.hbV
		case codec.LeaveGroup:
			c.leaveV = min(c.leaveV, k.MaxVersion)
			continue
		default:
			continue
		}
		found++
		*v = min(*v, k.MaxVersion)
	}
	if found < 3 {
		c.fail(codec.UnsupportedVersion)
	}
}

// Start makes the consumer want membership: an unjoined one joins.
func (c *Classic) Start() {
	if c.state == ClassicUnjoined {
		c.rejoin()
	}
}

// rejoin makes a JoinGroup due (eager: the assignment is given up first).
func (c *Classic) rejoin() {
	c.state, c.due = ClassicJoining, DueJoin
	c.assigned, c.leader, c.members = nil, false, nil
}

// fail ends the consumer on a fatal error.
func (c *Classic) fail(code codec.ErrorCode) {
	c.state, c.due, c.fatal = ClassicFatal, DueNothing, code
}

// reset forgets the member id and the generation.
func (c *Classic) reset() {
	c.memberID, c.generation, c.protocol = "", noGeneration, ""
}

func (c *Classic) static() bool { return c.cfg.InstanceID != "" }

func (c *Classic) instance() codec.NullableString {
	if c.static() {
		return codec.Str(c.cfg.InstanceID)
	}
	return codec.Null
}

// JoinGroup builds the JoinGroup that is due and its version; nil when
// the consumer cannot join (a static member against a broker below
// JoinGroup v5, SyncGroup v3 or Heartbeat v3: fatal, UNSUPPORTED_VERSION,
// before anything is sent). The caller then awaits OnJoinGroup or
// OnJoinGroupLost.
func (c *Classic) JoinGroup() (*codec.JoinGroupRequest, int16) {
	if c.state == ClassicFatal || c.state == ClassicClosed {
		return nil, 0
	}
	if c.static() && (c.joinV < staticJoinGroup || c.syncV < staticSyncGroup || c.hbV < staticHeartbeat) {
		c.fail(codec.UnsupportedVersion)
		return nil, 0
	}
	c.state, c.due = ClassicJoining, DueNothing
	c.assigned = nil
	r := &codec.JoinGroupRequest{GroupId: c.cfg.GroupID, SessionTimeoutMs: c.cfg.SessionTimeoutMs, RebalanceTimeoutMs: c.cfg.RebalanceTimeoutMs,
		MemberId: c.memberID, GroupInstanceId: c.instance(), ProtocolType: consumerType,
		Protocols: make([]codec.JoinGroupRequestProtocol, 0, len(c.cfg.Protocols))}
	meta := c.subscription()
	for _, p := range c.cfg.Protocols {
		r.Protocols = append(r.Protocols, codec.JoinGroupRequestProtocol{Name: p, Metadata: meta})
	}
	if c.joinV < staticJoinGroup {
		r.GroupInstanceId = codec.Null
	}
	return r, c.joinV
}

// subscription is the JoinGroup metadata: a ConsumerProtocolSubscription
// of the consumer's topics (in name order), the partitions it owns (none:
// eager) and its generation.
func (c *Classic) subscription() []byte {
	topics := slices.Sorted(slices.Values(c.cfg.Topics))
	s := codec.ConsumerProtocolSubscription{Topics: slices.Compact(topics), GenerationId: c.generation,
		OwnedPartitions: []codec.ConsumerProtocolTopicPartitions{}}
	// A version the codec writes, of topic names the plan chose: it
	// fails only for a name over 32767 bytes, which Config never holds.
	b, _ := s.AppendTo(nil, consumerProtocolVersion)
	return b
}

// OnJoinGroup absorbs the answer to the JoinGroup on its way.
func (c *Classic) OnJoinGroup(resp *codec.JoinGroupResponse) Reaction {
	if c.state != ClassicJoining {
		return Proceed // a late answer after a close or a fatal error
	}
	switch resp.ErrorCode {
	case codec.None:
		protocol := c.cfg.Protocols[0]
		if resp.ProtocolName.Valid {
			protocol = resp.ProtocolName.Value
		}
		if !slices.Contains(c.cfg.Protocols, protocol) {
			c.fail(codec.InconsistentGroupProtocol) // an assignor it does not have
			return Proceed
		}
		c.memberID, c.generation, c.protocol = resp.MemberId, resp.GenerationId, protocol
		c.leader = resp.Leader == resp.MemberId
		c.members = nil
		if c.leader && !resp.SkipAssignment {
			c.members = resp.Members
		}
		c.state, c.due = ClassicSyncing, DueSync
	case codec.MemberIDRequired:
		c.memberID, c.generation = resp.MemberId, noGeneration
		c.rejoin()
	case codec.UnknownMemberID:
		c.reset()
		c.rejoin()
	case codec.RebalanceInProgress:
		c.rejoin()
	case codec.CoordinatorNotAvailable, codec.NotCoordinator:
		c.rejoin()
		return Reconnect
	case codec.CoordinatorLoadInProgress:
		c.rejoin()
		return Backoff
	default:
		// FENCED_INSTANCE_ID, GROUP_MAX_SIZE_REACHED,
		// INCONSISTENT_GROUP_PROTOCOL, INVALID_SESSION_TIMEOUT,
		// INVALID_GROUP_ID, GROUP_AUTHORIZATION_FAILED,
		// UNSUPPORTED_VERSION, and any error Kafka's client does not
		// expect: thrown from poll.
		c.fail(resp.ErrorCode)
	}
	return Proceed
}

// OnJoinGroupLost records that the JoinGroup's answer never came (its
// timeout, the rebalance timeout and 5 s): the same JoinGroup, with the
// same member id ("" if it had none), goes again on a new connection. The
// connection closes whatever the consumer did meanwhile (timedOut).
func (c *Classic) OnJoinGroupLost() Reaction {
	if c.state == ClassicJoining {
		c.due = DueJoin
	}
	return c.timedOut()
}

// timedOut is the reaction to a request whose answer never came: Kafka's
// network client closes a connection on which a request timed out, failing
// whatever else was on it, so no late answer to it can reach the consumer
// (one that ended has nothing left to close).
func (c *Classic) timedOut() Reaction {
	if c.state == ClassicFatal || c.state == ClassicClosed {
		return Proceed
	}
	return Reconnect
}

// SyncGroup builds the SyncGroup that is due: the leader's carries an
// assignment for every member of its JoinGroup answer, a follower's none.
func (c *Classic) SyncGroup() (*codec.SyncGroupRequest, int16) {
	if c.state != ClassicSyncing {
		return nil, 0
	}
	c.due = DueNothing
	r := &codec.SyncGroupRequest{GroupId: c.cfg.GroupID, GenerationId: c.generation, MemberId: c.memberID,
		Assignments: []codec.SyncGroupRequestAssignment{}}
	if c.syncV >= staticSyncGroup {
		r.GroupInstanceId = c.instance()
	}
	if c.syncV >= 5 {
		r.ProtocolType, r.ProtocolName = codec.Str(consumerType), codec.Str(c.protocol)
	}
	if c.members != nil {
		r.Assignments = c.assign(c.members)
	}
	return r, c.syncV
}

// OnSyncGroup absorbs the answer to the SyncGroup on its way.
func (c *Classic) OnSyncGroup(resp *codec.SyncGroupResponse) Reaction {
	if resp.ErrorCode == codec.FencedInstanceID && (c.state == ClassicJoining || c.state == ClassicStable) {
		// Fenced while it had moved on (a resubscription's rejoin): it
		// is fatal all the same, another process holding the instance
		// (KIP-345; Java's handler raises it whatever the consumer did
		// meanwhile).
		c.fail(resp.ErrorCode)
		return Proceed
	}
	if c.state != ClassicSyncing {
		return Proceed
	}
	switch resp.ErrorCode {
	case codec.None:
		var a codec.ConsumerProtocolAssignment
		if len(resp.Assignment) > 0 {
			if _, err := a.Decode(resp.Assignment, codec.DecodeOptions{}); err != nil {
				c.fail(codec.InconsistentGroupProtocol) // Kafka's client throws on an assignment it cannot read
				return Proceed
			}
		}
		c.assigned = normalize(a.AssignedPartitions)
		c.state, c.due = ClassicStable, DueNothing
		for _, t := range c.assigned {
			if !slices.Contains(c.cfg.Topics, t.Topic) {
				c.rejoin() // partitions outside its subscription
				break
			}
		}
	case codec.UnknownMemberID:
		c.reset()
		c.rejoin()
	case codec.IllegalGeneration:
		c.generation = noGeneration
		c.rejoin()
	case codec.RebalanceInProgress:
		c.rejoin()
	case codec.CoordinatorNotAvailable, codec.NotCoordinator:
		c.rejoin()
		return Reconnect
	default:
		// FENCED_INSTANCE_ID, INCONSISTENT_GROUP_PROTOCOL,
		// GROUP_AUTHORIZATION_FAILED and the unexpected.
		c.fail(resp.ErrorCode)
	}
	return Proceed
}

// OnSyncGroupLost records that the SyncGroup's answer never came: Kafka's
// client fails the join and joins again (same member id), on a new
// connection; one that retries its SyncGroup (Config.RetrySync) sends
// the same SyncGroup again on it instead. A consumer already rejoining (a resubscription while the
// SyncGroup was on its way: Java's waits for the rebalance on its way
// before it joins again) closes the connection all the same (timedOut): a
// FENCED_INSTANCE_ID the coordinator gives the SyncGroup later never
// reaches it, where on the open connection it would come unheard.
func (c *Classic) OnSyncGroupLost() Reaction {
	switch {
	case c.state == ClassicSyncing && c.cfg.RetrySync:
		c.due = DueSync
	case c.state == ClassicSyncing:
		c.rejoin()
	}
	return c.timedOut()
}

// Heartbeat builds a Heartbeat at the consumer's generation.
func (c *Classic) Heartbeat() (*codec.HeartbeatRequest, int16) {
	r := &codec.HeartbeatRequest{GroupId: c.cfg.GroupID, GenerationId: c.generation, MemberId: c.memberID}
	if c.hbV >= staticHeartbeat {
		r.GroupInstanceId = c.instance()
	}
	return r, c.hbV
}

// OnAbandoned takes the answer to a JoinGroup, SyncGroup or Heartbeat the
// consumer gave up when it left (Leave): it still reaches the consumer, and
// Kafka's client still reads it. MEMBER_ID_REQUIRED leaves the id given for
// the consumer's next JoinGroup, even one after a JoinGroup already on its
// way without an id (Java's handler sets its generation's member id whatever
// the application did meanwhile: KIP-394's id is not thrown away, so it
// cannot linger as a pending member nobody joins under). FENCED_INSTANCE_ID
// ends the consumer, another process holding the instance (KIP-345).
// Anything else is of a generation it left.
func (c *Classic) OnAbandoned(resp codec.Message) {
	code, _ := codec.GroupErrorCode(resp)
	if j, ok := resp.(*codec.JoinGroupResponse); ok && code == codec.MemberIDRequired &&
		(c.state == ClassicUnjoined || c.state == ClassicJoining) && c.memberID == "" {
		c.memberID = j.MemberId
	}
	if code == codec.FencedInstanceID && c.state != ClassicClosed {
		c.fail(code)
	}
}

// OnHeartbeat absorbs the answer to req. An error about a generation or
// member id the consumer no longer holds is ignored, as are errors while
// it rejoins.
func (c *Classic) OnHeartbeat(req *codec.HeartbeatRequest, resp *codec.HeartbeatResponse) Reaction {
	current := req.GenerationId == c.generation && req.MemberId == c.memberID
	if resp.ErrorCode == codec.FencedInstanceID && current && c.state == ClassicJoining {
		// Fenced at the generation it still holds, while it rejoins:
		// fatal all the same (Java's handler raises it while the
		// generation the heartbeat was sent at is unchanged).
		c.fail(resp.ErrorCode)
		return Proceed
	}
	if !c.Heartbeating() {
		return Proceed
	}
	switch resp.ErrorCode {
	case codec.None:
	case codec.RebalanceInProgress:
		if c.state == ClassicStable {
			c.rejoin()
		}
	case codec.IllegalGeneration:
		if current {
			c.generation = noGeneration
			c.rejoin()
		}
	case codec.UnknownMemberID:
		if current {
			c.reset()
			c.rejoin()
		}
	case codec.FencedInstanceID:
		if current {
			c.fail(resp.ErrorCode)
		}
	case codec.CoordinatorNotAvailable, codec.NotCoordinator:
		return Reconnect
	default:
		c.fail(resp.ErrorCode)
	}
	return Proceed
}

// OnHeartbeatLost records that a Heartbeat's answer never came (the
// request timeout): the connection closes, and heartbeats go on a new one.
func (c *Classic) OnHeartbeatLost() Reaction { return Reconnect }

// MetadataChanged tells the consumer that the metadata of the topics it
// subscribes to changed (a topic's partition count): a leader that assigned
// from other metadata rejoins, with its subscription unchanged, as Kafka's
// Java consumer's leader does; a follower, which assigned nothing, does
// not. Only a Stable leader rejoins here: one still syncing rejoins, if it
// must, after its SyncGroup's answer (Java's checks the metadata when the
// rebalance on its way is done).
func (c *Classic) MetadataChanged() {
	if c.state == ClassicStable && c.leader {
		c.rejoin()
	}
}

// Resubscribe changes the topics: a member rejoins with them.
func (c *Classic) Resubscribe(topics []string) {
	cfg := *c.cfg // the clones this one was made from keep theirs
	cfg.Topics = slices.Clone(topics)
	c.cfg = &cfg
	if c.state == ClassicSyncing || c.state == ClassicStable {
		c.rejoin()
	}
}

// Leave builds what the consumer sends when it leaves its group (Kafka's
// unsubscribe, or close with Close): a dynamic member that holds a member
// id and is not unjoined sends one LeaveGroup naming it, with no instance
// id, at the broker's highest version (below v3 the single-member form,
// A3's downgrade); a static member sends nothing, as Kafka's client does.
// Either way it forgets its member id and generation and is unjoined. The
// LeaveGroup is not retried.
func (c *Classic) Leave() (*codec.LeaveGroupRequest, int16) {
	var r *codec.LeaveGroupRequest
	var v int16
	if !c.static() && c.memberID != "" && c.state != ClassicUnjoined && c.state != ClassicFatal && c.state != ClassicClosed {
		calls, _ := rules.PlanLeaveGroup(c.cfg.GroupID, []codec.LeaveGroupMember{{MemberId: c.memberID,
			Reason: codec.Str("the consumer is being closed")}}, c.leaveV)
		r, v = calls[0].Request, calls[0].Version
	}
	c.reset()
	if c.state != ClassicFatal && c.state != ClassicClosed {
		c.state, c.due = ClassicUnjoined, DueNothing
	}
	c.assigned, c.leader, c.members = nil, false, nil
	return r, v
}

// Close ends the process: the caller sends the returned LeaveGroup (Leave),
// if any.
func (c *Classic) Close() (*codec.LeaveGroupRequest, int16) {
	r, v := c.Leave()
	c.state, c.due = ClassicClosed, DueNothing
	return r, v
}

// Crash ends the process without a word.
func (c *Classic) Crash() { c.state, c.due = ClassicClosed, DueNothing }
