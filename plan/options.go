package plan

// Options shape the plans a generator draws.
type Options struct {
	Clients int
	Groups  int
	Rounds  int
	// HeartbeatVersion: 0 or 1 for every client, -1 for a mix.
	HeartbeatVersion int
	// StaticPercent of clients are static members.
	StaticPercent int
	// Faults is the chance in percent, per request, of each fault kind
	// (at most one fault hits a request). The first requests of a client
	// (its ApiVersions and join) are hit three times as often, as they are
	// where ghosts are made.
	Faults map[FaultKind]int
	// Crashes, Leaves, Resets, Telemetry and Admin turn those actions on;
	// Probes adds a prober sending requests no good client sends.
	Crashes, Leaves, Resets, Telemetry, Admin, Probes bool
	Parallel                                          bool
	// Restarts restarts the coordinator now and then (about once every
	// 45 rounds); only for targets that can (CanRestart).
	Restarts bool
	// StaticRestarts restarts about half the static clients' processes
	// once (KIP-345): the process closes, which parks its member at -2,
	// and a new process with member ids of its own joins under the same
	// instance id a round or two later (drawStaticRestarts).
	StaticRestarts bool
	// The rest broaden what the plans reach; each is drawn after
	// everything above (generate), so a plan without them is the one its
	// seed gave before them.
	//
	// StaticCrashes turns about a third of the static restarts into a
	// crash and a redeploy: the new process's join meets an active holder
	// (UNRELEASED_INSTANCE_ID) until the old session expires.
	StaticCrashes bool
	// Resubscribes has some clients change their subscription mid-life,
	// to other topic names or (v1) to a regular expression and back.
	Resubscribes bool
	// OldClients makes some clients old-style (ClientId on every request)
	// and renames some clients' ClientId mid-life.
	OldClients bool
	// NullOwned makes some clients send TopicPartitions null on plain
	// heartbeats, as Java's consumer does.
	NullOwned bool
	// LeaveGroups adds administrative LeaveGroup requests whose entries
	// reach every row of A3's table, in mixed batches, at v0 to v5.
	LeaveGroups bool
	// Caps plays an older or smaller broker now and then: LeaveGroup below
	// v3 (the admin downgrades), telemetry or Describe at v0, a group size
	// cap; in classic plans, every group api at v0 (Kafka 0.10.0's
	// broker: drawAncientBroker).
	Caps bool
	// RefusalProbes adds probes a coordinator must refuse: a rule of
	// §B4.2, §B4.4 or §B6 broken, a group that is not there, a version
	// above the broker's (and caps the telemetry payload, so that a probe
	// can exceed it).
	RefusalProbes bool
	// OffGrid delivers requests at 100 ms steps within their round and
	// draws session and rebalance timeouts off the round grid, so that a
	// deadline off by a millisecond shows.
	OffGrid bool
	// Edges (with OffGrid) delivers about one request in four a
	// millisecond before its step, where a session or rebalance timer
	// armed a millisecond short has fired and a correct one has not.
	Edges bool
	// ReuseConnIDs has about half the plans give a new connection the id
	// of a closed one.
	ReuseConnIDs bool
	// RareInputs has some clients send a rack or name the assignor on
	// their joins, some Describes ask for the groups' authorized
	// operations, and the prober probe the assignment's corners.
	RareInputs bool
	// Protocol is the group protocol of the plan's groups: consumer (""
	// too), classic, or mixed (each group drawn one or the other);
	// classic groups are drawn after everything else (drawClassic).
	Protocol Protocol
	// CrossKindJoins (with Probes, in mixed plans) has the prober join
	// groups of the other kind (ProbeCrossKindJoin), which a coordinator
	// outside mixed groups refuses or answers by replacing an Empty group.
	// Off against a broker that may run mixed groups (Kafka 4's default
	// policy), where such a join converts a group the plan's clients hold.
	CrossKindJoins bool
	// JoinGroupVersion is the highest JoinGroup version of the classic
	// clients: 0 for today's (9), 3 for clients from before KIP-394 (the
	// control that shows its ghosts; they are all dynamic, since a static
	// member needs v5).
	JoinGroupVersion int16
}

// DefaultOptions is a small, busy run: 6 clients in 2 groups over 60
// rounds of 500 ms with 10 % of requests mistreated, a coordinator restart
// now and then (turn Restarts off for a target that cannot restart:
// CanRestart) and static restarts of static clients.
func DefaultOptions() Options {
	return Options{Clients: 6, Groups: 2, Rounds: 60, HeartbeatVersion: 1, StaticPercent: 30,
		Faults: UniformFaults(10), Crashes: true, Leaves: true, Resets: true, Telemetry: true, Admin: true, Probes: true,
		Restarts: true, StaticRestarts: true,
		StaticCrashes: true, Resubscribes: true, OldClients: true, NullOwned: true, LeaveGroups: true,
		Caps: true, RefusalProbes: true, OffGrid: true, ReuseConnIDs: true, RareInputs: true, Edges: true, CrossKindJoins: true}
}
