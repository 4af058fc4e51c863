package wire

import (
	"context"
	"errors"
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Coordinator is group's coordinator: the one known, or the one
// FindCoordinator names (asked of each known broker in turn, with
// retries while the coordinator is not available or loading). The events
// say what it took.
func (c *Cluster) Coordinator(ctx context.Context, group string) (Broker, []Event, error) {
	var evs []Event
	b, err := c.coordinator(ctx, group, -1, newBudget(c.o.Backoff), &evs)
	if err != nil {
		return Broker{}, evs, err
	}
	return b.Broker, evs, nil
}

// coordinator finds group's coordinator within bg; prev is the one the
// last try went to (-1: none), for the event.
func (c *Cluster) coordinator(ctx context.Context, group string, prev int32, bg *budget, evs *[]Event) (*brokerConn, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClusterClosed
		}
		b := c.brokers[c.coordinators[group]]
		_, known := c.coordinators[group]
		if c.standalone {
			b, known = c.brokers[StandaloneID], true
		}
		c.mu.Unlock()
		if known && b != nil {
			return b, nil
		}
		b, again, err := c.find(ctx, group, prev, evs)
		if err != nil || b != nil {
			return b, err
		}
		if err := c.backoff(ctx, group, codec.FindCoordinator, bg, false, again, evs); err != nil {
			return nil, err
		}
	}
}

// find asks the known brokers, in turn, for group's coordinator. It
// returns the coordinator, or nil and what the last broker met when none
// could say (the caller backs off and asks again), or an error that ends
// the call.
func (c *Cluster) find(ctx context.Context, group string, prev int32, evs *[]Event) (*brokerConn, string, error) {
	last := "no broker known"
	unreachable := 0
	cands := c.candidates()
	for _, b := range cands {
		var sent int16
		resp, redialed, err := b.roundTrip(ctx, c, func(vs Versions) (int16, codec.Message, error) {
			v, err := vs.Pick(codec.FindCoordinator, 0, codec.Lookup(codec.FindCoordinator).MaxVersion)
			if err != nil {
				return 0, nil, fmt.Errorf("%w: %v", ErrVersionNotOffered, err)
			}
			sent = v
			if v >= 4 {
				return v, &codec.FindCoordinatorRequest{KeyType: codec.CoordinatorKeyGroup, CoordinatorKeys: []string{group}}, nil
			}
			return v, &codec.FindCoordinatorRequest{CoordinatorKey: group}, nil
		})
		if redialed {
			*evs = append(*evs, Event{Kind: Redialed, Group: group, API: codec.FindCoordinator, Broker: b.ID})
		}
		if err != nil {
			if errors.Is(err, ErrAuth) || errors.Is(err, ErrClusterClosed) || errors.Is(err, ErrVersionNotOffered) || ctx.Err() != nil {
				return nil, "", err
			}
			// FindCoordinator changes nothing: whatever became of it,
			// the next broker may be asked.
			kind := ConnectionLost
			if !errors.Is(err, ErrNoResponse) {
				kind = BrokerUnreachable
				unreachable++
			}
			*evs = append(*evs, Event{Kind: kind, Group: group, API: codec.FindCoordinator, Broker: b.ID, Err: err.Error()})
			last = err.Error()
			continue
		}
		a, err := coordinatorOf(resp.(*codec.FindCoordinatorResponse), sent, group)
		if err != nil {
			*evs = append(*evs, Event{Kind: BadAnswer, Group: group, API: codec.FindCoordinator, Broker: b.ID, Err: err.Error()})
			last = err.Error()
			continue
		}
		switch a.code {
		case codec.None:
		case codec.NotCoordinator, codec.CoordinatorNotAvailable, codec.CoordinatorLoadInProgress:
			// The coordinator is moving or loading for the whole
			// cluster: back off before asking anyone again.
			*evs = append(*evs, Event{Kind: CoordinatorError, Group: group, API: codec.FindCoordinator, Broker: b.ID, Code: a.code})
			return nil, fmt.Sprintf("%v from broker %d", a.code, b.ID), nil
		default:
			return nil, "", &BrokerError{Broker: b.ID, API: codec.FindCoordinator, Code: a.code, Message: a.message}
		}
		addr, err := brokerAddr(a.node, a.host, a.port)
		if err == nil {
			var nb *brokerConn
			if nb, err = c.learnBroker(Broker{ID: a.node, Addr: addr}); err == nil {
				c.setCoordinator(group, nb.ID)
				*evs = append(*evs, Event{Kind: CoordinatorFound, Group: group, API: codec.FindCoordinator, Broker: nb.ID, Previous: prev})
				return nb, "", nil
			}
		}
		*evs = append(*evs, Event{Kind: BadAnswer, Group: group, API: codec.FindCoordinator, Broker: b.ID, Err: err.Error()})
		last = err.Error()
	}
	if unreachable == len(cands) {
		// Every broker known is unreachable: they may have moved; ask
		// the bootstrap addresses for the brokers again.
		if err := c.refresh(ctx, false); errors.Is(err, ErrAuth) || errors.Is(err, ErrClusterClosed) {
			return nil, "", err
		}
	}
	return nil, last, nil
}

// answer is FindCoordinator's answer for one group.
type answer struct {
	code       codec.ErrorCode
	message    string
	node, port int32
	host       string
}

// coordinatorOf reads group's answer from a FindCoordinator response to
// a request at version v: the top-level fields below v4, group's entry of
// Coordinators from v4 (KIP-699).
func coordinatorOf(r *codec.FindCoordinatorResponse, v int16, group string) (answer, error) {
	if v < 4 {
		return answer{r.ErrorCode, capString(r.ErrorMessage.Value), r.NodeId, r.Port, r.Host}, nil
	}
	for _, k := range r.Coordinators {
		if k.Key == group {
			return answer{k.ErrorCode, capString(k.ErrorMessage.Value), k.NodeId, k.Port, k.Host}, nil
		}
	}
	return answer{}, fmt.Errorf("FindCoordinator v%d answer has no entry for the group (%d entries)", v, len(r.Coordinators))
}

func (c *Cluster) setCoordinator(group string, id int32) {
	c.mu.Lock()
	c.coordinators[group] = id
	c.mu.Unlock()
}

// forget forgets group's coordinator if it is still id (another call may
// have found the new one meanwhile).
func (c *Cluster) forget(group string, id int32) {
	c.mu.Lock()
	if cur, ok := c.coordinators[group]; ok && cur == id {
		delete(c.coordinators, group)
	}
	c.mu.Unlock()
}

// GroupErrorCode is the error code resp carries for group: the top-level
// code of a ConsumerGroupHeartbeat, LeaveGroup, JoinGroup, SyncGroup or
// Heartbeat answer, the group's own entry of a ConsumerGroupDescribe or
// DescribeGroups answer (NONE when it lists none), NONE for any other
// message. The coordinator errors routed calls retry are read from it.
func GroupErrorCode(resp codec.Message, group string) codec.ErrorCode {
	switch r := resp.(type) {
	case *codec.ConsumerGroupHeartbeatResponse:
		return r.ErrorCode
	case *codec.LeaveGroupResponse:
		return r.ErrorCode
	case *codec.JoinGroupResponse:
		return r.ErrorCode
	case *codec.SyncGroupResponse:
		return r.ErrorCode
	case *codec.HeartbeatResponse:
		return r.ErrorCode
	case *codec.ConsumerGroupDescribeResponse:
		for i := range r.Groups {
			if r.Groups[i].GroupId == group {
				return r.Groups[i].ErrorCode
			}
		}
	case *codec.DescribeGroupsResponse:
		for i := range r.Groups {
			if r.Groups[i].GroupId == group {
				return r.Groups[i].ErrorCode
			}
		}
	}
	return codec.None
}
