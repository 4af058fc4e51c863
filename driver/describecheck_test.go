package driver

import (
	"cmp"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// describedOf is the Describe answer a coordinator holding g gives,
// listing everything in the snapshot's order.
func describedOf(g rules.GroupSnapshot) codec.DescribedGroup {
	dg := codec.DescribedGroup{GroupId: g.GroupID, GroupEpoch: g.Epoch, AssignmentEpoch: g.Epoch}
	assignment := func(ps []rules.TopicPartition) codec.DescribedAssignment {
		var a codec.DescribedAssignment
		for _, p := range ps {
			if n := len(a.TopicPartitions); n > 0 && a.TopicPartitions[n-1].TopicName == p.Topic {
				a.TopicPartitions[n-1].Partitions = append(a.TopicPartitions[n-1].Partitions, p.Partition)
				continue
			}
			a.TopicPartitions = append(a.TopicPartitions, codec.DescribedTopicPartitions{TopicName: p.Topic, Partitions: []int32{p.Partition}})
		}
		return a
	}
	for _, m := range g.Members {
		dm := codec.DescribedMember{MemberId: m.MemberID, MemberEpoch: m.Epoch, SubscribedTopicNames: slices.Clone(m.SubscribedTopicNames),
			SubscribedTopicRegex: m.SubscribedTopicRegex, Assignment: assignment(m.Assigned), TargetAssignment: assignment(m.Target)}
		if m.InstanceID != "" {
			dm.InstanceId = codec.Str(m.InstanceID)
		}
		dg.Members = append(dg.Members, dm)
	}
	return dg
}

func TestDescribeAgreesCases(t *testing.T) {
	held := rules.GroupSnapshot{GroupID: "g", Epoch: 5, Members: []rules.MemberSnapshot{
		{MemberID: "a", Epoch: 5, SubscribedTopicNames: []string{"t"}, Assigned: []rules.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}}, Target: []rules.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}}},
		{MemberID: "b", InstanceID: "i", Epoch: -2, SubscribedTopicNames: []string{"t", "u"}, Assigned: []rules.TopicPartition{}, Target: []rules.TopicPartition{{Topic: "u", Partition: 0}}},
	}}
	for _, tc := range []struct {
		name   string
		edit   func(*codec.DescribedGroup)
		agrees bool // describeDisagreement finds nothing
		inOrd  bool // describedAsHeld says so without sorting
	}{
		{"as held", func(*codec.DescribedGroup) {}, true, true},
		{"members in another order", func(dg *codec.DescribedGroup) { slices.Reverse(dg.Members) }, true, false},
		{"partitions in another order", func(dg *codec.DescribedGroup) { slices.Reverse(dg.Members[0].Assignment.TopicPartitions[0].Partitions) }, true, false},
		{"names in another order", func(dg *codec.DescribedGroup) { slices.Reverse(dg.Members[1].SubscribedTopicNames) }, true, false},
		{"target not current", func(dg *codec.DescribedGroup) {
			dg.AssignmentEpoch--
			dg.Members[1].TargetAssignment = codec.DescribedAssignment{}
		}, true, true},
		{"parked member hidden", func(dg *codec.DescribedGroup) { dg.Members = dg.Members[:1] }, false, false},
		{"member shown twice", func(dg *codec.DescribedGroup) { dg.Members[1] = dg.Members[0] }, false, false},
		{"group epoch", func(dg *codec.DescribedGroup) { dg.GroupEpoch++; dg.AssignmentEpoch++ }, false, false},
		{"member epoch", func(dg *codec.DescribedGroup) { dg.Members[1].MemberEpoch = 5 }, false, false},
		{"instance id dropped", func(dg *codec.DescribedGroup) { dg.Members[1].InstanceId = codec.Null }, false, false},
		{"regex", func(dg *codec.DescribedGroup) { dg.Members[0].SubscribedTopicRegex = codec.Str("t.*") }, false, false},
		{"partition missing", func(dg *codec.DescribedGroup) { dg.Members[0].Assignment.TopicPartitions[0].Partitions = []int32{0} }, false, false},
		{"partition twice", func(dg *codec.DescribedGroup) { dg.Members[0].Assignment.TopicPartitions[0].Partitions = []int32{0, 0} }, false, false},
		{"current target differs", func(dg *codec.DescribedGroup) { dg.Members[1].TargetAssignment = codec.DescribedAssignment{} }, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dg := describedOf(held)
			tc.edit(&dg)
			shown := rules.SnapshotFromDescribe(&codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{dg}})
			what := describeDisagreement(shown[0], held)
			if (what == "") != tc.agrees {
				t.Errorf("describeDisagreement = %q, want agreement %v", what, tc.agrees)
			}
			if got := describedAsHeld(&dg, held); got != tc.inOrd {
				t.Errorf("describedAsHeld = %v, want %v", got, tc.inOrd)
			}
		})
	}
}

// TestDescribedAsHeldNeverHides: the fast path says "agrees" only where
// describeDisagreement finds nothing, over drawn groups and edits.
func TestDescribedAsHeldNeverHides(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		part := rapid.Custom(func(t *rapid.T) rules.TopicPartition {
			return rules.TopicPartition{Topic: rapid.SampledFrom([]string{"t", "u"}).Draw(t, "topic"), Partition: rapid.Int32Range(0, 2).Draw(t, "p")}
		})
		parts := func(t *rapid.T, label string) []rules.TopicPartition {
			ps := rapid.SliceOfNDistinct(part, 0, 4, func(p rules.TopicPartition) rules.TopicPartition { return p }).Draw(t, label)
			slices.SortFunc(ps, partitionOrder)
			return ps
		}
		held := rules.GroupSnapshot{GroupID: "g", Epoch: rapid.Int32Range(0, 3).Draw(t, "epoch")}
		for _, id := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b", "c"}), 0, 3, func(s string) string { return s }).Draw(t, "ids") {
			held.Members = append(held.Members, rules.MemberSnapshot{MemberID: id, Epoch: rapid.Int32Range(-2, 3).Draw(t, "e"),
				InstanceID: rapid.SampledFrom([]string{"", "i"}).Draw(t, "inst"), SubscribedTopicNames: []string{"t"},
				Assigned: parts(t, "assigned"), Target: parts(t, "target")})
		}
		slices.SortFunc(held.Members, func(a, b rules.MemberSnapshot) int { return cmp.Compare(a.MemberID, b.MemberID) })
		dg := describedOf(held)
		// Edits a broken or reordering coordinator might make.
		for _, e := range rapid.SliceOfN(rapid.IntRange(0, 6), 0, 3).Draw(t, "edits") {
			if len(dg.Members) == 0 {
				break
			}
			m := &dg.Members[rapid.IntRange(0, len(dg.Members)-1).Draw(t, "m")]
			switch e {
			case 0:
				slices.Reverse(dg.Members)
			case 1:
				m.MemberEpoch++
			case 2:
				dg.Members = dg.Members[1:]
			case 3:
				if tps := m.Assignment.TopicPartitions; len(tps) > 0 {
					slices.Reverse(tps[0].Partitions)
				}
			case 4:
				m.Assignment.TopicPartitions = append(m.Assignment.TopicPartitions, codec.DescribedTopicPartitions{TopicName: "t", Partitions: []int32{0}})
			case 5:
				dg.AssignmentEpoch--
			case 6:
				m.SubscribedTopicNames = append(m.SubscribedTopicNames, "t")
			}
		}
		shown := rules.SnapshotFromDescribe(&codec.ConsumerGroupDescribeResponse{Groups: []codec.DescribedGroup{dg}})
		if describedAsHeld(&dg, held) {
			if what := describeDisagreement(shown[0], held); what != "" {
				t.Fatalf("describedAsHeld says the views agree; describeDisagreement: %s", what)
			}
		}
	})
}

func partitionOrder(a, b rules.TopicPartition) int {
	return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
}
