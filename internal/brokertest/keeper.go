package brokertest

import (
	"slices"
	"sync"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Keeper is a bug: it keeps a member alive after the member's connection
// closed, by heartbeating for it, as a broker that ties a member's life to
// its connection and misses the close, or a proxy that heartbeats on its
// clients' behalf, would. A KIP-848 member lives by its heartbeats alone,
// so a member whose process crashed (its sockets closed with it) must
// expire one session timeout after its last heartbeat; kept alive, it is a
// ghost (docs/PROTOCOL.md, NoGhosts).
//
// Keeper knows no transport: Saw and Closed tell it what went by, Due
// gives the heartbeats to send and Answered takes their answers. The
// proxy (Options.KeepClosedMembers) and in-process test targets share it.
// It is safe for concurrent use.
type Keeper struct {
	mu      sync.Mutex
	members map[[2]string]*kept // by group and member id
}

type kept struct {
	conn     uint64
	epoch    int32
	owned    []codec.ConsumerGroupHeartbeatTopicPartitions
	interval int64
	orphan   bool  // its connection closed: Keeper heartbeats for it
	next     int64 // when its next heartbeat is due
}

// NewKeeper returns a Keeper that keeps nobody yet.
func NewKeeper() *Keeper { return &Keeper{members: map[[2]string]*kept{}} }

// Saw records a ConsumerGroupHeartbeat a client sent on connection conn,
// and the broker's answer: the member's epoch and assignment, or its
// leave (a member that left is not kept).
func (k *Keeper) Saw(conn uint64, req *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) {
	if resp == nil || resp.ErrorCode != codec.None {
		return
	}
	id := req.MemberId
	if id == "" && resp.MemberId.Valid {
		id = resp.MemberId.Value
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	key := [2]string{req.GroupId, id}
	if req.MemberEpoch < 0 {
		delete(k.members, key)
		return
	}
	m := k.members[key]
	if m == nil {
		m = &kept{}
		k.members[key] = m
	}
	m.conn, m.orphan = conn, false
	k.answered(m, resp)
}

func (k *Keeper) answered(m *kept, resp *codec.ConsumerGroupHeartbeatResponse) {
	m.epoch = resp.MemberEpoch
	if resp.Assignment != nil {
		m.owned = resp.Assignment.TopicPartitions
	}
	if resp.HeartbeatIntervalMs > 0 {
		m.interval = int64(resp.HeartbeatIntervalMs)
	}
}

// Closed records that connection conn closed at nowMs: every member whose
// last heartbeat came on it is kept from then on.
func (k *Keeper) Closed(conn uint64, nowMs int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, m := range k.members {
		if m.conn == conn && !m.orphan {
			m.orphan, m.next = true, nowMs
		}
	}
}

// Due returns the heartbeats due by nowMs for the members kept: each at
// the member's epoch, reporting what it was last given (so revocations
// complete and it stays current).
func (k *Keeper) Due(nowMs int64) []*codec.ConsumerGroupHeartbeatRequest {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []*codec.ConsumerGroupHeartbeatRequest
	keys := make([][2]string, 0, len(k.members))
	for key := range k.members {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return slices.Compare(a[:], b[:]) })
	for _, key := range keys {
		m := k.members[key]
		if !m.orphan || m.next > nowMs || m.epoch <= 0 {
			continue
		}
		m.next = nowMs + max(m.interval, 1)
		owned := append([]codec.ConsumerGroupHeartbeatTopicPartitions{}, m.owned...)
		out = append(out, &codec.ConsumerGroupHeartbeatRequest{GroupId: key[0], MemberId: key[1], MemberEpoch: m.epoch, RebalanceTimeoutMs: -1, TopicPartitions: owned})
	}
	return out
}

// Answered takes the broker's answer to a heartbeat Due gave: the member
// goes on at its new epoch, or, refused, is let go.
func (k *Keeper) Answered(req *codec.ConsumerGroupHeartbeatRequest, resp *codec.ConsumerGroupHeartbeatResponse) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := [2]string{req.GroupId, req.MemberId}
	m := k.members[key]
	if m == nil || !m.orphan {
		return
	}
	if resp == nil || resp.ErrorCode != codec.None {
		delete(k.members, key)
		return
	}
	k.answered(m, resp)
}

// Kept counts the members Keeper heartbeats for.
func (k *Keeper) Kept() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, m := range k.members {
		if m.orphan {
			n++
		}
	}
	return n
}
