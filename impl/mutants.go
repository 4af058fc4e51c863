package impl

import (
	"fmt"
	"slices"
	"strings"
)

// Mutant is one deliberately wrong behaviour, planted so that tests can
// show a checker catches it. Each is named after the bug it plants.
type Mutant uint8

// Mutants is a set of mutants (up to 256, every value of a Mutant); the
// zero value (none) is the only one for real use.
type Mutants struct{ bits [4]uint64 }

// The mutants. Each costs nothing when off: none is tested on the steady
// heartbeat path.
const (
	// MutV1EmptyMemberID: the broker makes a member id at v1 when it is
	// empty, instead of answering INVALID_REQUEST (KIP-1082 undone).
	MutV1EmptyMemberID Mutant = iota
	// MutRetriedJoinNewMember: a retried join (epoch 0, an id already in
	// the group) creates a second member under a fresh id.
	MutRetriedJoinNewMember
	// MutLeaveUnknownIgnored: a leave with an unknown member id is
	// answered as a success and ignored, while the real member stays.
	MutLeaveUnknownIgnored
	// MutParkedNeverExpires: a static member parked at epoch -2 never
	// expires.
	MutParkedNeverExpires
	// MutErrorRefreshesSession: an error response to a known member
	// refreshes its session.
	MutErrorRefreshesSession
	// MutZeroInstanceIDAccepted: the zero (or reserved) UUID is accepted
	// as a client instance id by the telemetry APIs.
	MutZeroInstanceIDAccepted
	// MutEarlyHandoff: a partition is handed to a new owner before the old
	// one revoked it.
	MutEarlyHandoff
	// MutRestartKeepsDeadlines: a coordinator restart forgets connections
	// and telemetry state but keeps the old session and rebalance
	// deadlines instead of starting them afresh.
	MutRestartKeepsDeadlines
	// MutStaticRestartRebalances: a static takeover (a new member id
	// joining with the instance id of a parked member) is treated as a
	// member joining: the group epoch moves on and the target is
	// recomputed, a rebalance KIP-345 promises a static restart does not
	// cause.
	MutStaticRestartRebalances
	// MutJoinNullPartitionsAccepted: a join whose TopicPartitions is null
	// is accepted as if it were empty (§B4.2 refuses it).
	MutJoinNullPartitionsAccepted
	// MutPrevEpochWithoutOwned: the epoch check accepts the member's
	// previous epoch when the request reports no owned partitions
	// (TopicPartitions null), which A5.4 fences.
	MutPrevEpochWithoutOwned
	// MutNullOwnedReleases: TopicPartitions null ("unchanged") is read as
	// an empty report, releasing every pending revocation (A5.3 step 1).
	MutNullOwnedReleases
	// MutRegexNotFullRequest: a heartbeat subscribed by regex alone is not
	// a full request, so its response lacks the assignment (A5.7).
	MutRegexNotFullRequest
	// MutSessionExpiryLate: a session expires only after its deadline,
	// not at it (an off-by-one: < for <=).
	MutSessionExpiryLate
	// MutStaticLeaveRefreshesSession: a static leave at epoch -2 re-arms
	// the parked member's session, which must keep running (§B4.4).
	MutStaticLeaveRefreshesSession
	// MutTakeoverKeysByMemberID: the assignor sorts static members by
	// member id, not instance id, so a takeover under a new member id
	// moves other members' targets (A5.2).
	MutTakeoverKeysByMemberID
	// MutParkKeepsPending: parking at epoch -2 keeps the member's pending
	// revocations and its rebalance timer (§B4.4 drops both).
	MutParkKeepsPending
	// MutLeaveGroupMemberIDUnknown: a LeaveGroup entry naming a member by
	// its id with a null instance id is UNKNOWN_MEMBER_ID and the member
	// stays, as Kafka 3.x answered (A3 row 3, A3.1).
	MutLeaveGroupMemberIDUnknown
	// MutLeaveGroupFencedRemoves: a LeaveGroup entry whose member id is
	// not the holder of its instance id removes the holder instead of
	// answering FENCED_INSTANCE_ID (A3 row 6).
	MutLeaveGroupFencedRemoves
	// MutLeaveGroupBumpPerMember: a LeaveGroup moves the group epoch once
	// per member it removes, not once per request (A3.2).
	MutLeaveGroupBumpPerMember
	// MutConnContextKept: a closed connection's KIP-1313 context is not
	// forgotten, so a new connection given the same id inherits its first
	// ClientId (A2).
	MutConnContextKept
	// MutLaterClientIDIgnored: a later request that sends a ClientId is
	// attributed to the connection's first ClientId instead of its own
	// (A2).
	MutLaterClientIDIgnored
	// MutPushV1ZeroAccepted: PushTelemetry v1 accepts the zero UUID as the
	// header's client instance id (A2, §B6).
	MutPushV1ZeroAccepted
	// MutTelemetryOneAccepted: the telemetry APIs refuse only the zero
	// UUID and accept Kafka's other reserved id, 00...01 (§B6).
	MutTelemetryOneAccepted
	// MutDescribeHidesParked: ConsumerGroupDescribe leaves out the static
	// members parked at epoch -2, which it must list until their session
	// expires (§B7.2): an observer outside then cannot see them.
	MutDescribeHidesParked
	// MutSessionDeadlineEarly: a session's deadline is armed a millisecond
	// short of the session timeout, so a member expires 1 ms early
	// (§B4.4): session-expiry-late's boundary the other way.
	MutSessionDeadlineEarly
	// MutRebalanceExpiryLate: a rebalance timeout fires only after its
	// deadline, not at it (< for <=, A5.6).
	MutRebalanceExpiryLate
	// MutRebalanceDeadlineEarly: the rebalance timer is armed a
	// millisecond short of the member's rebalance timeout (A5.6).
	MutRebalanceDeadlineEarly
	// MutRebalanceTimerRearmed: every heartbeat of a member still
	// revoking restarts its rebalance timer, so a member that keeps
	// heartbeating never times out (A5.6: the timer starts once, on
	// entering UNREVOKED_PARTITIONS).
	MutRebalanceTimerRearmed
	// MutPreviousEpochFenced: the epoch check fences the member's previous
	// epoch even with owned partitions a subset of its assignment, which
	// A5.4 accepts (a client whose response was lost).
	MutPreviousEpochFenced
	// MutGroupMaxSizeOffByOne: the group size cap refuses a new member
	// only above the cap, not at it (> for >=, §B4.4).
	MutGroupMaxSizeOffByOne
	// MutDescribeFirstClientID: a member keeps the ClientId and host of
	// its join, so ConsumerGroupDescribe shows a client renamed since under
	// its old name (§B7.2, A2: attribution seen only through Describe).
	MutDescribeFirstClientID
	// MutLeaveGroupAdminRemovalIgnored: a LeaveGroup entry {"", held
	// instance} against a consumer group is UNKNOWN_MEMBER_ID and the
	// member stays (A3 row 1).
	MutLeaveGroupAdminRemovalIgnored
	// MutLeaveGroupUnknownInstanceByID: a LeaveGroup entry {a member's id,
	// an instance nobody holds} removes the member by its id instead of
	// answering UNKNOWN_MEMBER_ID (A3 row 5).
	MutLeaveGroupUnknownInstanceByID
	// MutLeaveGroupV2AsBatch: LeaveGroup v2 is served as v3+ (the version
	// gate at <= 1 for <= 2): its one member id is never read, the answer
	// is NONE and the member stays (A3, §B5: the last version of v0-v2).
	MutLeaveGroupV2AsBatch
	// MutStaticFencedAsUnknown: a static heartbeat naming an instance
	// another member holds is UNKNOWN_MEMBER_ID, not FENCED_INSTANCE_ID
	// (§B4.4).
	MutStaticFencedAsUnknown
	// MutRackIDNotTrimmed: a RackId of spaces passes validation: the blank
	// check compares with "" (§B4.2).
	MutRackIDNotTrimmed
	// MutEpochMinusThreeAccepted: the lower bound of a valid member epoch
	// is off by one, so -3 passes validation and is served as a heartbeat
	// (§B4.2).
	MutEpochMinusThreeAccepted
	// MutStaticLeaveNullInstanceAsLeave: epoch -2 with InstanceId null is
	// served as a dynamic leave instead of INVALID_REQUEST (§B4.2).
	MutStaticLeaveNullInstanceAsLeave
	// MutUnreleasedInstanceTakenOver: a join naming an instance an active
	// member holds takes it over as if the holder were parked, instead of
	// UNRELEASED_INSTANCE_ID (A1, A5.5).
	MutUnreleasedInstanceTakenOver
	// MutSubscriptionComparedByCount: a subscription by names counts as
	// changed only when the number of topics changes, so a member
	// switching to as many other topics moves no group epoch (A5.1).
	MutSubscriptionComparedByCount
	// MutPushAfterTerminatingAccepted: a terminating push is not
	// remembered, so a later push under the same id is served (§B6).
	MutPushAfterTerminatingAccepted
	// MutRevocationNotSent: a heartbeat whose reconciliation only revokes
	// (moves partitions to pending revocation) does not count as an
	// assignment change, so its response carries no assignment and the
	// client never learns to revoke (A5.7, A5.3 step 3).
	MutRevocationNotSent
	// MutStaticRetriedJoinUnreleased: a static member's retried join (epoch
	// 0, its own member id and instance) is refused UNRELEASED_INSTANCE_ID
	// as if another member held the instance (A1).
	MutStaticRetriedJoinUnreleased
	// MutMemberInstanceRewritten: a join naming a member id the group holds,
	// with an instance id nobody holds, moves the member to that instance
	// instead of INVALID_REQUEST (A1).
	MutMemberInstanceRewritten
	// MutFirstClientIDForgotten: a connection does not remember its first
	// request's ClientId, so a later request with a null ClientId is
	// attributed to "" (A2).
	MutFirstClientIDForgotten
	// MutLeaveGroupEmptyGroupAsMissing: LeaveGroup with GroupId "" is served
	// as for a group that does not exist (UNKNOWN_MEMBER_ID per entry)
	// instead of INVALID_GROUP_ID (A3.3).
	MutLeaveGroupEmptyGroupAsMissing
	// MutLeaveGroupBatchStopsAtError: in a LeaveGroup v3+ batch, the entries
	// after the first that fails are answered with its error and not
	// applied, instead of each on its own (A3: per-entry answers).
	MutLeaveGroupBatchStopsAtError
	// MutLeaveGroupUnknownEntriesNone: LeaveGroup entries that name nobody
	// ({"", null or unknown instance}, {not a member, null}, any in a
	// missing group) are answered NONE instead of UNKNOWN_MEMBER_ID (A3 rows
	// 2 and 4, §B5).
	MutLeaveGroupUnknownEntriesNone
	// MutLeaveGroupOwnInstanceFenced: a LeaveGroup entry naming the holder
	// of an instance by both its member id and its instance id is
	// FENCED_INSTANCE_ID and the member stays, instead of removed (A3 row
	// 7).
	MutLeaveGroupOwnInstanceFenced
	// MutNewStaticMemberNoBump: a new static member (an instance nobody
	// held) joins without moving the group epoch, as if it were a takeover
	// (A5.1).
	MutNewStaticMemberNoBump
	// MutRevokingTakesNewTarget: a member with pending revocations, when the
	// target moved again, revokes against the new target at once instead of
	// waiting until its revocations are done (A5.3 step 2).
	MutRevokingTakesNewTarget
	// MutPrevEpochNotRecorded: a member that takes the target epoch keeps
	// its old previous epoch, so a heartbeat at the epoch it just left is
	// fenced (A5.3 step 3, A5.4).
	MutPrevEpochNotRecorded
	// MutFreePartitionsHeldBack: a member gets none of its free target
	// partitions while any other of them is still owned by another member:
	// all or nothing (A5.3 step 4).
	MutFreePartitionsHeldBack
	// MutEpochCheckedAgainstGroup: the epoch check compares a heartbeat with
	// the group epoch: a member at its own epoch, behind the group's, is
	// FENCED_MEMBER_EPOCH (A5.4).
	MutEpochCheckedAgainstGroup
	// MutEpochOneAheadAccepted: a heartbeat one epoch ahead of the member's
	// passes the epoch check: the bound off by one (A5.4).
	MutEpochOneAheadAccepted
	// MutParkedResumeBumps: a parked static member rejoining under its own
	// member id moves the group epoch on: a rebalance A5.5 says it does not
	// cause.
	MutParkedResumeBumps
	// MutJoinWithoutAssignment: a join whose reconciliation changed nothing
	// (a retried join, a member with nothing to take) is answered without
	// the assignment (A5.7).
	MutJoinWithoutAssignment
	// MutFullRequestNoAssignment: a full heartbeat (not a join) is answered
	// without the assignment unless it changed, so a client that lost its
	// state never gets it back (A5.7).
	MutFullRequestNoAssignment
	// MutEpochBumpSendsAssignment: a heartbeat whose member only took the
	// new target epoch, its assignment unchanged, carries the assignment
	// (A5.7).
	MutEpochBumpSendsAssignment
	// MutGroupIDNotTrimmed: a GroupId of spaces passes validation: the blank
	// check compares with "" (§B4.2).
	MutGroupIDNotTrimmed
	// MutInstanceIDBlankAccepted: a non-null blank InstanceId passes
	// validation (§B4.2).
	MutInstanceIDBlankAccepted
	// MutJoinWithoutRebalanceTimeoutAccepted: a join with RebalanceTimeoutMs
	// -1 is accepted (§B4.2).
	MutJoinWithoutRebalanceTimeoutAccepted
	// MutJoinWithoutSubscriptionAccepted: a join with neither
	// SubscribedTopicNames nor SubscribedTopicRegex is accepted, subscribed
	// to nothing (§B4.2).
	MutJoinWithoutSubscriptionAccepted
	// MutAssignorUnchecked: a ServerAssignor the coordinator does not have
	// is accepted instead of UNSUPPORTED_ASSIGNOR (§B4.2).
	MutAssignorUnchecked
	// MutMissingGroupUnknownMember: a heartbeat (not a join) for a group
	// that does not exist is UNKNOWN_MEMBER_ID instead of GROUP_ID_NOT_FOUND
	// (§B4.4).
	MutMissingGroupUnknownMember
	// MutUnknownMemberFenced: a heartbeat for a member id the group does not
	// hold is FENCED_MEMBER_EPOCH instead of UNKNOWN_MEMBER_ID (§B4.4).
	MutUnknownMemberFenced
	// MutStaticUnknownInstanceFenced: a static heartbeat naming an instance
	// nobody holds is FENCED_INSTANCE_ID instead of UNKNOWN_MEMBER_ID
	// (§B4.4).
	MutStaticUnknownInstanceFenced
	// MutRegexNotCompiled: a SubscribedTopicRegex that does not compile is
	// accepted instead of INVALID_REGULAR_EXPRESSION (§B4.4).
	MutRegexNotCompiled
	// MutLeaveMissingGroupNone: a leave (epoch -1 or -2) for a group that
	// does not exist is answered NONE instead of GROUP_ID_NOT_FOUND (§B4.4).
	MutLeaveMissingGroupNone
	// MutLeaveNoBump: a leave at epoch -1 removes the member but does not
	// move the group epoch, so its partitions are never reassigned (§B4.4).
	MutLeaveNoBump
	// MutStaticLeaveUnknownInstanceNone: a static leave naming an instance
	// nobody holds is answered NONE instead of UNKNOWN_MEMBER_ID (§B4.4).
	MutStaticLeaveUnknownInstanceNone
	// MutStaticLeaveFencedRemoves: a leave naming an instance another member
	// id holds removes (or parks) the holder instead of FENCED_INSTANCE_ID
	// (§B4.4).
	MutStaticLeaveFencedRemoves
	// MutGetV0IDReplaced: GetTelemetrySubscriptions v0 with a non-zero
	// client instance id gets a new id assigned instead of keeping it (§B6).
	MutGetV0IDReplaced
	// MutPushSubscriptionUnchecked: a push naming another subscription id
	// than the one fetched is accepted instead of UNKNOWN_SUBSCRIPTION_ID
	// (§B6).
	MutPushSubscriptionUnchecked
	// MutPushCompressionUnchecked: a push with a compression type the
	// subscription does not accept is served instead of
	// UNSUPPORTED_COMPRESSION_TYPE (§B6).
	MutPushCompressionUnchecked
	// MutPushTooLargeAccepted: a push whose metrics exceed TelemetryMaxBytes
	// is accepted instead of TELEMETRY_TOO_LARGE (§B6).
	MutPushTooLargeAccepted
	// MutPushNotRecorded: an accepted push does not record its time, so the
	// next push within the push interval is accepted instead of
	// THROTTLING_QUOTA_EXCEEDED (§B6).
	MutPushNotRecorded
	// MutGetNotRecorded: a served GetTelemetrySubscriptions does not record
	// its time, so the next within the push interval is served instead of
	// THROTTLING_QUOTA_EXCEEDED (§B6).
	MutGetNotRecorded
	// MutSoftwareNameUnchecked: ApiVersions v3+ checks ClientSoftwareVersion
	// but not ClientSoftwareName, so a bad name is answered NONE (§B7.1).
	MutSoftwareNameUnchecked
	// MutAdvertisesUncapped: a broker whose versions are capped lists its
	// uncapped maximum versions in ApiVersions, so clients pick versions it
	// refuses (§B7.1).
	MutAdvertisesUncapped
	// MutDescribeEmptyGroupNotFound: ConsumerGroupDescribe of GroupId "" is
	// GROUP_ID_NOT_FOUND instead of INVALID_GROUP_ID (§B7.2).
	MutDescribeEmptyGroupNotFound
	// MutDescribeMissingGroupDead: ConsumerGroupDescribe of a group that
	// does not exist is answered NONE with state Dead and no members, as
	// DescribeGroups v0-v5 does, instead of GROUP_ID_NOT_FOUND (§B7.2).
	MutDescribeMissingGroupDead
	// MutAboveMaxVersionServed: a request one version above the maximum the
	// broker advertises is served instead of refused (§B1.1): the version
	// gate off by one at the last version.
	MutAboveMaxVersionServed
	// MutGetV1ServedAsV0: GetTelemetrySubscriptions v1 is served as v0 (the
	// version gate at >= 2 for >= 1): the header's client instance id is
	// ignored and the body's, absent at v1, read as zero, so a new id is
	// assigned that the v1 answer cannot carry (§B6, A2: the first version
	// of the range).
	MutGetV1ServedAsV0

	// The classic group protocol's mutants (docs/PROTOCOL.md A6, B8).

	// MutClassicNoFence: a request naming a replaced member id with its
	// instance id is UNKNOWN_MEMBER_ID, not FENCED_INSTANCE_ID (A6.2).
	MutClassicNoFence
	// MutPendingNeverExpires: a KIP-394 pending id is never dropped
	// (A6.1).
	MutPendingNeverExpires
	// MutPendingCountsTowardMaxSize: group.max.size counts pending ids
	// (B8.11).
	MutPendingCountsTowardMaxSize
	// MutHeartbeatGenerationUnchecked: a classic Heartbeat at another
	// generation is accepted (B8.9).
	MutHeartbeatGenerationUnchecked
	// MutLeaderNotReelected: a leader that did not rejoin stays leader of
	// the new generation (B8.7).
	MutLeaderNotReelected
	// MutStaticReplacementRebalances: a static member's replacement in
	// Stable starts a rebalance though the protocol stays (A6.2).
	MutStaticReplacementRebalances
	// MutReplacementKeepsOldInstance: after a static replacement the
	// instance still maps to the replaced id, so the new one is fenced
	// (A6.2).
	MutReplacementKeepsOldInstance
	// MutAdminRemovalIgnored: a LeaveGroup entry {"", held instance} is
	// UNKNOWN_MEMBER_ID and the member stays (A6.3).
	MutAdminRemovalIgnored
	// MutPendingLeaveKept: a LeaveGroup naming a pending id answers NONE
	// but keeps it (A6.3).
	MutPendingLeaveKept
	// MutStaticRemovedAtCompletion: a static member that did not rejoin
	// is removed at the join phase's completion like a dynamic one (A6.2,
	// B8.7).
	MutStaticRemovedAtCompletion
	// MutSyncTimeoutRemovesSynced: the sync phase's timeout removes every
	// member, not only those it still awaits (B8.10).
	MutSyncTimeoutRemovesSynced
	// MutRemovedJoinNotAnswered: a removed member's waiting JoinGroup is
	// never answered (B8.10, A6.3): its client waits forever.
	MutRemovedJoinNotAnswered
	// MutClassicErrorRefreshesSession: a classic Heartbeat answered
	// ILLEGAL_GENERATION refreshes the member's session (B8.9).
	MutClassicErrorRefreshesSession
	// MutRestartKeepsClassicState: a restart keeps a classic group as it
	// is in memory instead of reloading its last record (B8.14).
	MutRestartKeepsClassicState
	// MutSessionMinRefused: a JoinGroup whose session timeout is exactly
	// the minimum is refused INVALID_SESSION_TIMEOUT (the bounds are
	// inclusive, B8.4): off by one at the lower bound.
	MutSessionMinRefused
	// MutSessionAboveMaxAccepted: a JoinGroup whose session timeout is one
	// above the maximum is accepted (B8.4): off by one at the upper bound.
	MutSessionAboveMaxAccepted
	// MutMemberIDRequiredFromV5: KIP-394 from JoinGroup v5, not v4: a
	// dynamic v4 JoinGroup with no member id is added at once, as v3's
	// (A6.1): the version gate off by one.
	MutMemberIDRequiredFromV5
	// MutSkipAssignmentWithheld: a static leader's replacement in Stable
	// at JoinGroup v9 is answered as below v9 (no members, no
	// SkipAssignment, the old leader named), so the new leader never
	// learns it leads (A6.2, KIP-814): the version gate at the last
	// version.
	MutSkipAssignmentWithheld
	// MutPendingExpiresByRebalanceTimeout: a pending id expires a
	// rebalance timeout after its MEMBER_ID_REQUIRED, not a session
	// timeout (A6.1).
	MutPendingExpiresByRebalanceTimeout
	// MutCompletingRejoinRebalances: a member rejoining in
	// CompletingRebalance with unchanged protocols starts a rebalance
	// instead of getting the current generation (B8.6).
	MutCompletingRejoinRebalances
	// MutHeartbeatRebalancingNone: a classic Heartbeat in
	// PreparingRebalance is answered NONE, not REBALANCE_IN_PROGRESS, so
	// members never learn to rejoin (B8.9).
	MutHeartbeatRebalancingNone
	// MutPendingJoinUnknown: a JoinGroup naming a KIP-394 pending id is
	// put through the member check instead of adding the id, so it is
	// UNKNOWN_MEMBER_ID and a v4+ dynamic client can never join (A6.1).
	MutPendingJoinUnknown
	// MutPendingWithInstanceJoins: a JoinGroup naming a pending id with a
	// GroupInstanceId adds the id as a static member instead of
	// UNKNOWN_SERVER_ERROR (A6.1).
	MutPendingWithInstanceJoins
	// MutPendingHeartbeatAccepted: a classic Heartbeat naming a pending id
	// is answered as a member's (REBALANCE_IN_PROGRESS in
	// PreparingRebalance, NONE otherwise) instead of UNKNOWN_MEMBER_ID: a
	// pending id is not a member (A6.1).
	MutPendingHeartbeatAccepted
	// MutStaticMemberIDRequired: a new static member at JoinGroup v4+ is
	// sent away with MEMBER_ID_REQUIRED and a pending id like a dynamic
	// one (KIP-394 applied to KIP-345's members), and its rejoin with the
	// id and its instance is UNKNOWN_SERVER_ERROR: a static member never
	// joins (A6.2).
	MutStaticMemberIDRequired
	// MutReplacedCompletingNoRebalance: a static replacement in
	// CompletingRebalance is served as in Stable (the current generation,
	// no rebalance), though the leader may be assigning with the old
	// member's metadata (A6.2).
	MutReplacedCompletingNoRebalance
	// MutOldRequestDropped: the replaced member's waiting JoinGroup or
	// SyncGroup is dropped, never answered, instead of answered
	// FENCED_INSTANCE_ID: the old process waits forever (A6.2).
	MutOldRequestDropped
	// MutClassicLeaveEmptyUnknownNone: a LeaveGroup entry {"", null or an
	// instance nobody holds} against a classic group is answered NONE
	// instead of UNKNOWN_MEMBER_ID (A6.3).
	MutClassicLeaveEmptyUnknownNone
	// MutClassicLeaveUnknownInstanceByID: a LeaveGroup entry {a member's
	// id, an instance nobody holds} removes the member by its id instead
	// of UNKNOWN_MEMBER_ID (A6.3).
	MutClassicLeaveUnknownInstanceByID
	// MutClassicLeaveUnknownMemberNone: a LeaveGroup entry {not a member,
	// null} against a classic group is answered NONE instead of
	// UNKNOWN_MEMBER_ID (A6.3).
	MutClassicLeaveUnknownMemberNone
	// MutClassicLeaveStaticByIDFenced: a LeaveGroup entry naming a static
	// member by its id with a null instance (as LeaveGroup v0-v2 must) is
	// FENCED_INSTANCE_ID and the member stays, instead of removed (A6.3).
	MutClassicLeaveStaticByIDFenced
	// MutRemovedSyncAnswered: a removed member's waiting SyncGroup is
	// answered UNKNOWN_MEMBER_ID instead of dropped unanswered (A6.3).
	MutRemovedSyncAnswered
	// MutClassicLeaveNoRebalance: a LeaveGroup that removes a member of a
	// Stable or CompletingRebalance group starts no rebalance, so the
	// others keep its partitions unowned (A6.3).
	MutClassicLeaveNoRebalance
	// MutClassicLeaveNoCompletion: a LeaveGroup in PreparingRebalance that
	// leaves every remaining member waiting does not complete the join
	// phase, which then waits for its timer (A6.3).
	MutClassicLeaveNoCompletion
	// MutClassicEmptyGroupIDServed: a JoinGroup with GroupId "" is served
	// (the blank check left out), so a group "" is made, instead of
	// INVALID_GROUP_ID (B8.4).
	MutClassicEmptyGroupIDServed
	// MutMissingGroupJoinCreates: a JoinGroup naming a member id to a group
	// that does not exist makes an Empty group before it answers
	// UNKNOWN_MEMBER_ID, so a group nobody joined shows in DescribeGroups
	// (B8.6).
	MutMissingGroupJoinCreates
	// MutPreparingJoinKeepsProtocols: a member's JoinGroup in
	// PreparingRebalance stores its timeouts but keeps its old protocols, so
	// the leader assigns with stale metadata (B8.6).
	MutPreparingJoinKeepsProtocols
	// MutCompletingChangedAnswered: a member rejoining in
	// CompletingRebalance with changed protocols is answered the current
	// generation at once instead of starting a rebalance (B8.6).
	MutCompletingChangedAnswered
	// MutProtocolsComparedByName: a follower's rejoin in Stable compares its
	// protocols by name only, so a changed subscription (new metadata) is
	// answered the current generation instead of starting a rebalance
	// (B8.6).
	MutProtocolsComparedByName
	// MutFollowerSameRebalances: a follower's rejoin in Stable with
	// unchanged protocols starts a rebalance instead of getting the current
	// generation (B8.6).
	MutFollowerSameRebalances
	// MutSecondJoinRefused: a member's JoinGroup arriving while another of
	// its own waits is answered NOT_COORDINATOR and the first keeps waiting,
	// instead of the new one taking its place (B8.6).
	MutSecondJoinRefused
	// MutSupersededDropped: a member's waiting JoinGroup superseded by a
	// newer one of its own is dropped, never answered, instead of
	// NOT_COORDINATOR (A6.5).
	MutSupersededDropped
	// MutNewMemberSessionTimeout: a new member's join timer is its session
	// timeout instead of the 5-minute new-member timeout, so a member slow
	// to rejoin is dropped early (B8.10).
	MutNewMemberSessionTimeout
	// MutNewMemberNoRebalance: a new member added to a Stable or
	// CompletingRebalance group starts no rebalance: its JoinGroup waits
	// until something else rebalances (B8.6).
	MutNewMemberNoRebalance
	// MutReplacedIDNotAwaited: an id a static replacement replaced before it
	// synced is forgotten by the sync phase, so when it was the only one not
	// synced the sync timer does nothing instead of rebalancing (B8.10).
	MutReplacedIDNotAwaited
	// MutMemberUnknownInstanceFenced: the member check answers
	// FENCED_INSTANCE_ID for an instance nobody holds instead of
	// UNKNOWN_MEMBER_ID, so the client stops instead of rejoining (B8.4).
	MutMemberUnknownInstanceFenced
	// MutLeaderGreatestID: a removed leader is succeeded by the member with
	// the greatest id instead of the smallest (A6.5).
	MutLeaderGreatestID
	// MutMemberIDNoDash: a classic member or pending id is made as the
	// prefix and the UUID with no "-" between (A6.5).
	MutMemberIDNoDash
	// MutRebalanceKeepsSyncsWaiting: a rebalance started from
	// CompletingRebalance leaves the waiting SyncGroups waiting instead of
	// answering REBALANCE_IN_PROGRESS, so their clients never rejoin (B8.7).
	MutRebalanceKeepsSyncsWaiting
	// MutInitialDelayEarly: the first rebalance's delay is armed a
	// millisecond short of group.initial.rebalance.delay.ms (B8.7).
	MutInitialDelayEarly
	// MutInitialDelayLate: the first rebalance's delay is armed a
	// millisecond past group.initial.rebalance.delay.ms: initial-delay-
	// early's boundary the other way (B8.7).
	MutInitialDelayLate
	// MutJoinTimerEarly: the join phase's timer is armed a millisecond short
	// of the group's rebalance timeout, so a member rejoining at its
	// deadline is dropped (B8.7).
	MutJoinTimerEarly
	// MutJoinWaitsForTimer: a join phase (not the first) in which every
	// member waits and no id is pending does not complete at once but waits
	// for its timer (B8.7).
	MutJoinWaitsForTimer
	// MutDynamicKeptNotRejoined: a dynamic member that did not rejoin the
	// join phase is kept in the new generation, like a static one, instead
	// of removed (B8.7).
	MutDynamicKeptNotRejoined
	// MutNobodyRejoinedNewGeneration: a join phase that completes with
	// members but none rejoined makes a new generation instead of restarting
	// its timer (B8.7).
	MutNobodyRejoinedNewGeneration
	// MutEmptyGenerationKept: a join phase that completes with no member
	// left keeps the generation instead of moving it on, so a generation is
	// reused (B8.7).
	MutEmptyGenerationKept
	// MutSyncTimerNotStarted: a completed join phase starts no sync timer,
	// so a member that never syncs is never removed (B8.7, B8.10).
	MutSyncTimerNotStarted
	// MutSyncNullProtocolAccepted: a SyncGroup v5 with ProtocolType or
	// ProtocolName null is served instead of INCONSISTENT_GROUP_PROTOCOL
	// (B8.4).
	MutSyncNullProtocolAccepted
	// MutSyncMissingGroupNotFound: a SyncGroup to a group that does not
	// exist is GROUP_ID_NOT_FOUND instead of UNKNOWN_MEMBER_ID, which
	// classic clients do not take for a rejoin (B8.8).
	MutSyncMissingGroupNotFound
	// MutSyncGenerationUnchecked: a SyncGroup at another generation is
	// served instead of ILLEGAL_GENERATION (B8.8).
	MutSyncGenerationUnchecked
	// MutSyncProtocolNameUnchecked: a SyncGroup whose ProtocolName differs
	// from the group's is served instead of INCONSISTENT_GROUP_PROTOCOL
	// (B8.8).
	MutSyncProtocolNameUnchecked
	// MutSyncRebalancingAnswered: a SyncGroup in PreparingRebalance is
	// answered the member's current assignment instead of
	// REBALANCE_IN_PROGRESS (B8.8).
	MutSyncRebalancingAnswered
	// MutFollowerSyncNotHeld: a follower's SyncGroup in CompletingRebalance
	// is answered at once, with the assignment it has (none yet), instead of
	// waiting for the leader's (B8.8).
	MutFollowerSyncNotHeld
	// MutStableSyncEmpty: a SyncGroup in Stable is answered an empty
	// assignment instead of the member's (B8.8).
	MutStableSyncEmpty
	// MutLeaderSyncAnswersFirst: the leader's SyncGroup answers the
	// followers already waiting before it stores the new assignments, so
	// they get the old ones (B8.8).
	MutLeaderSyncAnswersFirst
	// MutHeartbeatMissingGroupNotFound: a classic Heartbeat to a group that
	// does not exist is GROUP_ID_NOT_FOUND instead of UNKNOWN_MEMBER_ID
	// (B8.9).
	MutHeartbeatMissingGroupNotFound
	// MutUnknownMemberIllegalGeneration: a classic Heartbeat naming a member
	// id the group does not hold, at another generation, is
	// ILLEGAL_GENERATION instead of UNKNOWN_MEMBER_ID: the generation
	// checked before the member (B8.4).
	MutUnknownMemberIllegalGeneration
	// MutHeartbeatCompletingRebalancing: a classic Heartbeat in
	// CompletingRebalance is answered REBALANCE_IN_PROGRESS instead of NONE,
	// so members rejoin instead of syncing (B8.9).
	MutHeartbeatCompletingRebalancing
	// MutSessionExpiresWhileWaiting: a member whose JoinGroup or SyncGroup
	// waits is removed when its session fires instead of kept (B8.10).
	MutSessionExpiresWhileWaiting
	// MutExpiryNoRebalance: a member removed by its session in Stable or
	// CompletingRebalance starts no rebalance, so its partitions stay
	// unowned (B8.10).
	MutExpiryNoRebalance
	// MutExpiryNoCompletion: a member removed by its session in
	// PreparingRebalance, every other member waiting, does not complete the
	// join phase, which waits for its timer (B8.10).
	MutExpiryNoCompletion
	// MutInitialDelayNotExtended: the first rebalance's delay is not
	// extended when members came during it (B8.7).
	MutInitialDelayNotExtended
	// MutDescribeNotFoundFromV7: DescribeGroups v6 of a missing group is
	// answered as v0-v5 (NONE, Dead): the version gate at >= 7 for >= 6, the
	// first version of the range (B8.13).
	MutDescribeNotFoundFromV7
	// MutDescribeNotFoundFromV5: DescribeGroups v5 of a missing group is
	// answered as v6 (GROUP_ID_NOT_FOUND): the version gate at >= 5 for >=
	// 6, the last version of v0-v5 (B8.13).
	MutDescribeNotFoundFromV5
	// MutDescribeStableNoMetadata: DescribeGroups of a Stable classic group
	// lists its members without their metadata (B8.13).
	MutDescribeStableNoMetadata
	// MutDescribeCompletingMetadata: DescribeGroups of a classic group in
	// CompletingRebalance lists the members' metadata, which only Stable
	// shows (B8.13).
	MutDescribeCompletingMetadata
	// MutRestartDropsWaiting: a coordinator restart drops the waiting
	// JoinGroups and SyncGroups, never answered, instead of NOT_COORDINATOR,
	// so their clients wait out their request timeouts (B8.14).
	MutRestartDropsWaiting
	// MutProtocolTypeUnchecked: a JoinGroup's ProtocolType is not compared
	// with the group's, so a join of another type that lists a protocol
	// every member lists is accepted instead of INCONSISTENT_GROUP_PROTOCOL
	// (B8.6).
	MutProtocolTypeUnchecked
	// MutReplacedPreparingAnswered: a static replacement in
	// PreparingRebalance is served as in Stable, answered the current
	// generation at once, instead of its join waiting in the join phase
	// (A6.2).
	MutReplacedPreparingAnswered
	// MutClassicGroupStartsAtOne: a classic group is made at generation 1
	// instead of 0, so its first join phase hands out generation 2 (B8.6).
	MutClassicGroupStartsAtOne
	// MutClassicGroupUnknownMember: a ConsumerGroupHeartbeat at a member
	// epoch to a classic group is UNKNOWN_MEMBER_ID, as if the member were
	// looked up in a group of the wrong kind, instead of GROUP_ID_NOT_FOUND
	// (A6.4): the client rejoins instead of giving up.
	MutClassicGroupUnknownMember
	// MutDescribeConsumerGroupEmpty: DescribeGroups of a consumer group
	// answers it as an Empty classic group instead of as a missing one
	// (A6.4).
	MutDescribeConsumerGroupEmpty
	// MutProtocolChangeReplacedAnswered: a static replacement in Stable
	// whose protocols would change the group's selected protocol is
	// answered at once as if they did not, with no rebalance (A6.2).
	MutProtocolChangeReplacedAnswered
	// MutProtocolTieLargest: of the protocols with the most votes the
	// largest name is selected, not the smallest (A6.5).
	MutProtocolTieLargest
	// MutStableLeaderRejoinAnswered: the leader's rejoin in Stable is
	// answered at once with the current generation and the members, as if
	// it could assign again without a rebalance, instead of starting one
	// (B8.6).
	MutStableLeaderRejoinAnswered
	// MutSecondSyncRefused: a member's SyncGroup while another of its own
	// waits is answered NOT_COORDINATOR, and the first keeps waiting,
	// instead of the new one waiting in its place (B8.8).
	MutSecondSyncRefused
	// MutMissingAssignmentKept: a member the leader's SyncGroup gives no
	// entry keeps its assignment of the generation before, instead of
	// empty bytes (B8.8).
	MutMissingAssignmentKept
	// MutConsumerMemberIllegalGeneration: a classic Heartbeat or SyncGroup
	// to a consumer group naming one of its consumer-protocol members is
	// ILLEGAL_GENERATION instead of UNKNOWN_MEMBER_ID (A6.4): the lookup
	// finds the member without asking its protocol, and its generation,
	// which a consumer-protocol member does not have, never matches, so a
	// classic client misdirected to the group retries instead of
	// rejoining.
	MutConsumerMemberIllegalGeneration
	// MutHeldConnectionRead: a request arriving on a connection whose
	// JoinGroup or SyncGroup waits is read and served at once instead of
	// left unread until that one is answered (B8.5: Kafka mutes the
	// socket), so a client's later request overtakes its waiting one.
	MutHeldConnectionRead
	// MutJoinMixedAnswered: a JoinGroup to a consumer group with members,
	// under the `outside` policy, is answered INCONSISTENT_GROUP_PROTOCOL,
	// as Kafka before 4.0 answered it, instead of closing the connection
	// without an answer (A6.4, A6.5).
	MutJoinMixedAnswered
	// MutEmptyConsumerGroupKept: a JoinGroup with MemberId "" to a consumer
	// group with no member is answered INCONSISTENT_GROUP_PROTOCOL and the
	// consumer group stays, instead of giving way to a classic group
	// (A6.4): a fleet rolled back to the classic protocol cannot rejoin
	// its own group.
	MutEmptyConsumerGroupKept
	// MutUpgradeRefusedAnswered: a ConsumerGroupHeartbeat join to a classic
	// group with members, under the `outside` policy, is answered
	// GROUP_ID_NOT_FOUND, as a policy that forbids the upgrade would
	// (A7.4), instead of closing the connection without an answer (A6.4,
	// A6.5).
	MutUpgradeRefusedAnswered
	// MutEmptyClassicGroupKept: a ConsumerGroupHeartbeat join to a classic
	// group with no member is answered GROUP_ID_NOT_FOUND and the classic
	// group stays, instead of giving way to a consumer group (A6.4): an
	// upgraded fleet cannot rejoin its own group.
	MutEmptyClassicGroupKept
	// MutRegexRefusedGroupKept: a join refused because its regex does not
	// compile leaves the group it made behind, empty, instead of making no
	// group (B4.4: a join creates its group only if it succeeds).
	MutRegexRefusedGroupKept
	// MutV0MemberIDZero: the member id the coordinator makes for a
	// ConsumerGroupHeartbeat v0 join with MemberId "" is the zero UUID (an
	// id drawn but never filled in), so every such client of a group
	// shares one member (A1).
	MutV0MemberIDZero
	// MutV0RebalanceTimeoutDefault: a JoinGroup v0's rebalance timeout is
	// the field's default as v0 decodes it, -1, instead of the session
	// timeout (B8.4: Kafka's JoinGroupRequest puts the session timeout in
	// its place at v0; a coordinator that reads the decoded field as later
	// versions carry it skips that): a group whose members all joined at
	// v0 ends every join phase (and sync phase) at its first timer run,
	// and its first rebalance is never extended past one initial delay,
	// where Kafka waits a session timeout for its members.
	MutV0RebalanceTimeoutDefault
	mutEnd // one past the last: a Mutants holds up to 256
)

// A Mutants has a bit for every mutant.
var _ [len(Mutants{}.bits)*64 - int(mutEnd)]struct{}

// mutantEntry is one mutant's row: its name, which rule of
// docs/PROTOCOL.md it breaks (the family first: validation, epochs,
// reconciliation, timers, static membership, LeaveGroup, KIP-1313
// context, telemetry, Heartbeat, ...) and what it does.
type mutantEntry struct {
	m                Mutant
	name, rule, desc string
	// breaks are the clauses of docs/PROTOCOL.md the mutant breaks (model
	// clause ids, "SECTION/what", as `run --coverage` counts them).
	breaks []string
}

// mutantInfo lists every mutant: the consumer protocol's, then the classic
// protocol's.
var mutantInfo = slices.Concat(consumerMutantInfo, classicMutantInfo)

var consumerMutantInfo = []mutantEntry{
	{MutV1EmptyMemberID, "v1-empty-member-id", "validation A1", "the broker makes a member id at ConsumerGroupHeartbeat v1 when it is empty", []string{"B4.2/member-id-blank"}},
	{MutRetriedJoinNewMember, "retried-join-new-member", "member ids A1", "a retried join (epoch 0, known member id) creates a second member", []string{"A1/retried-join-in-place"}},
	{MutLeaveUnknownIgnored, "leave-unknown-ignored", "leave B4.4", "a leave with an unknown member id is answered NONE and ignored while the real member stays", []string{"B4.4/leave-unknown-member"}},
	{MutParkedNeverExpires, "parked-never-expires", "static B4.4", "a static member parked at epoch -2 never expires", []string{"B4.4/parked-session-timeout"}},
	{MutErrorRefreshesSession, "error-refreshes-session", "timers B4.4", "an error response to a known member refreshes its session", []string{"B4.4/session-timeout"}},
	{MutZeroInstanceIDAccepted, "zero-instance-id-accepted", "telemetry A2", "the zero UUID is accepted as a client instance id", []string{"B6/get-v1-invalid-id", "B6/get-v0-id-assigned", "B6/push-invalid-id"}},
	{MutEarlyHandoff, "early-handoff", "reconciliation A5.3", "a partition is handed to a new owner before the old one revoked it", []string{"A5.3/step-4-unreleased"}},
	{MutRestartKeepsDeadlines, "restart-keeps-deadlines", "timers B4.4", "a coordinator restart keeps the old session and rebalance deadlines instead of starting them afresh", []string{"B4.4/restart-restarts-timers"}},
	{MutStaticRestartRebalances, "static-restart-rebalances", "static A5.5", "a static restart (a new member id taking over a parked instance) bumps the group epoch and recomputes the target: a rebalance", []string{"A5.5/takeover"}},
	{MutJoinNullPartitionsAccepted, "join-null-partitions-accepted", "validation B4.2", "a join with TopicPartitions null is accepted as if it were empty", []string{"B4.2/join-topic-partitions"}},
	{MutPrevEpochWithoutOwned, "prev-epoch-without-owned", "epochs A5.4", "the epoch check accepts the previous epoch from a heartbeat with TopicPartitions null", []string{"A5.4/epoch-behind-fenced"}},
	{MutNullOwnedReleases, "null-owned-releases", "reconciliation A5.3", "TopicPartitions null (unchanged) is read as empty and releases every pending revocation", []string{"A5.3/step-1-pending-released"}},
	{MutRegexNotFullRequest, "regex-not-full-request", "reconciliation A5.7", "a full heartbeat subscribed by regex alone is not a full request: its response lacks the assignment", []string{"A5.7/assignment-full-by-regex"}},
	{MutSessionExpiryLate, "session-expiry-late", "timers B4.4", "a session expires only after its deadline, not at it (off by one)", []string{"B4.4/session-timeout"}},
	{MutStaticLeaveRefreshesSession, "static-leave-refreshes-session", "static B4.4", "a static leave at -2 re-arms the parked member's session", []string{"B4.4/leave-parks", "B4.4/parked-session-timeout"}},
	{MutTakeoverKeysByMemberID, "takeover-keys-by-member-id", "static A5.2", "the assignor sorts static members by member id, so a takeover moves other members' targets", []string{"A5.2/static-keyed-by-instance"}},
	{MutParkKeepsPending, "park-keeps-pending", "static B4.4", "parking at -2 keeps pending revocations and the rebalance timer", []string{"B4.4/leave-parks"}},
	{MutLeaveGroupMemberIDUnknown, "leavegroup-member-id-unknown", "LeaveGroup A3 row 3", "a LeaveGroup entry {member id, null} is UNKNOWN_MEMBER_ID and the member stays (Kafka 3.x)", []string{"A3/row-3-member-removed"}},
	{MutLeaveGroupFencedRemoves, "leavegroup-fenced-removes", "LeaveGroup A3 row 6", "a LeaveGroup entry {another member id, held instance} removes the holder instead of FENCED_INSTANCE_ID", []string{"A3/row-6-fenced"}},
	{MutLeaveGroupBumpPerMember, "leavegroup-bump-per-member", "LeaveGroup A3.2", "a LeaveGroup moves the group epoch once per member removed", []string{"A3.2/one-bump-per-request", "A3.2/batch-removes-several"}},
	{MutConnContextKept, "conn-context-kept", "KIP-1313 A2", "a closed connection's first ClientId is not forgotten: a new connection with its id inherits it", []string{"A2/disconnect-forgets"}},
	{MutLaterClientIDIgnored, "later-clientid-ignored", "KIP-1313 A2", "a later request that sends a ClientId is attributed to the connection's first", []string{"A2/later-clientid-own"}},
	{MutPushV1ZeroAccepted, "push-v1-zero-accepted", "telemetry A2", "PushTelemetry v1 accepts the zero UUID as the header's client instance id", []string{"B6/push-invalid-id"}},
	{MutTelemetryOneAccepted, "telemetry-one-accepted", "telemetry B6", "the telemetry APIs accept the reserved client instance id 00...01", []string{"B6/get-v1-invalid-id", "B6/push-invalid-id"}},
	{MutDescribeHidesParked, "describe-hides-parked", "Describe B7.2", "ConsumerGroupDescribe leaves out the members parked at epoch -2", []string{"B7.2/group-described"}},
	{MutSessionDeadlineEarly, "session-deadline-early", "timers B4.4", "a session deadline is armed 1 ms short of the session timeout: members expire 1 ms early", []string{"B4.4/session-timeout", "B4.4/parked-session-timeout"}},
	{MutRebalanceExpiryLate, "rebalance-expiry-late", "timers A5.6", "a rebalance timeout fires only after its deadline, not at it (off by one)", []string{"A5.6/rebalance-timeout-removes"}},
	{MutRebalanceDeadlineEarly, "rebalance-deadline-early", "timers A5.6", "the rebalance timer is armed 1 ms short of the member's rebalance timeout", []string{"A5.6/rebalance-timer-started"}},
	{MutRebalanceTimerRearmed, "rebalance-timer-rearmed", "timers A5.6", "each heartbeat of a member still revoking restarts its rebalance timer", []string{"A5.6/rebalance-timer-started"}},
	{MutPreviousEpochFenced, "previous-epoch-fenced", "epochs A5.4", "the previous epoch with owned partitions a subset of the assignment is FENCED_MEMBER_EPOCH", []string{"A5.4/previous-epoch-accepted"}},
	{MutGroupMaxSizeOffByOne, "group-max-size-off-by-one", "group size B4.4", "the group size cap refuses a new member only above the cap, not at it", []string{"B4.4/group-max-size"}},
	{MutDescribeFirstClientID, "describe-first-client-id", "Describe B7.2", "a member keeps its join's ClientId and host: Describe shows a renamed client under its old name", []string{"B7.2/group-described", "A2/later-clientid-own"}},
	{MutLeaveGroupAdminRemovalIgnored, "leavegroup-admin-removal-ignored", "LeaveGroup A3 row 1", "a LeaveGroup entry {\"\", held instance} is UNKNOWN_MEMBER_ID and the consumer-group member stays", []string{"A3/row-1-admin-removal"}},
	{MutLeaveGroupUnknownInstanceByID, "leavegroup-unknown-instance-by-id", "LeaveGroup A3 row 5", "a LeaveGroup entry {member id, unknown instance} removes the member by its id", []string{"A3/row-5-unknown-instance"}},
	{MutLeaveGroupV2AsBatch, "leavegroup-v2-as-batch", "LeaveGroup A3, B5", "LeaveGroup v2 is served as v3: its member id is never read, NONE, the member stays", []string{"A3/v0-v2-top-level"}},
	{MutStaticFencedAsUnknown, "static-fenced-as-unknown", "static B4.4", "a static heartbeat naming another member's instance is UNKNOWN_MEMBER_ID, not FENCED_INSTANCE_ID", []string{"B4.4/static-fenced-instance"}},
	{MutRackIDNotTrimmed, "rack-id-not-trimmed", "validation B4.2", "a RackId of spaces passes validation", []string{"B4.2/rack-id-blank"}},
	{MutEpochMinusThreeAccepted, "epoch-minus-three-accepted", "validation B4.2", "member epoch -3 passes validation and is served as a heartbeat", []string{"B4.2/epoch-invalid"}},
	{MutStaticLeaveNullInstanceAsLeave, "static-leave-null-instance-as-leave", "validation B4.2", "epoch -2 with InstanceId null is served as a dynamic leave", []string{"B4.2/static-leave-null-instance"}},
	{MutUnreleasedInstanceTakenOver, "unreleased-instance-taken-over", "static A1", "a join naming an active member's instance takes it over instead of UNRELEASED_INSTANCE_ID", []string{"A1/join-unreleased-instance"}},
	{MutSubscriptionComparedByCount, "subscription-compared-by-count", "epochs A5.1", "a subscription to as many other topics is not a change: no group epoch bump", []string{"A5.1/subscription-changed"}},
	{MutPushAfterTerminatingAccepted, "push-after-terminating-accepted", "telemetry B6", "a terminating push is not remembered: a later push under the id is served", []string{"B6/push-after-terminating"}},
	{MutRevocationNotSent, "revocation-not-sent", "reconciliation A5.7", "a heartbeat that only revokes sends no assignment: the client never learns to revoke", []string{"A5.7/assignment-changed", "A5.3/step-3-revoke"}},
	{MutStaticRetriedJoinUnreleased, "static-retried-join-unreleased", "static A1", "a static member's retried join under its own id and instance is UNRELEASED_INSTANCE_ID", []string{"A1/static-retried-join-in-place"}},
	{MutMemberInstanceRewritten, "member-instance-rewritten", "member ids A1", "a join naming a member's id with an instance nobody holds moves the member to that instance", []string{"A1/join-member-other-instance"}},
	{MutFirstClientIDForgotten, "first-clientid-forgotten", "KIP-1313 A2", "a connection remembers \"\" for its first ClientId: later requests without one are attributed to \"\"", []string{"A2/first-clientid-remembered", "A2/null-clientid-attributed-first"}},
	{MutLeaveGroupEmptyGroupAsMissing, "leavegroup-empty-group-as-missing", "LeaveGroup A3.3", "a LeaveGroup with GroupId \"\" is served as a missing group instead of INVALID_GROUP_ID", []string{"A3/invalid-group-id"}},
	{MutLeaveGroupBatchStopsAtError, "leavegroup-batch-stops-at-error", "LeaveGroup A3", "a LeaveGroup v3+ batch answers every entry after a failed one with its error and applies none of them", []string{"A3/v3-batch"}},
	{MutLeaveGroupUnknownEntriesNone, "leavegroup-unknown-entries-none", "LeaveGroup A3 rows 2, 4", "LeaveGroup entries naming nobody ({\"\", unknown}, {not a member, null}, a missing group) are answered NONE", []string{"A3/row-2-empty-unknown", "A3/row-4-not-member", "B5/missing-group"}},
	{MutLeaveGroupOwnInstanceFenced, "leavegroup-own-instance-fenced", "LeaveGroup A3 row 7", "a LeaveGroup entry {the holder's id, its instance} is FENCED_INSTANCE_ID and the member stays", []string{"A3/row-7-own-instance"}},
	{MutNewStaticMemberNoBump, "new-static-member-no-bump", "epochs A5.1", "a new static member moves no group epoch (taken for a takeover)", []string{"A5.1/member-joined"}},
	{MutRevokingTakesNewTarget, "revoking-takes-new-target", "reconciliation A5.3", "a member still revoking revokes against a newer target at once instead of waiting", []string{"A5.3/step-2-still-revoking"}},
	{MutPrevEpochNotRecorded, "prev-epoch-not-recorded", "epochs A5.3", "a member taking the target epoch does not record its previous epoch", []string{"A5.3/step-3-epoch-advanced"}},
	{MutFreePartitionsHeldBack, "free-partitions-held-back", "reconciliation A5.3", "target partitions nobody owns are withheld while another target partition is still owned", []string{"A5.3/step-4-assigned"}},
	{MutEpochCheckedAgainstGroup, "epoch-checked-against-group", "epochs A5.4", "a heartbeat at the member's epoch is fenced while the group epoch is ahead of it", []string{"A5.4/current-epoch"}},
	{MutEpochOneAheadAccepted, "epoch-one-ahead-accepted", "epochs A5.4", "a heartbeat one epoch ahead of the member's is accepted (off by one)", []string{"A5.4/epoch-ahead-fenced"}},
	{MutParkedResumeBumps, "parked-resume-bumps", "static A5.5", "a parked static member rejoining under its own id moves the group epoch", []string{"A5.5/parked-resumes"}},
	{MutJoinWithoutAssignment, "join-without-assignment", "reconciliation A5.7", "a join whose assignment did not change is answered without the assignment", []string{"A5.7/assignment-on-join"}},
	{MutFullRequestNoAssignment, "full-request-no-assignment", "reconciliation A5.7", "a full heartbeat is answered without the assignment unless it changed", []string{"A5.7/assignment-full-request"}},
	{MutEpochBumpSendsAssignment, "epoch-bump-sends-assignment", "reconciliation A5.7", "a heartbeat that only takes a new epoch carries the unchanged assignment", []string{"A5.7/no-assignment"}},
	{MutGroupIDNotTrimmed, "group-id-not-trimmed", "validation B4.2", "a GroupId of spaces passes validation", []string{"B4.2/group-id-blank"}},
	{MutInstanceIDBlankAccepted, "instance-id-blank-accepted", "validation B4.2", "a blank InstanceId passes validation", []string{"B4.2/instance-id-blank"}},
	{MutJoinWithoutRebalanceTimeoutAccepted, "join-without-rebalance-timeout-accepted", "validation B4.2", "a join with RebalanceTimeoutMs -1 is accepted", []string{"B4.2/join-without-rebalance-timeout"}},
	{MutJoinWithoutSubscriptionAccepted, "join-without-subscription-accepted", "validation B4.2", "a join with neither topic names nor regex is accepted", []string{"B4.2/join-without-subscription"}},
	{MutAssignorUnchecked, "assignor-unchecked", "validation B4.2", "any ServerAssignor is accepted", []string{"B4.2/unsupported-assignor"}},
	{MutMissingGroupUnknownMember, "missing-group-unknown-member", "errors B4.4", "a heartbeat for a missing group is UNKNOWN_MEMBER_ID, not GROUP_ID_NOT_FOUND", []string{"B4.4/group-not-found"}},
	{MutUnknownMemberFenced, "unknown-member-fenced", "errors B4.4", "a heartbeat for an unknown member id is FENCED_MEMBER_EPOCH, not UNKNOWN_MEMBER_ID", []string{"B4.4/unknown-member"}},
	{MutStaticUnknownInstanceFenced, "static-unknown-instance-fenced", "static B4.4", "a static heartbeat naming an instance nobody holds is FENCED_INSTANCE_ID, not UNKNOWN_MEMBER_ID", []string{"B4.4/static-unknown-instance"}},
	{MutRegexNotCompiled, "regex-not-compiled", "validation B4.4", "a regex that does not compile is accepted", []string{"B4.4/invalid-regex"}},
	{MutLeaveMissingGroupNone, "leave-missing-group-none", "leave B4.4", "a leave for a missing group is answered NONE", []string{"B4.4/leave-group-not-found"}},
	{MutLeaveNoBump, "leave-no-bump", "leave B4.4", "a leave at -1 removes the member without moving the group epoch", []string{"B4.4/leave-removes"}},
	{MutStaticLeaveUnknownInstanceNone, "static-leave-unknown-instance-none", "leave B4.4", "a static leave naming an instance nobody holds is answered NONE", []string{"B4.4/leave-unknown-instance"}},
	{MutStaticLeaveFencedRemoves, "static-leave-fenced-removes", "leave B4.4", "a static leave naming another member's instance removes or parks that member", []string{"B4.4/leave-fenced-instance"}},
	{MutGetV0IDReplaced, "get-v0-id-replaced", "telemetry B6", "GetTelemetrySubscriptions v0 with a non-zero id gets a new one assigned", []string{"B6/get-v0-id-kept"}},
	{MutPushSubscriptionUnchecked, "push-subscription-unchecked", "telemetry B6", "a push with another subscription id is accepted", []string{"B6/push-unknown-subscription"}},
	{MutPushCompressionUnchecked, "push-compression-unchecked", "telemetry B6", "a push with a compression type not accepted is served", []string{"B6/push-unsupported-compression"}},
	{MutPushTooLargeAccepted, "push-too-large-accepted", "telemetry B6", "a push over TelemetryMaxBytes is accepted", []string{"B6/push-too-large"}},
	{MutPushNotRecorded, "push-not-recorded", "telemetry B6", "an accepted push is not recorded: the next within the push interval is not throttled", []string{"B6/push-accepted", "B6/push-throttled"}},
	{MutGetNotRecorded, "get-not-recorded", "telemetry B6", "a GetTelemetrySubscriptions is not recorded: the next within the push interval is not throttled", []string{"B6/get-throttled"}},
	{MutSoftwareNameUnchecked, "software-name-unchecked", "ApiVersions B7.1", "ApiVersions v3+ checks the software version but not the name", []string{"B7.1/bad-software-name"}},
	{MutAdvertisesUncapped, "advertises-uncapped", "ApiVersions B7.1", "ApiVersions lists the uncapped versions of a capped broker", []string{"B7.1/versions-answered"}},
	{MutDescribeEmptyGroupNotFound, "describe-empty-group-not-found", "Describe B7.2", "ConsumerGroupDescribe of GroupId \"\" is GROUP_ID_NOT_FOUND, not INVALID_GROUP_ID", []string{"B7.2/invalid-group-id"}},
	{MutDescribeMissingGroupDead, "describe-missing-group-dead", "Describe B7.2", "ConsumerGroupDescribe of a missing group is NONE, state Dead, no members", []string{"B7.2/group-not-found"}},
	{MutAboveMaxVersionServed, "above-max-version-served", "versions B1.1", "a request one version above the advertised maximum is served", []string{"B1.1/unsupported-request"}},
	{MutGetV1ServedAsV0, "get-v1-served-as-v0", "telemetry B6", "GetTelemetrySubscriptions v1 is served as v0: the header's id is ignored and a new one assigned", []string{"B6/get-v1-header-id"}},
	{MutRegexRefusedGroupKept, "regex-refused-group-kept", "groups B4.4", "a join refused for its regex leaves the empty group it made behind", []string{"B4.4/group-created"}},
	{MutV0MemberIDZero, "v0-member-id-zero", "member ids A1", "the member id made for a v0 join with MemberId \"\" is the zero UUID", []string{"A1/v0-member-id-made"}},
}

// classicMutantInfo are the classic group protocol's mutants: the kill
// table runs them on classic plans (MutantInfo.Classic).
var classicMutantInfo = []mutantEntry{
	{MutClassicNoFence, "classic-no-fence", "static A6.2", "a replaced member id with its instance id is UNKNOWN_MEMBER_ID, not FENCED_INSTANCE_ID", []string{"B8.4/member-fenced", "A6.3/fenced-instance"}},
	{MutPendingNeverExpires, "pending-never-expires", "KIP-394 A6.1", "a pending member id is never dropped", []string{"A6.1/pending-expired"}},
	{MutPendingCountsTowardMaxSize, "pending-counts-toward-max-size", "group.max.size B8.11", "group.max.size counts pending member ids", []string{"B8.11/group-full"}},
	{MutHeartbeatGenerationUnchecked, "heartbeat-generation-unchecked", "Heartbeat B8.9", "a classic Heartbeat at another generation is accepted", []string{"B8.9/illegal-generation"}},
	{MutLeaderNotReelected, "leader-not-reelected", "join phase B8.7", "a leader that did not rejoin stays leader of the new generation", []string{"B8.7/leader-moved"}},
	{MutStaticReplacementRebalances, "static-replacement-rebalances", "static A6.2", "a static replacement in Stable with the protocol unchanged starts a rebalance", []string{"A6.2/replaced-stable"}},
	{MutReplacementKeepsOldInstance, "replacement-keeps-old-instance", "static A6.2", "after a static replacement the instance still maps to the replaced id", []string{"A6.2/replaced-stable"}},
	{MutAdminRemovalIgnored, "admin-removal-ignored", "LeaveGroup A6.3", "a LeaveGroup entry {\"\", held instance} is UNKNOWN_MEMBER_ID and the member stays", []string{"A6.3/admin-removal"}},
	{MutPendingLeaveKept, "pending-leave-kept", "LeaveGroup A6.3", "a LeaveGroup naming a pending id answers NONE but keeps it", []string{"A6.3/pending-dropped"}},
	{MutStaticRemovedAtCompletion, "static-removed-at-completion", "static A6.2", "a static member that did not rejoin is removed at the join phase's completion", []string{"A6.2/static-kept-not-rejoined"}},
	{MutSyncTimeoutRemovesSynced, "sync-timeout-removes-synced", "timers B8.10", "the sync phase's timeout removes every member, not only those it awaits", []string{"B8.10/sync-expired"}},
	{MutRemovedJoinNotAnswered, "removed-join-not-answered", "timers B8.10", "a removed member's waiting JoinGroup is never answered", []string{"A6.3/removed-join-answered"}},
	{MutClassicErrorRefreshesSession, "classic-error-refreshes-session", "Heartbeat B8.9", "a classic Heartbeat answered ILLEGAL_GENERATION refreshes the session", []string{"B8.10/session-expired"}},
	{MutRestartKeepsClassicState, "restart-keeps-classic-state", "restart B8.14", "a restart keeps classic groups as they are instead of reloading their last record", []string{"B8.14/reloaded"}},
	{MutSessionMinRefused, "session-min-refused", "validation B8.4", "a JoinGroup at exactly the minimum session timeout is refused INVALID_SESSION_TIMEOUT", []string{"B8.4/invalid-session-timeout"}},
	{MutSessionAboveMaxAccepted, "session-above-max-accepted", "validation B8.4", "a JoinGroup one millisecond above the maximum session timeout is accepted", []string{"B8.4/invalid-session-timeout"}},
	{MutMemberIDRequiredFromV5, "member-id-required-from-v5", "KIP-394 A6.1", "a dynamic JoinGroup v4 with no member id is added at once, as at v3 (the KIP-394 gate at v5)", []string{"A6.1/member-id-required", "A6.1/v3-member-added"}},
	{MutSkipAssignmentWithheld, "skip-assignment-withheld", "static A6.2", "a static leader replaced in Stable at JoinGroup v9 is answered as below v9: no members, no SkipAssignment", []string{"A6.2/replaced-leader-skip-assignment"}},
	{MutPendingExpiresByRebalanceTimeout, "pending-expires-by-rebalance-timeout", "KIP-394 A6.1", "a pending member id expires a rebalance timeout after MEMBER_ID_REQUIRED, not a session timeout", []string{"A6.1/pending-expired"}},
	{MutCompletingRejoinRebalances, "completing-rejoin-rebalances", "join phase B8.6", "a rejoin with unchanged protocols in CompletingRebalance starts a rebalance", []string{"B8.6/existing-completing-same"}},
	{MutHeartbeatRebalancingNone, "heartbeat-rebalancing-none", "Heartbeat B8.9", "a classic Heartbeat in PreparingRebalance is answered NONE, not REBALANCE_IN_PROGRESS", []string{"B8.9/rebalancing"}},
	{MutPendingJoinUnknown, "pending-join-unknown", "KIP-394 A6.1", "a JoinGroup naming a pending id is UNKNOWN_MEMBER_ID: the id never becomes a member", []string{"A6.1/pending-joins"}},
	{MutPendingWithInstanceJoins, "pending-with-instance-joins", "KIP-394 A6.1", "a JoinGroup naming a pending id with an instance id adds a static member instead of UNKNOWN_SERVER_ERROR", []string{"A6.1/pending-with-instance"}},
	{MutPendingHeartbeatAccepted, "pending-heartbeat-accepted", "KIP-394 A6.1", "a classic Heartbeat naming a pending id is answered as a member's", []string{"A6.1/pending-not-member"}},
	{MutStaticMemberIDRequired, "static-member-id-required", "static A6.2", "a new static member at JoinGroup v4+ gets MEMBER_ID_REQUIRED and a pending id like a dynamic one", []string{"A6.2/new-static-member"}},
	{MutReplacedCompletingNoRebalance, "replaced-completing-no-rebalance", "static A6.2", "a static replacement in CompletingRebalance is served as in Stable, with no rebalance", []string{"A6.2/replaced-completing"}},
	{MutOldRequestDropped, "old-request-dropped", "static A6.2", "a replaced member's waiting JoinGroup or SyncGroup is never answered", []string{"A6.2/old-request-fenced"}},
	{MutClassicLeaveEmptyUnknownNone, "classic-leave-empty-unknown-none", "LeaveGroup A6.3", "a classic LeaveGroup entry {\"\", null or unknown instance} is answered NONE", []string{"A6.3/empty-unknown"}},
	{MutClassicLeaveUnknownInstanceByID, "classic-leave-unknown-instance-by-id", "LeaveGroup A6.3", "a classic LeaveGroup entry {a member's id, an instance nobody holds} removes the member", []string{"A6.3/unknown-instance"}},
	{MutClassicLeaveUnknownMemberNone, "classic-leave-unknown-member-none", "LeaveGroup A6.3", "a classic LeaveGroup entry {not a member, null} is answered NONE", []string{"A6.3/unknown-member"}},
	{MutClassicLeaveStaticByIDFenced, "classic-leave-static-by-id-fenced", "LeaveGroup A6.3", "a classic LeaveGroup entry {a static member's id, null} is FENCED_INSTANCE_ID and the member stays", []string{"A6.3/member-removed"}},
	{MutRemovedSyncAnswered, "removed-sync-answered", "LeaveGroup A6.3", "a removed member's waiting SyncGroup is answered UNKNOWN_MEMBER_ID instead of dropped", []string{"A6.3/removed-sync-unanswered"}},
	{MutClassicLeaveNoRebalance, "classic-leave-no-rebalance", "LeaveGroup A6.3", "a LeaveGroup removing a member of a Stable or CompletingRebalance group starts no rebalance", []string{"A6.3/leave-rebalances"}},
	{MutClassicLeaveNoCompletion, "classic-leave-no-completion", "LeaveGroup A6.3", "a LeaveGroup in PreparingRebalance leaving every member waiting does not complete the join phase", []string{"A6.3/leave-completes-join"}},
	{MutClassicEmptyGroupIDServed, "classic-empty-group-id-served", "validation B8.4", "a JoinGroup with GroupId \"\" is served, making a group \"\", instead of INVALID_GROUP_ID", []string{"B8.4/invalid-group-id"}},
	{MutMissingGroupJoinCreates, "missing-group-join-creates", "join phase B8.6", "a JoinGroup naming a member of a missing group makes the group before answering UNKNOWN_MEMBER_ID", []string{"B8.6/missing-group-unknown-member"}},
	{MutPreparingJoinKeepsProtocols, "preparing-join-keeps-protocols", "join phase B8.6", "a member's JoinGroup in PreparingRebalance keeps its old protocols", []string{"B8.6/existing-preparing"}},
	{MutCompletingChangedAnswered, "completing-changed-answered", "join phase B8.6", "a rejoin with changed protocols in CompletingRebalance gets the current generation, no rebalance", []string{"B8.6/existing-completing-changed"}},
	{MutProtocolsComparedByName, "protocols-compared-by-name", "join phase B8.6", "a follower's rejoin in Stable compares protocol names only: changed metadata starts no rebalance", []string{"B8.6/stable-follower-changed"}},
	{MutFollowerSameRebalances, "follower-same-rebalances", "join phase B8.6", "a follower's unchanged rejoin in Stable starts a rebalance", []string{"B8.6/stable-follower-same"}},
	{MutSecondJoinRefused, "second-join-refused", "join phase B8.6", "a member's second JoinGroup is answered NOT_COORDINATOR while its first keeps waiting", []string{"B8.6/join-replaced"}},
	{MutSupersededDropped, "superseded-dropped", "join phase A6.5", "a member's superseded waiting JoinGroup is dropped instead of answered NOT_COORDINATOR", []string{"A6.5/superseded-not-coordinator"}},
	{MutNewMemberSessionTimeout, "new-member-session-timeout", "timers B8.10", "a new member's join timeout is its session timeout, not the new-member timeout", []string{"B8.10/new-member-expired"}},
	{MutNewMemberNoRebalance, "new-member-no-rebalance", "join phase B8.6", "a new member added to a Stable or CompletingRebalance group starts no rebalance: its join waits", []string{"B8.6/new-member-added"}},
	{MutReplacedIDNotAwaited, "replaced-id-not-awaited", "timers B8.10", "an id a static replacement replaced before it synced is not awaited: the sync timer does not rebalance", []string{"B8.10/sync-expired-replaced-id"}},
	{MutMemberUnknownInstanceFenced, "member-unknown-instance-fenced", "member check B8.4", "a classic request naming an instance nobody holds is FENCED_INSTANCE_ID", []string{"B8.4/member-unknown-instance"}},
	{MutLeaderGreatestID, "leader-greatest-id", "leader A6.5", "a removed leader is succeeded by the greatest member id", []string{"A6.5/leader-smallest-id"}},
	{MutMemberIDNoDash, "member-id-no-dash", "member ids A6.5", "a classic member id is the prefix and the UUID without the dash between", []string{"A6.5/member-id-made"}},
	{MutRebalanceKeepsSyncsWaiting, "rebalance-keeps-syncs-waiting", "join phase B8.7", "a rebalance from CompletingRebalance leaves the waiting SyncGroups unanswered", []string{"B8.7/rebalance-started"}},
	{MutInitialDelayEarly, "initial-delay-early", "timers B8.7", "the first rebalance's delay fires a millisecond early", []string{"B8.7/first-rebalance-started"}},
	{MutInitialDelayLate, "initial-delay-late", "timers B8.7", "the first rebalance's delay fires a millisecond late", []string{"B8.7/first-rebalance-started"}},
	{MutJoinTimerEarly, "join-timer-early", "timers B8.7", "the join phase's timer is armed a millisecond short of the rebalance timeout", []string{"B8.7/completed-by-timer"}},
	{MutJoinWaitsForTimer, "join-waits-for-timer", "join phase B8.7", "a join phase every member joined waits for its timer instead of completing at once", []string{"B8.7/completed-all-joined"}},
	{MutDynamicKeptNotRejoined, "dynamic-kept-not-rejoined", "join phase B8.7", "a dynamic member that did not rejoin stays in the new generation", []string{"B8.7/dynamic-removed-not-rejoined"}},
	{MutNobodyRejoinedNewGeneration, "nobody-rejoined-new-generation", "join phase B8.7", "a join phase nobody rejoined completes with a new generation", []string{"B8.7/nobody-rejoined"}},
	{MutEmptyGenerationKept, "empty-generation-kept", "join phase B8.7", "a join phase completing with no member keeps the generation", []string{"B8.7/generation-empty"}},
	{MutSyncTimerNotStarted, "sync-timer-not-started", "timers B8.7", "a completed join phase starts no sync timer: a member that never syncs stays", []string{"B8.7/generation-completing"}},
	{MutSyncNullProtocolAccepted, "sync-null-protocol-accepted", "validation B8.4", "SyncGroup v5 with a null protocol type or name is served", []string{"B8.4/sync-null-protocol"}},
	{MutSyncMissingGroupNotFound, "sync-missing-group-not-found", "SyncGroup B8.8", "a SyncGroup to a missing group is GROUP_ID_NOT_FOUND, not UNKNOWN_MEMBER_ID", []string{"B8.8/unknown-group"}},
	{MutSyncGenerationUnchecked, "sync-generation-unchecked", "SyncGroup B8.8", "a SyncGroup at another generation is served", []string{"B8.8/illegal-generation"}},
	{MutSyncProtocolNameUnchecked, "sync-protocol-name-unchecked", "SyncGroup B8.8", "a SyncGroup naming another protocol is served", []string{"B8.8/inconsistent-protocol"}},
	{MutSyncRebalancingAnswered, "sync-rebalancing-answered", "SyncGroup B8.8", "a SyncGroup in PreparingRebalance gets the member's assignment instead of REBALANCE_IN_PROGRESS", []string{"B8.8/rebalancing"}},
	{MutFollowerSyncNotHeld, "follower-sync-not-held", "SyncGroup B8.8", "a follower's SyncGroup in CompletingRebalance is answered at once with no assignment", []string{"B8.8/follower-waits"}},
	{MutStableSyncEmpty, "stable-sync-empty", "SyncGroup B8.8", "a SyncGroup in Stable is answered an empty assignment", []string{"B8.8/stable-current"}},
	{MutLeaderSyncAnswersFirst, "leader-sync-answers-first", "SyncGroup B8.8", "the leader's SyncGroup answers the waiting followers before it stores their assignments", []string{"B8.8/leader-assigns"}},
	{MutHeartbeatMissingGroupNotFound, "heartbeat-missing-group-not-found", "Heartbeat B8.9", "a Heartbeat to a missing group is GROUP_ID_NOT_FOUND, not UNKNOWN_MEMBER_ID", []string{"B8.9/unknown-group"}},
	{MutUnknownMemberIllegalGeneration, "unknown-member-illegal-generation", "member check B8.4", "a Heartbeat from an unknown member at another generation is ILLEGAL_GENERATION", []string{"B8.4/member-unknown"}},
	{MutHeartbeatCompletingRebalancing, "heartbeat-completing-rebalancing", "Heartbeat B8.9", "a Heartbeat in CompletingRebalance is REBALANCE_IN_PROGRESS, not NONE", []string{"B8.9/ok"}},
	{MutSessionExpiresWhileWaiting, "session-expires-while-waiting", "timers B8.10", "a member whose JoinGroup or SyncGroup waits is removed when its session fires", []string{"B8.10/session-kept-waiting"}},
	{MutExpiryNoRebalance, "expiry-no-rebalance", "timers B8.10", "a session expiry in Stable or CompletingRebalance starts no rebalance", []string{"B8.10/expiry-rebalances"}},
	{MutExpiryNoCompletion, "expiry-no-completion", "timers B8.10", "a session expiry in PreparingRebalance leaving every member waiting does not complete the phase", []string{"B8.10/expiry-completes-join"}},
	{MutInitialDelayNotExtended, "initial-delay-not-extended", "timers B8.7", "the first rebalance's delay is never extended for members that came", []string{"B8.7/first-rebalance-extended"}},
	{MutDescribeNotFoundFromV7, "describe-not-found-from-v7", "DescribeGroups B8.13", "DescribeGroups v6 of a missing group is NONE, Dead (the gate at v7)", []string{"B8.13/not-found-v6"}},
	{MutDescribeNotFoundFromV5, "describe-not-found-from-v5", "DescribeGroups B8.13", "DescribeGroups v5 of a missing group is GROUP_ID_NOT_FOUND (the gate at v5)", []string{"B8.13/dead-v0-v5"}},
	{MutDescribeStableNoMetadata, "describe-stable-no-metadata", "DescribeGroups B8.13", "DescribeGroups of a Stable group lists its members without metadata", []string{"B8.13/described-stable"}},
	{MutDescribeCompletingMetadata, "describe-completing-metadata", "DescribeGroups B8.13", "DescribeGroups of a CompletingRebalance group lists the members' metadata", []string{"B8.13/described-other"}},
	{MutRestartDropsWaiting, "restart-drops-waiting", "restart B8.14", "a restart drops the waiting JoinGroups and SyncGroups instead of answering NOT_COORDINATOR", []string{"B8.14/waiting-not-coordinator"}},
	{MutProtocolTypeUnchecked, "protocol-type-unchecked", "join phase B8.6", "a JoinGroup of another protocol type is accepted when it lists a protocol every member lists", []string{"B8.6/inconsistent-protocol"}},
	{MutReplacedPreparingAnswered, "replaced-preparing-answered", "static A6.2", "a static replacement in PreparingRebalance is answered the current generation at once instead of waiting", []string{"A6.2/replaced-preparing"}},
	{MutClassicGroupStartsAtOne, "classic-group-starts-at-one", "join phase B8.6", "a classic group is made at generation 1, not 0", []string{"B8.6/group-created"}},
	{MutClassicGroupUnknownMember, "classic-group-unknown-member", "group kinds A6.4", "a ConsumerGroupHeartbeat at a member epoch to a classic group is UNKNOWN_MEMBER_ID, not GROUP_ID_NOT_FOUND", []string{"A6.4/heartbeat-classic-not-found"}},
	{MutDescribeConsumerGroupEmpty, "describe-consumer-group-empty", "group kinds A6.4", "DescribeGroups of a consumer group answers an Empty classic group", []string{"A6.4/describe-consumer-group"}},
	{MutProtocolChangeReplacedAnswered, "protocol-change-replaced-answered", "static A6.2", "a static replacement in Stable that changes the selected protocol is answered at once, with no rebalance", []string{"A6.2/replaced-protocol-changes"}},
	{MutProtocolTieLargest, "protocol-tie-largest", "protocol A6.5", "of the protocols with the most votes the largest name is selected", []string{"A6.5/protocol-tie"}},
	{MutStableLeaderRejoinAnswered, "stable-leader-rejoin-answered", "join phase B8.6", "the leader's rejoin in Stable is answered the current generation and the members, no rebalance", []string{"B8.6/stable-leader-rejoins"}},
	{MutSecondSyncRefused, "second-sync-refused", "SyncGroup B8.8", "a member's second SyncGroup is answered NOT_COORDINATOR while its first keeps waiting", []string{"B8.8/sync-replaced"}},
	{MutMissingAssignmentKept, "missing-assignment-kept", "SyncGroup B8.8", "a member the leader's SyncGroup gives no entry keeps its previous assignment", []string{"B8.8/missing-assignment-empty"}},
	{MutConsumerMemberIllegalGeneration, "consumer-member-illegal-generation", "group kinds A6.4", "a classic Heartbeat or SyncGroup naming a consumer-protocol member is ILLEGAL_GENERATION, not UNKNOWN_MEMBER_ID", []string{"A6.4/sync-consumer-group", "A6.4/heartbeat-consumer-group"}},
	{MutHeldConnectionRead, "held-connection-read", "connections B8.5", "a request behind a waiting JoinGroup or SyncGroup on its connection is served at once", []string{"B8.5/connection-held"}},
	{MutJoinMixedAnswered, "join-mixed-answered", "group kinds A6.4", "a JoinGroup to a consumer group with members, outside mixed groups, is answered INCONSISTENT_GROUP_PROTOCOL instead of closing the connection", []string{"A6.4/join-mixed-refused"}},
	{MutEmptyConsumerGroupKept, "empty-consumer-group-kept", "group kinds A6.4", "a JoinGroup with no member id to an Empty consumer group is INCONSISTENT_GROUP_PROTOCOL; the consumer group stays", []string{"A6.4/join-replaces-consumer-group"}},
	{MutUpgradeRefusedAnswered, "upgrade-refused-answered", "group kinds A6.4", "a ConsumerGroupHeartbeat join to a classic group with members, outside mixed groups, is answered GROUP_ID_NOT_FOUND instead of closing the connection", []string{"A6.4/upgrade-refused"}},
	{MutEmptyClassicGroupKept, "empty-classic-group-kept", "group kinds A6.4", "a ConsumerGroupHeartbeat join to an Empty classic group is GROUP_ID_NOT_FOUND; the classic group stays", []string{"A6.4/heartbeat-replaces-classic-group"}},
	{MutV0RebalanceTimeoutDefault, "v0-rebalance-timeout-default", "validation B8.4", "a JoinGroup v0's rebalance timeout is the decoded field's default, -1, instead of its session timeout", []string{"B8.4/v0-rebalance-timeout"}},
}

// MutantInfo names and describes one mutant.
type MutantInfo struct {
	Mutant Mutant
	Name   string
	// Rule is the family and the docs/PROTOCOL.md section the mutant
	// breaks, e.g. "LeaveGroup A3 row 6".
	Rule        string
	Description string
	// Classic marks a mutant of the classic group protocol: the kill
	// table (internal/targets) runs it on classic plans.
	Classic bool
	// Breaks are the clauses of docs/PROTOCOL.md the mutant breaks, by
	// the ids the reference model counts them under (model.Clauses).
	Breaks []string
}

// AllMutants lists every mutant with its name, rule and a one-line
// description.
func AllMutants() []MutantInfo {
	out := make([]MutantInfo, 0, len(mutantInfo))
	for _, m := range consumerMutantInfo {
		out = append(out, MutantInfo{m.m, m.name, m.rule, m.desc, false, slices.Clone(m.breaks)})
	}
	for _, m := range classicMutantInfo {
		out = append(out, MutantInfo{m.m, m.name, m.rule, m.desc, true, slices.Clone(m.breaks)})
	}
	return out
}

// namedMutants are every mutant that has a name: AllMutants' and the
// mixed groups' (mutants_mixed.go).
var namedMutants = slices.Concat(mutantInfo, mixedMutantInfo)

// ParseMutant finds a mutant by name.
func ParseMutant(name string) (Mutant, error) {
	for _, m := range namedMutants {
		if m.name == name {
			return m.m, nil
		}
	}
	names := make([]string, len(namedMutants))
	for i, m := range namedMutants {
		names[i] = m.name
	}
	return 0, fmt.Errorf("impl: unknown mutant %q (known: %s)", name, strings.Join(names, ", "))
}

// String is the mutant's name.
func (m Mutant) String() string {
	for _, i := range namedMutants {
		if i.m == m {
			return i.name
		}
	}
	return fmt.Sprintf("Mutant(%#x)", uint64(m))
}

// With returns the set plus m.
func (s Mutants) With(m Mutant) Mutants {
	s.bits[m>>6] |= 1 << (m & 63)
	return s
}

// Has reports whether m is in the set.
func (s Mutants) Has(m Mutant) bool { return s.bits[m>>6]&(1<<(m&63)) != 0 }

// Any reports whether the set holds a mutant.
func (s Mutants) Any() bool { return s != Mutants{} }

// String lists the set's names, comma-separated.
func (s Mutants) String() string {
	var names []string
	for _, i := range namedMutants {
		if s.Has(i.m) {
			names = append(names, i.name)
		}
	}
	return strings.Join(names, ",")
}
