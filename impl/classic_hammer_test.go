package impl_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// classicOp is one pre-drawn operation of a classic hammering goroutine.
type classicOp struct {
	kind   int // 0-2 join, 3-4 sync, 5-7 heartbeat, 8 leave, 9 describe, 10 a consumer join to the group's id
	client int
	odd    bool // a stale generation, or MemberId ""
}

// TestClassicHammer: goroutines join, sync, heartbeat, leave and describe
// classic groups (static and dynamic members, KIP-394 pending ids, now and
// then a ConsumerGroupHeartbeat join to the same ids, which takes an Empty
// group over) while another moves the clock and fires the timers,
// restarts the coordinator now and then and takes snapshots, and another
// drains the answers to held requests. Each request goes on a connection
// of its own, as a client whose answer is held does. Under -race: no data
// race, no deadlock, every held request answered or dropped at most once;
// at the end the bookkeeping is consistent and no partition is assigned
// twice.
func TestClassicHammer(t *testing.T) {
	const (
		workers = 12
		clients = 3 // per worker
		ops     = 600
	)
	groups := []string{"c0", "c1", "c2"}
	clock := impl.NewManualClock(0)
	cfg := model.DefaultConfig(1)
	cfg.ClassicMinSessionTimeoutMs, cfg.InitialRebalanceDelayMs = 100, 50
	icfg := targets.ImplConfig(cfg, clock, impl.Mutants{})
	icfg.Topics = testTopics()
	c := impl.New(icfg)

	type client struct {
		group, id  string
		instance   codec.NullableString
		generation int32
	}
	plans := make([][]classicOp, workers)
	cls := make([][]*client, workers)
	r := rand.New(rand.NewPCG(9, 9))
	for w := range plans {
		for i := 0; i < clients; i++ {
			cl := &client{group: groups[r.IntN(len(groups))], generation: -1}
			if r.IntN(3) == 0 {
				cl.instance = codec.Str(fmt.Sprintf("w%d-i%d", w, i))
			}
			cls[w] = append(cls[w], cl)
		}
		for i := 0; i < ops; i++ {
			plans[w] = append(plans[w], classicOp{kind: r.IntN(11), client: r.IntN(clients), odd: r.IntN(8) == 0})
		}
	}

	var (
		wg       sync.WaitGroup
		conns    atomic.Uint64
		delivery atomic.Uint64
		stop     = make(chan struct{})
		mu       sync.Mutex
		seen     = map[uint64]bool{}
		failure  error
	)
	fail := func(err error) {
		mu.Lock()
		if failure == nil {
			failure = err
		}
		mu.Unlock()
	}
	drain := func() {
		for _, rel := range c.Released() {
			mu.Lock()
			if seen[rel.Delivery] {
				if failure == nil {
					failure = fmt.Errorf("delivery %d released twice", rel.Delivery)
				}
			}
			seen[rel.Delivery] = true
			mu.Unlock()
		}
	}
	send := func(req codec.Message, version int16) codec.Message {
		h := &codec.RequestHeader{RequestApiKey: req.Key(), RequestApiVersion: version, ClientId: codec.Str("hammer")}
		resp, err := c.Handle(impl.Conn{ID: conns.Add(1), Host: "/10.0.0.1", Delivery: delivery.Add(1)}, h, req)
		switch {
		case errors.Is(err, impl.ErrParked), errors.Is(err, impl.ErrUnsupportedRequest):
			return nil
		case err != nil:
			fail(err)
			return nil
		}
		return resp
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for _, op := range plans[w] {
				cl := cls[w][op.client]
				id := cl.id
				if op.odd {
					id = ""
				}
				switch {
				case op.kind <= 2:
					req := &codec.JoinGroupRequest{GroupId: cl.group, SessionTimeoutMs: 300, RebalanceTimeoutMs: 200, MemberId: id,
						GroupInstanceId: cl.instance, ProtocolType: "consumer",
						Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{1}}}}
					if resp, ok := send(req, 9).(*codec.JoinGroupResponse); ok && (resp.ErrorCode == codec.None || resp.ErrorCode == codec.MemberIDRequired) {
						cl.id, cl.generation = resp.MemberId, resp.GenerationId
					}
				case op.kind <= 4:
					req := &codec.SyncGroupRequest{GroupId: cl.group, GenerationId: cl.generation, MemberId: id, GroupInstanceId: cl.instance,
						ProtocolType: codec.Str("consumer"), ProtocolName: codec.Str("range"),
						Assignments: []codec.SyncGroupRequestAssignment{{MemberId: cl.id, Assignment: []byte{0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}}}}
					send(req, 5)
				case op.kind <= 7:
					gen := cl.generation
					if op.odd {
						gen--
					}
					send(&codec.HeartbeatRequest{GroupId: cl.group, GenerationId: gen, MemberId: cl.id, GroupInstanceId: cl.instance}, 4)
				case op.kind == 8:
					send(&codec.LeaveGroupRequest{GroupId: cl.group, Members: []codec.LeaveGroupMember{{MemberId: id, GroupInstanceId: cl.instance}}}, 5)
				case op.kind == 9:
					send(&codec.DescribeGroupsRequest{Groups: groups}, 6)
				default:
					send(&codec.ConsumerGroupHeartbeatRequest{GroupId: cl.group, MemberId: fmt.Sprintf("m%d", w), RebalanceTimeoutMs: 100,
						SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}, 1)
					send(&codec.ConsumerGroupHeartbeatRequest{GroupId: cl.group, MemberId: fmt.Sprintf("m%d", w), MemberEpoch: -1}, 1)
				}
			}
		}(w)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			clock.Advance(20)
			c.Expire()
			if i%200 == 199 {
				c.Restart()
			}
			if err := rules.NoDoubleClientAssignment(targets.ModelSnapshot(c.Snapshot())); err != nil {
				fail(err)
			}
			drain()
		}
	}()
	wg.Wait()
	close(stop)
	<-done
	drain()
	if failure != nil {
		t.Fatal(failure)
	}
	if err := c.CheckInternal(); err != nil {
		t.Fatal(err)
	}
	if len(seen) < workers {
		t.Fatalf("only %d held requests were answered: the hammer reached little of the classic protocol", len(seen))
	}
	t.Logf("%d held requests answered or dropped", len(seen))
}
