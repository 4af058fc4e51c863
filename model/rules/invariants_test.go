package rules_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Each invariant must pass what is legal and report what is not, under its
// own rule name.

func mem(id string, epoch int32, assigned ...rules.TopicPartition) rules.MemberSnapshot {
	return rules.MemberSnapshot{MemberID: id, Epoch: epoch, Assigned: assigned, Pending: []rules.TopicPartition{}}
}

func grp(id string, epoch int32, members ...rules.MemberSnapshot) rules.GroupSnapshot {
	return rules.GroupSnapshot{GroupID: id, Epoch: epoch, Members: members}
}

func tp(topic string, p int32) rules.TopicPartition {
	return rules.TopicPartition{Topic: topic, Partition: p}
}

// live is a live process in g holding member id id (and nothing else).
func live(name, g, id string) rules.Process {
	p := rules.Process{Name: name, GroupID: g, ClientInstanceID: codec.UUID{1, byte(len(name))}, MemberID: id, Live: true, Joined: id != ""}
	if id != "" {
		p.AllIDs = []string{id}
	}
	return p
}

func dead(name, g string, graceUntil int64, ids ...string) rules.Process {
	return rules.Process{Name: name, GroupID: g, ClientInstanceID: codec.UUID{2, byte(len(name))}, MemberID: ids[0], AllIDs: ids, GraceUntil: graceUntil}
}

// wantRule checks err against rule ("" = must pass).
func wantRule(t *testing.T, name string, err error, rule string) {
	t.Helper()
	var v *rules.Violation
	switch {
	case rule == "" && err != nil:
		t.Errorf("%s: %v, want no violation", name, err)
	case rule != "" && (!errors.As(err, &v) || v.Rule != rule):
		t.Errorf("%s: %v, want a %s violation", name, err, rule)
	}
}

func TestNoGhosts(t *testing.T) {
	g := func(ids ...string) []rules.GroupSnapshot {
		var ms []rules.MemberSnapshot
		for _, id := range ids {
			ms = append(ms, mem(id, 1))
		}
		return []rules.GroupSnapshot{grp("g", 1, ms...)}
	}
	leftProc := live("p", "g", "m1")
	leftProc.Left, leftProc.Joined, leftProc.GraceUntil = true, false, 45000
	v0ghost := live("p", "g", "")
	v0ghost.AllIDs = []string{"made-1"}
	v0retry := live("p", "g", "made-2")
	v0retry.AllIDs = []string{"made-1", "made-2"}
	inflight := live("p", "g", "")
	inflight.InFlight = []string{"made-1"}
	for _, c := range []struct {
		name string
		o    rules.Observation
		rule string
	}{
		{"a live process's own member", rules.Observation{Now: 5, Groups: g("m1"), Processes: []rules.Process{live("p", "g", "m1")}}, ""},
		{"an empty group", rules.Observation{Groups: g(), Processes: []rules.Process{live("p", "g", "m1")}}, ""},
		{"a member no process accounts for", rules.Observation{Groups: g("m9"), Processes: []rules.Process{live("p", "g", "m1")}}, "NoGhosts"},
		{"a member whose id a process of another group holds", rules.Observation{Groups: g("m1"), Processes: []rules.Process{live("p", "h", "m1")}}, "NoGhosts"},
		{"a crashed process's member inside the session timeout", rules.Observation{Now: 44999, Groups: g("m1"), Processes: []rules.Process{dead("p", "g", 45000, "m1")}}, ""},
		{"a crashed process's member at the end of the session timeout", rules.Observation{Now: 45000, Groups: g("m1"), Processes: []rules.Process{dead("p", "g", 45000, "m1")}}, "NoGhosts"},
		{"a process that left, its parked member inside the session timeout", rules.Observation{Now: 100, Groups: g("m1"), Processes: []rules.Process{leftProc}}, ""},
		{"a process that left, its member after the session timeout", rules.Observation{Now: 45000, Groups: g("m1"), Processes: []rules.Process{leftProc}}, "NoGhosts"},
		{"v0: a member made for a join whose response was lost is a ghost at once", rules.Observation{Now: 1, Groups: g("made-1"), Processes: []rules.Process{v0ghost}}, "NoGhosts"},
		{"v0: after the retry, the first made member is a ghost", rules.Observation{Now: 1, Groups: g("made-1", "made-2"), Processes: []rules.Process{v0retry}}, "NoGhosts"},
		{"v0: after the retry, the second alone is fine", rules.Observation{Now: 1, Groups: g("made-2"), Processes: []rules.Process{v0retry}}, ""},
		{"an id on its way to the process", rules.Observation{Now: 1, Groups: g("made-1"), Processes: []rules.Process{inflight}}, ""},
	} {
		wantRule(t, c.name, rules.NoGhosts(c.o), c.rule)
	}
}

func TestOneMemberPerProcess(t *testing.T) {
	v0retry := live("p", "g", "made-2")
	v0retry.AllIDs = []string{"made-1", "made-2"}
	deadTwice := dead("p", "g", 10, "made-1", "made-2")
	for _, c := range []struct {
		name string
		o    rules.Observation
		rule string
	}{
		{"one member", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 1, mem("m1", 1), mem("m2", 1))}, Processes: []rules.Process{live("p", "g", "m1"), live("q", "g", "m2")}}, ""},
		{"two members of one live process (a v0 retry)", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 2, mem("made-1", 1), mem("made-2", 2))}, Processes: []rules.Process{v0retry}}, "OneMemberPerProcess"},
		{"two members of a process that ended are not its to account for", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 2, mem("made-1", 1), mem("made-2", 2))}, Processes: []rules.Process{deadTwice}}, ""},
		{"the same id in another group is not the process's", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 1, mem("made-2", 1)), grp("h", 1, mem("made-1", 1))}, Processes: []rules.Process{v0retry}}, ""},
	} {
		wantRule(t, c.name, rules.OneMemberPerProcess(c.o), c.rule)
	}
}

func TestUniqueMemberIDs(t *testing.T) {
	gone := live("q", "g", "m1")
	gone.Live = false
	for _, c := range []struct {
		name  string
		procs []rules.Process
		rule  string
	}{
		{"distinct ids", []rules.Process{live("p", "g", "m1"), live("q", "g", "m2")}, ""},
		{"two live processes with one member id in one group (librdkafka#5263)", []rules.Process{live("p", "g", "m1"), live("q", "g", "m1")}, "UniqueMemberIDs"},
		{"one id in two groups", []rules.Process{live("p", "g", "m1"), live("q", "h", "m1")}, ""},
		{"the other process ended", []rules.Process{live("p", "g", "m1"), gone}, ""},
		{"v0 processes that have no id yet", []rules.Process{live("p", "g", ""), live("q", "g", "")}, ""},
	} {
		wantRule(t, c.name, rules.UniqueMemberIDs(rules.Observation{Processes: c.procs}), c.rule)
	}
}

func TestNoZeroUUIDs(t *testing.T) {
	const zeroCanonical = "00000000-0000-0000-0000-000000000000"
	const zeroKafka = "AAAAAAAAAAAAAAAAAAAAAA"
	zeroInstance := live("p", "g", "m1")
	zeroInstance.ClientInstanceID = codec.UUID{}
	for _, c := range []struct {
		name string
		o    rules.Observation
		rule string
	}{
		{"non-zero ids everywhere", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 1, mem("m1", 1))}, Processes: []rules.Process{live("p", "g", "m1")}, GeneratedIDs: []codec.UUID{{9}}}, ""},
		{"a member id that is the zero UUID (canonical form)", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 1, mem(zeroCanonical, 1))}}, "NoZeroUUIDs"},
		{"a member id that is the zero UUID (Kafka form)", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 1, mem(zeroKafka, 1))}}, "NoZeroUUIDs"},
		{"a process holding the zero UUID as member id", rules.Observation{Processes: []rules.Process{live("p", "g", zeroCanonical)}}, "NoZeroUUIDs"},
		{"a zero client instance id", rules.Observation{Processes: []rules.Process{zeroInstance}}, "NoZeroUUIDs"},
		{"a zero generated id", rules.Observation{GeneratedIDs: []codec.UUID{{9}, {}}}, "NoZeroUUIDs"},
		{"a member id that merely contains zeros", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 1, mem("00000000-0000-4000-8000-000000000000", 1))}}, ""},
	} {
		wantRule(t, c.name, rules.NoZeroUUIDs(c.o), c.rule)
	}
}

func TestNoDoubleClientAssignment(t *testing.T) {
	pendingA0 := mem("m2", 1)
	pendingA0.Pending = []rules.TopicPartition{tp("a", 0)}
	for _, c := range []struct {
		name   string
		groups []rules.GroupSnapshot
		rule   string
	}{
		{"disjoint", []rules.GroupSnapshot{grp("g", 1, mem("m1", 1, tp("a", 0), tp("a", 1)), mem("m2", 1, tp("a", 2), tp("b", 0)))}, ""},
		{"a partition assigned to two members", []rules.GroupSnapshot{grp("g", 1, mem("m1", 1, tp("a", 0)), mem("m2", 1, tp("a", 0)))}, "NoDoubleClientAssignment"},
		{"a partition assigned to one and pending revocation on another", []rules.GroupSnapshot{grp("g", 1, mem("m1", 1, tp("a", 0)), pendingA0)}, "NoDoubleClientAssignment"},
		{"the same partition in two groups", []rules.GroupSnapshot{grp("g", 1, mem("m1", 1, tp("a", 0))), grp("h", 1, mem("m1", 1, tp("a", 0)))}, ""},
	} {
		wantRule(t, c.name, rules.NoDoubleClientAssignment(c.groups), c.rule)
	}
}

func TestQuiescentMembership(t *testing.T) {
	notJoined := live("q", "g", "m2")
	notJoined.Joined = false
	for _, c := range []struct {
		name string
		o    rules.Observation
		rule string
	}{
		{"exactly the live joined processes", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 3, mem("m1", 3))}, Processes: []rules.Process{live("p", "g", "m1"), notJoined}}, ""},
		{"everyone gone, groups empty", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 3)}, Processes: []rules.Process{dead("p", "g", 0, "m1")}}, ""},
		{"a member left behind by a process that ended", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 3, mem("m1", 3))}, Processes: []rules.Process{dead("p", "g", 0, "m1")}}, "QuiescentMembership"},
		{"a member no live joined process holds", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 3, mem("m1", 3), mem("m2", 3))}, Processes: []rules.Process{live("p", "g", "m1"), notJoined}}, "QuiescentMembership"},
		{"a joined process the group does not hold", rules.Observation{Groups: []rules.GroupSnapshot{grp("g", 3, mem("m1", 3))}, Processes: []rules.Process{live("p", "g", "m1"), live("q", "g", "m2")}}, "QuiescentMembership"},
		{"a joined process whose group does not exist", rules.Observation{Processes: []rules.Process{live("p", "g", "m1")}}, "QuiescentMembership"},
	} {
		wantRule(t, c.name, rules.QuiescentMembership(c.o), c.rule)
	}
	// The report must not depend on map order: the same observation gives
	// the same words every time.
	o := rules.Observation{Processes: []rules.Process{live("p", "g", "m1"), live("q", "g", "m2"), live("r", "h", "m3")}}
	first := rules.QuiescentMembership(o).Error()
	for i := 0; i < 50; i++ {
		if got := rules.QuiescentMembership(o).Error(); got != first {
			t.Fatalf("two reports of one observation: %q and %q", first, got)
		}
	}
}

func TestEpochTracker(t *testing.T) {
	steps := func(t *testing.T, snaps [][]rules.GroupSnapshot, rule string) {
		t.Helper()
		var tr rules.EpochTracker
		var err error
		for _, s := range snaps {
			if err = tr.Observe(s); err != nil {
				break
			}
		}
		wantRule(t, t.Name(), err, rule)
	}
	t.Run("epochs that only grow", func(t *testing.T) {
		steps(t, [][]rules.GroupSnapshot{{grp("g", 1, mem("m1", 1))}, {grp("g", 2, mem("m1", 1))}, {grp("g", 2, mem("m1", 2))}}, "")
	})
	t.Run("a group epoch going backwards", func(t *testing.T) {
		steps(t, [][]rules.GroupSnapshot{{grp("g", 3)}, {grp("g", 2)}}, "MonotonicEpochs")
	})
	t.Run("a member epoch going backwards", func(t *testing.T) {
		steps(t, [][]rules.GroupSnapshot{{grp("g", 3, mem("m1", 3))}, {grp("g", 3, mem("m1", 2))}}, "MonotonicEpochs")
	})
	t.Run("parked at -2 and rejoining at 0 are not regressions", func(t *testing.T) {
		steps(t, [][]rules.GroupSnapshot{{grp("g", 3, mem("m1", 3))}, {grp("g", 3, mem("m1", -2))}, {grp("g", 3, mem("m1", 0))}, {grp("g", 4, mem("m1", 4))}}, "")
	})
	t.Run("a member coming back below its old epoch", func(t *testing.T) {
		steps(t, [][]rules.GroupSnapshot{{grp("g", 3, mem("m1", 3))}, {grp("g", 4, mem("m1", -2))}, {grp("g", 4, mem("m1", 2))}}, "MonotonicEpochs")
	})
	t.Run("groups are tracked apart", func(t *testing.T) {
		steps(t, [][]rules.GroupSnapshot{{grp("g", 5, mem("m1", 5)), grp("h", 1, mem("m1", 1))}, {grp("g", 5, mem("m1", 5)), grp("h", 1, mem("m1", 1))}}, "")
	})
}

func TestMemberIDTracker(t *testing.T) {
	var tr rules.MemberIDTracker
	p := live("p", "g", "")
	for _, id := range []string{"", "m1", "m1", ""} {
		p.MemberID = id
		wantRule(t, "keeping one id (or none yet)", tr.Observe(&p), "")
	}
	q := live("q", "g", "m2")
	wantRule(t, "another process may have its own", tr.Observe(&q), "")
	p.MemberID = "m1-again"
	wantRule(t, "a process changing its member id", tr.Observe(&p), "StableMemberID")
}

// Ghosts names every ghost, not only the first NoGhosts reports.
func TestGhostsListsEveryGhost(t *testing.T) {
	o := rules.Observation{
		Now: 1000,
		Groups: []rules.GroupSnapshot{{GroupID: "g", Members: []rules.MemberSnapshot{
			{MemberID: "a", Epoch: 1}, {MemberID: "live", Epoch: 1}, {MemberID: "z", Epoch: 2},
		}}},
		Processes: []rules.Process{{Name: "p", GroupID: "g", MemberID: "live", Live: true, Joined: true, AllIDs: []string{"live"}}},
	}
	gs := rules.Ghosts(o)
	if len(gs) != 2 || gs[0].Member.MemberID != "a" || gs[1].Member.MemberID != "z" || gs[0].GroupID != "g" {
		t.Fatalf("Ghosts = %+v, want members a and z of group g", gs)
	}
	if err := rules.NoGhosts(o); err == nil || !strings.Contains(err.Error(), "member a ") {
		t.Fatalf("NoGhosts = %v, want it to report member a first", err)
	}
}
