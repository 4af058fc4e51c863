package driver

// The admin process: the plan's administrative removals (KIP-345's
// LeaveGroup), each at its round.

import (
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// admin is what the admin process does.
type admin struct{ d *driver }

// act sends the removals of this round from p, the admin process: at the
// removal's version (capped at the broker's), or without one at the
// broker's highest, downgraded below v3 as a client must
// (rules.PlanLeaveGroup).
func (a admin) act(p *proc) {
	d := a.d
	for _, r := range d.plan.Admin {
		if r.Round != d.round {
			continue
		}
		var members []codec.LeaveGroupMember
		for _, id := range r.InstanceIDs {
			members = append(members, codec.LeaveGroupMember{GroupInstanceId: codec.Str(id), Reason: codec.Str("ghostcheck admin removal")})
		}
		members = append(members, a.entries(r)...)
		max := p.version(codec.LeaveGroup, 5)
		if r.Version != nil {
			a.sendLeaveGroup(p, r.Group, members, min(*r.Version, max))
			continue
		}
		calls, _ := rules.PlanLeaveGroup(r.Group, members, max)
		for _, call := range calls {
			p.others = append(p.others, d.net.send(p, codec.LeaveGroup, call.Version, call.Request))
		}
	}
}

// sendLeaveGroup sends members' LeaveGroup at version v as it is: at v3+
// one batch (Reason only at v5), below v3 one request per entry naming its
// member id alone, whatever it is (an instance id cannot be said there).
func (a admin) sendLeaveGroup(p *proc, group string, members []codec.LeaveGroupMember, v int16) {
	if v >= 3 {
		req := &codec.LeaveGroupRequest{GroupId: group}
		for _, m := range members {
			if v < 5 {
				m.Reason = codec.Null
			}
			req.Members = append(req.Members, m)
		}
		p.others = append(p.others, a.d.net.send(p, codec.LeaveGroup, v, req))
		return
	}
	for _, m := range members {
		p.others = append(p.others, a.d.net.send(p, codec.LeaveGroup, v, &codec.LeaveGroupRequest{GroupId: group, MemberId: m.MemberId}))
	}
}

// entries resolves a removal's Entries against the processes of its group
// now: the member id a process holds and the instance id a static one was
// given (plan.LeaveName).
func (a admin) entries(r plan.AdminRemoval) []codec.LeaveGroupMember {
	var group []*proc
	for _, p := range a.d.procs.clients() {
		if p.group == r.Group {
			group = append(group, p)
		}
	}
	var out []codec.LeaveGroupMember
	for _, e := range r.Entries {
		m := codec.LeaveGroupMember{Reason: codec.Str("ghostcheck admin removal")}
		var self, other *proc
		if n := len(group); n > 0 {
			self, other = group[e.Client%n], group[(e.Client+1)%n]
		}
		switch {
		case e.Member == plan.NameUnknown:
			m.MemberId = "ghostcheck-unknown-member"
		case e.Member == plan.NameOwn && self != nil:
			m.MemberId = self.memberID()
		case e.Member == plan.NameOther && other != nil:
			m.MemberId = other.memberID()
		}
		switch {
		case e.Instance == plan.NameUnknown:
			m.GroupInstanceId = codec.Str("inst-unknown")
		case e.Instance == plan.NameOwn && self != nil && self.plan.InstanceID != "":
			m.GroupInstanceId = codec.Str(self.plan.InstanceID)
		case e.Instance == plan.NameOther && self != nil:
			m.GroupInstanceId = otherInstance(group, self, e.Client)
		}
		out = append(out, m)
	}
	return out
}

// otherInstance is the instance id of a static process of group other than
// self's own, the first from start on, or null if there is none.
func otherInstance(group []*proc, self *proc, start int) codec.NullableString {
	for i := range group {
		p := group[(start+1+i)%len(group)]
		if id := p.plan.InstanceID; id != "" && id != self.plan.InstanceID {
			return codec.Str(id)
		}
	}
	return codec.Null
}
