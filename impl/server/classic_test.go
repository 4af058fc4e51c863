package server_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/wire"
)

// classicCoordinator serves classic groups with short timeouts: a 50 ms
// initial rebalance delay.
func classicCoordinator() *impl.Coordinator {
	return impl.New(impl.Config{
		Topics:                     []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}},
		SessionTimeoutMs:           60000,
		HeartbeatIntervalMs:        100,
		ClassicMinSessionTimeoutMs: 1000,
		ClassicMaxSessionTimeoutMs: 600000,
		InitialRebalanceDelayMs:    50,
		NewMemberJoinTimeoutMs:     300000,
	})
}

func classicJoin(group, member string) *codec.JoinGroupRequest {
	return &codec.JoinGroupRequest{GroupId: group, SessionTimeoutMs: 30000, RebalanceTimeoutMs: 10000, MemberId: member,
		ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{1}}}}
}

// A held JoinGroup or SyncGroup holds its connection until its answer
// comes (docs/PROTOCOL.md B8.5): two clients join a classic group over
// TCP, their JoinGroups wait out the first rebalance's delay and are
// answered together; the follower's SyncGroup waits for the leader's.
func TestClassicGroupOverTCP(t *testing.T) {
	h := startWith(t, classicCoordinator(), nil)
	a, b := h.dial(), h.dial()
	ids := map[*client]string{}
	for _, c := range []*client{a, b} {
		r := c.do(codec.JoinGroup, 9, classicJoin("cg", "")).(*codec.JoinGroupResponse)
		if r.ErrorCode != codec.MemberIDRequired || r.MemberId == "" {
			t.Fatalf("first join: %+v", r)
		}
		ids[c] = r.MemberId
	}
	answers := make(chan *codec.JoinGroupResponse, 2)
	start := time.Now()
	for _, c := range []*client{a, b} {
		go func(c *client) {
			resp, err := c.w.RoundTrip(c.header(codec.JoinGroup, 9), classicJoin("cg", ids[c]))
			if err != nil {
				t.Error(err)
				answers <- nil
				return
			}
			answers <- resp.(*codec.JoinGroupResponse)
		}(c)
	}
	leader := ""
	for i := 0; i < 2; i++ {
		r := <-answers
		if r == nil || r.ErrorCode != codec.None || r.GenerationId != 1 {
			t.Fatalf("held join answered %+v", r)
		}
		leader = r.Leader
	}
	if time.Since(start) < 40*time.Millisecond {
		t.Fatalf("the joins were answered after %v, before the 50 ms initial delay", time.Since(start))
	}
	lc, fc := a, b
	if ids[b] == leader {
		lc, fc = b, a
	}
	synced := make(chan *codec.SyncGroupResponse, 1)
	go func() {
		resp, err := fc.w.RoundTrip(fc.header(codec.SyncGroup, 5), &codec.SyncGroupRequest{GroupId: "cg", GenerationId: 1, MemberId: ids[fc],
			ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("range")})
		if err != nil {
			t.Error(err)
			synced <- nil
			return
		}
		synced <- resp.(*codec.SyncGroupResponse)
	}()
	select {
	case r := <-synced:
		t.Fatalf("the follower's SyncGroup was answered before the leader's: %+v", r)
	case <-time.After(50 * time.Millisecond):
	}
	lr := lc.do(codec.SyncGroup, 5, &codec.SyncGroupRequest{GroupId: "cg", GenerationId: 1, MemberId: ids[lc],
		ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("range"),
		Assignments: []codec.SyncGroupRequestAssignment{{MemberId: ids[fc], Assignment: []byte{7}}}}).(*codec.SyncGroupResponse)
	if lr.ErrorCode != codec.None {
		t.Fatalf("the leader's SyncGroup: %+v", lr)
	}
	if r := <-synced; r == nil || r.ErrorCode != codec.None || string(r.Assignment) != "\x07" {
		t.Fatalf("the follower's SyncGroup: %+v", r)
	}
	hb := fc.do(codec.Heartbeat, 4, &codec.HeartbeatRequest{GroupId: "cg", GenerationId: 1, MemberId: ids[fc]}).(*codec.HeartbeatResponse)
	if hb.ErrorCode != codec.None {
		t.Fatalf("heartbeat: %+v", hb)
	}
}

// A connection whose JoinGroup is held when the server shuts down is
// closed (there is no answer to give), and the shutdown does not wait for
// the answer.
func TestHeldRequestAtShutdown(t *testing.T) {
	coord := impl.New(impl.Config{SessionTimeoutMs: 60000, ClassicMinSessionTimeoutMs: 1000, ClassicMaxSessionTimeoutMs: 600000,
		InitialRebalanceDelayMs: 60000, NewMemberJoinTimeoutMs: 300000})
	h := startWith(t, coord, nil)
	c := h.dial()
	done := make(chan error, 1)
	go func() {
		// v3: a member at once, its JoinGroup held for the first
		// rebalance's delay.
		_, err := c.w.RoundTrip(c.header(codec.JoinGroup, 3), classicJoinWaiting())
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with a held request: %v", err)
	}
	if err := <-done; !errors.Is(err, wire.ErrConnClosed) {
		t.Fatalf("the held JoinGroup got %v, want the connection closed", err)
	}
}

// classicJoinWaiting is a first join at v3 (to a group whose first
// rebalance waits a minute).
func classicJoinWaiting() *codec.JoinGroupRequest {
	r := classicJoin("slow", "")
	r.RebalanceTimeoutMs = 120000
	return r
}
