package equivtest

import (
	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// The mixed mode (docs/PROTOCOL.md A7): both coordinators run under a
// migration policy, and the consumer and classic operations of the other
// modes share groups, so that classic members join consumer groups, sync
// and heartbeat there, and classic groups are upgraded and consumer
// groups downgraded. Classic processes send consumer-protocol metadata
// (their topics and what they own; now and then bytes that do not read),
// leaders deal the topics' partitions, and processes restart with the
// other protocol one at a time (a rolling upgrade, a rollback), leaving
// first or not. Timers, restarts and clones come from the shared actions.

// MixedProperty is the equivalence property in the mixed mode, with the
// given mutants planted in impl.
func MixedProperty(mut impl.Mutants) func(*rapid.T) {
	return MixedPropertyCounting(mut, nil)
}

// MixedPropertyCounting is MixedProperty with the model counting the
// clauses it applies into hits.
func MixedPropertyCounting(mut impl.Mutants, hits model.ClauseCounter) func(*rapid.T) {
	return mixedProperty(mut, hits, nil)
}

// MixedPropertyObserving is MixedProperty with observe called as
// PropertyObserving's is.
func MixedPropertyObserving(mut impl.Mutants, observe func(*impl.Coordinator)) func(*rapid.T) {
	return mixedProperty(mut, nil, observe)
}

func mixedProperty(mut impl.Mutants, hits model.ClauseCounter, observe func(*impl.Coordinator)) func(*rapid.T) {
	return func(t *rapid.T) {
		h := newHarness(t, mut, hits)
		h.observe = observe
		h.cfg.MigrationPolicy = rapid.SampledFrom([]model.MigrationPolicy{model.MigrationBidirectional, model.MigrationBidirectional,
			model.MigrationBidirectional, model.MigrationUpgrade, model.MigrationDowngrade, model.MigrationDisabled}).Draw(t, "policy")
		h.mixed = true
		h.build()
		a := h.actions(3)
		a["toConsumer"] = h.toConsumer
		a["toConsumer2"] = h.toConsumer
		a["toClassic"] = h.toClassic
		a["toClassic2"] = h.toClassic
		a["mixedClone"] = h.clone
		t.Repeat(a)
	}
}

// classicMetadata is the metadata a classic process sends for each of its
// protocols: outside the mixed mode one byte; in it a
// ConsumerProtocolSubscription of its topics and owned partitions at a
// drawn version, or (metadata 2) bytes that do not read.
func (h *harness) classicMetadata(t *rapid.T, p *cproc) []byte {
	if !h.mixed {
		return []byte{p.metadata}
	}
	version := int16(rapid.IntRange(0, 3).Draw(t, "subscriptionVersion"))
	if p.topics == nil {
		p.topics = h.drawNames(t)
	}
	if p.metadata == 2 {
		return []byte{2}
	}
	s := codec.ConsumerProtocolSubscription{Topics: p.topics, OwnedPartitions: p.owned, GenerationId: p.generation}
	if version == 3 && p.metadata == 1 {
		s.RackId = codec.Str("r1")
	}
	b, err := s.AppendTo(nil, version)
	if err != nil {
		panic(err) // a version the codec writes
	}
	return b
}

// dealt is a leader's SyncGroup assignments in the mixed mode: every
// partition of every topic dealt round robin to the members the group
// holds now, each once (a leader that hands a partition to two members,
// or one past its topic's count, is outside what impl holds: see
// docs/DESIGN.md), and an entry for a stranger.
func (h *harness) dealt(group string) []codec.SyncGroupRequestAssignment {
	members := h.classicMembers(group)
	if len(members) == 0 {
		return nil
	}
	parts := make([]codec.ConsumerProtocolAssignment, len(members))
	k := 0
	for _, name := range sortedTopicNames(h.cfg.Topics) {
		for _, tp := range h.cfg.Topics {
			if tp.Name != name {
				continue
			}
			for p := int32(0); p < tp.Partitions; p++ {
				a := &parts[k%len(members)]
				if n := len(a.AssignedPartitions); n > 0 && a.AssignedPartitions[n-1].Topic == name {
					a.AssignedPartitions[n-1].Partitions = append(a.AssignedPartitions[n-1].Partitions, p)
				} else {
					a.AssignedPartitions = append(a.AssignedPartitions, codec.ConsumerProtocolTopicPartitions{Topic: name, Partitions: []int32{p}})
				}
				k++
			}
		}
	}
	out := make([]codec.SyncGroupRequestAssignment, 0, len(members)+1)
	for i, id := range members {
		b, _ := parts[i].AppendTo(nil, int16(i%2))
		out = append(out, codec.SyncGroupRequestAssignment{MemberId: id, Assignment: b})
	}
	return append(out, codec.SyncGroupRequestAssignment{MemberId: "stranger", Assignment: []byte{1}})
}

func sortedTopicNames(ts []model.Topic) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// toConsumer restarts a classic process with the consumer protocol (a
// step of a rolling upgrade): it leaves first or not (a process that
// died), and the new one joins its group with a member id of its own,
// under its instance id when static.
func (h *harness) toConsumer(t *rapid.T) {
	p := h.existingClassic(t)
	leaveFirst := rapid.IntRange(0, 2).Draw(t, "leaveFirst") == 0
	id := drawUUID(t, "switchID")
	if leaveFirst && p.memberID != "" {
		h.doClassic(t, p.conn, codec.LeaveGroup, 3, &codec.LeaveGroupRequest{GroupId: p.group,
			Members: []codec.LeaveGroupMember{{MemberId: p.memberID, GroupInstanceId: p.instance}}})
	}
	q := &process{group: p.group, version: 1, conn: p.conn, instance: p.instance, memberID: id.Hex()}
	h.procs = append(h.procs, q)
	h.joinAs(t, q)
}

// toClassic restarts a consumer process with the classic protocol (a step
// of a rollback): it leaves first (epoch -1, or -2 for a static one) or
// not, and the new one joins with MemberId "" (again with the id
// MEMBER_ID_REQUIRED gave), under its instance id when static.
func (h *harness) toClassic(t *rapid.T) {
	p := h.existing(t)
	leave := rapid.IntRange(0, 3).Draw(t, "leaveFirst")
	version := int16(rapid.IntRange(4, 9).Draw(t, "joinVersion"))
	protocols := rapid.SampledFrom([][]string{{"range"}, {"range"}, {"uniform", "range"}}).Draw(t, "protocols")
	if leave > 0 && p.memberID != "" {
		epoch := rules.LeaveEpoch
		if leave == 2 && p.instance.Valid {
			epoch = rules.StaticLeaveEpoch
		}
		h.do(t, p.conn, h.header(t, codec.ConsumerGroupHeartbeat, p.version, p.conn), &codec.ConsumerGroupHeartbeatRequest{
			GroupId: p.group, MemberId: p.memberID, InstanceId: p.instance, MemberEpoch: epoch, RebalanceTimeoutMs: -1})
	}
	q := &cproc{group: p.group, instance: p.instance, conn: p.conn, generation: -1, protocols: protocols}
	h.cprocs = append(h.cprocs, q)
	h.classicJoinAt(t, q, version)
	if q.generation < 0 && q.memberID != "" && !q.instance.Valid {
		h.classicJoinAt(t, q, version)
	}
}
