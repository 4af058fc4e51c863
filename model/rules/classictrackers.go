package rules

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The classic forms of the rules judged across a run (docs/PROTOCOL.md
// Part C): MonotonicEpochs on generations (GenerationTracker),
// NoDoubleClientAssignment per generation on what SyncGroup hands out
// (ClassicAssignments, LeaderAssignments), and StaticRestartKeepsAssignment
// on a static member's restart into a Stable group (ClassicRestartTracker).
// Each takes what a harness saw happen, as it happened, with the
// ClassicLedger for what happened before.

// GenerationTracker checks that a classic group's generation never goes
// back, and that no member is answered a generation below one it was
// answered before, except across a coordinator restart, which may step
// the group back to its last record (B8.14) but never below the ledger's
// floor (the highest generation known recorded). The zero value is ready.
type GenerationTracker struct {
	groups map[string]*genGroup
}

// genGroup is one group's last generation, and each member's, with the
// number of restarts the ledger had counted when each was seen.
type genGroup struct {
	last    genSeen
	members map[string]genSeen
	// carried: last is the generation a downgrade carried over (Carry).
	carried bool
}

type genSeen struct {
	gen      int32
	restarts int
}

// stepBack reports the violation of a generation seen at gen after prev:
// nil when it is not lower, or lower only across a restart and not below
// floor.
func stepBack(what string, prev genSeen, gen int32, restarts int, floor int32) error {
	switch {
	case gen >= prev.gen:
		return nil
	case restarts == prev.restarts:
		return violation(RuleMonotonicEpochs, "%s went from generation %d to %d with no coordinator restart between", what, prev.gen, gen)
	case gen < floor:
		return violation(RuleMonotonicEpochs, "%s went from generation %d to %d across a coordinator restart, below generation %d, which the coordinator had recorded (a SyncGroup answered NONE, a join phase ended Empty, or a static replacement answered in Stable)",
			what, prev.gen, gen, floor)
	}
	return nil
}

func (t *GenerationTracker) group(id string) *genGroup {
	if t.groups == nil {
		t.groups = map[string]*genGroup{}
	}
	g := t.groups[id]
	if g == nil {
		g = &genGroup{last: genSeen{gen: -1}, members: map[string]genSeen{}}
		t.groups[id] = g
	}
	return g
}

// Answered records a response of group answered NONE at generation gen to
// member (a JoinGroup, a SyncGroup or a Heartbeat: each carries the group's
// generation of its moment) and reports the first step back it shows.
func (t *GenerationTracker) Answered(l *ClassicLedger, group, member string, gen int32) error {
	g := t.group(group)
	restarts, floor := l.Restarts(), l.Floor(group)
	err := stepBack(g.what(group), g.last, gen, restarts, floor)
	g.carried = g.carried && gen == g.last.gen
	g.last = genSeen{gen, restarts}
	if member != "" {
		if prev, ok := g.members[member]; ok && err == nil {
			err = stepBack(fmt.Sprintf("member %s of group %s", member, group), prev, gen, restarts, floor)
		}
		g.members[member] = genSeen{gen, restarts}
	}
	return err
}

// Observe records the classic groups of a coordinator's own snapshot
// (their generations: not DescribeGroups', which shows none) and reports
// the first that went back. A group seen Stable or Empty has its
// generation recorded (B8.14), which raises the ledger's floor.
func (t *GenerationTracker) Observe(l *ClassicLedger, groups []GroupSnapshot) error {
	var first error
	for i := range groups {
		gs := &groups[i]
		if gs.Kind != KindClassic || gs.Classic == nil {
			continue
		}
		gen := gs.Classic.Generation
		if st := gs.Classic.State; st == ClassicStable || st == ClassicEmpty {
			l.Recorded(gs.GroupID, gen)
		}
		g := t.group(gs.GroupID)
		restarts := l.Restarts()
		if err := stepBack(g.what(gs.GroupID), g.last, gen, restarts, l.Floor(gs.GroupID)); err != nil && first == nil {
			first = err
		}
		g.carried = g.carried && gen == g.last.gen
		g.last = genSeen{gen, restarts}
	}
	return first
}

// Forget drops group: its id now names a group of the other protocol, or
// a classic group made afresh at generation 0 (A6.4).
func (t *GenerationTracker) Forget(group string) { delete(t.groups, group) }

// Clone is a copy of t that later changes leave t as it is.
func (t *GenerationTracker) Clone() *GenerationTracker {
	c := &GenerationTracker{groups: make(map[string]*genGroup, len(t.groups))}
	for id, g := range t.groups {
		gg := *g
		gg.members = make(map[string]genSeen, len(g.members))
		for k, v := range g.members {
			gg.members[k] = v
		}
		c.groups[id] = &gg
	}
	return c
}

// ClassicAssignments checks NoDoubleClientAssignment on what a classic
// coordinator's SyncGroup answers hand out: within one generation (between
// two restarts: a restart may hand a generation number out again, B8.14)
// no partition goes to two owners. An owner is a static member's instance
// id (its replacement takes its assignment, A6.2) or a dynamic member's id.
// Assignments are read as the consumer protocol's; bytes that are not one
// assign nothing. The zero value is ready.
type ClassicAssignments struct {
	groups map[string]*generationOwners
}

// generationOwners are the owners of a group's partitions in its latest
// generation handed out.
type generationOwners struct {
	gen      int32
	restarts int
	owner    map[TopicPartition]string
}

// Synced records the assignment a SyncGroup of group answered NONE at
// generation gen handed to owner, and reports a partition another owner
// was handed in that generation.
func (t *ClassicAssignments) Synced(l *ClassicLedger, group string, gen int32, owner string, assignment []byte) error {
	if t.groups == nil {
		t.groups = map[string]*generationOwners{}
	}
	restarts := l.Restarts()
	g := t.groups[group]
	if g == nil || g.gen != gen || g.restarts != restarts {
		g = &generationOwners{gen: gen, restarts: restarts, owner: map[TopicPartition]string{}}
		t.groups[group] = g
	}
	for _, p := range DecodeAssignment(assignment) {
		if o, ok := g.owner[p]; ok && o != owner {
			return violation(RuleNoDoubleClientAssignment, "classic group %s, generation %d: SyncGroup answers hand %s-%d to both %s and %s",
				group, gen, p.Topic, p.Partition, o, owner)
		}
		g.owner[p] = owner
	}
	return nil
}

// Forget drops group (as GenerationTracker.Forget).
func (t *ClassicAssignments) Forget(group string) { delete(t.groups, group) }

// LeaderAssignments reports a partition a classic leader's SyncGroup
// assigns to two members of its generation: the leader broke the rule, and
// its request is what a report names.
func LeaderAssignments(group string, gen int32, as []codec.SyncGroupRequestAssignment) error {
	owner := map[TopicPartition]string{}
	for _, a := range as {
		for _, p := range DecodeAssignment(a.Assignment) {
			if o, ok := owner[p]; ok && o != a.MemberId {
				return violation(RuleNoDoubleClientAssignment, "classic group %s, generation %d: the leader's SyncGroup assigns %s-%d to both %s and %s",
					group, gen, p.Topic, p.Partition, o, a.MemberId)
			}
			owner[p] = a.MemberId
		}
	}
	return nil
}

// ClassicRestart is one JoinGroup of a static member's new process
// (MemberId "" and an instance id) to a classic group, as the harness saw
// it handled, with the coordinator's snapshots of the group just before
// and just after.
type ClassicRestart struct {
	Request *codec.JoinGroupRequest
	// Response is the answer, nil while the coordinator holds the
	// JoinGroup.
	Response        *codec.JoinGroupResponse
	Before, After   GroupSnapshot
	MaxGroupSize    int  // the coordinator's group.max.size (0 none)
	BeforeHeldGroup bool // Before shows the group (it existed)
}

// ClassicRestartTracker checks StaticRestartKeepsAssignment's classic form
// (A6.2): a static member's new process that joins a Stable group under
// the instance id, listing the protocol names its predecessor last listed,
// in order, while its predecessor had synced the current generation, is
// answered NONE at that generation; the group stays Stable at it; and the
// new member's SyncGroup at that generation hands it exactly what its
// predecessor was given. The zero value is ready.
type ClassicRestartTracker struct {
	// expect are the assignments due to restarted members' SyncGroups,
	// by group and member id.
	expect map[groupMember]expectedSync
}

type expectedSync struct {
	gen        int32
	assignment []byte
	instance   string
	was        string
}

// Restarted judges one static restart (r) and reports how it broke the
// rule; it remembers what the new member's SyncGroup must carry.
func (t *ClassicRestartTracker) Restarted(l *ClassicLedger, r ClassicRestart) error {
	req, b := r.Request, r.Before
	if !r.BeforeHeldGroup || b.Classic == nil || b.Classic.State != ClassicStable || !req.GroupInstanceId.Valid || req.MemberId != "" {
		return nil
	}
	inst := req.GroupInstanceId.Value
	var old *MemberSnapshot
	for i := range b.Members {
		if b.Members[i].InstanceID == inst {
			old = &b.Members[i]
		}
	}
	if old == nil {
		return nil // a new static member, no restart
	}
	names := make([]string, len(req.Protocols))
	for i, p := range req.Protocols {
		names[i] = p.Name
	}
	switch {
	case l.Protocols(b.GroupID, old.MemberID) == "" || l.Protocols(b.GroupID, old.MemberID) != strings.Join(names, ","):
		return nil // the selected protocol may change: a rebalance is allowed
	case !l.SyncedAt(b.GroupID, old.MemberID, b.Classic.Generation):
		return nil // the replaced id still owed its SyncGroup: Kafka rebalances later (B8.10)
	case r.MaxGroupSize > 0 && len(b.Members) >= r.MaxGroupSize:
		return nil // refused GROUP_MAX_SIZE_REACHED (B8.11)
	}
	a, gen := r.After, b.Classic.Generation
	what := fmt.Sprintf("classic group %s: static member %s (instance %s) restarted into the Stable group at generation %d", b.GroupID, old.MemberID, inst, gen)
	resp := r.Response
	if resp == nil {
		if held(a, old.MemberID, inst) {
			return nil // held behind another request of its connection: not handled yet
		}
		return violation(RuleStaticRestartKeepsAssignment, "%s, and its JoinGroup was held in a join phase instead of answered at once", what)
	}
	switch {
	case resp.ErrorCode != codec.None:
		return violation(RuleStaticRestartKeepsAssignment, "%s, and its JoinGroup was answered %v", what, resp.ErrorCode)
	case resp.GenerationId != gen:
		return violation(RuleStaticRestartKeepsAssignment, "%s, and its JoinGroup was answered at generation %d", what, resp.GenerationId)
	case a.Classic == nil || a.Classic.State != ClassicStable || a.Classic.Generation != gen:
		st, ag := "", int32(0)
		if a.Classic != nil {
			st, ag = a.Classic.State, a.Classic.Generation
		}
		return violation(RuleStaticRestartKeepsAssignment, "%s, and the group went to %s at generation %d", what, st, ag)
	}
	var got []byte
	found := false
	for _, m := range a.Members {
		if m.MemberID == resp.MemberId {
			found = true
			if m.Classic != nil {
				got = m.Classic.Assignment
			}
		}
	}
	var want []byte
	if old.Classic != nil {
		want = old.Classic.Assignment
	}
	if !found {
		return violation(RuleStaticRestartKeepsAssignment, "%s, and the group does not hold the new member %s it answered", what, resp.MemberId)
	}
	if !bytes.Equal(got, want) {
		return violation(RuleStaticRestartKeepsAssignment, "%s, and the new member %s holds %v, not its predecessor's %v", what, resp.MemberId, DecodeAssignment(got), DecodeAssignment(want))
	}
	if t.expect == nil {
		t.expect = map[groupMember]expectedSync{}
	}
	t.expect[groupMember{b.GroupID, resp.MemberId}] = expectedSync{gen: gen, assignment: slices.Clone(want), instance: inst, was: old.MemberID}
	return nil
}

// held reports whether g still shows the instance held by member id.
func held(g GroupSnapshot, id, inst string) bool {
	for _, m := range g.Members {
		if m.MemberID == id && m.InstanceID == inst {
			return true
		}
	}
	return false
}

// Synced judges a SyncGroup of a restarted member answered NONE at
// generation gen: it must hand over exactly its predecessor's assignment.
func (t *ClassicRestartTracker) Synced(group, member string, gen int32, assignment []byte) error {
	k := groupMember{group, member}
	e, ok := t.expect[k]
	if !ok || e.gen != gen {
		return nil
	}
	delete(t.expect, k)
	if !bytes.Equal(nonEmpty(assignment), nonEmpty(e.assignment)) {
		return violation(RuleStaticRestartKeepsAssignment, "classic group %s: the SyncGroup of %s, which took instance %s's place from %s without a rebalance at generation %d, handed it %v, not its predecessor's %v",
			group, member, e.instance, e.was, gen, DecodeAssignment(assignment), DecodeAssignment(e.assignment))
	}
	return nil
}

// nonEmpty is b, or nil when empty.
func nonEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// Forget drops what the tracker expects in group.
func (t *ClassicRestartTracker) Forget(group string) {
	for k := range t.expect {
		if k.group == group {
			delete(t.expect, k)
		}
	}
}
