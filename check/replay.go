package check

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
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
// response is what the model answers (and, when not, both answers). ctx
// knows the rest of the history (parked operations and their releases);
// nil for a history that parks nothing.
func applyOp(c *model.Coordinator, op *history.Op, ctx *replayCtx) (bool, string) {
	r := replayer{ctx: ctx}
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
	ctx       *replayCtx
}

// apply is applyOp. Each request goes to the model under a delivery
// number of its own, its id plus one, so that what the model releases
// names the operations it answers (compareReleases).
func (r *replayer) apply(c *model.Coordinator, op *history.Op) (bool, string) {
	// Ids the coordinator makes are random in the target: take them from
	// the recorded responses, so the model makes the same ones (a tick or
	// a restart may serve requests that make some, too).
	r.ids.reset(op, r.ctx)
	if r.ids.ambiguous() {
		r.ids.order(r.drawnPrefixes(c, op))
	}
	r.drawn = r.drawn[:0]
	if r.source == nil {
		r.source = r.nextID
	}
	c.SetIDSource(r.source)
	resp, err, released, delivery := r.act(c, op)
	if op.Event() {
		return r.compareReleases(released, op)
	}
	parked := err != nil && errors.Is(err, model.ErrParked) // most answers: no error to unwrap
	if parked {
		// Held and answered within its own handling: simply answered,
		// as the driver records it.
		if i := slices.IndexFunc(released, func(x model.Release) bool { return x.Delivery == delivery && !x.Dropped }); i >= 0 {
			resp, err, parked = released[i].Response, nil, false
			released = slices.Delete(slices.Clone(released), i, i+1)
		}
	}
	switch {
	case op.Parked && !parked:
		return false, fmt.Sprintf("model answers %s at once; the target held it", answerWords(resp, err))
	case !op.Parked && parked:
		return false, "model holds it; the target answered " + history.Summary(op.Response)
	case op.Return == history.Never && !op.Parked:
		return true, "" // unknown outcome: any
	case !parked:
		if ok, why := r.compareOwn(op, resp, err); !ok {
			return false, why
		}
	}
	return r.compareReleases(released, op)
}

// act does op to c: the clock moves to its time, then the restart, the
// closed connection, or the request's handling (a tick of the clock is
// the move alone). It returns the answer to a request and the delivery
// number it was handled under, and what c released.
func (r *replayer) act(c *model.Coordinator, op *history.Op) (resp codec.Message, err error, released []model.Release, delivery uint64) {
	if c.Now() < op.At {
		c.Advance(op.At)
	}
	switch {
	case op.Restart:
		c.Restart()
		return nil, nil, c.Released(), 0
	case op.Tick == history.TickDisconnect:
		c.Disconnect(op.Conn.ID)
		return nil, nil, c.Released(), 0
	case op.Tick != "":
		return nil, nil, c.Released(), 0
	}
	h := op.Header
	// The model sees each request as the first of a fresh connection
	// carrying the ClientId the target must attribute (KIP-1313): per
	// connection state does not cross partitions. A connection that ever
	// held a parked request keeps its own id instead, and closes only
	// where the history says it did (a tick): the model holds its later
	// requests behind the parked one, as the target did.
	conn := model.Conn{ID: uint64(op.ID) + 1<<40, Host: op.Conn.Host, Delivery: uint64(op.ID) + 1}
	held := r.ctx.holds(op.Conn.ID)
	if held {
		conn.ID = op.Conn.ID
	}
	h.ClientId = codec.Str(op.ClientID)
	resp, err = c.Handle(conn, &h, op.Request)
	if !held {
		c.Disconnect(conn.ID)
	}
	return resp, err, c.Released(), conn.Delivery
}

// drawnPrefixes does op to a copy of c with ids of its own, to find, in
// the order the model draws them, whose ids they become: the client or
// instance id each is made for (unshownPrefix for a draw that shows
// nowhere). A step that serves several requests that make ids (some
// waited unread behind others) draws them in an order only the model
// knows.
func (r *replayer) drawnPrefixes(c *model.Coordinator, op *history.Op) []string {
	d := c.Clone()
	n := 0
	d.SetIDSource(func() codec.UUID {
		n++
		return probeID(n)
	})
	_, _, released, _ := r.act(d, op)
	prefixes := make([]string, n)
	for k := range prefixes {
		prefixes[k] = unshownPrefix
	}
	note := func(id string) {
		if prefix, u, ok := madeIDParts(id); ok {
			if k, ok := probeIndex(u); ok && k <= n {
				prefixes[k-1] = prefix
			}
		}
	}
	for _, g := range d.Snapshot() {
		for _, m := range g.Members {
			note(m.MemberID)
		}
		if g.Classic != nil {
			for _, p := range g.Classic.Pending {
				note(p.ID)
			}
		}
	}
	for _, x := range released {
		if j, ok := x.Response.(*codec.JoinGroupResponse); ok {
			note(j.MemberId)
		}
	}
	return prefixes
}

// unshownPrefix stands for the prefix of a draw that shows nowhere (a
// client id may be "").
const unshownPrefix = "\x00"

// probeID is the n-th id of a dry run (drawnPrefixes): marked so that no
// target's id is one.
func probeID(n int) codec.UUID {
	var u codec.UUID
	copy(u[:8], "gcprobe!")
	binary.BigEndian.PutUint64(u[8:], uint64(n))
	return u
}

// probeIndex is n for probeID(n).
func probeIndex(u codec.UUID) (int, bool) {
	if string(u[:8]) != "gcprobe!" {
		return 0, false
	}
	return int(binary.BigEndian.Uint64(u[8:])), true
}

// answerWords is what the model answered, in words.
func answerWords(resp codec.Message, err error) string {
	if err != nil {
		return fmt.Sprintf("no answer (%v)", err)
	}
	return history.Summary(resp)
}

// compareOwn compares the model's answer to op with the target's.
func (r *replayer) compareOwn(op *history.Op, resp codec.Message, err error) (bool, string) {
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
	return r.sameResponse(v, resp, op.Response)
}

// sameResponse compares the model's answer want with the target's got, at
// version v.
func (r *replayer) sameResponse(v int16, want, got codec.Message) (bool, string) {
	if sameHeartbeatResponse(want, got) || sameDescribeResponse(want, got) || sameApiVersionsResponse(want, got) {
		return true, "" // the same fields encode the same (deliver encoded the target's)
	}
	var err1, err2 error
	r.want, err1 = want.AppendTo(r.want[:0], v)
	r.got, err2 = got.AppendTo(r.got[:0], v)
	if err1 != nil || err2 != nil {
		return false, fmt.Sprintf("cannot encode (model: %v, target: %v)", err1, err2)
	}
	if !bytes.Equal(r.want, r.got) && !sameUpToDrawnIDs(want, got, r.drawn) {
		return false, describeDiff(want, got)
	}
	return true, ""
}

// compareReleases compares what the model released at op's step with what
// the target released there (op.Releases), in order: the same operations,
// each dropped or answered alike, the answers the same.
func (r *replayer) compareReleases(released []model.Release, op *history.Op) (bool, string) {
	if len(released) == 0 && len(op.Releases) == 0 {
		return true, ""
	}
	ids := make([]int, len(released))
	for i, x := range released {
		ids[i] = int(x.Delivery) - 1
	}
	if !slices.Equal(ids, op.Releases) {
		return false, fmt.Sprintf("model releases ops %v; the target released %v", ids, op.Releases)
	}
	for i, x := range released {
		w := r.ctx.op(ids[i])
		switch {
		case w == nil:
			return false, fmt.Sprintf("model releases op %d, which is not in the history", ids[i])
		case x.Dropped != (w.Response == nil):
			return false, fmt.Sprintf("model %s op %d; the target %s it", releaseWords(x.Dropped), w.ID, releaseWords(w.Response == nil))
		case !x.Dropped:
			if ok, why := r.sameResponse(w.Header.RequestApiVersion, x.Response, w.Response); !ok {
				return false, fmt.Sprintf("released op %d: %s", w.ID, why)
			}
		}
	}
	return true, ""
}

func releaseWords(dropped bool) string {
	if dropped {
		return "drops"
	}
	return "answers"
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

// idSource yields the ids the target made while it handled an op (a v0
// member id, a telemetry client instance id, a classic member or pending
// id), then fresh ones; reset makes it the source of the next op. The ids
// are read from responses at the first draw: most requests (every
// heartbeat at v1) draw none.
type idSource struct {
	op     *history.Op
	ctx    *replayCtx
	queued bool // the op's ids have been read into queue
	queue  []codec.UUID
	// made are the classic ids the step may make, in the order they
	// are expected (candidates, order); "" stands for a fresh one.
	made []string
	id   int // the op's id, which seeds the fallback stream
	r    *rand.Rand
	pcg  rand.PCG
}

// reset makes s the source for op.
func (s *idSource) reset(op *history.Op, ctx *replayCtx) {
	s.op, s.ctx, s.queued, s.queue, s.made, s.id, s.r = op, ctx, false, s.queue[:0], s.made[:0], op.ID, nil
}

// queueMade reads the ids the target made for the op into queue: a
// consumer-protocol one its own response shows, or the classic ones the
// step may make (candidates).
func (s *idSource) queueMade() {
	s.queued = true
	s.candidates()
	if len(s.made) == 0 {
		if u, ok := madeID(s.op); ok {
			s.queue = append(s.queue, u)
		}
		return
	}
	for _, id := range s.made {
		_, u, _ := madeIDParts(id) // "" gives the zero UUID: a fresh one
		s.queue = append(s.queue, u)
	}
}

// candidates fills s.made with the classic ids the step may make: the
// op's own (unless it waited unread behind another: then another step
// served it), then those of the requests the step served from behind the
// ones it released (made then; shown by their answers or, for a member
// gone before it was answered, by later ones: replayCtx.madeBy). A join
// that may make an id no answer shows stands as "" (a fresh one): it
// still takes a draw, and counting it makes the step ambiguous, so that
// the dry run decides which draw is whose. Without it, a step serving
// one join whose id never shows (a static member's replacement removed
// before its answer) and one whose id shows would give the shown id to
// whichever the model drew first (seed 54927 of a classic run at 30 %
// faults and 70 % static: the one id went to the wrong instance).
func (s *idSource) candidates() {
	if len(s.made) > 0 || s.ctx == nil {
		return
	}
	if id, ok := s.ctx.madeBy(s.op); ok && !s.ctx.heldUnread(s.op.ID) {
		s.made = append(s.made, id)
	}
	for _, y := range s.ctx.servedWith(s.op, s.op.Releases) {
		if id, ok := s.ctx.madeBy(s.ctx.op(y)); ok {
			s.made = append(s.made, id)
		}
	}
}

// ambiguous reports whether the step may make several classic ids, whose
// order only a dry run tells (replayer.drawnPrefixes).
func (s *idSource) ambiguous() bool {
	s.candidates()
	return len(s.made) > 1
}

// order puts the step's classic ids in the order the model draws them:
// the k-th draw is for prefixes[k], and takes the first id left of that
// prefix (a fresh one if none has it); those no draw takes go last.
func (s *idSource) order(prefixes []string) {
	left := slices.Clone(s.made)
	var out []string
	for _, p := range prefixes {
		i := slices.IndexFunc(left, func(id string) bool {
			if p == plainPrefix {
				return len(id) == 22
			}
			return p != unshownPrefix && len(id) == len(p)+37 && id[:len(p)] == p
		})
		if i < 0 {
			out = append(out, "")
			continue
		}
		out = append(out, left[i])
		left = slices.Delete(left, i, i+1)
	}
	s.made = append(out, left...)
}

// madeID is the id the target made for op, as its response shows it: a
// v0 member id or a telemetry client instance id.
func madeID(op *history.Op) (codec.UUID, bool) {
	switch r := op.Response.(type) {
	case *codec.ConsumerGroupHeartbeatResponse:
		if r.MemberId.Valid {
			if u, err := codec.ParseUUID(r.MemberId.Value); err == nil {
				return u, true
			}
		}
	case *codec.GetTelemetrySubscriptionsResponse:
		return r.ClientInstanceId, true
	}
	return codec.UUID{}, false
}

func (s *idSource) next() codec.UUID {
	if !s.queued {
		s.queueMade()
	}
	if len(s.queue) > 0 {
		u := s.queue[0]
		s.queue = s.queue[1:]
		if !u.IsZero() {
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
	w, g := history.Summary(want), history.Summary(got)
	if w == g {
		// The summaries hide the difference (bytes, hosts, client ids):
		// the whole answers, as JSON.
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		w, g = string(wj), string(gj)
	}
	return fmt.Sprintf("model answers %s; target answered %s", w, g)
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

// sameApiVersionsResponse is sameHeartbeatResponse for ApiVersions
// responses, which open every connection and list ten apis since the
// classic ones.
func sameApiVersionsResponse(a, b codec.Message) bool {
	x, ok1 := a.(*codec.ApiVersionsResponse)
	y, ok2 := b.(*codec.ApiVersionsResponse)
	if !ok1 || !ok2 || x.ErrorCode != y.ErrorCode || x.ThrottleTimeMs != y.ThrottleTimeMs ||
		x.FinalizedFeaturesEpoch != y.FinalizedFeaturesEpoch || x.ZkMigrationReady != y.ZkMigrationReady ||
		len(x.ApiKeys) != len(y.ApiKeys) || len(x.UnknownTags)+len(y.UnknownTags) > 0 ||
		len(x.SupportedFeatures)+len(y.SupportedFeatures)+len(x.FinalizedFeatures)+len(y.FinalizedFeatures) > 0 {
		return false
	}
	for i := range x.ApiKeys {
		k, l := &x.ApiKeys[i], &y.ApiKeys[i]
		if k.ApiKey != l.ApiKey || k.MinVersion != l.MinVersion || k.MaxVersion != l.MaxVersion || len(k.UnknownTags)+len(l.UnknownTags) > 0 {
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
