// Package plan holds what one run of ghostcheck does, written out before
// it starts: a Plan names the coordinator's configuration, the client
// processes (group, static or not, ConsumerGroupHeartbeat v1 or v0,
// topics, a seed for their UUIDs) and what each does in which round, the
// network faults on numbered requests, administrative removals, the
// prober's requests and coordinator restarts; groups of the classic
// protocol (JoinGroup, SyncGroup, Heartbeat) beside or instead of consumer
// groups (Options.Protocol). Every random choice is made
// here, from a seed (New) or from rapid (Draw), so a plan is the whole
// experiment and replays from its own content, on any later commit. The
// order of the draws is part of what a seed means: each feature is drawn
// after the ones before it (generate), so adding one keeps every seed's
// plan as it was, plus the new feature.
//
// The driver (package driver) runs a plan against a target; Shrink cuts a
// failing one down while it still fails.
//
// The files, and what each owns:
//
//   - plan.go: Plan, its clients (ClientPlan) and their actions (Action,
//     ActionKind), the topics, and what a plan says of itself: the model
//     configuration its coordinator must have, its groups, a summary.
//   - options.go: Options, what a generator draws, and DefaultOptions.
//   - draw.go: New and Draw, and generate, the order of every draw.
//   - clients.go: the client processes' lives (joins, leaves, crashes,
//     resets, telemetry), static restarts and crashes, resubscriptions,
//     old-style and renamed clients, null owned partitions, and the rare
//     inputs (racks, a named assignor, authorized operations).
//   - faults.go: the network's faults (FaultKind, Fault), their rates
//     (ParseFaultRates, UniformFaults, OnlyFault) and how they are drawn.
//   - admin.go: administrative removals (AdminRemoval) and the LeaveGroup
//     entries that reach every row of A3's table (LeaveEntry, LeaveName).
//   - probes.go: the prober's requests (Probe, ProbeKind): the identity,
//     refusal and assignment probes.
//   - brokers.go: the coordinator as a plan plays it: restarts, an older
//     or smaller broker's caps, timeouts off the round grid.
//   - cluster.go: the faults of a cluster (ClusterFaultKind,
//     ClusterFault, Cluster: what a target can play), drawn for a target
//     that plays them.
//   - realtime.go: ForRealTime, a plan sized for a broker over TCP
//     (RealTime), without what only ghostcheck's own coordinators can play.
//   - classic.go: classic groups (Protocol, ClassicClient): a classic
//     client's JoinGroup cap and timeouts, the first rebalance's delay, a
//     Kafka 2.2 broker, two processes of one instance id, the KIP-394
//     control (JoinGroup v3).
//   - migration.go: the upgrade and rollback plans (ProtocolUpgrade,
//     ProtocolRollback): processes restarted one at a time with the other
//     protocol, under MigrationPolicy bidirectional.
//   - migration_probes.go: the prober's odd requests of a fleet in
//     mid-migration (ProbeMixedOddRequest), drawn last in some migration
//     plans, and the Kafka Connect worker one of them plays.
//   - validate.go: Validate, for plans read from files.
//   - shrink.go: Shrink and a plan's Size.
//
// Tests: draw_test.go (the later draws keep every seed's plan; plans reach
// every feature), faults_test.go (the --faults grammar of run and check),
// classic_test.go (classic and mixed plans keep the seeds' plans, replay,
// validate, reach every classic draw, and shrink), migration_probes_test.go
// (the migration plans' odd requests: drawn in them alone, every variant).
package plan
