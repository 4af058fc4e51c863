package impl_test

import (
	"errors"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
)

// classicRig drives impl's classic groups request by request, each
// request on a connection of its own (so none waits behind another), and
// reads the answers a held request gets later from Released.
type classicRig struct {
	t        *testing.T
	c        *impl.Coordinator
	clock    *impl.ManualClock
	delivery uint64
	answers  map[uint64]codec.Message
}

// The rig's group: an initial rebalance delay equal to every member's
// rebalance timeout, so the first join phase completes when the delay
// fires, with every member that joined by then.
const (
	rigGroup     = "g"
	rigDelayMs   = 3000
	rigSessionMs = 10000
)

func newClassicRig(t *testing.T, mut impl.Mutants) *classicRig {
	t.Helper()
	clock := impl.NewManualClock(0)
	c := impl.New(impl.Config{SessionTimeoutMs: 45000, HeartbeatIntervalMs: 5000, NewID: model.SeededIDs(1), Clock: clock,
		ClassicMinSessionTimeoutMs: 1000, ClassicMaxSessionTimeoutMs: 600000, InitialRebalanceDelayMs: rigDelayMs,
		NewMemberJoinTimeoutMs: 300000, Mutants: mut})
	return &classicRig{t: t, c: c, clock: clock, answers: map[uint64]codec.Message{}}
}

// send delivers req at version v and returns its delivery number and its
// answer (nil while it waits).
func (r *classicRig) send(v int16, req codec.Message) (uint64, codec.Message) {
	r.t.Helper()
	r.delivery++
	d := r.delivery
	h := &codec.RequestHeader{RequestApiKey: req.Key(), RequestApiVersion: v, CorrelationId: int32(d), ClientId: codec.Str("c")}
	resp, err := r.c.Handle(impl.Conn{ID: d, Host: "/10.0.0.1", Delivery: d}, h, req)
	switch {
	case errors.Is(err, impl.ErrParked):
		return d, nil
	case err != nil:
		r.t.Fatalf("delivery %d (%T): %v", d, req, err)
	}
	r.collect()
	return d, resp
}

// advance moves the clock by ms and fires the timers due.
func (r *classicRig) advance(ms int64) {
	r.clock.Advance(ms)
	r.c.Expire()
	r.collect()
}

func (r *classicRig) collect() {
	for _, rel := range r.c.Released() {
		if !rel.Dropped {
			r.answers[rel.Delivery] = rel.Response
		}
	}
}

func (r *classicRig) join(v int16, memberID string, instance codec.NullableString, metadata string) (uint64, codec.Message) {
	r.t.Helper()
	return r.send(v, &codec.JoinGroupRequest{GroupId: rigGroup, SessionTimeoutMs: rigSessionMs, RebalanceTimeoutMs: rigDelayMs,
		MemberId: memberID, GroupInstanceId: instance, ProtocolType: "consumer",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte(metadata)}}})
}

// joined is the answer a join phase gave delivery d.
func (r *classicRig) joined(d uint64) *codec.JoinGroupResponse {
	r.t.Helper()
	j, ok := r.answers[d].(*codec.JoinGroupResponse)
	if !ok || j.ErrorCode != codec.None {
		r.t.Fatalf("setup: join %d answered %+v", d, r.answers[d])
	}
	return j
}

func (r *classicRig) sync(memberID string, instance codec.NullableString, generation int32, assign ...string) codec.Message {
	r.t.Helper()
	req := &codec.SyncGroupRequest{GroupId: rigGroup, GenerationId: generation, MemberId: memberID, GroupInstanceId: instance}
	for _, id := range assign {
		req.Assignments = append(req.Assignments, codec.SyncGroupRequestAssignment{MemberId: id, Assignment: []byte(id)})
	}
	_, resp := r.send(3, req)
	return resp
}

func (r *classicRig) heartbeat(memberID string, instance codec.NullableString, generation int32) codec.ErrorCode {
	r.t.Helper()
	_, resp := r.send(3, &codec.HeartbeatRequest{GroupId: rigGroup, GenerationId: generation, MemberId: memberID, GroupInstanceId: instance})
	return resp.(*codec.HeartbeatResponse).ErrorCode
}

// B8.6/stable-follower-changed: a follower rejoining a Stable group with
// its protocol's metadata changed (a new subscription) starts a
// rebalance, its join held; protocols-compared-by-name answers it the
// current generation at once. The equivalence property's clients never
// change a protocol's metadata, so it pins the rule here.
func TestClassicFollowerMetadataChangeRebalances(t *testing.T) {
	for _, c := range []struct {
		name string
		mut  impl.Mutants
		held bool
	}{
		{"the rejoin is held for a rebalance", impl.Mutants{}, true},
		{"protocols-compared-by-name answers it at once", impl.Mutants{}.With(impl.MutProtocolsComparedByName), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newClassicRig(t, c.mut)
			d1, _ := r.join(3, "", codec.Null, "a")
			d2, _ := r.join(3, "", codec.Null, "a")
			r.advance(rigDelayMs)
			j1, j2 := r.joined(d1), r.joined(d2)
			leader, follower := j1, j2
			if j2.MemberId == j1.Leader {
				leader, follower = j2, j1
			}
			r.sync(leader.MemberId, codec.Null, leader.GenerationId, leader.MemberId, follower.MemberId)
			r.sync(follower.MemberId, codec.Null, follower.GenerationId)
			_, resp := r.join(3, follower.MemberId, codec.Null, "b")
			if held := resp == nil; held != c.held {
				t.Fatalf("the follower's rejoin with new metadata: held %v (answer %+v), want held %v", held, resp, c.held)
			}
		})
	}
}

// B8.10/sync-expired-replaced-id: a static member replaced (A6.2) before
// it synced is still awaited by the sync phase, so when the sync timer
// fires with only its old id not synced the group rebalances (no one
// removed); replaced-id-not-awaited forgets the old id and the group
// stays Stable. The equivalence property rarely restarts a static member
// between a join phase and its sync, so it pins the rule here.
func TestClassicSyncTimerAwaitsReplacedID(t *testing.T) {
	for _, c := range []struct {
		name string
		mut  impl.Mutants
		want codec.ErrorCode // the leader's Heartbeat after the sync timer
	}{
		{"the sync timer rebalances", impl.Mutants{}, codec.RebalanceInProgress},
		{"replaced-id-not-awaited stays Stable", impl.Mutants{}.With(impl.MutReplacedIDNotAwaited), codec.None},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newClassicRig(t, c.mut)
			i1, i2 := codec.Str("i1"), codec.Str("i2")
			d1, _ := r.join(5, "", i1, "a")
			d2, _ := r.join(5, "", i2, "a")
			r.advance(rigDelayMs)
			j1, j2 := r.joined(d1), r.joined(d2)
			if j1.Leader != j1.MemberId {
				t.Fatalf("setup: leader %s, want i1's %s", j1.Leader, j1.MemberId)
			}
			r.sync(j1.MemberId, i1, j1.GenerationId, j1.MemberId, j2.MemberId)
			// i2 restarts before it synced: replaced in Stable, no rebalance.
			if _, resp := r.join(5, "", i2, "a"); resp == nil || resp.(*codec.JoinGroupResponse).ErrorCode != codec.None {
				t.Fatalf("setup: the replacement answered %+v, want NONE at once", resp)
			}
			r.advance(rigDelayMs) // the sync timer: the group's rebalance timeout after completion
			if got := r.heartbeat(j1.MemberId, i1, j1.GenerationId); got != c.want {
				t.Fatalf("the leader's Heartbeat after the sync timer: %v, want %v", got, c.want)
			}
		})
	}
}

// TestClassicRequestToConsumerMember: a classic Heartbeat or SyncGroup to
// a consumer group naming one of its consumer-protocol members, at that
// member's epoch, is UNKNOWN_MEMBER_ID (docs/PROTOCOL.md A6.4): the member
// is not a classic one, whatever its generation. The mutant row shows
// consumer-member-illegal-generation, which the equivalence property's
// single-protocol groups never reach.
func TestClassicRequestToConsumerMember(t *testing.T) {
	for _, c := range []struct {
		name string
		mut  impl.Mutants
		want codec.ErrorCode
	}{
		{"not a classic member", impl.Mutants{}, codec.UnknownMemberID},
		{"consumer-member-illegal-generation", impl.Mutants{}.With(impl.MutConsumerMemberIllegalGeneration), codec.IllegalGeneration},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newClassicRig(t, c.mut)
			const id = "consumer-member-0000001"
			_, resp := r.send(1, &codec.ConsumerGroupHeartbeatRequest{GroupId: rigGroup, MemberId: id, RebalanceTimeoutMs: 60000,
				SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}})
			hb, ok := resp.(*codec.ConsumerGroupHeartbeatResponse)
			if !ok || hb.ErrorCode != codec.None || hb.MemberEpoch <= 0 {
				t.Fatalf("setup: the consumer-protocol join answered %+v", resp)
			}
			if got := r.heartbeat(id, codec.Null, hb.MemberEpoch); got != c.want {
				t.Errorf("classic Heartbeat naming the consumer-protocol member: %v, want %v", got, c.want)
			}
			if got := r.sync(id, codec.Null, hb.MemberEpoch); got == nil || got.(*codec.SyncGroupResponse).ErrorCode != c.want {
				t.Errorf("classic SyncGroup naming the consumer-protocol member: %+v, want %v", got, c.want)
			}
		})
	}
}
