package impl_test

import (
	"errors"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
)

// The joins across the group kinds (docs/PROTOCOL.md A6.4) outside mixed
// groups (the rig's coordinator runs under the `outside` policy): a join
// of one protocol to a group of the other with members is refused, the
// connection closed without an answer; to one with no member it replaces
// the group. Each behaviour has a row with the mutant that breaks it
// planted: the rule, request by request, beside the equivalence
// property's random mixed sequences.
func TestJoinsAcrossGroupKinds(t *testing.T) {
	const refused = "refused"
	consumerJoin := func(r *classicRig, id string) (string, codec.Message) {
		return r.send2(1, &codec.ConsumerGroupHeartbeatRequest{GroupId: rigGroup, MemberId: id, RebalanceTimeoutMs: 60000,
			SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}})
	}
	classicJoin := func(r *classicRig, v int16) (string, codec.Message) {
		return r.send2(v, &codec.JoinGroupRequest{GroupId: rigGroup, SessionTimeoutMs: rigSessionMs, RebalanceTimeoutMs: rigDelayMs,
			ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "uniform", Metadata: []byte("a")}}})
	}
	consumerMember := func(r *classicRig) {
		if code, _ := consumerJoin(r, "consumer-member-1"); code != codec.None.String() {
			r.t.Fatalf("setup: the consumer-protocol join: %s", code)
		}
	}
	for _, c := range []struct {
		name  string
		mut   impl.Mutant
		setup func(*classicRig)
		// last is the request whose answer the row checks.
		last func(*classicRig) (string, codec.Message)
		want string // with no mutant
		bug  string // with mut planted
	}{
		{"JoinGroup to a consumer group with members", impl.MutJoinMixedAnswered, consumerMember,
			func(r *classicRig) (string, codec.Message) { return classicJoin(r, 9) }, refused, codec.InconsistentGroupProtocol.String()},
		{"JoinGroup to an Empty consumer group", impl.MutEmptyConsumerGroupKept,
			func(r *classicRig) {
				consumerMember(r)
				if code, _ := r.send2(1, &codec.ConsumerGroupHeartbeatRequest{GroupId: rigGroup, MemberId: "consumer-member-1", MemberEpoch: -1, RebalanceTimeoutMs: -1}); code != codec.None.String() {
					r.t.Fatalf("setup: the leave: %s", code)
				}
			},
			func(r *classicRig) (string, codec.Message) { return classicJoin(r, 9) }, codec.MemberIDRequired.String(), codec.InconsistentGroupProtocol.String()},
		{"ConsumerGroupHeartbeat join to a classic group with members", impl.MutUpgradeRefusedAnswered,
			func(r *classicRig) { classicJoin(r, 3) }, // added at once (below KIP-394), waiting in the join phase
			func(r *classicRig) (string, codec.Message) { return consumerJoin(r, "consumer-member-1") }, refused, codec.GroupIDNotFound.String()},
		{"ConsumerGroupHeartbeat join to an Empty classic group", impl.MutEmptyClassicGroupKept,
			func(r *classicRig) {
				if code, _ := classicJoin(r, 9); code != codec.MemberIDRequired.String() {
					r.t.Fatalf("setup: the classic join: %s", code)
				}
			},
			func(r *classicRig) (string, codec.Message) { return consumerJoin(r, "consumer-member-1") }, codec.None.String(), codec.GroupIDNotFound.String()},
	} {
		for _, planted := range []bool{false, true} {
			name, mut, want := c.name, impl.Mutants{}, c.want
			if planted {
				name, mut, want = c.name+"/"+c.mut.String(), mut.With(c.mut), c.bug
			}
			t.Run(name, func(t *testing.T) {
				r := newClassicRig(t, mut)
				c.setup(r)
				if got, resp := c.last(r); got != want {
					t.Errorf("answer %s (%+v), want %s", got, resp, want)
				}
			})
		}
	}
}

// send2 delivers req at version v and returns its answer's error code by
// name ("refused" when the coordinator closes the connection without an
// answer, "held" while it waits) and the answer.
func (r *classicRig) send2(v int16, req codec.Message) (string, codec.Message) {
	r.t.Helper()
	r.delivery++
	d := r.delivery
	h := &codec.RequestHeader{RequestApiKey: req.Key(), RequestApiVersion: v, CorrelationId: int32(d), ClientId: codec.Str("c")}
	resp, err := r.c.Handle(impl.Conn{ID: d, Host: "/10.0.0.1", Delivery: d}, h, req)
	switch {
	case errors.Is(err, impl.ErrUnsupportedRequest):
		return "refused", nil
	case errors.Is(err, impl.ErrParked):
		return "held", nil
	case err != nil:
		r.t.Fatalf("delivery %d (%T): %v", d, req, err)
	}
	r.collect()
	switch a := resp.(type) {
	case *codec.JoinGroupResponse:
		return a.ErrorCode.String(), a
	case *codec.ConsumerGroupHeartbeatResponse:
		return a.ErrorCode.String(), a
	}
	r.t.Fatalf("delivery %d: answer %T", d, resp)
	return "", nil
}
