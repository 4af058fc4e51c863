package impl

import (
	"fmt"
	"strings"
)

// Mutant is one deliberately wrong behaviour, planted so that tests can
// show a checker catches it. Each is named after the bug it plants.
type Mutant uint32

// Mutants is a set of mutants; the zero value (none) is the only one for
// real use.
type Mutants uint32

// The mutants. Each costs nothing when off: none is tested on the steady
// heartbeat path.
const (
	// MutV1EmptyMemberID: the broker makes a member id at v1 when it is
	// empty, instead of answering INVALID_REQUEST (KIP-1082 undone).
	MutV1EmptyMemberID Mutant = 1 << iota
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
	mutEnd
)

// mutantInfo names each mutant, says which rule of docs/PROTOCOL.md it
// breaks (the family first: validation, epochs, reconciliation, timers,
// static membership, LeaveGroup, KIP-1313 context, telemetry) and what it
// does.
var mutantInfo = []struct {
	m                Mutant
	name, rule, desc string
}{
	{MutV1EmptyMemberID, "v1-empty-member-id", "validation A1", "the broker makes a member id at ConsumerGroupHeartbeat v1 when it is empty"},
	{MutRetriedJoinNewMember, "retried-join-new-member", "member ids A1", "a retried join (epoch 0, known member id) creates a second member"},
	{MutLeaveUnknownIgnored, "leave-unknown-ignored", "leave B4.4", "a leave with an unknown member id is answered NONE and ignored while the real member stays"},
	{MutParkedNeverExpires, "parked-never-expires", "static B4.4", "a static member parked at epoch -2 never expires"},
	{MutErrorRefreshesSession, "error-refreshes-session", "timers B4.4", "an error response to a known member refreshes its session"},
	{MutZeroInstanceIDAccepted, "zero-instance-id-accepted", "telemetry A2", "the zero UUID is accepted as a client instance id"},
	{MutEarlyHandoff, "early-handoff", "reconciliation A5.3", "a partition is handed to a new owner before the old one revoked it"},
	{MutRestartKeepsDeadlines, "restart-keeps-deadlines", "timers B4.4", "a coordinator restart keeps the old session and rebalance deadlines instead of starting them afresh"},
	{MutStaticRestartRebalances, "static-restart-rebalances", "static A5.5", "a static restart (a new member id taking over a parked instance) bumps the group epoch and recomputes the target: a rebalance"},
	{MutJoinNullPartitionsAccepted, "join-null-partitions-accepted", "validation B4.2", "a join with TopicPartitions null is accepted as if it were empty"},
	{MutPrevEpochWithoutOwned, "prev-epoch-without-owned", "epochs A5.4", "the epoch check accepts the previous epoch from a heartbeat with TopicPartitions null"},
	{MutNullOwnedReleases, "null-owned-releases", "reconciliation A5.3", "TopicPartitions null (unchanged) is read as empty and releases every pending revocation"},
	{MutRegexNotFullRequest, "regex-not-full-request", "reconciliation A5.7", "a full heartbeat subscribed by regex alone is not a full request: its response lacks the assignment"},
	{MutSessionExpiryLate, "session-expiry-late", "timers B4.4", "a session expires only after its deadline, not at it (off by one)"},
	{MutStaticLeaveRefreshesSession, "static-leave-refreshes-session", "static B4.4", "a static leave at -2 re-arms the parked member's session"},
	{MutTakeoverKeysByMemberID, "takeover-keys-by-member-id", "static A5.2", "the assignor sorts static members by member id, so a takeover moves other members' targets"},
	{MutParkKeepsPending, "park-keeps-pending", "static B4.4", "parking at -2 keeps pending revocations and the rebalance timer"},
	{MutLeaveGroupMemberIDUnknown, "leavegroup-member-id-unknown", "LeaveGroup A3 row 3", "a LeaveGroup entry {member id, null} is UNKNOWN_MEMBER_ID and the member stays (Kafka 3.x)"},
	{MutLeaveGroupFencedRemoves, "leavegroup-fenced-removes", "LeaveGroup A3 row 6", "a LeaveGroup entry {another member id, held instance} removes the holder instead of FENCED_INSTANCE_ID"},
	{MutLeaveGroupBumpPerMember, "leavegroup-bump-per-member", "LeaveGroup A3.2", "a LeaveGroup moves the group epoch once per member removed"},
	{MutConnContextKept, "conn-context-kept", "KIP-1313 A2", "a closed connection's first ClientId is not forgotten: a new connection with its id inherits it"},
	{MutLaterClientIDIgnored, "later-clientid-ignored", "KIP-1313 A2", "a later request that sends a ClientId is attributed to the connection's first"},
	{MutPushV1ZeroAccepted, "push-v1-zero-accepted", "telemetry A2", "PushTelemetry v1 accepts the zero UUID as the header's client instance id"},
	{MutTelemetryOneAccepted, "telemetry-one-accepted", "telemetry B6", "the telemetry APIs accept the reserved client instance id 00...01"},
	{MutDescribeHidesParked, "describe-hides-parked", "Describe B7.2", "ConsumerGroupDescribe leaves out the members parked at epoch -2"},
}

// MutantInfo names and describes one mutant.
type MutantInfo struct {
	Mutant Mutant
	Name   string
	// Rule is the family and the docs/PROTOCOL.md section the mutant
	// breaks, e.g. "LeaveGroup A3 row 6".
	Rule        string
	Description string
}

// AllMutants lists every mutant with its name, rule and a one-line
// description.
func AllMutants() []MutantInfo {
	out := make([]MutantInfo, len(mutantInfo))
	for i, m := range mutantInfo {
		out[i] = MutantInfo{m.m, m.name, m.rule, m.desc}
	}
	return out
}

// ParseMutant finds a mutant by name.
func ParseMutant(name string) (Mutant, error) {
	for _, m := range mutantInfo {
		if m.name == name {
			return m.m, nil
		}
	}
	names := make([]string, len(mutantInfo))
	for i, m := range mutantInfo {
		names[i] = m.name
	}
	return 0, fmt.Errorf("impl: unknown mutant %q (known: %s)", name, strings.Join(names, ", "))
}

// String is the mutant's name.
func (m Mutant) String() string {
	for _, i := range mutantInfo {
		if i.m == m {
			return i.name
		}
	}
	return fmt.Sprintf("Mutant(%#x)", uint32(m))
}

// With returns the set plus m.
func (s Mutants) With(m Mutant) Mutants { return s | Mutants(m) }

// Has reports whether m is in the set.
func (s Mutants) Has(m Mutant) bool { return s&Mutants(m) != 0 }

// String lists the set's names, comma-separated.
func (s Mutants) String() string {
	var names []string
	for _, i := range mutantInfo {
		if s.Has(i.m) {
			names = append(names, i.name)
		}
	}
	return strings.Join(names, ",")
}
