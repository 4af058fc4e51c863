package members

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
)

// list shows the members kfake holds: the ones our consumers joined, with
// the epochs kfake gave them.
func TestListAgainstKfake(t *testing.T) {
	addr := kfaketest.Start(t, kfake.NumBrokers(1), kfake.SeedTopics(4, "alpha")).ListenAddrs()[0]
	a := join(t, addr, "app-a", "inst-a")
	b := join(t, addr, "app-b", "")
	g, err := List(opts(addr), "orders")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Members) != 2 {
		t.Fatalf("listed %d members, joined 2: %+v", len(g.Members), g.Members)
	}
	want := map[string]*consumer{a.c.MemberID(): a, b.c.MemberID(): b}
	for _, m := range g.Members {
		k := want[m.MemberID]
		if k == nil {
			t.Fatalf("listed member %s that nobody joined", m.MemberID)
		}
		if m.Epoch != k.c.Epoch() {
			t.Errorf("%s listed at epoch %d, the client holds %d", m.MemberID, m.Epoch, k.c.Epoch())
		}
		if m.InstanceID != k.c.Config().InstanceID {
			t.Errorf("%s instance %q, want %q", m.MemberID, m.InstanceID, k.c.Config().InstanceID)
		}
	}
}

// kfake finding K4 (docs/findings.md): LeaveGroup against a consumer
// group does not remove by instance id; every entry is UNKNOWN_MEMBER_ID
// and the members stay. Recorded, not loosened: if kfake starts removing
// them, this test fails and the finding must be updated.
func TestRemoveAgainstKfakeFindingK4(t *testing.T) {
	addr := kfaketest.Start(t, kfake.NumBrokers(1), kfake.SeedTopics(4, "alpha")).ListenAddrs()[0]
	parked := join(t, addr, "app-p", "inst-p")
	join(t, addr, "app-x", "inst-x")
	parked.park()
	v, rs, err := Remove(opts(addr), "orders", Who{InstanceIDs: []string{"inst-p", "inst-x", "inst-unknown"}}, "decommissioned")
	if err != nil {
		t.Fatal(err)
	}
	if v < 3 {
		t.Fatalf("LeaveGroup v%d, want v3 or later", v)
	}
	for _, r := range rs {
		if r.Code != codec.UnknownMemberID {
			t.Fatalf("finding K4 no longer reproduces: %s got %s; update docs/findings.md", r.InstanceID, r.Code)
		}
	}
	g, err := List(opts(addr), "orders")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Members) != 2 {
		t.Fatalf("finding K4: both static members should still be there, listed %d", len(g.Members))
	}
}

// ...and kfake does not remove a member named by its member id either
// (Kafka 4.0 does, KAFKA-18188; docs/PROTOCOL.md A3.1), at v3+ or v0-v2:
// also finding K4.
func TestRemoveByMemberIDAgainstKfakeFindingK4(t *testing.T) {
	addr := kfaketest.Start(t, kfake.NumBrokers(1), kfake.SeedTopics(4, "alpha")).ListenAddrs()[0]
	a := join(t, addr, "app-a", "")
	b := join(t, addr, "app-b", "inst-b")
	v, rs, err := Remove(opts(addr), "orders", Who{MemberIDs: []string{a.c.MemberID(), b.c.MemberID()}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if v < 3 {
		t.Fatalf("LeaveGroup v%d, want v3 or later", v)
	}
	for _, r := range rs {
		if r.Code != codec.UnknownMemberID {
			t.Fatalf("finding K4 no longer reproduces: member %s got %s; update docs/findings.md", r.MemberID, r.Code)
		}
	}
	g, err := List(opts(addr), "orders")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Members) != 2 {
		t.Fatalf("finding K4: both members should still be there, listed %d", len(g.Members))
	}
}

// Against three kfake brokers, members lists and removes from any broker's
// address: the group's requests go to its coordinator, which
// FindCoordinator names, and follow it when it moves (RehashCoordinators);
// -v's log says where they went.
func TestListAgainstKfakeCluster(t *testing.T) {
	c := kfaketest.Start(t, kfake.NumBrokers(3), kfake.SeedTopics(4, "alpha"))
	coord := c.CoordinatorFor("orders")
	addrs := c.ListenAddrs() // broker i at addrs[i]
	other := addrs[(coord+1)%3]
	a := join(t, addrs[coord], "app-a", "inst-a")
	var log []string
	o := opts(other)
	o.Log = func(line string) { log = append(log, line) }
	g, err := List(o, "orders")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Members) != 1 || g.Members[0].MemberID != a.c.MemberID() {
		t.Fatalf("from broker %s (the coordinator is %d): listed %+v", other, coord, g.Members)
	}
	c.RehashCoordinators()
	if g, err = List(o, "orders"); err != nil || len(g.Members) != 1 {
		t.Fatalf("after the coordinators moved: %+v, %v", g, err)
	}
	t.Logf("coordinator %d, asked of %s; log: %v", coord, other, log)
}
