package targets

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// ModelSnapshot's output is in model.Snapshot's canonical form whatever
// impl hands it: the cases pin the form field by field (reflect.DeepEqual
// tells nil from empty).
func TestModelSnapshotCanonicalForm(t *testing.T) {
	tp := func(topic string, p int32) impl.TopicPartition {
		return impl.TopicPartition{Topic: topic, Partition: p}
	}
	mtp := func(topic string, p int32) rules.TopicPartition {
		return rules.TopicPartition{Topic: topic, Partition: p}
	}
	none := []rules.TopicPartition{}
	noTopics := []string{}
	cases := []struct {
		name string
		in   []impl.GroupSnapshot
		want []rules.GroupSnapshot
	}{
		{"no groups is an empty list, not nil", nil, []rules.GroupSnapshot{}},
		{"a group without members keeps Members nil",
			[]impl.GroupSnapshot{{GroupID: "g", Epoch: 3}},
			[]rules.GroupSnapshot{{GroupID: "g", Epoch: 3}}},
		{"nil partition and topic lists become empty ones",
			[]impl.GroupSnapshot{{GroupID: "g", Epoch: 1, Members: []impl.MemberSnapshot{{MemberID: "m", InstanceID: "i", Epoch: 1}}}},
			[]rules.GroupSnapshot{{GroupID: "g", Epoch: 1, Members: []rules.MemberSnapshot{{MemberID: "m", InstanceID: "i", Epoch: 1, Assigned: none, Pending: none, Target: none, SubscribedTopicNames: noTopics}}}}},
		{"groups, members and partitions come out in order",
			[]impl.GroupSnapshot{
				{GroupID: "g2", Epoch: 2, Members: []impl.MemberSnapshot{
					{MemberID: "b", Epoch: 2, Assigned: []impl.TopicPartition{tp("beta", 0), tp("alpha", 2), tp("alpha", 1)}, Pending: []impl.TopicPartition{tp("gamma", 0)},
						Target: []impl.TopicPartition{tp("beta", 0), tp("alpha", 2)}, SubscribedTopicNames: []string{"beta", "alpha"}, SubscribedTopicRegex: codec.Str("g.*")},
					{MemberID: "a", Epoch: 1, Assigned: []impl.TopicPartition{}},
				}},
				{GroupID: "g1", Epoch: 1},
			},
			[]rules.GroupSnapshot{
				{GroupID: "g1", Epoch: 1},
				{GroupID: "g2", Epoch: 2, Members: []rules.MemberSnapshot{
					{MemberID: "a", Epoch: 1, Assigned: none, Pending: none, Target: none, SubscribedTopicNames: noTopics},
					{MemberID: "b", Epoch: 2, Assigned: []rules.TopicPartition{mtp("alpha", 1), mtp("alpha", 2), mtp("beta", 0)}, Pending: []rules.TopicPartition{mtp("gamma", 0)},
						Target: []rules.TopicPartition{mtp("alpha", 2), mtp("beta", 0)}, SubscribedTopicNames: []string{"alpha", "beta"}, SubscribedTopicRegex: codec.Str("g.*")},
				}},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ModelSnapshot(c.in); !reflect.DeepEqual(got, c.want) {
				t.Errorf("want %#v\ngot  %#v", c.want, got)
			}
		})
	}
}

// The canonical form is the model's own: the same requests on both
// coordinators give snapshots that are DeepEqual once converted, from no
// groups at all through members owning and revoking partitions.
func TestModelSnapshotMatchesModel(t *testing.T) {
	mc := model.DefaultConfig(7)
	m := model.NewCoordinator(mc)
	ic := ImplConfig(mc, impl.NewManualClock(0), impl.Mutants{})
	ic.NewID = model.SeededIDs(7) // a generator of its own, from the same seed
	c := impl.New(ic)
	compare := func(when string) []rules.GroupSnapshot {
		t.Helper()
		want, got := m.Snapshot(), ModelSnapshot(c.Snapshot())
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: model %#v\nimpl converted %#v", when, want, got)
		}
		return want
	}
	compare("no groups")
	hd := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, ClientId: codec.Str("app")}
	epochs := map[string]int32{}
	heartbeat := func(member string) {
		t.Helper()
		req := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: member, MemberEpoch: epochs[member], RebalanceTimeoutMs: 5000,
			SubscribedTopicNames: []string{"alpha", "beta"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
		mr, err := m.Handle(model.Conn{ID: 1}, hd, req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Handle(impl.Conn{ID: 1}, hd, req); err != nil {
			t.Fatal(err)
		}
		epochs[member] = mr.(*codec.ConsumerGroupHeartbeatResponse).MemberEpoch
	}
	sawPending := false
	for i, member := range []string{"AAAAAAAAAAAAAAAAAAAAAQ", "AAAAAAAAAAAAAAAAAAAAAg", "AAAAAAAAAAAAAAAAAAAAAQ"} {
		heartbeat(member)
		for _, g := range compare(fmt.Sprintf("after heartbeat %d", i+1)) {
			for _, ms := range g.Members {
				sawPending = sawPending || len(ms.Pending) > 0
			}
		}
	}
	if !sawPending {
		t.Error("no snapshot had a pending revocation: the test no longer covers Pending")
	}
}
