package model

import (
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// This file holds a classic group's state (docs/PROTOCOL.md B8.5) and the
// small rules every classic request shares: the member check (B8.4), the
// protocol rules (B8.6 step 4, B8.7's selection), the leader (A6.5), the
// record a restart reloads (B8.14) and the answers' shapes (B8.1, B8.2).
// What each request does lives in classic_join.go, classic_rebalance.go
// (the join phase), classic_sync.go, classic_heartbeat.go,
// classic_leave.go and classic_describe.go; the timers in
// classic_timers.go; a restart in classic_restart.go; held requests in
// parked.go.

// classicState is a classic group's state (B8.5). There is no Dead: it
// exists only while a coordinator unloads a group, which Restart does in
// one step (A6.5).
type classicState uint8

const (
	classicEmpty classicState = iota
	classicPreparing
	classicCompleting
	classicStable
)

// String is Kafka's name of the state, as DescribeGroups shows it.
func (s classicState) String() string {
	switch s {
	case classicPreparing:
		return rules.ClassicPreparingRebalance
	case classicCompleting:
		return rules.ClassicCompletingRebalance
	case classicStable:
		return rules.ClassicStable
	}
	return rules.ClassicEmpty
}

// classicGroup is one classic group. A group id names a classic group or a
// consumer group, never both (A6.4).
type classicGroup struct {
	id string
	// state, and prev, the state before the last transition: a join phase
	// whose prev is Empty is the group's first rebalance (B8.7).
	state, prev classicState
	generation  int32 // 0 when made
	// protocolType is set by the first member added to a group without
	// members and kept until a restart reloads the group ("" = none);
	// protocol is the one the last join phase selected ("" = none).
	protocolType string
	protocol     string
	leader       string           // member id; "" = none
	members      []*classicMember // in member id order
	static       map[string]string
	// pending are the KIP-394 pending ids (A6.1), each with the time it
	// expires.
	pending map[string]int64
	// awaitingSync are the ids the sync phase still waits for (Kafka's
	// pendingSyncMembers). An id a static replacement replaced stays in it
	// (A6.2), so it may hold an id that is no longer a member.
	awaitingSync map[string]bool
	// newMemberAdded: a member was added during the first rebalance, which
	// extends it (B8.7).
	newMemberAdded bool
	join           joinTimer
	sync           syncTimer
	// record is the last record written (B8.14): what a restart reloads.
	record classicRecord
}

// joinTimer is the join phase's timer. The first rebalance's (initial)
// runs delay ms and, while members are added, again up to remaining ms
// more; any other completes the phase when it fires.
type joinTimer struct {
	at               int64 // noDeadline when off
	initial          bool
	delay, remaining int64
}

// syncTimer is the sync phase's timer, armed for one generation.
type syncTimer struct {
	at         int64 // noDeadline when off
	generation int32
}

// classicMember is one member of a classic group.
type classicMember struct {
	id       string
	clientID string
	host     string
	instance codec.NullableString
	// sessionMs and rebalanceMs are the timeouts of the member's last
	// JoinGroup (at v0 the session timeout stands for both, B8.4).
	sessionMs, rebalanceMs int32
	protocolType           string
	protocols              []classicProtocol // in the request's order
	assignment             []byte            // the leader's bytes for this member; nil = none
	// isNew: added in a join phase that has not completed; its session is
	// the new-member timeout (B8.10).
	isNew bool
	// join and sync are the member's JoinGroup and SyncGroup the
	// coordinator holds, or nil.
	join, sync *parked
	// sessionDeadline is when the session timer fires; noDeadline while
	// the member is kept without one (B8.10: its request waits).
	sessionDeadline int64
}

// classicProtocol is one protocol a member lists: a name and its metadata.
type classicProtocol struct {
	name     string
	metadata []byte
}

// classicRecord is what the coordinator writes of a group (B8.14): a
// restart reloads the group from it.
type classicRecord struct {
	generation                     int32
	protocolType, protocol, leader string
	members                        []recordedMember
}

// recordedMember is one member in a record: its metadata for the group's
// protocol, not its whole list.
type recordedMember struct {
	id, clientID, host     string
	instance               codec.NullableString
	sessionMs, rebalanceMs int32
	metadata, assignment   []byte
}

func newClassicGroup(id string) *classicGroup {
	return &classicGroup{id: id, static: map[string]string{}, pending: map[string]int64{}, awaitingSync: map[string]bool{},
		join: joinTimer{at: noDeadline}, sync: syncTimer{at: noDeadline}}
}

// transition moves the group to s, remembering the state it leaves.
func (g *classicGroup) transition(s classicState) {
	g.prev, g.state = g.state, s
}

func classicMemberCompare(m *classicMember, id string) int { return strings.Compare(m.id, id) }

// member returns the member with id, nil if the group holds none.
func (g *classicGroup) member(id string) *classicMember {
	if i, ok := slices.BinarySearchFunc(g.members, id, classicMemberCompare); ok {
		return g.members[i]
	}
	return nil
}

// put adds m in its place.
func (g *classicGroup) put(m *classicMember) {
	i, _ := slices.BinarySearchFunc(g.members, m.id, classicMemberCompare)
	g.members = slices.Insert(g.members, i, m)
	if m.instance.Valid {
		g.static[m.instance.Value] = m.id
	}
}

// allJoined is Kafka's hasAllMembersJoined: every member waits in the join
// phase and no id is pending (B8.7, A6.1).
func (g *classicGroup) allJoined() bool {
	if len(g.pending) > 0 {
		return false
	}
	for _, m := range g.members {
		if m.join == nil {
			return false
		}
	}
	return true
}

// anyJoined reports whether some member waits in the join phase.
func (g *classicGroup) anyJoined() bool {
	return slices.ContainsFunc(g.members, func(m *classicMember) bool { return m.join != nil })
}

// rebalanceTimeout is the group's rebalance timeout: the largest of its
// members' now (B8.7), 0 without members. A timer armed with one of 0 or
// less is due at once (delay).
func (g *classicGroup) rebalanceTimeout() int64 {
	var r int64
	for i, m := range g.members {
		if i == 0 || int64(m.rebalanceMs) > r {
			r = int64(m.rebalanceMs)
		}
	}
	return r
}

// delay is the deadline of a timer of ms from now: a length of 0 or less
// is due at once (at the next Advance).
func (c *Coordinator) delay(ms int64) int64 { return c.now + max(ms, 0) }

// lists reports whether the member lists a protocol named name.
func (m *classicMember) lists(name string) bool {
	return slices.ContainsFunc(m.protocols, func(p classicProtocol) bool { return p.name == name })
}

// metadata is the member's metadata for protocol name (the first entry of
// that name).
func (m *classicMember) metadata(name string) []byte {
	for _, p := range m.protocols {
		if p.name == name {
			return p.metadata
		}
	}
	return nil
}

// sameProtocols reports whether ps are the member's protocols, names and
// metadata in the same order (Kafka's ClassicGroupMember.matches).
func (m *classicMember) sameProtocols(ps []codec.JoinGroupRequestProtocol) bool {
	return slices.EqualFunc(m.protocols, ps, func(a classicProtocol, b codec.JoinGroupRequestProtocol) bool {
		return a.name == b.Name && string(a.metadata) == string(b.Metadata)
	})
}

// protocolsOf copies a request's protocols (the caller may reuse the
// request).
func protocolsOf(ps []codec.JoinGroupRequestProtocol) []classicProtocol {
	out := make([]classicProtocol, len(ps))
	for i, p := range ps {
		out[i] = classicProtocol{p.Name, slices.Clone(p.Metadata)}
	}
	return out
}

// supportsProtocols is B8.6 step 4: an Empty group takes any non-empty
// protocol type and protocol list; otherwise the type must be the group's
// and some name listed must be one every member lists now.
//
// Kafka counts a name once per entry of a member's list, so a member that
// lists one name twice counts twice for it; the model counts members, as
// docs/PROTOCOL.md states the rule ("a name every member lists"). The two
// differ only for a list naming one protocol twice, which no client sends.
func (g *classicGroup) supportsProtocols(protocolType string, ps []codec.JoinGroupRequestProtocol) bool {
	if g.state == classicEmpty {
		return protocolType != "" && len(ps) > 0
	}
	if protocolType != g.protocolType {
		return false
	}
	return slices.ContainsFunc(ps, func(p codec.JoinGroupRequestProtocol) bool { return g.everyMemberLists(p.Name) })
}

// everyMemberLists reports whether every member lists protocol name.
func (g *classicGroup) everyMemberLists(name string) bool {
	for _, m := range g.members {
		if !m.lists(name) {
			return false
		}
	}
	return true
}

// selectProtocol is B8.7's selection: among the names every member lists,
// each member votes for the first of its own list, and the most votes win;
// a tie goes to the smallest name (A6.5; Kafka breaks it by hash order).
// The protocol rules keep one name listed by every member as long as the
// group has members, so the group always has a candidate.
func (c *Coordinator) selectProtocol(g *classicGroup) string {
	votes := map[string]int{}
	for _, m := range g.members {
		for _, p := range m.protocols {
			if g.everyMemberLists(p.name) {
				votes[p.name]++
				break
			}
		}
	}
	names := make([]string, 0, len(votes))
	for name := range votes {
		names = append(names, name)
	}
	slices.Sort(names)
	best, tie := names[0], false
	for _, name := range names[1:] { // in name order: a tie keeps the smaller
		switch {
		case votes[name] > votes[best]:
			best, tie = name, false
		case votes[name] == votes[best]:
			tie = true
		}
	}
	if tie {
		c.hit("A6.5/protocol-tie")
	}
	return best
}

// memberCheck is B8.4's member check: with an instance id, UNKNOWN_MEMBER_ID
// if nobody holds it and FENCED_INSTANCE_ID if another member id does; then
// UNKNOWN_MEMBER_ID if the id is not a member (a pending id is not, A6.1).
// It returns the member, or the error code.
func (c *Coordinator) memberCheck(g *classicGroup, memberID string, instance codec.NullableString) (*classicMember, codec.ErrorCode) {
	if instance.Valid {
		holder, held := g.static[instance.Value]
		if !held {
			c.hit("B8.4/member-unknown-instance")
			return nil, codec.UnknownMemberID
		}
		if holder != memberID {
			c.hit("B8.4/member-fenced")
			return nil, codec.FencedInstanceID
		}
	}
	m := g.member(memberID)
	if m == nil {
		if _, pending := g.pending[memberID]; pending {
			c.hit("A6.1/pending-not-member")
		} else {
			c.hit("B8.4/member-unknown")
		}
		return nil, codec.UnknownMemberID
	}
	return m, codec.None
}

// makeMemberID makes a member or pending id (A6.5): prefix (the client id,
// or the instance id of a static member), "-", and a UUID from the id
// source in canonical text, one draw per id.
func (c *Coordinator) makeMemberID(prefix string) string {
	c.hit("A6.5/member-id-made")
	return prefix + "-" + uuid.UUID(c.cfg.NewID()).String()
}

// removeClassicMember is a member's full removal (B8.10, A6.3, B8.11): a JoinGroup
// it has waiting is answered UNKNOWN_MEMBER_ID with MemberId "", a SyncGroup
// it has waiting is never answered (Dropped); it leaves the members, the
// instance map and the sync phase; if it led, the remaining member with the
// smallest id leads (A6.5). It reports what became of its requests.
func (c *Coordinator) removeClassicMember(g *classicGroup, m *classicMember) (joinAnswered, syncDropped bool) {
	if m.join != nil {
		c.answer(m.join, joinError(codec.UnknownMemberID, ""))
		m.join, joinAnswered = nil, true
	}
	if m.sync != nil {
		c.drop(m.sync)
		m.sync, syncDropped = nil, true
	}
	if i, ok := slices.BinarySearchFunc(g.members, m.id, classicMemberCompare); ok {
		g.members = slices.Delete(g.members, i, i+1)
	}
	if m.instance.Valid && g.static[m.instance.Value] == m.id {
		delete(g.static, m.instance.Value)
	}
	delete(g.awaitingSync, m.id)
	if g.leader == m.id {
		g.leader = ""
		if len(g.members) > 0 {
			c.hit("A6.5/leader-smallest-id")
			g.leader = g.members[0].id
		}
	}
	return joinAnswered, syncDropped
}

// writeRecord writes the group's record as it is now (B8.14): every member
// with its metadata for the group's protocol and its assignment.
func (c *Coordinator) writeRecord(g *classicGroup) {
	c.hit("B8.14/recorded")
	r := classicRecord{generation: g.generation, protocolType: g.protocolType, protocol: g.protocol, leader: g.leader}
	for _, m := range g.members {
		r.members = append(r.members, recordedMember{id: m.id, clientID: m.clientID, host: m.host, instance: m.instance,
			sessionMs: m.sessionMs, rebalanceMs: m.rebalanceMs, metadata: slices.Clone(m.metadata(g.protocol)),
			assignment: slices.Clone(m.assignment)})
	}
	g.record = r
}

// nullable is s as a nullable string, null when empty: the group's
// protocol type or name in an answer ("" is none).
func nullable(s string) codec.NullableString {
	if s == "" {
		return codec.Null
	}
	return codec.Str(s)
}

// joinError is a JoinGroup answered with an error (B8.1): generation -1,
// no protocol, no leader, no members, and the member id given.
func joinError(code codec.ErrorCode, memberID string) *codec.JoinGroupResponse {
	return &codec.JoinGroupResponse{ErrorCode: code, GenerationId: -1, MemberId: memberID}
}

// joinAnswer is a JoinGroup answered NONE at the group's current
// generation for member id, with the leader's Members list when
// withMembers (B8.1). A v7+ answer's empty protocol name is null, as
// Kafka's JoinGroupResponse writes it.
func (g *classicGroup) joinAnswer(id string, version int16, withMembers bool) *codec.JoinGroupResponse {
	resp := &codec.JoinGroupResponse{GenerationId: g.generation, ProtocolType: nullable(g.protocolType),
		ProtocolName: codec.Str(g.protocol), Leader: g.leader, MemberId: id}
	if version >= 7 && g.protocol == "" {
		resp.ProtocolName = codec.Null
	}
	if withMembers {
		resp.Members = g.memberList()
	}
	return resp
}

// memberList is the leader's Members list: every member, in member id
// order (A6.5), with its instance id and its metadata for the group's
// protocol.
func (g *classicGroup) memberList() []codec.JoinGroupResponseMember {
	out := make([]codec.JoinGroupResponseMember, 0, len(g.members))
	for _, m := range g.members {
		out = append(out, codec.JoinGroupResponseMember{MemberId: m.id, GroupInstanceId: m.instance,
			Metadata: slices.Clone(m.metadata(g.protocol))})
	}
	return out
}

// syncError is a SyncGroup answered with an error (B8.2): no protocol, an
// empty assignment.
func syncError(code codec.ErrorCode) *codec.SyncGroupResponse {
	return &codec.SyncGroupResponse{ErrorCode: code}
}

// syncAnswer is a SyncGroup answered NONE with the member's assignment.
func (g *classicGroup) syncAnswer(m *classicMember) *codec.SyncGroupResponse {
	return &codec.SyncGroupResponse{ProtocolType: nullable(g.protocolType), ProtocolName: nullable(g.protocol),
		Assignment: slices.Clone(m.assignment)}
}
