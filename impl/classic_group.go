package impl

import (
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Classic groups (docs/PROTOCOL.md B8, A6), as model's classic_*.go
// states them, built for speed:
//
//   - A group id is one *group for the coordinator's life; its kind says
//     whether it is a consumer group or a classic one (cl then holds the
//     classic state). An empty group of one kind that gives way to the
//     other (A6.4) changes kind under its own lock, so nothing races
//     across the two kinds.
//   - Members are found by id in a map and kept in id order in a slice,
//     the order every answer lists them in (A6.5); joins are rare, so
//     the slice's inserts are cheap enough.
//   - A Heartbeat is a map lookup, two comparisons and a store: a
//     member's session deadline only moves later there, and its timer
//     entry is left where it is (lazy): when the entry comes due before
//     the deadline it is pushed again at the deadline. A deadline moved
//     earlier fixes its entry at once.
//   - Timers are one heap per group, ordered as the model fires them
//     (deadline, then the member or pending id, "" for the group's own,
//     then join < sync < session), and the group is registered with its
//     shard's heap at its earliest entry, as consumer groups are.
//   - Whether every member waits in the join phase is a count, not a scan.

// classicState is a classic group's state (B8.5).
type classicState uint8

const (
	classicEmpty classicState = iota
	classicPreparing
	classicCompleting
	classicStable
)

// String is Kafka's name of the state.
func (s classicState) String() string {
	switch s {
	case classicPreparing:
		return "PreparingRebalance"
	case classicCompleting:
		return "CompletingRebalance"
	case classicStable:
		return "Stable"
	}
	return "Empty"
}

// Group kinds (A6.4).
const (
	kindConsumer uint8 = iota
	kindClassic
)

// classicGroup is a classic group's state; the group's mutex guards it.
type classicGroup struct {
	mut                    Mutants // the planted bugs (mutants.go); none in real use
	state, prev            classicState
	generation             int32
	protocolType, protocol string
	leader                 string
	members                []*cmember // in member id order
	byID                   map[string]*cmember
	static                 map[string]*cmember // instance id -> holder
	pending                map[string]int64    // KIP-394 pending id -> expiry
	// The sync phase awaits every member with awaitSync set (nAwait of
	// them) and the ids in replaced: ids a static replacement replaced
	// before they synced (A6.2).
	nAwait   int
	replaced []string
	// nJoin counts the members whose JoinGroup waits.
	nJoin          int
	newMemberAdded bool
	join           joinTimer
	sync           syncTimer
	// joinSeq and syncSeq count the armings of the two timers: an entry
	// of an earlier one is stale.
	joinSeq, syncSeq uint64
	record           classicRecord
	timers           []ctimer // a min-heap (ctimerLess)
}

type joinTimer struct {
	at               int64 // noDeadline when off
	initial          bool
	delay, remaining int64
}

type syncTimer struct {
	at         int64
	generation int32
}

// cmember is one classic member.
type cmember struct {
	id, clientID, host     string
	instance               codec.NullableString
	sessionMs, rebalanceMs int32
	protocolType           string
	protocols              []cprotocol
	assignment             []byte
	isNew, awaitSync       bool
	join, sync             heldReq
	// session is the session deadline (noDeadline: none). hpos is the
	// member's entry in the timer heap (-1: none), whose deadline is at
	// most session.
	session int64
	hpos    int32
}

type cprotocol struct {
	name     string
	metadata []byte
}

// heldReq is a JoinGroup or SyncGroup the group holds (on).
type heldReq struct {
	on       bool
	version  int16
	delivery uint64
	conn     uint64
}

type classicRecord struct {
	generation                     int32
	protocolType, protocol, leader string
	members                        []recordedMember
}

type recordedMember struct {
	id, clientID, host     string
	instance               codec.NullableString
	sessionMs, rebalanceMs int32
	metadata, assignment   []byte
}

func newClassicGroup(mut Mutants) *classicGroup {
	return &classicGroup{mut: mut, byID: map[string]*cmember{}, static: map[string]*cmember{}, pending: map[string]int64{},
		join: joinTimer{at: noDeadline}, sync: syncTimer{at: noDeadline}}
}

func (g *classicGroup) transition(s classicState) { g.prev, g.state = g.state, s }

func (g *classicGroup) member(id string) *cmember { return g.byID[id] }

// put adds m in its place in the id order.
func (g *classicGroup) put(m *cmember) {
	i, _ := slices.BinarySearchFunc(g.members, m.id, func(x *cmember, id string) int { return strings.Compare(x.id, id) })
	g.members = slices.Insert(g.members, i, m)
	g.byID[m.id] = m
	if m.instance.Valid {
		g.static[m.instance.Value] = m
	}
	if m.join.on {
		g.nJoin++
	}
	if m.awaitSync {
		g.nAwait++
	}
}

// unlink takes m out of the members, the id and instance maps and the
// counts, and its timer out of the heap.
func (g *classicGroup) unlink(m *cmember) {
	if i, ok := slices.BinarySearchFunc(g.members, m.id, func(x *cmember, id string) int { return strings.Compare(x.id, id) }); ok {
		g.members = slices.Delete(g.members, i, i+1)
	}
	delete(g.byID, m.id)
	if m.instance.Valid && g.static[m.instance.Value] == m {
		delete(g.static, m.instance.Value)
	}
	if m.join.on {
		g.nJoin--
	}
	if m.awaitSync {
		g.nAwait--
		m.awaitSync = false
	}
	g.timerRemove(m)
}

func (g *classicGroup) allJoined() bool { return len(g.pending) == 0 && g.nJoin == len(g.members) }

func (g *classicGroup) rebalanceTimeout() int64 {
	var r int64
	for i, m := range g.members {
		if i == 0 || int64(m.rebalanceMs) > r {
			r = int64(m.rebalanceMs)
		}
	}
	return r
}

func deadline(now, ms int64) int64 { return now + max(ms, 0) }

func (m *cmember) lists(name string) bool {
	for i := range m.protocols {
		if m.protocols[i].name == name {
			return true
		}
	}
	return false
}

func (m *cmember) metadata(name string) []byte {
	for i := range m.protocols {
		if m.protocols[i].name == name {
			return m.protocols[i].metadata
		}
	}
	return nil
}

func (m *cmember) sameProtocols(ps []codec.JoinGroupRequestProtocol) bool {
	if len(ps) != len(m.protocols) {
		return false
	}
	for i := range ps {
		if ps[i].Name != m.protocols[i].name || string(ps[i].Metadata) != string(m.protocols[i].metadata) {
			return false
		}
	}
	return true
}

// sameProtocolNames compares the protocols' names only (a planted bug:
// MutProtocolsComparedByName).
func (m *cmember) sameProtocolNames(ps []codec.JoinGroupRequestProtocol) bool {
	if len(ps) != len(m.protocols) {
		return false
	}
	for i := range ps {
		if ps[i].Name != m.protocols[i].name {
			return false
		}
	}
	return true
}

func protocolsOf(ps []codec.JoinGroupRequestProtocol) []cprotocol {
	out := make([]cprotocol, len(ps))
	for i, p := range ps {
		out[i] = cprotocol{p.Name, slices.Clone(p.Metadata)}
	}
	return out
}

func (g *classicGroup) everyMemberLists(name string) bool {
	for _, m := range g.members {
		if !m.lists(name) {
			return false
		}
	}
	return true
}

// supportsProtocols is B8.6 step 4, as the model states it.
func (g *classicGroup) supportsProtocols(protocolType string, ps []codec.JoinGroupRequestProtocol) bool {
	if g.state == classicEmpty {
		return protocolType != "" && len(ps) > 0
	}
	if protocolType != g.protocolType && !g.mut.Has(MutProtocolTypeUnchecked) {
		return false
	}
	for i := range ps {
		if g.everyMemberLists(ps[i].Name) {
			return true
		}
	}
	return false
}

// selectProtocol is B8.7's selection with A6.5's tie rule (the smallest
// name).
func (g *classicGroup) selectProtocol() string {
	votes := map[string]int{}
	for _, m := range g.members {
		for _, p := range m.protocols {
			if g.everyMemberLists(p.name) {
				votes[p.name]++
				break
			}
		}
	}
	best, n, first := "", 0, true
	largest := g.mut.Has(MutProtocolTieLargest)
	for name, v := range votes {
		if first || v > n || v == n && (name < best) != largest {
			best, n, first = name, v, false
		}
	}
	return best
}

// memberCheck is B8.4's member check.
func (g *classicGroup) memberCheck(memberID string, instance codec.NullableString) (*cmember, codec.ErrorCode) {
	if instance.Valid {
		holder := g.static[instance.Value]
		if holder == nil {
			if g.mut.Has(MutMemberUnknownInstanceFenced) {
				return nil, codec.FencedInstanceID
			}
			return nil, codec.UnknownMemberID
		}
		if holder.id != memberID && !g.mut.Has(MutClassicNoFence) {
			return nil, codec.FencedInstanceID
		}
	}
	m := g.byID[memberID]
	if m == nil {
		return nil, codec.UnknownMemberID
	}
	return m, codec.None
}

// makeMemberID is A6.5's member id: prefix, "-", a UUID from the id source.
func (c *Coordinator) makeMemberID(prefix string) string {
	if c.mut.Has(MutMemberIDNoDash) {
		return prefix + uuid.UUID(c.ids.next()).String()
	}
	return prefix + "-" + uuid.UUID(c.ids.next()).String()
}

// removeMember is the model's removeClassicMember: a waiting JoinGroup
// answered UNKNOWN_MEMBER_ID (MemberId ""), a waiting SyncGroup dropped,
// the member gone, the smallest remaining id leading if it led.
func (g *classicGroup) removeMember(op *cop, m *cmember) {
	if m.join.on && !g.mut.Has(MutRemovedJoinNotAnswered) {
		op.answer(m.join, joinError(codec.UnknownMemberID, ""))
	}
	if m.sync.on {
		if g.mut.Has(MutRemovedSyncAnswered) {
			op.answer(m.sync, syncError(codec.UnknownMemberID))
		} else {
			op.drop(m.sync)
		}
	}
	g.unlink(m)
	m.join.on, m.sync.on = false, false
	if g.leader == m.id {
		g.leader = ""
		if len(g.members) > 0 {
			g.leader = g.members[0].id
			if g.mut.Has(MutLeaderGreatestID) {
				g.leader = g.members[len(g.members)-1].id
			}
		}
	}
}

// clearJoin marks m's JoinGroup answered.
func (g *classicGroup) clearJoin(m *cmember) {
	if m.join.on {
		m.join.on = false
		g.nJoin--
	}
}

func (g *classicGroup) setAwait(m *cmember, on bool) {
	if m.awaitSync != on {
		m.awaitSync = on
		if on {
			g.nAwait++
		} else {
			g.nAwait--
		}
	}
}

// syncDone records that the sync phase no longer awaits id; its timer
// stops once it awaits nobody.
func (g *classicGroup) syncDone(id string) {
	if m := g.byID[id]; m != nil {
		g.setAwait(m, false)
	} else if i := slices.Index(g.replaced, id); i >= 0 {
		g.replaced = slices.Delete(g.replaced, i, i+1)
	}
	if g.nAwait == 0 && len(g.replaced) == 0 {
		g.sync.at = noDeadline
	}
}

// clearAwaiting ends the sync phase's waiting.
func (g *classicGroup) clearAwaiting() {
	if g.nAwait > 0 {
		for _, m := range g.members {
			m.awaitSync = false
		}
		g.nAwait = 0
	}
	g.replaced = g.replaced[:0]
}

func (g *classicGroup) writeRecord() {
	r := classicRecord{generation: g.generation, protocolType: g.protocolType, protocol: g.protocol, leader: g.leader}
	if len(g.members) > 0 {
		r.members = make([]recordedMember, 0, len(g.members))
	}
	for _, m := range g.members {
		r.members = append(r.members, recordedMember{id: m.id, clientID: m.clientID, host: m.host, instance: m.instance,
			sessionMs: m.sessionMs, rebalanceMs: m.rebalanceMs, metadata: m.metadata(g.protocol), assignment: m.assignment})
	}
	g.record = r
}

func nullable(s string) codec.NullableString {
	if s == "" {
		return codec.Null
	}
	return codec.Str(s)
}

func joinError(code codec.ErrorCode, memberID string) *codec.JoinGroupResponse {
	return &codec.JoinGroupResponse{ErrorCode: code, GenerationId: -1, MemberId: memberID}
}

func (g *classicGroup) joinAnswer(id string, version int16, withMembers bool) *codec.JoinGroupResponse {
	resp := &codec.JoinGroupResponse{GenerationId: g.generation, ProtocolType: nullable(g.protocolType),
		ProtocolName: codec.Str(g.protocol), Leader: g.leader, MemberId: id}
	if version >= 7 && g.protocol == "" {
		resp.ProtocolName = codec.Null
	}
	if withMembers {
		resp.Members = make([]codec.JoinGroupResponseMember, 0, len(g.members))
		for _, m := range g.members {
			resp.Members = append(resp.Members, codec.JoinGroupResponseMember{MemberId: m.id, GroupInstanceId: m.instance,
				Metadata: m.metadata(g.protocol)})
		}
	}
	return resp
}

func syncError(code codec.ErrorCode) *codec.SyncGroupResponse {
	return &codec.SyncGroupResponse{ErrorCode: code}
}

func (g *classicGroup) syncAnswer(m *cmember) *codec.SyncGroupResponse {
	return &codec.SyncGroupResponse{ProtocolType: nullable(g.protocolType), ProtocolName: nullable(g.protocol),
		Assignment: m.assignment}
}
