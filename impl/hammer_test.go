package impl_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

func testTopics() []impl.Topic {
	var ts []impl.Topic
	for _, n := range []struct {
		name string
		p    int32
	}{{"alpha", 6}, {"beta", 3}, {"gamma", 1}} {
		ts = append(ts, impl.Topic{Name: n.name, ID: model.TopicIDFor(n.name), Partitions: n.p})
	}
	return ts
}

// hammerOp is one pre-drawn operation of a hammering goroutine (draws are
// made before the goroutines start, so a run is a function of its seed up
// to scheduling).
type hammerOp struct {
	kind    int // 0 join, 1-5 heartbeat, 6 leave, 7 static leave, 8 describe, 9 LeaveGroup
	client  int
	stale   bool
	partial bool
}

// TestHammer: many goroutines join, heartbeat (right and stale epochs),
// leave, park, describe and batch-leave on a few shared groups while
// another moves the clock, fires timers and now and then restarts the
// coordinator, and another takes snapshots.
// Under -race: no data race, no deadlock; every snapshot has each partition
// owned by at most one member; at the end the bookkeeping is consistent and,
// once every client has left, every group is empty (no ghosts).
func TestHammer(t *testing.T) {
	const (
		workers = 16
		clients = 4 // per worker
		ops     = 1500
	)
	groups := []string{"g0", "g1", "g2", "g3"}
	clock := impl.NewManualClock(0)
	c := impl.New(impl.Config{Topics: testTopics(), SessionTimeoutMs: 3000, HeartbeatIntervalMs: 100, NewID: model.SeededIDs(1), Clock: clock})

	type client struct {
		group, id string
		instance  codec.NullableString
		epoch     int32
		owned     []codec.ConsumerGroupHeartbeatTopicPartitions
	}
	plans := make([][]hammerOp, workers)
	cls := make([][]*client, workers)
	r := rand.New(rand.NewPCG(7, 7))
	for w := range plans {
		for i := 0; i < clients; i++ {
			var u codec.UUID
			for j := range u {
				u[j] = byte(r.Uint32())
			}
			cl := &client{group: groups[r.IntN(len(groups))], id: u.Hex()}
			if r.IntN(3) == 0 {
				cl.instance = codec.Str(fmt.Sprintf("w%d-i%d", w, i))
			}
			cls[w] = append(cls[w], cl)
		}
		for i := 0; i < ops; i++ {
			plans[w] = append(plans[w], hammerOp{kind: r.IntN(10), client: r.IntN(clients), stale: r.IntN(8) == 0, partial: r.IntN(4) == 0})
		}
	}

	var wg sync.WaitGroup
	errs := make(chan error, workers+2)
	stop := make(chan struct{})
	hb := func(conn uint64, req *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) {
		h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, ClientId: codec.Str("hammer")}
		if err := c.HandleHeartbeat(impl.Conn{ID: conn, Host: "/h"}, h, req, resp); err != nil {
			errs <- err
		}
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var resp codec.ConsumerGroupHeartbeatResponse
			conn := uint64(w + 1)
			for _, op := range plans[w] {
				cl := cls[w][op.client]
				switch {
				case op.kind == 0 || (op.kind <= 5 && cl.epoch == 0):
					hb(conn, &codec.ConsumerGroupHeartbeatRequest{GroupId: cl.group, MemberId: cl.id, InstanceId: cl.instance,
						RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{"alpha", "beta", "gamma"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}, &resp)
				case op.kind <= 5:
					req := &codec.ConsumerGroupHeartbeatRequest{GroupId: cl.group, MemberId: cl.id, MemberEpoch: cl.epoch, RebalanceTimeoutMs: -1, TopicPartitions: cl.owned}
					if op.stale {
						req.MemberEpoch--
					}
					if op.partial && len(cl.owned) > 0 {
						req.TopicPartitions = cl.owned[1:]
					}
					hb(conn, req, &resp)
				case op.kind == 6 || op.kind == 7:
					req := &codec.ConsumerGroupHeartbeatRequest{GroupId: cl.group, MemberId: cl.id, InstanceId: cl.instance, MemberEpoch: -1, RebalanceTimeoutMs: -1}
					if op.kind == 7 && cl.instance.Valid {
						req.MemberEpoch = -2
					}
					hb(conn, req, &resp)
					cl.epoch, cl.owned = 0, nil
					continue
				case op.kind == 8:
					h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 1}
					if _, err := c.Handle(impl.Conn{ID: conn}, h, &codec.ConsumerGroupDescribeRequest{GroupIds: groups}); err != nil {
						errs <- err
					}
					continue
				default:
					h := &codec.RequestHeader{RequestApiKey: codec.LeaveGroup, RequestApiVersion: 5}
					req := &codec.LeaveGroupRequest{GroupId: cl.group, Members: []codec.LeaveGroupMember{{MemberId: cl.id, GroupInstanceId: cl.instance}}}
					if _, err := c.Handle(impl.Conn{ID: conn}, h, req); err != nil {
						errs <- err
					}
					continue
				}
				switch {
				case resp.ErrorCode == codec.None:
					cl.epoch = resp.MemberEpoch
					if resp.Assignment != nil {
						cl.owned = append(cl.owned[:0], resp.Assignment.TopicPartitions...)
						for i := range cl.owned {
							cl.owned[i].Partitions = append([]int32(nil), cl.owned[i].Partitions...)
						}
					}
				case resp.ErrorCode == codec.FencedMemberEpoch || resp.ErrorCode == codec.UnknownMemberID:
					cl.epoch, cl.owned = 0, nil
				}
			}
		}(w)
	}
	var bg sync.WaitGroup
	bg.Add(2)
	go func() { // the clock, and now and then a coordinator restart
		defer bg.Done()
		for tick := 1; ; tick++ {
			select {
			case <-stop:
				return
			default:
			}
			clock.Advance(7)
			c.Expire()
			if tick%128 == 0 {
				c.Restart()
			}
		}
	}()
	go func() { // an observer
		defer bg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := rules.NoDoubleClientAssignment(targets.ModelSnapshot(c.Snapshot())); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	bg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := c.CheckInternal(); err != nil {
		t.Fatal(err)
	}
	// Everyone leaves for good: no member may remain.
	var resp codec.ConsumerGroupHeartbeatResponse
	for w := range cls {
		for _, cl := range cls[w] {
			hb(1, &codec.ConsumerGroupHeartbeatRequest{GroupId: cl.group, MemberId: cl.id, InstanceId: cl.instance, MemberEpoch: -1, RebalanceTimeoutMs: -1}, &resp)
		}
	}
	for _, g := range c.Snapshot() {
		if len(g.Members) != 0 {
			t.Fatalf("group %s keeps %d members after every client left: %+v", g.GroupID, len(g.Members), g.Members)
		}
	}
	if err := c.CheckInternal(); err != nil {
		t.Fatal(err)
	}
}
