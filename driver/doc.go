// Package driver runs a plan (package plan) against a group coordinator
// under test, a Target, on simulated time: the plan's client processes
// (reference clients) joining, heartbeating, leaving and crashing under
// the plan's network faults, beside an admin, a prober and an observer
// process; every request and response recorded as a history (package
// history), with its call and return; and the invariants checked on what
// the coordinator holds after every round. Run returns the Result;
// package check gives its verdict.
//
// The Target contract is declared here, where it is consumed: Target,
// with the optional Snapshotter, Restarter, ModelExacter and Parker (a
// coordinator that holds requests and answers them later: ErrParked,
// Release), and Funcs and WithSnapshot for adapting plain functions. The driver knows no
// coordinator: targets are built outside it (internal/targets, tcptarget,
// your own test).
//
// A run is a driver and its parts, each a type of its own: the network
// (connections, requests and responses on their way, the plan's faults),
// the processes (what each does on its turn, and its reaction to what it
// gets back), the admin and the prober (what those two processes send),
// the observer (the invariants each round, DescribeAgrees, the
// invariants' canary) and the client log (the requests the client rules
// judge at the end, and the client rules' canary).
//
// The files, and what each owns:
//
//   - target.go: Target, Conn, Snapshotter, Restarter, ModelExacter,
//     Funcs, WithSnapshot, ErrNoResponse, ErrCannotRestart.
//   - driver.go: Run and Result: the round loop, coordinator restarts,
//     the final quiet observation.
//   - network.go: the simulated network: requests sent with the plan's
//     faults, delivered in order per connection (concurrently when the
//     plan is parallel), responses delivered back.
//   - parker.go: Parker, Release, ErrParked; parked.go: parked requests
//     held open and answered at their release, the ticks of timers and
//     closed connections that released some.
//   - process.go: the processes, their roles, what each does on its turn;
//     classic.go, the classic client processes (a client.Classic each)
//     and how the invariants judge classic groups.
//   - admin.go: the admin's removals (LeaveGroup at every version).
//   - probe.go: the prober, which sends requests no good client sends.
//   - observation.go: the observer: the invariants on every observation.
//   - describecheck.go: DescribeAgrees, a Describe held to the snapshot
//     of the same instant.
//   - clientcheck.go: the client rules on the run's own clients.
//   - cluster.go: the cluster's faults (ClusterFaulter: a coordinator
//     move, a broker down and up, a connection reset) played between
//     rounds and recorded, and Router, the route of a request in a
//     cluster.
//   - canary.go: the client rules' canary on the admin's, prober's and
//     observer's deliberate breaks; canary_classicbreaks.go, its account
//     of the classic client rules the prober breaks; canary_clients.go,
//     its synthetic records; canary_invariants.go, the invariants' canary (planted
//     violations) and the header rules'; canary_classic.go, its plants in
//     a classic group and the planted events of the classic trackers.
//   - classicjudge.go: what the observer keeps to judge classic groups:
//     the ledger of grace events, the generations, what SyncGroup hands
//     out, a static member's restart into a Stable group.
//   - mixed.go: plans that migrate a fleet (docs/PROTOCOL.md A7): each
//     group's changes of kind, the grace a conversion gives its members;
//     toldkinds.go, the kinds as the answers tell them to a driver that
//     cannot see the coordinator's state (a broker over TCP).
//   - migration_probes.go: the prober's odd requests of a fleet in
//     mid-migration (plan.ProbeMixedOddRequest), and the Kafka Connect
//     worker process it plays.
//
// Tests: canary_test.go, canary_clients_test.go,
// canary_classicbreaks_test.go and canary_invariants_test.go (each canary catches a blind check and
// passes a correct run), clientcheck_test.go, describecheck_test.go,
// observation_test.go, restart_test.go (a session's end counts restarts),
// droprestarts_test.go (a target that cannot restart), crash_test.go
// (ended processes close their connections), subround_test.go (requests
// off the round grid), stall_test.go (a stall widens the ghost grace),
// golden_test.go (the histories of fixed plans, byte for byte),
// parked_test.go (parked requests against a holding fake Parker),
// target_test.go (the model as a Target for these tests),
// migration_probes_test.go and migration_probes_reach_test.go (the
// prober's mixed odd requests read as meant, reach A7's clauses and pass a
// correct coordinator), example_test.go.
package driver
