// Package model is ghostcheck's yardstick: a reference Kafka group
// coordinator, a reference consumer client, and the invariants a run must
// keep. Everything else (the optimized coordinator in impl, brokers reached
// over TCP) is judged against it.
//
// The coordinator is written to be read beside the protocol notes
// (docs/PROTOCOL.md Part A, then §B4, §B5, §B6, §B7.2), not to be fast:
//
//   - It is sequential and deterministic. Handle takes a connection, a
//     request header and a decoded body (codec types: the wire format is the
//     vocabulary) and returns the response body.
//   - Time is logical. Session and rebalance timeouts fire only inside
//     Advance, so a caller decides exactly when they happen.
//   - The only randomness is the injected ID source, used for the member ids
//     a v0 broker makes and for telemetry client instance ids.
//
// Scope: consumer groups of the KIP-848 protocol (ConsumerGroupHeartbeat
// v0-v1, ConsumerGroupDescribe v0-v1), LeaveGroup v0-v5 against them,
// ApiVersions v0-v4, GetTelemetrySubscriptions and PushTelemetry v0-v1. The
// classic protocol (JoinGroup/SyncGroup/Heartbeat) is not modelled.
package model
