package check

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
)

// replayCtx is what replaying one operation of a history that parks
// requests needs to know of the rest of it: the operations by id (to judge
// a release against the answer the released operation recorded), the
// connections that ever held a parked request (replayed on their own ids,
// so that the model holds what arrived behind one, as the target did),
// the parked operations that waited unread behind another on their
// connection (served, and making their ids, in the step that released the
// one before them), and the ids the target made for classic JoinGroups. A
// history without classic requests has none: a nil *replayCtx is that.
type replayCtx struct {
	byID   map[int]*history.Op
	held   map[uint64]bool
	behind map[int]bool
	// heldOn are, by connection, the operations that waited unread
	// behind another, in arrival order.
	heldOn map[uint64][]int
	// made are the classic member and pending ids the target made, by
	// the JoinGroup that made them (madeClassicIDs).
	made map[int]string
}

// joinsClassic reports whether h holds a classic JoinGroup. It reads each
// op in place (slices.ContainsFunc would copy every one, some forty words).
func joinsClassic(h history.History) bool {
	for i := range h {
		if _, ok := h[i].Request.(*codec.JoinGroupRequest); ok {
			return true
		}
	}
	return false
}

// newReplayCtx is the context of h's replay (nil if h parks nothing and
// has no classic JoinGroup, whose made ids it finds).
func newReplayCtx(h history.History) *replayCtx {
	if !h.Parks() && !joinsClassic(h) {
		return nil
	}
	c := &replayCtx{byID: make(map[int]*history.Op, len(h)), held: map[uint64]bool{}, behind: map[int]bool{}, heldOn: map[uint64][]int{}}
	releasedAt := map[int]int64{} // when each released op was released
	for i := range h {
		c.byID[h[i].ID] = &h[i]
		for _, id := range h[i].Releases {
			releasedAt[id] = h[i].HandledAt()
		}
	}
	// open are the parked operations of each connection since it last
	// closed with one parked (a tick; a restart closes every one).
	open := map[uint64][]*history.Op{}
	for i := range h {
		op := &h[i]
		switch {
		case op.Restart:
			clear(open)
		case op.Tick == history.TickDisconnect:
			delete(open, op.Conn.ID)
		case op.Parked:
			c.held[op.Conn.ID] = true
			for _, w := range open[op.Conn.ID] {
				if at, ok := releasedAt[w.ID]; !ok || at > op.Handled {
					c.behind[op.ID] = true // an earlier parked op of its connection still waited
					c.heldOn[op.Conn.ID] = append(c.heldOn[op.Conn.ID], op.ID)
					break
				}
			}
			open[op.Conn.ID] = append(open[op.Conn.ID], op)
		}
	}
	c.made = madeClassicIDs(h)
	return c
}

// madeClassicIDs finds the id the target made for each JoinGroup with no
// member id (A6.5: a client or instance id, "-", a UUID). Its answer
// shows it, whatever the answer (MEMBER_ID_REQUIRED, NONE, or
// FENCED_INSTANCE_ID to a replaced member's waiting join), unless the
// join was refused at once (no member made, or none kept) or the member
// went before its join was answered (UNKNOWN_MEMBER_ID, no id):
// then it is the first id of its prefix that an answer shows while the
// member was there (a DescribeGroups, a leader's Members, a LeaveGroup's
// removal), between the join's handling and its answer, and that no other
// JoinGroup's answer claims. An id no answer ever shows cannot tell the
// model from the target, and any stands for it.
func madeClassicIDs(h history.History) map[int]string {
	made := map[int]string{}
	claimed := map[string]bool{}
	var unshown []int // makers whose answers show no id, in order
	releasedBy := map[int]int{}
	for i := range h {
		for _, id := range h[i].Releases {
			releasedBy[id] = i
		}
	}
	for i := range h {
		req, ok := h[i].Request.(*codec.JoinGroupRequest)
		if !ok || req.MemberId != "" {
			continue
		}
		if resp, ok := h[i].Response.(*codec.JoinGroupResponse); ok && resp.MemberId != "" {
			if _, _, ok := madeIDParts(resp.MemberId); ok {
				made[h[i].ID], claimed[resp.MemberId] = resp.MemberId, true
			}
			continue
		}
		unshown = append(unshown, i)
	}
	for _, i := range unshown {
		prefix := h[i].ClientID + "-"
		if req := h[i].Request.(*codec.JoinGroupRequest); req.GroupInstanceId.Valid {
			prefix = req.GroupInstanceId.Value + "-"
		}
		// Its member went when its join was answered: no later answer
		// shows it. A join answered at once without an id (refused:
		// GROUP_MAX_SIZE_REACHED, an invalid field) left no member, and
		// a later member of its prefix is another join's.
		until := len(h)
		if j, ok := releasedBy[h[i].ID]; ok {
			until = j
		} else if h[i].Response != nil && !h[i].Parked {
			until = i + 1
		}
		if id, ok := firstShownAfter(h, i, until, prefix, claimed); ok {
			made[h[i].ID], claimed[id] = id, true
		}
	}
	return made
}

// madeIDParts splits an id the coordinator made for a JoinGroup: a classic
// group's (A6.5: a prefix, "-", a UUID) into its prefix and UUID, a
// consumer group's (A7.1: a Kafka Uuid's base64 text alone) into plainPrefix and the
// UUID.
func madeIDParts(id string) (string, codec.UUID, bool) {
	if u, ok := classicIDSuffix(id); ok {
		return id[:len(id)-37], u, true
	}
	if len(id) == 22 {
		if u, err := codec.ParseUUID(id); err == nil {
			return plainPrefix, u, true
		}
	}
	return "", codec.UUID{}, false
}

// plainPrefix stands for the prefix of an id made with none (a classic
// member of a consumer group, A7.1).
const plainPrefix = "\x01"

// classicIDSuffix is the UUID a classic member or pending id ends with.
func classicIDSuffix(id string) (codec.UUID, bool) {
	if len(id) < 37 || id[len(id)-37] != '-' {
		return codec.UUID{}, false
	}
	u, err := codec.ParseUUID(id[len(id)-36:])
	return u, err == nil
}

// firstShownAfter is the first member id of prefix (prefix and a UUID),
// not claimed, that an answer after h[i] and before h[until] shows.
func firstShownAfter(h history.History, i, until int, prefix string, claimed map[string]bool) (string, bool) {
	fits := func(id string) bool {
		_, ok := classicIDSuffix(id)
		return ok && len(id) == len(prefix)+36 && id[:len(prefix)] == prefix && !claimed[id]
	}
	for j := i + 1; j < until; j++ {
		var ids []string
		switch r := h[j].Response.(type) {
		case *codec.JoinGroupResponse:
			ids = append(ids, r.MemberId, r.Leader)
			for _, m := range r.Members {
				ids = append(ids, m.MemberId)
			}
		case *codec.DescribeGroupsResponse:
			for _, g := range r.Groups {
				for _, m := range g.Members {
					ids = append(ids, m.MemberId)
				}
			}
		case *codec.LeaveGroupResponse:
			for _, m := range r.Members {
				ids = append(ids, m.MemberId)
			}
		}
		for _, id := range ids {
			if fits(id) {
				return id, true
			}
		}
	}
	return "", false
}

// madeBy reports whether op may have made a classic id (a JoinGroup with
// no member id) and the id the target made for it: "" when no answer
// shows it (idSource.candidates counts it all the same).
func (c *replayCtx) madeBy(op *history.Op) (string, bool) {
	if c == nil || op == nil {
		return "", false
	}
	if id, ok := c.made[op.ID]; ok {
		return id, true
	}
	j, ok := op.Request.(*codec.JoinGroupRequest)
	return "", ok && j.MemberId == ""
}

// servedWith lists the operations a step that released rel may have
// served from behind them, unread until then: those held on the released
// operations' connections that arrived after them and before the step,
// in arrival order, each once.
func (c *replayCtx) servedWith(step *history.Op, rel []int) []int {
	if c == nil || len(rel) == 0 {
		return nil
	}
	var out []int
	for _, id := range rel {
		w := c.byID[id]
		if w == nil {
			continue
		}
		for _, y := range c.heldOn[w.Conn.ID] {
			if y > id && c.byID[y].Handled < step.HandledAt() && !slices.Contains(out, y) {
				out = append(out, y)
			}
		}
	}
	return out
}

// op is the operation with id, or nil.
func (c *replayCtx) op(id int) *history.Op {
	if c == nil {
		return nil
	}
	return c.byID[id]
}

// holds reports whether connection id ever held a parked request.
func (c *replayCtx) holds(id uint64) bool { return c != nil && c.held[id] }

// heldUnread reports whether operation id waited unread behind another on
// its connection.
func (c *replayCtx) heldUnread(id int) bool { return c != nil && c.behind[id] }
