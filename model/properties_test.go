package model_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Properties over generated runs: several client processes (v0 and v1,
// static and dynamic, in one or two groups) act against one coordinator,
// and after every step every invariant holds. Replay a failure with the
// -rapid.failfile rapid prints, or from its seed with -rapid.seed.

// machine is one generated run.
type machine struct {
	w      *world
	faults bool // responses to v1 processes may be lost
	groups []string
	epochs rules.EpochTracker
	ids    rules.MemberIDTracker
	n      int // processes spawned
	// seed feeds the clients' random sources, one stream per process: two
	// processes never share a source (the duplicate ids a shared or weak
	// source makes are UniqueMemberIDs' to catch, librdkafka#5263).
	seed uint64
	// into, when set, holds DescribeInto and SnapshotInto to Handle and
	// Snapshot after every check (describe_into_test.go).
	into *intoCheck
}

func newMachine(t *rapid.T, faults bool) *machine {
	cfg := testConfig()
	cfg.NewID = model.SeededIDs(rapid.Uint64().Draw(t, "id seed"))
	cfg.MaxGroupSize = rapid.SampledFrom([]int{0, 0, 2, 3}).Draw(t, "max group size")
	if rapid.IntRange(0, 3).Draw(t, "old broker") == 0 {
		// A broker that only speaks ConsumerGroupHeartbeat v0: KIP-1082
		// clients still send their own ids.
		cfg.MaxVersions = map[codec.APIKey]int16{codec.ConsumerGroupHeartbeat: 0}
	}
	groups := []string{"g"}
	if rapid.Bool().Draw(t, "two groups") {
		groups = append(groups, "h")
	}
	return &machine{w: newWorld(t, cfg), faults: faults, groups: groups, seed: rapid.Uint64().Draw(t, "client seed")}
}

func (m *machine) live() []*proc {
	var out []*proc
	for _, p := range m.w.procs {
		if p.client.State() != client.Closed {
			out = append(out, p)
		}
	}
	return out
}

func (m *machine) pick(t *rapid.T, ok func(*proc) bool) *proc {
	var ps []*proc
	for _, p := range m.live() {
		if ok(p) {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		t.Skip("no such process")
	}
	return ps[rapid.IntRange(0, len(ps)-1).Draw(t, "process")]
}

func (m *machine) spawn(t *rapid.T) {
	if m.n >= 8 {
		t.Skip("enough processes")
	}
	m.n++
	cfg := client.Config{
		ClientID:           fmt.Sprintf("p%d", m.n),
		GroupID:            rapid.SampledFrom(m.groups).Draw(t, "group"),
		Topics:             rapid.SliceOfDistinct(rapid.SampledFrom([]string{"a", "b", "c"}), rapid.ID[string]).Draw(t, "topics"),
		HeartbeatVersion:   1,
		RebalanceTimeoutMs: rapid.SampledFrom([]int32{1000, 30000, 300000}).Draw(t, "rebalance timeout"),
	}
	if !m.faults && rapid.Bool().Draw(t, "v0") {
		cfg.HeartbeatVersion = 0
	}
	if rapid.Bool().Draw(t, "static") {
		// A static process takes an instance id no live process of its
		// group uses: a restart of an ended one, or a new one.
		inst := rapid.SampledFrom([]string{"i1", "i2", "i3"}).Draw(t, "instance")
		for _, p := range m.live() {
			if pc := p.client.Config(); pc.GroupID == cfg.GroupID && pc.InstanceID == inst {
				t.Skip("instance id in use")
			}
		}
		cfg.InstanceID = inst
	}
	m.w.spawn(cfg, m.seed^uint64(m.n)*0x9e3779b97f4a7c15)
}

func (m *machine) lose(t *rapid.T, p *proc) bool {
	return m.faults && p.client.Config().HeartbeatVersion >= rules.MemberIDRequiredVersion && rapid.IntRange(0, 2).Draw(t, "lose response") == 0
}

func (m *machine) heartbeat(t *rapid.T) {
	p := m.pick(t, func(*proc) bool { return true })
	valid(t, p, m.w.heartbeat(p, m.lose(t, p)))
}

// valid: the reference client never sends a request the reference
// coordinator finds malformed (§B4.2). Only a v0 client that lost its join
// response does, by leaving with an empty id, and v0 responses are never
// lost here.
func valid(t *rapid.T, p *proc, resp *codec.ConsumerGroupHeartbeatResponse) {
	if resp != nil && resp.ErrorCode == codec.InvalidRequest {
		t.Fatalf("%s sent a request its coordinator finds invalid: %q", p.name, resp.ErrorMessage.Value)
	}
}

func (m *machine) leave(t *rapid.T) {
	p := m.pick(t, func(p *proc) bool { return p.client.State() == client.Joined || p.client.State() == client.Joining })
	valid(t, p, m.w.leave(p, false))
	m.leftNothingBehind(t, p)
}

func (m *machine) staticLeave(t *rapid.T) {
	p := m.pick(t, func(p *proc) bool { return p.client.Config().InstanceID != "" && p.client.State() == client.Joined })
	valid(t, p, m.w.leave(p, true))
}

func (m *machine) close(t *rapid.T) {
	p := m.pick(t, func(*proc) bool { return true })
	st := p.client.State()
	valid(t, p, m.w.close(p))
	if st == client.Joined || st == client.Joining {
		m.leftNothingBehind(t, p)
	}
}

// leftNothingBehind: a dynamic member that sends its leave (epoch -1), even
// before its join response arrived, is gone at once (KIP-1082; KAFKA-17116).
func (m *machine) leftNothingBehind(t *rapid.T, p *proc) {
	if p.client.Config().InstanceID != "" || p.client.MemberID() == "" {
		return
	}
	for _, g := range m.w.coord.Snapshot() {
		for _, mb := range g.Members {
			if g.GroupID == p.client.Config().GroupID && mb.MemberID == p.client.MemberID() {
				t.Fatalf("%s left group %s, but its member %s is still there", p.name, g.GroupID, mb.MemberID)
			}
		}
	}
}

func (m *machine) crash(t *rapid.T) {
	m.w.crash(m.pick(t, func(*proc) bool { return true }))
}

func (m *machine) reconnect(t *rapid.T) {
	m.w.reconnect(m.pick(t, func(*proc) bool { return true }))
}

func (m *machine) advance(t *rapid.T) {
	d := rapid.SampledFrom([]int64{0, 1, 999, 1000, 5000, 29999, 30000, 44999, 45000, 60000}).Draw(t, "advance by")
	m.w.coord.Advance(m.w.coord.Now() + d)
}

// describe compares what ConsumerGroupDescribe shows with the coordinator's
// own snapshot, and checks what only Describe shows.
func (m *machine) describe(t *rapid.T) {
	h := codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 1, ClientId: codec.Str("observer")}
	resp, err := m.w.coord.Handle(model.Conn{ID: 1 << 40}, &h, &codec.ConsumerGroupDescribeRequest{GroupIds: m.groups})
	if err != nil {
		t.Fatal(err)
	}
	d := resp.(*codec.ConsumerGroupDescribeResponse)
	want := m.w.coord.Snapshot()
	for i := range want {
		for j := range want[i].Members {
			want[i].Members[j].Pending = nil // not visible to Describe
		}
	}
	if got := rules.SnapshotFromDescribe(d); len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
		t.Fatalf("Describe shows %s\nthe coordinator holds %s", dump(got), dump(want))
	}
	perClient := map[string]int{}
	for _, g := range d.Groups {
		if g.ErrorCode != codec.None {
			continue
		}
		if (g.GroupState == model.GroupStateEmpty) != (len(g.Members) == 0) {
			t.Fatalf("group %s is %s with %d members", g.GroupId, g.GroupState, len(g.Members))
		}
		for _, mb := range g.Members {
			if g.GroupState == model.GroupStateStable && (mb.MemberEpoch != g.GroupEpoch || !reflect.DeepEqual(mb.Assignment, mb.TargetAssignment)) {
				t.Fatalf("group %s is Stable but member %s is at epoch %d with %s, target %s", g.GroupId, mb.MemberId, mb.MemberEpoch, dump(mb.Assignment), dump(mb.TargetAssignment))
			}
			if want := m.w.lastClient[mb.MemberId]; mb.ClientId != want[0] || mb.ClientHost != want[1] {
				t.Fatalf("member %s shows ClientId %q host %q, want %q %q (KIP-1313 connection context)", mb.MemberId, mb.ClientId, mb.ClientHost, want[0], want[1])
			}
			perClient[mb.ClientId]++
		}
	}
	for id, n := range perClient {
		if n > 1 {
			t.Fatalf("process %s accounts for %d members", id, n)
		}
	}
}

// check is every invariant, after every step.
func (m *machine) check(t *rapid.T) {
	o := m.w.observation()
	for _, err := range []error{
		rules.NoDoubleClientAssignment(o.Groups),
		m.epochs.Observe(o.Groups),
		rules.NoZeroUUIDs(o),
		rules.UniqueMemberIDs(o),
		rules.NoGhosts(o),
		rules.OneMemberPerProcess(o),
	} {
		if err != nil {
			t.Fatalf("t=%d: %v", o.Now, err)
		}
	}
	for i, p := range m.w.procs {
		if p.client.Config().HeartbeatVersion < rules.MemberIDRequiredVersion {
			continue
		}
		if err := m.ids.Observe(&o.Processes[i]); err != nil {
			t.Fatal(err)
		}
		// KIP-1082: the coordinator never makes an id for a client that
		// made its own, whatever was lost or retried.
		if own := p.client.MemberID(); !reflect.DeepEqual(p.allIDs, []string{own}) {
			t.Fatalf("%s (member id %s) was given ids %v", p.name, own, p.allIDs)
		}
	}
	if m.into != nil {
		m.into.check(t, m.w.coord)
	}
}

// finish ends every process (an orderly close or a crash), checks, lets one
// session timeout pass, and requires every group to be empty.
func (m *machine) finish(t *rapid.T) {
	for _, p := range m.live() {
		if rapid.Bool().Draw(t, "close, not crash") {
			st := p.client.State()
			valid(t, p, m.w.close(p))
			if st == client.Joined || st == client.Joining {
				m.leftNothingBehind(t, p)
			}
		} else {
			m.w.crash(p)
		}
	}
	m.check(t)
	m.w.coord.Advance(m.w.coord.Now() + m.w.cfg.SessionTimeoutMs)
	m.check(t)
	for _, g := range m.w.coord.Snapshot() {
		if len(g.Members) != 0 {
			t.Fatalf("one session timeout after every process ended, group %s still holds %s", g.GroupID, dump(g.Members))
		}
	}
	if err := rules.QuiescentMembership(m.w.observation()); err != nil {
		t.Fatal(err)
	}
	m.describe(t)
}

func (m *machine) run(t *rapid.T) {
	t.Repeat(map[string]func(*rapid.T){
		"spawn":        m.spawn,
		"heartbeat":    m.heartbeat,
		"heartbeat2":   m.heartbeat, // heartbeats are the common case
		"leave":        m.leave,
		"static leave": m.staticLeave,
		"close":        m.close,
		"crash":        m.crash,
		"reconnect":    m.reconnect,
		"advance":      m.advance,
		"describe":     m.describe,
		"":             m.check,
	})
	m.finish(t)
}

// Without faults, v0 and v1 clients alike: every invariant after every step,
// and an empty group one session timeout after everyone is gone.
func TestPropertyInvariantsWithoutFaults(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { newMachine(t, false).run(t) })
}

// KIP-1082 clients whose responses may be lost: a retried join is the same
// member, never a second one; every invariant still holds.
func TestPropertyV1LostResponsesNeverMakeTwoMembers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { newMachine(t, true).run(t) })
}

// The checker must find what it exists to find (docs/DESIGN.md: under v0 with
// lost join responses ghosts are expected, and the harness must find them):
// whatever else happens in the group, a v0 join whose response was lost is
// reported by NoGhosts from that moment until exactly one session timeout
// after the join, and not after.
func TestPropertyV0LostJoinIsAlwaysReported(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := testConfig()
		cfg.NewID = model.SeededIDs(rapid.Uint64().Draw(t, "id seed"))
		w := newWorld(t, cfg)
		seed := rapid.Uint64().Draw(t, "client seed")
		others := rapid.IntRange(0, 3).Draw(t, "other members")
		for i := 0; i < others; i++ {
			p := w.spawn(client.Config{ClientID: fmt.Sprintf("o%d", i), GroupID: group1, Topics: []string{"a", "b"}, HeartbeatVersion: 1}, seed+uint64(i)+1)
			w.heartbeat(p, false)
		}
		vc := client.Config{ClientID: "old", GroupID: group1, Topics: []string{"a", "b"}, HeartbeatVersion: 0}
		if rapid.Bool().Draw(t, "static") {
			vc.InstanceID = "i1"
		}
		old := w.spawn(vc, seed)
		w.coord.Advance(int64(rapid.IntRange(0, 10000).Draw(t, "join at")))
		joinedAt := w.coord.Now()
		ghost := w.heartbeat(old, true).MemberId.Value
		for w.coord.Now() < joinedAt+cfg.SessionTimeoutMs {
			if err := rules.NoGhosts(w.observation()); err == nil || !strings.Contains(err.Error(), ghost) {
				t.Fatalf("t=%d (join at %d): NoGhosts says %v, want the ghost %s reported", w.coord.Now(), joinedAt, err, ghost)
			}
			step := int64(rapid.IntRange(1, 5000).Draw(t, "step"))
			w.coord.Advance(min(w.coord.Now()+step, joinedAt+cfg.SessionTimeoutMs-1))
			for _, p := range w.procs {
				w.heartbeat(p, false) // everyone else keeps its session
			}
			if w.coord.Now() == joinedAt+cfg.SessionTimeoutMs-1 {
				if err := rules.NoGhosts(w.observation()); err == nil {
					t.Fatalf("1 ms before the ghost's session ends, NoGhosts reports nothing")
				}
				w.coord.Advance(joinedAt + cfg.SessionTimeoutMs)
			}
		}
		if err := rules.NoGhosts(w.observation()); err != nil {
			t.Fatalf("at the ghost's session end: %v", err)
		}
	})
}
