// Package model is ghostcheck's yardstick: the reference Kafka group
// coordinator. Everything else (the optimized coordinator in impl, brokers
// reached over TCP) is judged against it. Its companions are the reference
// consumer client (model/client) and the rules a run and a client must
// keep (model/rules).
//
// The coordinator is written to be read beside the protocol notes
// (docs/PROTOCOL.md Part A, then §B4, §B5, §B6, §B7.2, §B8), not to be fast:
//
//   - It is sequential and deterministic. Handle takes a connection, a
//     request header and a decoded body (codec types: the wire format is the
//     vocabulary) and returns the response body.
//   - Time is logical. Session and rebalance timeouts fire only inside
//     Advance, so a caller decides exactly when they happen.
//   - The only randomness is the injected ID source, used for the member ids
//     a v0 broker makes and for telemetry client instance ids.
//   - Each line of the protocol it follows is a clause with an id (a section
//     of docs/PROTOCOL.md and a row or step of it, e.g. "A3/row-6-fenced"),
//     named where the code applies it and counted when Config.Clauses asks
//     (clauses.go).
//
// Scope: consumer groups of the KIP-848 protocol (ConsumerGroupHeartbeat
// v0-v1, ConsumerGroupDescribe v0-v1), LeaveGroup v0-v5 against them,
// ApiVersions v0-v4, GetTelemetrySubscriptions and PushTelemetry v0-v1;
// and classic groups (docs/PROTOCOL.md B8, A6: JoinGroup v0-v9, SyncGroup
// v0-v5, Heartbeat v0-v4, DescribeGroups v0-v6, LeaveGroup against them),
// with KIP-394's pending ids and KIP-345's static members, served and
// advertised by default as Kafka 4.x does (Config.MaxVersions caps them:
// {JoinGroup: 3} plays a broker without KIP-394).
//
// A classic JoinGroup or SyncGroup may have to wait for other members:
// Handle then returns ErrParked, and the answer comes later through
// Released, named by the request's Conn.Delivery (parked.go states the
// contract). The classic code is in the classic_*.go files, by concern.
package model
