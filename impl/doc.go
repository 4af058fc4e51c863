// Package impl is ghostcheck's optimized group coordinator. It answers the
// same requests with the same bytes as the reference model (package model)
// for the same operations and the same clock, and is built for throughput
// and memory:
//
//   - Sharding. Groups live in 256 read-mostly map shards (groups are
//     created once and never replaced, so a lookup holds a shard's read
//     lock only for the map access), and each group has its own mutex. Requests for one group are serialized by that mutex alone;
//     requests for different groups share no lock. Connection context and
//     telemetry state are sharded the same way.
//   - Heartbeats. A heartbeat of a known member at its current epoch is
//     O(1) and allocation-free on the fast path (HandleHeartbeat): a map
//     lookup by the member id's 16 bytes, an epoch check, and moving the
//     member to the tail of its group's session list.
//   - Timers. Session deadlines are now + SessionTimeoutMs with a clock that
//     never goes back, so a group's session list, kept in heartbeat order,
//     is also in deadline order: expiry pops from its head. Rebalance
//     deadlines vary per member and live in a per-group indexed min-heap.
//     Each shard of groups keeps a heap of (earliest deadline, group) that
//     is only pushed when a group's earliest deadline moves earlier, so a
//     steady heartbeat never touches it. Expiring k members costs
//     O(k log n) plus one target recomputation per group.
//   - Records. Members are fixed-size, pointer-free structs in a per-group
//     arena: ids in UUID form are kept as 16 bytes, other strings
//     (instance, rack, client id and host, subscriptions) are interned per
//     group with reference counts, and partition state lives in a side
//     record that only members owning or targeted by partitions have.
//   - Assignment. The uniform assignor is a function of each topic's
//     subscribers in assignment-key order (instance id of a static member,
//     member id of a dynamic one). Each topic keeps its subscribers in an
//     order-statistic list, so a recomputation is one select per partition
//     (O(P log n)), not a sort of the group. Partition ownership is an
//     array, so "owned by another member" is O(1).
//   - Classic groups (docs/PROTOCOL.md B8, A6) share the group record: a
//     group id's kind (consumer or classic) changes in place, under the
//     group's lock, when an empty group of one kind gives way to the
//     other. A classic Heartbeat is a map lookup and a store (its timer
//     entry moves only when it comes due); a group's classic timers are
//     one heap in the model's firing order. A classic JoinGroup or
//     SyncGroup that must wait is held: Handle returns ErrParked and the
//     answer comes through Released, as the model's (parked.go).
//   - Mixed groups (A7): a consumer group's classic members are members
//     like any, flagged, with their classic state and their three timers
//     (own session timeout, join, sync) in a side structure and a heap
//     of their own that only a group with classic members has; the
//     session list keeps its one timeout. Such a group fires its timers
//     one by one in the model's order (the last consumer-protocol
//     member's removal converts it). The upgrade and the downgrade
//     rebuild the group's state of the other kind in place.
//
// Timers fire only in Expire, never inside Handle, as the model's fire only
// in Advance. Deliberately wrong behaviours ("mutants", see Mutant) can be
// switched on in Config for testing the checkers; they are off unless set.
//
// The files, and what each owns:
//
//   - config.go: Config, Topic and TelemetryConfig, field for field
//     model.Config's.
//   - coordinator.go: Coordinator, Conn, New, Handle and its fast path
//     HandleHeartbeat, Expire over the shards' deadline heaps, the
//     connection contexts (KIP-1313's ClientId), ApiVersions.
//   - group.go: the group record (members, sides, subscriptions, status);
//     what is done to it lives by concern in the files below.
//   - members.go: member ids, the member and side arenas, removal; ids.go:
//     a member id kept as 16 bytes when it is a UUID; intern.go: the
//     reference-counted tables strings are interned in; fields.go: a
//     member's interned instance id, rack and client.
//   - heartbeat.go: ConsumerGroupHeartbeat: validation, join, heartbeat,
//     leave and static leave, a static member's takeover.
//   - subscriptions.go: subscriptions shared by members, and the topics a
//     name list or a regex resolves to.
//   - assignment.go: the uniform assignor and reconciliation (revoke before
//     hand-over); olist.go: the order-statistic list it selects from.
//   - timers.go: a group's session list and rebalance heap, and its expiry;
//     Timers, every member's deadlines.
//   - leavegroup.go: LeaveGroup, A3's table entry by entry.
//   - describe.go: ConsumerGroupDescribe.
//   - telemetry.go: GetTelemetrySubscriptions and PushTelemetry.
//   - restart.go: Restart, what a broker restart keeps and loses.
//   - snapshot.go: Snapshot and SnapshotCache, the state the checks compare.
//   - check.go: CheckInternal, the self-check of the bookkeeping tests run.
//   - clone.go: Clone and CopyTo, a deep copy on a clock and id source of
//     its own (the explorer steps copies).
//   - mutants.go: the planted bugs, Mutant and AllMutants;
//     mutants_mixed.go: the mixed groups', MixedMutants.
//   - parked.go: held requests: ErrParked, Release, Released, the
//     connection hold, an operation's answers (cop).
//   - classic_group.go: a classic group's record and the rules every
//     classic request shares (the member check, protocols, answers);
//     classic_join.go, classic_rebalance.go (the join phase),
//     classic_sync.go, classic_heartbeat.go, classic_leave.go,
//     classic_describe.go, classic_timers.go (its heap and expiry),
//     classic_restart.go (the reload from the record), classic_check.go
//     (its part of CheckInternal), classic_clone.go (its part of Clone and
//     CopyTo; ClassicTimers and Held, what the explorer compares).
//   - mixed.go: classic members of consumer groups (their JoinGroup,
//     SyncGroup and Heartbeat), the upgrade and the downgrade;
//     mixed_timers.go: their timers, expiry one by one, restart, clone,
//     self-check and MixedTimers.
package impl
