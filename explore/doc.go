// Package explore is ghostcheck's exhaustive model checker: an
// explicit-state search, TLC's kind, over every interleaving of a few
// reference clients (model/client), the reference coordinator (model) and
// the optimized one (impl) held to it in lockstep, under the faults of
// `ghostcheck run`, up to a bound. Where `run` draws histories at random and
// judges each, explore visits every reachable state of a small
// configuration once and checks every invariant in each: within the
// bound, absence of a violation is proven, not sampled.
//
// # What is explored
//
// A configuration (Config) is 1 to 4 client slots in one or two groups,
// each static or dynamic, at ConsumerGroupHeartbeat v1 (KIP-1082) or v0,
// or classic (see Protocols),
// with a number of operations, the faults that may happen and how many
// per path, and admin LeaveGroups. A state is the coordinator (model and
// impl), every slot's process (the reference client's state, what it
// awaits, when its next heartbeat is due), every connection's queues of
// requests and answers, the time, and what is left of the bounds. From a
// state the search branches on every enabled event (events.go):
//
//   - a client's operation, at any moment: a join (a new process when none
//     lives), a leave; a close, at any moment and free, ends the process;
//   - a client's due heartbeat (what it sends is the reference client's
//     choice: a join, a heartbeat, full after a loss);
//   - the arrival of the request or answer at the head of a connection's
//     queue (in send order across connections; in any order with Reorder);
//   - a fault (Fault): the head message lost, duplicated or delayed past
//     time moving; a connection closed; a process crashed; the coordinator
//     restarted;
//   - an admin LeaveGroup (by instance, by member, fenced);
//   - a tick: time moves to the next deadline.
//
// # What is abstracted
//
// Time moves only from one deadline to the next: the coordinator's session
// and rebalance timeouts (model.NextDeadline), a client's heartbeat
// interval and request timeout. Nothing happens between deadlines but
// events at the instant, in every order; what is urgent (a due heartbeat,
// a message not delayed) happens before time moves, so a delay is a fault.
// States record times as distances from now, so a group heartbeating
// steadily comes back to the state it left, and the space is finite once
// operations and faults are bounded. Member ids are made by the explorer
// in the order they are made, so they sort so (ids.go), and a state
// renames them by rank; identically configured clients are
// interchangeable (symmetry). The network is TCP: one queue per
// connection and direction, in order. Timers due at one instant fire
// together, the coordinator's first. The clients send no telemetry and
// never change their ClientId; the coordinator is one broker.
//
// # What is checked
//
// On every state found: NoGhosts, OneMemberPerProcess, UniqueMemberIDs,
// NoZeroUUIDs, NoDoubleClientAssignment (package rules, on the model's
// snapshot and the processes); on a state with nothing enabled,
// QuiescentMembership; on every transition, the rules comparing two
// observations (MonotonicEpochs, StaticRestartKeepsAssignment,
// StableMemberID) and impl equal to the model: byte-identical answers,
// equal snapshots, equal ConsumerGroupDescribe output, equal timers
// (model.Timers: every member's session and rebalance deadline) and equal
// connection contexts (a difference is reported as Linearizability). A v0
// client's ghost (a member the coordinator made whose answer never reached
// it: what KIP-1082 removed) is counted, not reported (Result.V0Ghosts);
// QuiescentMembership still requires it gone. The first violation found
// is at the smallest depth (breadth-first, or iterative deepening), with
// its trace.
//
// A state's fingerprint covers the model, not impl (impl's memory has no
// canonical form). That loses nothing: after every transition impl is held
// equal to the model in everything of the coordinator's that decides what
// comes next (members and their fields, targets, pending revocations,
// timers, connection contexts), so two impls behind one fingerprint agree
// on all of it, and the transitions tried from the first are those the
// second would face.
//
// # Cost
//
// A state is kept as a 64-bit fingerprint of its canonical form
// (encode.go: a collision bound of n^2/2^65 for n states) and an 8-byte
// node of the search tree (its parent and the event from it); states
// themselves are rebuilt when expanded, by replaying the tree's events
// from the root along a path the worker keeps (search.go). A step that
// reaches the coordinator copies it (model.Clone, impl.CopyTo into a
// recycled impl); one that does not shares it.
//
// # Files
//
//   - config.go: Config, Client, Fault, Protocol, Strategy, Default, Clients.
//   - events.go: the events, which are enabled, when time may move.
//   - step.go: applying an event: the network, the coordinator, time.
//   - consumer.go: the consumer protocol's clients (model/client):
//     operations, sends, answers, timeouts.
//   - classic.go: the classic protocol's clients (client.Classic):
//     operations, sends, answers, reactions, timeouts, lost connections.
//   - admin.go: the admin's LeaveGroups.
//   - coord.go: model and impl in lockstep: forks, requests, and the
//     snapshots, Describe, timers and connection contexts compared.
//   - state.go: the state, its slots, records, connections and messages.
//   - ids.go: member ids that sort as made; sets of their numbers, ranks.
//   - encode.go: the canonical form and its fingerprint.
//   - observe.go: the invariants and transition rules of package rules.
//   - fpset.go: the concurrent set of fingerprints.
//   - worker.go: a worker: its root, the path it rebuilds states along.
//   - search.go: breadth-first search, workers, shards, limits, progress.
//   - process.go: workers as processes: the frames between the search and
//     a worker (ServeWorker); command.go: a worker program started
//     (CommandWorker).
//   - gc.go: the collector tuned for a search (TuneGC), by a command.
//   - iddfs.go: iterative deepening.
//   - trace.go: a violation's trace in words.
//   - result.go: Result, Violation, Progress.
//
// # Protocols
//
// Config.Protocol: consumer (the clients above), classic (every client a
// client.Classic: JoinGroup v9 with KIP-394's MEMBER_ID_REQUIRED,
// SyncGroup, Heartbeat, LeaveGroup; KIP-345's static members) or mixed
// (consumer and classic clients in turn, the classic ones in groups of
// their own, "c0", "c1": the model keeps a group of one kind while it has
// members). The coordinator holds a classic JoinGroup or SyncGroup that
// must wait, and what its connection sends behind it (model.ErrParked):
// the explorer keeps each such request (state.held, under the smallest
// free delivery number) and routes its answer, released by a later step
// (another request, a timer, a restart, a closed connection), to its
// connection, holding impl's releases to the model's. Time's next deadline
// includes the classic groups' (the join and sync phases' timers, the
// members' sessions, the pending ids' expiry) and the classic clients'
// (a JoinGroup's timeout, a heartbeat's interval). Classic ids are the
// coordinator's, numbered as made (the UUID after the prefix; the prefix,
// the client or instance id, is written as it is). With a classic client
// there is no client symmetry: the model's held requests name their
// connections, which are the slots'. Checked besides: the classic groups'
// snapshot, timers, held connections and DescribeGroups held equal, and
// KIP-394's ghosts (classicGhosts).
package explore
