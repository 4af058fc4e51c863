package history

import (
	"fmt"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Fate says in words what the network did to an operation, from the
// client's side: "" when it went and came back normally. Reports put it
// beside the response, because a response the client never saw (lost,
// dropped as the answer to a duplicate) explains most ghosts.
func Fate(op Op) string {
	if op.Restart {
		return "the coordinator restarted: every connection closed, timers start afresh"
	}
	if op.Tick != "" {
		return tickWords(&op)
	}
	var out []string
	if op.Parked {
		switch {
		case op.Return != Never:
			out = append(out, "held by the coordinator, answered later")
		case op.Response == nil:
			out = append(out, "held by the coordinator, never answered")
		}
	}
	for _, part := range strings.Split(op.Note, "; ") {
		switch {
		case part == "":
		case part == "response lost":
			out = append(out, "response lost: the client never saw this")
		case part == "duplicate delivery":
			out = append(out, "a second delivery of the same request (the network duplicated it)")
		case part == "response to the duplicate dropped by the client":
			out = append(out, "the client dropped this response (it answers the duplicate)")
		case strings.HasPrefix(part, "request delayed"):
			out = append(out, part+": it arrived after later requests of other connections")
		case strings.HasPrefix(part, "response delayed"):
			out = append(out, part+": the client saw it late")
		case strings.HasPrefix(part, "no response: "):
			what := "the outcome is unknown"
			if op.Refused {
				what = "refused: the coordinator applied nothing"
			}
			out = append(out, fmt.Sprintf("no response (%s): %s", strings.TrimPrefix(part, "no response: "), what))
		default:
			out = append(out, part)
		}
	}
	return strings.Join(out, "; ")
}

// RequestLabel says what an operation asked in a few words: "join v0",
// "heartbeat v1 member=3fa2b6c1 epoch=4", "describe g1".
func RequestLabel(op *Op) string {
	v := op.Header.RequestApiVersion
	switch r := op.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		kind := "heartbeat"
		switch r.MemberEpoch {
		case rules.JoinEpoch:
			kind = "join"
		case rules.LeaveEpoch:
			kind = "leave"
		case rules.StaticLeaveEpoch:
			kind = "static-leave"
		}
		s := fmt.Sprintf("%s v%d", kind, v)
		if r.MemberId != "" {
			s += " member=" + short(r.MemberId)
		}
		if r.MemberEpoch > 0 {
			s += fmt.Sprintf(" epoch=%d", r.MemberEpoch)
		}
		return s
	case *codec.LeaveGroupRequest:
		var ids []string
		for _, m := range r.Members {
			ids = append(ids, m.GroupInstanceId.Value)
		}
		return fmt.Sprintf("LeaveGroup v%d %s %v", v, r.GroupId, ids)
	case *codec.ConsumerGroupDescribeRequest:
		return "describe " + strings.Join(r.GroupIds, ",")
	case *codec.JoinGroupRequest:
		return fmt.Sprintf("JoinGroup v%d member=%s", v, short(r.MemberId))
	case *codec.SyncGroupRequest:
		return fmt.Sprintf("SyncGroup v%d member=%s gen=%d", v, short(r.MemberId), r.GenerationId)
	case *codec.HeartbeatRequest:
		return fmt.Sprintf("Heartbeat v%d member=%s gen=%d", v, short(r.MemberId), r.GenerationId)
	case *codec.DescribeGroupsRequest:
		return "DescribeGroups " + strings.Join(r.Groups, ",")
	}
	if op.Tick != "" {
		return "tick " + string(op.Tick)
	}
	return fmt.Sprintf("%s v%d", op.Header.RequestApiKey, v)
}

// ResponseLabel says what the coordinator answered in a few words ("?"
// when the outcome is unknown).
func ResponseLabel(op *Op) string {
	switch {
	case op.Restart:
		return "done"
	case op.Tick != "":
		return fmt.Sprintf("released %d", len(op.Releases))
	case op.Refused:
		return "refused"
	case op.Return == Never || op.Response == nil:
		return "?"
	}
	switch r := op.Response.(type) {
	case *codec.ConsumerGroupHeartbeatResponse:
		if r.ErrorCode != codec.None {
			return r.ErrorCode.String()
		}
		return fmt.Sprintf("NONE member=%s epoch=%d", short(r.MemberId.Value), r.MemberEpoch)
	case *codec.ConsumerGroupDescribeResponse:
		var parts []string
		for _, g := range r.Groups {
			if g.ErrorCode != codec.None {
				parts = append(parts, g.ErrorCode.String())
				continue
			}
			parts = append(parts, fmt.Sprintf("%d members", len(g.Members)))
		}
		return strings.Join(parts, "; ")
	case *codec.LeaveGroupResponse:
		return r.ErrorCode.String()
	}
	return Summary(op.Response)
}

// Describe renders an operation in one line: when it was delivered, who
// sent it, the request and the response ("?" when the outcome is
// unknown), as the timeline and the check's explanations show it.
func Describe(op *Op) string {
	if op.Restart {
		return fmt.Sprintf("t=%d coordinator restart", op.At) + releasedWords(op)
	}
	if op.Tick != "" {
		return fmt.Sprintf("t=%d %s", op.At, tickWords(op))
	}
	var req string
	switch r := op.Request.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		kind := "heartbeat"
		switch {
		case r.MemberEpoch == 0:
			kind = "join"
		case r.MemberEpoch == -1:
			kind = "leave"
		case r.MemberEpoch == -2:
			kind = "static-leave"
		}
		req = fmt.Sprintf("%s v%d %s member=%s epoch=%d", kind, op.Header.RequestApiVersion, r.GroupId, short(r.MemberId), r.MemberEpoch)
		if r.InstanceId.Valid {
			req += " instance=" + r.InstanceId.Value
		}
	case *codec.LeaveGroupRequest:
		var ids []string
		for _, m := range r.Members {
			ids = append(ids, m.GroupInstanceId.Value)
		}
		req = fmt.Sprintf("LeaveGroup v%d %s %s%v", op.Header.RequestApiVersion, r.GroupId, r.MemberId, ids)
	case *codec.ConsumerGroupDescribeRequest:
		req = fmt.Sprintf("describe %v", r.GroupIds)
	case *codec.JoinGroupRequest:
		req = fmt.Sprintf("JoinGroup v%d %s member=%s", op.Header.RequestApiVersion, r.GroupId, short(r.MemberId))
		if r.GroupInstanceId.Valid {
			req += " instance=" + r.GroupInstanceId.Value
		}
	case *codec.SyncGroupRequest:
		req = fmt.Sprintf("SyncGroup v%d %s member=%s gen=%d assignments=%d", op.Header.RequestApiVersion, r.GroupId, short(r.MemberId), r.GenerationId, len(r.Assignments))
	case *codec.HeartbeatRequest:
		req = fmt.Sprintf("Heartbeat v%d %s member=%s gen=%d", op.Header.RequestApiVersion, r.GroupId, short(r.MemberId), r.GenerationId)
	case *codec.DescribeGroupsRequest:
		req = fmt.Sprintf("DescribeGroups %v", r.Groups)
	default:
		req = fmt.Sprintf("%s v%d", op.Header.RequestApiKey, op.Header.RequestApiVersion)
	}
	out := "?"
	switch {
	case op.Return != Never:
		out = Summary(op.Response)
	case op.Parked && len(op.Releases) == 0:
		out = "held"
	}
	if op.Parked && op.Return != Never {
		out = "held, then " + out
	}
	return fmt.Sprintf("t=%d %s: %s → %s", op.At, op.Name, req, out) + releasedWords(op)
}

// tickWords says what a tick was and what it released.
func tickWords(op *Op) string {
	what := "the coordinator's timers ran"
	if op.Tick == TickDisconnect {
		what = fmt.Sprintf("connection %d closed", op.Conn.ID)
	}
	return fmt.Sprintf("%s (group %s)", what, op.Group) + releasedWords(op)
}

// releasedWords lists the parked operations an op released, "" for none.
func releasedWords(op *Op) string {
	if len(op.Releases) == 0 {
		return ""
	}
	return fmt.Sprintf("; released ops %v", op.Releases)
}

// Summary renders a response in one line, for reports and for the check's
// explanations.
func Summary(m codec.Message) string {
	switch r := m.(type) {
	case *codec.ConsumerGroupHeartbeatResponse:
		s := fmt.Sprintf("%s member=%s epoch=%d interval=%d", r.ErrorCode, r.MemberId, r.MemberEpoch, r.HeartbeatIntervalMs)
		if r.ErrorMessage.Valid {
			s += fmt.Sprintf(" msg=%q", r.ErrorMessage.Value)
		}
		if r.Assignment != nil {
			s += " assignment=" + tpsString(r.Assignment.TopicPartitions)
		}
		return s
	case *codec.LeaveGroupResponse:
		var parts []string
		for _, m := range r.Members {
			parts = append(parts, fmt.Sprintf("%s/%s:%s", m.MemberId, m.GroupInstanceId, m.ErrorCode))
		}
		return fmt.Sprintf("%s [%s]", r.ErrorCode, strings.Join(parts, " "))
	case *codec.ConsumerGroupDescribeResponse:
		var parts []string
		for _, g := range r.Groups {
			var ms []string
			for _, m := range g.Members {
				ms = append(ms, fmt.Sprintf("%s@%d", short(m.MemberId), m.MemberEpoch))
			}
			parts = append(parts, fmt.Sprintf("%s %s %s epoch=%d members=[%s]", g.GroupId, g.ErrorCode, g.GroupState, g.GroupEpoch, strings.Join(ms, " ")))
		}
		return strings.Join(parts, "; ")
	case *codec.ApiVersionsResponse:
		return fmt.Sprintf("%s (%d apis)", r.ErrorCode, len(r.ApiKeys))
	case *codec.JoinGroupResponse:
		s := fmt.Sprintf("%s gen=%d member=%s leader=%s protocol=%s members=%d", r.ErrorCode, r.GenerationId, short(r.MemberId), short(r.Leader), r.ProtocolName.Value, len(r.Members))
		if r.SkipAssignment {
			s += " skip-assignment"
		}
		return s
	case *codec.SyncGroupResponse:
		return fmt.Sprintf("%s assignment=%d bytes", r.ErrorCode, len(r.Assignment))
	case *codec.HeartbeatResponse:
		return r.ErrorCode.String()
	case *codec.DescribeGroupsResponse:
		var parts []string
		for _, g := range r.Groups {
			var ms []string
			for _, m := range g.Members {
				ms = append(ms, short(m.MemberId))
			}
			parts = append(parts, fmt.Sprintf("%s %s %s members=[%s]", g.GroupId, g.ErrorCode, g.GroupState, strings.Join(ms, " ")))
		}
		return strings.Join(parts, "; ")
	case *codec.GetTelemetrySubscriptionsResponse:
		return fmt.Sprintf("%s subscription=%d id=%s", r.ErrorCode, r.SubscriptionId, r.ClientInstanceId)
	case *codec.PushTelemetryResponse:
		return r.ErrorCode.String()
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%+v", m)
}

func tpsString(tps []codec.ConsumerGroupHeartbeatTopicPartitions) string {
	var parts []string
	for _, t := range tps {
		parts = append(parts, fmt.Sprintf("%s%v", t.TopicId.String()[:4], t.Partitions))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
