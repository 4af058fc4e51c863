package model_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model"
)

// The client behaviours the generated plans draw (linearize): each one
// puts on the wire what a real client of that kind sends.

// An old-style client (before KIP-1313) sends its ClientId on every
// request, and after SetClientID the new one; a KIP-1313 client sends the
// new one only on a new connection's first request.
func TestClientIDEveryRequestAndRename(t *testing.T) {
	for _, every := range []bool{false, true} {
		c := newClient(t, model.ClientConfig{ClientID: "app", GroupID: group1, HeartbeatVersion: 1, ClientIDEveryRequest: every})
		conn := &model.ClientConn{}
		want := func(i int, h codec.RequestHeader, id string, carried bool) {
			t.Helper()
			if h.ClientId.Valid != carried || (carried && h.ClientId.Value != id) {
				t.Errorf("every=%v request %d: ClientId %v, want %q carried=%v", every, i, h.ClientId, id, carried)
			}
		}
		want(0, c.Header(conn, codec.ApiVersions, 4), "app", true)
		want(1, c.Header(conn, codec.ConsumerGroupHeartbeat, 1), "app", every)
		c.SetClientID("app-2")
		if c.ClientID() != "app-2" || c.Config().ClientID != "app" {
			t.Errorf("ClientID %q Config().ClientID %q, want the new one and the configured one", c.ClientID(), c.Config().ClientID)
		}
		want(2, c.Header(conn, codec.ConsumerGroupHeartbeat, 1), "app-2", every)
		want(3, c.Header(&model.ClientConn{}, codec.ApiVersions, 4), "app-2", true)
	}
}

// A client that reports owned partitions only when they changed (as Java's
// consumer does) sends TopicPartitions null on a plain heartbeat, and
// reports them again after they change or a heartbeat fails.
func TestClientNullOwnedWhenUnchanged(t *testing.T) {
	w := newWorld(t, testConfig())
	p := w.spawn(model.ClientConfig{ClientID: "p", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: 1, NullOwnedWhenUnchanged: true}, 1)
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
	q := w.spawn(model.ClientConfig{ClientID: "q", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: 1}, 2)
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
	p := w.spawn(model.ClientConfig{ClientID: "p", GroupID: group1, Topics: []string{"a"}, HeartbeatVersion: 1}, 1)
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
	if _, err := model.NewClient(model.ClientConfig{HeartbeatVersion: 0, Regex: "a", Rand: &countingReader{}}); err == nil {
		t.Error("a v0 client with a regex subscription: no error")
	}
}

func countOwned(c *model.Client) int {
	n := 0
	for _, t := range c.Owned() {
		n += len(t.Partitions)
	}
	return n
}
