// Package history holds what a run produced and the file it is kept in:
// each operation (Op) as the coordinator received it, with its call and
// return times, its response, or Never as its return time when the
// response never came; a History is every operation of a run, in delivery
// order. A request the coordinator held (a classic JoinGroup or SyncGroup)
// is Parked: its answer and return time are those of its release, which
// the releasing operation lists (Op.Releases), or a tick, an operation of
// the coordinator's own (its timers, a closed connection). Histories are written as JSON lines, the corpus format: a
// FileHeader (the plan, what it ran against, the Verdict it must
// reproduce), then one operation per line, request and response decoded
// so a person can read them. A file of another kind, KindClients, is a
// recording of real client traffic made by the proxy, one request as the
// client rules read it per line; ReadFile refuses it (ErrClientRecording)
// and ReadClientFile reads it.
//
// The files, and what each owns:
//
//   - op.go: Op, Conn, History, Never, TickKind, and an operation's JSON
//     form.
//   - route.go: Route and RouteStep, how a request reached the broker
//     that answered it in a cluster (retries, moves, new connections).
//   - file.go: the history file (Schema, FileHeader, Expect, WriteFile,
//     ReadFile) and WritePath, how every page and history is written.
//   - clients.go: recordings of client traffic (KindClients,
//     ClientFileHeader, WriteClientFile, ReadClientFile, ClientExpect).
//   - verdict.go: Verdict and its values.
//   - labels.go: an operation in words, for reports and explanations:
//     Fate (what the network did to it), RequestLabel, ResponseLabel,
//     Describe, Summary.
//
// Tests: clients_test.go (recordings round-trip; their expected verdict),
// labels_test.go (Fate), parked_test.go (parked operations, releases and
// ticks round-trip; the schema a history is written in).
package history
