package explore

import (
	"fmt"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The admin: KIP-345's membership management, a LeaveGroup sent to a
// group (Config.Admin of them along a path), naming members as an
// operator's tool names them after a look at the group. It arrives in one
// event (what it answers, nobody reads), in one of three forms:
//
//   - by instance: {"", instance} for every static client of the group
//     (A3 row 1, or row 2 for an instance nobody holds);
//   - by member: {member id, null} for every member the group holds (row 3;
//     with two or more, one batch removes several: A3.2);
//   - fenced: {another member's id, instance} for every member holding an
//     instance (row 6: FENCED_INSTANCE_ID, nothing removed).
const (
	adminByInstance = iota
	adminByMember
	adminFenced
	adminKinds
)

var adminNames = [adminKinds]string{"by instance", "by member", "fenced"}

// adminConn is the admin's connection: no client's.
const adminConn = 1 << 19

// adminEntries are the entries of an admin LeaveGroup of kind to group g
// in s, none when the kind has nothing to name there.
func (w *worker) adminEntries(s *state, g, kind int) []codec.LeaveGroupMember {
	var out []codec.LeaveGroupMember
	reason := codec.Str("ghostcheck explore admin")
	switch kind {
	case adminByInstance:
		var instances []string
		for i, cl := range w.cfg.Clients {
			if w.cfg.GroupOf(i) == groupID(g) && cl.Instance != "" && !slices.Contains(instances, cl.Instance) {
				instances = append(instances, cl.Instance)
			}
		}
		slices.Sort(instances)
		for _, i := range instances {
			out = append(out, codec.LeaveGroupMember{GroupInstanceId: codec.Str(i), Reason: reason})
		}
	case adminByMember, adminFenced:
		id := groupID(g)
		for _, gs := range s.co.groups() {
			if gs.GroupID != id {
				continue
			}
			for k, m := range gs.Members {
				switch {
				case kind == adminByMember:
					out = append(out, codec.LeaveGroupMember{MemberId: m.MemberID, Reason: reason})
				case m.InstanceID != "":
					other := "ghostcheck-unknown-member"
					if len(gs.Members) > 1 {
						other = gs.Members[(k+1)%len(gs.Members)].MemberID
					}
					out = append(out, codec.LeaveGroupMember{MemberId: other, GroupInstanceId: codec.Str(m.InstanceID), Reason: reason})
				}
			}
		}
	}
	return out
}

// groupMembers is how many members group g holds in s.
func (w *worker) groupMembers(s *state, g int) int {
	for _, gs := range s.co.groups() {
		if gs.GroupID == groupID(g) {
			return len(gs.Members)
		}
	}
	return 0
}

// admin sends the admin's LeaveGroup of kind to group g.
func (w *worker) admin(t *state, g, kind int) error {
	entries := w.adminEntries(t, g, kind)
	if len(entries) == 0 {
		return fmt.Errorf("explore: an admin LeaveGroup %s to group %d names nobody", adminNames[kind], g)
	}
	t.admin--
	co := w.step(t)
	h := &codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 5, ClientId: codec.Str("ghostcheck-admin")}
	_, n, _, err := w.request(co, t.now, t.nextID, adminConn, t.nextDelivery(), h, &codec.LeaveGroupRequest{GroupId: groupID(g), Members: entries})
	t.nextID = n
	co.m.Disconnect(adminConn)
	co.i.Disconnect(adminConn)
	if err != nil {
		return err
	}
	return w.settle(t)
}
