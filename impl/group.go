package impl

import (
	"math"
	"sync"
	"unsafe"

	"github.com/ghostcheck/ghostcheck/codec"
)

// This file holds the group record. What is done to it lives by concern:
// members.go (ids, the member and side arenas, removal), fields.go
// (interned instance ids, racks, clients), subscriptions.go, timers.go
// (session list, rebalance heap, expiry), assignment.go (the assignor and
// reconciliation) and check.go (the self-check tests run).

// Member states of KIP-848 reconciliation (docs/PROTOCOL.md A5).
const (
	stStable uint8 = iota
	stUnrevoked
	stUnreleased
)

const noDeadline = int64(-1)

// Member flags.
const (
	flLive   uint8 = 1 << iota // the slot holds a member
	flLinked                   // the member is in its group's session list
	// flClassic: the member uses the classic protocol (a mixed group, A7;
	// its classic state is in group.mx). It is never in the session list:
	// its session timeout is its own (mixed_timers.go).
	flClassic
	// flNames: the member's subscribed topic names were ever set (the
	// model's subscribedNames != nil), which a classic JoinGroup's
	// subscription is compared against (A7.1 step 7).
	flNames
)

// member is one consumer-group member: a fixed-size, pointer-free record
// in its group's arena (72 bytes). Strings are interned per group; the
// partition state is in a side record that most members do not need.
type member struct {
	id        [16]byte // the id in compact form (formHex, formB64)
	form      idForm
	state     uint8
	flags     uint8
	_         uint8
	epoch     int32 // -2 while a static member is parked
	prevEpoch int32
	rto       int32  // RebalanceTimeoutMs
	sub       uint32 // group.subs reference; 0 = nothing subscribed
	client    uint32 // group.clients reference (client id, host)
	inst      uint32 // group.insts reference; 0 = null
	rack      uint32 // group.racks reference; 0 = null
	side      uint32 // group.sides index; 0 = none
	prev      uint32 // session list
	next      uint32
	session   int64 // session deadline, noDeadline if none
}

// side is the partition state of a member that owns or is targeted by
// partitions, or has a rebalance timer. Partitions are global partition
// indexes (topics in name order, then partition), kept sorted.
type side struct {
	assigned []int32 // owned and acknowledged
	pending  []int32 // owned, pending revocation
	target   []int32
	rdl      int64 // rebalance deadline, noDeadline if none
	hpos     int32 // position in group.rheap, -1 if absent
	mem      uint32
}

// subscription is an interned (names, regex) pair and the topics it
// resolves to.
type subscription struct {
	names  []string // sorted, unique
	regex  codec.NullableString
	topics []int32 // topic indexes, ascending
}

type clientKey struct{ id, host string }

// Group status: a phantom group exists only for the join creating it and is
// invisible to everything else; a dead one was a phantom whose join failed.
const (
	gPhantom uint8 = iota
	gLive
	gDead
)

// group is one consumer group. Everything in it is guarded by mu.
type group struct {
	mu     sync.Mutex
	c      *Coordinator
	id     string
	status uint8
	shard  *timerShard
	// kind is the group's protocol (A6.4): a consumer group's state is the
	// fields below; a classic group's is cl. An empty group of one kind
	// gives way to the other in place (toClassic, toConsumer).
	kind uint8
	cl   *classicGroup

	epoch int32 // group epoch == target assignment epoch
	mem   []member
	free  []uint32
	count int

	byHex  map[[16]byte]uint32
	byB64  map[[16]byte]uint32
	byStr  map[string]uint32
	strIDs map[uint32]string
	// idText is the text of compact ids, by member index, "" where not
	// made yet (idString).
	idText []string
	// byID is the array sortedMembers lists into, again and again.
	byID []idEntry
	// keyBuf is the buffer setSubscription writes its keys into.
	keyBuf []byte

	insts   table[string, uint32] // instance id -> holder member index (val)
	racks   table[string, struct{}]
	clients table[clientKey, struct{}]
	subs    table[string, *subscription]

	sides     []side
	freeSides []uint32

	owner     []uint32 // per partition: owner<<1 | 1 if pending revocation; 0 = free
	tgt       []uint32 // per partition: target member; 0 = none
	topicSubs []olist  // per topic: subscribers in assignment-key order (keyLess)

	sessHead, sessTail uint32
	rheap              []uint32 // side indexes, min-heap by rdl
	// mx is the classic members' state and timers (mixed.go); nil while
	// the group has none, so that a consumer-only group pays nothing.
	mx *mixedState

	// ver counts the locks taken that may have changed the group (lock):
	// a SnapshotCache builds the group again only when it moved.
	ver        uint64
	registered int64  // earliest deadline pushed to the shard's heap
	expireGen  uint64 // last Expire round that processed the group
	scratch    []uint64
	oldHolders []uint32
	less       lessFunc
}

// lock locks the group to change it, or to serve a request that may: every
// change to a group is made under a lock taken here (only Snapshot,
// Describe (readGroup) and CheckInternal, which read, lock it otherwise),
// so ver tells a SnapshotCache which groups may have changed.
func (g *group) lock() {
	g.mu.Lock()
	g.ver++
}

func newGroup(c *Coordinator, id string) *group {
	g := &group{
		c:          c,
		id:         id,
		mem:        make([]member, 1, 2),
		sides:      make([]side, 1),
		owner:      make([]uint32, c.nparts),
		tgt:        make([]uint32, c.nparts),
		topicSubs:  make([]olist, len(c.topics)),
		registered: math.MaxInt64,
	}
	g.less = g.keyLess
	return g
}

// reuse makes g the new group id of c, as newGroup makes one, in the
// memory of the group g was: a spare of CopyTo's (Coordinator.spareGroups),
// which nothing else holds. Its arrays and maps are kept, emptied, so
// that a group made on a recycled copy (the explorer's first join into a
// group) allocates little. Its version goes on counting, so that no
// SnapshotCache could take it for the group it was.
func (g *group) reuse(c *Coordinator, id string) {
	old := &group{ // the memory kept: fields moved aside, as group holds a mutex
		mem: g.mem, free: g.free, byHex: g.byHex, byB64: g.byB64, byStr: g.byStr, strIDs: g.strIDs,
		idText: g.idText, byID: g.byID, insts: g.insts, racks: g.racks, clients: g.clients, subs: g.subs,
		sides: g.sides, freeSides: g.freeSides, owner: g.owner, tgt: g.tgt, topicSubs: g.topicSubs,
		rheap: g.rheap, oldHolders: g.oldHolders, less: g.less, ver: g.ver, keyBuf: g.keyBuf,
	}
	*g = group{c: c, id: id, registered: math.MaxInt64, less: old.less, ver: old.ver, keyBuf: old.keyBuf[:0]}
	g.mem = append(old.mem[:0], member{})
	g.free = old.free[:0]
	g.byHex, g.byB64, g.byStr, g.strIDs = emptied(old.byHex), emptied(old.byB64), emptied(old.byStr), emptied(old.strIDs)
	clear(old.idText)
	g.idText = old.idText[:0]
	clear(old.byID)
	g.byID = old.byID[:0]
	g.insts, g.racks, g.clients, g.subs = old.insts.emptied(), old.racks.emptied(), old.clients.emptied(), old.subs.emptied()
	clear(old.sides)
	g.sides = old.sides[:1]
	if len(g.sides) == 0 {
		g.sides = append(g.sides, side{})
	}
	g.freeSides = old.freeSides[:0]
	g.owner = append(old.owner[:0], make([]uint32, c.nparts)...)
	g.tgt = append(old.tgt[:0], make([]uint32, c.nparts)...)
	g.topicSubs = old.topicSubs[:cap(old.topicSubs)]
	if n := len(c.topics); len(g.topicSubs) < n {
		g.topicSubs = append(g.topicSubs, make([]olist, n-len(g.topicSubs))...)
	} else {
		g.topicSubs = g.topicSubs[:n]
	}
	for i := range g.topicSubs {
		g.topicSubs[i].reset()
	}
	g.rheap, g.oldHolders = old.rheap[:0], old.oldHolders[:0]
	if g.less == nil {
		g.less = g.keyLess
	}
}

// emptied is m cleared (nil stays nil: the group makes its maps at their
// first entry).
func emptied[K comparable, V any](m map[K]V) map[K]V {
	clear(m)
	return m
}

// stateName is the group state ConsumerGroupDescribe shows.
func (g *group) stateName() string {
	if g.count == 0 {
		return "Empty"
	}
	for mi := 1; mi < len(g.mem); mi++ {
		m := &g.mem[mi]
		if m.flags&flLive != 0 && (m.epoch != g.epoch || m.state != stStable) {
			return "Reconciling"
		}
	}
	return "Stable"
}

func sizeofMember() uintptr { return unsafe.Sizeof(member{}) }
