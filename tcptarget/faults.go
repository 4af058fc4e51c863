package tcptarget

import (
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/plan"
)

// Control plays the faults of a cluster the target cannot play through
// the Kafka protocol: a fake's or mock's own controls (kfake's
// RehashCoordinators, RemoveNode and AddNode; librdkafka's mock's
// coordinator setting and broker down/up). A real cluster has none.
type Control interface {
	// Kinds are the faults it plays: plan.CoordinatorMove,
	// plan.BrokerDown and plan.BrokerUp (a connection reset the target
	// plays itself).
	Kinds() []plan.ClusterFaultKind
	// MoveCoordinators moves the coordinator of every group; groups are
	// those the target has sent requests about, for a control that moves
	// one group at a time.
	MoveCoordinators(groups []string) error
	// StopBroker stops broker id; StartBroker starts it again at its
	// address.
	StopBroker(id int32) error
	StartBroker(id int32) error
}

// CanPlay implements driver.ClusterFaulter: a connection reset always
// (the target resets its own socket), the others when the Control plays
// them.
func (t *Target) CanPlay(k plan.ClusterFaultKind) bool {
	if k == plan.ConnectionReset {
		return true
	}
	return t.Control != nil && slices.Contains(t.Control.Kinds(), k)
}

// Cluster is what the target can play, for plan.ForRealTime
// (RealTime.Cluster): its brokers, and the faults it can play with them.
func (t *Target) Cluster() *plan.Cluster {
	c := &plan.Cluster{}
	for _, b := range t.cl.Brokers() {
		c.Brokers = append(c.Brokers, b.ID)
	}
	for _, k := range plan.ClusterFaultKinds() {
		if t.CanPlay(k) {
			c.Kinds = append(c.Kinds, k)
		}
	}
	return c
}

// PlayClusterFault implements driver.ClusterFaulter. A broker stopped or
// started is followed by a Metadata refresh, so the cluster routes by the
// brokers there are; a stopped broker's connections are closed by the
// target too (kfake's RemoveNode closes only the listener, and keeps
// serving the connections it had).
func (t *Target) PlayClusterFault(f plan.ClusterFault, conn uint64) error {
	switch f.Kind {
	case plan.ConnectionReset:
		t.reset(conn)
		return nil
	case plan.CoordinatorMove:
		if t.Control == nil {
			return fmt.Errorf("tcptarget: no Control to move coordinators with")
		}
		return t.Control.MoveCoordinators(t.routedGroups())
	case plan.BrokerDown, plan.BrokerUp:
		if t.Control == nil {
			return fmt.Errorf("tcptarget: no Control to stop or start brokers with")
		}
		var err error
		if f.Kind == plan.BrokerDown {
			err = t.Control.StopBroker(f.Broker)
			t.closeBroker(f.Broker)
		} else {
			err = t.Control.StartBroker(f.Broker)
		}
		if err != nil {
			return err
		}
		return t.cl.Refresh(t.ctx)
	}
	return fmt.Errorf("tcptarget: unknown cluster fault %q", f.Kind)
}

// reset closes connection conn's socket, noting it for its next request.
func (t *Target) reset(conn uint64) {
	t.mu.Lock()
	c := t.conns[conn]
	t.mu.Unlock()
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropBroker(c.cur) {
		c.reset = append(c.reset, history.RouteStep{Kind: history.StepReset, Broker: c.cur})
	}
}

// closeBroker closes every process connection to broker id.
func (t *Target) closeBroker(id int32) {
	t.mu.Lock()
	cs := make([]*tcpConn, 0, len(t.conns))
	for _, c := range t.conns {
		cs = append(cs, c)
	}
	t.mu.Unlock()
	for _, c := range cs {
		c.mu.Lock()
		c.dropBroker(id)
		c.mu.Unlock()
	}
}

// routedGroups are the groups the target has sent requests about, sorted.
func (t *Target) routedGroups() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.groups))
	for g := range t.groups {
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}
