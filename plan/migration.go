package plan

// The online migration of a consumer fleet (docs/PROTOCOL.md A7): plans
// in which the processes of a group of classic consumers are restarted
// one at a time as consumer-protocol consumers (an upgrade), or the other
// way (a rollback), so that their group crosses Kafka 4's conversions
// under the run's faults.

import "fmt"

// The migration protocols (Options.Protocol).
const (
	// ProtocolUpgrade: every group starts classic, and its processes are
	// restarted one by one with the consumer protocol.
	ProtocolUpgrade Protocol = "upgrade"
	// ProtocolRollback: every group starts a consumer group, and its
	// processes are restarted one by one as classic consumers.
	ProtocolRollback Protocol = "rollback"
)

// Migrates reports whether the protocol's plans move their groups from
// one protocol to the other.
func (p Protocol) Migrates() bool { return p == ProtocolUpgrade || p == ProtocolRollback }

// MigrationBidirectional is Kafka's default group.consumer.migration.policy
// (Plan.MigrationPolicy), the one the migration plans use: a group
// upgrades and downgrades.
const MigrationBidirectional = "bidirectional"

// drawMigration restarts the processes of each group one at a time with
// the other protocol (ProtocolUpgrade: the plan's clients are classic,
// drawClassic; ProtocolRollback: they speak ConsumerGroupHeartbeat). A
// process switches at a round of its own, the group's processes in turn a
// few rounds apart: it closes (a static member without a leave, a dynamic
// one with one) or now and then crashes, and a new process of the other
// protocol, with the same instance id if it is static, joins one or two
// rounds later and lives to the end of the run. A process that ended, or
// had not joined, by its round keeps its protocol, and so does one whose
// instance a later process takes over (laterOfInstance). The new processes have
// faults drawn as every client's.
func drawMigration(d drawer, o Options, p *Plan) {
	p.MigrationPolicy = MigrationBidirectional
	base := len(p.Clients)
	next := p.Rounds / 5
	for _, g := range p.Groups() {
		at := next + d.intn("migration start", 3)
		for i := 0; i < base; i++ {
			c := &p.Clients[i]
			if c.Group != g {
				continue
			}
			if at >= p.Rounds-6 {
				break
			}
			if !liveAt(c.Actions, at) || laterOfInstance(p.Clients[:base], i, at) {
				continue
			}
			var acts []Action
			for _, a := range c.Actions {
				if a.Round < at {
					acts = append(acts, a)
				}
			}
			end := Close
			if d.intn("migration crash", 4) == 0 {
				end = Crash
			}
			c.Actions = append(acts, Action{Round: at, Kind: end})
			nc := ClientPlan{Name: fmt.Sprintf("c%d", len(p.Clients)), Group: g, InstanceID: c.InstanceID, HeartbeatVersion: c.HeartbeatVersion,
				Topics: c.Topics, Seed: uint64(d.intn("client seed", 1<<30)) + 1,
				Actions: []Action{{Round: at + 1 + d.intn("migration gap", 2), Kind: Join}}}
			if o.Protocol == ProtocolRollback {
				nc.HeartbeatVersion = 1
				nc.Classic = &ClassicClient{JoinGroupMaxVersion: 9, SessionTimeoutMs: classicSessionTimeoutMs, RequestTimeoutMs: classicRequestTimeoutMs,
					RebalanceTimeoutMs: classicRebalanceMinMs + 500*int32(d.intn("classic rebalance timeout", classicRebalanceSteps))}
			}
			p.Clients = append(p.Clients, nc)
			at += 3 + d.intn("migration step", 4)
		}
	}
	for _, f := range drawFaults(d, o.Faults, len(p.Clients)-base, p.Rounds) {
		f.Client += base
		p.Faults = append(p.Faults, f)
	}
	if o.Protocol == ProtocolRollback {
		p.InitialRebalanceDelayMs = classicInitialDelayStep * int32(d.intn("initial rebalance delay", 2))
		kept := p.Probes[:0]
		for _, pr := range p.Probes {
			if classicSafeProbe(pr.Kind) {
				kept = append(kept, pr)
			}
		}
		p.Probes = kept
	}
}

// laterOfInstance reports whether a static client other than clients[i],
// of its group and instance id, starts after round at (a static restart,
// drawStaticRestarts): client i then ends when that one starts, and is
// not switched, lest two processes of one instance live at once.
func laterOfInstance(clients []ClientPlan, i, at int) bool {
	c := &clients[i]
	if c.InstanceID == "" {
		return false
	}
	for j := range clients {
		o := &clients[j]
		if j != i && o.Group == c.Group && o.InstanceID == c.InstanceID && len(o.Actions) > 0 && o.Actions[0].Round > at {
			return true
		}
	}
	return false
}

// liveAt reports whether a process with acts has joined before round at
// and has not ended by it.
func liveAt(acts []Action, at int) bool {
	joined := false
	for _, a := range acts {
		if a.Round > at {
			break
		}
		switch a.Kind {
		case Join:
			joined = joined || a.Round < at
		case Close, Crash:
			return false
		}
	}
	return joined
}
