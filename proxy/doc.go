// Package proxy is ghostcheck's recording, fault-injecting Kafka proxy:
// it sits between any client library and any broker, forwards every
// request byte for byte, and records what the client sent, so that the
// client rules of docs/PROTOCOL.md (KIP-1082's member ids, KIP-1313's
// headers, KIP-345's static leaves; rules.CheckClients) can be checked on
// a client nobody here wrote; and the classic protocol's (KIP-394's
// MEMBER_ID_REQUIRED rejoin, KIP-345's instance id on every JoinGroup,
// SyncGroup and Heartbeat, and the stop after FENCED_INSTANCE_ID).
//
// What it does beyond forwarding, and why:
//
//   - One listener per upstream broker. Metadata and FindCoordinator
//     answers (every version codec speaks, which ApiVersions answers are
//     capped at) are rewritten to point at the proxy's listeners, made
//     when a broker is first named, so the client reaches every broker of
//     the cluster through the proxy and every connection is recorded.
//   - Every request header is parsed (the header version of every Kafka
//     api is known here, not only of those codec decodes); the bodies of
//     ConsumerGroupHeartbeat, LeaveGroup and the telemetry apis, and their
//     answers, are copied aside and decoded only when the run ends
//     (Recording), so the forwarding path stays cheap.
//   - Faults on group requests of both protocols (an Injector decides):
//     drop the answer after the broker applied the request, delay it,
//     close the connection after forwarding, or answer an error instead of
//     forwarding, encoded for the request's version (the codes each api
//     answers: REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION and
//     FENCED_INSTANCE_ID to the classic ones too).
//   - Held answers: a JoinGroup the broker holds until its rebalance
//     completes, or a SyncGroup until the leader's assignment, is waited
//     for as long as the rebalance timeout the client asked for (plus 5 s,
//     as Kafka's client waits), past IdleTimeout.
//   - Bounds on everything a peer controls: the frame size (checked before
//     anything is allocated, and a frame read whole grows as it arrives),
//     connections, brokers, requests in flight, the requests recorded and
//     the bytes their records hold, idle clients, half-sent frames either
//     way, stalled writes, the batch gathered for the broker. A peer that
//     breaks the protocol loses its connection; nothing a peer sends makes
//     the proxy panic, and Close ends every goroutine.
//
// The command is `ghostcheck proxy`; the verdict table and the report are
// its, from Recording and rules.CheckClients.
//
// The files:
//
//   - proxy.go: Config, Start, Proxy and its listeners, Stats, Close.
//   - conn.go: a client connection: its two pumps and the requests owed an
//     answer.
//   - pumps.go: the request pump and the response pump, batching writes.
//   - rewrite.go: Metadata and FindCoordinator answers rewritten to the
//     proxy's listeners, ApiVersions answers capped.
//   - apis.go: the header version and name of every Kafka api.
//   - faults.go: Fault, Injector and the fault rates.
//   - record.go: the recording, kept cheap while forwarding and decoded at
//     the end into rules.ClientRequest records (Recording).
//   - verdicts.go: the verdict table, the violations and the request
//     counts.
package proxy
