package conformance

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
)

// A7.2's checks of a classic member's SyncGroup in a consumer group beyond
// its generation: the protocol it names, and the rebalance it must join
// before it is handed anything.

// casesMixedSync: A7.2's SyncGroup refusals.
func casesMixedSync() []Case {
	return []Case{
		{Name: "A7.2/sync-inconsistent-protocol", Source: srcKafka40Mixed, Rule: "a classic member's SyncGroup v5+ at its epoch naming another protocol than its join's: INCONSISTENT_GROUP_PROTOCOL; then naming its own: NONE", run: inSessions(caseMixedSyncInconsistentProtocol)},
		{Name: "A7.2/sync-rebalance-in-progress", Source: srcKafka40Mixed, Rule: "a classic member's SyncGroup at its epoch once the group epoch moved past it (another member joined) and it has nothing to revoke: REBALANCE_IN_PROGRESS, no assignment", run: inSessions(caseMixedSyncRebalanceInProgress)},
	}
}

func caseMixedSyncInconsistentProtocol(p *probe) verdict {
	p.needsMixed()
	if p.sv() < 5 {
		return skip("needs SyncGroup v5 (its protocol name, KIP-559); the broker offers " + p.offered(codec.SyncGroup))
	}
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", false)
	req := m.syncReq(nil)
	req.ProtocolName = codec.Str("roundrobin")
	s := m.c.do(codec.SyncGroup, p.sv(), req).(*codec.SyncGroupResponse)
	obs := fmt.Sprintf("joined with %s; SyncGroup naming roundrobin: %s", m.proto, s.ErrorCode)
	if s.ErrorCode != codec.InconsistentGroupProtocol {
		return fail(obs, "INCONSISTENT_GROUP_PROTOCOL")
	}
	again := m.mixedSync()
	obs += fmt.Sprintf("; naming %s: %s", m.proto, again.ErrorCode)
	return want(again.ErrorCode == codec.None, obs, fmt.Sprintf("INCONSISTENT_GROUP_PROTOCOL, then NONE naming %s", m.proto))
}

// caseMixedSyncRebalanceInProgress: a classic member joins (not synced);
// a second consumer-protocol member, subscribed to absentTopic, joins:
// the group epoch moves past the classic member's, whose target stays
// what it has (nothing to revoke), so its SyncGroup must send it back to
// JoinGroup.
func caseMixedSyncRebalanceInProgress(p *probe) verdict {
	p.needsMixed()
	c := p.consumerMember(p.id("g"))
	m := p.mixedMember(c, "", false)
	o := p.consumerMember(c.group)
	obs := fmt.Sprintf("the classic member joined at %d; another consumer member joined at epoch %d", m.gen, o.epoch)
	s := m.mixedSync()
	got, _ := assignedOf(s.Assignment)
	obs += fmt.Sprintf("; the classic member's SyncGroup at %d: %s %v", m.gen, s.ErrorCode, got)
	if o.epoch <= m.gen {
		// The join moved no epoch the client can see past the
		// classic member's: nothing to judge by.
		return skip(obs + ": the second member's epoch is not past the classic member's")
	}
	return want(s.ErrorCode == codec.RebalanceInProgress && len(got) == 0, obs, "REBALANCE_IN_PROGRESS and no assignment: the member must rejoin")
}
