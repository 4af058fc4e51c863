package model_test

import (
	"fmt"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
)

// The reference client (package client) against the reference
// coordinator: what a client keeps and changes as the coordinator answers
// it, and the client behaviours the generated plans draw, each putting on
// the wire what a real client of that kind sends.

// Against the reference coordinator: the member id a KIP-1082 client keeps
// for its whole life, and how each client answers what the broker says.
func TestClientMemberIDLifecycle(t *testing.T) {
	cfg := testConfig()
	cfg.SessionTimeoutMs = 1000
	for _, v := range []int16{0, 1} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			w := newWorld(t, cfg)
			p := w.spawn(client.Config{ClientID: "p", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: v}, 1)
			own := p.client.MemberID()
			mustOK := func(what string, r *codec.ConsumerGroupHeartbeatResponse) {
				t.Helper()
				if r.ErrorCode != codec.None {
					t.Fatalf("%s: %v %q", what, r.ErrorCode, r.ErrorMessage.Value)
				}
			}
			mustOK("join", w.heartbeat(p, false))
			joined := p.client.MemberID()
			if v == 1 && joined != own {
				t.Fatalf("after the join the member id is %q, want the client's own %q", joined, own)
			}
			if v == 0 && joined == "" {
				t.Fatal("a v0 client did not learn the broker's member id")
			}
			mustOK("heartbeat", w.heartbeat(p, false))
			mustOK("leave", w.leave(p, false))
			if p.client.MemberID() != joined || p.client.State() != client.Left {
				t.Fatalf("after leaving: id %q state %v, want %q and Left", p.client.MemberID(), p.client.State(), joined)
			}
			mustOK("rejoin", w.heartbeat(p, false))
			if p.client.MemberID() != joined {
				t.Fatalf("rejoined as %q, want %q (the id is kept across leave and rejoin)", p.client.MemberID(), joined)
			}
			// Make p's epoch stale: two members join on another topic (each
			// a new group epoch that p takes at once, nothing to revoke),
			// and p loses both responses that moved it on. Its epoch is
			// then neither the broker's nor the broker's previous one.
			q := w.spawn(client.Config{ClientID: "q", GroupID: group1, Topics: []string{"c"}, HeartbeatVersion: 1}, 2)
			mustOK("q joins", w.heartbeat(q, false))
			mustOK("p's heartbeat moves it on; the response is lost", w.heartbeat(p, true))
			r := w.spawn(client.Config{ClientID: "r", GroupID: group1, Topics: []string{"c"}, HeartbeatVersion: 1}, 3)
			mustOK("r joins", w.heartbeat(r, false))
			mustOK("p's retry, at its previous epoch, is accepted and moves it on again; lost too", w.heartbeat(p, true))
			if r := w.heartbeat(p, false); r.ErrorCode != codec.FencedMemberEpoch {
				t.Fatalf("stale heartbeat: %v, want FENCED_MEMBER_EPOCH", r.ErrorCode)
			}
			if p.client.MemberID() != joined || p.client.State() != client.Unjoined || len(p.client.Owned()) != 0 {
				t.Fatalf("after FENCED_MEMBER_EPOCH: id %q state %v owned %v; want the same id, Unjoined, nothing owned", p.client.MemberID(), p.client.State(), p.client.Owned())
			}
			req, _ := p.client.NextHeartbeat()
			if req.MemberEpoch != 0 || req.MemberId != joined {
				t.Fatalf("after a fence the client rejoins at epoch %d as %q, want 0 as %q", req.MemberEpoch, req.MemberId, joined)
			}
			p.client.OnHeartbeat(w.sendHeartbeat(p, req, p.client.HeartbeatVersion()))
			w.coord.Advance(w.coord.Now() + cfg.SessionTimeoutMs) // the session ends
			if r := w.heartbeat(p, false); r.ErrorCode != codec.UnknownMemberID {
				t.Fatalf("heartbeat after the session ended: %v, want UNKNOWN_MEMBER_ID", r.ErrorCode)
			}
			if v == 1 && p.client.MemberID() != own {
				t.Fatalf("a KIP-1082 client changed its member id on UNKNOWN_MEMBER_ID: %q, want %q", p.client.MemberID(), own)
			}
			if v == 0 && p.client.MemberID() != "" {
				t.Fatalf("a v0 client kept %q after UNKNOWN_MEMBER_ID; it forgets an id the broker no longer knows", p.client.MemberID())
			}
		})
	}
}

// A client that reports owned partitions only when they changed (as Java's
// consumer does) sends TopicPartitions null on a plain heartbeat, and
// reports them again after they change or a heartbeat fails.
func TestClientNullOwnedWhenUnchanged(t *testing.T) {
	w := newWorld(t, testConfig())
	p := w.spawn(client.Config{ClientID: "p", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: 1, NullOwnedWhenUnchanged: true}, 1)
	if r := w.heartbeat(p, false); r.ErrorCode != codec.None || len(p.client.Owned()) == 0 {
		t.Fatalf("join: %v, owned %v", r.ErrorCode, p.client.Owned())
	}
	first, _ := p.client.NextHeartbeat()
	if first.TopicPartitions == nil {
		t.Fatal("the first heartbeat after the join must report what the join gave")
	}
	p.client.OnHeartbeat(w.sendHeartbeat(p, first, 1))
	plain, _ := p.client.NextHeartbeat()
	if plain.TopicPartitions != nil {
		t.Fatalf("a plain heartbeat reports %v, want null (unchanged)", plain.TopicPartitions)
	}
	p.client.OnHeartbeat(w.sendHeartbeat(p, plain, 1))
	w.heartbeat(p, true) // lost: the next one is full
	full, _ := p.client.NextHeartbeat()
	if full.TopicPartitions == nil || full.RebalanceTimeoutMs == -1 || full.SubscribedTopicNames == nil {
		t.Fatalf("after a lost response: %+v, want a full heartbeat", full)
	}
	// A second member takes partitions away: the changed set is reported.
	q := w.spawn(client.Config{ClientID: "q", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: 1}, 2)
	p.client.OnHeartbeat(w.sendHeartbeat(p, full, 1))
	w.heartbeat(q, false)
	before := countOwned(p.client)
	w.heartbeat(p, false) // revocation: the response shrinks the assignment
	if countOwned(p.client) >= before {
		t.Fatalf("owned %v after the second member joined, want fewer than %d", p.client.Owned(), before)
	}
	next, _ := p.client.NextHeartbeat()
	if next.TopicPartitions == nil {
		t.Fatal("after the assignment changed the heartbeat must report it")
	}
}

// Resubscribe: the next heartbeats carry the new subscription until a
// response acknowledges it; a change to a regex clears the names (and the
// other way round), and a full heartbeat of a regex client is full by its
// regex alone (SubscribedTopicNames null).
func TestClientResubscribe(t *testing.T) {
	w := newWorld(t, testConfig())
	p := w.spawn(client.Config{ClientID: "p", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: 1}, 1)
	w.heartbeat(p, false)
	p.client.Resubscribe(nil, "[ab]")
	lost := w.heartbeat(p, true)
	if lost.ErrorCode != codec.None {
		t.Fatalf("resubscribing: %v", lost.ErrorCode)
	}
	req, _ := p.client.NextHeartbeat()
	if !req.SubscribedTopicRegex.Valid || req.SubscribedTopicRegex.Value != "[ab]" || req.SubscribedTopicNames == nil || len(req.SubscribedTopicNames) != 0 {
		t.Fatalf("until acknowledged: regex %v names %v, want the regex and the names cleared", req.SubscribedTopicRegex, req.SubscribedTopicNames)
	}
	p.client.OnHeartbeat(w.sendHeartbeat(p, req, 1))
	plain, _ := p.client.NextHeartbeat()
	if plain.SubscribedTopicRegex.Valid || plain.SubscribedTopicNames != nil {
		t.Fatalf("after the acknowledgement: regex %v names %v, want neither", plain.SubscribedTopicRegex, plain.SubscribedTopicNames)
	}
	p.client.OnHeartbeat(w.sendHeartbeat(p, plain, 1))
	w.heartbeat(p, true)
	full, _ := p.client.NextHeartbeat()
	if full.SubscribedTopicNames != nil || !full.SubscribedTopicRegex.Valid || full.RebalanceTimeoutMs == -1 || full.TopicPartitions == nil {
		t.Fatalf("a regex client's full heartbeat: %+v, want the regex, names null, the rebalance timeout and owned partitions", full)
	}
	resp := w.sendHeartbeat(p, full, 1)
	if resp.ErrorCode != codec.None || resp.Assignment == nil {
		t.Fatalf("a full heartbeat by regex: %v, assignment %v; A5.7 wants the assignment", resp.ErrorCode, resp.Assignment)
	}
	p.client.OnHeartbeat(resp)
	p.client.Resubscribe([]string{"b"}, "")
	back, _ := p.client.NextHeartbeat()
	if !back.SubscribedTopicRegex.Valid || back.SubscribedTopicRegex.Value != "" || len(back.SubscribedTopicNames) != 1 {
		t.Fatalf("back to names: regex %v names %v, want the regex cleared and [b]", back.SubscribedTopicRegex, back.SubscribedTopicNames)
	}
}

func countOwned(c *client.Client) int {
	n := 0
	for _, t := range c.Owned() {
		n += len(t.Partitions)
	}
	return n
}
