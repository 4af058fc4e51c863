// Package tcptarget is a broker, or a cluster of them, reached over TCP as
// a driver.Target, for `ghostcheck check`: each of the driver's
// connections a client process with a real TCP connection to each broker
// it talks to (package wire), its resets real closes, each group's
// requests routed to the group's coordinator with Kafka's clients' retries
// (wire.Cluster, recorded in the op's history.Route), its logical
// milliseconds mapped onto real time. With a Control it plays a cluster's
// faults (coordinator moves, brokers down and up; connection resets it
// plays itself). The broker fires its own timers, so
// the target measures how far real time ran ahead of the driver's logical
// time (MaxLagMs) and the longest stall of the checking process or the
// broker (MaxStallMs, a wire.StallWatch), which the invariants' grace and
// the observable check count as slack. A request above the versions the
// broker advertised is refused locally (ErrVersionNotOffered), unsent.
//
// The files:
//
//   - target.go: Target, Dial, and what the target measures.
//   - held.go: the classic requests a broker holds, parked (a
//     driver.Parker) and answered by a reader of their own.
//   - route.go: a process's connections, one per broker; routing by
//     group, and the route an op records.
//   - faults.go: Control, and the cluster faults the target plays
//     (driver.ClusterFaulter).
//   - target_test.go: its errors, the negotiation's notes, a broker
//     without ConsumerGroupDescribe; stall_linux_test.go: a stall of the
//     checking process is measured.
package tcptarget
