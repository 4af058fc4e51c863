package plan

// The odd requests of a fleet in the middle of an online migration
// (docs/PROTOCOL.md A7): during a rolling upgrade or its rollback, some
// processes run another build or another configuration than the rest, a
// zombie of a restarted process still sends what its old generation knew,
// and a group id may be shared with an application of another protocol
// type. The clients of the migration plans never send these; the prober
// does, in the migration plans the seed picks.

// ProbeMixedOddRequest: a request of a fleet being migrated that a
// coordinator must answer by A7's refusals, or a classic member's switch
// to the consumer protocol by its own id, by Probe.Variant
// (MixedOddRequestVariants):
//
//   - 0, a classic JoinGroup naming only another assignor (odd Pick) or
//     another protocol type (even Pick) than the consumer group's classic
//     members: INCONSISTENT_GROUP_PROTOCOL (A7.1);
//   - 1, a classic JoinGroup under a member id of its own whose metadata
//     is a truncated ConsumerProtocolSubscription: UNKNOWN_SERVER_ERROR
//     (A7.1);
//   - 2, a classic member's SyncGroup at its epoch naming another
//     assignor: INCONSISTENT_GROUP_PROTOCOL (A7.2; ILLEGAL_GENERATION if
//     its epoch moved since the prober looked);
//   - 3, a ConsumerGroupHeartbeat join to a classic group of another
//     protocol type sharing the group id space (Kafka Connect's "connect"):
//     a Connect worker the prober plays on a connection of its own
//     (HasConnectWorker) makes that group's one static member, the join
//     is refused with GROUP_ID_NOT_FOUND (A7.4), then the prober removes
//     the worker's member by instance id (A6.3);
//   - 4, a static classic JoinGroup naming a live member's instance under
//     another member id (a zombie of a restarted process):
//     FENCED_INSTANCE_ID (A7.1);
//   - 5, a classic member's SyncGroup one generation behind its epoch:
//     ILLEGAL_GENERATION (A7.2);
//   - 6, a classic member's Heartbeat one generation behind its epoch:
//     ILLEGAL_GENERATION (A7.2);
//   - 7, a classic JoinGroup under a member id of the prober's own, then a
//     ConsumerGroupHeartbeat under that id (the member switches to the
//     consumer protocol, A7.3), then its leave, all in one round.
//
// None leaves a member behind it at the round's end.
const ProbeMixedOddRequest ProbeKind = "mixed-odd-request"

// MixedOddRequestVariants is how many variants ProbeMixedOddRequest has.
const MixedOddRequestVariants = 8

// drawMixedOddRequests gives about half the migration plans the prober's
// mixed odd requests: from the round the first group starts migrating
// (drawMigration) to the run's last rounds, one every three to six rounds,
// each to a group and of a variant drawn. Drawn after everything else
// (generate), so that a plan without them is the one its seed gave before
// they existed, and plans of other protocols are unchanged.
func drawMixedOddRequests(d drawer, p *Plan) {
	if d.intn("mixed odd requests", 2) != 0 {
		return
	}
	groups := p.Groups()
	for r := p.Rounds/5 + 2 + d.intn("mixed odd requests start", 4); r < p.Rounds-2; r += 3 + d.intn("mixed odd requests gap", 4) {
		p.Probes = append(p.Probes, Probe{Round: r, Kind: ProbeMixedOddRequest, Group: groups[d.intn("mixed odd request group", len(groups))],
			Pick: d.intn("mixed odd request pick", 16), Variant: d.intn("mixed odd request variant", MixedOddRequestVariants)})
	}
}

// The Connect worker's group and instance ids (ProbeMixedOddRequest's
// variant 3): no client uses them; the observable checks count the
// instance among the ones a process of the plan uses.
const (
	ProbeConnectGroup    = "ghostcheck-probe-connect"
	ProbeConnectInstance = "ghostcheck-probe-connect-worker"
)

// HasConnectWorker reports whether the plan's prober plays a Kafka
// Connect worker (ProbeMixedOddRequest's variant 3), which takes a
// process and a connection of its own: the worker's JoinGroup waits in
// its group's first join phase, and a broker reads nothing else from its
// connection until it is answered.
func (p *Plan) HasConnectWorker() bool {
	for _, pr := range p.Probes {
		if pr.Kind == ProbeMixedOddRequest && pr.Variant%MixedOddRequestVariants == 3 {
			return true
		}
	}
	return false
}
