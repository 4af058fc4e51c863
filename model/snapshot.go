package model

import (
	"maps"
	"slices"

	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Snapshot returns every group the coordinator holds, consumer and classic,
// in group id order, including what Describe cannot show (pending
// revocations; a classic group's generation, leader, pending ids and
// waiting requests).
func (c *Coordinator) Snapshot() []rules.GroupSnapshot {
	var buf [4]string
	ids := sortedKeys(c.groups, buf[:0])
	if len(c.classic) > 0 {
		for id := range c.classic {
			ids = append(ids, id)
		}
		slices.Sort(ids)
	}
	out := make([]rules.GroupSnapshot, 0, len(ids))
	a := c.snapshotArrays(ids)
	for _, id := range ids {
		if cg := c.classic[id]; cg != nil {
			out = append(out, cg.snapshot())
			continue
		}
		g := c.groups[id]
		gs := rules.GroupSnapshot{GroupID: id, Epoch: g.epoch}
		if k := len(g.members); k > 0 {
			gs.Members = a.members[:0:k]
			a.members = a.members[k:]
		}
		for _, m := range g.members {
			gs.Members = append(gs.Members, rules.MemberSnapshot{
				ClassicProtocol:      m.classic != nil,
				MemberID:             m.id,
				InstanceID:           m.instanceID.Value,
				Epoch:                m.epoch,
				Assigned:             c.toTopicPartitions(m.assigned, a),
				Pending:              c.toTopicPartitions(m.pending, a),
				Target:               c.toTopicPartitions(g.target[m.id], a),
				SubscribedTopicNames: a.names(m.subscribedNames),
				SubscribedTopicRegex: m.subscribedRegex,
			})
		}
		out = append(out, gs)
	}
	return out
}

// snapshotArrays are the arrays the consumer groups of one snapshot share
// (the explorer, package explore, takes a snapshot at every step): their
// members, their partition lists and their subscriptions are taken from
// the front, each capped at its end. None is nil, so that an empty list
// taken from them is empty, not nil.
type snapshotArrays struct {
	members  []rules.MemberSnapshot
	parts    []rules.TopicPartition
	subNames []string
}

// snapshotArrays makes the arrays of a snapshot of the groups ids, each at
// its size.
func (c *Coordinator) snapshotArrays(ids []string) *snapshotArrays {
	var nm, np, nn int
	for _, id := range ids {
		g := c.groups[id]
		if g == nil {
			continue // a classic group
		}
		nm += len(g.members)
		for _, m := range g.members {
			np += len(m.assigned) + len(m.pending) + len(g.target[m.id])
			nn += len(m.subscribedNames)
		}
	}
	return &snapshotArrays{
		members:  make([]rules.MemberSnapshot, nm),
		parts:    make([]rules.TopicPartition, np),
		subNames: make([]string, nn),
	}
}

// names copies a subscription into a's names, never nil.
func (a *snapshotArrays) names(s []string) []string {
	out := a.subNames[:len(s):len(s)]
	a.subNames = a.subNames[len(s):]
	copy(out, s)
	return out
}

// snapshot is a classic group's snapshot: members in id order, pending ids
// in id order (nil when none).
func (g *classicGroup) snapshot() rules.GroupSnapshot {
	cg := &rules.ClassicGroup{State: g.state.String(), Generation: g.generation, ProtocolType: g.protocolType,
		Protocol: g.protocol, Leader: g.leader}
	gs := rules.GroupSnapshot{GroupID: g.id, Epoch: g.generation, Kind: rules.KindClassic, Classic: cg}
	if len(g.members) > 0 {
		gs.Members = make([]rules.MemberSnapshot, 0, len(g.members))
	}
	for _, m := range g.members {
		ms := rules.ClassicMemberSnapshot(m.id, m.instance.Value, m.assignment)
		ms.Classic.SessionTimeoutMs, ms.Classic.New = m.sessionMs, m.isNew
		switch {
		case m.join != nil:
			ms.Classic.Waiting = rules.WaitingJoin
		case m.sync != nil:
			ms.Classic.Waiting = rules.WaitingSync
		}
		gs.Members = append(gs.Members, ms)
	}
	for _, id := range slices.Sorted(maps.Keys(g.pending)) {
		cg.Pending = append(cg.Pending, rules.PendingSnapshot{ID: id, Deadline: g.pending[id]})
	}
	return gs
}

// toTopicPartitions renders a set for a snapshot, in an array taken from
// a; never nil.
func (c *Coordinator) toTopicPartitions(s partSet, a *snapshotArrays) []rules.TopicPartition {
	out := a.parts[:0:len(s)]
	a.parts = a.parts[len(s):]
	for _, p := range s {
		out = append(out, rules.TopicPartition{Topic: c.topics[p.topic].Name, Partition: p.partition})
	}
	return out
}
