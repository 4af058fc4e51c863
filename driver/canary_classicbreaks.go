package driver

// The client rules' canary, classic part: the breaks of the classic
// protocol's client rules (MemberIDRequiredRejoin, ClassicStaticInstanceID,
// NoRejoinAfterFencedInstance) that the prober's classic probes commit. A
// stale Heartbeat names the instance of whichever member the last
// DescribeGroups showed, an odd JoinGroup may name a live member's
// instance, the other protocol's requests name none: after a JoinGroup of
// the prober named an instance, a later one that names another, or none,
// breaks ClassicStaticInstanceID, and a request naming an instance after a
// final FENCED_INSTANCE_ID for it breaks NoRejoinAfterFencedInstance. The
// account below is the harness's own, written from docs/PROTOCOL.md Part C
// (each rule's section, and its reading of a close), not from model/rules.

import (
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// classic notes the classic client rules rs (one client's requests, in
// send order) break. A client whose JoinGroups all go below the version a
// rule needs is NOT ADOPTED by it, and breaks nothing of it.
func (b *breaks) classic(rs []*rules.ClientRequest) {
	joins, top := 0, int16(-1)
	for _, r := range rs {
		if _, ok := r.Request.(*codec.JoinGroupRequest); ok {
			joins++
			top = max(top, r.Header.RequestApiVersion)
		}
	}
	closes := closeReading(rs)
	if joins > 0 && top >= 4 {
		b.memberIDRequired(rs, closes)
	}
	if joins > 0 && top >= 5 {
		b.staticInstance(rs, closes)
	}
	if joins == 0 || top >= 5 {
		b.fencedInstance(rs, closes)
	}
}

// closeReading is Part C's reading of a close on one client's requests:
// closed(at, i) reports whether rs[i] came from a process that began after
// rs[at] — rs[i]'s connection carried nothing up to rs[at], and every
// connection that carried something up to rs[at] carried nothing after it.
func closeReading(rs []*rules.ClientRequest) func(at, i int) bool {
	first, last := map[uint64]int{}, map[uint64]int{}
	for i, r := range rs {
		if _, ok := first[r.Conn]; !ok {
			first[r.Conn] = i
		}
		last[r.Conn] = i
	}
	return func(at, i int) bool {
		if first[rs[i].Conn] <= at {
			return false
		}
		for c, f := range first {
			if f <= at && last[c] > at {
				return false
			}
		}
		return true
	}
}

// answered is when r's answer reached the client: a request sent at that
// moment or later was sent knowing it.
func answered(r *rules.ClientRequest) int64 { return max(r.Answered, r.At) }

// memberIDRequired: after a JoinGroup answered MEMBER_ID_REQUIRED with id
// X, the client's next JoinGroup for the group sent once the answer
// reached it carries X, unless a LeaveGroup for the group came between or
// the client closed.
func (b *breaks) memberIDRequired(rs []*rules.ClientRequest, closed func(at, i int) bool) {
	given := map[string]int{} // group: the request answered MEMBER_ID_REQUIRED
	for i, r := range rs {
		switch m := r.Request.(type) {
		case *codec.LeaveGroupRequest:
			delete(given, m.GroupId)
		case *codec.JoinGroupRequest:
			if at, ok := given[m.GroupId]; ok && r.At >= answered(rs[at]) {
				delete(given, m.GroupId)
				id := rs[at].Response.(*codec.JoinGroupResponse).MemberId
				if !closed(at, i) && m.MemberId != id {
					b.broke(rules.RuleMemberIDRequiredRejoin, r, "JoinGroup with MemberId %q after MEMBER_ID_REQUIRED gave %q", m.MemberId, id)
				}
			}
			if j, ok := r.Response.(*codec.JoinGroupResponse); ok && j.ErrorCode == codec.MemberIDRequired {
				given[m.GroupId] = i
			}
		}
	}
}

// classicNamed is the group and the instance a JoinGroup (v5+), SyncGroup
// (v3+) or Heartbeat (v3+) names; carries is false for any other request,
// or one at a version without the field.
func classicNamed(r *rules.ClientRequest) (group string, inst codec.NullableString, carries bool) {
	v := r.Header.RequestApiVersion
	switch m := r.Request.(type) {
	case *codec.JoinGroupRequest:
		return m.GroupId, m.GroupInstanceId, v >= 5
	case *codec.SyncGroupRequest:
		return m.GroupId, m.GroupInstanceId, v >= 3
	case *codec.HeartbeatRequest:
		return m.GroupId, m.GroupInstanceId, v >= 3
	}
	return "", codec.Null, false
}

// staticInstance: once a JoinGroup named instance I for a group, every
// later JoinGroup, SyncGroup and Heartbeat of the group that can carry an
// instance names I, until the client closes.
func (b *breaks) staticInstance(rs []*rules.ClientRequest, closed func(at, i int) bool) {
	type named struct {
		inst string
		at   int
	}
	static := map[string]named{}
	for i, r := range rs {
		group, inst, carries := classicNamed(r)
		if !carries {
			continue
		}
		if s, ok := static[group]; ok && !closed(s.at, i) {
			switch {
			case !inst.Valid:
				b.broke(rules.RuleClassicStaticInstanceID, r, "no GroupInstanceId for group %s after a JoinGroup named %q", group, s.inst)
			case inst.Value != s.inst:
				b.broke(rules.RuleClassicStaticInstanceID, r, "instance %q for group %s after a JoinGroup named %q", inst.Value, group, s.inst)
			}
		} else if ok {
			delete(static, group)
		}
		if _, join := r.Request.(*codec.JoinGroupRequest); join && inst.Valid {
			static[group] = named{inst.Value, i}
		}
	}
}

// named is the group a request names instances of, and the instances: a
// classic request's (classicNamed), a ConsumerGroupHeartbeat's, and each
// of a LeaveGroup's entries.
func named(r *rules.ClientRequest) (string, []string) {
	switch m := r.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		if m.InstanceId.Valid {
			return m.GroupId, []string{m.InstanceId.Value}
		}
	case *codec.LeaveGroupRequest:
		var insts []string
		for _, e := range m.Members {
			if e.GroupInstanceId.Valid {
				insts = append(insts, e.GroupInstanceId.Value)
			}
		}
		return m.GroupId, insts
	default:
		if group, inst, carries := classicNamed(r); carries && inst.Valid {
			return group, []string{inst.Value}
		}
	}
	return "", nil
}

// fencedInstance: after a JoinGroup, SyncGroup or ConsumerGroupHeartbeat
// naming instance I was answered FENCED_INSTANCE_ID, or a Heartbeat naming
// I at the client's latest generation was, no group request sent once the answer reached
// the client names I, until it closes. The latest generation is that of
// the client's latest JoinGroup of the group answered NONE, unless a
// classic answer UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION came since.
func (b *breaks) fencedInstance(rs []*rules.ClientRequest, closed func(at, i int) bool) {
	type key struct{ group, inst string }
	fenced := map[key]int{}
	gens := map[string]int32{}
	for i, r := range rs {
		group, insts := named(r)
		for _, inst := range insts {
			k := key{group, inst}
			at, ok := fenced[k]
			switch {
			case !ok || r.At < answered(rs[at]):
			case closed(at, i):
				delete(fenced, k)
			default:
				b.broke(rules.RuleNoRejoinAfterFencedInstance, r, "names instance %q of group %s after FENCED_INSTANCE_ID", inst, group)
			}
		}
		code, ok := codec.GroupErrorCode(r.Response)
		if !ok {
			continue
		}
		var g string
		switch m := r.Request.(type) {
		case *codec.ConsumerGroupHeartbeatRequest:
			if len(insts) == 1 && code == codec.FencedInstanceID {
				fenced[key{group, insts[0]}] = i // fatal for a KIP-848 consumer too
			}
			continue
		case *codec.JoinGroupRequest:
			g = m.GroupId
			if j, ok := r.Response.(*codec.JoinGroupResponse); ok && code == codec.None {
				gens[g] = j.GenerationId
			}
		case *codec.SyncGroupRequest:
			g = m.GroupId
		case *codec.HeartbeatRequest:
			g = m.GroupId
			if gen, known := gens[g]; code == codec.FencedInstanceID && (!known || m.GenerationId != gen) {
				continue // a fence of a generation the client left: ignored
			}
		default:
			continue // no other answer fences
		}
		if code == codec.UnknownMemberID || code == codec.IllegalGeneration {
			delete(gens, g)
		}
		if len(insts) == 1 && code == codec.FencedInstanceID {
			fenced[key{group, insts[0]}] = i
		}
	}
}
