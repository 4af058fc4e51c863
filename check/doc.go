// Package check gives the verdict on a run (driver.Result) or on a
// recorded history: Ok, Illegal with the first rule broken, or Unknown
// when it cannot decide (never a pass). It checks the harness's own
// assumptions first (a broken one is a harness error, Unknown), then the
// invariants the driver observed during the run, then the history at one
// of two levels (docs/DESIGN.md):
//
//   - exact (LevelExact): the reference model's answers, byte for byte:
//     linearizability of the history against model.Coordinator, with
//     porcupine, partitioned by group; partitions whose operations never
//     overlap are replayed on the model without a search. A parked
//     operation (a classic JoinGroup or SyncGroup the coordinator held)
//     takes effect at its handling, where the model must hold it too, and
//     is answered at the step that released it (a later request, a tick
//     of the coordinator's timers or a closed connection, a restart),
//     where the model must release the same answers in the same order.
//     For the model, impl and any coordinator meant to answer as the
//     model does.
//   - observable (LevelObservable): only what the protocol promises a
//     client can see, for brokers ghostcheck did not write: each response
//     on its own (ObservableResponse), members leaving only by a leave, a
//     removal, a takeover or a timer (MemberVanished), and a static
//     takeover that is no rebalance (StaticRestartKeepsAssignment). The
//     classic protocol's JoinGroup, SyncGroup, Heartbeat and
//     DescribeGroups are not judged at this level yet (only their
//     LeaveGroups, by A6.3's rows).
//
// At LevelAuto a target that declared itself model-exact is held to the
// exact level, any other to the observable one.
//
// The files, and what each owns:
//
//   - check.go: Check, History, Options, Level, Report.
//   - assumptions.go: what the checker relies on in a history.
//   - exact.go: the exact level: the sequential replay of totally ordered
//     partitions, porcupine for the rest, and the first mismatch.
//   - partition.go: how a history is split into independent partitions
//     (Partition).
//   - porcupine.go: the porcupine model on model.Coordinator (PorcupineOps,
//     and TimelineModel for the report's timeline).
//   - replay.go: applying an operation to the model and comparing the
//     answers and the releases, with the ids the target made.
//   - releases.go: what a classic history's replay knows of the rest of
//     it: the operations by id, the connections that held parked requests
//     and what waited on them unread, the ids the target made for classic
//     JoinGroups.
//   - observable.go: the observable level: the walk of a history's events
//     in time, membership over time (MemberVanished); observable_ops.go,
//     what each API's responses must be and establish; observable_static.go,
//     StaticRestartKeepsAssignment; observable_classic.go, each classic
//     answer on its own (KIP-394's promise among them).
//
// Tests: check_test.go (the model passes; KIP-1082's ghosts; shrinking;
// tampered and broken histories), restart_test.go (restarts replayed and checked, the level
// from the target), observable_test.go and observable_hand_test.go (the
// observable level on runs and on hand-built histories), sweep_test.go
// (the observable level across many seeds), migration_sweep_test.go (the
// upgrade, rollback and mixed plans, the prober's mixed odd requests
// included, Ok across many seeds), replay_test.go (the
// comparisons and partitions), releases_test.go (classic histories judged
// exactly, by the replay and by the search; wrong releases caught; a
// classic history's file), rules_test.go (every rule reported is a
// declared one, rules.All), bench_test.go (the check's speed).
//
// The rules it reports besides the run's invariants are declared in
// package rules (rules.RuleLinearizability, RuleHarnessAssumption,
// RuleObservableResponse, RuleMemberVanished), with every other rule a
// report can name (rules.All).
package check
