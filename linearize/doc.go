// Package linearize runs client processes against a group coordinator under
// network faults, records what happened as a history, and checks it: the
// invariants on every observation during the run (no ghosts, no zero UUIDs,
// one member per process, no double ownership, epochs only forward), then
// the history at one of two levels (docs/DESIGN.md), the reference model's exact answers
// (linearizability with porcupine, partitioned by group) or only what the
// protocol promises a client can see.
//
// The files, and what each owns:
//
//   - target.go: the Target interface a coordinator under test satisfies
//     (with Snapshotter, Restarter and ModelExacter), the in-process
//     adapter for the model, and Funcs for adapting others.
//   - plan.go: a Plan, the complete, readable description of one run
//     (clients, what each does when, which requests fail how, admin
//     removals, probes, coordinator restarts), drawn up front from rapid
//     or from a seed, so a run replays exactly.
//   - shrink.go: Shrink, which cuts a failing plan down to a small one
//     that still fails.
//   - driver.go: Run, which executes a Plan against a Target on simulated
//     time: the round loop, coordinator restarts, and the final quiet
//     observation.
//   - network.go: the simulated network: requests sent with the plan's
//     faults, delivered in order per connection (concurrently when the
//     plan is parallel), responses delivered back, requests given up on.
//   - process.go: the processes of a run (the plan's clients, each a
//     client.Client, and the admin and the observer) and what each does
//     on its turn.
//   - probe.go: the prober, which sends requests no good client sends.
//   - observation.go: the invariants (model/invariants.go) checked on
//     what the coordinator holds after each round.
//   - history.go: operations and their JSON-lines form (the corpus
//     format).
//   - porcupine.go: the porcupine model built on model.Coordinator, and
//     how operations are partitioned and described.
//   - check.go: Check, at the level the target asks for (exact for a
//     model-exact one, observable otherwise) or the caller names; at the
//     exact level: harness assumptions first, then the run's invariants,
//     then linearizability; Unknown is never reported as a pass.
//   - observable.go: Check at the observable level, for brokers we did
//     not write: the walk of a history's events in time;
//     observable_ops.go, what each API's responses must be and
//     establish; observable_static.go, StaticRestartKeepsAssignment.
//   - rules.go: Rules, every rule a report can name, with its meaning and
//     what checks it.
//   - report.go: what a failure leaves behind: the JSON-lines history,
//     porcupine's timeline (each operation labelled with its network fate,
//     a window of a history too large for one page, its search bounded by
//     the check's timeout) and the explanation. The page a person reads
//     first is the report package's.
package linearize
