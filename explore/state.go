package explore

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/client"
)

// state is one state of the explored system: the coordinator (model and
// impl), the clients, the network, the time and what is left of the
// bounds. A state is never changed once made: a transition copies it
// (clone), and the copy replaces any slice or client it changes rather
// than write into one it shares with its parent.
type state struct {
	co     *coord
	pool   *pool // the worker's, which recycles the state and its slots
	now    int64
	nextID int    // the number of the next member id made
	seq    uint32 // messages sent so far: their order on the network
	faults int    // faults left on this path
	admin  int    // admin LeaveGroups left on this path
	// slots are the clients' (in slotArr): shared with the parent until
	// changed (mut), own marking those the state has a copy of.
	slots   []*slot
	slotArr [maxClients]*slot
	own     uint8
	// held are the requests the coordinator holds (model.ErrParked), by
	// delivery number: their answers come in a later step (Released).
	held []held
}

// held is a request the coordinator holds: which slot's process sent it,
// on which connection, and what its answer must carry.
type held struct {
	delivery uint64
	slot     int
	conn     uint64 // the coordinator's connection id
	inc      int
	n        int
	corr     int32
	version  int16
	// orphan: its connection closed while it waited; its answer goes
	// nowhere (the coordinator still answers it, A6.5).
	orphan bool
}

// nextDelivery is the delivery number of the next request handed to the
// coordinator: the smallest no held request has, so that numbers stay
// small and a state's held requests are numbered alike on every path
// that reaches them in one order.
func (s *state) nextDelivery() uint64 {
	d := uint64(1)
	for _, h := range s.held { // sorted by delivery
		if h.delivery == d {
			d++
		}
	}
	return d
}

// slot is one client of the configuration: its current (or last) process
// and what is left of earlier ones.
type slot struct {
	refs  int32          // the states holding it (pool)
	c     *client.Client // the current or last process; nil before the first join
	inc   int            // processes started
	live  bool
	wants bool // the process wants membership (joined, not left)
	ops   int  // operations left
	// hb and lv are the heartbeat and the leave awaiting an answer.
	hb, lv outstanding
	// due is when the next heartbeat is due (while it wants membership
	// and awaits nothing): now or earlier means at once.
	due int64
	// made is the member id the current process made (KIP-1082), which
	// it must keep (StableMemberID).
	made string
	rec  record // the current process's
	// ended are earlier processes within their grace: the slot's own,
	// in endedArr while they fit, like conns.
	ended    []record
	endedArr [slotEnded]record
	// conns are the slot's open connections: the current process's (not
	// draining) and those of ended processes whose requests are still on
	// their way. They are the slot's own (in connArr while they fit):
	// state.mut copies the parent's with the slot, so a transition
	// changes them in place instead of cloning the list, as it did for
	// about a twelfth of the explorer's allocated bytes.
	conns   []conn
	connArr [slotConns]conn
	// sent counts the current process's requests (msg.n); opened, the
	// connections it has opened, its first included (left out of the
	// state's form: a trace's Step.Conns, for a plan of run, which
	// numbers requests with each connection's ApiVersions among them).
	sent, opened int

	// A classic process (classic.go): its consumer (c then gives it its
	// headers and client instance id only), the JoinGroup or SyncGroup on
	// its way (gmJoin says which) and the Heartbeat on its way (hbReq: the
	// consumer judges its answer by the generation it carried).
	k      *client.Classic
	gm     outstanding
	gmJoin bool
	hbReq  *codec.HeartbeatRequest
}

// outstanding is a request awaiting its answer.
type outstanding struct {
	set    bool
	corr   int32
	sentAt int64
}

// record is what the invariants know of one process: the member ids it
// accounts for and until when (rules.Process).
type record struct {
	inc      int
	instance codec.UUID
	memberID string   // the id it holds, or last held
	ids      []string // AllIDs: its own, and the coordinator's in answers to it
	seen     bool     // a request of it reached the coordinator
	// graceEnd is one session timeout after the last of its requests the
	// coordinator handled (restarted by a coordinator restart).
	graceEnd int64
	// left: a leave (epoch -1) of it was handled; its grace is over.
	left bool
	// known are the member ids a classic process named in its JoinGroups
	// or took from their answers (classicGhosts).
	known []string
}

// graceUntil is rules.Process.GraceUntil: 0 (over) before any request
// arrived or after a leave, else the session's end.
func (r *record) graceUntil() int64 {
	if !r.seen || r.left {
		return 0
	}
	return r.graceEnd
}

// accounts reports whether an ended process's record may still account for
// a member: within its grace, or with requests still on their way (their
// arrival starts its grace again). Past both, it is forgotten: it can
// never again make a member legitimate.
func (sl *slot) accounts(r *record, now int64) bool {
	if r.graceUntil() > now {
		return true
	}
	for _, c := range sl.conns {
		if c.inc == r.inc && len(c.reqs) > 0 {
			return true
		}
	}
	return false
}

// conn is one client connection, from the client's side and the
// network's.
type conn struct {
	id       uint64 // the coordinator's connection id
	cc       client.Conn
	inc      int   // the process it belongs to
	reqs     []msg // requests on their way to the coordinator, in order
	resps    []msg // answers on their way to the client, in order
	draining bool  // its process ended: it closes once reqs are delivered
}

// msg is one request or answer on the network.
type msg struct {
	seq     uint32 // when it was sent, among all messages
	n       int    // which of its process's requests it is (or answers), from 1
	corr    int32
	version int16
	delayed bool // it may stay on its way while time moves on
	h       *codec.RequestHeader
	req     codec.Message // a request; nil for an answer
	resp    codec.Message // an answer; nil for a request
}

// clone copies the state for a transition: its slots are the parent's
// until changed (mut), and then share their slices and client with the
// parent's until changed (own*). A transition mostly changes one slot.
func (s *state) clone() *state {
	t := s.pool.state()
	*t = *s
	t.slots, t.own = t.slotArr[:len(s.slots)], 0
	for _, sl := range t.slots {
		sl.refs++
	}
	t.held = slices.Clip(s.held) // appended to or deleted from in a copy only (ownHeld)
	return t
}

// mut returns slot i to change: the first time, a copy of the parent's.
func (s *state) mut(i int) *slot {
	if s.own&(1<<i) == 0 {
		old := s.slots[i]
		c := s.pool.slot()
		*c = *old
		c.refs = 1
		c.adoptLists()
		old.refs--
		s.slots[i] = c
		s.own |= 1 << i
	}
	return s.slots[i]
}

// pool is a worker's recycled states and slots: a transition the search
// tries makes a state and mostly one slot, and lets go of both once the
// state is fingerprinted, so reusing them spares the allocator (and the
// collector) most of a state's weight. A slot is shared by the states
// that did not change it (refs); it is recycled when the last lets go.
type pool struct {
	states []*state
	slots  []*slot
}

// maxPooled bounds each of a pool's lists.
const maxPooled = 256

func (p *pool) state() *state {
	if n := len(p.states); n > 0 {
		s := p.states[n-1]
		p.states = p.states[:n-1]
		return s
	}
	return new(state)
}

func (p *pool) slot() *slot {
	if n := len(p.slots); n > 0 {
		sl := p.slots[n-1]
		p.slots = p.slots[:n-1]
		return sl
	}
	return new(slot)
}

// put takes back a state nothing uses any more, and its slots no other
// state holds. Their references are cleared: a pooled state keeps no
// client or message alive.
func (p *pool) put(s *state) {
	for _, sl := range s.slots {
		if sl.refs--; sl.refs == 0 && len(p.slots) < maxPooled {
			*sl = slot{}
			p.slots = append(p.slots, sl)
		}
	}
	if len(p.states) < maxPooled {
		*s = state{}
		p.states = append(p.states, s)
	}
}

// ownHeld gives the state a held list of its own to change.
func (s *state) ownHeld() { s.held = slices.Clone(s.held) }

// ownClient gives the slot a client of its own to change.
func (sl *slot) ownClient() *client.Client {
	sl.c = sl.c.Clone()
	return sl.c
}

// ownClassic gives the slot a classic consumer of its own to change.
func (sl *slot) ownClassic() *client.Classic {
	sl.k = sl.k.Clone()
	return sl.k
}

// slotConns is how many connections a slot holds without allocating: the
// current process's and a draining one or two of ended processes.
const slotConns = 4

// slotEnded is how many ended processes' records a slot holds without
// allocating.
const slotEnded = 2

// adoptLists gives a slot just copied from its parent's (mut) a
// connection list and an ended list of its own, in its arrays while they
// fit (the queues and id lists in them stay shared: push, pop and withID
// never write into them).
func (sl *slot) adoptLists() {
	sl.conns = adopt(sl.connArr[:0], sl.conns)
	sl.ended = adopt(sl.endedArr[:0], sl.ended)
}

// adopt copies list into arr (empty, in the slot) if it fits, else into a
// new array.
func adopt[T any](arr, list []T) []T {
	if len(list) <= cap(arr) {
		return append(arr, list...)
	}
	return slices.Clone(list)
}

// next makes room for the slot's next process: the last one's record is
// kept while it still accounts for a member (ended), and the count of
// processes moves on.
func (sl *slot) next(now int64) {
	if sl.c != nil && sl.accounts(&sl.rec, now) {
		sl.ended = append(sl.ended, sl.rec)
	}
	sl.inc++
	sl.opened = 0
}

// current is the index of the current process's connection, -1 if none.
func (sl *slot) current() int {
	for k, c := range sl.conns {
		if !c.draining {
			return k
		}
	}
	return -1
}

// record returns the record of the slot's process inc (the current one or
// an ended one), owned by the slot to change; nil if it was dropped.
func (sl *slot) record(inc int) *record {
	if sl.rec.inc == inc {
		return &sl.rec
	}
	for k := range sl.ended {
		if sl.ended[k].inc == inc {
			return &sl.ended[k]
		}
	}
	return nil
}

// push appends m to q, never into q's array (which a parent may share).
func push(q []msg, m msg) []msg { return append(q[:len(q):len(q)], m) }

// withIDs returns ids with id added (a new slice), unless it is there.
func withID(ids []string, id string) []string {
	if slices.Contains(ids, id) {
		return ids
	}
	return append(ids[:len(ids):len(ids)], id)
}
