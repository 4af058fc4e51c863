package explore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The canonical form of a state, and its fingerprint.
//
// Two states are the same to the search when they behave alike from now
// on. The form writes what decides that, and leaves out what does not:
//
//   - Member ids are written as their rank among the ids the state holds
//     (ids.go: ids sort as they were made, so ranks keep the order the
//     coordinator sees).
//   - Times are written as distances from now (the coordinator's deadlines,
//     a request's timeout, a heartbeat's due time, an ended process's
//     grace), clamped at 0 where the past is all alike: time itself is
//     left out, so a group that heartbeats steadily comes back to the
//     state it left.
//   - Correlation ids are written as the one thing they decide: whether
//     an answer (or a request's answer) is the one its client awaits.
//   - Message order across connections is written only without Reorder,
//     as each message's rank in the send order.
//   - Identically configured clients are interchangeable (symmetry): their
//     blocks are sorted, so a state and its image under any permutation of
//     them have one form. A block holds nothing that names another slot:
//     each connection's KIP-1313 context is written with its client
//     (model.ConnClientID), and the model's encoding leaves connections
//     out.
//
// The fingerprint is a 64-bit hash of the form. Two different forms share
// a fingerprint with probability about 2^-64 for a pair, so a search of n
// states misses one through a collision with probability at most about
// n^2/2^65 (TLC's bound for its fingerprints): 3e-8 for 10^6 states, 3e-4
// for 10^8.

// encoder holds the buffers of one worker's encodings.
type encoder struct {
	blocks [maxClients][]byte
	idAt   [maxClients][]int32 // where each block holds an id number
	order  [maxClients]int
	out    []byte
	seqs   []uint32
	nums   []int // seqsScratch's
	ids    idSet
}

// fingerprint returns s's fingerprint (and leaves its form in w.enc.out).
func (w *worker) fingerprint(s *state) uint64 {
	e := &w.enc
	w.form(s.co)
	e.ids = s.co.ids
	e.seqs = e.seqs[:0]
	if !w.cfg.Faults.Has(Reorder) {
		for i := range s.slots {
			for _, cn := range s.slots[i].conns {
				for _, m := range cn.reqs {
					e.seqs = append(e.seqs, m.seq)
				}
				for _, m := range cn.resps {
					e.seqs = append(e.seqs, m.seq)
				}
			}
		}
		slices.Sort(e.seqs)
	}
	n := len(s.slots)
	for i := range s.slots {
		e.blocks[i], e.idAt[i] = w.appendSlot(e.blocks[i][:0], e.idAt[i][:0], s, i)
		e.order[i] = i
	}
	// Ranks, now that every id is known.
	for i := 0; i < n; i++ {
		for _, at := range e.idAt[i] {
			e.blocks[i][at] = e.ids.rank(int(e.blocks[i][at]))
		}
	}
	order := e.order[:n]
	if !w.cfg.NoSymmetry {
		slices.SortStableFunc(order, func(a, b int) int {
			if ca, cb := w.class[a], w.class[b]; ca != cb {
				return ca - cb
			}
			return bytes.Compare(e.blocks[a], e.blocks[b])
		})
	}
	out := e.out[:0]
	for _, i := range order {
		out = binary.AppendUvarint(out, uint64(len(e.blocks[i])))
		out = append(out, e.blocks[i]...)
	}
	from := len(out)
	out = append(out, s.co.enc...)
	for _, at := range s.co.idAt {
		out[from+int(at)] = e.ids.rank(int(out[from+int(at)]))
	}
	out = w.appendHeld(out, s)
	out = binary.AppendVarint(out, int64(s.faults))
	out = binary.AppendVarint(out, int64(s.admin))
	e.out = out
	return hash64(out)
}

// appendSlot appends slot i's block, each member id as its number (one
// byte, recorded in idAt), and adds those numbers to the encoder's set.
func (w *worker) appendSlot(b []byte, idAt []int32, s *state, i int) ([]byte, []int32) {
	sl := s.slots[i]
	now := s.now
	id := func(b []byte, id string) []byte {
		b, at, n := appendID(b, id)
		if n > 0 {
			w.enc.ids.add(n)
		}
		idAt = append(idAt, at)
		return b
	}
	b = append(b, flags(sl.c != nil, sl.live, sl.wants, sl.hb.set, sl.lv.set, sl.gm.set, sl.gmJoin))
	b = binary.AppendUvarint(b, uint64(sl.ops))
	if sl.k != nil {
		// A classic process: its consumer (its Client gives it headers
		// only: nothing of it decides what comes next).
		if sl.live {
			b = sl.k.AppendState(b, id)
		}
		if sl.gm.set {
			b = binary.AppendVarint(b, sl.gm.sentAt+w.gmTimeout(sl.gmJoin)-now)
		}
		if sl.live && sl.wants && sl.k.Heartbeating() && !sl.hb.set {
			b = binary.AppendVarint(b, max(sl.due-now, 0))
		}
		if sl.hbReq != nil {
			b = binary.AppendVarint(b, int64(sl.hbReq.GenerationId))
			b = id(b, sl.hbReq.MemberId)
		}
		ns := w.enc.seqsScratch(sl.rec.known)
		b = binary.AppendUvarint(b, uint64(len(ns)))
		for _, n := range ns {
			w.enc.ids.add(n)
			idAt = append(idAt, int32(len(b)))
			b = append(b, byte(n))
		}
	} else if sl.c != nil {
		// A process that ended does nothing more: of it, only the id it
		// held counts (what the invariants see of it is its record).
		if sl.live {
			b = sl.c.AppendState(b)
			b = id(b, sl.made)
		}
		b = id(b, sl.c.MemberID())
	}
	if sl.hb.set {
		b = binary.AppendVarint(b, sl.hb.sentAt+w.cfg.RequestTimeoutMs-now)
	}
	if sl.lv.set {
		b = binary.AppendVarint(b, sl.lv.sentAt+w.cfg.RequestTimeoutMs-now)
	}
	if sl.k == nil && sl.live && sl.wants && !sl.hb.set && !sl.lv.set {
		b = binary.AppendVarint(b, max(sl.due-now, 0))
	}
	appendRecord := func(r *record) {
		// The grace (graceUntil follows), its end as a distance; one in
		// the past is over for good (a delivery sets a new one).
		b = append(b, flags(r.seen, r.left, r.graceEnd > now))
		if r.graceEnd > now {
			b = binary.AppendVarint(b, r.graceEnd-now)
		}
		// The ids, as a set: sorted by number (ranks keep that order).
		ns := w.enc.seqsScratch(r.ids)
		b = binary.AppendUvarint(b, uint64(len(ns)))
		for _, n := range ns {
			w.enc.ids.add(n)
			idAt = append(idAt, int32(len(b)))
			b = append(b, byte(n))
		}
		b = id(b, r.memberID)
	}
	appendRecord(&sl.rec)
	// Ended processes: in a canonical order (their blocks sorted), so two
	// states that ended them in another order are one.
	// (One that no longer accounts for anything is as good as gone.)
	if len(sl.ended) > 0 {
		order := w.endedOrder(sl.ended, now)
		order = slices.DeleteFunc(order, func(k int) bool { return !sl.accounts(&sl.ended[k], now) })
		b = binary.AppendUvarint(b, uint64(len(order)))
		for _, k := range order {
			appendRecord(&sl.ended[k])
		}
	}
	for _, cn := range sl.conns {
		ctx, known := s.co.m.ConnClientID(cn.id)
		b = append(b, flags(cn.draining, cn.cc.Fresh(), known, cn.inc == sl.inc))
		if known {
			b = appendString(b, ctx)
		}
		if w.classic { // held requests name their connections (appendHeld)
			b = binary.AppendUvarint(b, cn.id)
		}
		for dir, q := range [2][]msg{cn.reqs, cn.resps} {
			b = binary.AppendUvarint(b, uint64(len(q)))
			for _, m := range q {
				b = append(b, flags(m.delayed, sl.hb.set && m.corr == sl.hb.corr && cn.inc == sl.inc, sl.lv.set && m.corr == sl.lv.corr && cn.inc == sl.inc,
					sl.gm.set && m.corr == sl.gm.corr && cn.inc == sl.inc))
				if !w.cfg.Faults.Has(Reorder) {
					r, _ := slices.BinarySearch(w.enc.seqs, m.seq)
					b = binary.AppendUvarint(b, uint64(r))
				}
				b = binary.AppendVarint(b, int64(m.version))
				if dir == 0 {
					b = appendRequest(b, m.h, m.req, id)
				} else {
					b = appendAnswer(b, m.resp, id)
				}
			}
		}
	}
	return b, idAt
}

// appendHeld appends the requests the coordinator holds, by delivery
// number (the model's form names them by it): whose they are (the slot,
// named by its index: with classic clients there is no symmetry), on
// which connection, whether their answer is one the process awaits, and
// whether it goes nowhere.
func (w *worker) appendHeld(b []byte, s *state) []byte {
	b = binary.AppendUvarint(b, uint64(len(s.held)))
	for _, h := range s.held {
		sl := s.slots[h.slot]
		cur := h.inc == sl.inc
		b = binary.AppendUvarint(b, h.delivery)
		b = append(b, byte(h.slot))
		b = binary.AppendUvarint(b, h.conn)
		b = append(b, flags(cur, h.orphan, cur && sl.gm.set && h.corr == sl.gm.corr, cur && sl.hb.set && h.corr == sl.hb.corr, cur && sl.lv.set && h.corr == sl.lv.corr))
		b = binary.AppendVarint(b, int64(h.version))
	}
	return b
}

// seqsScratch returns the id numbers of ids, sorted, in the encoder's
// scratch: valid until the next call (idNumbers makes a slice of its own).
func (e *encoder) seqsScratch(ids []string) []int {
	ns := e.nums[:0]
	for _, id := range ids {
		ns = append(ns, idNumber(id))
	}
	slices.Sort(ns)
	e.nums = ns
	return ns
}

// idNumbers returns the id numbers of ids, sorted, in a slice of its own.
func idNumbers(ids []string) []int {
	ns := make([]int, 0, len(ids))
	for _, id := range ids {
		ns = append(ns, idNumber(id))
	}
	slices.Sort(ns)
	return ns
}

// endedOrder orders ended records canonically: by their grace, then their
// ids' numbers (which rank alike in every state they are in).
func (w *worker) endedOrder(ended []record, now int64) []int {
	order := make([]int, len(ended))
	for k := range order {
		order[k] = k
	}
	if len(ended) > 1 {
		slices.SortStableFunc(order, func(a, b int) int {
			ga, gb := ended[a].graceUntil(), ended[b].graceUntil()
			if ga != gb {
				if ga < gb {
					return -1
				}
				return 1
			}
			return slices.Compare(idNumbers(ended[a].ids), idNumbers(ended[b].ids))
		})
	}
	return order
}

// appendRequest appends a request's header and body, its member id as a
// number.
func appendRequest(b []byte, h *codec.RequestHeader, req codec.Message, id func([]byte, string) []byte) []byte {
	b = append(b, flags(h.ClientId.Valid))
	if h.ClientId.Valid {
		b = appendString(b, h.ClientId.Value)
	}
	b = binary.AppendVarint(b, int64(req.Key()))
	switch r := req.(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		b = appendString(b, r.GroupId)
		b = id(b, r.MemberId)
		b = binary.AppendVarint(b, int64(r.MemberEpoch))
		b = appendNullable(b, r.InstanceId)
		b = appendNullable(b, r.RackId)
		b = binary.AppendVarint(b, int64(r.RebalanceTimeoutMs))
		b = append(b, flags(r.SubscribedTopicNames != nil, r.TopicPartitions != nil))
		b = binary.AppendUvarint(b, uint64(len(r.SubscribedTopicNames)))
		for _, n := range r.SubscribedTopicNames {
			b = appendString(b, n)
		}
		b = appendNullable(b, r.SubscribedTopicRegex)
		b = appendNullable(b, r.ServerAssignor)
		b = appendTopicPartitions(b, r.TopicPartitions)
	case *codec.JoinGroupRequest:
		b = appendString(b, r.GroupId)
		b = id(b, r.MemberId)
		b = appendNullable(b, r.GroupInstanceId)
		b = binary.AppendVarint(b, int64(r.SessionTimeoutMs))
		b = binary.AppendVarint(b, int64(r.RebalanceTimeoutMs))
		b = appendString(b, r.ProtocolType)
		b = binary.AppendUvarint(b, uint64(len(r.Protocols)))
		for _, p := range r.Protocols {
			b = appendString(b, p.Name)
			b = appendString(b, string(p.Metadata))
		}
	case *codec.SyncGroupRequest:
		b = appendString(b, r.GroupId)
		b = id(b, r.MemberId)
		b = binary.AppendVarint(b, int64(r.GenerationId))
		b = appendNullable(b, r.GroupInstanceId)
		b = appendNullable(b, r.ProtocolType)
		b = appendNullable(b, r.ProtocolName)
		b = binary.AppendUvarint(b, uint64(len(r.Assignments)))
		for _, a := range r.Assignments {
			b = id(b, a.MemberId)
			b = appendString(b, string(a.Assignment))
		}
	case *codec.HeartbeatRequest:
		b = appendString(b, r.GroupId)
		b = id(b, r.MemberId)
		b = binary.AppendVarint(b, int64(r.GenerationId))
		b = appendNullable(b, r.GroupInstanceId)
	case *codec.LeaveGroupRequest:
		b = appendString(b, r.GroupId)
		b = id(b, r.MemberId)
		b = binary.AppendUvarint(b, uint64(len(r.Members)))
		for _, m := range r.Members {
			b = id(b, m.MemberId)
			b = appendNullable(b, m.GroupInstanceId)
		}
	default:
		// Requests the explored clients do not send; written whole so
		// that nothing is merged that should not be.
		b = fmt.Appendf(b, "%+v", req)
	}
	return b
}

// appendAnswer appends what a client reads of an answer (not the error
// message), its member id as a number.
func appendAnswer(b []byte, resp codec.Message, id func([]byte, string) []byte) []byte {
	switch r := resp.(type) {
	case *codec.ConsumerGroupHeartbeatResponse:
		b = binary.AppendVarint(b, int64(r.ErrorCode))
		b = append(b, flags(r.MemberId.Valid, r.Assignment != nil))
		b = id(b, r.MemberId.Value)
		b = binary.AppendVarint(b, int64(r.MemberEpoch))
		b = binary.AppendVarint(b, int64(r.HeartbeatIntervalMs))
		if r.Assignment != nil {
			b = appendTopicPartitions(b, r.Assignment.TopicPartitions)
		}
	case *codec.JoinGroupResponse:
		b = binary.AppendVarint(b, int64(r.ErrorCode))
		b = binary.AppendVarint(b, int64(r.GenerationId))
		b = appendNullable(b, r.ProtocolType)
		b = appendNullable(b, r.ProtocolName)
		b = id(b, r.Leader)
		b = append(b, flags(r.SkipAssignment))
		b = id(b, r.MemberId)
		b = binary.AppendUvarint(b, uint64(len(r.Members)))
		for _, m := range r.Members {
			b = id(b, m.MemberId)
			b = appendNullable(b, m.GroupInstanceId)
			b = appendString(b, string(m.Metadata))
		}
	case *codec.SyncGroupResponse:
		b = binary.AppendVarint(b, int64(r.ErrorCode))
		b = appendNullable(b, r.ProtocolType)
		b = appendNullable(b, r.ProtocolName)
		b = appendString(b, string(r.Assignment))
	case *codec.HeartbeatResponse:
		b = binary.AppendVarint(b, int64(r.ErrorCode))
	case *codec.LeaveGroupResponse:
		b = binary.AppendVarint(b, int64(r.ErrorCode)) // what the clients read of it
	default:
		b = fmt.Appendf(b, "%+v", resp)
	}
	return b
}

func appendTopicPartitions(b []byte, tps []codec.ConsumerGroupHeartbeatTopicPartitions) []byte {
	b = binary.AppendUvarint(b, uint64(len(tps)))
	for _, t := range tps {
		b = append(b, t.TopicId[:]...)
		b = binary.AppendUvarint(b, uint64(len(t.Partitions)))
		for _, p := range t.Partitions {
			b = binary.AppendVarint(b, int64(p))
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendNullable(b []byte, s codec.NullableString) []byte {
	b = append(b, flags(s.Valid))
	return appendString(b, s.Value)
}

// flags packs up to eight booleans into a byte.
func flags(vs ...bool) byte {
	var f byte
	for k, v := range vs {
		if v {
			f |= 1 << k
		}
	}
	return f
}

// hash64 is the fingerprint of a form. Each 8-byte word is scrambled
// (multiply, rotate, multiply) and folded into the state, which is then
// rotated and multiplied: for a given word each step is a bijection of the
// state, so no word can wipe out what came before it. The tail and the
// length go in last, and a final avalanche spreads every bit over the
// result.
func hash64(b []byte) uint64 {
	const (
		c1 = 0x87c37b91114253d5
		c2 = 0x4cf5ad432745937f
	)
	h := uint64(len(b)) * 0x9e3779b97f4a7c15
	word := func(w uint64) {
		w *= c1
		w = bits.RotateLeft64(w, 31) * c2
		h ^= w
		h = bits.RotateLeft64(h, 27)*5 + 0x52dce729
	}
	for len(b) >= 8 {
		word(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	var tail [8]byte
	copy(tail[:], b)
	word(binary.LittleEndian.Uint64(tail[:]) ^ uint64(len(b))<<59)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
