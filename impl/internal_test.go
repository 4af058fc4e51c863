package impl

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
)

// TestOlist: inserts and removes in random order keep the list sorted and
// select by rank agrees with a sorted slice, across chunk splits.
func TestOlist(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint32, 5000)
	for i := range keys {
		keys[i] = r.Uint32()
	}
	less := func(a, b uint32) bool { return keys[a] < keys[b] }
	var l olist
	in := map[uint32]bool{}
	for step := 0; step < 20000; step++ {
		x := uint32(r.IntN(len(keys)))
		if in[x] {
			l.remove(x, less)
			delete(in, x)
		} else {
			l.insert(x, less)
			in[x] = true
		}
		if step%97 != 0 {
			continue
		}
		var want []uint32
		for x := range in {
			want = append(want, x)
		}
		sort.Slice(want, func(i, j int) bool { return less(want[i], want[j]) })
		if l.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, l.len(), len(want))
		}
		for i, w := range want {
			if got := l.at(i); got != w {
				t.Fatalf("step %d: at(%d) = %d, want %d", step, i, got, w)
			}
		}
	}
}

// TestParseID: compact forms give the same string back; anything else is
// kept as a string.
func TestParseID(t *testing.T) {
	u := codec.UUID{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	for _, tc := range []struct {
		in   string
		form idForm
	}{
		{u.Hex(), formHex},
		{u.String(), formB64},
		{"DEADBEEF-0102-0304-0506-0708090a0b0c", formStr}, // upper case
		{"deadbeef-0102-0304-0506-0708090a0b0cx", formStr},
		{"deadbeef+0102-0304-0506-0708090a0b0c", formStr},
		{"3q2-7wECAwQFBgcICQoLDB", formStr}, // non-zero padding bits
		{"ghost", formStr},
		{"", formStr},
	} {
		b, f := parseID(tc.in)
		if f != tc.form {
			t.Errorf("parseID(%q) form %d, want %d", tc.in, f, tc.form)
			continue
		}
		if f != formStr {
			if got := string(appendID(nil, &b, f)); got != tc.in {
				t.Errorf("parseID(%q) formats back as %q", tc.in, got)
			}
		}
	}
}

// TestMemberRecordSize: the member record stays small and pointer-free.
func TestMemberRecordSize(t *testing.T) {
	if n := sizeofMember(); n > 72 {
		t.Fatalf("member record is %d bytes, want at most 72", n)
	}
}

// TestRestartRebuildsSessionList: a restart gives every session the same
// deadline and rebuilds the list in member-id order, the order in which the
// model fires equal deadlines, whatever order the members heartbeat in; a
// member armed later goes to the tail.
func TestRestartRebuildsSessionList(t *testing.T) {
	clock := NewManualClock(0)
	c := New(Config{Topics: []Topic{{Name: "a", Partitions: 2}}, SessionTimeoutMs: 1000, Clock: clock})
	join := func(id string) {
		t.Helper()
		h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1}
		req := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: id, RebalanceTimeoutMs: 5000,
			SubscribedTopicNames: []string{"a"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
		resp, err := c.Handle(Conn{ID: 1}, h, req)
		if err != nil || resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode != codec.None {
			t.Fatalf("join %s: %v %+v", id, err, resp)
		}
	}
	list := func() (ids []string, deadlines []int64) {
		g := c.loadGroup("g")
		g.mu.Lock()
		defer g.mu.Unlock()
		for mi := g.sessHead; mi != 0; mi = g.mem[mi].next {
			ids = append(ids, g.idString(mi))
			deadlines = append(deadlines, g.mem[mi].session)
		}
		return ids, deadlines
	}
	for i, id := range []string{"z", "a", "m"} {
		clock.Set(int64(10 * i))
		join(id)
	}
	if ids, dl := list(); fmt.Sprint(ids, dl) != "[z a m] [1000 1010 1020]" {
		t.Fatalf("before the restart the list is %v %v, want heartbeat order [z a m] [1000 1010 1020]", ids, dl)
	}
	clock.Set(500)
	c.Restart()
	if ids, dl := list(); fmt.Sprint(ids, dl) != "[a m z] [1500 1500 1500]" {
		t.Fatalf("after the restart the list is %v %v, want member-id order [a m z], all at 1500", ids, dl)
	}
	clock.Set(600)
	join("b") // a new member, armed after the restart
	if ids, dl := list(); fmt.Sprint(ids, dl) != "[a m z b] [1500 1500 1500 1600]" {
		t.Fatalf("after a later join the list is %v %v, want b at the tail", ids, dl)
	}
	if err := c.CheckInternal(); err != nil {
		t.Fatal(err)
	}
}

// TestRandomIDIsModels: impl's default id generator mirrors
// model.RandomUUID (impl may not import model outside its tests): from the
// same bytes both give the same ids, through the draws both reject.
func TestRandomIDIsModels(t *testing.T) {
	var seed [32]byte
	mr, ir, peek := rand.NewChaCha8(seed), rand.NewChaCha8(seed), rand.NewChaCha8(seed)
	const n = 2000
	for i := 0; i < n; i++ {
		want, err := model.RandomUUID(mr)
		if err != nil {
			t.Fatal(err)
		}
		if got := randomID(ir); got != want {
			t.Fatalf("id %d: impl made %v, model %v", i, got, want)
		}
	}
	// The stream must hold draws to reject, or the test shows nothing about
	// rejection: a draw whose Kafka form starts with '-' has 0b111110 as
	// its first six bits.
	var draw [16]byte
	dashes := 0
	for i := 0; i < n; i++ {
		_, _ = peek.Read(draw[:])
		if draw[0]>>2 == 62 {
			dashes++
		}
	}
	if dashes == 0 {
		t.Fatalf("no draw among the first %d would be rejected", n)
	}
}

// TestCheckInternalCatches: the self-check the equivalence and hammer tests
// lean on must notice each kind of broken bookkeeping, not only pass on
// sound state.
func TestCheckInternalCatches(t *testing.T) {
	build := func(t *testing.T) (*Coordinator, *group) {
		c := New(Config{Topics: []Topic{{Name: "a", Partitions: 2}}, SessionTimeoutMs: 1000, Clock: NewManualClock(0)})
		for i, id := range []string{"m1", "m2"} {
			h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1}
			req := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: id, RebalanceTimeoutMs: 5000,
				SubscribedTopicNames: []string{"a"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
			if i == 0 {
				req.InstanceId, req.RackId = codec.Str("i1"), codec.Str("r1")
			}
			resp, err := c.Handle(Conn{ID: 1}, h, req)
			if err != nil || resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode != codec.None {
				t.Fatalf("join %s: %v %+v", id, err, resp)
			}
		}
		if err := c.CheckInternal(); err != nil {
			t.Fatalf("sound state fails the check: %v", err)
		}
		return c, c.loadGroup("g")
	}
	cases := []struct {
		name    string
		corrupt func(g *group)
		want    string
	}{
		{"member count", func(g *group) { g.count++ }, "count 3, live members 2"},
		{"id index", func(g *group) { delete(g.byStr, "m2") }, "(m2) found as 0"},
		{"instance reference count", func(g *group) { g.insts.get(g.mem[g.find("m1")].inst).refs++ }, "instance ref"},
		{"rack reference count", func(g *group) { g.racks.get(g.mem[g.find("m1")].rack).refs++ }, "rack ref"},
		{"subscription reference count", func(g *group) { g.subs.get(g.mem[g.find("m1")].sub).refs++ }, "subscription ref"},
		{"target array", func(g *group) { g.tgt[0], g.tgt[1] = g.tgt[1], g.tgt[0] }, "target"},
		{"ownership array", func(g *group) { g.owner[1] = g.find("m2")<<1 | 1 }, "partition 1: owner"},
		{"side back-pointer", func(g *group) { g.sideOf(g.find("m1")).mem = 7 }, "side of"},
		{"rebalance deadline off the heap", func(g *group) { g.sideOf(g.find("m1")).rdl = 5 }, "heap position -1"},
		{"topic subscriber list", func(g *group) { g.topicSubs[0].remove(g.find("m2"), g.less) }, "1 subscribers listed, 2 subscribed"},
		{"session list order", func(g *group) { g.mem[g.sessHead].session = 9999 }, "session list out of order"},
		{"timer registration", func(g *group) { g.registered = 1 << 62 }, "earliest timer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, g := build(t)
			g.mu.Lock()
			tc.corrupt(g)
			g.mu.Unlock()
			err := c.CheckInternal()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckInternal after breaking the %s: %v, want an error containing %q", tc.name, err, tc.want)
			}
		})
	}
}
