// Package linearize runs client processes against a group coordinator under
// network faults, records what happened as a history, and checks it three
// ways (docs/DESIGN.md): invariants on every observation (no ghosts, no zero
// UUIDs, one member per process, no double ownership, epochs only forward),
// and linearizability of the whole concurrent history against the reference
// model with porcupine, partitioned by group.
//
// The pieces, each in its own file:
//
//   - target.go: the Target interface a coordinator under test satisfies,
//     and the in-process adapter for the model.
//   - plan.go: a Plan, the complete, readable description of one run
//     (clients, what each does when, which network events fail how), drawn
//     up front from rapid or from a seed, so a run replays exactly.
//   - driver.go: executes a Plan against a Target on simulated time and a
//     simulated network, producing a History.
//   - history.go: operations and their JSON-lines form (the corpus format).
//   - porcupine.go: the porcupine model built on model.Coordinator.
//   - check.go: the verdict: harness assumptions first, then invariants,
//     then linearizability; Unknown is never reported as a pass.
//   - report.go: what a failure leaves behind: the violated rule, the HTML
//     timeline, the JSON-lines history and the command that replays it.
package linearize
