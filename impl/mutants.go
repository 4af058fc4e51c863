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
	mutEnd
)

var mutantInfo = []struct {
	m          Mutant
	name, desc string
}{
	{MutV1EmptyMemberID, "v1-empty-member-id", "the broker makes a member id at ConsumerGroupHeartbeat v1 when it is empty"},
	{MutRetriedJoinNewMember, "retried-join-new-member", "a retried join (epoch 0, known member id) creates a second member"},
	{MutLeaveUnknownIgnored, "leave-unknown-ignored", "a leave with an unknown member id is answered NONE and ignored while the real member stays"},
	{MutParkedNeverExpires, "parked-never-expires", "a static member parked at epoch -2 never expires"},
	{MutErrorRefreshesSession, "error-refreshes-session", "an error response to a known member refreshes its session"},
	{MutZeroInstanceIDAccepted, "zero-instance-id-accepted", "the zero UUID is accepted as a client instance id"},
	{MutEarlyHandoff, "early-handoff", "a partition is handed to a new owner before the old one revoked it"},
	{MutRestartKeepsDeadlines, "restart-keeps-deadlines", "a coordinator restart keeps the old session and rebalance deadlines instead of starting them afresh"},
	{MutStaticRestartRebalances, "static-restart-rebalances", "a static restart (a new member id taking over a parked instance) bumps the group epoch and recomputes the target: a rebalance"},
}

// MutantInfo names and describes one mutant.
type MutantInfo struct {
	Mutant      Mutant
	Name        string
	Description string
}

// AllMutants lists every mutant with its name and a one-line description.
func AllMutants() []MutantInfo {
	out := make([]MutantInfo, len(mutantInfo))
	for i, m := range mutantInfo {
		out[i] = MutantInfo{m.m, m.name, m.desc}
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
