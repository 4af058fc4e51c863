package client_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
	"github.com/ghostcheck/ghostcheck/model/client"
)

// asIs writes an id as it is; renamed writes it with its prefix and a
// mark in place of the UUID, as the explorer's renaming does.
func asIs(b []byte, id string) []byte { return append(append(b, id...), 0) }

func renamed(b []byte, id string) []byte {
	if i := strings.LastIndexByte(id, '-'); len(id) > 36 && i > 0 {
		id = id[:len(id)-36] + "#"
	}
	return append(append(b, id...), 0)
}

// leaderOf is a classic consumer that joined generation 1 as the leader of
// itself and another member, under member id me.
func leaderOf(t *testing.T, me, other string) *client.Classic {
	c := newClassic(t, client.ClassicConfig{Topics: []string{"a"}})
	c.Start()
	c.JoinGroup()
	resp := joined(1, me, me)
	resp.Members = []codec.JoinGroupResponseMember{{MemberId: me, Metadata: subscriptionBytes(t, -1, "a")}, {MemberId: other, Metadata: subscriptionBytes(t, -1, "a")}}
	c.OnJoinGroup(resp)
	return c
}

func TestClassicCloneSharesNothing(t *testing.T) {
	c := leaderOf(t, "app-1", "app-2")
	cl := c.Clone()
	state := cl.AppendState(nil, asIs)
	wantSync, wantV := c.Clone().SyncGroup()

	// Move the original every way it can move.
	c.SyncGroup()
	c.OnSyncGroup(&codec.SyncGroupResponse{Assignment: assignmentBytes(t, tp("a", 0, 1))})
	c.Resubscribe([]string{"b"})
	c.OnApiVersions(broker(4, 3, 3, 2))
	c.Leave()

	if got := cl.AppendState(nil, asIs); !bytes.Equal(got, state) {
		t.Fatal("moving the original changed its clone's state")
	}
	got, v := cl.SyncGroup()
	if v != wantV {
		t.Fatalf("the clone's SyncGroup is v%d, want v%d", v, wantV)
	}
	if d := codectest.WireDiff(v, got, wantSync); d != "" {
		t.Fatalf("the clone's SyncGroup is not what the original's would have been:\n%s", d)
	}
}

// A clone into a consumer nobody uses is the clone Clone makes, without
// allocating.
func TestClassicCloneIntoIsClone(t *testing.T) {
	c := leaderOf(t, "app-1", "app-2")
	old := leaderOf(t, "app-3", "app-4")
	into := c.CloneInto(old)
	if into != old {
		t.Fatal("CloneInto did not clone into dst")
	}
	if got, want := into.AppendState(nil, asIs), c.Clone().AppendState(nil, asIs); !bytes.Equal(got, want) {
		t.Fatalf("CloneInto gives another consumer than Clone")
	}
	if n := testing.AllocsPerRun(10, func() { classicSink = c.CloneInto(into) }); n != 0 {
		t.Fatalf("CloneInto allocates %v times, want none", n)
	}
}

// classicSink keeps a clone from being optimised away.
var classicSink *client.Classic

func TestClassicAppendState(t *testing.T) {
	a, b := leaderOf(t, "app-00000000-0000-0000-0000-000000000001", "app-00000000-0000-0000-0000-000000000002"),
		leaderOf(t, "app-00000000-0000-0000-0000-000000000007", "app-00000000-0000-0000-0000-000000000009")
	if bytes.Equal(a.AppendState(nil, asIs), b.AppendState(nil, asIs)) {
		t.Fatal("two consumers holding other ids encode equally with the ids written as they are")
	}
	if !bytes.Equal(a.AppendState(nil, renamed), b.AppendState(nil, renamed)) {
		t.Fatal("two consumers equal but for their ids must encode equally once the ids are renamed: every id goes through the id function")
	}
	for _, c := range []struct {
		what string
		move func(c *client.Classic)
	}{
		{"synced", func(c *client.Classic) {
			c.SyncGroup()
			c.OnSyncGroup(&codec.SyncGroupResponse{Assignment: assignmentBytes(t, tp("a", 0))})
		}},
		{"resubscribed", func(c *client.Classic) { c.Resubscribe([]string{"b"}) }},
		{"left", func(c *client.Classic) { c.Leave() }},
		{"negotiated lower versions", func(c *client.Classic) { c.OnApiVersions(broker(4, 3, 3, 2)) }},
	} {
		x := leaderOf(t, "app-1", "app-2")
		before := x.AppendState(nil, asIs)
		c.move(x)
		if bytes.Equal(before, x.AppendState(nil, asIs)) {
			t.Errorf("%s: the encoding did not change", c.what)
		}
	}
}
