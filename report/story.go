package report

import (
	"fmt"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// heartbeat reads a ConsumerGroupHeartbeat: joins, leaves, errors, faults
// and members made are told; a routine heartbeat is not.
func (a *analysis) heartbeat(op *history.Op, r *codec.ConsumerGroupHeartbeatRequest) {
	resp, _ := op.Response.(*codec.ConsumerGroupHeartbeatResponse)
	fate := history.Fate(*op)
	seen := fate == "" || !strings.Contains(fate, "never saw") && !strings.Contains(fate, "dropped this response")
	made := ""
	if resp != nil && resp.ErrorCode == codec.None && resp.MemberId.Valid {
		made = resp.MemberId.Value
	}
	before := a.current[op.Name]
	text, class, tell := a.heartbeatWords(op, r, resp, made)
	if r.MemberId != "" {
		a.learn(op.Name, r.MemberId)
	}
	if made != "" && seen && op.Name != "prober" {
		a.learn(op.Name, made)
	}
	a.heartbeatLanes(op, r, resp, made, fate)
	if fate != "" {
		text += "; " + fate
		class = "fault"
	}
	if made != "" && a.ghosts[made] && made != r.MemberId {
		text += " → " + short(made) + " is a ghost: no live process holds its id"
		class = "ghost"
	} else if made != "" && r.MemberId == "" && before != "" && before != made && a.alive(r.GroupId, before) {
		text += fmt.Sprintf(" → a second member for %s (%s is still in the group)", op.Name, short(before))
		class = "ghost"
	}
	if tell || fate != "" || class == "ghost" {
		a.say(op, class, text)
	} else {
		a.omitted++
	}
}

// heartbeatWords says what a heartbeat asked and what the coordinator
// did, and whether it is worth a line of its own.
func (a *analysis) heartbeatWords(op *history.Op, r *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse, made string) (string, string, bool) {
	v := op.Header.RequestApiVersion
	var ask string
	tell := true
	switch {
	case op.Name == "prober":
		ask = fmt.Sprintf("probes %s with a %s", r.GroupId, history.RequestLabel(op))
	case r.MemberEpoch == rules.JoinEpoch && r.MemberId == "" && a.current[op.Name] != "":
		ask = fmt.Sprintf("retries its join to %s (v%d) with an empty member id: it never learned the id the broker made", r.GroupId, v)
	case r.MemberEpoch == rules.JoinEpoch && r.MemberId == "":
		ask = fmt.Sprintf("joins %s (v%d) with an empty member id, so the broker makes one", r.GroupId, v)
	case r.MemberEpoch == rules.JoinEpoch:
		ask = fmt.Sprintf("joins %s (v%d) as %s", r.GroupId, v, short(r.MemberId))
	case r.MemberEpoch == rules.LeaveEpoch && r.MemberId == "":
		ask = fmt.Sprintf("leaves %s with an empty member id: it never learned its id", r.GroupId)
	case r.MemberEpoch == rules.LeaveEpoch:
		ask = fmt.Sprintf("leaves %s as %s", r.GroupId, short(r.MemberId))
	case r.MemberEpoch == rules.StaticLeaveEpoch:
		ask = fmt.Sprintf("leaves %s for now as %s (static, epoch -2)", r.GroupId, short(r.MemberId))
	default:
		ask = fmt.Sprintf("heartbeats as %s at epoch %d", short(r.MemberId), r.MemberEpoch)
		tell = false
	}
	var got string
	class := ""
	switch {
	case op.Refused:
		got, class = "refused: nothing applied", "error"
	case op.Return == history.Never || resp == nil:
		got = "no response: the outcome is unknown"
	case resp.ErrorCode != codec.None:
		got, class, tell = resp.ErrorCode.String(), "error", true
		if resp.ErrorMessage.Valid {
			got += " (" + resp.ErrorMessage.Value + ")"
		}
	case r.MemberEpoch == rules.LeaveEpoch || r.MemberEpoch == rules.StaticLeaveEpoch:
		got = "applied: the member " + map[bool]string{true: "left", false: "is parked"}[r.MemberEpoch == rules.LeaveEpoch]
	case made != r.MemberId:
		got = fmt.Sprintf("applied by the broker: member %s at epoch %d%s", short(made), resp.MemberEpoch, partsWords(resp.Assignment))
		tell = true
	default:
		got = fmt.Sprintf("epoch %d%s", resp.MemberEpoch, partsWords(resp.Assignment))
	}
	return ask + " → " + got, class, tell
}

// partsWords says how many partitions an assignment gives, if it came.
func partsWords(as *codec.ConsumerGroupHeartbeatAssignment) string {
	if as == nil {
		return ""
	}
	return fmt.Sprintf(", %d partitions", countParts(as.TopicPartitions))
}

func countParts(tps []codec.ConsumerGroupHeartbeatTopicPartitions) int {
	n := 0
	for _, t := range tps {
		n += len(t.Partitions)
	}
	return n
}

// describe reads the observer's ConsumerGroupDescribe: a line when a
// group's membership changed since the last look (a member that left no
// trace of a leave is gone by a timer or a removal).
func (a *analysis) describe(op *history.Op) {
	resp, _ := op.Response.(*codec.ConsumerGroupDescribeResponse)
	if resp == nil {
		a.other(op)
		return
	}
	for _, g := range resp.Groups {
		now := map[string]bool{}
		if g.ErrorCode == codec.None {
			for _, m := range g.Members {
				now[m.MemberId] = true
				a.described(op, g.GroupId, m)
			}
		} else if g.ErrorCode != codec.GroupIDNotFound {
			a.say(op, "error", fmt.Sprintf("describes %s → %s", g.GroupId, g.ErrorCode))
			continue
		}
		var gone []string
		for _, l := range a.lanes[g.GroupId] {
			if l.alive() && !now[l.Member] {
				gone = append(gone, short(l.Member))
				l.close(op.At, "gone: expired or removed")
			}
		}
		changed := len(gone) > 0 || len(now) != len(a.present[g.GroupId])
		a.present[g.GroupId] = now
		if !changed {
			a.omitted++
			continue
		}
		text := fmt.Sprintf("describes %s: %s", g.GroupId, a.membersWords(g))
		if len(gone) > 0 {
			text += fmt.Sprintf("; gone since the last look without a leave it saw answered: %s (a session or rebalance timer, or a removal)", strings.Join(gone, ", "))
		}
		a.say(op, a.describeClass(now), text)
	}
}

// membersWords lists a described group's members with their epochs and
// owners ("no members" for an empty or missing group).
func (a *analysis) membersWords(g codec.DescribedGroup) string {
	if len(g.Members) == 0 {
		return "no members"
	}
	var ms []string
	for _, m := range g.Members {
		who := a.owner(g.GroupId, m.MemberId)
		if a.ghosts[m.MemberId] {
			who = "a ghost"
		}
		ms = append(ms, fmt.Sprintf("%s at epoch %d (%s)", short(m.MemberId), m.MemberEpoch, who))
	}
	return fmt.Sprintf("%d members: %s", len(ms), strings.Join(ms, ", "))
}

func (a *analysis) describeClass(now map[string]bool) string {
	for id := range now {
		if a.ghosts[id] {
			return "ghost"
		}
	}
	return ""
}

// leaveGroup reads a KIP-345 LeaveGroup (the admin's removals).
func (a *analysis) leaveGroup(op *history.Op, r *codec.LeaveGroupRequest) {
	text := fmt.Sprintf("removes %v from %s (LeaveGroup v%d) → %s", instances(r), r.GroupId, op.Header.RequestApiVersion, history.ResponseLabel(op))
	if resp, ok := op.Response.(*codec.LeaveGroupResponse); ok {
		var per []string
		for _, m := range resp.Members {
			per = append(per, fmt.Sprintf("%s: %s", m.GroupInstanceId.Value, m.ErrorCode))
			if l := a.byID[r.GroupId+"/"+m.MemberId]; l != nil && m.ErrorCode == codec.None {
				l.close(op.At, "removed by the admin")
			}
		}
		if len(per) > 0 {
			text += " [" + strings.Join(per, ", ") + "]"
		}
	}
	if f := history.Fate(*op); f != "" {
		text += "; " + f
	}
	a.say(op, "", text)
}

func instances(r *codec.LeaveGroupRequest) []string {
	var out []string
	for _, m := range r.Members {
		out = append(out, m.GroupInstanceId.Value)
	}
	return out
}

// other reads ApiVersions and telemetry: told only when the network or
// the coordinator did something to them, or the prober sent them.
func (a *analysis) other(op *history.Op) {
	fate := history.Fate(*op)
	got := history.ResponseLabel(op)
	isErr := got != "?" && !strings.HasPrefix(got, "NONE")
	_, versions := op.Request.(*codec.ApiVersionsRequest)
	if fate == "" && (op.Name != "prober" || versions) && !isErr {
		a.omitted++
		return
	}
	text := history.RequestLabel(op) + " → " + got
	class := ""
	if fate != "" {
		text += "; " + fate
		class = "fault"
	}
	a.say(op, class, text)
	a.events[len(a.events)-1].Minor = op.Name != "prober"
}
