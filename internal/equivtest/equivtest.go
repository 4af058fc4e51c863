// Package equivtest is the model-versus-impl equivalence property: a rapid
// state machine that feeds the same generated operations to the reference
// coordinator (package model) and the optimized one (package impl) and
// requires byte-identical encoded responses after every operation, and
// equal snapshots (pending revocations, classic groups' pending ids and
// held requests included), the same answers to held requests (Released)
// and equal Describe and DescribeGroups output after every step. Consumer
// groups (equivtest.go) and classic groups (classic.go) share the
// coordinators, the clock, the connections and some group ids. impl's
// tests and the fuzz target in fuzz/ both run it.
//
// It lives beside impl, not under it, because impl must not import model
// outside its tests, and a package under impl/ that imports model would put
// model among impl/...'s dependencies. Nothing but tests imports it.
package equivtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Property returns the equivalence property with the given mutants planted
// in impl. With none it must hold; with any it should fail quickly.
func Property(mut impl.Mutants) func(*rapid.T) {
	return PropertyCounting(mut, nil)
}

// PropertyCounting is Property with the model counting the clauses it
// applies into hits (nil counts nothing): what the generated operations
// reach.
func PropertyCounting(mut impl.Mutants, hits model.ClauseCounter) func(*rapid.T) {
	return property(mut, hits, nil)
}

// PropertyObserving is Property with observe called with impl's
// coordinator in the state after every step, before the step's checks
// (not in the states within a step that serves several requests). A test looks at those states through it (impl's
// DescribeInto against Handle), the property's own checks unchanged.
func PropertyObserving(mut impl.Mutants, observe func(*impl.Coordinator)) func(*rapid.T) {
	return property(mut, nil, observe)
}

func property(mut impl.Mutants, hits model.ClauseCounter, observe func(*impl.Coordinator)) func(*rapid.T) {
	return func(t *rapid.T) {
		h := newHarness(t, mut, hits)
		h.observe = observe
		t.Repeat(h.actions(rapid.IntRange(0, 3).Draw(t, "mode")))
	}
}

// CloneProperty is Property with one more action: impl is replaced by its
// Clone, which the remaining steps drive, so that the clone must answer
// as the model does from wherever it was made; the original it replaced
// must stay exactly as it was (its snapshot and bookkeeping) while the
// clone moves on.
func CloneProperty(mut impl.Mutants) func(*rapid.T) {
	return func(t *rapid.T) {
		h := newHarness(t, mut, nil)
		actions := h.actions(rapid.IntRange(0, 3).Draw(t, "mode"))
		actions["clone"] = h.clone
		t.Repeat(actions)
	}
}

var debug = os.Getenv("EQUIVTEST_DEBUG") != ""

var topicNames = []string{"alpha", "beta", "gamma", "delta"}

// process is one simulated client: what it believes, updated from the
// (identical) responses.
type process struct {
	group    string
	memberID string // "" until a v0 process learns one
	instance codec.NullableString
	version  int16
	conn     uint64
	epoch    int32
	owned    []codec.ConsumerGroupHeartbeatTopicPartitions
}

type harness struct {
	m     *model.Coordinator
	i     *impl.Coordinator
	clock *impl.ManualClock
	now   int64
	cfg   model.Config
	seed  uint64
	mut   impl.Mutants
	// mixed is set in the mixed mode (mixed.go): classic processes send
	// consumer-protocol metadata, leaders deal real partitions.
	mixed bool
	procs []*process
	conns map[uint64]bool                      // connections that sent a request
	seen  []string                             // member ids seen in responses
	inst  []codec.UUID                         // client instance ids used
	resp  codec.ConsumerGroupHeartbeatResponse // reused by HandleHeartbeat
	steps int
	// replaced is the coordinator the last clone action replaced, and
	// replacedSnap its snapshot then: it must not move.
	replaced     *impl.Coordinator
	replacedSnap []impl.GroupSnapshot
	// observe, when set, is shown impl's coordinator after every step.
	observe func(*impl.Coordinator)

	// The classic side (classic.go): its processes and the member ids
	// its answers carried; the numbering of deliveries, the version of
	// each held request (to encode its answer at) and the classic process
	// each waits for.
	cprocs   []*cproc
	cseen    []string
	delivery uint64
	versions map[uint64]int16
	awaiting map[uint64]*cproc
}

func newHarness(t *rapid.T, mut impl.Mutants, hits model.ClauseCounter) *harness {
	seed := rapid.Uint64().Draw(t, "seed")
	cfg := model.DefaultConfig(seed)
	n := rapid.IntRange(1, 3).Draw(t, "topics")
	cfg.Topics = nil
	for _, name := range rapid.Permutation(topicNames).Draw(t, "topicOrder")[:n] {
		cfg.Topics = append(cfg.Topics, model.Topic{Name: name, ID: model.TopicIDFor(name), Partitions: rapid.SampledFrom([]int32{0, 1, 2, 3, 4, 4}).Draw(t, "partitions")})
	}
	cfg.SessionTimeoutMs = rapid.SampledFrom([]int64{1000, 10000, 45000}).Draw(t, "session")
	cfg.MaxGroupSize = rapid.SampledFrom([]int{0, 0, 2, 3}).Draw(t, "maxSize")
	switch rapid.IntRange(0, 5).Draw(t, "maxVersions") {
	case 0:
		cfg.MaxVersions = map[codec.APIKey]int16{codec.LeaveGroup: 2}
	case 1:
		cfg.MaxVersions = map[codec.APIKey]int16{codec.ConsumerGroupHeartbeat: 0, codec.GetTelemetrySubscriptions: 0}
	}
	cfg.Telemetry.PushIntervalMs = rapid.SampledFrom([]int32{0, 1000}).Draw(t, "pushInterval")
	cfg.Telemetry.TelemetryMaxBytes = 2 // a push draws 0 to 3 bytes of metrics: the largest is too large
	cfg.ClassicMinSessionTimeoutMs = 1000
	cfg.ClassicMaxSessionTimeoutMs = 60000
	cfg.InitialRebalanceDelayMs = rapid.SampledFrom([]int32{3000, 0, 1000}).Draw(t, "initialDelay")
	cfg.NewMemberJoinTimeoutMs = rapid.SampledFrom([]int32{300000, 2000}).Draw(t, "newMemberTimeout")
	cfg.ClassicMaxGroupSize = rapid.SampledFrom([]int{0, 0, 2, 3}).Draw(t, "classicMaxSize")
	if rapid.IntRange(0, 5).Draw(t, "preKIP394") == 0 {
		if cfg.MaxVersions == nil {
			cfg.MaxVersions = map[codec.APIKey]int16{}
		}
		cfg.MaxVersions[codec.JoinGroup] = 3
	}
	cfg.Clauses = hits
	h := &harness{clock: impl.NewManualClock(0), cfg: cfg, seed: seed, mut: mut, conns: map[uint64]bool{},
		versions: map[uint64]int16{}, awaiting: map[uint64]*cproc{}}
	h.build()
	return h
}

// build makes both coordinators from the harness's configuration, each
// with an id source of its own giving the same ids.
func (h *harness) build() {
	cfg := h.cfg
	cfg.NewID = model.SeededIDs(h.seed)
	icfg := targets.ImplConfig(cfg, h.clock, h.mut)
	icfg.NewID = model.SeededIDs(h.seed)
	h.m, h.i = model.NewCoordinator(cfg), impl.New(icfg)
}

// actions are the operations of a sequence, by mode: consumer groups alone
// (modes 0 and 1, half of the sequences: a planted bug of theirs shows as
// soon as it did before classic groups came), classic groups alone (2,
// with the actions both share), or both (3).
func (h *harness) actions(mode int) map[string]func(*rapid.T) {
	a := map[string]func(*rapid.T){
		"apiVersions":  h.apiVersions,
		"advance":      h.advance,
		"advance2":     h.advance,
		"disconnect":   h.disconnect,
		"coordRestart": h.restart,
		"":             h.check,
	}
	if mode != 2 {
		a["join"] = h.join
		a["rejoin"] = h.join
		a["restart"] = h.staticRestart
		a["heartbeat"] = h.heartbeat
		a["heartbeat2"] = h.heartbeat
		a["leave"] = h.leave
		a["leaveGroup"] = h.leaveGroup
		a["describe"] = h.describe
		a["telemetry"] = h.telemetry
	}
	if mode >= 2 {
		h.classicActions(a)
	}
	return a
}

// ---- drawing ----

func (h *harness) drawGroup(t *rapid.T) string {
	return rapid.SampledFrom([]string{"g1", "g1", "g1", "g1", "g2", "g3", " "}).Draw(t, "group")
}

func drawUUID(t *rapid.T, label string) codec.UUID {
	var u codec.UUID
	for i := range u {
		u[i] = byte(rapid.IntRange(0, 255).Draw(t, label))
	}
	return u
}

// process returns an existing process or makes a new one.
func (h *harness) process(t *rapid.T) *process {
	// Every draw is made whatever the state, so that rapid can delete a
	// step without shifting how later steps read their draws; draws
	// shrink towards 0, so 0 is the choice that makes the shortest
	// counterexamples (an existing process, a v1 client).
	fresh := rapid.IntRange(0, 3).Draw(t, "newProcess") == 3
	pick := rapid.IntRange(0, 63).Draw(t, "process")
	group := h.drawGroup(t)
	version := 1 - int16(rapid.IntRange(0, 1).Draw(t, "v0"))
	conn := uint64(rapid.IntRange(1, 4).Draw(t, "conn"))
	idKind := rapid.IntRange(0, 9).Draw(t, "idKind")
	odd := rapid.SampledFrom([]string{"", "m-1", "m-2", "M", "   "}).Draw(t, "oddID")
	id := drawUUID(t, "id")
	static := rapid.IntRange(0, 2).Draw(t, "static") == 0
	instance := rapid.SampledFrom([]string{"i1", "i2", "i3"}).Draw(t, "instance")
	if len(h.procs) > 0 && !fresh {
		return h.procs[pick%len(h.procs)]
	}
	p := &process{group: group, version: version, conn: conn}
	if p.version == 1 {
		switch idKind {
		case 0:
			p.memberID = odd
		case 1:
			p.memberID = id.String() // Kafka's base64 form
		default:
			p.memberID = id.Hex()
		}
	}
	if static {
		p.instance = codec.Str(instance)
	}
	h.procs = append(h.procs, p)
	return p
}

// existing picks an existing process, or skips the step if there is none.
func (h *harness) existing(t *rapid.T) *process {
	pick := rapid.IntRange(0, 63).Draw(t, "process")
	if len(h.procs) == 0 {
		t.Skip("no process yet")
	}
	return h.procs[pick%len(h.procs)]
}

func (h *harness) drawMemberID(t *rapid.T) string {
	kind := rapid.IntRange(0, 5).Draw(t, "otherID")
	pick := rapid.IntRange(0, 63).Draw(t, "seenID")
	switch {
	case kind == 0:
		return ""
	case kind == 1:
		return "ghost"
	case len(h.seen) > 0:
		return h.seen[pick%len(h.seen)]
	}
	return "nobody"
}

func (h *harness) header(t *rapid.T, key codec.APIKey, version int16, conn uint64) *codec.RequestHeader {
	hd := &codec.RequestHeader{RequestApiKey: key, RequestApiVersion: version, CorrelationId: int32(h.steps)}
	again := rapid.IntRange(0, 4).Draw(t, "clientIdAgain") == 0
	clientID := rapid.SampledFrom([]string{"app", "app-2", ""}).Draw(t, "clientId")
	if !h.conns[conn] || again {
		hd.ClientId = codec.Str(clientID)
	}
	kind := rapid.IntRange(0, 6).Draw(t, "instanceHeader")
	fresh := rapid.Bool().Draw(t, "newInstanceId")
	u := drawUUID(t, "instanceId")
	pick := rapid.IntRange(0, 63).Draw(t, "instanceIdx")
	switch kind {
	case 0:
	case 1:
		hd.ClientInstanceId = codec.SomeUUID(codec.UUID{})
	case 2:
		hd.ClientInstanceId = codec.SomeUUID(codec.UUID{15: 1}) // Kafka's reserved Uuid.ONE
	default:
		if len(h.inst) == 0 || fresh {
			h.inst = append(h.inst, u)
		}
		hd.ClientInstanceId = codec.SomeUUID(h.inst[pick%len(h.inst)])
	}
	return hd
}

func (h *harness) drawNames(t *rapid.T) []string {
	names := []string{}
	for _, n := range append([]string{"nope"}, topicNames...) {
		if rapid.IntRange(0, 2).Draw(t, "subscribe") > 0 {
			names = append(names, n)
		}
	}
	if rapid.IntRange(0, 5).Draw(t, "dupName") == 0 && len(names) > 0 {
		names = append(names, names[0])
	}
	return names
}

// ---- running one request on both ----

// do sends one request to both coordinators and requires identical
// results. It returns the model's response (nil for an unsupported one).
func (h *harness) do(t *rapid.T, conn uint64, hd *codec.RequestHeader, req codec.Message) codec.Message {
	h.steps++
	h.delivery++
	host := fmt.Sprintf("/10.0.0.%d", conn)
	mr, merr := h.m.Handle(model.Conn{ID: conn, Host: host, Delivery: h.delivery}, hd, req)
	var ir codec.Message
	var ierr error
	if hb, ok := req.(*codec.ConsumerGroupHeartbeatRequest); ok && rapid.Bool().Draw(t, "fastPath") {
		// The server's path: a response the caller owns and reuses.
		ierr = h.i.HandleHeartbeat(impl.Conn{ID: conn, Host: host, Delivery: h.delivery}, hd, hb, &h.resp)
		ir = &h.resp
	} else {
		ir, ierr = h.i.Handle(impl.Conn{ID: conn, Host: host, Delivery: h.delivery}, hd, req)
	}
	if (merr == nil) != (ierr == nil) || errors.Is(merr, model.ErrUnsupportedRequest) != errors.Is(ierr, impl.ErrUnsupportedRequest) ||
		errors.Is(merr, model.ErrParked) != errors.Is(ierr, impl.ErrParked) {
		t.Fatalf("%v v%d %+v: model error %v, impl error %v", hd.RequestApiKey, hd.RequestApiVersion, req, merr, ierr)
	}
	if errors.Is(merr, model.ErrParked) {
		h.versions[h.delivery] = hd.RequestApiVersion
		h.conns[conn] = true
		return nil
	}
	if merr != nil {
		return nil
	}
	h.conns[conn] = true
	if debug {
		t.Logf("step %d: %v v%d %+v -> %+v\n  model %+v\n  impl  %+v", h.steps, hd.RequestApiKey, hd.RequestApiVersion, req, show(mr), h.m.Snapshot(), targets.ModelSnapshot(h.i.Snapshot()))
	}
	mb, err1 := mr.AppendTo(nil, hd.RequestApiVersion)
	ib, err2 := ir.AppendTo(nil, hd.RequestApiVersion)
	if err1 != nil || err2 != nil {
		t.Fatalf("encoding %v v%d: model %v, impl %v", hd.RequestApiKey, hd.RequestApiVersion, err1, err2)
	}
	if !bytes.Equal(mb, ib) {
		t.Fatalf("%v v%d request %+v\nmodel response %+v\nimpl response  %+v\nmodel now %+v\nimpl now  %+v", hd.RequestApiKey, hd.RequestApiVersion, req, show(mr), show(ir), h.m.Snapshot(), targets.ModelSnapshot(h.i.Snapshot()))
	}
	return mr
}

func show(m codec.Message) string {
	if hb, ok := m.(*codec.ConsumerGroupHeartbeatResponse); ok && hb.Assignment != nil {
		return fmt.Sprintf("%+v assignment %+v", *hb, *hb.Assignment)
	}
	return fmt.Sprintf("%+v", m)
}

func (h *harness) absorb(p *process, resp codec.Message) {
	r, ok := resp.(*codec.ConsumerGroupHeartbeatResponse)
	if !ok {
		return
	}
	if r.ErrorCode != codec.None {
		if r.ErrorCode == codec.FencedMemberEpoch || r.ErrorCode == codec.UnknownMemberID {
			p.epoch = 0
		}
		return
	}
	if r.MemberId.Valid {
		p.memberID = r.MemberId.Value
		h.seen = append(h.seen, r.MemberId.Value)
	}
	p.epoch = r.MemberEpoch
	if p.epoch < 0 {
		p.epoch = 0
	}
	if r.Assignment != nil {
		p.owned = append([]codec.ConsumerGroupHeartbeatTopicPartitions{}, r.Assignment.TopicPartitions...)
	}
}

// partitions counts the partitions of a heartbeat's TopicPartitions.
func partitions(tps []codec.ConsumerGroupHeartbeatTopicPartitions) int {
	n := 0
	for _, tp := range tps {
		n += len(tp.Partitions)
	}
	return n
}

// ---- actions ----

func (h *harness) join(t *rapid.T) { h.joinAs(t, h.process(t)) }

// staticRestart is KIP-345's static restart: a static member (one the
// model holds, whichever process made it, or one a new process joins as
// first) is parked, as a static client closing does with a leave at epoch
// -2 (mostly: sometimes it is not, so the new process meets an active
// holder), and a new process, with a member id of its own, joins under
// the same instance id: a takeover when the holder is parked.
func (h *harness) staticRestart(t *rapid.T) {
	group := rapid.SampledFrom([]string{"g1", "g1", "g2"}).Draw(t, "restartGroup")
	instance := rapid.SampledFrom([]string{"i1", "i2", "i3"}).Draw(t, "restartInstance")
	conn := uint64(rapid.IntRange(1, 4).Draw(t, "conn"))
	first, next := drawUUID(t, "firstID"), drawUUID(t, "restartID")
	park := rapid.IntRange(0, 3).Draw(t, "parkFirst") > 0
	version := 1 - int16(rapid.IntRange(0, 3).Draw(t, "v0")/3)
	holder := func() string {
		for _, g := range h.m.Snapshot() {
			for _, m := range g.Members {
				if g.GroupID == group && m.InstanceID == instance {
					return m.MemberID
				}
			}
		}
		return ""
	}
	if holder() == "" {
		p := &process{group: group, version: 1, conn: conn, instance: codec.Str(instance), memberID: first.Hex()}
		h.procs = append(h.procs, p)
		req := &codec.ConsumerGroupHeartbeatRequest{GroupId: group, MemberId: p.memberID, InstanceId: p.instance,
			RebalanceTimeoutMs: 5000, SubscribedTopicNames: h.drawNames(t), TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
		h.absorb(p, h.do(t, conn, h.header(t, codec.ConsumerGroupHeartbeat, 1, conn), req))
	}
	if id := holder(); park && id != "" {
		req := &codec.ConsumerGroupHeartbeatRequest{GroupId: group, MemberId: id, InstanceId: codec.Str(instance), MemberEpoch: -2, RebalanceTimeoutMs: -1}
		h.do(t, conn, h.header(t, codec.ConsumerGroupHeartbeat, 1, conn), req)
	}
	p := &process{group: group, version: version, conn: conn, instance: codec.Str(instance)}
	if p.version == 1 {
		p.memberID = next.Hex()
	}
	h.procs = append(h.procs, p)
	h.joinAs(t, p)
}

func (h *harness) joinAs(t *rapid.T, p *process) {
	req := &codec.ConsumerGroupHeartbeatRequest{
		GroupId:            p.group,
		MemberId:           p.memberID,
		InstanceId:         p.instance,
		RebalanceTimeoutMs: rapid.SampledFrom([]int32{5000, 5000, 60000, 0, -1}).Draw(t, "rebalanceTimeout"),
		TopicPartitions:    []codec.ConsumerGroupHeartbeatTopicPartitions{},
	}
	if rapid.IntRange(0, 7).Draw(t, "rackSet") == 0 {
		req.RackId = codec.Str(rapid.SampledFrom([]string{"r1", "r2", " "}).Draw(t, "rack"))
	}
	useRegex := rapid.IntRange(0, 3).Draw(t, "useRegex") == 0
	regex := rapid.SampledFrom([]string{"a.*", "(beta|gamma)", "", "[bad"}).Draw(t, "regex")
	namesToo := rapid.Bool().Draw(t, "namesToo")
	names := h.drawNames(t)
	if p.version >= 1 && useRegex {
		req.SubscribedTopicRegex = codec.Str(regex)
	}
	if !req.SubscribedTopicRegex.Valid || namesToo {
		req.SubscribedTopicNames = names
	}
	switch rapid.IntRange(0, 11).Draw(t, "joinOddity") {
	case 0:
		req.TopicPartitions = nil
	case 1:
		req.ServerAssignor = codec.Str(rapid.SampledFrom([]string{"uniform", "range"}).Draw(t, "assignor"))
	case 2:
		req.MemberId = h.drawMemberID(t)
	case 3:
		req.GroupId = h.drawGroup(t)
	case 4:
		req.InstanceId = codec.Str(" ") // blank: INVALID_REQUEST (§B4.2)
	}
	resp := h.do(t, p.conn, h.header(t, codec.ConsumerGroupHeartbeat, p.version, p.conn), req)
	if rapid.IntRange(0, 4).Draw(t, "lostResponse") > 0 {
		h.absorb(p, resp)
	}
}

func (h *harness) heartbeat(t *rapid.T) {
	p := h.existing(t)
	req := &codec.ConsumerGroupHeartbeatRequest{GroupId: p.group, MemberId: p.memberID, InstanceId: p.instance, RebalanceTimeoutMs: -1}
	switch rapid.IntRange(0, 5).Draw(t, "epochKind") {
	case 0:
		req.MemberEpoch = p.epoch - 1 // stale
	case 1:
		req.MemberEpoch = rapid.Int32Range(-3, 12).Draw(t, "epoch") // wrong
	default:
		req.MemberEpoch = p.epoch
	}
	switch rapid.IntRange(0, 3).Draw(t, "report") {
	case 0:
	case 1:
		req.TopicPartitions = []codec.ConsumerGroupHeartbeatTopicPartitions{}
	default:
		req.TopicPartitions = append([]codec.ConsumerGroupHeartbeatTopicPartitions{}, p.owned...)
		if rapid.IntRange(0, 3).Draw(t, "dropReported") == 0 && len(req.TopicPartitions) > 0 {
			req.TopicPartitions = req.TopicPartitions[1:]
		}
		if rapid.IntRange(0, 7).Draw(t, "bogusReported") == 0 {
			req.TopicPartitions = append(req.TopicPartitions, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: model.TopicIDFor("alpha"), Partitions: []int32{0, 9}})
		}
	}
	switch rapid.IntRange(0, 7).Draw(t, "full") {
	case 0:
		req.RebalanceTimeoutMs = 5000
		req.SubscribedTopicNames = h.drawNames(t)
	case 1:
		// Full by its regex alone (A5.7), as a client subscribed by
		// pattern sends after a lost response.
		req.RebalanceTimeoutMs = 5000
		if p.version >= 1 {
			req.SubscribedTopicRegex = codec.Str(rapid.SampledFrom([]string{"a.*", "(beta|gamma)", ""}).Draw(t, "fullRegex"))
		}
	}
	if rapid.IntRange(0, 5).Draw(t, "dropInstance") == 0 {
		req.InstanceId = codec.Null
	}
	resp := h.do(t, p.conn, h.header(t, codec.ConsumerGroupHeartbeat, p.version, p.conn), req)
	if rapid.IntRange(0, 5).Draw(t, "lostResponse") > 0 {
		owned := p.owned
		h.absorb(p, resp)
		if partitions(p.owned) < partitions(owned) && rapid.IntRange(0, 3).Draw(t, "slowRevoke") > 0 {
			// A client slow to revoke goes on reporting what it held, so
			// its member stays in UNREVOKED_PARTITIONS over heartbeats
			// (its rebalance timer must not restart, A5.6).
			p.owned = owned
		}
	}
}

func (h *harness) leave(t *rapid.T) {
	p := h.existing(t)
	req := &codec.ConsumerGroupHeartbeatRequest{GroupId: p.group, MemberId: p.memberID, InstanceId: p.instance, MemberEpoch: -1, RebalanceTimeoutMs: -1}
	if rapid.Bool().Draw(t, "temporary") && p.instance.Valid {
		req.MemberEpoch = -2
	}
	switch rapid.IntRange(0, 5).Draw(t, "leaveOddity") {
	case 0:
		req.MemberId = h.drawMemberID(t)
	case 1:
		req.InstanceId = codec.Null
	case 2:
		req.InstanceId = codec.Str(rapid.SampledFrom([]string{"i1", "i2", "i3"}).Draw(t, "instance"))
	}
	resp := h.do(t, p.conn, h.header(t, codec.ConsumerGroupHeartbeat, p.version, p.conn), req)
	if r, ok := resp.(*codec.ConsumerGroupHeartbeatResponse); ok && r.ErrorCode == codec.None {
		p.epoch, p.owned = 0, nil
	}
}

func (h *harness) leaveGroup(t *rapid.T) {
	version := int16(rapid.IntRange(0, 5).Draw(t, "leaveGroupVersion"))
	req := &codec.LeaveGroupRequest{GroupId: h.drawGroup(t)}
	if version <= 2 {
		req.MemberId = h.drawMemberID(t)
	} else {
		for n := rapid.IntRange(0, 4).Draw(t, "batch"); n > 0; n-- {
			m := codec.LeaveGroupMember{MemberId: h.drawMemberID(t)}
			if rapid.IntRange(0, 3).Draw(t, "nullInstance") > 0 {
				m.GroupInstanceId = codec.Str(rapid.SampledFrom([]string{"i1", "i2", "i3", "i9"}).Draw(t, "instance"))
			}
			// Often a member the group holds now, by its own names (A3
			// rows 3 and 7) or by its instance alone (row 1), so that
			// batches remove several at once.
			if ms := h.members(req.GroupId); rapid.IntRange(0, 2).Draw(t, "currentMember") > 0 && len(ms) > 0 {
				cur := ms[rapid.IntRange(0, 63).Draw(t, "currentPick")%len(ms)]
				m.MemberId, m.GroupInstanceId = cur.MemberID, codec.Null
				if cur.InstanceID != "" {
					switch rapid.IntRange(0, 2).Draw(t, "withInstance") {
					case 1:
						m.GroupInstanceId = codec.Str(cur.InstanceID)
					case 2:
						m.MemberId, m.GroupInstanceId = "", codec.Str(cur.InstanceID)
					}
				}
			}
			req.Members = append(req.Members, m)
		}
	}
	conn := uint64(rapid.IntRange(1, 4).Draw(t, "conn"))
	h.do(t, conn, h.header(t, codec.LeaveGroup, version, conn), req)
}

// members is what the model holds of group now.
func (h *harness) members(group string) []rules.MemberSnapshot {
	for _, g := range h.m.Snapshot() {
		if g.GroupID == group {
			return g.Members
		}
	}
	return nil
}

func (h *harness) describe(t *rapid.T) {
	version := int16(rapid.IntRange(0, 1).Draw(t, "describeVersion"))
	req := &codec.ConsumerGroupDescribeRequest{IncludeAuthorizedOperations: rapid.Bool().Draw(t, "ops")}
	for n := rapid.IntRange(0, 3).Draw(t, "describeN"); n > 0; n-- {
		req.GroupIds = append(req.GroupIds, rapid.SampledFrom([]string{"g1", "g2", "g3", "", "zz"}).Draw(t, "describeGroup"))
	}
	conn := uint64(rapid.IntRange(1, 4).Draw(t, "conn"))
	h.do(t, conn, h.header(t, codec.ConsumerGroupDescribe, version, conn), req)
}

func (h *harness) telemetry(t *rapid.T) {
	conn := uint64(rapid.IntRange(1, 4).Draw(t, "conn"))
	version := int16(rapid.IntRange(0, 1).Draw(t, "telemetryVersion"))
	var body codec.UUID
	useBody := rapid.Bool().Draw(t, "bodyID")
	pick := rapid.IntRange(0, 63).Draw(t, "instanceIdx")
	if version == 0 && useBody && len(h.inst) > 0 {
		body = h.inst[pick%len(h.inst)]
	}
	if !rapid.Bool().Draw(t, "get") {
		h.push(t, conn, h.header(t, codec.PushTelemetry, version, conn), body)
		return
	}
	hd := h.header(t, codec.GetTelemetrySubscriptions, version, conn)
	resp := h.do(t, conn, hd, &codec.GetTelemetrySubscriptionsRequest{ClientInstanceId: body})
	// A push under the id a Get was just served for, as a client pushes:
	// a random id seldom meets a fetched subscription.
	if r, ok := resp.(*codec.GetTelemetrySubscriptionsResponse); ok && r.ErrorCode == codec.None && rapid.Bool().Draw(t, "pushAfterGet") {
		push := *hd
		push.RequestApiKey, push.CorrelationId = codec.PushTelemetry, int32(h.steps)
		if version == 0 {
			body = r.ClientInstanceId
		}
		h.push(t, conn, &push, body)
	}
}

// push sends a PushTelemetry under hd (and body, at v0); every accepted
// push is followed at once by another under the same id, which §B6
// refuses (throttled, or after a terminating push).
func (h *harness) push(t *rapid.T, conn uint64, hd *codec.RequestHeader, body codec.UUID) {
	req := &codec.PushTelemetryRequest{
		ClientInstanceId: body,
		SubscriptionId:   rapid.Int32Range(1, 2).Draw(t, "subscription"),
		Terminating:      rapid.IntRange(0, 4).Draw(t, "terminating") == 0,
		CompressionType:  int8(rapid.IntRange(0, 1).Draw(t, "compression")),
		Metrics:          make([]byte, rapid.IntRange(0, 3).Draw(t, "metrics")),
	}
	resp := h.do(t, conn, hd, req)
	if r, ok := resp.(*codec.PushTelemetryResponse); ok && r.ErrorCode == codec.None {
		again, next := *hd, *req
		again.CorrelationId, next.Terminating = int32(h.steps), false
		h.do(t, conn, &again, &next)
	}
}

func (h *harness) apiVersions(t *rapid.T) {
	conn := uint64(rapid.IntRange(1, 4).Draw(t, "conn"))
	version := int16(rapid.IntRange(0, 4).Draw(t, "apiVersionsVersion"))
	req := &codec.ApiVersionsRequest{ClientSoftwareName: rapid.SampledFrom([]string{"ghostcheck", "bad name"}).Draw(t, "software"), ClientSoftwareVersion: "1.0"}
	h.do(t, conn, h.header(t, codec.ApiVersions, version, conn), req)
}

func (h *harness) advance(t *rapid.T) {
	st := h.cfg.SessionTimeoutMs
	d := rapid.SampledFrom([]int64{0, 1, 1000, st / 2, st - 1, st, st + 1, 5000, 60000, 3000, 6000, 2000}).Draw(t, "advance")
	h.now += d
	h.m.Advance(h.now)
	h.clock.Set(h.now)
	h.i.Expire()
}

func (h *harness) disconnect(t *rapid.T) {
	conn := uint64(rapid.IntRange(1, 4).Draw(t, "conn"))
	h.m.Disconnect(conn)
	h.i.Disconnect(conn)
	delete(h.conns, conn)
}

// restart restarts both coordinators at the current time (both have
// already fired the timers due by then: advance moves them together).
// Restarting forgets every connection's context; the clients either
// reconnect, so their next request on each connection carries ClientId
// again, or, drawn otherwise, carry on as if nothing happened, so that a
// request without ClientId meets the forgotten context.
func (h *harness) restart(t *rapid.T) {
	reconnect := rapid.Bool().Draw(t, "reconnect")
	h.m.Restart()
	h.i.Restart()
	if reconnect {
		clear(h.conns)
	}
}

// timers lists what a coordinator's Timers reports.
func timers(each func(func(group, member string, session, rebalance int64))) []string {
	var out []string
	each(func(g, m string, session, rebalance int64) {
		out = append(out, fmt.Sprintf("%s/%s session %d rebalance %d", g, m, session, rebalance))
	})
	return out
}

// classicTimers lists what a coordinator's ClassicTimers reports.
func classicTimers(each func(func(group, key string, at int64))) []string {
	var out []string
	each(func(g, k string, at int64) { out = append(out, fmt.Sprintf("%s/%s %d", g, k, at)) })
	return out
}

// mixedTimers lists what a coordinator's MixedTimers reports.
func mixedTimers(each func(func(group, member string, join, sync int64))) []string {
	var out []string
	each(func(g, m string, join, sync int64) {
		out = append(out, fmt.Sprintf("%s/%s join %d sync %d", g, m, join, sync))
	})
	return out
}

// held lists what a coordinator's Held reports.
func held(each func(func(conn uint64, active bool, delivery uint64, queued []uint64))) []string {
	var out []string
	each(func(conn uint64, active bool, delivery uint64, queued []uint64) {
		out = append(out, fmt.Sprintf("conn %d active %v delivery %d queued %v", conn, active, delivery, queued))
	})
	return out
}

// clone replaces impl by its clone, on the same clock and id source (the
// original is not stepped again), made anew (Clone) or in the coordinator
// the last clone replaced (CopyTo), and keeps the original to hold it
// still.
func (h *harness) clone(t *rapid.T) {
	into := rapid.IntRange(0, 2).Draw(t, "cloneInto")
	old := h.replaced
	h.replaced, h.replacedSnap = h.i, h.i.Snapshot()
	switch {
	case into == 1 && old != nil:
		// The coordinator replaced before, which holds an older state,
		// takes this one's over its own (CopyTo).
		h.i.CopyTo(old)
		h.i = old
	case into == 2:
		// A coordinator of another configuration, holding groups,
		// members and connections this one does not, takes this one's.
		other := impl.New(impl.Config{Topics: []impl.Topic{{Name: "zeta", ID: model.TopicIDFor("zeta"), Partitions: 5}},
			SessionTimeoutMs: 7, Clock: h.clock, NewID: h.i.Config().NewID})
		for _, g := range []string{"g1", "g2", "zz"} {
			hd := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, ClientId: codec.Str("stranger")}
			other.Handle(impl.Conn{ID: 3, Host: "/10.9.9.9"}, hd, &codec.ConsumerGroupHeartbeatRequest{GroupId: g, MemberId: "stranger-" + g,
				RebalanceTimeoutMs: 5, SubscribedTopicNames: []string{"zeta"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}})
		}
		h.i.CopyTo(other)
		h.i = other
	default:
		h.i = h.i.Clone(h.clock, h.i.Config().NewID)
	}
}

// check compares what each coordinator holds, pending revocations
// included, and what Describe shows of every group.
func (h *harness) check(t *rapid.T) {
	if h.observe != nil {
		h.observe(h.i)
	}
	h.compareReleased(t)
	ms, is := h.m.Snapshot(), targets.ModelSnapshot(h.i.Snapshot())
	if !reflect.DeepEqual(ms, is) {
		t.Fatalf("snapshots differ\nmodel %+v\nimpl  %+v", ms, is)
	}
	if err := h.i.CheckInternal(); err != nil {
		t.Fatalf("impl bookkeeping: %v", err)
	}
	if mt, it := timers(h.m.Timers), timers(h.i.Timers); !reflect.DeepEqual(mt, it) {
		t.Fatalf("timers differ\nmodel %v\nimpl  %v", mt, it)
	}
	if mt, it := classicTimers(h.m.ClassicTimers), classicTimers(h.i.ClassicTimers); !reflect.DeepEqual(mt, it) {
		t.Fatalf("classic timers differ\nmodel %v\nimpl  %v", mt, it)
	}
	if mt, it := mixedTimers(h.m.MixedTimers), mixedTimers(h.i.MixedTimers); !reflect.DeepEqual(mt, it) {
		t.Fatalf("classic members' timers differ\nmodel %v\nimpl  %v", mt, it)
	}
	if mh, ih := held(h.m.Held), held(h.i.Held); !reflect.DeepEqual(mh, ih) {
		t.Fatalf("held connections differ\nmodel %v\nimpl  %v", mh, ih)
	}
	if err := rules.NoDoubleClientAssignment(is); err != nil {
		t.Fatalf("impl: %v", err)
	}
	if h.replaced != nil {
		if got := h.replaced.Snapshot(); !reflect.DeepEqual(got, h.replacedSnap) {
			t.Fatalf("stepping a clone changed its original\nbefore %+v\nafter  %+v", h.replacedSnap, got)
		}
		if err := h.replaced.CheckInternal(); err != nil {
			t.Fatalf("the original of a clone: %v", err)
		}
	}
	req := &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g1", "g2", "g3"}, IncludeAuthorizedOperations: true}
	hd := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 1}
	mr, _ := h.m.Handle(model.Conn{ID: 99}, hd, req)
	ir, _ := h.i.Handle(impl.Conn{ID: 99}, hd, req)
	mb, _ := mr.AppendTo(nil, 1)
	ib, _ := ir.AppendTo(nil, 1)
	if !bytes.Equal(mb, ib) {
		t.Fatalf("describe differs\nmodel %+v\nimpl  %+v", mr, ir)
	}
	h.checkClassicDescribe(t)
}
