// Package driver runs a plan (package plan) against a group coordinator
// under test, a Target, on simulated time: client processes joining,
// heartbeating, leaving and crashing under the plan's network faults, an
// admin, a prober and an observer, every request and response recorded as
// a history (package history), and the invariants checked on what the
// coordinator holds after every round. Run returns the Result; package
// check gives its verdict.
//
// The Target contract is declared here, where it is consumed: Target,
// with the optional Snapshotter, Restarter and ModelExacter, and Funcs for
// adapting plain functions.
//
// The files, and what each owns:
//
//   - target.go: Target, Conn, Snapshotter, Restarter, ModelExacter,
//     Funcs, WithSnapshot, ErrNoResponse, ErrCannotRestart.
//   - driver.go: Run and Result: the round loop, coordinator restarts,
//     the final quiet observation.
//   - network.go: the simulated network.
//   - process.go: the processes and what each does on its turn.
//   - probe.go: the prober.
//   - observation.go: the invariants on every observation.
//   - describecheck.go: DescribeAgrees.
//   - clientcheck.go: the client rules on the run's own clients.
//   - canary.go, canary_clients.go, canary_invariants.go: the canaries.
package driver
