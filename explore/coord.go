package explore

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// coord is the coordinator of a state: the model and impl, held equal in
// lockstep, and what the explorer derives from them once. A coord never
// changes once made: a state shares its parent's when its event does not
// reach the coordinator (a client sends, a response arrives, a message is
// lost), and gets a new one, stepped from a copy, when it does. refs
// counts the states of one worker holding it, so that the worker recycles
// its impl (impl.CopyTo) when the last lets go.
type coord struct {
	m    *model.Coordinator
	i    *impl.Coordinator
	refs int32
	// snap is the model's snapshot (the invariants' groups), made when
	// first asked for (groups): a state rebuilt on the way to another
	// needs none.
	snap    []rules.GroupSnapshot
	hasSnap bool
	// next is the model's next timer, if any (hasNext).
	next    int64
	hasNext bool
	// enc is the model's canonical encoding (relative time, no
	// connections) with each member id written as its number, one byte at
	// each of idAt, for the state's encoding to rank, and ids the numbers
	// of the member ids in it: made when first asked for (worker.form), as
	// a state rebuilt on the way to another is never fingerprinted.
	formed bool
	enc    []byte
	idAt   []int32
	ids    idSet
}

// settableClock is the worker's clock for impl: set to a state's time
// before each step of a coordinator of that state (each coordinator's own
// time never goes back; the worker moves between states).
type settableClock struct{ now int64 }

func (c *settableClock) Now() int64 { return c.now }

// idCounter is the worker's id source for the coordinators it steps: it
// makes coordinatorID(n) for the state's next n, or classicID(n) while a
// classic request is served (a classic id is a UUID's text, a consumer
// one its base64). Model and impl are each run from the same n, so they
// make the same ids.
type idCounter struct {
	n       int
	classic bool
}

func (c *idCounter) next() codec.UUID {
	n := min(c.n, maxIDs) // past it, the step is refused (request)
	c.n++
	if c.classic {
		return classicID(n)
	}
	return coordinatorID(n)
}

// errTooManyIDs ends a path that made more ids than ids.go can number.
var errTooManyIDs = errors.New("explore: a path made more than 255 member ids")

// lockstepError is impl differing from the model on a step.
type lockstepError struct{ what string }

func (e *lockstepError) Error() string { return e.what }

// ruleLinearizability is the rule a lockstep difference breaks: impl's
// answers, in the order the explorer gave it the requests, are not the
// model's (the sequential history has no legal order under the model).
const ruleLinearizability = "Linearizability"

// newCoord makes the root coordinator pair.
func (w *worker) newCoord(mc model.Config, mutants impl.Mutants) *coord {
	mc.NewID = w.ids.next
	m := model.NewCoordinator(mc)
	ic := targets.ImplConfig(mc, &w.clock, mutants)
	co := &coord{m: m, i: impl.New(ic)}
	w.derive(co)
	return co
}

// fork returns a copy of co to step: a model clone counting into the
// worker's clauses (or nothing while it replays), and impl copied into a
// recycled coord of the worker's (its impl and its encoding's buffers
// reused), or a clone on the worker's clock and id source.
func (w *worker) fork(co *coord) *coord {
	var out *coord
	if n := len(w.spare); n > 0 {
		out = w.spare[n-1]
		w.spare = w.spare[:n-1]
		out.m = co.m.CloneInto(out.m)
		co.i.CopyTo(out.i)
	} else {
		out = &coord{m: co.m.Clone(), i: co.i.Clone(&w.clock, w.ids.next)}
	}
	out.m.SetIDSource(w.ids.next)
	if w.counting {
		out.m.SetClauseCounter(w.hits)
	} else {
		out.m.SetClauseCounter(nil)
	}
	return out
}

// retain and release count a state's hold on its coordinator.
func (co *coord) retain() { co.refs++ }

// release lets go of a state's hold on co: when the last lets go, the
// worker keeps co to recycle (fork), unless it keeps enough already.
func (w *worker) release(co *coord) {
	if co.refs--; co.refs == 0 && len(w.spare) < maxFree {
		co.hasSnap = false // its model and impl are stepped into again (fork)
		w.spare = append(w.spare, co)
	}
}

// maxFree bounds a worker's recycled coords (each about 28 KB of impl).
const maxFree = 64

// derive computes what the explorer reads of a coordinator after its
// step; its form waits until asked for (form).
func (w *worker) derive(co *coord) {
	co.hasSnap = false
	co.formed = false
	co.next, co.hasNext = co.m.NextDeadline()
}

// form makes co's encoding (coord.enc), once.
func (w *worker) form(co *coord) {
	if co.formed {
		return
	}
	co.formed = true
	co.ids = idSet{}
	co.idAt = co.idAt[:0]
	w.forming = co
	co.enc = co.m.AppendStateForm(co.enc[:0], w.stateForm)
	w.forming = nil
}

// formID writes a member id of the coordinator being formed (worker.forming)
// as its number, and notes where and which.
func (w *worker) formID(b []byte, id string) []byte {
	co := w.forming
	b, at, n := appendID(b, id)
	co.ids.add(n)
	co.idAt = append(co.idAt, at)
	return b
}

// formRequest writes a held request's member id as its number.
func (w *worker) formRequest(b []byte, h *codec.RequestHeader, req codec.Message) []byte {
	return appendRequest(b, h, req, w.formID)
}

// groups is the model's snapshot.
func (co *coord) groups() []rules.GroupSnapshot {
	if !co.hasSnap {
		co.snap, co.hasSnap = co.m.SnapshotInto(co.snap), true
	}
	return co.snap
}

// request hands one request to both coordinators at time now, ids drawn
// from n on, under delivery number d, and holds impl to the model: the
// same error, byte-identical encoded responses, and the same ids made
// (not again on a replayed step, see settle). It returns the model's
// response (nil when the coordinator holds the request: parked) and the
// next id number.
func (w *worker) request(co *coord, now int64, n int, conn, d uint64, h *codec.RequestHeader, req codec.Message) (resp codec.Message, next int, parked bool, err error) {
	w.clock.now = now
	mh, ih := *h, *h
	var mr, ir codec.Message
	var merr, ierr error
	mn, in := w.drawIDs(n, h.RequestApiKey != codec.ConsumerGroupHeartbeat,
		func() { mr, merr = co.m.Handle(model.Conn{ID: conn, Host: clientHost, Delivery: d}, &mh, req) },
		func() {
			ic := impl.Conn{ID: conn, Host: clientHost, Delivery: d}
			if hb, ok := req.(*codec.ConsumerGroupHeartbeatRequest); ok {
				ierr = co.i.HandleHeartbeat(ic, &ih, hb, &w.answers.heartbeat)
				ir = &w.answers.heartbeat
				return
			}
			ir, ierr = co.i.Handle(ic, &ih, req)
		})
	if mn > maxIDs || in > maxIDs {
		return nil, n, false, errTooManyIDs
	}
	mp, ip := errors.Is(merr, model.ErrParked), errors.Is(ierr, impl.ErrParked)
	if (merr == nil) != (ierr == nil) || mp != ip || errors.Is(merr, model.ErrUnsupportedRequest) != errors.Is(ierr, impl.ErrUnsupportedRequest) {
		return nil, mn, false, &lockstepError{fmt.Sprintf("%v v%d: the model answered error %v, impl %v", h.RequestApiKey, h.RequestApiVersion, merr, ierr)}
	}
	if w.counting && mn != in {
		return nil, mn, false, &lockstepError{fmt.Sprintf("%v v%d: the model made %d member ids, impl %d", h.RequestApiKey, h.RequestApiVersion, mn-n, in-n)}
	}
	if mp {
		return nil, mn, true, nil
	}
	if merr != nil {
		return nil, mn, false, fmt.Errorf("explore: the coordinator refused a request of the reference client (%v v%d): %w", h.RequestApiKey, h.RequestApiVersion, merr)
	}
	if !w.counting {
		return mr, mn, false, nil
	}
	w.menc, _ = mr.AppendTo(w.menc[:0], h.RequestApiVersion)
	w.ienc, _ = ir.AppendTo(w.ienc[:0], h.RequestApiVersion)
	if !bytes.Equal(w.menc, w.ienc) {
		return nil, mn, false, &lockstepError{fmt.Sprintf("%v v%d: impl answered %s where the model answered %s", h.RequestApiKey, h.RequestApiVersion, showMessage(ir), showMessage(mr))}
	}
	return mr, mn, false, nil
}

// drawIDs runs one step on the model, then on impl, each drawing the
// member ids it makes from number n on (classic ids, or the coordinator's
// for ConsumerGroupHeartbeat v0), and returns the next number after each:
// a step makes the same ids on both or differs.
func (w *worker) drawIDs(n int, classic bool, onModel, onImpl func()) (mn, in int) {
	w.ids.n, w.ids.classic = n, classic
	onModel()
	mn = w.ids.n
	w.ids.n = n
	onImpl()
	return mn, w.ids.n
}

// settle derives t's coordinator after its step, hands the answers it gave
// held requests to their connections (released), and holds impl's
// snapshot (pending revocations and targets included), its timers, its
// connection contexts and its Describe answers for every group to the
// model's. A step replayed on the way to a state already found was held
// to them when it was first explored: it is only derived and routed.
func (w *worker) settle(t *state) error {
	co, now := t.co, t.now
	if err := w.released(t); err != nil { // first: what is released is then gone from the form
		return err
	}
	w.derive(co)
	if !w.counting {
		return nil
	}
	w.clock.now = now
	if w.classic {
		if d := classicDiff(co); d != "" {
			return &lockstepError{d}
		}
	} else {
		w.answers.snapshot = co.i.SnapshotInto(w.answers.snapshot)
		if d := snapshotDiff(co.groups(), w.answers.snapshot); d != "" {
			return &lockstepError{"impl holds other groups than the model: " + d}
		}
	}
	if d := w.timersDiff(co); d != "" {
		return &lockstepError{d}
	}
	for id := uint64(1); id <= 2*maxClients; id++ {
		mc, mok := co.m.ConnClientID(id)
		ic, iok := co.i.ConnClientID(id)
		if mc != ic || mok != iok {
			return &lockstepError{fmt.Sprintf("connection %d: the model attributes its requests to ClientId %q (known %v), impl to %q (known %v)", id, mc, mok, ic, iok)}
		}
	}
	// The explorer's own look is no clause the clients' traffic reached.
	co.m.SetClauseCounter(nil)
	defer co.m.SetClauseCounter(w.hits)
	d := &w.describing
	d.h = codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 1}
	d.consumer = codec.ConsumerGroupDescribeRequest{GroupIds: w.groupIDs, IncludeAuthorizedOperations: true}
	if err := w.describe(co, &d.h, &d.consumer); err != nil {
		return err
	}
	if w.classic {
		d.h = codec.RequestHeader{RequestApiKey: codec.DescribeGroups, RequestApiVersion: 5}
		d.classic = codec.DescribeGroupsRequest{Groups: w.groupIDs, IncludeAuthorizedOperations: true}
		return w.describe(co, &d.h, &d.classic)
	}
	return nil
}

// describe asks both coordinators the same Describe, on a connection of
// the explorer's own, and holds impl's answer to the model's.
func (w *worker) describe(co *coord, h *codec.RequestHeader, req codec.Message) error {
	var mr, ir codec.Message = &w.answers.modelConsumer, &w.answers.implConsumer
	if h.RequestApiKey == codec.DescribeGroups {
		mr, ir = &w.answers.modelClassic, &w.answers.implClassic
	}
	merr := co.m.DescribeInto(model.Conn{ID: describeConn, Host: clientHost}, h, req, mr)
	ierr := co.i.DescribeInto(impl.Conn{ID: describeConn, Host: clientHost}, h, req, ir)
	co.m.Disconnect(describeConn)
	co.i.Disconnect(describeConn)
	if merr != nil || ierr != nil {
		return fmt.Errorf("explore: describing the groups: model %v, impl %v", merr, ierr)
	}
	w.menc, _ = mr.AppendTo(w.menc[:0], h.RequestApiVersion)
	w.ienc, _ = ir.AppendTo(w.ienc[:0], h.RequestApiVersion)
	if !bytes.Equal(w.menc, w.ienc) {
		return &lockstepError{fmt.Sprintf("%v: impl shows %s where the model shows %s", h.RequestApiKey, showMessage(ir), showMessage(mr))}
	}
	return nil
}

// classicDiff says how impl's snapshot, classic timers and held
// connections differ from the model's, "" when they do not: with classic
// groups, the whole snapshot (classic fields, pending ids and held
// requests included), in the model's form (targets.ModelSnapshot).
func classicDiff(co *coord) string {
	if ms, is := co.groups(), targets.ModelSnapshot(co.i.Snapshot()); !reflect.DeepEqual(ms, is) {
		return fmt.Sprintf("impl holds other groups than the model:\nmodel %s\nimpl  %s", showGroups(ms), showGroups(is))
	}
	type ct struct {
		g, k string
		at   int64
	}
	var mt, it []ct
	co.m.ClassicTimers(func(g, k string, at int64) { mt = append(mt, ct{g, k, at}) })
	co.i.ClassicTimers(func(g, k string, at int64) { it = append(it, ct{g, k, at}) })
	if !slices.Equal(mt, it) {
		return fmt.Sprintf("impl's classic timers differ from the model's:\nmodel %v\nimpl  %v", mt, it)
	}
	var mh, ih []string
	co.m.Held(func(conn uint64, active bool, d uint64, q []uint64) {
		mh = append(mh, fmt.Sprint(conn, active, d, q))
	})
	co.i.Held(func(conn uint64, active bool, d uint64, q []uint64) {
		ih = append(ih, fmt.Sprint(conn, active, d, q))
	})
	if !slices.Equal(mh, ih) {
		return fmt.Sprintf("impl holds other connections than the model: model %q, impl %q", mh, ih)
	}
	return ""
}

// timer is one member's timers.
type timer struct {
	group, member      string
	session, rebalance int64
}

// timersDiff says how impl's timers differ from the model's, "" when they
// do not: what no snapshot shows, and what decides when members expire.
// With them, the snapshot, Describe and the connections' contexts equal,
// impl holds what the model holds of the future: a state the search
// reaches again, with another impl behind it, has one it would judge
// alike.
func (w *worker) timersDiff(co *coord) string {
	w.timers = w.timers[:0]
	co.m.Timers(func(g, m string, session, rebalance int64) {
		w.timers = append(w.timers, timer{g, m, session, rebalance})
	})
	k, diff := 0, ""
	co.i.Timers(func(g, m string, session, rebalance int64) {
		got := timer{g, m, session, rebalance}
		if diff == "" && (k >= len(w.timers) || w.timers[k] != got) {
			want := timer{}
			if k < len(w.timers) {
				want = w.timers[k]
			}
			diff = fmt.Sprintf("impl's timers differ from the model's: %+v in impl where the model has %+v", got, want)
		}
		k++
	})
	if diff == "" && k != len(w.timers) {
		diff = fmt.Sprintf("impl has timers for %d members, the model for %d", k, len(w.timers))
	}
	return diff
}

// describeConn is the connection the explorer's own Describe arrives on:
// no client's (clients have 1..2*maxClients).
const describeConn = 1 << 20

// clientHost is every client's host: identically configured clients must
// look alike to the coordinator (symmetry).
const clientHost = "/127.0.0.1"

// snapshotDiff says how impl's snapshot differs from the model's, "" when
// it does not: groups in id order, members in id order, each member's
// instance id, epoch, assigned, pending and target partitions (as sorted
// lists) and subscription.
func snapshotDiff(ms []rules.GroupSnapshot, is []impl.GroupSnapshot) string {
	if len(ms) != len(is) {
		return fmt.Sprintf("%d groups in the model, %d in impl", len(ms), len(is))
	}
	for gi, mg := range ms {
		ig := is[gi]
		if mg.GroupID != ig.GroupID || mg.Epoch != ig.Epoch || len(mg.Members) != len(ig.Members) {
			return fmt.Sprintf("group %s epoch %d with %d members in the model, group %s epoch %d with %d in impl",
				mg.GroupID, mg.Epoch, len(mg.Members), ig.GroupID, ig.Epoch, len(ig.Members))
		}
		for mi, mm := range mg.Members {
			im := ig.Members[mi]
			switch {
			case mm.MemberID != im.MemberID || mm.InstanceID != im.InstanceID || mm.Epoch != im.Epoch:
				return fmt.Sprintf("group %s: member %s (instance %q, epoch %d) in the model, %s (instance %q, epoch %d) in impl",
					mg.GroupID, mm.MemberID, mm.InstanceID, mm.Epoch, im.MemberID, im.InstanceID, im.Epoch)
			case !samePartitions(mm.Assigned, im.Assigned), !samePartitions(mm.Pending, im.Pending), !samePartitions(mm.Target, im.Target):
				return fmt.Sprintf("group %s member %s: assigned %v pending %v target %v in the model, assigned %v pending %v target %v in impl",
					mg.GroupID, mm.MemberID, mm.Assigned, mm.Pending, mm.Target, im.Assigned, im.Pending, im.Target)
			case !slices.Equal(mm.SubscribedTopicNames, sortedNames(im.SubscribedTopicNames)), mm.SubscribedTopicRegex != im.SubscribedTopicRegex:
				return fmt.Sprintf("group %s member %s: subscribed to %v %v in the model, %v %v in impl",
					mg.GroupID, mm.MemberID, mm.SubscribedTopicNames, mm.SubscribedTopicRegex, im.SubscribedTopicNames, im.SubscribedTopicRegex)
			}
		}
	}
	return ""
}

// samePartitions compares a model list (sorted by topic, then partition)
// with impl's, in whatever order impl gives it.
func samePartitions(m []rules.TopicPartition, i []impl.TopicPartition) bool {
	if len(m) != len(i) {
		return false
	}
	byTopic := func(a, b impl.TopicPartition) int {
		return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	}
	if !slices.IsSortedFunc(i, byTopic) {
		i = slices.Clone(i)
		slices.SortFunc(i, byTopic)
	}
	for k := range m {
		if m[k].Topic != i[k].Topic || m[k].Partition != i[k].Partition {
			return false
		}
	}
	return true
}

// sortedNames is names sorted (impl keeps them sorted; a copy only if not).
func sortedNames(names []string) []string {
	if names == nil {
		return []string{}
	}
	if slices.IsSorted(names) {
		return names
	}
	return slices.Sorted(slices.Values(names))
}

// showMessage prints a message for a report.
func showMessage(m codec.Message) string {
	if hb, ok := m.(*codec.ConsumerGroupHeartbeatResponse); ok && hb.Assignment != nil {
		return fmt.Sprintf("%+v assignment %+v", *hb, *hb.Assignment)
	}
	return fmt.Sprintf("%+v", m)
}

// showGroups prints a snapshot for a report, classic parts included.
func showGroups(gs []rules.GroupSnapshot) string {
	var b strings.Builder
	for _, g := range gs {
		fmt.Fprintf(&b, "{%s epoch %d kind %v", g.GroupID, g.Epoch, g.Kind)
		if g.Classic != nil {
			fmt.Fprintf(&b, " classic %+v", *g.Classic)
		}
		for _, m := range g.Members {
			fmt.Fprintf(&b, " member %s instance %q epoch %d assigned %v", m.MemberID, m.InstanceID, m.Epoch, m.Assigned)
			if m.Classic != nil {
				fmt.Fprintf(&b, " %+v", *m.Classic)
			}
		}
		b.WriteString("} ")
	}
	return b.String()
}
