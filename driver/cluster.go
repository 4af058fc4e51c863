package driver

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/plan"
)

// ClusterFaulter is implemented by targets that are a cluster of brokers
// and can play its faults (tcptarget with a Control): a coordinator move,
// a broker down and up again, a client's connection to its broker reset.
// A plan's cluster faults the target cannot play are left out
// (Result.DroppedClusterFaults).
type ClusterFaulter interface {
	// CanPlay reports whether the target plays faults of kind k.
	CanPlay(k plan.ClusterFaultKind) bool
	// PlayClusterFault plays f between two rounds; conn is the
	// connection of the client process a ConnectionReset names (0 for
	// the other kinds).
	PlayClusterFault(f plan.ClusterFault, conn uint64) error
}

// Router is implemented by targets that route each request to one broker
// of a cluster (tcptarget): Route is how the last request on connection
// connID reached the broker that answered it, for its op (nil: nothing to
// record). The driver asks right after Handle returns, on the same
// connection's goroutine.
type Router interface {
	Route(connID uint64) *history.Route
}

// clusterFaultsFor keeps the cluster faults of p that t can play, with
// how many were left out.
func clusterFaultsFor(t Target, p plan.Plan) (plan.Plan, int) {
	if len(p.ClusterFaults) == 0 {
		return p, 0
	}
	cf, _ := t.(ClusterFaulter)
	var kept []plan.ClusterFault
	for _, f := range p.ClusterFaults {
		if cf != nil && cf.CanPlay(f.Kind) {
			kept = append(kept, f)
		}
	}
	dropped := len(p.ClusterFaults) - len(kept)
	p.ClusterFaults = kept
	return p, dropped
}

// clusterFault plays f at the start of the round, before any delivery. A
// fault that may move coordinators is recorded as an operation of its
// own, a restart of the coordinator of every group (Op.Restart, with
// Op.Fault naming it): the next coordinator loads each group from the
// log and starts its sessions afresh (docs/PROTOCOL.md B4.5), which the
// checks' session windows then allow for; the processes keep their
// connections (the target routes them to the new coordinators). A
// connection reset is the target's to record, on the next request of the
// connection it reset (its route); a process that has ended has nothing
// to reset. It reports false when the target failed (a harness error).
func (d *driver) clusterFault(f plan.ClusterFault) bool {
	cf, _ := d.target.(ClusterFaulter)
	var conn uint64
	if f.Kind == plan.ConnectionReset {
		if f.Client >= len(d.procs.all) || !d.procs.all[f.Client].live {
			return true
		}
		conn = d.procs.all[f.Client].wire
	}
	call := d.events.Add(1)
	err := fmt.Errorf("the target plays no cluster fault (driver.ClusterFaulter)")
	if cf != nil {
		err = cf.PlayClusterFault(f, conn)
	}
	ret := d.events.Add(1)
	if err != nil {
		d.harness("cluster fault %s: %v", f, err)
		return false
	}
	d.res.ClusterFaults[f.Kind]++
	if !f.Kind.MovesCoordinators() {
		return true
	}
	d.mu.Lock()
	d.hist = append(d.hist, history.Op{ID: len(d.hist), Client: len(d.procs.all), Name: "cluster", At: d.now, Sent: d.round,
		Call: call, Return: ret, Restart: true, Fault: string(f.Kind), Note: clusterNote(f)})
	d.obs.noteKinds()
	d.mu.Unlock()
	d.restartAt = append(d.restartAt, d.now)
	return true
}

// clusterNote says what a cluster fault did, for its op.
func clusterNote(f plan.ClusterFault) string {
	switch f.Kind {
	case plan.BrokerDown:
		return fmt.Sprintf("broker %d stopped: the coordinators it held moved", f.Broker)
	case plan.BrokerUp:
		return fmt.Sprintf("broker %d started again: coordinators may move", f.Broker)
	}
	return "coordinators moved: each group loaded from the log by its next coordinator"
}

// CanPlay forwards to the wrapped target (WithSnapshot keeps what it can
// play).
func (s *snapshotTarget) CanPlay(k plan.ClusterFaultKind) bool {
	cf, ok := s.Target.(ClusterFaulter)
	return ok && cf.CanPlay(k)
}

// PlayClusterFault forwards to the wrapped target.
func (s *snapshotTarget) PlayClusterFault(f plan.ClusterFault, conn uint64) error {
	if cf, ok := s.Target.(ClusterFaulter); ok {
		return cf.PlayClusterFault(f, conn)
	}
	return fmt.Errorf("the target plays no cluster fault (it is no ClusterFaulter)")
}

// routerOf is t as a Router, nil when it routes nothing. A target
// WithSnapshot wrapped is a Router whatever it wraps (Route forwards), so
// the one it wraps is asked instead: once a run, not at every request.
func routerOf(t Target) Router {
	switch s := t.(type) {
	case *parkingSnapshotTarget:
		t = s.Target
	case *snapshotTarget:
		t = s.Target
	}
	r, _ := t.(Router)
	return r
}

// Route forwards to the wrapped target.
func (s *snapshotTarget) Route(connID uint64) *history.Route {
	if r, ok := s.Target.(Router); ok {
		return r.Route(connID)
	}
	return nil
}
