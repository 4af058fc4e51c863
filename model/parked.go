package model

import (
	"errors"
	"maps"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Held requests (docs/PROTOCOL.md B8.5, A6.5). Kafka answers a classic
// JoinGroup or SyncGroup that must wait when some other event completes
// it: another member's request, a timer, a restart. The coordinator stays
// a sequential function: Handle returns ErrParked for such a request and
// keeps it; whatever later answers it (a Handle, Advance, Restart) appends
// the answer to a list that Released drains. A request that arrives on a
// connection whose earlier request is held is held too, unread, as a
// broker's muted socket does (B8.5): it is served, in arrival order, right
// after the one before it is answered, and its answer is released the
// same way.
//
// The contract, for a caller (a driver, a transport):
//
//   - Conn.Delivery numbers each request the caller hands to Handle, unique
//     among the requests of a run (1, 2, ...); a release names its request
//     by it.
//   - Handle returns (nil, ErrParked) when it holds the request. A request
//     held and answered within its own Handle is simply answered: Handle
//     returns the response.
//   - After every Handle, Advance, Restart and Disconnect, Released returns
//     the answers given since the last call, in the order given (within
//     one group; across groups, timers fire in deadline order). A Release
//     with Dropped set is a held request that will never be answered: its
//     member was removed while its SyncGroup waited (A6.3), or its
//     connection closed while it waited unread behind another.
//   - The answer is to be encoded at the request's own version.
//   - A connection that closes (Disconnect) does not end a wait: the held
//     JoinGroup or SyncGroup is answered as if it were open, and the
//     caller drops the answer (A6.5); the requests held unread behind it
//     are Dropped.
//   - Restart closes every connection: what each held unread is Dropped,
//     as Disconnect drops it, before the waiting JoinGroups and SyncGroups
//     are answered NOT_COORDINATOR (B8.14), so nothing held behind them is
//     served on a connection the restart closed.
//   - A request held and answered within its own Handle (a JoinGroup that
//     completes the join phase it parks in, a leader's SyncGroup that ends
//     the sync phase) is answered by that Handle: Kafka parks it and
//     completes it in the same coordinator operation
//     (GroupMetadataManager#maybeCompleteJoinPhase after
//     updateMemberThenRebalanceOrCompleteJoin; classicGroupSync's leader
//     path), and its response goes out once that operation commits, with
//     no later event between.
//   - Held requests released by Advance are served after every timer due
//     by the new time has fired, at that time, connection by connection
//     in ascending id order; those released by a Handle or a Restart are
//     served, in the same order, before it returns.

// ErrParked is Handle's error for a request the coordinator holds: its
// answer comes later, through Released.
var ErrParked = errors.New("model: request held; its answer comes through Released")

// Release is the answer the coordinator gave to a request it held.
type Release struct {
	// Delivery is the held request's Conn.Delivery.
	Delivery uint64
	// Response is the answer, to be encoded at the request's version; nil
	// when Dropped.
	Response codec.Message
	// Dropped: the request will never be answered.
	Dropped bool
}

// Released returns the answers given to held requests since the last
// call, and forgets them.
func (c *Coordinator) Released() []Release {
	out := c.released
	c.released = nil
	return out
}

// parked is a JoinGroup or SyncGroup waiting in its group.
type parked struct {
	delivery uint64
	conn     uint64
	version  int16
	// orphan: its connection closed while it waited (A6.5).
	orphan bool
}

// connHold is what the coordinator holds of one connection: whether a
// request of it waits (active, and which), and the requests that arrived
// behind it, unread.
type connHold struct {
	active   bool
	delivery uint64
	queue    []heldRequest
}

// heldRequest is a request held unread behind another on its connection.
type heldRequest struct {
	conn   Conn
	header codec.RequestHeader
	req    codec.Message
}

// hold parks the request being served (c.self) on its connection: the
// connection's later requests wait behind it.
func (c *Coordinator) hold(conn Conn) {
	h := c.holds[conn.ID]
	if h == nil {
		if c.holds == nil {
			c.holds = map[uint64]*connHold{}
		}
		h = &connHold{}
		c.holds[conn.ID] = h
	}
	h.active, h.delivery = true, conn.Delivery
}

// parkRequest makes the parked record of the request being served and
// marks it as the request's own (see answer).
func (c *Coordinator) parkRequest(conn Conn, version int16) *parked {
	p := &parked{delivery: conn.Delivery, conn: conn.ID, version: version}
	c.self, c.selfAnswer = p, nil
	return p
}

// answer gives a held request its answer. The request being served gets
// it as Handle's response; any other's is released, and its connection's
// held requests are served next (resumeHeld).
func (c *Coordinator) answer(p *parked, resp codec.Message) {
	if p == c.self {
		c.self, c.selfAnswer = nil, resp
		return
	}
	if p.orphan {
		c.hit("A6.5/closed-connection-answer-dropped")
	}
	c.released = append(c.released, Release{Delivery: p.delivery, Response: resp})
	c.unblock(p)
}

// drop ends a held request that will never be answered.
func (c *Coordinator) drop(p *parked) {
	if p == c.self {
		c.self = nil // a request dropped within its own step: no answer, ever
		c.selfDropped = true
	}
	c.released = append(c.released, Release{Delivery: p.delivery, Dropped: true})
	c.unblock(p)
}

// unblock lets p's connection go on, if it still waits for p: its held
// requests are served by resumeHeld.
func (c *Coordinator) unblock(p *parked) {
	if h := c.holds[p.conn]; h != nil && h.active && h.delivery == p.delivery {
		h.active = false
		c.resume = append(c.resume, p.conn)
	}
}

// resumeHeld serves the requests held behind answered ones: connection by
// connection, smallest id first, each in arrival order until one is held
// again. A request served here may answer others and so unblock more
// connections; they are served in turn.
func (c *Coordinator) resumeHeld() {
	for len(c.resume) > 0 {
		slices.Sort(c.resume)
		id := c.resume[0]
		c.resume = slices.DeleteFunc(c.resume, func(x uint64) bool { return x == id })
		h := c.holds[id]
		for h != nil && !h.active && len(h.queue) > 0 {
			r := h.queue[0]
			h.queue = h.queue[1:]
			resp, err := c.serve(r.conn, &r.header, r.req, nil)
			switch {
			case errors.Is(err, ErrParked):
				// held again (hold made it active), or dropped at once
			case err != nil:
				// Not served (an api or version the coordinator does not
				// serve): a broker closes the connection then; the model
				// leaves closing it to the caller and never answers it.
				c.released = append(c.released, Release{Delivery: r.conn.Delivery, Dropped: true})
			default:
				c.released = append(c.released, Release{Delivery: r.conn.Delivery, Response: resp})
			}
		}
		if h != nil && !h.active && len(h.queue) == 0 {
			delete(c.holds, id)
		}
	}
}

// closeHeld is Restart's part for held requests: every connection closes,
// in id order, as disconnectHeld closes one.
func (c *Coordinator) closeHeld() {
	for _, id := range slices.Sorted(maps.Keys(c.holds)) {
		c.disconnectHeld(id)
	}
}

// disconnectHeld is Disconnect's part for held requests: the requests held
// unread on the connection are Dropped (a broker never reads them); a held
// JoinGroup or SyncGroup of it stays, an orphan whose answer goes nowhere.
func (c *Coordinator) disconnectHeld(conn uint64) {
	h := c.holds[conn]
	if h == nil {
		return
	}
	for _, r := range h.queue {
		c.released = append(c.released, Release{Delivery: r.conn.Delivery, Dropped: true})
	}
	if h.active {
		for _, g := range c.classic {
			for _, m := range g.members {
				for _, p := range []*parked{m.join, m.sync} {
					if p != nil && p.conn == conn && p.delivery == h.delivery {
						p.orphan = true
					}
				}
			}
		}
	}
	delete(c.holds, conn)
}
