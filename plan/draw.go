package plan

import (
	"math/rand/v2"

	"pgregory.net/rapid"
)

func Draw(t *rapid.T, o Options) Plan {
	seed := uint64(rapid.Uint32().Draw(t, "seed"))
	return generate(rapidDrawer{t}, o, seed)
}

func New(seed uint64, o Options) Plan {
	return generate(randDrawer{rand.New(rand.NewPCG(seed, 0x706c616e))}, o, seed)
}

func generate(d drawer, o Options, seed uint64) Plan {
	if o.Clients <= 0 {
		o.Clients = 1
	}
	if o.Groups <= 0 {
		o.Groups = 1
	}
	if o.Rounds < 10 {
		o.Rounds = 10
	}
	p := Plan{
		Seed:                seed,
		Topics:              []Topic{{"alpha", 6}, {"beta", 3}, {"gamma", 2}},
		SessionTimeoutMs:    6000,
		HeartbeatIntervalMs: 1000,
		Rounds:              o.Rounds,
		RoundMs:             500,
		RequestTimeout:      3,
		DescribeEvery:       4,
		Parallel:            o.Parallel,
	}
	p.Clients = drawClients(d, o, p.Rounds)
	if o.Admin {
		p.Admin = drawAdmin(d, p.Clients, p.Rounds)
	}
	if o.Probes {
		p.Probes = drawProbes(d, p.Groups(), p.Rounds)
	}
	p.Faults = drawFaults(d, o.Faults, len(p.Clients), p.Rounds)
	// Drawn last, so that turning restarts on leaves the rest of the plan
	// a seed gives unchanged.
	if o.Restarts {
		p.Restarts = drawRestarts(d, p.Rounds)
	}
	// Drawn after everything else, for the same reason: a plan without
	// them is the one the seed gave before they existed.
	if o.StaticRestarts {
		p.Clients = drawStaticRestarts(d, p.Clients, p.Rounds)
	}
	// The draws that broaden what plans reach, each after everything
	// above, in this order, so that a plan without them is the one the seed
	// gave before they existed; each is a small share of a plan, so most
	// of every history is still clients joining, heartbeating, leaving and
	// crashing under network faults.
	if o.StaticCrashes {
		drawStaticCrashes(d, p.Clients, o.Clients)
	}
	if o.Resubscribes {
		drawResubscribes(d, p.Clients, p.Rounds)
	}
	if o.OldClients {
		drawOldClients(d, p.Clients, p.Rounds)
	}
	if o.NullOwned {
		drawNullOwned(d, p.Clients)
	}
	if o.LeaveGroups {
		p.Admin = append(p.Admin, drawLeaveGroups(d, p.Groups(), p.Rounds)...)
	}
	if o.Caps {
		drawCaps(d, &p)
	}
	if o.RefusalProbes {
		p.Probes = append(p.Probes, drawRefusalProbes(d, p.Groups(), p.Rounds)...)
		p.TelemetryMaxBytes = TelemetryProbeMaxBytes
	}
	if o.OffGrid {
		drawOffGrid(d, &p)
	}
	if o.Edges && p.SubRoundMs > 0 {
		p.EdgeMs = 1 // no draw: every plan off the grid has its edges
	}
	if o.ReuseConnIDs {
		p.ReuseConnIDs = d.intn("reuse conn ids", 2) == 0
	}
	if o.RareInputs {
		drawRareInputs(d, &p)
	}
	if o.Caps {
		drawLeaveGroupBeforeReason(d, &p)
	}
	// Classic groups, after everything else: a consumer-protocol plan is
	// the one its seed gave before they existed.
	if o.Protocol == ProtocolClassic || o.Protocol == ProtocolMixed || o.Protocol == ProtocolUpgrade {
		drawClassic(d, o, &p)
	}
	if o.Protocol.Migrates() {
		drawMigration(d, o, &p)
	}
	// The classic clients' variety, after everything else for the same
	// reason.
	if o.Protocol == ProtocolClassic || o.Protocol == ProtocolMixed {
		drawClassicClients(d, o, &p)
	}
	// Joins across the kinds, after everything else: a mixed plan is the
	// one its seed gave before they existed, plus them.
	if o.Protocol == ProtocolMixed && o.Probes && o.CrossKindJoins {
		drawCrossKindJoins(d, &p)
	}
	// The migration's odd requests, last of all: the migration plans
	// without them, and the plans of every other protocol, are the ones
	// their seeds gave before they existed.
	if o.Protocol.Migrates() && o.Probes {
		drawMixedOddRequests(d, &p)
	}
	// A broker from before KIP-62, after everything else for the same
	// reason.
	if o.Protocol == ProtocolClassic && o.Caps {
		drawAncientBroker(d, o, &p)
	}
	return p
}

type drawer interface {
	intn(label string, n int) int // in [0, n)
}

type rapidDrawer struct{ t *rapid.T }

func (d rapidDrawer) intn(label string, n int) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(d.t, label)
}

type randDrawer struct{ r *rand.Rand }

func (d randDrawer) intn(_ string, n int) int {
	if n <= 1 {
		return 0
	}
	return d.r.IntN(n)
}
