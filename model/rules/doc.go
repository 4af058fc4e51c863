// Package rules is what ghostcheck judges runs and clients by: each Rule is
// a section of docs/PROTOCOL.md Part C with an id that reports and corpus
// files store. It holds
//
//   - what an observer knows (Observation: GroupSnapshot, MemberSnapshot,
//     Process; SnapshotFromDescribe for what ConsumerGroupDescribe shows,
//     SnapshotFromDescribeGroups for what DescribeGroups shows of classic
//     groups);
//   - the invariants every observation of a run must keep (NoGhosts,
//     OneMemberPerProcess, UniqueMemberIDs, NoZeroUUIDs,
//     NoDoubleClientAssignment, QuiescentMembership) and the trackers that
//     hold a sequence of observations (EpochTracker, MemberIDTracker,
//     StaticRestartTracker);
//   - the KIP-1313 header rule (CheckRequestHeader) and the client rules
//     judged on the traffic a recording proxy saw (CheckClients);
//   - the protocol's values every party shares: the member epochs with a
//     meaning of their own, the version from which a client makes its
//     member id, the reserved UUIDs, and the LeaveGroup downgrade a client
//     follows (PlanLeaveGroup);
//   - the registry of every rule a report can name (All, Meaning, Info,
//     Checker; registry.go), the rules judged outside this package among
//     them: Linearizability and HarnessAssumption (package check),
//     ObservableResponse and MemberVanished (its observable level),
//     DescribeAgrees (the driver).
//
// It imports only codec: the reference coordinator (package model), the
// reference client (model/client) and every checker import it.
package rules
