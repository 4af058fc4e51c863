package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// ClusterFaultKind is a fault of a cluster of brokers, played by a target
// that can (driver.ClusterFaulter): drawn only for such a target
// (RealTime.Cluster), recorded in the history as the driver plays it.
type ClusterFaultKind string

// The cluster faults.
const (
	// CoordinatorMove moves every group's coordinator (kfake's
	// RehashCoordinators, librdkafka's mock coordinator setting): the
	// next coordinator loads each group from the log, its members find
	// it again, their sessions start afresh (docs/PROTOCOL.md B4.5).
	CoordinatorMove ClusterFaultKind = "coordinator-move"
	// BrokerDown stops a broker (Broker), which moves the coordinators it
	// held; BrokerUp starts it again, at its address.
	BrokerDown ClusterFaultKind = "broker-down"
	BrokerUp   ClusterFaultKind = "broker-up"
	// ConnectionReset resets the connection of one client process
	// (Client) to the broker it talks to, as a network would: the next
	// request opens another.
	ConnectionReset ClusterFaultKind = "connection-reset"
)

// ClusterFaultKinds lists every cluster fault kind.
func ClusterFaultKinds() []ClusterFaultKind {
	return []ClusterFaultKind{CoordinatorMove, BrokerDown, BrokerUp, ConnectionReset}
}

// MovesCoordinators reports whether the fault may move coordinators
// (every one but a connection reset): the driver records it as a restart
// of the groups' coordinator.
func (k ClusterFaultKind) MovesCoordinators() bool { return k != ConnectionReset }

// ClusterFault is one cluster fault, played at the start of Round.
type ClusterFault struct {
	Round int              `json:"round"`
	Kind  ClusterFaultKind `json:"kind"`
	// Broker is the broker stopped or started.
	Broker int32 `json:"broker,omitempty"`
	// Client is the client process whose connection is reset.
	Client int `json:"client,omitempty"`
}

func (f ClusterFault) String() string {
	switch f.Kind {
	case BrokerDown, BrokerUp:
		return fmt.Sprintf("%s broker %d at round %d", f.Kind, f.Broker, f.Round)
	case ConnectionReset:
		return fmt.Sprintf("%s of client %d at round %d", f.Kind, f.Client, f.Round)
	}
	return fmt.Sprintf("%s at round %d", f.Kind, f.Round)
}

// Cluster is what a cluster target can play (RealTime.Cluster): its
// brokers, and the faults it can play with them.
type Cluster struct {
	// Brokers are the cluster's broker ids.
	Brokers []int32
	// Kinds are the faults the target can play.
	Kinds []ClusterFaultKind
}

// can reports whether the target plays faults of kind k.
func (c *Cluster) can(k ClusterFaultKind) bool { return c != nil && slices.Contains(c.Kinds, k) }

// drawClusterFaults draws the cluster faults of a plan of rounds rounds
// with clients clients, from its own source of seed (so a seed's plan is
// the same but for them, and a target that cannot play them runs the
// rest unchanged): one to three coordinator moves; a broker down and up
// again a few rounds later (never the last broker up, nor two at once);
// and a connection reset of a client now and then. Every fault falls
// before the last five rounds, so the run ends on a whole cluster.
func drawClusterFaults(seed uint64, c *Cluster, rounds, clients int) []ClusterFault {
	if c == nil || rounds < 12 {
		return nil
	}
	d := randDrawer{rand.New(rand.NewPCG(seed, seed^0x636c7573746572))} // "cluster"
	last := rounds - 5
	var out []ClusterFault
	if c.can(CoordinatorMove) {
		for i, n := 0, 1+d.intn("moves", 3); i < n; i++ {
			out = append(out, ClusterFault{Round: 3 + d.intn("move round", last-3), Kind: CoordinatorMove})
		}
	}
	if c.can(BrokerDown) && c.can(BrokerUp) && len(c.Brokers) > 1 && d.intn("broker down?", 2) == 0 {
		down := 3 + d.intn("down round", last-6)
		up := min(down+2+d.intn("down for", 6), last)
		b := c.Brokers[d.intn("broker", len(c.Brokers))]
		out = append(out, ClusterFault{Round: down, Kind: BrokerDown, Broker: b}, ClusterFault{Round: up, Kind: BrokerUp, Broker: b})
	}
	if c.can(ConnectionReset) && clients > 0 {
		for i, n := 0, d.intn("resets", 4); i < n; i++ {
			out = append(out, ClusterFault{Round: 2 + d.intn("reset round", last-2), Kind: ConnectionReset, Client: d.intn("reset client", clients)})
		}
	}
	slices.SortStableFunc(out, func(a, b ClusterFault) int { return a.Round - b.Round })
	return out
}

// validateClusterFaults checks that each cluster fault is of a known kind,
// within the run, in order, names a client that exists, and that a broker
// goes up only after it went down.
func (p *Plan) validateClusterFaults() error {
	down := map[int32]bool{}
	for i, f := range p.ClusterFaults {
		if !slices.Contains(ClusterFaultKinds(), f.Kind) {
			return fmt.Errorf("plan: cluster fault %d: unknown kind %q (known: %v)", i, f.Kind, ClusterFaultKinds())
		}
		if f.Round < 1 || f.Round >= p.Rounds || i > 0 && f.Round < p.ClusterFaults[i-1].Round {
			return fmt.Errorf("plan: cluster fault %d (%s) must fall in order within rounds 1 to %d", i, f, p.Rounds-1)
		}
		switch f.Kind {
		case ConnectionReset:
			if f.Client < 0 || f.Client >= len(p.Clients) {
				return fmt.Errorf("plan: cluster fault %d (%s) names no client", i, f)
			}
		case BrokerDown:
			if down[f.Broker] {
				return fmt.Errorf("plan: cluster fault %d (%s): the broker is down already", i, f)
			}
			down[f.Broker] = true
		case BrokerUp:
			if !down[f.Broker] {
				return fmt.Errorf("plan: cluster fault %d (%s): the broker is not down", i, f)
			}
			delete(down, f.Broker)
		}
	}
	return nil
}
