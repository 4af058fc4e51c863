package model

import (
	"cmp"
	"slices"

	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Snapshot returns every group the coordinator holds, consumer and classic,
// in group id order, including what Describe cannot show (pending
// revocations; a classic group's generation, leader, pending ids and
// waiting requests). It is new at every call: it shares no memory with
// the coordinator nor with another snapshot.
func (c *Coordinator) Snapshot() []rules.GroupSnapshot { return c.SnapshotInto(nil) }

// SnapshotInto is Snapshot written into dst's memory, for a caller that
// takes a snapshot at every step and lets go of the last one (the
// explorer, package explore): dst's backing array, its groups' and
// members' lists and a classic group's records are reused where they are
// long enough, so that a snapshot taken again into the same dst
// allocates (almost) nothing. Everything dst holds, and everything
// reachable from it, is overwritten; the result is reflect.DeepEqual to
// Snapshot's. dst must be one SnapshotInto or Snapshot returned, or nil:
// none of its lists may share memory with another.
func (c *Coordinator) SnapshotInto(dst []rules.GroupSnapshot) []rules.GroupSnapshot {
	var buf [4]string
	ids := sortedKeys(c.groups, buf[:0])
	if len(c.classic) > 0 {
		for id := range c.classic {
			ids = append(ids, id)
		}
		slices.Sort(ids)
	}
	out := refit(dst, len(ids))
	if out == nil {
		out = []rules.GroupSnapshot{} // empty, not nil, as ever
	}
	a := c.snapshotArrays(ids)
	for i, id := range ids {
		gs := &out[i]
		if cg := c.classic[id]; cg != nil {
			cg.snapshot(gs)
			continue
		}
		g := c.groups[id]
		switch {
		case len(g.members) == 0 && gs.Members != nil:
			out = park(out, i)
		case len(g.members) > 0 && gs.Members == nil:
			unpark(out, i)
		}
		gs = &out[i] // park may have moved out
		members := gs.Members
		*gs = rules.GroupSnapshot{GroupID: id, Epoch: g.epoch}
		if len(g.members) == 0 {
			continue // Members nil
		}
		gs.Members = take(members, len(g.members), &a.members, &a.nm)
		for j, m := range g.members {
			ms := &gs.Members[j]
			assigned, pending, target, names := ms.Assigned, ms.Pending, ms.Target, ms.SubscribedTopicNames
			*ms = rules.MemberSnapshot{
				ClassicProtocol:      m.classic != nil,
				MemberID:             m.id,
				InstanceID:           m.instanceID.Value,
				Epoch:                m.epoch,
				Assigned:             c.toTopicPartitions(m.assigned, assigned, &a),
				Pending:              c.toTopicPartitions(m.pending, pending, &a),
				Target:               c.toTopicPartitions(g.target[m.id], target, &a),
				SubscribedTopicNames: takeSome(names, len(m.subscribedNames), &a.subNames, &a.nn),
				SubscribedTopicRegex: m.subscribedRegex,
			}
			copy(ms.SubscribedTopicNames, m.subscribedNames)
		}
	}
	return out
}

// park keeps the lists of out[i], whose group has no members now (its
// Members must be nil), for a group that has some in a later snapshot
// (unpark): out[i] is swapped with an element of out's array past its
// end that holds none, made when there is none. A group in a state the
// explorer reaches is often empty in the next one, and has members again
// in the one after.
func park(out []rules.GroupSnapshot, i int) []rules.GroupSnapshot {
	all := out[:cap(out)]
	for k := len(out); k < len(all); k++ {
		if all[k].Members == nil {
			all[i], all[k] = all[k], all[i]
			return out
		}
	}
	grown := make([]rules.GroupSnapshot, len(all)+1, 2*len(all)+1)
	copy(grown, all)
	k := len(all)
	grown[i], grown[k] = grown[k], grown[i]
	return grown[:len(out)]
}

// unpark gives out[i], whose group has members but whose element holds
// no list for them, the lists of an element past out's end that holds
// some (park), if one does.
func unpark(out []rules.GroupSnapshot, i int) {
	all := out[:cap(out)]
	for k := len(out); k < len(all); k++ {
		if all[k].Members != nil {
			all[i], all[k] = all[k], all[i]
			return
		}
	}
}

// snapshotArrays are what the consumer groups of one snapshot take their
// members, partition lists and subscriptions from (take) when the
// snapshot they are written into holds none long enough: each is made on
// first need, at the size nm, np or nn says all lists still to take
// need, and each list is capped at its end.
type snapshotArrays struct {
	members    []rules.MemberSnapshot
	parts      []rules.TopicPartition
	subNames   []string
	nm, np, nn int
}

// snapshotArrays counts what a snapshot of the groups ids takes.
func (c *Coordinator) snapshotArrays(ids []string) snapshotArrays {
	var a snapshotArrays
	for _, id := range ids {
		g := c.groups[id]
		if g == nil {
			continue // a classic group
		}
		a.nm += len(g.members)
		for _, m := range g.members {
			a.np += len(m.assigned) + len(m.pending) + len(g.target[m.id])
			a.nn += len(m.subscribedNames)
		}
	}
	return a
}

// takeSome is take, never nil: a snapshot's partition lists and
// subscriptions are empty, not nil, when they hold nothing.
func takeSome[T any](old []T, n int, spare *[]T, left *int) []T {
	if n == 0 && old == nil {
		return make([]T, 0) // no allocation: every empty array is one
	}
	return take(old, n, spare, left)
}

// snapshot writes a classic group's snapshot into gs, reusing its lists
// and records: members in id order, pending ids in id order (nil when
// none).
func (g *classicGroup) snapshot(gs *rules.GroupSnapshot) {
	members, cg := gs.Members, gs.Classic
	if cg == nil {
		cg = new(rules.ClassicGroup)
	}
	pending := cg.Pending
	*cg = rules.ClassicGroup{State: g.state.String(), Generation: g.generation, ProtocolType: g.protocolType,
		Protocol: g.protocol, Leader: g.leader}
	*gs = rules.GroupSnapshot{GroupID: g.id, Epoch: g.generation, Kind: rules.KindClassic, Classic: cg}
	if len(g.members) > 0 {
		gs.Members = refit(members, len(g.members))
	}
	for i, m := range g.members {
		ms := &gs.Members[i]
		rules.ClassicMemberSnapshotInto(ms, m.id, m.instance.Value, m.assignment)
		ms.Classic.SessionTimeoutMs, ms.Classic.New = m.sessionMs, m.isNew
		switch {
		case m.join != nil:
			ms.Classic.Waiting = rules.WaitingJoin
		case m.sync != nil:
			ms.Classic.Waiting = rules.WaitingSync
		}
	}
	if len(g.pending) > 0 {
		cg.Pending = pending[:0]
		for id, at := range g.pending {
			cg.Pending = append(cg.Pending, rules.PendingSnapshot{ID: id, Deadline: at})
		}
		slices.SortFunc(cg.Pending, func(a, b rules.PendingSnapshot) int { return cmp.Compare(a.ID, b.ID) })
	}
}

// toTopicPartitions renders a set for a snapshot, in old's array where it
// fits, else in one taken from a; never nil.
func (c *Coordinator) toTopicPartitions(s partSet, old []rules.TopicPartition, a *snapshotArrays) []rules.TopicPartition {
	out := takeSome(old, len(s), &a.parts, &a.np)
	for i, p := range s {
		out[i] = rules.TopicPartition{Topic: c.topics[p.topic].Name, Partition: p.partition}
	}
	return out
}
