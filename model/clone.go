package model

import (
	"encoding/binary"
	"maps"
	"slices"
	"sort"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Clone returns a deep copy of the coordinator: state changes to either do
// not affect the other. The copy shares the configuration, including the id
// source (replace it with SetIDSource). The linearizability checker steps
// clones, never the original. The answers to held requests not yet
// released are copied too.
func (c *Coordinator) Clone() *Coordinator {
	out := &Coordinator{
		cfg:         c.cfg,
		topics:      c.topics,
		firstOfName: c.firstOfName,
		apis:        c.apis,
		served:      c.served,
		now:         c.now,
		groups:      make(map[string]*group, len(c.groups)),
		conns:       make(map[uint64]string, len(c.conns)),
		telemetry:   make(map[codec.UUID]*telemetryClient, len(c.telemetry)),
	}
	for id, g := range c.groups {
		out.groups[id] = g.clone()
	}
	if len(c.classic) > 0 {
		out.classic = make(map[string]*classicGroup, len(c.classic))
		for id, g := range c.classic {
			out.classic[id] = g.clone()
		}
	}
	c.cloneHeld(out)
	for id, clientID := range c.conns {
		out.conns[id] = clientID
	}
	for id, t := range c.telemetry {
		v := *t
		out.telemetry[id] = &v
	}
	return out
}

func (g *group) clone() *group {
	out := &group{
		id:        g.id,
		epoch:     g.epoch,
		members:   make([]*member, 0, len(g.members)),
		instances: make(map[string]string, len(g.instances)),
		target:    make(map[string]partSet, len(g.target)),
	}
	for _, m := range g.members {
		v := *m
		v.subscribedNames = append([]string(nil), m.subscribedNames...)
		if m.subscribedNames != nil && v.subscribedNames == nil {
			v.subscribedNames = []string{}
		}
		v.assigned = m.assigned.clone()
		v.pending = m.pending.clone()
		out.members = append(out.members, &v)
	}
	for k, v := range g.instances {
		out.instances[k] = v
	}
	for k, v := range g.target {
		out.target[k] = v.clone()
	}
	return out
}

// SetIDSource replaces the source of coordinator-made ids.
func (c *Coordinator) SetIDSource(f func() codec.UUID) { c.cfg.NewID = f }

// AppendState appends a canonical encoding of the coordinator's whole state
// (time, groups, members with every field, connections, telemetry clients,
// classic groups, held requests and answers not yet released):
// two coordinators behave the same from now on if their encodings are
// equal. The linearizability checker uses it for Equal and Hash.
func (c *Coordinator) AppendState(b []byte) []byte {
	b = binary.AppendVarint(b, c.now)
	gids := slices.Sorted(maps.Keys(c.groups))
	b = binary.AppendUvarint(b, uint64(len(gids)))
	for _, id := range gids {
		b = c.groups[id].appendState(b, c.topics)
	}
	cids := slices.Sorted(maps.Keys(c.conns))
	b = binary.AppendUvarint(b, uint64(len(cids)))
	for _, id := range cids {
		b = binary.AppendUvarint(b, id)
		b = appendString(b, c.conns[id])
	}
	tids := make([]codec.UUID, 0, len(c.telemetry))
	for id := range c.telemetry {
		tids = append(tids, id)
	}
	sort.Slice(tids, func(i, j int) bool { return string(tids[i][:]) < string(tids[j][:]) })
	b = binary.AppendUvarint(b, uint64(len(tids)))
	for _, id := range tids {
		t := c.telemetry[id]
		b = append(b, id[:]...)
		b = binary.AppendVarint(b, t.lastGet)
		b = binary.AppendVarint(b, t.lastPush)
		b = appendBool(b, t.terminating)
	}
	return c.appendClassicState(b)
}

func (g *group) appendState(b []byte, topics []Topic) []byte {
	b = appendString(b, g.id)
	b = binary.AppendVarint(b, int64(g.epoch))
	b = binary.AppendUvarint(b, uint64(len(g.members)))
	for _, m := range g.members {
		b = appendString(b, m.id)
		b = appendNullable(b, m.instanceID)
		b = appendNullable(b, m.rackID)
		b = appendString(b, m.clientID)
		b = appendString(b, m.clientHost)
		b = binary.AppendVarint(b, int64(m.epoch))
		b = binary.AppendVarint(b, int64(m.prevEpoch))
		b = appendString(b, m.state)
		b = binary.AppendVarint(b, int64(m.rebalanceTimeoutMs))
		b = appendBool(b, m.subscribedNames != nil)
		b = binary.AppendUvarint(b, uint64(len(m.subscribedNames)))
		for _, n := range m.subscribedNames {
			b = appendString(b, n)
		}
		b = appendNullable(b, m.subscribedRegex)
		b = appendNullable(b, m.serverAssignor)
		b = appendParts(b, m.assigned, topics)
		b = appendParts(b, m.pending, topics)
		b = binary.AppendVarint(b, m.sessionDeadline)
		b = binary.AppendVarint(b, m.rebalanceDeadline)
	}
	// The instance map and the target are functions of the members.
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendNullable(b []byte, s codec.NullableString) []byte {
	b = appendBool(b, s.Valid)
	return appendString(b, s.Value)
}

func appendParts(b []byte, s partSet, topics []Topic) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	for _, p := range s {
		b = appendString(b, topics[p.topic].Name)
		b = binary.AppendVarint(b, int64(p.partition))
	}
	return b
}
