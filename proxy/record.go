package proxy

import (
	"sort"
	"time"
	"unsafe"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Recording is kept cheap on the forwarding path: a request's record holds
// its header (whose ClientId string is reused while it does not change)
// and, for the apis the rules read, copies of its body and its response's
// body in a per-connection arena; nothing is decoded until the run ends
// (Recording). Records live in fixed chunks that never move, so the
// goroutine relaying responses can fill in a record the request's
// goroutine made.

// rec is one recorded request.
type rec struct {
	seq uint64 // arrival order over every connection
	at  time.Duration
	// answered is when the response was relayed to the client (0: none
	// recorded).
	answered time.Duration
	connSeq  int
	hv       int16
	h        codec.RequestHeader
	req      []byte // body, for decodedBodies apis
	resp     []byte // response body the client got (or the broker gave, when dropped)
	fault    Fault
	dropped  bool
	// versions is the ApiVersions answer, read off its bytes (codec
	// decodes ApiVersions only to v4).
	versions *codec.ApiVersionsResponse
	// skip leaves the record out of the recording: its answer did not
	// fit MaxRecordedBytes.
	skip bool
}

// recSize is what a record costs the recording's budget before its
// ClientId, tags and bodies.
const recSize = int(unsafe.Sizeof(rec{}))

// versionsSize is what an ApiVersions answer read off its bytes costs the
// recording's budget.
func versionsSize(vs *codec.ApiVersionsResponse) int {
	return int(unsafe.Sizeof(*vs)) + len(vs.ApiKeys)*int(unsafe.Sizeof(codec.ApiVersionsKey{}))
}

// Record chunks start small and double up to maxRecChunk: most
// connections record a handful of requests (a client's bootstrap
// connection, say), and what they recorded is kept for the whole run.
const (
	firstRecChunk = 4
	maxRecChunk   = 128
)

// records are one connection's records, in chunks whose storage never
// moves (each is filled within its capacity, never appended past it).
type records struct {
	chunks [][]rec
	n      int
}

// next returns a fresh record at the end.
func (rs *records) next() *rec {
	last := len(rs.chunks) - 1
	if last < 0 || len(rs.chunks[last]) == cap(rs.chunks[last]) {
		size := firstRecChunk
		if last >= 0 {
			size = min(2*cap(rs.chunks[last]), maxRecChunk)
		}
		rs.chunks = append(rs.chunks, make([]rec, 0, size))
		last++
	}
	rs.chunks[last] = append(rs.chunks[last], rec{})
	rs.n++
	return &rs.chunks[last][len(rs.chunks[last])-1]
}

func (rs *records) each(f func(*rec)) {
	for _, ch := range rs.chunks {
		for i := range ch {
			f(&ch[i])
		}
	}
}

// arena holds copies of recorded bodies in chunks that never move; like
// the records' chunks they start small and double.
type arena struct{ cur []byte }

const (
	firstArenaChunk = 512
	arenaChunk      = 16 << 10
)

// copy returns a copy of b kept in the arena.
func (a *arena) copy(b []byte) []byte {
	if len(b) > arenaChunk/4 {
		return append([]byte(nil), b...)
	}
	if cap(a.cur)-len(a.cur) < len(b) {
		size := firstArenaChunk
		if cap(a.cur) > 0 {
			size = min(2*cap(a.cur), arenaChunk)
		}
		a.cur = make([]byte, 0, max(size, len(b)))
	}
	start := len(a.cur)
	a.cur = append(a.cur, b...)
	return a.cur[start:len(a.cur):len(a.cur)]
}

// connRecord is what Recording needs of a connection: a copy of its
// records, so that nothing else of the connection (its buffers) outlives
// it.
type connRecord struct {
	id     uint64
	broker string
	recs   records
}

// toRequest decodes one record into what the client rules read.
func (r *rec) toRequest(c connRecord) rules.ClientRequest {
	out := rules.ClientRequest{Conn: c.id, Broker: c.broker, Seq: r.connSeq, At: r.at.Milliseconds(), Answered: r.answered.Milliseconds(), HeaderVersion: r.hv,
		Header: r.h, API: APIName(r.h.RequestApiKey), Fault: r.fault.String()}
	api := codec.Lookup(r.h.RequestApiKey)
	v := r.h.RequestApiVersion
	if api != nil && api.Supports(v) {
		if r.req != nil {
			m := api.NewMessage(false)
			if codec.DecodeBody(m, r.req, v, codec.DecodeOptions{}) == nil {
				out.Request = m
			}
		}
		if r.resp != nil {
			m := api.NewMessage(true)
			if codec.DecodeBody(m, r.resp, v, codec.DecodeOptions{}) == nil {
				out.Response = m
			}
		}
	}
	if r.versions != nil {
		out.Response = r.versions
	}
	if r.dropped {
		out.Fault = "response dropped"
		if code, ok := codec.GroupErrorCode(out.Response); ok {
			out.Fault += " (the broker answered " + code.String() + ")"
		}
		out.Response = nil
	}
	return out
}

// gather decodes every record of conns, in arrival order.
func gather(conns []connRecord) []rules.ClientRequest {
	type keyed struct {
		seq uint64
		r   rules.ClientRequest
	}
	var all []keyed
	for _, c := range conns {
		c.recs.each(func(r *rec) {
			if !r.skip {
				all = append(all, keyed{r.seq, r.toRequest(c)})
			}
		})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].seq < all[j].seq })
	out := make([]rules.ClientRequest, len(all))
	for i := range all {
		out[i] = all[i].r
	}
	return out
}
