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
	MutUpgradeDropsLastMember Mutant = 127 - iota
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
)

// The consumer and classic lists end below the mixed mutants' indexes.
var _ [int(MutDowngradeGenerationReset) - int(mutEnd)]struct{}

var mixedMutantInfo = []mutantEntry{
	{MutUpgradeDropsLastMember, "upgrade-drops-last-member", "upgrade A7.4", "the upgrade leaves the classic member with the greatest id out of the consumer group", []string{"A7.4/upgraded"}},
	{MutDowngradeNoRebalance, "downgrade-no-rebalance", "downgrade A7.5", "the downgrade after a removal does not rebalance", []string{"A7.5/downgraded"}},
	{MutClassicHeartbeatNoRejoin, "classic-heartbeat-no-rejoin", "classic members A7.2", "a classic member's Heartbeat is NONE while the group epoch is past its epoch", []string{"A7.2/heartbeat-rejoin"}},
	{MutClassicSessionGroupTimeout, "classic-session-group-timeout", "classic members A7.1", "a classic member of a consumer group gets the consumer session timeout, not its own", []string{"A7.1/joined"}},
	{MutSyncHandsPending, "sync-hands-pending", "classic members A7.2", "a classic member's SyncGroup hands it the partitions it must revoke too", []string{"A7.2/sync-assignment"}},
	{MutDowngradeGenerationReset, "downgrade-generation-reset", "downgrade A7.5", "the downgrade starts the classic group at generation 0, not at the group epoch", []string{"A7.5/downgraded"}},
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
