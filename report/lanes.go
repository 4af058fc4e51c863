package report

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// lane is one member's life in its group, as the membership timeline
// draws it: segments of constant state, and marks for what happened to
// the requests about it.
type lane struct {
	Group, Member string
	// Owner is the process whose request made the member ("" when only a
	// Describe showed it).
	Owner    string
	Instance string
	Ghost    bool
	Segments []segment
	Marks    []mark
	// EndHow says how the last segment ended ("left", "gone: expired or
	// removed", ...); "" when the member was still there at the end.
	EndHow string
}

// segment is a stretch of time in one state.
type segment struct {
	From, To int64
	Parked   bool
	Epoch    int32
	Parts    int
	open     bool
}

// mark is something that happened at one time: a fault on a request, a
// join, a leave, a violation, a restart.
type mark struct {
	At   int64
	Kind string // "fault", "join", "leave", "error", "violation", "restart"
	Text string
}

func (l *lane) alive() bool {
	return len(l.Segments) > 0 && l.Segments[len(l.Segments)-1].open
}

// set puts the member in a state from at on: a new segment when the state
// changes (parts < 0 keeps the partitions it had).
func (l *lane) set(at int64, epoch int32, parts int, parked bool) {
	if n := len(l.Segments); n > 0 && l.Segments[n-1].open {
		cur := &l.Segments[n-1]
		if parts < 0 {
			parts = cur.Parts
		}
		if cur.Epoch == epoch && cur.Parts == parts && cur.Parked == parked {
			return
		}
		cur.To, cur.open = at, false
	}
	parts = max(parts, 0)
	l.Segments = append(l.Segments, segment{From: at, To: at, Epoch: epoch, Parts: parts, Parked: parked, open: true})
	l.EndHow = ""
}

// close ends the member's presence at at, saying how.
func (l *lane) close(at int64, how string) {
	if !l.alive() {
		return
	}
	s := &l.Segments[len(l.Segments)-1]
	s.To, s.open = max(at, s.From), false
	l.EndHow = how
}

func (l *lane) mark(at int64, kind, text string) {
	l.Marks = append(l.Marks, mark{At: at, Kind: kind, Text: text})
}

// lane finds or makes the lane of a member.
func (a *analysis) lane(group, member, owner string) *lane {
	key := group + "/" + member
	if l := a.byID[key]; l != nil {
		if l.Owner == "" {
			l.Owner = owner
		}
		return l
	}
	l := &lane{Group: group, Member: member, Owner: owner, Ghost: a.ghosts[member]}
	a.byID[key] = l
	a.lanes[group] = append(a.lanes[group], l)
	return l
}

func (a *analysis) alive(group, member string) bool {
	l := a.byID[group+"/"+member]
	return l != nil && l.alive()
}

// owner names the process a member belongs to, as far as the history
// tells.
func (a *analysis) owner(group, member string) string {
	if l := a.byID[group+"/"+member]; l != nil && l.Owner != "" {
		return l.Owner
	}
	return "no known process"
}

// heartbeatLanes applies a heartbeat's outcome to its member's lane, and
// marks its fault, if any, there.
func (a *analysis) heartbeatLanes(op *history.Op, r *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse, made, fate string) {
	if op.Name == "prober" {
		return
	}
	id := r.MemberId
	if made != "" && made != id && r.MemberEpoch >= rules.JoinEpoch {
		// The coordinator made another member than the one asked for:
		// the outcome is that member's (the request's own lane gets
		// only the fault).
		if fate != "" && id != "" {
			a.lane(r.GroupId, id, op.Name).mark(op.At, "fault", history.RequestLabel(op)+": "+fate)
		}
		id = made
	}
	if id == "" {
		return
	}
	l := a.lane(r.GroupId, id, op.Name)
	if r.InstanceId.Valid {
		l.Instance = r.InstanceId.Value
	}
	if fate != "" {
		l.mark(op.At, "fault", history.RequestLabel(op)+" → "+history.ResponseLabel(op)+": "+fate)
	}
	switch {
	case resp == nil:
	case resp.ErrorCode == codec.UnknownMemberID:
		l.mark(op.At, "error", "UNKNOWN_MEMBER_ID: the coordinator no longer knows this member")
		l.close(op.At, "unknown to the coordinator")
	case resp.ErrorCode != codec.None:
		l.mark(op.At, "error", history.RequestLabel(op)+" → "+resp.ErrorCode.String())
	case r.MemberEpoch == rules.LeaveEpoch:
		l.mark(op.At, "leave", "leave applied")
		l.close(op.At, "left")
	case r.MemberEpoch == rules.StaticLeaveEpoch:
		l.mark(op.At, "leave", "static leave: parked at epoch -2")
		l.set(op.At, rules.StaticLeaveEpoch, -1, true)
	default:
		if r.MemberEpoch == rules.JoinEpoch {
			l.mark(op.At, "join", fmt.Sprintf("%s joins → epoch %d", op.Name, resp.MemberEpoch))
		}
		parts := -1
		if resp.Assignment != nil {
			parts = countParts(resp.Assignment.TopicPartitions)
		}
		l.set(op.At, resp.MemberEpoch, parts, false)
	}
}

// described applies what a Describe shows of a member: its epoch and the
// partitions it owns.
func (a *analysis) described(op *history.Op, group string, m codec.DescribedMember) {
	l := a.lane(group, m.MemberId, "")
	if m.InstanceId.Valid {
		l.Instance = m.InstanceId.Value
	}
	parts := 0
	for _, t := range m.Assignment.TopicPartitions {
		parts += len(t.Partitions)
	}
	l.set(op.At, m.MemberEpoch, parts, m.MemberEpoch == rules.StaticLeaveEpoch)
}

// short is the start of an id, enough to tell members apart in a report.
func short(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	if id == "" {
		return `""`
	}
	return id
}

// ownerLabel is a lane's name in the timeline.
func (l *lane) ownerLabel() string {
	switch {
	case l.Ghost && l.Owner != "":
		return "ghost (made for " + l.Owner + ")"
	case l.Ghost:
		return "ghost"
	case l.Owner == "":
		return "unknown process"
	}
	return l.Owner
}
