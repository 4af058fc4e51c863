package model_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
)

// The explorer's hooks: AppendStateForm's abstractions, NextDeadline and
// SetClauseCounter.

// joinAt makes a coordinator at time start and joins two members at it,
// the second on a connection of its own.
func joinAt(t *testing.T, start int64, first, second string) *coordTest {
	tc := newCoordTest(t)
	tc.advance(start)
	tc.ok(1, testreq.Join("g", first, rebalanceMs, "a", "b"))
	other := &coordTest{t: t, c: tc.c, conn: model.Conn{ID: 2, Host: testHost}}
	other.ok(1, testreq.Join("g", second, rebalanceMs, "a"))
	return tc
}

func TestAppendStateFormRelativeTime(t *testing.T) {
	early, late := joinAt(t, 0, "m1", "m2"), joinAt(t, 7000, "m1", "m2")
	if bytes.Equal(early.c.AppendState(nil), late.c.AppendState(nil)) {
		t.Fatal("AppendState encodes two coordinators 7 s apart equally: it must write the time")
	}
	rel := model.StateForm{RelativeTime: true}
	if !bytes.Equal(early.c.AppendStateForm(nil, rel), late.c.AppendStateForm(nil, rel)) {
		t.Fatal("RelativeTime: the same members joined at 0 and at 7 s, each seen at its own time, must encode equally")
	}
	late.advance(7001)
	if bytes.Equal(early.c.AppendStateForm(nil, rel), late.c.AppendStateForm(nil, rel)) {
		t.Fatal("RelativeTime: a coordinator 1 ms further from its deadlines must encode differently")
	}
}

func TestAppendStateFormMemberIDs(t *testing.T) {
	a, b := joinAt(t, 0, "m1", "m2"), joinAt(t, 0, "x1", "x2")
	var seen []string
	rename := model.StateForm{MemberID: func(buf []byte, id string) []byte {
		seen = append(seen, id)
		return append(buf, byte(len(seen))) // by order of appearance
	}}
	ea := a.c.AppendStateForm(nil, rename)
	if len(seen) != 2 || seen[0] != "m1" || seen[1] != "m2" {
		t.Fatalf("MemberID saw %q, want every member once, in member id order: m1 m2", seen)
	}
	seen = nil
	if eb := b.c.AppendStateForm(nil, rename); !bytes.Equal(ea, eb) {
		t.Fatal("two coordinators equal but for their member ids must encode equally once the ids are renamed")
	}
	if bytes.Equal(a.c.AppendState(nil), b.c.AppendState(nil)) {
		t.Fatal("without a MemberID form the ids themselves must be written")
	}
}

func TestAppendStateFormNoConns(t *testing.T) {
	a, b := joinAt(t, 0, "m1", "m2"), joinAt(t, 0, "m1", "m2")
	b.c.Disconnect(2) // the second member's connection context is forgotten; the member stays
	if bytes.Equal(a.c.AppendState(nil), b.c.AppendState(nil)) {
		t.Fatal("AppendState must write the connections' contexts")
	}
	if !bytes.Equal(a.c.AppendStateForm(nil, model.StateForm{NoConns: true}), b.c.AppendStateForm(nil, model.StateForm{NoConns: true})) {
		t.Fatal("NoConns: two coordinators that differ only in a connection's context must encode equally")
	}
}

func TestNextDeadline(t *testing.T) {
	tc := newCoordTest(t)
	if at, ok := tc.c.NextDeadline(); ok {
		t.Fatalf("an empty coordinator has a deadline at %d", at)
	}
	tc.advance(1000)
	tc.ok(1, testreq.Join("g", "m1", rebalanceMs, "a"))
	if at, ok := tc.c.NextDeadline(); !ok || at != 1000+45000 {
		t.Fatalf("after a join at 1 s: NextDeadline %d, %v; want the session timeout, 46000", at, ok)
	}
	// m1 owns a0-a2; m2 joining moves part of it to m1's pending
	// revocation: m1's rebalance timer (60 s) starts at its next
	// heartbeat, at 2 s, after m2's session deadline is set at 1.5 s.
	tc.advance(1500)
	other := &coordTest{t: t, c: tc.c, conn: model.Conn{ID: 2, Host: testHost}}
	other.ok(1, testreq.Join("g", "m2", rebalanceMs, "a"))
	tc.advance(2000)
	resp := tc.ok(1, testreq.Heartbeat("g", "m1", 1, "a0 a1 a2"))
	if resp.MemberEpoch != 1 {
		t.Fatalf("m1 at epoch %d, want 1 while it revokes", resp.MemberEpoch)
	}
	if at, ok := tc.c.NextDeadline(); !ok || at != 1500+45000 {
		t.Fatalf("NextDeadline %d, %v; want m2's session deadline, 46500, the earliest", at, ok)
	}
	tc.advance(1500 + 45000)
	if at, ok := tc.c.NextDeadline(); !ok || at != 2000+45000 {
		t.Fatalf("after m2 expired: NextDeadline %d, %v; want m1's session, 47000", at, ok)
	}
}

func TestSetClauseCounter(t *testing.T) {
	tc := newCoordTest(t)
	own := model.ClauseHits{}
	tc.c.SetClauseCounter(own)
	tc.ok(1, testreq.Join("g", "m1", rebalanceMs, "a"))
	if own["A5.1/member-joined"] != 1 {
		t.Fatalf("the counter set saw %v, want A5.1/member-joined once", own)
	}
	cl := tc.c.Clone()
	other := model.ClauseHits{}
	cl.SetClauseCounter(other)
	(&coordTest{t: t, c: cl, conn: model.Conn{ID: 2, Host: testHost}}).ok(1, testreq.Join("g", "m2", rebalanceMs, "a"))
	if own["A5.1/member-joined"] != 1 || other["A5.1/member-joined"] != 1 {
		t.Fatalf("after a join on the clone: original %v, clone %v; each counter must see its own coordinator's join only", own, other)
	}
	cl.SetClauseCounter(nil)
	(&coordTest{t: t, c: cl, conn: model.Conn{ID: 3, Host: testHost}}).ok(1, testreq.Join("g", "m3", rebalanceMs, "a"))
	if other["A5.1/member-joined"] != 1 {
		t.Fatal("a nil counter must count nothing")
	}
}

func TestTimers(t *testing.T) {
	tc := newCoordTest(t)
	tc.advance(1000)
	tc.ok(1, testreq.Join("g", "m1", rebalanceMs, "a"))
	tc.advance(1500)
	(&coordTest{t: t, c: tc.c, conn: model.Conn{ID: 2, Host: testHost}}).ok(1, testreq.Join("g", "m2", rebalanceMs, "a"))
	tc.advance(2000)
	tc.ok(1, testreq.Heartbeat("g", "m1", 1, "a0 a1 a2")) // m1 must revoke part of a: its rebalance timer starts
	var got []string
	tc.c.Timers(func(g, m string, session, rebalance int64) {
		got = append(got, fmt.Sprintf("%s/%s %d %d", g, m, session, rebalance))
	})
	// Written from docs/PROTOCOL.md: a session ends a session timeout (45 s)
	// after the last successful heartbeat; m1's rebalance timeout (60 s)
	// runs from the heartbeat that began its revocation; m2 revokes
	// nothing.
	want := []string{"g/m1 47000 62000", "g/m2 46500 -1"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("Timers: %q, want %q", got, want)
	}
}
