package impl

import "slices"

// The mixed groups' planted bugs (docs/PROTOCOL.md A7). They take the
// top indexes of a Mutants, so that the consumer and classic lists (mutants.go) grow
// without meeting them, and they are listed apart (MixedMutants), not in
// AllMutants: the equivalence property's mixed mode catches each
// (TestMixedMutantsAreCaught), and so does the run on the plans of
// `--protocol upgrade` (the kill table, internal/targets.RunMutants), while
// the explorer and the conformance tables, which run AllMutants on groups
// of one protocol, cannot.
const (
	// MutUpgradeDropsLastMember: the upgrade leaves the classic member
	// with the greatest id out of the consumer group it makes (A7.4): a
	// member lost by the conversion, its process still polling.
	MutUpgradeDropsLastMember Mutant = 255 - iota
	// MutDowngradeNoRebalance: the downgrade after the last
	// consumer-protocol member's removal does not rebalance (A7.5): the
	// classic members keep assignments nobody computed for them.
	MutDowngradeNoRebalance
	// MutClassicHeartbeatNoRejoin: a classic member's Heartbeat is
	// answered NONE while the group epoch is past its epoch (A7.2): it
	// never learns its new assignment.
	MutClassicHeartbeatNoRejoin
	// MutClassicSessionGroupTimeout: a classic member of a consumer group
	// gets the consumer protocol's session timeout, not its JoinGroup's
	// (A7.1).
	MutClassicSessionGroupTimeout
	// MutSyncHandsPending: a classic member's SyncGroup hands it the
	// partitions it must revoke too (A7.2): a partition with two owners.
	MutSyncHandsPending
	// MutDowngradeGenerationReset: the downgrade starts the classic group
	// at generation 0, not at the consumer group's epoch (A7.5): the
	// generations it then hands out repeat epochs its members already
	// held, so a zombie's offset commit at an old generation may pass
	// again.
	MutDowngradeGenerationReset
	// MutClassicJoinClassicStyleID: a JoinGroup with MemberId "" to a
	// consumer group gets a classic group's member id (the client id, a
	// dash and a UUID, A6.5) instead of a bare UUID (A7.1): the id is made
	// by the classic path's maker.
	MutClassicJoinClassicStyleID
	// MutClassicJoinMaxSizeOffByOne: the size cap of a classic JoinGroup
	// to a consumer group refuses a new member only above
	// group.consumer.max.size, not at it (> for >=, A7.1).
	MutClassicJoinMaxSizeOffByOne
	// MutClassicJoinNoMemberIDRequired: a dynamic JoinGroup v4+ with
	// MemberId "" to a consumer group is added at once, as below v4,
	// instead of MEMBER_ID_REQUIRED (A7.1: KIP-394 left out of the mixed
	// path), so a lost answer leaves a member nobody owns.
	MutClassicJoinNoMemberIDRequired
	// MutClassicUnknownInstanceJoins: a static JoinGroup with a member id
	// and an instance nobody holds joins as a new member instead of
	// UNKNOWN_MEMBER_ID (A7.1).
	MutClassicUnknownInstanceJoins
	// MutClassicStaticReplacementBumps: a static classic member replacing
	// its instance's holder in a consumer group moves the group epoch on,
	// a rebalance A7.1's replacement by a copy does not cause.
	MutClassicStaticReplacementBumps
	// MutClassicMemberJoinedNoBump: a new classic member of a consumer
	// group moves no group epoch (A7.1), so it gets no partitions until
	// something else rebalances.
	MutClassicMemberJoinedNoBump
	// MutClassicSubscriptionChangeNoBump: a classic member's rejoin with
	// other topics moves no group epoch (A7.1): its new topics are not
	// assigned.
	MutClassicSubscriptionChangeNoBump
	// MutClassicJoinTimerIgnored: a classic member's join timer, when it
	// fires, removes nobody (A7.1): a member that never rejoins keeps its
	// partitions.
	MutClassicJoinTimerIgnored
	// MutClassicSyncTimerIgnored: a classic member's sync timer, when it
	// fires, removes nobody (A7.1): a member that never syncs keeps its
	// partitions.
	MutClassicSyncTimerIgnored
	// MutRestartKeepsClassicTimers: a restart keeps the classic members'
	// join and sync timers, which are not persisted, instead of dropping
	// them (A7.1): a member is removed after the restart by a timer the
	// reloaded group does not have.
	MutRestartKeepsClassicTimers
	// MutClassicSyncIgnoresEpoch: a classic member's SyncGroup while the
	// group epoch is past its own gets its assignment instead of
	// REBALANCE_IN_PROGRESS (A7.2): it never rejoins for its new one.
	MutClassicSyncIgnoresEpoch
	// MutClassicHeartbeatNoSession: a classic member's Heartbeat answered
	// NONE does not start its session again (A7.2): a member that only
	// heartbeats expires.
	MutClassicHeartbeatNoSession
	// MutClassicHolderUnreleased: a ConsumerGroupHeartbeat static join
	// naming an instance a classic member holds is UNRELEASED_INSTANCE_ID,
	// as for a consumer-protocol holder, instead of replacing it at once
	// (A7.3): an upgraded process waits for its old session to run out.
	MutClassicHolderUnreleased
	// MutUpgradeWaitingUnknown: the upgrade answers the waiting JoinGroups
	// and SyncGroups UNKNOWN_MEMBER_ID instead of REBALANCE_IN_PROGRESS
	// (A7.4): their members rejoin as new ones, under new ids.
	MutUpgradeWaitingUnknown
	// MutUpgradeEmptyAssignmentRead: the upgrade reads an assignment of no
	// bytes (a member that has not synced) as no partitions instead of
	// failing (A7.4): the group converts with members nobody assigned.
	MutUpgradeEmptyAssignmentRead
	// MutClassicJoinProtocolTypeUnchecked: a classic JoinGroup to a
	// consumer group is checked for a protocol every classic member lists
	// but not for the protocol type "consumer" (A7.1): a Kafka Connect
	// worker sharing the group id is taken for a consumer.
	MutClassicJoinProtocolTypeUnchecked
	// MutClassicJoinUndecodableAsEmpty: a classic JoinGroup to a
	// consumer group whose metadata does not read as a
	// ConsumerProtocolSubscription joins with an empty subscription instead
	// of UNKNOWN_SERVER_ERROR (A7.1): the decode error dropped, a member
	// of a broken build holds a place in the group.
	MutClassicJoinUndecodableAsEmpty
	// MutClassicSyncProtocolNameUnchecked: a classic member's SyncGroup
	// is checked for the protocol type but not the protocol name (A7.2):
	// a member handed an assignment for an assignor it did not join with.
	MutClassicSyncProtocolNameUnchecked
	// MutUpgradeIgnoresProtocolType: the upgrade checks the policy and
	// the size but not that the classic group uses the consumer protocol
	// type (A7.4): a ConsumerGroupHeartbeat join starts converting a
	// Connect group, answering its waiting requests.
	MutUpgradeIgnoresProtocolType
	// MutClassicJoinFencedAsUnknown: a static classic JoinGroup to a
	// consumer group naming an instance another member id holds is
	// UNKNOWN_MEMBER_ID instead of FENCED_INSTANCE_ID (A7.1): the zombie,
	// told to rejoin without an id, replaces the live member.
	MutClassicJoinFencedAsUnknown
	// MutClassicSyncGenerationUnchecked: a classic member's SyncGroup is
	// not checked against its member epoch (A7.2): a SyncGroup of an old
	// generation is served as the current one.
	MutClassicSyncGenerationUnchecked
	// MutClassicHeartbeatGenerationUnchecked: a classic member's
	// Heartbeat is not checked against its member epoch (A7.2): a zombie's
	// Heartbeat of an old generation keeps the member's session alive.
	MutClassicHeartbeatGenerationUnchecked
	// MutSwitchKeepsClassicState: a classic member's
	// ConsumerGroupHeartbeat leaves it a classic member (A7.3): its classic
	// Heartbeats, SyncGroups and timers still count after the switch.
	MutSwitchKeepsClassicState
)

// The consumer and classic lists end below the mixed mutants' indexes.
var _ [int(MutSwitchKeepsClassicState) - int(mutEnd)]struct{}

var mixedMutantInfo = []mutantEntry{
	{MutUpgradeDropsLastMember, "upgrade-drops-last-member", "upgrade A7.4", "the upgrade leaves the classic member with the greatest id out of the consumer group", []string{"A7.4/upgraded"}},
	{MutDowngradeNoRebalance, "downgrade-no-rebalance", "downgrade A7.5", "the downgrade after a removal does not rebalance", []string{"A7.5/downgraded"}},
	{MutClassicHeartbeatNoRejoin, "classic-heartbeat-no-rejoin", "classic members A7.2", "a classic member's Heartbeat is NONE while the group epoch is past its epoch", []string{"A7.2/heartbeat-rejoin"}},
	{MutClassicSessionGroupTimeout, "classic-session-group-timeout", "classic members A7.1", "a classic member of a consumer group gets the consumer session timeout, not its own", []string{"A7.1/joined"}},
	{MutSyncHandsPending, "sync-hands-pending", "classic members A7.2", "a classic member's SyncGroup hands it the partitions it must revoke too", []string{"A7.2/sync-assignment"}},
	{MutDowngradeGenerationReset, "downgrade-generation-reset", "downgrade A7.5", "the downgrade starts the classic group at generation 0, not at the group epoch", []string{"A7.5/downgraded"}},
	{MutClassicJoinClassicStyleID, "classic-join-classic-style-id", "classic members A7.1", "a JoinGroup with MemberId \"\" to a consumer group gets a classic-style member id, not a UUID", []string{"A7.1/member-id-made"}},
	{MutClassicJoinMaxSizeOffByOne, "classic-join-max-size-off-by-one", "classic members A7.1", "a classic JoinGroup to a full consumer group is refused only above the cap", []string{"A7.1/group-max-size"}},
	{MutClassicJoinNoMemberIDRequired, "classic-join-no-member-id-required", "classic members A7.1", "a dynamic JoinGroup v4+ with no member id to a consumer group is added at once", []string{"A7.1/member-id-required"}},
	{MutClassicUnknownInstanceJoins, "classic-unknown-instance-joins", "classic members A7.1", "a static JoinGroup with a member id and an instance nobody holds joins as a new member", []string{"A7.1/unknown-instance"}},
	{MutClassicStaticReplacementBumps, "classic-static-replacement-bumps", "classic members A7.1", "a static classic replacement in a consumer group moves the group epoch", []string{"A7.1/static-replaced"}},
	{MutClassicMemberJoinedNoBump, "classic-member-joined-no-bump", "classic members A7.1", "a new classic member of a consumer group moves no group epoch", []string{"A7.1/member-joined"}},
	{MutClassicSubscriptionChangeNoBump, "classic-subscription-change-no-bump", "classic members A7.1", "a classic member's rejoin with other topics moves no group epoch", []string{"A7.1/subscription-changed"}},
	{MutClassicJoinTimerIgnored, "classic-join-timer-ignored", "classic members A7.1", "a classic member's join timer removes nobody", []string{"A7.1/join-timer-removes"}},
	{MutClassicSyncTimerIgnored, "classic-sync-timer-ignored", "classic members A7.1", "a classic member's sync timer removes nobody", []string{"A7.1/sync-timer-removes"}},
	{MutRestartKeepsClassicTimers, "restart-keeps-classic-timers", "classic members A7.1", "a restart keeps the classic members' join and sync timers", []string{"A7.1/restart-classic-session"}},
	{MutClassicSyncIgnoresEpoch, "classic-sync-ignores-epoch", "classic members A7.2", "a classic member's SyncGroup behind the group epoch gets its assignment, not REBALANCE_IN_PROGRESS", []string{"A7.2/sync-rebalance-in-progress"}},
	{MutClassicHeartbeatNoSession, "classic-heartbeat-no-session", "classic members A7.2", "a classic member's Heartbeat answered NONE does not start its session again", []string{"A7.2/heartbeat-ok"}},
	{MutClassicHolderUnreleased, "classic-holder-unreleased", "protocol switch A7.3", "a ConsumerGroupHeartbeat static join naming a classic member's instance is UNRELEASED_INSTANCE_ID", []string{"A7.3/consumer-replaces-classic-static"}},
	{MutUpgradeWaitingUnknown, "upgrade-waiting-unknown", "upgrade A7.4", "the upgrade answers the waiting JoinGroups and SyncGroups UNKNOWN_MEMBER_ID", []string{"A7.4/waiting-answered"}},
	{MutUpgradeEmptyAssignmentRead, "upgrade-empty-assignment-read", "upgrade A7.4", "the upgrade reads a member's empty assignment as no partitions instead of failing", []string{"A7.4/upgrade-failed"}},
	{MutClassicJoinProtocolTypeUnchecked, "classic-join-protocol-type-unchecked", "classic members A7.1", "a classic JoinGroup to a consumer group of another protocol type is not refused", []string{"A7.1/inconsistent-protocol"}},
	{MutClassicJoinUndecodableAsEmpty, "classic-join-undecodable-as-empty", "classic members A7.1", "a classic JoinGroup whose metadata does not read joins with an empty subscription", []string{"A7.1/subscription-undecodable"}},
	{MutClassicSyncProtocolNameUnchecked, "classic-sync-protocol-name-unchecked", "classic members A7.2", "a classic member's SyncGroup naming another protocol is served", []string{"A7.2/sync-inconsistent-protocol"}},
	{MutUpgradeIgnoresProtocolType, "upgrade-ignores-protocol-type", "upgrade A7.4", "a ConsumerGroupHeartbeat join starts upgrading a classic group of another protocol type", []string{"A7.4/upgrade-refused"}},
	{MutClassicJoinFencedAsUnknown, "classic-join-fenced-as-unknown", "classic members A7.1", "a static classic JoinGroup naming another member's instance is UNKNOWN_MEMBER_ID, not FENCED_INSTANCE_ID", []string{"A7.1/fenced-instance"}},
	{MutClassicSyncGenerationUnchecked, "classic-sync-generation-unchecked", "classic members A7.2", "a classic member's SyncGroup at another generation than its epoch is served", []string{"A7.2/sync-illegal-generation"}},
	{MutClassicHeartbeatGenerationUnchecked, "classic-heartbeat-generation-unchecked", "classic members A7.2", "a classic member's Heartbeat at another generation than its epoch is served", []string{"A7.2/heartbeat-illegal-generation"}},
	{MutSwitchKeepsClassicState, "switch-keeps-classic-state", "protocol switch A7.3", "a classic member's ConsumerGroupHeartbeat leaves it a classic member", []string{"A7.3/classic-member-switches"}},
}

// MixedMutants lists the mixed groups' mutants with their names, rules and
// descriptions.
func MixedMutants() []MutantInfo {
	out := make([]MutantInfo, len(mixedMutantInfo))
	for i, m := range mixedMutantInfo {
		out[i] = MutantInfo{m.m, m.name, m.rule, m.desc, false, slices.Clone(m.breaks)}
	}
	return out
}
