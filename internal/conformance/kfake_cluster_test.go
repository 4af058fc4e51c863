package conformance_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/plan"
	"github.com/ghostcheck/ghostcheck/wire"
)

// kfakeControl plays a kfake cluster's faults for the TCP target: a
// coordinator move is RehashCoordinators (every group's coordinator is
// hashed again; kfake's group state is the cluster's, so nothing is
// loaded and the groups carry on as they were), a broker down is
// RemoveNode and up AddNode on the port it had (both move coordinators:
// the broker count changes the hash).
type kfakeControl struct {
	c     *kfake.Cluster
	mu    sync.Mutex
	ports map[int32]int
}

func newKfakeControl(t testing.TB, c *kfake.Cluster) *kfakeControl {
	t.Helper()
	cl, err := wire.Connect(context.Background(), c.ListenAddrs(), wire.ClusterOptions{Dialer: wire.Dialer{Options: wire.Options{Timeout: 3 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	k := &kfakeControl{c: c, ports: map[int32]int{}}
	for _, b := range cl.Brokers() {
		_, port, _ := net.SplitHostPort(b.Addr)
		k.ports[b.ID], _ = strconv.Atoi(port)
	}
	return k
}

func (k *kfakeControl) Kinds() []plan.ClusterFaultKind {
	return []plan.ClusterFaultKind{plan.CoordinatorMove, plan.BrokerDown, plan.BrokerUp}
}

func (k *kfakeControl) MoveCoordinators() error { k.c.RehashCoordinators(); return nil }

func (k *kfakeControl) StopBroker(id int32) error { return k.c.RemoveNode(id) }

func (k *kfakeControl) StartBroker(id int32) error {
	k.mu.Lock()
	port := k.ports[id]
	k.mu.Unlock()
	_, _, err := k.c.AddNode(id, port)
	return err
}

// clusterSweep is how many histories TestKfakeClusterHistories runs:
// GHOSTCHECK_CLUSTER_SWEEP for the long sweep, else a few.
func clusterSweep(t *testing.T) int {
	if s := os.Getenv("GHOSTCHECK_CLUSTER_SWEEP"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("GHOSTCHECK_CLUSTER_SWEEP=%q: want a count", s)
		}
		return n
	}
	if testing.Short() {
		return 1
	}
	return 3
}

// Histories against three kfake brokers whose coordinators move (and a
// broker goes down and comes back, and client connections are reset):
// a correct cluster, as kfake is across a move (it keeps every group),
// raises no alarm. kfake's own findings are set aside as against one
// broker. `GHOSTCHECK_CLUSTER_SWEEP=1000 go test -run
// TestKfakeClusterHistories -timeout 0 ./internal/conformance` is the long
// sweep.
func TestKfakeClusterHistories(t *testing.T) {
	c := startKfakeCluster(t, 3)
	n := clusterSweep(t)
	cfg := conformance.HistoryConfig{Peer: peer(c.ListenAddrs()[0]), Seed: 1, Histories: n, Options: conformance.DefaultHistoryOptions(),
		Known: kfakeKnown(t), Control: newKfakeControl(t, c), Out: os.Getenv("GHOSTCHECK_CLUSTER_OUT")}
	faults := map[plan.ClusterFaultKind]int{}
	failed := 0
	rep, err := conformance.RunHistories(cfg, func(h conformance.HistoryResult) {
		for k, v := range h.ClusterFaults {
			faults[k] += v
		}
		if h.Failed() {
			failed++
			t.Errorf("seed %d: %s %s: %s (%s)", h.Seed, h.Status, h.Rule, h.Detail, h.Plan)
		}
		if n > 20 && h.Seed%50 == 0 {
			t.Logf("%d histories, %d failed, cluster faults %v", h.Seed, failed, faults)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Histories) != n {
		t.Fatalf("%d histories of %d (stopped: %s)", len(rep.Histories), n, rep.Stopped)
	}
	t.Logf("%d histories against 3 kfake brokers: %d failed; cluster faults played %v", n, failed, faults)
	if faults[plan.CoordinatorMove] < n {
		t.Errorf("%d coordinator moves in %d histories: every history must move its coordinators at least once", faults[plan.CoordinatorMove], n)
	}
}

func (k *kfakeControl) String() string { return fmt.Sprintf("kfake control (%d brokers)", len(k.ports)) }
