// Package tcptarget is a broker reached over TCP as a driver.Target, for
// `ghostcheck check`: each of the driver's connections a real TCP
// connection (package wire), its resets real closes, its logical
// milliseconds mapped onto real time. The broker fires its own timers, so
// the target measures how far real time ran ahead of the driver's logical
// time (MaxLagMs) and the longest stall of the checking process or the
// broker (MaxStallMs, a wire.StallWatch), which the invariants' grace and
// the observable check count as slack. A request above the versions the
// broker advertised is refused locally (ErrVersionNotOffered), unsent.
//
// The files:
//
//   - target.go: Target, Dial, and what the target measures.
//   - target_test.go: its errors, the negotiation's notes, a broker
//     without ConsumerGroupDescribe; stall_linux_test.go: a stall of the
//     checking process is measured.
package tcptarget
