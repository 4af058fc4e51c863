package rules_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// The checks run at every observation of a run avoid maps and parsing
// where they can (UniqueMemberIDs, NoDoubleClientAssignment below a size,
// IsZeroUUIDString's first character, EpochTracker's keys,
// OneMemberPerProcess's list made only for a report). These
// properties hold them to the plain versions they replaced, kept here as
// references, on generated observations with few and with many processes
// and partitions (so that both the scan and the map paths are taken) and
// with the duplicates and zero ids the checks exist to catch.

func refUniqueMemberIDs(o rules.Observation) error {
	seen := map[string]string{}
	for _, p := range o.Processes {
		if !p.Live || p.MemberID == "" {
			continue
		}
		key := p.GroupID + "\x00" + p.MemberID
		if other, ok := seen[key]; ok {
			return &rules.Violation{Rule: string(rules.RuleUniqueMemberIDs), Detail: fmt.Sprintf("processes %s and %s both hold member id %s in group %s", other, p.Name, p.MemberID, p.GroupID)}
		}
		seen[key] = p.Name
	}
	return nil
}

func refNoDoubleClientAssignment(groups []rules.GroupSnapshot) error {
	for _, g := range groups {
		owner := map[rules.TopicPartition]string{}
		for _, m := range g.Members {
			for _, p := range m.Owned() {
				if o, ok := owner[p]; ok && o == m.MemberID {
					return &rules.Violation{Rule: string(rules.RuleNoDoubleClientAssignment), Detail: fmt.Sprintf("group %s: %s-%d is listed twice in member %s's assignment", g.GroupID, p.Topic, p.Partition, o)}
				} else if ok {
					return &rules.Violation{Rule: string(rules.RuleNoDoubleClientAssignment), Detail: fmt.Sprintf("group %s: %s-%d is owned by both %s and %s", g.GroupID, p.Topic, p.Partition, o, m.MemberID)}
				}
				owner[p] = m.MemberID
			}
		}
	}
	return nil
}

func refOneMemberPerProcess(o rules.Observation) error {
	for _, p := range o.Processes {
		if !p.Live {
			continue
		}
		var ids []string
		for _, g := range o.Groups {
			if g.GroupID != p.GroupID {
				continue
			}
			for _, m := range g.Members {
				if slices.Contains(p.AllIDs, m.MemberID) || (m.MemberID == p.MemberID && m.MemberID != "") {
					ids = append(ids, m.MemberID)
				}
			}
		}
		if len(ids) > 1 {
			return &rules.Violation{Rule: string(rules.RuleOneMemberPerProcess), Detail: fmt.Sprintf("process %s accounts for %d members of group %s: %s", p.Name, len(ids), p.GroupID, strings.Join(ids, ", "))}
		}
	}
	return nil
}

func refIsZeroUUIDString(s string) bool {
	u, err := codec.ParseUUID(s)
	return err == nil && u.IsZero()
}

// refEpochs is EpochTracker.Observe with string keys.
type refEpochs struct{ member, group map[string]int32 }

func (t *refEpochs) observe(groups []rules.GroupSnapshot) error {
	if t.member == nil {
		t.member, t.group = map[string]int32{}, map[string]int32{}
	}
	for _, g := range groups {
		if last, ok := t.group[g.GroupID]; ok && g.Epoch < last {
			return &rules.Violation{Rule: string(rules.RuleMonotonicEpochs), Detail: fmt.Sprintf("group %s epoch went from %d to %d", g.GroupID, last, g.Epoch)}
		}
		t.group[g.GroupID] = g.Epoch
		for _, m := range g.Members {
			if m.Epoch <= 0 {
				continue
			}
			key := g.GroupID + "\x00" + m.MemberID
			if last, ok := t.member[key]; ok && m.Epoch < last {
				return &rules.Violation{Rule: string(rules.RuleMonotonicEpochs), Detail: fmt.Sprintf("member %s of group %s went from epoch %d to %d", m.MemberID, g.GroupID, last, m.Epoch)}
			}
			t.member[key] = m.Epoch
		}
	}
	return nil
}

func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Error() == b.Error()
}

// idGen draws member ids from a small pool (so that they repeat), the
// zero UUID in both forms and near misses among them.
func idGen() *rapid.Generator[string] {
	return rapid.SampledFrom([]string{"", "m1", "m2", "m3", "AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAB", "AAAAAAAAAAAAAAAAAAAAAQ",
		"BAAAAAAAAAAAAAAAAAAAAA", "00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001",
		"10000000-0000-0000-0000-000000000000", "00000000x0000-0000-0000-000000000000", "AAAAAAAAAAAAAAAAAAAAA!", "AAAA"})
}

func TestFastInvariantsAreTheReferences(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		groupIDs := []string{"g", "h"}
		nproc := rapid.SampledFrom([]int{0, 1, 3, 8, 31, 32, 33, 70}).Draw(t, "processes")
		var o rules.Observation
		for i := 0; i < nproc; i++ {
			o.Processes = append(o.Processes, rules.Process{Name: fmt.Sprintf("p%d", i),
				GroupID: rapid.SampledFrom(groupIDs).Draw(t, "group"), MemberID: idGen().Draw(t, "member"),
				Live: rapid.Bool().Draw(t, "live"), AllIDs: rapid.SliceOfN(rapid.SampledFrom([]string{"m0", "m1", "m2", "m5"}), 0, 2).Draw(t, "all ids")})
		}
		if a, b := rules.UniqueMemberIDs(o), refUniqueMemberIDs(o); !sameErr(a, b) {
			t.Fatalf("UniqueMemberIDs %v, reference %v", a, b)
		}
		for _, p := range o.Processes {
			if a, b := rules.IsZeroUUIDString(p.MemberID), refIsZeroUUIDString(p.MemberID); a != b {
				t.Fatalf("IsZeroUUIDString(%q) %v, reference %v", p.MemberID, a, b)
			}
		}
		if s := rapid.String().Draw(t, "any string"); rules.IsZeroUUIDString(s) != refIsZeroUUIDString(s) {
			t.Fatalf("IsZeroUUIDString(%q) differs", s)
		}
		var epochs rules.EpochTracker
		var ref refEpochs
		for round := 0; round < rapid.IntRange(1, 4).Draw(t, "rounds"); round++ {
			var groups []rules.GroupSnapshot
			for _, gid := range groupIDs {
				g := rules.GroupSnapshot{GroupID: gid, Epoch: int32(rapid.IntRange(0, 3).Draw(t, "group epoch"))}
				parts := rapid.SampledFrom([]int{2, 10, 40}).Draw(t, "partitions")
				for m := 0; m < rapid.SampledFrom([]int{0, 1, 3, 12}).Draw(t, "members"); m++ {
					ms := rules.MemberSnapshot{MemberID: fmt.Sprintf("m%d", m), Epoch: int32(rapid.IntRange(-2, 3).Draw(t, "epoch"))}
					for k := rapid.IntRange(0, parts).Draw(t, "assigned"); k > 0; k-- {
						ms.Assigned = append(ms.Assigned, rules.TopicPartition{Topic: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "topic"), Partition: int32(rapid.IntRange(0, parts).Draw(t, "p"))})
					}
					for k := rapid.IntRange(0, 2).Draw(t, "pending"); k > 0; k-- {
						ms.Pending = append(ms.Pending, rules.TopicPartition{Topic: "a", Partition: int32(rapid.IntRange(0, parts).Draw(t, "p"))})
					}
					g.Members = append(g.Members, ms)
				}
				groups = append(groups, g)
			}
			if a, b := rules.NoDoubleClientAssignment(groups), refNoDoubleClientAssignment(groups); !sameErr(a, b) {
				t.Fatalf("NoDoubleClientAssignment %v, reference %v", a, b)
			}
			o.Groups = groups
			if a, b := rules.OneMemberPerProcess(o), refOneMemberPerProcess(o); !sameErr(a, b) {
				t.Fatalf("OneMemberPerProcess %v, reference %v", a, b)
			}
			if a, b := epochs.Observe(groups), ref.observe(groups); !sameErr(a, b) {
				t.Fatalf("EpochTracker %v, reference %v", a, b)
			}
		}
	})
}

// The generators above do reach the violations (else the property would
// hold vacuously).
func TestFastInvariantsReferencesFire(t *testing.T) {
	o := rules.Observation{Processes: []rules.Process{{Name: "a", GroupID: "g", MemberID: "m", Live: true}, {Name: "b", GroupID: "g", MemberID: "m", Live: true}}}
	if err := rules.UniqueMemberIDs(o); err == nil || !strings.Contains(err.Error(), "a and b") {
		t.Fatalf("UniqueMemberIDs: %v", err)
	}
	g := []rules.GroupSnapshot{{GroupID: "g", Members: []rules.MemberSnapshot{{MemberID: "x", Assigned: []rules.TopicPartition{{"t", 0}}}, {MemberID: "y", Pending: []rules.TopicPartition{{"t", 0}}}}}}
	if err := rules.NoDoubleClientAssignment(g); err == nil || !strings.Contains(err.Error(), "x and y") {
		t.Fatalf("NoDoubleClientAssignment: %v", err)
	}
	for _, z := range []string{"AAAAAAAAAAAAAAAAAAAAAA", "00000000-0000-0000-0000-000000000000"} {
		if !rules.IsZeroUUIDString(z) {
			t.Fatalf("IsZeroUUIDString(%q) false", z)
		}
	}
}
