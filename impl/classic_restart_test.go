package impl_test

import (
	"errors"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
)

// B8.14 with B8.5, as model's TestClassicRestartDropsWhatWaitedBehind: a
// restart closes every connection, so a request held unread behind a
// waiting JoinGroup is dropped, not served after the restart answers the
// JoinGroup NOT_COORDINATOR.
func TestClassicRestartDropsWhatWaitedBehind(t *testing.T) {
	clock := impl.NewManualClock(0)
	c := impl.New(impl.Config{SessionTimeoutMs: 45000, HeartbeatIntervalMs: 5000, NewID: model.SeededIDs(1), Clock: clock,
		ClassicMinSessionTimeoutMs: 1000, ClassicMaxSessionTimeoutMs: 600000, InitialRebalanceDelayMs: 3000, NewMemberJoinTimeoutMs: 300000})
	send := func(delivery uint64, req codec.Message) (codec.Message, error) {
		h := &codec.RequestHeader{RequestApiKey: req.Key(), RequestApiVersion: 3, CorrelationId: int32(delivery), ClientId: codec.Str("c")}
		return c.Handle(impl.Conn{ID: 1, Host: "/10.0.0.1", Delivery: delivery}, h, req)
	}
	join := &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 20000, ProtocolType: "consumer",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte("range")}}}
	if _, err := send(1, join); !errors.Is(err, impl.ErrParked) {
		t.Fatalf("the first join of a new group: %v, want it held for the initial rebalance", err)
	}
	if _, err := send(2, &codec.HeartbeatRequest{GroupId: "g", GenerationId: 0, MemberId: "x"}); !errors.Is(err, impl.ErrParked) {
		t.Fatalf("a heartbeat behind the held join: %v, want it held", err)
	}
	c.Restart()
	got := map[uint64]impl.Release{}
	for _, r := range c.Released() {
		got[r.Delivery] = r
	}
	if j, ok := got[1].Response.(*codec.JoinGroupResponse); !ok || j.ErrorCode != codec.NotCoordinator {
		t.Fatalf("the waiting join after the restart: %+v", got[1])
	}
	if r, ok := got[2]; !ok || !r.Dropped {
		t.Fatalf("the heartbeat held on a connection the restart closed: %+v (released: %v)", r, ok)
	}
	if resp, err := send(3, &codec.HeartbeatRequest{GroupId: "g", GenerationId: 0, MemberId: "x"}); err != nil || resp == nil {
		t.Fatalf("a request on the connection after the restart: %v %v, want it served", resp, err)
	}
}
