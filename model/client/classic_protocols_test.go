package client_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
	"github.com/ghostcheck/ghostcheck/model/client"
)

// What sets a plan's classic consumers apart from Kafka's Java consumer
// with its defaults (plan.ClassicClient): several assignors in an order of
// preference, a leader that leaves out the members it gives nothing, a
// SyncGroup sent again after a lost answer, and the leader's rejoin on a
// metadata change.

// The consumer offers its protocols in its order, each with its
// subscription, and takes the one the coordinator selected if it offered
// it; one it did not offer is fatal (INCONSISTENT_GROUP_PROTOCOL).
func TestClassicProtocols(t *testing.T) {
	for _, tc := range []struct {
		name      string
		protocols []string
		selected  string
		wantFatal bool
	}{
		{"one, the default", nil, "uniform", false},
		{"two, the first selected", []string{"range", "uniform"}, "range", false},
		{"two, the second selected", []string{"range", "uniform"}, "uniform", false},
		{"failover", []string{"failover", "uniform"}, "failover", false},
		{"not offered", []string{"uniform"}, "range", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClassic(t, client.ClassicConfig{Topics: []string{"a"}, Protocols: tc.protocols})
			c.Start()
			r, _ := c.JoinGroup()
			names := tc.protocols
			if names == nil {
				names = []string{"uniform"}
			}
			var want []codec.JoinGroupRequestProtocol
			for _, n := range names {
				want = append(want, codec.JoinGroupRequestProtocol{Name: n, Metadata: subscriptionBytes(t, -1, "a")})
			}
			if d := codectest.WireDiff(9, &codec.JoinGroupRequest{GroupId: group1, SessionTimeoutMs: 6000, RebalanceTimeoutMs: 3000,
				GroupInstanceId: codec.Null, ProtocolType: "consumer", Protocols: want}, r); d != "" {
				t.Fatalf("JoinGroup:\n%s", d)
			}
			resp := joined(1, "m1", "m0")
			resp.ProtocolName = codec.Str(tc.selected)
			c.OnJoinGroup(resp)
			if fatal := c.State() == client.ClassicFatal; fatal != tc.wantFatal {
				t.Fatalf("state %v after protocol %s was selected, want fatal %v", c.State(), tc.selected, tc.wantFatal)
			}
			if tc.wantFatal {
				if c.Fatal() != codec.InconsistentGroupProtocol {
					t.Fatalf("fatal %v, want INCONSISTENT_GROUP_PROTOCOL", c.Fatal())
				}
				return
			}
			if s, _ := c.SyncGroup(); !s.ProtocolName.Valid || s.ProtocolName.Value != tc.selected {
				t.Fatalf("SyncGroup names protocol %v, want %s", s.ProtocolName, tc.selected)
			}
		})
	}
}

// NewClassic refuses a protocol it has no assignor for, and one listed
// twice.
func TestClassicProtocolsRefused(t *testing.T) {
	for _, ps := range [][]string{{"sticky"}, {"uniform", "uniform"}} {
		if _, err := client.NewClassic(client.ClassicConfig{GroupID: group1, Protocols: ps}); err == nil {
			t.Errorf("NewClassic accepted protocols %v", ps)
		}
	}
}

// The leader assigns with the selected protocol's assignor; with OmitEmpty
// a member it gives nothing gets no entry.
func TestClassicAssignors(t *testing.T) {
	members := func(t *testing.T) []codec.JoinGroupResponseMember {
		return []codec.JoinGroupResponseMember{
			{MemberId: "m1", Metadata: subscriptionBytes(t, -1, "a", "b")},
			{MemberId: "m2", Metadata: subscriptionBytes(t, -1, "a", "b")},
			{MemberId: "m3", Metadata: subscriptionBytes(t, -1, "b")},
			{MemberId: "m4", Metadata: subscriptionBytes(t, -1, "c")},
		}
	}
	// Partitions: a 3, b 2, c 1 (newClassic). Subscribers by member id.
	for _, tc := range []struct {
		name      string
		protocol  string
		omitEmpty bool
		want      map[string][]codec.ConsumerProtocolTopicPartitions // nil: no entry
	}{
		// a: m1, m2: p0 → m1, p1 → m2, p2 → m1; offset 3. b: m1, m2, m3:
		// p0 → (3+0)%3 = m1, p1 → m2; offset 5. c: m4: p0.
		{"uniform", "uniform", false, map[string][]codec.ConsumerProtocolTopicPartitions{
			"m1": {tp("a", 0, 2), tp("b", 0)}, "m2": {tp("a", 1), tp("b", 1)}, "m3": {}, "m4": {tp("c", 0)}}},
		// a: 3 over 2: m1 gets 0-1, m2 gets 2. b: 2 over 3: m1 0, m2 1,
		// m3 none. c: m4.
		{"range", "range", false, map[string][]codec.ConsumerProtocolTopicPartitions{
			"m1": {tp("a", 0, 1), tp("b", 0)}, "m2": {tp("a", 2), tp("b", 1)}, "m3": {}, "m4": {tp("c", 0)}}},
		{"range, omitting", "range", true, map[string][]codec.ConsumerProtocolTopicPartitions{
			"m1": {tp("a", 0, 1), tp("b", 0)}, "m2": {tp("a", 2), tp("b", 1)}, "m4": {tp("c", 0)}}},
		// Each topic wholly to its first subscriber: a, b to m1, c to m4.
		{"failover, omitting", "failover", true, map[string][]codec.ConsumerProtocolTopicPartitions{
			"m1": {tp("a", 0, 1, 2), tp("b", 0, 1)}, "m4": {tp("c", 0)}}},
		{"failover", "failover", false, map[string][]codec.ConsumerProtocolTopicPartitions{
			"m1": {tp("a", 0, 1, 2), tp("b", 0, 1)}, "m2": {}, "m3": {}, "m4": {tp("c", 0)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClassic(t, client.ClassicConfig{Topics: []string{"a", "b"}, Protocols: []string{"failover", "range", "uniform"}, OmitEmpty: tc.omitEmpty})
			c.Start()
			c.JoinGroup()
			resp := joined(1, "m1", "m1")
			resp.ProtocolName, resp.Members = codec.Str(tc.protocol), members(t)
			c.OnJoinGroup(resp)
			r, _ := c.SyncGroup()
			var want []codec.SyncGroupRequestAssignment
			for _, id := range []string{"m1", "m2", "m3", "m4"} {
				if tps, ok := tc.want[id]; ok {
					want = append(want, codec.SyncGroupRequestAssignment{MemberId: id, Assignment: assignmentBytes(t, tps...)})
				}
			}
			if d := codectest.WireDiff(5, &codec.SyncGroupRequest{GroupId: group1, GenerationId: 1, MemberId: "m1", GroupInstanceId: codec.Null,
				ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str(tc.protocol), Assignments: want}, r); d != "" {
				t.Errorf("the leader's SyncGroup:\n%s", d)
			}
		})
	}
}

// A lost SyncGroup answer: Kafka's consumer joins again; one that retries
// its SyncGroup sends it again, the same, on the new connection.
func TestClassicSyncLost(t *testing.T) {
	for _, retry := range []bool{false, true} {
		c := newClassic(t, client.ClassicConfig{Topics: []string{"a"}, RetrySync: retry})
		c.Start()
		c.JoinGroup()
		c.OnJoinGroup(joined(3, "m1", "m0"))
		first, _ := c.SyncGroup()
		if re := c.OnSyncGroupLost(); re != client.Reconnect {
			t.Errorf("retry %v: reaction %v, want Reconnect", retry, re)
		}
		want := client.DueJoin
		if retry {
			want = client.DueSync
		}
		if c.Due() != want {
			t.Fatalf("retry %v: due %v, want %v", retry, c.Due(), want)
		}
		if !retry {
			continue
		}
		again, _ := c.SyncGroup()
		if d := codectest.WireDiff(5, first, again); d != "" {
			t.Errorf("the SyncGroup sent again differs:\n%s", d)
		}
	}
}

// A metadata change makes the Stable leader rejoin with its subscription
// unchanged; a follower, a leader still syncing, and a consumer joining do
// not rejoin for it.
func TestClassicMetadataChanged(t *testing.T) {
	stable := func(t *testing.T, leader bool) *client.Classic {
		c := newClassic(t, client.ClassicConfig{Topics: []string{"a"}})
		c.Start()
		c.JoinGroup()
		resp := joined(3, "m1", "m0")
		if leader {
			resp = joined(3, "m1", "m1")
			resp.Members = []codec.JoinGroupResponseMember{{MemberId: "m1", Metadata: subscriptionBytes(t, -1, "a")}}
		}
		c.OnJoinGroup(resp)
		c.SyncGroup()
		c.OnSyncGroup(&codec.SyncGroupResponse{Assignment: assignmentBytes(t, tp("a", 0))})
		return c
	}
	for _, tc := range []struct {
		name       string
		consumer   func(t *testing.T) *client.Classic
		wantRejoin bool
	}{
		{"stable leader", func(t *testing.T) *client.Classic { return stable(t, true) }, true},
		{"stable follower", func(t *testing.T) *client.Classic { return stable(t, false) }, false},
		{"syncing", func(t *testing.T) *client.Classic { return classicAt(t, "syncing", "") }, false},
		{"joining", func(t *testing.T) *client.Classic { return classicAt(t, "joining", "") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.consumer(t)
			state, due := c.State(), c.Due()
			c.MetadataChanged()
			if !tc.wantRejoin {
				if c.State() != state || c.Due() != due {
					t.Fatalf("%v/%v became %v/%v", state, due, c.State(), c.Due())
				}
				return
			}
			if c.State() != client.ClassicJoining || c.Due() != client.DueJoin {
				t.Fatalf("state %v, due %v: want a JoinGroup due", c.State(), c.Due())
			}
			r, _ := c.JoinGroup()
			// Unchanged but for the generation its subscription carries.
			if r.MemberId != "m1" || len(r.Protocols) != 1 || string(r.Protocols[0].Metadata) != string(subscriptionBytes(t, 3, "a")) {
				t.Fatalf("the rejoin %+v, want member m1 with its subscription to a at generation 3", r)
			}
		})
	}
}
