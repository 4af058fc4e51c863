package model_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// KIP-1082's motivating scenario, both ways (docs/DESIGN.md "Ghosts, precisely"):
// a consumer's first heartbeat (its join) reaches the coordinator, but the
// response is lost, and the consumer retries.
//
//   - ConsumerGroupHeartbeat v0: the coordinator makes the member id, so the
//     retry creates a second member. The first is a ghost: it holds
//     partitions the real member waits for, until its session times out,
//     and NoGhosts and OneMemberPerProcess report it the whole time.
//   - v1: the client made its id; the retry is the same member, and there is
//     nothing to report at any time.

// describeGroups is what an outside observer sees of group g.
func (w *world) describeGroups(g string) []rules.GroupSnapshot {
	w.t.Helper()
	h := codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 1, ClientId: codec.Str("observer")}
	resp, err := w.coord.Handle(model.Conn{ID: 1 << 40}, &h, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{g}})
	if err != nil {
		w.t.Fatalf("describe: %v", err)
	}
	return rules.SnapshotFromDescribe(resp.(*codec.ConsumerGroupDescribeResponse))
}

func memberIDs(groups []rules.GroupSnapshot) []string {
	var ids []string
	for _, g := range groups {
		for _, m := range g.Members {
			ids = append(ids, m.MemberID)
		}
	}
	return ids
}

// ghostReport checks the observation both ways the invariants can see it:
// from the coordinator's snapshot and from ConsumerGroupDescribe alone.
func ghostReport(w *world) (noGhosts, oneMember error) {
	o := w.observation()
	noGhosts, oneMember = rules.NoGhosts(o), rules.OneMemberPerProcess(o)
	o.Groups = w.describeGroups(group1)
	if (rules.NoGhosts(o) == nil) != (noGhosts == nil) || (rules.OneMemberPerProcess(o) == nil) != (oneMember == nil) {
		w.t.Fatalf("the snapshot and ConsumerGroupDescribe disagree at t=%d", o.Now)
	}
	return noGhosts, oneMember
}

func wantViolation(t *testing.T, what string, err error, rule, mentions string) {
	t.Helper()
	var v *rules.Violation
	if !errors.As(err, &v) || v.Rule != rule || !strings.Contains(v.Detail, mentions) {
		t.Errorf("%s: %v, want a %s violation naming %s", what, err, rule, mentions)
	}
}

func TestKIP1082LostJoinResponseV0LeavesAGhost(t *testing.T) {
	w := newWorld(t, testConfig())
	p := w.spawn(client.Config{ClientID: "consumer", GroupID: group1, Topics: []string{"a", "b"}, HeartbeatVersion: 0}, 1)
	ghost, real := genID(1).String(), genID(2).String() // the ids the coordinator makes, in order

	if r := w.heartbeat(p, true); r.ErrorCode != codec.None || r.MemberId.Value != ghost {
		t.Fatalf("the join: %v %v, want success as %s (lost on the way back)", r.ErrorCode, r.MemberId, ghost)
	}
	noGhosts, _ := ghostReport(w)
	wantViolation(t, "at once, before any retry", noGhosts, "NoGhosts", ghost)

	w.coord.Advance(1000)
	if r := w.heartbeat(p, false); r.ErrorCode != codec.None || r.MemberId.Value != real {
		t.Fatalf("the retried join: %v %v, want a second member %s", r.ErrorCode, r.MemberId, real)
	}
	if got := fmt.Sprint(memberIDs(w.describeGroups(group1))); got != fmt.Sprint([]string{ghost, real}) {
		t.Fatalf("members after the retry: %s, want the ghost and the real one", got)
	}
	// Sorted ids: ghost (AQEB...) before real (AgIC...), so the target
	// gives the real member a1 b0 — which the ghost owns, so it gets
	// nothing: partition reassignment is held up by the ghost.
	if len(p.client.Owned()) != 0 {
		t.Fatalf("the real member owns %v while the ghost holds everything", p.client.Owned())
	}

	for now := int64(1000); now < 45000; now += 5000 {
		w.coord.Advance(now)
		if r := w.heartbeat(p, false); r.ErrorCode != codec.None {
			t.Fatalf("t=%d: heartbeat %v", now, r.ErrorCode)
		}
		noGhosts, oneMember := ghostReport(w)
		wantViolation(t, fmt.Sprintf("t=%d NoGhosts", now), noGhosts, "NoGhosts", ghost)
		wantViolation(t, fmt.Sprintf("t=%d OneMemberPerProcess", now), oneMember, "OneMemberPerProcess", ghost)
		if len(p.client.Owned()) != 0 {
			t.Fatalf("t=%d: the real member got %v while the ghost lives", now, p.client.Owned())
		}
	}
	w.coord.Advance(44999)
	noGhosts, _ = ghostReport(w)
	wantViolation(t, "1 ms before the ghost's session ends", noGhosts, "NoGhosts", ghost)

	w.coord.Advance(45000) // the join at t=0 plus one session timeout
	if noGhosts, oneMember := ghostReport(w); noGhosts != nil || oneMember != nil {
		t.Fatalf("after the ghost's session ended: %v, %v", noGhosts, oneMember)
	}
	if got := fmt.Sprint(memberIDs(w.describeGroups(group1))); got != fmt.Sprint([]string{real}) {
		t.Fatalf("members at 45000: %s, want only the real one", got)
	}
	w.heartbeat(p, false)
	if !sameParts(p.client.Owned(), testreq.Owned(allAB)) {
		t.Fatalf("once the ghost is gone the real member owns %s, want everything", dump(p.client.Owned()))
	}
}

func TestKIP1082LostJoinResponseV1HasNoGhost(t *testing.T) {
	w := newWorld(t, testConfig())
	p := w.spawn(client.Config{ClientID: "consumer", GroupID: group1, Topics: []string{"a", "b"}, HeartbeatVersion: 1}, 1)
	own := p.client.MemberID()
	check := func(when string) {
		t.Helper()
		if noGhosts, oneMember := ghostReport(w); noGhosts != nil || oneMember != nil {
			t.Fatalf("%s: %v, %v", when, noGhosts, oneMember)
		}
		if got := fmt.Sprint(memberIDs(w.describeGroups(group1))); got != fmt.Sprint([]string{own}) {
			t.Fatalf("%s: members %s, want only the client's own %s", when, got, own)
		}
	}
	if r := w.heartbeat(p, true); r.ErrorCode != codec.None || r.MemberId.Value != own {
		t.Fatalf("the join: %v %v, want success as the client's own id", r.ErrorCode, r.MemberId)
	}
	check("after the lost join response")
	w.coord.Advance(1000)
	if r := w.heartbeat(p, false); r.ErrorCode != codec.None || r.MemberId.Value != own || r.MemberEpoch != 1 {
		t.Fatalf("the retried join: %+v, want the same member at epoch 1", r)
	}
	check("after the retry")
	if !sameParts(p.client.Owned(), testreq.Owned(allAB)) {
		t.Fatalf("after the retry the member owns %s, want everything at once", dump(p.client.Owned()))
	}
	for now := int64(6000); now <= 46000; now += 5000 {
		w.coord.Advance(now)
		if r := w.heartbeat(p, false); r.ErrorCode != codec.None {
			t.Fatalf("t=%d: heartbeat %v", now, r.ErrorCode)
		}
		check(fmt.Sprintf("t=%d", now))
	}
}

// KAFKA-17116, the other half of KIP-1082's motivation: the consumer closes
// before its join response arrives. At v0 its leave can only carry an empty
// member id, which is refused, and the member it created lingers until its
// session ends. At v1 the leave carries the client's own id and removes it.
func TestKIP1082CloseBeforeJoinResponse(t *testing.T) {
	for _, v := range []int16{0, 1} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			w := newWorld(t, testConfig())
			p := w.spawn(client.Config{ClientID: "consumer", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: v}, 1)
			w.heartbeat(p, true) // the join is handled; its response is lost
			leave := w.close(p)
			o := w.observation()
			if v == 1 {
				if leave.ErrorCode != codec.None || len(memberIDs(w.describeGroups(group1))) != 0 || rules.NoGhosts(o) != nil {
					t.Fatalf("the leave: %v; members %v; want the member gone at once", leave.ErrorCode, memberIDs(w.describeGroups(group1)))
				}
				return
			}
			if leave.ErrorCode != codec.InvalidRequest || leave.ErrorMessage.Value != "MemberId can't be empty." {
				t.Fatalf("the v0 leave: %v %q, want INVALID_REQUEST for its empty member id", leave.ErrorCode, leave.ErrorMessage.Value)
			}
			// The process ended; the member it never learned of is allowed
			// to outlive it by one session timeout, and no longer.
			if err := rules.NoGhosts(o); err != nil {
				t.Fatalf("inside the session timeout: %v", err)
			}
			w.coord.Advance(44999)
			if got := memberIDs(w.describeGroups(group1)); fmt.Sprint(got) != fmt.Sprint([]string{genID(1).String()}) {
				t.Fatalf("at 44999 members %v, want the abandoned one", got)
			}
			w.coord.Advance(45000)
			if got := memberIDs(w.describeGroups(group1)); len(got) != 0 {
				t.Fatalf("at 45000 members %v, want none", got)
			}
			if err := rules.QuiescentMembership(w.observation()); err != nil {
				t.Fatal(err)
			}
		})
	}
}
