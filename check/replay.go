package check

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model"
)

// applyOp applies op to c in place and reports whether the recorded
// response is what the model answers (and, when not, both answers).
func applyOp(c *model.Coordinator, op *history.Op) (bool, string) {
	var r replayer
	return r.apply(c, op)
}

// replayer applies operations to model coordinators, keeping the buffers
// it encodes both answers into from one operation to the next (the
// sequential check replays every operation of every run).
type replayer struct {
	want, got []byte
	drawn     []string
	ids       idSource
	source    func() codec.UUID // nextID, made once
}

// apply is applyOp.
func (r *replayer) apply(c *model.Coordinator, op *history.Op) (bool, string) {
	if c.Now() < op.At {
		c.Advance(op.At)
	}
	if op.Restart {
		c.Restart()
		return true, ""
	}
	// Ids the coordinator makes are random in the target: take them from
	// the recorded response, so the model makes the same ones.
	r.ids.reset(op)
	r.drawn = r.drawn[:0]
	if r.source == nil {
		r.source = r.nextID
	}
	c.SetIDSource(r.source)
	h := op.Header
	// The model sees each request as the first of a fresh connection
	// carrying the ClientId the target must attribute (KIP-1313): per
	// connection state does not cross partitions.
	h.ClientId = codec.Str(op.ClientID)
	resp, err := c.Handle(model.Conn{ID: uint64(op.ID) + 1<<40, Host: op.Conn.Host}, &h, op.Request)
	c.Disconnect(uint64(op.ID) + 1<<40)
	if op.Return == history.Never {
		return true, ""
	}
	v := op.Header.RequestApiVersion
	if err != nil || op.Refused {
		if err != nil && op.Refused {
			return true, ""
		}
		if err != nil {
			return false, fmt.Sprintf("model refuses the request (%v), target answered %s", err, history.Summary(op.Response))
		}
		return false, "model answers " + history.Summary(resp) + ", target refused the request"
	}
	if sameHeartbeatResponse(resp, op.Response) || sameDescribeResponse(resp, op.Response) {
		return true, "" // the same fields encode the same (deliver encoded the target's)
	}
	var err1, err2 error
	r.want, err1 = resp.AppendTo(r.want[:0], v)
	r.got, err2 = op.Response.AppendTo(r.got[:0], v)
	if err1 != nil || err2 != nil {
		return false, fmt.Sprintf("cannot encode (model: %v, target: %v)", err1, err2)
	}
	if !bytes.Equal(r.want, r.got) && !sameUpToDrawnIDs(resp, op.Response, r.drawn) {
		return false, describeDiff(resp, op.Response)
	}
	return true, ""
}

// nextID is the id source apply gives the model: the op's ids (idSource),
// each noted as drawn.
func (r *replayer) nextID() codec.UUID {
	u := r.ids.next()
	r.drawn = append(r.drawn, u.String())
	return u
}

// sameUpToDrawnIDs covers the one place a made id shows without being
// returned as such: a v0 join with an empty member id that fails after the
// coordinator made an id (e.g. UNRELEASED_INSTANCE_ID) names that id in its
// error message. The responses are the same if the messages match with the
// model's made ids standing for any id.
func sameUpToDrawnIDs(want, got codec.Message, drawn []string) bool {
	w, ok1 := want.(*codec.ConsumerGroupHeartbeatResponse)
	g, ok2 := got.(*codec.ConsumerGroupHeartbeatResponse)
	if !ok1 || !ok2 || len(drawn) == 0 || w.ErrorCode == codec.None || !w.ErrorMessage.Valid || !g.ErrorMessage.Valid {
		return false
	}
	pattern := regexp.QuoteMeta(w.ErrorMessage.Value)
	for _, id := range drawn {
		pattern = strings.ReplaceAll(pattern, regexp.QuoteMeta(id), `[A-Za-z0-9_-]{22}`)
	}
	re, err := regexp.Compile("^" + pattern + "$")
	if err != nil || !re.MatchString(g.ErrorMessage.Value) {
		return false
	}
	w2, g2 := *w, *g
	w2.ErrorMessage, g2.ErrorMessage = codec.Null, codec.Null
	a, _ := w2.AppendTo(nil, 1)
	b, _ := g2.AppendTo(nil, 1)
	return bytes.Equal(a, b)
}

// idSource yields the id the target made for an op (a v0 member id or a
// telemetry client instance id), then fresh ones; reset makes it the
// source of the next op. The op's id is read from its response at the
// first draw: most requests (every heartbeat at v1) draw none.
type idSource struct {
	op     *history.Op
	queued bool // the op's id has been read into queue
	queue  [1]codec.UUID
	n      int // ids left in queue
	id     int // the op's id, which seeds the fallback stream
	r      *rand.Rand
	pcg    rand.PCG
}

// reset makes s the source for op.
func (s *idSource) reset(op *history.Op) {
	s.op, s.queued, s.n, s.id, s.r = op, false, 0, op.ID, nil
}

// queueMade reads the id the target made for the op into queue.
func (s *idSource) queueMade() {
	s.queued = true
	switch r := s.op.Response.(type) {
	case *codec.ConsumerGroupHeartbeatResponse:
		if r.MemberId.Valid {
			if u, err := codec.ParseUUID(r.MemberId.Value); err == nil {
				s.queue[0], s.n = u, 1
			}
		}
	case *codec.GetTelemetrySubscriptionsResponse:
		s.queue[0], s.n = r.ClientInstanceId, 1
	}
}

func (s *idSource) next() codec.UUID {
	if !s.queued {
		s.queueMade()
	}
	if s.n > 0 {
		s.n--
		if u := s.queue[0]; !u.IsZero() {
			return u
		}
	}
	// Other draws (a made id the response does not show) come from a
	// stream of the harness's own, which cannot collide with a target
	// seeded by model.SeededIDs; it is seeded at its first draw.
	if s.r == nil {
		s.pcg.Seed(uint64(s.id), 0x6661_6c6c_6261_636b)
		s.r = rand.New(&s.pcg)
	}
	var u codec.UUID
	binary.BigEndian.PutUint64(u[:8], s.r.Uint64())
	binary.BigEndian.PutUint64(u[8:], s.r.Uint64()|1)
	return u
}

func describeDiff(want, got codec.Message) string {
	return fmt.Sprintf("model answers %s; target answered %s", history.Summary(want), history.Summary(got))
}

// sameHeartbeatResponse reports that a and b are ConsumerGroupHeartbeat
// responses with the same fields, so the same bytes at any version: the
// most common comparison, made without encoding either. false means only
// "compare them encoded".
func sameHeartbeatResponse(a, b codec.Message) bool {
	x, ok1 := a.(*codec.ConsumerGroupHeartbeatResponse)
	y, ok2 := b.(*codec.ConsumerGroupHeartbeatResponse)
	if !ok1 || !ok2 || len(x.UnknownTags) > 0 || len(y.UnknownTags) > 0 ||
		x.ThrottleTimeMs != y.ThrottleTimeMs || x.ErrorCode != y.ErrorCode || x.ErrorMessage != y.ErrorMessage ||
		x.MemberId != y.MemberId || x.MemberEpoch != y.MemberEpoch || x.HeartbeatIntervalMs != y.HeartbeatIntervalMs ||
		(x.Assignment == nil) != (y.Assignment == nil) {
		return false
	}
	if x.Assignment == nil {
		return true
	}
	xa, ya := x.Assignment, y.Assignment
	if len(xa.UnknownTags) > 0 || len(ya.UnknownTags) > 0 || len(xa.TopicPartitions) != len(ya.TopicPartitions) {
		return false
	}
	for i := range xa.TopicPartitions {
		xt, yt := &xa.TopicPartitions[i], &ya.TopicPartitions[i]
		if xt.TopicId != yt.TopicId || len(xt.UnknownTags) > 0 || len(yt.UnknownTags) > 0 || !slices.Equal(xt.Partitions, yt.Partitions) {
			return false
		}
	}
	return true
}

// sameDescribeResponse is sameHeartbeatResponse for ConsumerGroupDescribe
// responses (every array in them is non-nullable: nil and empty encode the
// same).
func sameDescribeResponse(a, b codec.Message) bool {
	x, ok1 := a.(*codec.ConsumerGroupDescribeResponse)
	y, ok2 := b.(*codec.ConsumerGroupDescribeResponse)
	if !ok1 || !ok2 || x.ThrottleTimeMs != y.ThrottleTimeMs || len(x.Groups) != len(y.Groups) || len(x.UnknownTags)+len(y.UnknownTags) > 0 {
		return false
	}
	for i := range x.Groups {
		g, h := &x.Groups[i], &y.Groups[i]
		if g.ErrorCode != h.ErrorCode || g.ErrorMessage != h.ErrorMessage || g.GroupId != h.GroupId || g.GroupState != h.GroupState ||
			g.GroupEpoch != h.GroupEpoch || g.AssignmentEpoch != h.AssignmentEpoch || g.AssignorName != h.AssignorName ||
			g.AuthorizedOperations != h.AuthorizedOperations || len(g.Members) != len(h.Members) || len(g.UnknownTags)+len(h.UnknownTags) > 0 {
			return false
		}
		for j := range g.Members {
			m, n := &g.Members[j], &h.Members[j]
			if m.MemberId != n.MemberId || m.InstanceId != n.InstanceId || m.RackId != n.RackId || m.MemberEpoch != n.MemberEpoch ||
				m.ClientId != n.ClientId || m.ClientHost != n.ClientHost || m.SubscribedTopicRegex != n.SubscribedTopicRegex ||
				m.MemberType != n.MemberType || len(m.UnknownTags)+len(n.UnknownTags) > 0 ||
				!slices.Equal(m.SubscribedTopicNames, n.SubscribedTopicNames) ||
				!sameDescribedAssignment(&m.Assignment, &n.Assignment) || !sameDescribedAssignment(&m.TargetAssignment, &n.TargetAssignment) {
				return false
			}
		}
	}
	return true
}

func sameDescribedAssignment(a, b *codec.DescribedAssignment) bool {
	if len(a.TopicPartitions) != len(b.TopicPartitions) || len(a.UnknownTags)+len(b.UnknownTags) > 0 {
		return false
	}
	for i := range a.TopicPartitions {
		s, t := &a.TopicPartitions[i], &b.TopicPartitions[i]
		if s.TopicId != t.TopicId || s.TopicName != t.TopicName || len(s.UnknownTags)+len(t.UnknownTags) > 0 || !slices.Equal(s.Partitions, t.Partitions) {
			return false
		}
	}
	return true
}
