package model_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
)

// The explorer's hooks over classic groups and held requests: what the
// explorer fingerprints (AppendStateForm), where time moves next
// (NextDeadline), and what impl is held to beside the snapshot
// (ClassicTimers, Held).

// classicJoinAt is a coordinator whose clock is at start when a dynamic
// member joins classic group "c" (v9: its first JoinGroup is answered
// MEMBER_ID_REQUIRED, the second, with the id, is held by the initial
// rebalance delay).
func classicJoinAt(t *testing.T, start int64) (*classicTest, uint64) {
	ct := newClassicTest(t)
	ct.advance(start)
	first, _ := ct.join(1, 9, joinReq("c", "", codec.Null, "range"))
	if first == nil || first.ErrorCode != codec.MemberIDRequired {
		t.Fatalf("the first JoinGroup: %+v, want MEMBER_ID_REQUIRED", first)
	}
	resp, d := ct.join(1, 9, joinReq("c", first.MemberId, codec.Null, "range"))
	if resp != nil {
		t.Fatalf("the second JoinGroup was answered at once (%+v); the initial rebalance delay must hold it", resp)
	}
	return ct, d
}

var relative = model.StateForm{RelativeTime: true, NoConns: true}

func TestAppendStateFormClassicRelativeTime(t *testing.T) {
	early, _ := classicJoinAt(t, 0)
	late, _ := classicJoinAt(t, 7000)
	if bytes.Equal(early.c.AppendState(nil), late.c.AppendState(nil)) {
		t.Fatal("AppendState encodes two classic groups 7 s apart equally: it must write the time")
	}
	if !bytes.Equal(early.c.AppendStateForm(nil, relative), late.c.AppendStateForm(nil, relative)) {
		t.Fatal("RelativeTime: a classic member held by the same join phase at 0 and at 7 s, each seen at its own time, must encode equally")
	}
	late.advance(7001)
	if bytes.Equal(early.c.AppendStateForm(nil, relative), late.c.AppendStateForm(nil, relative)) {
		t.Fatal("RelativeTime: a classic group 1 ms nearer its join timer must encode differently")
	}
}

// Two coordinators whose consumer groups and connections are alike and
// whose classic groups differ only in one field each encode differently:
// the explorer's fingerprint covers classic state.
func TestAppendStateFormClassicDiffers(t *testing.T) {
	base := func() *classicTest { ct, _ := classicJoinAt(t, 0); return ct }
	cases := []struct {
		what  string
		other func(ct *classicTest)
	}{
		{"a pending id more (KIP-394)", func(ct *classicTest) { ct.join(2, 9, joinReq("c", "", codec.Null, "range")) }},
		{"the join phase completed", func(ct *classicTest) { ct.advance(3000) }},
		{"a second classic group", func(ct *classicTest) { ct.join(3, 9, joinReq("d", "", codec.Null, "range")) }},
		{"a request held unread behind the held JoinGroup", func(ct *classicTest) {
			ct.handle(1, 4, &codec.HeartbeatRequest{GroupId: "c", GenerationId: -1, MemberId: "x"})
		}},
	}
	for _, c := range cases {
		a, b := base(), base()
		if !bytes.Equal(a.c.AppendStateForm(nil, relative), b.c.AppendStateForm(nil, relative)) {
			t.Fatal("two coordinators stepped alike must encode equally")
		}
		c.other(b)
		if bytes.Equal(a.c.AppendStateForm(nil, relative), b.c.AppendStateForm(nil, relative)) {
			t.Errorf("%s: the explorer's form did not change", c.what)
		}
	}
}

func TestAppendStateFormClassicMemberIDs(t *testing.T) {
	ct, _ := classicJoinAt(t, 0)
	var seen []string
	form := relative
	form.MemberID = func(b []byte, id string) []byte {
		seen = append(seen, id)
		return append(b, 'M')
	}
	enc := ct.c.AppendStateForm(nil, form)
	if len(seen) == 0 {
		t.Fatal("MemberID was not called for the classic member")
	}
	for _, id := range seen {
		if bytes.Contains(enc, []byte(id)) {
			t.Fatalf("member id %s written as it is under a MemberID form", id)
		}
	}
	var queued []string
	form.Request = func(b []byte, h *codec.RequestHeader, req codec.Message) []byte {
		queued = append(queued, fmt.Sprint(req.Key()))
		return append(b, 'R')
	}
	ct.handle(1, 4, &codec.HeartbeatRequest{GroupId: "c", GenerationId: -1, MemberId: "x"})
	ct.c.AppendStateForm(nil, form)
	if len(queued) != 1 {
		t.Fatalf("Request saw %v, want the one Heartbeat held behind the JoinGroup", queued)
	}
}

func TestNextDeadlineClassic(t *testing.T) {
	ct, d := classicJoinAt(t, 1000)
	// The first member of an empty group starts the initial rebalance
	// delay (3 s here, docs/PROTOCOL.md B8.7), which ends before its
	// new-member session (5 min).
	if at, ok := ct.c.NextDeadline(); !ok || at != 1000+3000 {
		t.Fatalf("NextDeadline %d, %v; want the initial delay's end, 4000", at, ok)
	}
	ct.advance(4000)
	if got := ct.joined("the join phase's end", d); got.ErrorCode != codec.None {
		t.Fatalf("the held JoinGroup: %v", got.ErrorCode)
	}
	// Completing: the sync timer (the rebalance timeout, 20 s) and the
	// member's session (10 s) run from the completion.
	if at, ok := ct.c.NextDeadline(); !ok || at != 4000+10000 {
		t.Fatalf("NextDeadline %d, %v; want the member's session, 14000", at, ok)
	}
}

func TestClassicTimersAndHeld(t *testing.T) {
	ct, d := classicJoinAt(t, 1000)
	var timers []string
	ct.c.ClassicTimers(func(g, key string, at int64) { timers = append(timers, fmt.Sprintf("%s/%s %d", g, key, at)) })
	// The join timer is the initial delay: 3 s, of a 20 s rebalance
	// timeout (17 s remain after it); no sync timer; the member, new in
	// this join phase, has the new-member timeout (5 min) for its session
	// (docs/PROTOCOL.md B8.10).
	member := ct.group("c").Members[0].MemberID
	want := []string{"c/join 4000", "c/join-delay 3000", "c/join-remaining 17000", "c/join-initial 1", "c/sync -1", "c/" + member + " 301000"}
	if strings.Join(timers, "; ") != strings.Join(want, "; ") {
		t.Fatalf("ClassicTimers:\n got %q\nwant %q", timers, want)
	}
	_, behind := ct.handle(1, 4, &codec.HeartbeatRequest{GroupId: "c", GenerationId: -1, MemberId: "x"})
	var held []string
	each := func(conn uint64, active bool, delivery uint64, queued []uint64) {
		held = append(held, fmt.Sprintf("%d %v %d %v", conn, active, delivery, queued))
	}
	ct.c.Held(each)
	if want := fmt.Sprintf("1 true %d [%d]", d, behind); len(held) != 1 || held[0] != want {
		t.Fatalf("Held: %q, want [%s]", held, want)
	}
	ct.advance(4000)
	held = nil
	ct.c.Held(each)
	if len(held) != 0 {
		t.Fatalf("Held after the join phase answered and the connection went on: %q", held)
	}
}
