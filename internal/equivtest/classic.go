package equivtest

import (
	"bytes"
	"slices"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
)

// The classic group protocol's operations of the property: JoinGroup,
// SyncGroup and Heartbeat of classic processes at every version, static
// and dynamic, with their ids, pending ids and generations right, stale or
// wrong; DescribeGroups; LeaveGroup (the shared action) reaching classic
// groups. Requests the coordinators hold come back through Released, which
// is compared after every step (by delivery: the order across groups is
// not promised), and whose answers the processes take in.

// cproc is one simulated classic client: what it believes.
type cproc struct {
	group      string
	memberID   string
	instance   codec.NullableString
	generation int32
	leader     bool
	conn       uint64
	protocols  []string
	metadata   byte // of every protocol it lists
	// The mixed mode's (mixed.go): the topics it subscribes to and the
	// partitions its last SyncGroup gave it, which its metadata carries.
	topics []string
	owned  []codec.ConsumerProtocolTopicPartitions
}

// classicGroups are the group ids classic requests use: mostly their own,
// now and then a consumer group's (A6.4), a blank one and "".
var classicGroups = []string{"c1", "c1", "c1", "c2", "g1", " ", ""}

var protocolNames = []string{"range", "uniform", "rr"}

func (h *harness) classicActions(a map[string]func(*rapid.T)) {
	a["classicJoin"] = h.classicJoin
	a["classicJoin2"] = h.classicJoin
	a["classicRejoin"] = h.classicRejoin
	a["classicSync"] = h.classicSync
	a["classicHeartbeat"] = h.classicHeartbeat
	a["classicDescribe"] = h.classicDescribe
	a["classicStaticRestart"] = h.classicStaticRestart
	a["classicAdvance"] = h.classicAdvance
	a["classicGeneration"] = h.classicGeneration
	a["classicGeneration2"] = h.classicGeneration
	a["classicLeave"] = h.classicLeave
}

// classicLeave is a LeaveGroup naming classic processes: as a client
// leaves ({its id}), as an operator removes a static member ({"", its
// instance}), with its own instance, with a pending or replaced id, one
// to several entries; v0-v2 name one member id.
func (h *harness) classicLeave(t *rapid.T) {
	version := int16(rapid.IntRange(0, 5).Draw(t, "leaveGroupVersion"))
	n := rapid.IntRange(1, 3).Draw(t, "leaveEntries")
	p := h.existingClassic(t)
	req := &codec.LeaveGroupRequest{GroupId: p.group}
	for i := 0; i < n; i++ {
		q := p
		if i > 0 {
			q = h.existingClassic(t)
		}
		m := codec.LeaveGroupMember{MemberId: h.classicMemberID(t, q)}
		switch rapid.IntRange(0, 3).Draw(t, "leaveForm") {
		case 1:
			m.MemberId, m.GroupInstanceId = "", q.instance // an operator's removal
		case 2:
			m.GroupInstanceId = q.instance
		}
		req.Members = append(req.Members, m)
	}
	if version <= 2 {
		req.MemberId, req.Members = req.Members[0].MemberId, nil
	}
	conn := uint64(rapid.IntRange(1, 6).Draw(t, "conn"))
	h.doClassic(t, conn, codec.LeaveGroup, version, req)
}

// classicGeneration plays a whole generation of a group, as clients do:
// some of its processes (and now and then a new one) join, again at once
// with the id MEMBER_ID_REQUIRED gave; time passes (or not) for the join
// phase to complete; the answers reach the processes; then each syncs,
// the leader with an assignment, in a drawn order. Any step may go astray
// by the draws of the single actions it is made of.
func (h *harness) classicGeneration(t *rapid.T) {
	group := rapid.SampledFrom([]string{"c1", "c1", "c2"}).Draw(t, "generationGroup")
	fresh := rapid.IntRange(0, 2).Draw(t, "generationNew")
	wait := rapid.SampledFrom([]int64{3000, 0, 20000, 1000}).Draw(t, "generationWait")
	sync := rapid.IntRange(0, 3).Draw(t, "generationSync") > 0
	var ps []*cproc
	for _, p := range h.cprocs {
		if p.group == group {
			ps = append(ps, p)
		}
	}
	epilogue := rapid.IntRange(0, 4).Draw(t, "generationEpilogue")
	fenceCheck := rapid.IntRange(0, 2).Draw(t, "fenceCheck")
	afterWait := rapid.SampledFrom([]int64{0, 20000, 5000}).Draw(t, "epilogueWait")
	leaverPick := rapid.IntRange(0, 3).Draw(t, "leaver")
	for ; fresh > 0; fresh-- {
		protocols := []string{"range"}
		if rapid.Bool().Draw(t, "twoProtocols") {
			protocols = rapid.Permutation([]string{"range", "uniform"}).Draw(t, "protocolOrder")
		}
		p := &cproc{group: group, conn: uint64(rapid.IntRange(1, 6).Draw(t, "conn")), generation: -1, protocols: protocols}
		if rapid.Bool().Draw(t, "static") {
			p.instance = codec.Str(rapid.SampledFrom([]string{"i1", "i2", "i3"}).Draw(t, "instance"))
		}
		h.cprocs = append(h.cprocs, p)
		ps = append(ps, p)
	}
	for _, p := range ps {
		h.classicJoinAs(t, p)
		if p.generation < 0 && p.memberID != "" && !p.instance.Valid {
			h.classicJoinAs(t, p) // after MEMBER_ID_REQUIRED
		}
	}
	if wait > 0 {
		h.now += wait
		h.m.Advance(h.now)
		h.clock.Set(h.now)
		h.i.Expire()
	}
	h.compareReleased(t)
	if !sync {
		return
	}
	skip := rapid.IntRange(0, len(ps)).Draw(t, "syncSkipped") // one member late, now and then
	order := rapid.Permutation(ps).Draw(t, "syncOrder")
	for k, p := range order {
		if k != skip {
			h.classicSyncAs(t, p)
		}
	}
	h.compareReleased(t)
	// The epilogue: one of the members restarts (a static one, the late
	// one first), or leaves; then time passes, now and then past the sync
	// phase's timeout.
	var who *cproc
	if skip < len(order) {
		who = order[skip]
	} else if len(order) > 0 {
		who = order[len(order)-1]
	}
	switch {
	case who == nil:
	case (epilogue == 1 || epilogue == 4) && who.instance.Valid:
		q := &cproc{group: who.group, instance: who.instance, conn: who.conn, generation: -1, protocols: who.protocols, metadata: who.metadata}
		if rapid.Bool().Draw(t, "reorderProtocols") {
			q.protocols = slices.Clone(who.protocols)
			slices.Reverse(q.protocols)
		}
		h.cprocs = append(h.cprocs, q)
		h.classicJoinAt(t, q, int16(rapid.IntRange(5, 9).Draw(t, "joinVersion")))
		// The replaced process, still alive, goes on under its old id and
		// the instance: fenced.
		switch fenceCheck {
		case 1:
			h.doClassic(t, who.conn, codec.Heartbeat, 3, &codec.HeartbeatRequest{GroupId: who.group, GenerationId: who.generation,
				MemberId: who.memberID, GroupInstanceId: who.instance})
		case 2:
			h.doClassic(t, who.conn, codec.LeaveGroup, 3, &codec.LeaveGroupRequest{GroupId: who.group,
				Members: []codec.LeaveGroupMember{{MemberId: who.memberID, GroupInstanceId: who.instance}}})
		}
	case epilogue == 3:
		// A member's SyncGroup again, on another connection, as a client
		// whose first timed out sends it (its first may still wait).
		again := order[leaverPick%len(order)]
		again.conn = again.conn%6 + 1
		h.classicSyncAs(t, again)
	case epilogue == 2:
		leaver := order[leaverPick%len(order)] // one whose SyncGroup may wait
		req := &codec.LeaveGroupRequest{GroupId: leaver.group, Members: []codec.LeaveGroupMember{{MemberId: leaver.memberID}}}
		h.doClassic(t, uint64(rapid.IntRange(1, 6).Draw(t, "conn")), codec.LeaveGroup, 3, req)
	}
	if afterWait > 0 {
		h.now += afterWait
		h.m.Advance(h.now)
		h.clock.Set(h.now)
		h.i.Expire()
	}
	h.compareReleased(t)
}

// classicRejoin is an existing process's JoinGroup (a rejoin, or a retry
// after a lost answer).
func (h *harness) classicRejoin(t *rapid.T) { h.classicJoinAs(t, h.existingClassic(t)) }

// classicAdvance moves time by the classic groups' timeouts: the initial
// delay, a session, a rebalance.
func (h *harness) classicAdvance(t *rapid.T) {
	h.now += rapid.SampledFrom([]int64{1000, 3000, 500, 5000, 6000, 10000, 20000}).Draw(t, "classicAdvance")
	h.m.Advance(h.now)
	h.clock.Set(h.now)
	h.i.Expire()
}

// cprocess returns an existing classic process or makes a new one.
func (h *harness) cprocess(t *rapid.T) *cproc {
	fresh := rapid.IntRange(0, 3).Draw(t, "newClassic") == 3
	pick := rapid.IntRange(0, 63).Draw(t, "classicProcess")
	group := rapid.SampledFrom(classicGroups).Draw(t, "classicGroup")
	conn := uint64(rapid.IntRange(1, 6).Draw(t, "conn"))
	static := rapid.IntRange(0, 2).Draw(t, "static") == 0
	instance := rapid.SampledFrom([]string{"i1", "i2", "i3", ""}).Draw(t, "instance")
	protocols := rapid.SliceOfNDistinct(rapid.SampledFrom(protocolNames), 1, 3, rapid.ID[string]).Draw(t, "protocols")
	if len(h.cprocs) > 0 && !fresh {
		return h.cprocs[pick%len(h.cprocs)]
	}
	p := &cproc{group: group, conn: conn, generation: -1, protocols: protocols, metadata: byte(len(h.cprocs) % 2)}
	if static {
		p.instance = codec.Str(instance)
	}
	h.cprocs = append(h.cprocs, p)
	return p
}

func (h *harness) existingClassic(t *rapid.T) *cproc {
	pick := rapid.IntRange(0, 63).Draw(t, "classicProcess")
	if len(h.cprocs) == 0 {
		t.Skip("no classic process yet")
	}
	return h.cprocs[pick%len(h.cprocs)]
}

// classicMemberID draws the member id a request names: mostly the
// process's, else "" or one seen (a pending id, a replaced id, another
// process's).
func (h *harness) classicMemberID(t *rapid.T, p *cproc) string {
	kind := rapid.IntRange(0, 9).Draw(t, "classicIDKind")
	pick := rapid.IntRange(0, 63).Draw(t, "classicSeen")
	switch {
	case kind == 0:
		return ""
	case kind == 1 && len(h.cseen) > 0:
		return h.cseen[pick%len(h.cseen)]
	case kind == 2:
		return "nobody"
	}
	return p.memberID
}

func (h *harness) classicJoin(t *rapid.T) { h.classicJoinAs(t, h.cprocess(t)) }

// classicStaticRestart is KIP-345's restart: a new process joins with
// MemberId "" under an instance a process holds.
func (h *harness) classicStaticRestart(t *rapid.T) {
	p := h.existingClassic(t)
	if rapid.Bool().Draw(t, "restartALeader") {
		// A static leader's restart (A6.2: answered at once in Stable,
		// with SkipAssignment from v9), which a drawn process is too
		// rarely.
		for _, l := range h.cprocs {
			if l.leader && l.instance.Valid && l.group == p.group {
				p = l
			}
		}
	}
	conn := uint64(rapid.IntRange(1, 6).Draw(t, "conn"))
	if !p.instance.Valid {
		t.Skip("a dynamic process")
	}
	reorder := rapid.Bool().Draw(t, "reorderProtocols")
	q := &cproc{group: p.group, instance: p.instance, conn: conn, generation: -1, protocols: p.protocols, metadata: p.metadata}
	if reorder {
		q.protocols = slices.Clone(p.protocols)
		slices.Reverse(q.protocols)
	}
	h.cprocs = append(h.cprocs, q)
	h.classicJoinAt(t, q, int16(rapid.IntRange(5, 9).Draw(t, "joinVersion")))
}

func (h *harness) classicJoinAs(t *rapid.T, p *cproc) {
	h.classicJoinAt(t, p, int16(rapid.IntRange(0, 9).Draw(t, "joinVersion")))
}

func (h *harness) classicJoinAt(t *rapid.T, p *cproc, version int16) {
	// Every draw is made whatever it is used for, and at most one
	// oddity applies, so that most joins are a client's own and a
	// counterexample shrinks to the one that matters.
	odd := rapid.IntRange(0, 15).Draw(t, "joinOddity")
	conn := uint64(rapid.IntRange(1, 6).Draw(t, "conn"))
	otherID := h.classicMemberID(t, p)
	session := rapid.SampledFrom([]int32{999, 60001, 1000, 20000}).Draw(t, "oddSessionTimeout")
	rebalance := rapid.SampledFrom([]int32{0, -1, 1000, 20000}).Draw(t, "oddRebalanceTimeout")
	others := rapid.SliceOfNDistinct(rapid.SampledFrom(protocolNames), 0, 3, rapid.ID[string]).Draw(t, "otherProtocols")
	meta := byte(rapid.IntRange(0, 2).Draw(t, "metadata"))
	protocolType := rapid.SampledFrom([]string{"connect", ""}).Draw(t, "oddProtocolType")
	req := &codec.JoinGroupRequest{GroupId: p.group, SessionTimeoutMs: 10000, RebalanceTimeoutMs: 5000,
		MemberId: p.memberID, ProtocolType: "consumer"}
	switch odd {
	case 0:
		p.conn = conn // a retry on a new connection
	case 1:
		req.MemberId = otherID
	case 2:
		req.SessionTimeoutMs = session
	case 3:
		req.RebalanceTimeoutMs = rebalance
	case 4:
		p.protocols, p.metadata = others, meta
	case 5:
		p.metadata = meta
	case 6:
		req.ProtocolType = protocolType
	}
	if version >= 5 {
		req.GroupInstanceId = p.instance
	}
	for _, name := range p.protocols {
		req.Protocols = append(req.Protocols, codec.JoinGroupRequestProtocol{Name: name, Metadata: h.classicMetadata(t, p)})
	}
	if odd == 7 && len(req.Protocols) > 0 {
		req.Protocols = append(req.Protocols, req.Protocols[0])
	}
	resp, d := h.doClassic(t, p.conn, codec.JoinGroup, version, req)
	h.awaiting[d] = p
	if resp != nil && odd != 8 { // 8: the answer is lost
		h.absorbClassic(p, resp)
	}
}

func (h *harness) classicSync(t *rapid.T) { h.classicSyncAs(t, h.existingClassic(t)) }

func (h *harness) classicSyncAs(t *rapid.T, p *cproc) {
	odd := rapid.IntRange(0, 11).Draw(t, "syncOddity")
	conn := uint64(rapid.IntRange(1, 6).Draw(t, "conn"))
	otherID := h.classicMemberID(t, p)
	version := int16(rapid.IntRange(0, 5).Draw(t, "syncVersion"))
	forget := rapid.IntRange(0, 3).Draw(t, "forgetOne") == 0
	repeat := rapid.Bool().Draw(t, "repeatAssignment")
	req := &codec.SyncGroupRequest{GroupId: p.group, GenerationId: p.generation, MemberId: p.memberID}
	switch odd {
	case 0:
		p.conn = conn
	case 1:
		req.MemberId = otherID
	case 2:
		req.GenerationId++
	}
	if version >= 3 && odd != 3 {
		req.GroupInstanceId = p.instance
	}
	if version >= 5 && odd != 4 {
		req.ProtocolType = codec.Str("consumer")
		req.ProtocolName = codec.Str("range")
		if len(p.protocols) > 0 {
			req.ProtocolName = codec.Str(p.protocols[0])
		}
		if odd == 5 {
			req.ProtocolName = codec.Str("other")
		}
	}
	if h.mixed && (p.leader || odd == 6) {
		req.Assignments = h.dealt(p.group)
	} else if p.leader || odd == 6 {
		// The leader's assignment: bytes for every member it knows of,
		// now and then one left out or repeated, and one for a stranger.
		for i, m := range h.classicMembers(p.group) {
			a := codec.ConsumerProtocolAssignment{AssignedPartitions: []codec.ConsumerProtocolTopicPartitions{{Topic: "alpha", Partitions: []int32{int32(i)}}}}
			b, _ := a.AppendTo(nil, 0)
			req.Assignments = append(req.Assignments, codec.SyncGroupRequestAssignment{MemberId: m, Assignment: b})
		}
		if len(req.Assignments) > 1 && forget {
			req.Assignments = req.Assignments[1:]
		}
		if len(req.Assignments) > 0 && repeat {
			req.Assignments = append(req.Assignments, codec.SyncGroupRequestAssignment{MemberId: req.Assignments[0].MemberId, Assignment: []byte{9}})
		}
		req.Assignments = append(req.Assignments, codec.SyncGroupRequestAssignment{MemberId: "stranger", Assignment: []byte{1}})
	}
	resp, d := h.doClassic(t, p.conn, codec.SyncGroup, version, req)
	h.awaiting[d] = p
	if resp != nil {
		h.absorbClassic(p, resp)
	}
}

func (h *harness) classicHeartbeat(t *rapid.T) {
	p := h.existingClassic(t)
	version := int16(rapid.IntRange(0, 4).Draw(t, "heartbeatVersion"))
	memberID := h.classicMemberID(t, p)
	wrongGeneration := rapid.IntRange(0, 5).Draw(t, "wrongGeneration") == 0
	req := &codec.HeartbeatRequest{GroupId: p.group, GenerationId: p.generation, MemberId: memberID}
	if wrongGeneration {
		req.GenerationId--
	}
	if version >= 3 {
		req.GroupInstanceId = p.instance
	}
	resp, _ := h.doClassic(t, p.conn, codec.Heartbeat, version, req)
	if resp != nil {
		h.absorbClassic(p, resp)
	}
}

func (h *harness) classicDescribe(t *rapid.T) {
	version := int16(rapid.IntRange(0, 6).Draw(t, "describeGroupsVersion"))
	req := &codec.DescribeGroupsRequest{IncludeAuthorizedOperations: version >= 3 && rapid.Bool().Draw(t, "ops")}
	for n := rapid.IntRange(0, 3).Draw(t, "describeN"); n > 0; n-- {
		req.Groups = append(req.Groups, rapid.SampledFrom([]string{"c1", "c2", "g1", "", "zz"}).Draw(t, "describeGroup"))
	}
	conn := uint64(rapid.IntRange(1, 6).Draw(t, "conn"))
	h.doClassic(t, conn, codec.DescribeGroups, version, req)
}

// classicMembers is what the model holds of group now.
func (h *harness) classicMembers(group string) []string {
	var out []string
	for _, m := range h.members(group) {
		out = append(out, m.MemberID)
	}
	return out
}

// doClassic sends a request through do and returns the answer, nil when
// it is held (or refused), and its delivery.
func (h *harness) doClassic(t *rapid.T, conn uint64, key codec.APIKey, version int16, req codec.Message) (codec.Message, uint64) {
	resp := h.do(t, conn, h.header(t, key, version, conn), req)
	return resp, h.delivery
}

// absorbClassic updates what p believes from an answer.
func (h *harness) absorbClassic(p *cproc, resp codec.Message) {
	switch r := resp.(type) {
	case *codec.JoinGroupResponse:
		switch r.ErrorCode {
		case codec.None:
			p.memberID, p.generation, p.leader = r.MemberId, r.GenerationId, r.Leader == r.MemberId
			h.cseen = append(h.cseen, r.MemberId)
		case codec.MemberIDRequired:
			p.memberID = r.MemberId
			h.cseen = append(h.cseen, r.MemberId)
		case codec.UnknownMemberID:
			p.memberID, p.generation = "", -1
		}
	case *codec.SyncGroupResponse:
		if r.ErrorCode == codec.IllegalGeneration {
			p.generation = -1
		}
		if r.ErrorCode == codec.None && h.mixed {
			var a codec.ConsumerProtocolAssignment
			if _, err := a.Decode(r.Assignment, codec.DecodeOptions{}); err == nil {
				p.owned = a.AssignedPartitions
			}
		}
	case *codec.HeartbeatResponse:
		if r.ErrorCode == codec.UnknownMemberID {
			p.memberID = ""
		}
	}
}

// compareReleased requires both coordinators to have released the same
// answers since the last step, by delivery, encoded alike at each
// request's version; the processes take them in.
func (h *harness) compareReleased(t *rapid.T) {
	mr, ir := h.m.Released(), h.i.Released()
	if len(mr) != len(ir) {
		t.Fatalf("released: model %d answers %+v, impl %d %+v", len(mr), mr, len(ir), ir)
	}
	slices.SortFunc(mr, func(a, b model.Release) int { return compareDelivery(a.Delivery, b.Delivery) })
	slices.SortFunc(ir, func(a, b impl.Release) int { return compareDelivery(a.Delivery, b.Delivery) })
	for k := range mr {
		m, i := mr[k], ir[k]
		if m.Delivery != i.Delivery || m.Dropped != i.Dropped || (m.Response == nil) != (i.Response == nil) {
			t.Fatalf("release %d: model %+v, impl %+v", k, m, i)
		}
		sent, ok := h.versions[m.Delivery]
		if !ok {
			t.Fatalf("released delivery %d, which was never held", m.Delivery)
		}
		delete(h.versions, m.Delivery)
		if m.Dropped {
			continue
		}
		mb, err1 := m.Response.AppendTo(nil, sent)
		ib, err2 := i.Response.AppendTo(nil, sent)
		if err1 != nil || err2 != nil || !bytes.Equal(mb, ib) {
			t.Fatalf("release of delivery %d (v%d): model %+v (%v)\nimpl %+v (%v)", m.Delivery, sent, show(m.Response), err1, show(i.Response), err2)
		}
		if p := h.awaiting[m.Delivery]; p != nil {
			h.absorbClassic(p, m.Response)
		}
		delete(h.awaiting, m.Delivery)
	}
}

func compareDelivery(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// checkClassicDescribe compares DescribeGroups of every classic group id.
func (h *harness) checkClassicDescribe(t *rapid.T) {
	req := &codec.DescribeGroupsRequest{Groups: []string{"c1", "c2", "g1", ""}, IncludeAuthorizedOperations: true}
	hd := &codec.RequestHeader{RequestApiKey: codec.DescribeGroups, RequestApiVersion: 6}
	mr, err1 := h.m.Handle(model.Conn{ID: 99}, hd, req)
	ir, err2 := h.i.Handle(impl.Conn{ID: 99}, hd, req)
	if err1 != nil || err2 != nil {
		t.Fatalf("DescribeGroups: model %v, impl %v", err1, err2)
	}
	mb, _ := mr.AppendTo(nil, 6)
	ib, _ := ir.AppendTo(nil, 6)
	if !bytes.Equal(mb, ib) {
		t.Fatalf("DescribeGroups differs\nmodel %s\nimpl  %s", show(mr), show(ir))
	}
}
