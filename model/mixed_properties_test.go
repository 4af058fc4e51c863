package model_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// A property over generated upgrades and rollbacks (docs/PROTOCOL.md A7):
// classic and consumer-protocol processes join, sync, heartbeat and leave
// one group "g" under a migration policy, with time moving and restarts;
// after every step the conversions lose nobody and the views agree:
//
//   - a request that changes the group's kind removes at most one member
//     and adds at most one (the request's own, a leaver or a replaced
//     static member): a conversion keeps every other member under its id;
//     a timer's conversion adds nobody;
//   - the epoch (a classic group's generation) never goes back, across
//     conversions too (a group without members replaced by a new one of
//     the other kind, A6.4, and a restart excepted: B8.14 reloads a classic group's
//     last record);
//   - in a consumer group no partition has two owners, and no member's
//     epoch is past the group's;
//   - a clone encodes to the same state as its original.

// mixedProc is one process of either protocol, as a small scripted client.
type mixedProc struct {
	classic  bool
	conn     uint64
	instance codec.NullableString
	id       string
	gen      int32 // classic: generation; consumer: member epoch
	leader   bool  // the last JoinGroup answer named it leader, with Members
	members  []string
	owned    []int32 // partitions of topic a it believes it owns
	waiting  uint64  // the delivery of its held request, 0 when none
}

type mixedMachine struct {
	t     *rapid.T
	c     *model.Coordinator
	now   int64
	procs []*mixedProc
	d     uint64
	last  rules.GroupSnapshot
	have  bool
	// into, when set, holds DescribeInto and SnapshotInto to Handle and
	// Snapshot at every check (describe_into_test.go).
	into *intoCheck
}

func (mm *mixedMachine) send(p *mixedProc, version int16, req codec.Message) codec.Message {
	mm.d++
	h := codec.RequestHeader{RequestApiKey: req.Key(), RequestApiVersion: version, ClientId: codec.Str("mixed")}
	resp, err := mm.c.Handle(model.Conn{ID: p.conn, Host: "/10.0.0.1", Delivery: mm.d}, &h, req)
	if errors.Is(err, model.ErrParked) {
		p.waiting = mm.d
		return nil
	}
	if err != nil {
		mm.t.Fatalf("%v: %v", req.Key(), err)
	}
	return resp
}

// deliver hands every released answer to the process waiting for it.
func (mm *mixedMachine) deliver() {
	for _, r := range mm.c.Released() {
		for _, p := range mm.procs {
			if p.waiting == r.Delivery {
				p.waiting = 0
				if r.Response != nil {
					mm.take(p, r.Response)
				}
			}
		}
	}
}

// take is the scripted client's reaction to an answer.
func (mm *mixedMachine) take(p *mixedProc, resp codec.Message) {
	switch r := resp.(type) {
	case *codec.JoinGroupResponse:
		switch r.ErrorCode {
		case codec.None:
			p.id, p.gen = r.MemberId, r.GenerationId
			p.leader, p.members = len(r.Members) > 0, nil
			for _, m := range r.Members {
				p.members = append(p.members, m.MemberId)
			}
		case codec.MemberIDRequired:
			p.id = r.MemberId
		case codec.UnknownMemberID:
			p.id, p.gen = "", -1
		}
	case *codec.SyncGroupResponse:
		if r.ErrorCode == codec.None {
			p.owned = nil
			for _, tp := range rules.DecodeAssignment(r.Assignment) {
				p.owned = append(p.owned, tp.Partition)
			}
		}
	case *codec.ConsumerGroupHeartbeatResponse:
		if r.ErrorCode != codec.None {
			p.gen, p.owned = 0, nil
			return
		}
		p.gen = r.MemberEpoch
		if r.Assignment != nil {
			p.owned = nil
			for _, t := range r.Assignment.TopicPartitions {
				p.owned = append(p.owned, t.Partitions...)
			}
		}
	}
}

// clientMadeID is the member id a consumer process makes (KIP-1082), the
// n-th: from another generator than the coordinator's (a ChaCha8 stream,
// where cfg.NewID is a PCG one), so that the two never make one id, as
// two random UUIDs never do. (They once shared the PCG stream: drawn the
// same seed, the coordinator's first classic id was a consumer's id.)
func clientMadeID(n uint64) string {
	u, _ := model.RandomUUID(seededReader(n)) // a ChaCha8 reader never fails
	return u.String()
}

func (mm *mixedMachine) pick(t *rapid.T) *mixedProc {
	p := mm.procs[rapid.IntRange(0, len(mm.procs)-1).Draw(t, "proc")]
	if p.waiting != 0 {
		return nil
	}
	return p
}

func (mm *mixedMachine) metadata(p *mixedProc, both bool) []byte {
	topics := []string{"a"}
	if both {
		topics = append(topics, "b")
	}
	s := codec.ConsumerProtocolSubscription{Topics: topics, GenerationId: -1,
		OwnedPartitions: []codec.ConsumerProtocolTopicPartitions{{Topic: "a", Partitions: p.owned}}}
	b, _ := s.AppendTo(nil, 1)
	return b
}

func (mm *mixedMachine) act(t *rapid.T) {
	p := mm.pick(t)
	if p == nil {
		return
	}
	if !p.classic {
		epoch := p.gen
		if rapid.IntRange(0, 5).Draw(t, "consumer leaves") == 0 {
			epoch = rules.LeaveEpoch
		}
		r := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: p.id, MemberEpoch: epoch, InstanceId: p.instance,
			RebalanceTimeoutMs: 20000, SubscribedTopicNames: []string{"a"},
			TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
		if epoch != rules.JoinEpoch && len(p.owned) > 0 {
			r.TopicPartitions = append(r.TopicPartitions, codec.ConsumerGroupHeartbeatTopicPartitions{TopicId: model.TopicIDFor("a"), Partitions: p.owned})
		}
		if resp := mm.send(p, 1, r); resp != nil {
			mm.take(p, resp)
		}
		if epoch == rules.LeaveEpoch {
			p.gen, p.owned = 0, nil
		}
		return
	}
	// An odd request now and then: another protocol type or name,
	// metadata that does not read, another subscription, a stale
	// generation.
	odd := rapid.IntRange(0, 15).Draw(t, "odd")
	gen := p.gen
	if odd == 4 {
		gen--
	}
	switch rapid.IntRange(0, 3).Draw(t, "classic request") {
	case 0: // join
		r := &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: rapid.SampledFrom([]int32{10000, 30000}).Draw(t, "session"),
			RebalanceTimeoutMs: 20000, MemberId: p.id, GroupInstanceId: p.instance, ProtocolType: "consumer",
			Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: mm.metadata(p, odd == 3)}}}
		switch odd {
		case 0:
			r.ProtocolType = "connect"
		case 1:
			r.Protocols[0].Name = "roundrobin"
		case 2:
			r.Protocols[0].Metadata = []byte{0xff}
		}
		if resp := mm.send(p, 5, r); resp != nil {
			mm.take(p, resp)
		}
	case 1: // sync; a leader deals topic a's partitions round robin
		r := &codec.SyncGroupRequest{GroupId: "g", MemberId: p.id, GenerationId: gen, GroupInstanceId: p.instance}
		if odd == 1 {
			r.ProtocolType, r.ProtocolName = codec.Str("consumer"), codec.Str("roundrobin")
		}
		if p.leader {
			for i, id := range p.members {
				var ps []int32
				for q := int32(i); q < 3; q += int32(len(p.members)) {
					ps = append(ps, q)
				}
				b, _ := (&codec.ConsumerProtocolAssignment{AssignedPartitions: []codec.ConsumerProtocolTopicPartitions{{Topic: "a", Partitions: ps}}}).AppendTo(nil, 1)
				r.Assignments = append(r.Assignments, codec.SyncGroupRequestAssignment{MemberId: id, Assignment: b})
			}
		}
		if resp := mm.send(p, 3, r); resp != nil {
			mm.take(p, resp)
		}
	case 2: // heartbeat
		resp := mm.send(p, 3, &codec.HeartbeatRequest{GroupId: "g", MemberId: p.id, GenerationId: gen, GroupInstanceId: p.instance})
		if code := resp.(*codec.HeartbeatResponse).ErrorCode; code == codec.UnknownMemberID {
			p.id, p.gen = "", -1
		}
	default: // leave (a dynamic member)
		if !p.instance.Valid && p.id != "" {
			mm.send(p, 3, &codec.LeaveGroupRequest{GroupId: "g", Members: []codec.LeaveGroupMember{{MemberId: p.id}}})
			p.id, p.gen, p.owned = "", -1, nil
		}
	}
}

// check asserts the invariants against the step before.
func (mm *mixedMachine) check(t *rapid.T, what string) {
	mm.deliver()
	if mm.into != nil {
		mm.into.check(t, mm.c)
	}
	var g rules.GroupSnapshot
	found := false
	for _, s := range mm.c.Snapshot() {
		if s.GroupID == "g" {
			g, found = s, true
		}
	}
	if !found {
		return
	}
	if mm.have && g.Kind != mm.last.Kind && len(mm.last.Members) == 0 {
		// A group without members gives way to a new group of the other
		// kind (A6.4), whose epoch starts afresh: not a conversion.
		mm.have = false
	}
	if mm.have {
		if g.Epoch < mm.last.Epoch {
			t.Fatalf("%s: epoch went back from %d (%v) to %d (%v)", what, mm.last.Epoch, mm.last.Kind, g.Epoch, g.Kind)
		}
		if g.Kind != mm.last.Kind {
			gone, came := diffIDs(mm.last, g), diffIDs(g, mm.last)
			// Timers due at one instant may remove several members
			// besides the one whose removal converted the group (a
			// restart starts every session at once): an advance may only
			// not add.
			if len(came) > 1 || len(gone) > 1 && what != "advance" {
				t.Fatalf("%s: the %v→%v conversion lost %v and added %v\nbefore %+v\nafter %+v", what, mm.last.Kind, g.Kind, gone, came, mm.last, g)
			}
		}
	}
	if g.Kind == rules.KindConsumer {
		owner := map[rules.TopicPartition]string{}
		for _, m := range g.Members {
			if m.Epoch > g.Epoch {
				t.Fatalf("%s: member %s at epoch %d past the group's %d", what, m.MemberID, m.Epoch, g.Epoch)
			}
			for _, tp := range m.Owned() {
				if o, dup := owner[tp]; dup {
					t.Fatalf("%s: %v owned by %s and %s\n%+v", what, tp, o, m.MemberID, g)
				}
				owner[tp] = m.MemberID
			}
		}
	}
	if a, b := mm.c.AppendState(nil), mm.c.Clone().AppendState(nil); !bytes.Equal(a, b) {
		t.Fatalf("%s: a clone encodes another state", what)
	}
	mm.last, mm.have = g, true
}

func diffIDs(a, b rules.GroupSnapshot) []string {
	var out []string
	for _, m := range a.Members {
		if !slices.ContainsFunc(b.Members, func(o rules.MemberSnapshot) bool { return o.MemberID == m.MemberID }) {
			out = append(out, m.MemberID)
		}
	}
	return out
}

func TestMixedConversionsKeepMembers(t *testing.T) {
	rapid.Check(t, mixedProperty(nil))
}

// The property reaches every clause of A7, so that it holds for each: a
// clause the generated steps never reach would be a conversion nobody
// checks. It runs from a fixed seed: the counts are the same every time.
func TestMixedPropertyReachesEveryClause(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand generated runs")
	}
	hits := model.ClauseHits{}
	setRapidFlag(t, "rapid.checks", "1000")
	setRapidFlag(t, "rapid.seed", "7")
	setRapidFlag(t, "rapid.nofailfile", "true")
	rapid.Check(t, mixedProperty(hits))
	for _, c := range model.Clauses() {
		if id := string(c.ID); strings.HasPrefix(id, "A7") && hits[c.ID] == 0 {
			t.Errorf("clause %s (%s) never applied", id, c.What)
		}
	}
}

func setRapidFlag(t *testing.T, name, value string) {
	f := flag.Lookup(name)
	old := f.Value.String()
	if err := f.Value.Set(value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

func mixedProperty(hits model.ClauseCounter) func(*rapid.T) {
	return mixedPropertyChecking(hits, false)
}

// mixedPropertyChecking is mixedProperty, also holding DescribeInto and
// SnapshotInto to Handle and Snapshot at every check (into).
func mixedPropertyChecking(hits model.ClauseCounter, into bool) func(*rapid.T) {
	return func(t *rapid.T) {
		cfg := testConfig()
		classicConfig(&cfg)
		cfg.NewID = model.SeededIDs(rapid.Uint64().Draw(t, "ids"))
		cfg.MigrationPolicy = rapid.SampledFrom([]model.MigrationPolicy{model.MigrationBidirectional, model.MigrationBidirectional,
			model.MigrationUpgrade, model.MigrationDowngrade, model.MigrationDisabled}).Draw(t, "policy")
		cfg.MaxGroupSize = rapid.SampledFrom([]int{0, 0, 3}).Draw(t, "max size")
		cfg.InitialRebalanceDelayMs = rapid.SampledFrom([]int32{0, 3000}).Draw(t, "initial delay")
		cfg.Clauses = hits
		mm := &mixedMachine{t: t, c: model.NewCoordinator(cfg)}
		if into {
			mm.into = newIntoCheck()
			mm.into.seen = intoSeen
		}
		n := rapid.IntRange(2, 5).Draw(t, "processes")
		for i := range n {
			p := &mixedProc{classic: rapid.Bool().Draw(t, "classic"), conn: uint64(i + 1), gen: -1}
			if rapid.IntRange(0, 2).Draw(t, "static") == 0 {
				p.instance = codec.Str(fmt.Sprintf("i%d", rapid.IntRange(0, 2).Draw(t, "instance")))
			}
			if !p.classic {
				p.id, p.gen = clientMadeID(uint64(i)), 0
			}
			mm.procs = append(mm.procs, p)
		}
		t.Repeat(map[string]func(*rapid.T){
			"act":  func(t *rapid.T) { mm.act(t); mm.check(t, "act") },
			"act2": func(t *rapid.T) { mm.act(t); mm.check(t, "act") },
			"switch": func(t *rapid.T) { // a process restarted with the other protocol
				p := mm.pick(t)
				if p == nil {
					return
				}
				p.classic = !p.classic
				p.owned, p.leader = nil, false
				if p.classic {
					p.id, p.gen = "", -1
				} else {
					mm.d++
					p.id, p.gen = clientMadeID(mm.d), 0
				}
			},
			"advance": func(t *rapid.T) {
				// Deadline by deadline, so that each conversion is judged
				// apart from the timers that fire after it.
				to := mm.now + int64(rapid.SampledFrom([]int{500, 3000, 11000, 21000}).Draw(t, "ms"))
				for mm.now < to {
					next, ok := mm.c.NextDeadline()
					if !ok || next > to {
						next = to
					}
					mm.now = max(next, mm.now)
					mm.c.Advance(mm.now)
					mm.check(t, "advance")
					if next == to {
						break
					}
				}
			},
			"restart": func(t *rapid.T) {
				if rapid.IntRange(0, 4).Draw(t, "restart") == 0 {
					// A classic group reloads its last record (B8.14): its
					// generation may go back, so the judging starts anew.
					mm.c.Restart()
					mm.have = false
					mm.check(t, "restart")
				}
			},
			"": func(t *rapid.T) { mm.check(t, "check") },
		})
	}
}
