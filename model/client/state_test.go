package client_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
	"github.com/ghostcheck/ghostcheck/model/client"
)

// joinedAt3 is a client that joined and was given "a0 a1 b1" at epoch 3.
func joinedAt3(t *testing.T, seed uint64) *client.Client {
	c := newClient(t, client.Config{ClientID: "c", GroupID: group1, InstanceID: "i1", Topics: []string{"a", "b"}, HeartbeatVersion: 1, Rand: seededReader(seed)})
	c.NextHeartbeat()
	c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(c.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000,
		Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: hbParts("a0 a1 b1")}})
	return c
}

// TestCloneSharesNothing: moving the original every way it can move
// (including what clones share until it is replaced: the broker's version
// list, and what the last heartbeat reported as owned) leaves its clone's
// state and next heartbeat as they were.
func TestCloneSharesNothing(t *testing.T) {
	for _, nullOwned := range []bool{false, true} {
		t.Run(fmt.Sprintf("NullOwnedWhenUnchanged=%v", nullOwned), func(t *testing.T) {
			c := newClient(t, client.Config{ClientID: "c", GroupID: group1, InstanceID: "i1", Topics: []string{"a", "b"}, HeartbeatVersion: 1,
				NullOwnedWhenUnchanged: nullOwned, Rand: seededReader(1)})
			c.OnApiVersions(apiVersionsResponse(codec.None, []codec.ApiVersionsKey{{ApiKey: codec.ConsumerGroupHeartbeat, MaxVersion: 1},
				{ApiKey: codec.LeaveGroup, MaxVersion: 5}}))
			c.NextHeartbeat()
			c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(c.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000,
				Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: hbParts("a0 a1 b1")}})
			c.NextHeartbeat() // reports a0 a1 b1
			c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(c.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000})
			cl := c.Clone()
			state := cl.AppendState(nil)
			wantNext, wantV := c.Clone().NextHeartbeat()

			// Move the original on every way it can move.
			c.NextHeartbeat()
			c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(c.MemberID()), MemberEpoch: 4, HeartbeatIntervalMs: 5000,
				Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: hbParts("a2 b0")}})
			c.NextHeartbeat() // reports a2 b0
			c.OnApiVersions(apiVersionsResponse(codec.None, []codec.ApiVersionsKey{{ApiKey: codec.ConsumerGroupHeartbeat, MaxVersion: 0}}))
			c.Resubscribe([]string{"b"}, "")
			c.NextHeartbeat()
			c.OnHeartbeatLost()

			if got := cl.AppendState(nil); !bytes.Equal(got, state) {
				t.Fatal("moving the original changed its clone's state")
			}
			got, v := cl.NextHeartbeat()
			if v != wantV {
				t.Fatalf("the clone's next heartbeat is v%d, want v%d", v, wantV)
			}
			if d := codectest.WireDiff(v, got, wantNext); d != "" {
				t.Fatalf("the clone's next heartbeat is not what the original's would have been before it moved:\n%s", d)
			}
		})
	}
}

// cloneSink keeps a clone from being optimised away.
var cloneSink *client.Client

// A clone into a client nobody uses is the clone Clone makes, and a clone
// allocates once (the explorer copies a client at every step it tries).
func TestCloneIntoIsClone(t *testing.T) {
	c := joinedAt3(t, 1)
	old := joinedAt3(t, 2)
	old.OnApiVersions(apiVersionsResponse(codec.None, []codec.ApiVersionsKey{{ApiKey: codec.ConsumerGroupHeartbeat, MaxVersion: 0}}))
	into := c.CloneInto(old)
	if into != old {
		t.Fatal("CloneInto did not clone into dst")
	}
	if got, want := into.AppendState(nil), c.Clone().AppendState(nil); !bytes.Equal(got, want) || into.MemberID() != c.MemberID() || into.InstanceID() != c.InstanceID() {
		t.Fatalf("CloneInto gives another client than Clone")
	}
	if n := testing.AllocsPerRun(10, func() { cloneSink = c.Clone() }); n != 1 {
		t.Fatalf("Clone allocates %v times, want once", n)
	}
	if n := testing.AllocsPerRun(10, func() { cloneSink = c.CloneInto(into) }); n != 0 {
		t.Fatalf("CloneInto allocates %v times, want none", n)
	}
}

// TestCloneKeepsItsIDs: the ids a clone shares with its original are
// replaced, not changed, when the original's change (a v0 client forgets
// its member id on UNKNOWN_MEMBER_ID; SetClientID).
func TestCloneKeepsItsIDs(t *testing.T) {
	for _, v := range []int16{0, 1} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			c := newClient(t, client.Config{ClientID: "c", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: v, Rand: seededReader(1)})
			c.NextHeartbeat()
			id := c.MemberID()
			if v == 0 {
				id = "broker-made"
			}
			c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(id), MemberEpoch: 1, HeartbeatIntervalMs: 5000})
			cl := c.Clone()

			c.NextHeartbeat()
			c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.UnknownMemberID})
			c.SetClientID("other")

			if c.ClientID() != "other" || v == 0 && c.MemberID() != "" {
				t.Fatalf("the original holds client id %q, member id %q: it did not move", c.ClientID(), c.MemberID())
			}
			if cl.ClientID() != "c" || cl.MemberID() != id {
				t.Fatalf("the clone holds client id %q, member id %q after its original moved; want %q, %q", cl.ClientID(), cl.MemberID(), "c", id)
			}
		})
	}
}

func TestAppendState(t *testing.T) {
	a, b := joinedAt3(t, 1), joinedAt3(t, 2)
	if a.MemberID() == b.MemberID() {
		t.Fatal("two seeds gave one member id")
	}
	if !bytes.Equal(a.AppendState(nil), b.AppendState(nil)) {
		t.Fatal("two clients that differ only in their ids must encode equally (AppendState leaves the ids out)")
	}
	a.Header(&client.Conn{}, codec.ConsumerGroupHeartbeat, 1) // the correlation counter moves
	if !bytes.Equal(a.AppendState(nil), b.AppendState(nil)) {
		t.Fatal("the correlation counter must be left out")
	}
	for _, c := range []struct {
		what string
		move func(*client.Client)
	}{
		{"a lost heartbeat (the next one is full)", func(c *client.Client) { c.NextHeartbeat(); c.OnHeartbeatLost() }},
		{"a new epoch", func(c *client.Client) {
			c.NextHeartbeat()
			c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(c.MemberID()), MemberEpoch: 4, HeartbeatIntervalMs: 5000})
		}},
		{"another assignment", func(c *client.Client) {
			c.NextHeartbeat()
			c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(c.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000,
				Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: hbParts("a0")}})
		}},
		{"an unacknowledged subscription", func(c *client.Client) { c.Resubscribe([]string{"a"}, "") }},
		{"a leave", func(c *client.Client) { c.Leave(true) }},
		{"a fencing", func(c *client.Client) {
			c.NextHeartbeat()
			c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.FencedMemberEpoch})
		}},
	} {
		moved := joinedAt3(t, 3)
		c.move(moved)
		if bytes.Equal(moved.AppendState(nil), b.AppendState(nil)) {
			t.Errorf("%s: the state encodes as before it; it changes what the client sends next", c.what)
		}
	}
	// A subscription changed and acknowledged is the same as one never
	// changed (the generations are written as distances).
	x, y := joinedAt3(t, 4), joinedAt3(t, 5)
	x.Resubscribe([]string{"a", "b"}, "")
	x.NextHeartbeat()
	x.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(x.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000})
	y.NextHeartbeat()
	y.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(y.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000})
	if !bytes.Equal(x.AppendState(nil), y.AppendState(nil)) {
		t.Error("an acknowledged resubscription to the same topics must encode as no resubscription")
	}
}

// What the last heartbeat reported decides the next only for a client that
// sends TopicPartitions null when they did not change.
func TestAppendStateReportedOwned(t *testing.T) {
	for _, nullOwned := range []bool{false, true} {
		mk := func() *client.Client {
			c := newClient(t, client.Config{ClientID: "c", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: 1, NullOwnedWhenUnchanged: nullOwned})
			c.NextHeartbeat()
			c.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(c.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000,
				Assignment: &codec.ConsumerGroupHeartbeatAssignment{TopicPartitions: hbParts("a0")}})
			return c
		}
		joinedOnly, reported := mk(), mk()
		reported.NextHeartbeat() // reports a0
		reported.OnHeartbeat(&codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str(reported.MemberID()), MemberEpoch: 3, HeartbeatIntervalMs: 5000})
		same := bytes.Equal(joinedOnly.AppendState(nil), reported.AppendState(nil))
		if same == nullOwned {
			t.Errorf("NullOwnedWhenUnchanged=%v: a client whose last heartbeat reported a0 encodes equal=%v to one that reported nothing since its join; want equal only when it never sends null", nullOwned, same)
		}
		if r, _ := reported.Clone().NextHeartbeat(); nullOwned && r.TopicPartitions != nil {
			t.Errorf("the null-owned client reports %v again; the premise of the test is that it sends null", r.TopicPartitions)
		}
	}
}
