package client_test

import (
	"slices"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
	"github.com/ghostcheck/ghostcheck/model/client"
)

// The classic consumer is tested alone, as the consumer-protocol one is:
// its requests are compared with ones written by hand from
// docs/PROTOCOL.md A6.6 and B8, and the answers it absorbs are scripted.

func newClassic(t *testing.T, cfg client.ClassicConfig) *client.Classic {
	t.Helper()
	if cfg.GroupID == "" {
		cfg.GroupID = group1
	}
	if cfg.SessionTimeoutMs == 0 {
		cfg.SessionTimeoutMs, cfg.RebalanceTimeoutMs = 6000, 3000
	}
	if cfg.Partitions == nil {
		cfg.Partitions = map[string]int32{"a": 3, "b": 2, "c": 1}
	}
	c, err := client.NewClassic(cfg)
	if err != nil {
		t.Fatalf("NewClassic: %v", err)
	}
	return c
}

// broker is an ApiVersions answer with these highest versions of JoinGroup,
// SyncGroup, Heartbeat and LeaveGroup.
func broker(join, sync, hb, leave int16) *codec.ApiVersionsResponse {
	return apiVersionsResponse(codec.None, []codec.ApiVersionsKey{
		{ApiKey: codec.JoinGroup, MaxVersion: join}, {ApiKey: codec.SyncGroup, MaxVersion: sync},
		{ApiKey: codec.Heartbeat, MaxVersion: hb}, {ApiKey: codec.LeaveGroup, MaxVersion: leave}})
}

// subscriptionBytes is the metadata the consumer must send: a
// ConsumerProtocolSubscription v2 of its topics in name order, owning
// nothing, at its generation.
func subscriptionBytes(t *testing.T, gen int32, topics ...string) []byte {
	t.Helper()
	s := codec.ConsumerProtocolSubscription{Topics: topics, GenerationId: gen, OwnedPartitions: []codec.ConsumerProtocolTopicPartitions{}}
	b, err := s.AppendTo(nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func assignmentBytes(t *testing.T, tps ...codec.ConsumerProtocolTopicPartitions) []byte {
	t.Helper()
	a := codec.ConsumerProtocolAssignment{AssignedPartitions: append([]codec.ConsumerProtocolTopicPartitions{}, tps...)}
	b, err := a.AppendTo(nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func tp(topic string, ps ...int32) codec.ConsumerProtocolTopicPartitions {
	return codec.ConsumerProtocolTopicPartitions{Topic: topic, Partitions: ps}
}

func joined(gen int32, member, leader string) *codec.JoinGroupResponse {
	return &codec.JoinGroupResponse{GenerationId: gen, ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("uniform"),
		Leader: leader, MemberId: member, Members: []codec.JoinGroupResponseMember{}}
}

func joinError(code codec.ErrorCode, member string) *codec.JoinGroupResponse {
	return &codec.JoinGroupResponse{ErrorCode: code, GenerationId: -1, MemberId: member, Members: []codec.JoinGroupResponseMember{}}
}

// A dynamic consumer's first JoinGroup names no member and no instance and
// offers one protocol, "uniform", whose metadata is its subscription; after
// MEMBER_ID_REQUIRED it joins again at once with the id given (KIP-394).
func TestClassicJoinRequests(t *testing.T) {
	c := newClassic(t, client.ClassicConfig{Topics: []string{"b", "a", "b"}})
	if c.State() != client.ClassicUnjoined || c.Due() != client.DueNothing || c.Heartbeating() {
		t.Fatalf("a new consumer: state %v, due %v, heartbeating %v", c.State(), c.Due(), c.Heartbeating())
	}
	c.OnApiVersions(broker(9, 5, 4, 5))
	c.Start()
	if c.Due() != client.DueJoin {
		t.Fatalf("started: due %v, want a JoinGroup", c.Due())
	}
	want := &codec.JoinGroupRequest{GroupId: group1, SessionTimeoutMs: 6000, RebalanceTimeoutMs: 3000, MemberId: "", GroupInstanceId: codec.Null,
		ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "uniform", Metadata: subscriptionBytes(t, -1, "a", "b")}}}
	r, v := c.JoinGroup()
	if v != 9 {
		t.Errorf("JoinGroup v%d, want v9 (the broker's and the client's highest)", v)
	}
	if d := codectest.WireDiff(v, r, want); d != "" {
		t.Errorf("first join:\n%s", d)
	}
	if c.Due() != client.DueNothing || c.Heartbeating() {
		t.Errorf("with the join on its way: due %v, heartbeating %v; want nothing due and no heartbeats", c.Due(), c.Heartbeating())
	}
	if re := c.OnJoinGroup(joinError(codec.MemberIDRequired, "p-1")); re != client.Proceed || c.Due() != client.DueJoin {
		t.Fatalf("MEMBER_ID_REQUIRED: reaction %v, due %v; want a JoinGroup at once", re, c.Due())
	}
	r, v = c.JoinGroup()
	want.MemberId = "p-1"
	if d := codectest.WireDiff(v, r, want); d != "" {
		t.Errorf("the join after MEMBER_ID_REQUIRED:\n%s", d)
	}
}

// The versions the consumer speaks are the lower of its own and the
// broker's: against a broker from before KIP-394 it joins at v3 (the
// v4→v3 downgrade), a client capped at v3 does the same against any
// broker, and a static member stops before joining a broker that cannot
// carry its instance id.
func TestClassicVersions(t *testing.T) {
	for _, c := range []struct {
		name                 string
		cap                  int16
		instance             string
		broker               *codec.ApiVersionsResponse
		wantJoin             int16
		wantFatal            bool
		wantSync, wantHB     int16
		wantInstanceOnJoinV5 bool
	}{
		{name: "today's broker", broker: broker(9, 5, 4, 5), wantJoin: 9, wantSync: 5, wantHB: 4},
		{name: "a broker before KIP-394", broker: broker(3, 2, 2, 2), wantJoin: 3, wantSync: 2, wantHB: 2},
		{name: "a client before KIP-394", cap: 3, broker: broker(9, 5, 4, 5), wantJoin: 3, wantSync: 5, wantHB: 4},
		{name: "a static member, today's broker", instance: "i1", broker: broker(9, 5, 4, 5), wantJoin: 9, wantSync: 5, wantHB: 4},
		{name: "a static member, a broker before KIP-345", instance: "i1", broker: broker(4, 2, 2, 2), wantFatal: true},
		{name: "a static member, SyncGroup below v3", instance: "i1", broker: broker(9, 2, 4, 5), wantFatal: true},
		{name: "a broker without the classic protocol", broker: apiVersionsResponse(codec.None, []codec.ApiVersionsKey{{ApiKey: codec.LeaveGroup, MaxVersion: 5}}), wantFatal: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newClassic(t, client.ClassicConfig{Topics: []string{"a"}, InstanceID: c.instance, JoinGroupMaxVersion: c.cap})
			cl.OnApiVersions(c.broker)
			cl.Start()
			r, v := cl.JoinGroup()
			if c.wantFatal {
				if r != nil || cl.State() != client.ClassicFatal || cl.Fatal() != codec.UnsupportedVersion {
					t.Fatalf("JoinGroup %v, state %v, fatal %v; want nothing sent and UNSUPPORTED_VERSION, fatal", r, cl.State(), cl.Fatal())
				}
				return
			}
			if r == nil || v != c.wantJoin {
				t.Fatalf("JoinGroup v%d (%v), want v%d", v, r, c.wantJoin)
			}
			if r.GroupInstanceId.Valid != (c.instance != "") || c.instance != "" && r.GroupInstanceId.Value != c.instance {
				t.Errorf("JoinGroup's instance id %v, want %q", r.GroupInstanceId, c.instance)
			}
			cl.OnJoinGroup(joined(1, "m1", "m1"))
			s, sv := cl.SyncGroup()
			h, hv := cl.Heartbeat()
			if sv != c.wantSync || hv != c.wantHB {
				t.Errorf("SyncGroup v%d, Heartbeat v%d; want v%d and v%d", sv, hv, c.wantSync, c.wantHB)
			}
			if want := c.instance != ""; s.GroupInstanceId.Valid != want || h.GroupInstanceId.Valid != want {
				t.Errorf("instance id on SyncGroup %v and Heartbeat %v; want it there iff static", s.GroupInstanceId, h.GroupInstanceId)
			}
		})
	}
}

// classicAt is a consumer brought to a state by scripted answers: "joining"
// (its JoinGroup on its way, member id m1 and generation 4 from an earlier
// generation), "syncing" (generation 5 joined as a follower, its SyncGroup
// on its way), "resubscribed" (syncing, then resubscribed to a and b: a
// JoinGroup due, the SyncGroup still on its way) or "stable" (synced,
// owning a-0).
func classicAt(t *testing.T, state string, instance string) *client.Classic {
	t.Helper()
	c := newClassic(t, client.ClassicConfig{Topics: []string{"a"}, InstanceID: instance})
	c.OnApiVersions(broker(9, 5, 4, 5))
	c.Start()
	c.JoinGroup()
	c.OnJoinGroup(joined(4, "m1", "m0"))
	c.SyncGroup()
	c.OnSyncGroup(&codec.SyncGroupResponse{Assignment: assignmentBytes(t, tp("a", 0))})
	c.OnHeartbeat(&codec.HeartbeatRequest{GenerationId: 4, MemberId: "m1"}, &codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress})
	c.JoinGroup()
	if state == "joining" {
		return c
	}
	c.OnJoinGroup(joined(5, "m1", "m0"))
	c.SyncGroup()
	switch state {
	case "syncing":
		return c
	case "resubscribed":
		c.Resubscribe([]string{"a", "b"})
		return c
	}
	c.OnSyncGroup(&codec.SyncGroupResponse{ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("uniform"),
		Assignment: assignmentBytes(t, tp("a", 0))})
	if c.State() != client.ClassicStable {
		t.Fatalf("scripted to stable, got %v", c.State())
	}
	return c
}

// The reactions of A6.6's table, answer by answer.
func TestClassicReactions(t *testing.T) {
	hb := func(gen int32, member string) *codec.HeartbeatRequest {
		return &codec.HeartbeatRequest{GroupId: group1, GenerationId: gen, MemberId: member}
	}
	type want struct {
		state    client.ClassicState
		due      client.ClassicRequest
		member   string
		gen      int32
		reaction client.Reaction
		fatal    codec.ErrorCode
	}
	for _, c := range []struct {
		name, from string
		instance   string
		answer     func(c *client.Classic) client.Reaction
		want       want
	}{
		// JoinGroup
		{"join NONE: a follower syncs", "joining", "",
			func(c *client.Classic) client.Reaction { return c.OnJoinGroup(joined(5, "m1", "m0")) },
			want{state: client.ClassicSyncing, due: client.DueSync, member: "m1", gen: 5}},
		{"join MEMBER_ID_REQUIRED: joins again with the id", "joining", "",
			func(c *client.Classic) client.Reaction { return c.OnJoinGroup(joinError(codec.MemberIDRequired, "m9")) },
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m9", gen: -1}},
		{"join UNKNOWN_MEMBER_ID: forgets id and generation", "joining", "",
			func(c *client.Classic) client.Reaction { return c.OnJoinGroup(joinError(codec.UnknownMemberID, "m1")) },
			want{state: client.ClassicJoining, due: client.DueJoin, member: "", gen: -1}},
		{"join REBALANCE_IN_PROGRESS: joins again, same id", "joining", "",
			func(c *client.Classic) client.Reaction {
				return c.OnJoinGroup(joinError(codec.RebalanceInProgress, "m1"))
			},
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: 4}},
		{"join NOT_COORDINATOR: a new connection, same id", "joining", "",
			func(c *client.Classic) client.Reaction { return c.OnJoinGroup(joinError(codec.NotCoordinator, "m1")) },
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: 4, reaction: client.Reconnect}},
		{"join COORDINATOR_NOT_AVAILABLE: a new connection", "joining", "",
			func(c *client.Classic) client.Reaction {
				return c.OnJoinGroup(joinError(codec.CoordinatorNotAvailable, "m1"))
			},
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: 4, reaction: client.Reconnect}},
		{"join COORDINATOR_LOAD_IN_PROGRESS: after the backoff", "joining", "",
			func(c *client.Classic) client.Reaction {
				return c.OnJoinGroup(joinError(codec.CoordinatorLoadInProgress, "m1"))
			},
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: 4, reaction: client.Backoff}},
		{"join FENCED_INSTANCE_ID: fatal", "joining", "i1",
			func(c *client.Classic) client.Reaction { return c.OnJoinGroup(joinError(codec.FencedInstanceID, "m1")) },
			want{state: client.ClassicFatal, member: "m1", gen: 4, fatal: codec.FencedInstanceID}},
		{"join GROUP_MAX_SIZE_REACHED: fatal", "joining", "",
			func(c *client.Classic) client.Reaction {
				return c.OnJoinGroup(joinError(codec.GroupMaxSizeReached, ""))
			},
			want{state: client.ClassicFatal, member: "m1", gen: 4, fatal: codec.GroupMaxSizeReached}},
		{"join INCONSISTENT_GROUP_PROTOCOL: fatal", "joining", "",
			func(c *client.Classic) client.Reaction {
				return c.OnJoinGroup(joinError(codec.InconsistentGroupProtocol, "m1"))
			},
			want{state: client.ClassicFatal, member: "m1", gen: 4, fatal: codec.InconsistentGroupProtocol}},
		{"join INVALID_SESSION_TIMEOUT: fatal", "joining", "",
			func(c *client.Classic) client.Reaction {
				return c.OnJoinGroup(joinError(codec.InvalidSessionTimeout, "m1"))
			},
			want{state: client.ClassicFatal, member: "m1", gen: 4, fatal: codec.InvalidSessionTimeout}},
		{"join INVALID_GROUP_ID: fatal", "joining", "",
			func(c *client.Classic) client.Reaction { return c.OnJoinGroup(joinError(codec.InvalidGroupID, "m1")) },
			want{state: client.ClassicFatal, member: "m1", gen: 4, fatal: codec.InvalidGroupID}},
		{"join lost: the same join on a new connection", "joining", "",
			func(c *client.Classic) client.Reaction { return c.OnJoinGroupLost() },
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: 4, reaction: client.Reconnect}},
		// SyncGroup
		{"sync NONE: stable", "syncing", "",
			func(c *client.Classic) client.Reaction {
				return c.OnSyncGroup(&codec.SyncGroupResponse{Assignment: assignmentBytes(t, tp("a", 1, 0))})
			},
			want{state: client.ClassicStable, member: "m1", gen: 5}},
		{"sync NONE with a partition outside the subscription: rejoins", "syncing", "",
			func(c *client.Classic) client.Reaction {
				return c.OnSyncGroup(&codec.SyncGroupResponse{Assignment: assignmentBytes(t, tp("b", 0))})
			},
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: 5}},
		{"sync UNKNOWN_MEMBER_ID: forgets id and generation", "syncing", "",
			func(c *client.Classic) client.Reaction {
				return c.OnSyncGroup(&codec.SyncGroupResponse{ErrorCode: codec.UnknownMemberID})
			},
			want{state: client.ClassicJoining, due: client.DueJoin, member: "", gen: -1}},
		{"sync ILLEGAL_GENERATION: forgets the generation, keeps the id", "syncing", "",
			func(c *client.Classic) client.Reaction {
				return c.OnSyncGroup(&codec.SyncGroupResponse{ErrorCode: codec.IllegalGeneration})
			},
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: -1}},
		{"sync REBALANCE_IN_PROGRESS: joins again, same id", "syncing", "",
			func(c *client.Classic) client.Reaction {
				return c.OnSyncGroup(&codec.SyncGroupResponse{ErrorCode: codec.RebalanceInProgress})
			},
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: 5}},
		{"sync FENCED_INSTANCE_ID: fatal", "syncing", "i1",
			func(c *client.Classic) client.Reaction {
				return c.OnSyncGroup(&codec.SyncGroupResponse{ErrorCode: codec.FencedInstanceID})
			},
			want{state: client.ClassicFatal, member: "m1", gen: 5, fatal: codec.FencedInstanceID}},
		{"sync NOT_COORDINATOR: joins again on a new connection", "syncing", "",
			func(c *client.Classic) client.Reaction {
				return c.OnSyncGroup(&codec.SyncGroupResponse{ErrorCode: codec.NotCoordinator})
			},
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: 5, reaction: client.Reconnect}},
		{"sync lost: joins again on a new connection", "syncing", "",
			func(c *client.Classic) client.Reaction { return c.OnSyncGroupLost() },
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: 5, reaction: client.Reconnect}},
		{"sync lost after a resubscription: the connection closes all the same", "resubscribed", "i1",
			func(c *client.Classic) client.Reaction { return c.OnSyncGroupLost() },
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: 5, reaction: client.Reconnect}},
		// Heartbeat
		{"heartbeat NONE: nothing", "stable", "",
			func(c *client.Classic) client.Reaction { return c.OnHeartbeat(hb(5, "m1"), &codec.HeartbeatResponse{}) },
			want{state: client.ClassicStable, member: "m1", gen: 5}},
		{"heartbeat REBALANCE_IN_PROGRESS when stable: rejoins", "stable", "",
			func(c *client.Classic) client.Reaction {
				return c.OnHeartbeat(hb(5, "m1"), &codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress})
			},
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: 5}},
		{"heartbeat REBALANCE_IN_PROGRESS while syncing: ignored", "syncing", "",
			func(c *client.Classic) client.Reaction {
				return c.OnHeartbeat(hb(5, "m1"), &codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress})
			},
			want{state: client.ClassicSyncing, member: "m1", gen: 5}},
		{"heartbeat ILLEGAL_GENERATION of the generation: rejoins, keeps the id", "stable", "",
			func(c *client.Classic) client.Reaction {
				return c.OnHeartbeat(hb(5, "m1"), &codec.HeartbeatResponse{ErrorCode: codec.IllegalGeneration})
			},
			want{state: client.ClassicJoining, due: client.DueJoin, member: "m1", gen: -1}},
		{"heartbeat ILLEGAL_GENERATION of an older generation: ignored", "stable", "",
			func(c *client.Classic) client.Reaction {
				return c.OnHeartbeat(hb(4, "m1"), &codec.HeartbeatResponse{ErrorCode: codec.IllegalGeneration})
			},
			want{state: client.ClassicStable, member: "m1", gen: 5}},
		{"heartbeat UNKNOWN_MEMBER_ID of the generation: forgets the id", "stable", "",
			func(c *client.Classic) client.Reaction {
				return c.OnHeartbeat(hb(5, "m1"), &codec.HeartbeatResponse{ErrorCode: codec.UnknownMemberID})
			},
			want{state: client.ClassicJoining, due: client.DueJoin, member: "", gen: -1}},
		{"heartbeat UNKNOWN_MEMBER_ID for another id: ignored", "stable", "",
			func(c *client.Classic) client.Reaction {
				return c.OnHeartbeat(hb(5, "m0"), &codec.HeartbeatResponse{ErrorCode: codec.UnknownMemberID})
			},
			want{state: client.ClassicStable, member: "m1", gen: 5}},
		{"heartbeat FENCED_INSTANCE_ID of the generation: fatal", "stable", "i1",
			func(c *client.Classic) client.Reaction {
				return c.OnHeartbeat(hb(5, "m1"), &codec.HeartbeatResponse{ErrorCode: codec.FencedInstanceID})
			},
			want{state: client.ClassicFatal, member: "m1", gen: 5, fatal: codec.FencedInstanceID}},
		{"heartbeat FENCED_INSTANCE_ID of an older generation: ignored", "stable", "i1",
			func(c *client.Classic) client.Reaction {
				return c.OnHeartbeat(hb(4, "m1"), &codec.HeartbeatResponse{ErrorCode: codec.FencedInstanceID})
			},
			want{state: client.ClassicStable, member: "m1", gen: 5}},
		{"heartbeat NOT_COORDINATOR: heartbeats go on a new connection", "stable", "",
			func(c *client.Classic) client.Reaction {
				return c.OnHeartbeat(hb(5, "m1"), &codec.HeartbeatResponse{ErrorCode: codec.NotCoordinator})
			},
			want{state: client.ClassicStable, member: "m1", gen: 5, reaction: client.Reconnect}},
		{"heartbeat lost: a new connection", "stable", "",
			func(c *client.Classic) client.Reaction { return c.OnHeartbeatLost() },
			want{state: client.ClassicStable, member: "m1", gen: 5, reaction: client.Reconnect}},
		// Late answers change nothing, but a fence.
		{"a JoinGroup answer while stable: ignored", "stable", "",
			func(c *client.Classic) client.Reaction { return c.OnJoinGroup(joinError(codec.UnknownMemberID, "m1")) },
			want{state: client.ClassicStable, member: "m1", gen: 5}},
		{"a Heartbeat's FENCED_INSTANCE_ID at its generation while it rejoins: fatal", "joining", "i1",
			func(c *client.Classic) client.Reaction {
				return c.OnHeartbeat(hb(4, "m1"), &codec.HeartbeatResponse{ErrorCode: codec.FencedInstanceID})
			},
			want{state: client.ClassicFatal, member: "m1", gen: 4, fatal: codec.FencedInstanceID}},
		{"a SyncGroup's FENCED_INSTANCE_ID after it rejoined: fatal all the same", "joining", "i1",
			func(c *client.Classic) client.Reaction {
				return c.OnSyncGroup(&codec.SyncGroupResponse{ErrorCode: codec.FencedInstanceID})
			},
			want{state: client.ClassicFatal, member: "m1", gen: 4, fatal: codec.FencedInstanceID}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := classicAt(t, c.from, c.instance)
			re := c.answer(cl)
			got := want{state: cl.State(), due: cl.Due(), member: cl.MemberID(), gen: cl.Generation(), reaction: re, fatal: cl.Fatal()}
			if got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
			if cl.Heartbeating() != (got.state == client.ClassicSyncing || got.state == client.ClassicStable) {
				t.Errorf("heartbeating %v in state %v: only between a JoinGroup's success and the next rejoin", cl.Heartbeating(), got.state)
			}
			if got.state == client.ClassicJoining {
				if len(cl.Assigned()) > 0 {
					t.Errorf("rejoining with an assignment %v: eager rebalancing gives it up first", cl.Assigned())
				}
				if r, _ := cl.JoinGroup(); r == nil || r.MemberId != got.member {
					t.Errorf("the rejoin: %v, want a JoinGroup naming %q", r, got.member)
				}
			}
			if got.state == client.ClassicFatal {
				if r, _ := cl.JoinGroup(); r != nil {
					t.Errorf("a fatal consumer built a JoinGroup %v", r)
				}
			}
		})
	}
}

// The answer to a request the consumer gave up when it left still reaches
// it (OnAbandoned): a KIP-394 member id is kept for the next join, a fence
// ends the consumer, anything else changes nothing.
func TestClassicAbandonedAnswers(t *testing.T) {
	for _, c := range []struct {
		name     string
		instance string
		answer   codec.Message
		state    client.ClassicState
		member   string // the next JoinGroup's MemberId, when it may join
	}{
		{"MEMBER_ID_REQUIRED: the next join carries the id", "", joinError(codec.MemberIDRequired, "m9"), client.ClassicUnjoined, "m9"},
		{"JoinGroup UNKNOWN_MEMBER_ID: nothing", "", joinError(codec.UnknownMemberID, "m1"), client.ClassicUnjoined, ""},
		{"SyncGroup FENCED_INSTANCE_ID: fatal", "i1", &codec.SyncGroupResponse{ErrorCode: codec.FencedInstanceID}, client.ClassicFatal, ""},
		{"Heartbeat FENCED_INSTANCE_ID: fatal", "i1", &codec.HeartbeatResponse{ErrorCode: codec.FencedInstanceID}, client.ClassicFatal, ""},
		{"Heartbeat REBALANCE_IN_PROGRESS: nothing", "i1", &codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress}, client.ClassicUnjoined, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newClassic(t, client.ClassicConfig{Topics: []string{"a"}, InstanceID: c.instance})
			cl.OnApiVersions(broker(9, 5, 4, 5))
			cl.Start()
			cl.JoinGroup()
			cl.Leave()
			cl.OnAbandoned(c.answer)
			if cl.State() != c.state {
				t.Fatalf("state %v, want %v", cl.State(), c.state)
			}
			cl.Start()
			r, _ := cl.JoinGroup()
			switch {
			case c.state == client.ClassicFatal && r != nil:
				t.Errorf("a fenced consumer joins again: %+v", r)
			case c.state != client.ClassicFatal && (r == nil || r.MemberId != c.member):
				t.Errorf("the next join: %+v, want MemberId %q", r, c.member)
			}
		})
	}
}

// The leader assigns with A5.2's uniform assignor over its JoinGroup
// answer's Members, static members keyed by instance id, and sends one
// assignment per member; a follower, or a leader told SkipAssignment,
// sends none.
func TestClassicLeaderAssigns(t *testing.T) {
	c := newClassic(t, client.ClassicConfig{Topics: []string{"a", "b"}})
	c.OnApiVersions(broker(9, 5, 4, 5))
	c.Start()
	c.JoinGroup()
	resp := joined(1, "m2", "m2")
	resp.Members = []codec.JoinGroupResponseMember{
		{MemberId: "m2", Metadata: subscriptionBytes(t, -1, "a", "b")},
		// Keyed by its instance id "a-inst", below "m2": first.
		{MemberId: "z9", GroupInstanceId: codec.Str("a-inst"), Metadata: subscriptionBytes(t, -1, "a")},
		{MemberId: "m3", Metadata: subscriptionBytes(t, -1, "b", "c", "unknown")},
		{MemberId: "m4", Metadata: []byte{0xff}}, // not a subscription: nothing
	}
	c.OnJoinGroup(resp)
	r, _ := c.SyncGroup()
	// a (3 partitions): subscribers by key a-inst, m2: p0 → a-inst, p1 → m2, p2 → a-inst; offset 3.
	// b (2): m2, m3: p0 → (3+0)%2 = m3, p1 → m2; offset 5.
	// c (1): m3: p0 → m3. "unknown" has no partitions here: skipped.
	want := []codec.SyncGroupRequestAssignment{
		{MemberId: "m2", Assignment: assignmentBytes(t, tp("a", 1), tp("b", 1))},
		{MemberId: "z9", Assignment: assignmentBytes(t, tp("a", 0, 2))},
		{MemberId: "m3", Assignment: assignmentBytes(t, tp("b", 0), tp("c", 0))},
		{MemberId: "m4", Assignment: assignmentBytes(t)},
	}
	wantReq := &codec.SyncGroupRequest{GroupId: group1, GenerationId: 1, MemberId: "m2", GroupInstanceId: codec.Null,
		ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("uniform"), Assignments: want}
	if d := codectest.WireDiff(5, r, wantReq); d != "" {
		t.Errorf("the leader's SyncGroup:\n%s", d)
	}

	for _, follower := range []bool{true, false} {
		c := newClassic(t, client.ClassicConfig{Topics: []string{"a"}})
		c.Start()
		c.JoinGroup()
		resp := joined(1, "m2", "m1")
		if !follower {
			resp = joined(1, "m2", "m2")
			resp.SkipAssignment = true
			resp.Members = []codec.JoinGroupResponseMember{{MemberId: "m2", Metadata: subscriptionBytes(t, -1, "a")}}
		}
		c.OnJoinGroup(resp)
		if r, _ := c.SyncGroup(); r == nil || len(r.Assignments) != 0 {
			t.Errorf("follower %v: SyncGroup %+v, want one with no assignments", follower, r)
		}
	}
}

// A stable consumer holds the assignment the SyncGroup brought, each
// topic once and in order.
func TestClassicAssigned(t *testing.T) {
	c := classicAt(t, "syncing", "")
	c.OnSyncGroup(&codec.SyncGroupResponse{Assignment: assignmentBytes(t, tp("a", 2, 0), tp("a", 1))})
	got := c.Assigned()
	if len(got) != 1 || got[0].Topic != "a" || !slices.Equal(got[0].Partitions, []int32{0, 1, 2}) {
		t.Errorf("Assigned %+v, want a-0, a-1, a-2", got)
	}
	c.OnHeartbeat(&codec.HeartbeatRequest{GenerationId: 5, MemberId: "m1"}, &codec.HeartbeatResponse{ErrorCode: codec.RebalanceInProgress})
	if len(c.Assigned()) != 0 {
		t.Errorf("after a rebalance began: Assigned %+v; eager, it gives everything up", c.Assigned())
	}
}

// Leaving: a dynamic member with an id sends one LeaveGroup naming it (no
// instance id; below v3 the single form), a static member sends none;
// both forget their id and generation. Nothing is sent by a consumer that
// is not in its group.
func TestClassicLeave(t *testing.T) {
	for _, c := range []struct {
		name     string
		instance string
		from     string
		leaveMax int16
		close    bool
		want     *codec.LeaveGroupRequest
		wantV    int16
	}{
		{name: "dynamic, stable, v5", from: "stable", leaveMax: 5, close: true, wantV: 5,
			want: &codec.LeaveGroupRequest{GroupId: group1, Members: []codec.LeaveGroupMember{{MemberId: "m1", GroupInstanceId: codec.Null, Reason: codec.Str("the consumer is being closed")}}}},
		{name: "dynamic, joining, v3", from: "joining", leaveMax: 3, wantV: 3,
			want: &codec.LeaveGroupRequest{GroupId: group1, Members: []codec.LeaveGroupMember{{MemberId: "m1", GroupInstanceId: codec.Null}}}},
		{name: "dynamic, syncing, a broker before batches", from: "syncing", leaveMax: 2, close: true, wantV: 2,
			want: &codec.LeaveGroupRequest{GroupId: group1, MemberId: "m1"}},
		{name: "static, stable: nothing", instance: "i1", from: "stable", leaveMax: 5, close: true},
		{name: "static, syncing: nothing", instance: "i1", from: "syncing", leaveMax: 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := classicAt(t, c.from, c.instance)
			cl.OnApiVersions(broker(9, 5, 4, c.leaveMax))
			var r *codec.LeaveGroupRequest
			var v int16
			if c.close {
				r, v = cl.Close()
			} else {
				r, v = cl.Leave()
			}
			switch {
			case c.want == nil && r != nil:
				t.Fatalf("a static member sent %+v", r)
			case c.want != nil && r == nil:
				t.Fatal("no LeaveGroup")
			case c.want != nil:
				if v != c.wantV {
					t.Errorf("LeaveGroup v%d, want v%d", v, c.wantV)
				}
				if d := codectest.WireDiff(v, r, c.want); d != "" {
					t.Errorf("LeaveGroup:\n%s", d)
				}
			}
			wantState := client.ClassicUnjoined
			if c.close {
				wantState = client.ClassicClosed
			}
			if cl.MemberID() != "" || cl.Generation() != -1 || cl.State() != wantState || cl.Heartbeating() {
				t.Errorf("after leaving: member %q generation %d state %v; want no id, generation -1, %v", cl.MemberID(), cl.Generation(), cl.State(), wantState)
			}
			if r, _ := cl.Leave(); r != nil {
				t.Errorf("leaving again sent %+v", r)
			}
		})
	}
	u := newClassic(t, client.ClassicConfig{Topics: []string{"a"}})
	if r, _ := u.Close(); r != nil {
		t.Errorf("an unjoined consumer sent %+v on close", r)
	}
}

// A static member's restart: the process closes (no LeaveGroup) and the
// next process joins with MemberId "" and the same instance id.
func TestClassicStaticRestart(t *testing.T) {
	old := classicAt(t, "stable", "i1")
	if r, _ := old.Close(); r != nil {
		t.Fatalf("the static member sent %+v on close", r)
	}
	next := newClassic(t, client.ClassicConfig{Topics: []string{"a"}, InstanceID: "i1"})
	next.OnApiVersions(broker(9, 5, 4, 5))
	next.Start()
	r, _ := next.JoinGroup()
	if r.MemberId != "" || r.GroupInstanceId != codec.Str("i1") {
		t.Errorf("the restarted process joins %+v, want MemberId \"\" and instance i1", r)
	}
}

func TestNewClassicRefuses(t *testing.T) {
	for _, cfg := range []client.ClassicConfig{
		{GroupID: "g", JoinGroupMaxVersion: 10},
		{GroupID: "g", JoinGroupMaxVersion: -1},
		{JoinGroupMaxVersion: 9},
	} {
		if _, err := client.NewClassic(cfg); err == nil {
			t.Errorf("NewClassic(%+v): no error", cfg)
		}
	}
}
