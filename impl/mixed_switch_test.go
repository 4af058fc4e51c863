package impl_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
)

// A7.3/classic-member-switches: a classic member of a consumer group that
// sends ConsumerGroupHeartbeat under its own member id is a member of the
// consumer protocol from then on, so a classic Heartbeat or SyncGroup
// naming it is UNKNOWN_MEMBER_ID (A6.4), whatever its generation. The
// equivalence property's processes switch under a new member id, never in
// place, so it pins the rule here with switch-keeps-classic-state planted.
func TestClassicMemberSwitchesByItsOwnID(t *testing.T) {
	for _, c := range []struct {
		name string
		mut  impl.Mutants
		// switched: the classic Heartbeat and SyncGroup after the switch
		// are UNKNOWN_MEMBER_ID (the member's protocol is the consumer
		// protocol's).
		switched bool
	}{
		{"switches", impl.Mutants{}, true},
		{"switch-keeps-classic-state", impl.Mutants{}.With(impl.MutSwitchKeepsClassicState), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			co := impl.New(impl.Config{SessionTimeoutMs: 45000, HeartbeatIntervalMs: 5000, NewID: model.SeededIDs(1), Clock: impl.NewManualClock(0),
				ClassicMinSessionTimeoutMs: 1000, ClassicMaxSessionTimeoutMs: 600000, NewMemberJoinTimeoutMs: 300000,
				MigrationPolicy: impl.MigrationBidirectional, Topics: []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 4}},
				Mutants: c.mut})
			delivery := uint64(0)
			send := func(v int16, req codec.Message) codec.Message {
				t.Helper()
				delivery++
				h := &codec.RequestHeader{RequestApiKey: req.Key(), RequestApiVersion: v, CorrelationId: int32(delivery), ClientId: codec.Str("c")}
				resp, err := co.Handle(impl.Conn{ID: delivery, Host: "/10.0.0.1", Delivery: delivery}, h, req)
				if err != nil {
					t.Fatalf("delivery %d (%T): %v", delivery, req, err)
				}
				return resp
			}
			join := func(id string) *codec.ConsumerGroupHeartbeatResponse {
				t.Helper()
				resp := send(1, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: id, RebalanceTimeoutMs: 60000,
					SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}).(*codec.ConsumerGroupHeartbeatResponse)
				if resp.ErrorCode != codec.None {
					t.Fatalf("setup: the ConsumerGroupHeartbeat join of %s answered %+v", id, resp)
				}
				return resp
			}
			join("consumer-member-0000001")
			const id = "classic-member-0000002"
			sub := codec.ConsumerProtocolSubscription{Topics: []string{"alpha"}, OwnedPartitions: []codec.ConsumerProtocolTopicPartitions{}}
			meta, _ := sub.AppendTo(nil, 1)
			j := send(9, &codec.JoinGroupRequest{GroupId: "g", MemberId: id, SessionTimeoutMs: 10000, RebalanceTimeoutMs: 10000, ProtocolType: "consumer",
				Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: meta}}}).(*codec.JoinGroupResponse)
			if j.ErrorCode != codec.None {
				t.Fatalf("setup: the classic join answered %+v", j)
			}
			hb := join(id)
			for _, req := range []struct {
				v int16
				m codec.Message
			}{
				{4, &codec.HeartbeatRequest{GroupId: "g", GenerationId: hb.MemberEpoch, MemberId: id}},
				{5, &codec.SyncGroupRequest{GroupId: "g", GenerationId: hb.MemberEpoch, MemberId: id, ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("range")}},
			} {
				var code codec.ErrorCode
				switch r := send(req.v, req.m).(type) {
				case *codec.HeartbeatResponse:
					code = r.ErrorCode
				case *codec.SyncGroupResponse:
					code = r.ErrorCode
				}
				if got := code == codec.UnknownMemberID; got != c.switched {
					t.Errorf("%T under the switched member's id: %v; want UNKNOWN_MEMBER_ID %v", req.m, code, c.switched)
				}
			}
		})
	}
}
