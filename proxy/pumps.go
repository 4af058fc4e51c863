package proxy

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/wire"
)

// maxBatch is the most the request pump gathers before writing to the
// broker: a client that pipelines writes several frames in one, and one
// that never pauses (acks=0 Produce requests, which are owed no answer,
// so no in-flight cap holds them back) still has its frames forwarded as
// they come, with the broker's pace pushing back on it.
const maxBatch = 64 << 10

// pumpRequests relays the client's requests to the broker until either
// side ends the connection. Frames are gathered while more of the client's
// bytes wait in the buffer, and written when none do or the batch passes
// maxBatch.
func (c *conn) pumpRequests() error {
	var out []byte
	for seq := 0; ; seq++ {
		if len(out) > 0 && (c.creq.br.Buffered() == 0 || len(out) >= maxBatch) {
			if err := c.writeUp(out); err != nil {
				return err
			}
			out = out[:0]
		}
		size, b, whole, err := c.creq.next()
		if err != nil {
			return err
		}
		if size < 8 {
			return errShortHeader
		}
		var fault Fault
		if out, fault, err = c.request(out, seq, size, b, whole); err != nil {
			return err
		}
		if fault.Kind == CloseAfterForward {
			if err := c.writeUp(out); err != nil {
				return err
			}
			return errFaultClosed
		}
	}
}

// request handles one request frame: it records it, decides its fault,
// and appends it to out (or streams it, or answers it), consuming it.
func (c *conn) request(out []byte, seq, size int, b []byte, whole bool) ([]byte, Fault, error) {
	frame := b[4:]
	hv, bodyAt, err := parseHeader(frame, &c.h)
	if err != nil {
		return out, Fault{}, err
	}
	c.p.requests.Add(1)
	body := frame[bodyAt:]
	keep := whole && decodedBodies(c.h.RequestApiKey)
	kept := 0
	if keep {
		kept = len(body)
	}
	r := c.record(seq, hv, kept)
	if r != nil && keep {
		r.req = c.reqArena.copy(body)
	}
	var fault Fault
	c.group = nil
	if whole && isGroupAPI(c.h.RequestApiKey) && c.p.cfg.Faults != nil {
		fault = c.decide(seq, body)
	}
	if c.h.RequestApiKey == codec.JoinGroup || c.h.RequestApiKey == codec.SyncGroup {
		c.held(body, whole)
	}
	e := entry{rec: r, key: c.h.RequestApiKey, version: c.h.RequestApiVersion, corr: c.h.CorrelationId, fault: fault}
	if fault.Kind == AnswerError {
		if e.synthetic = c.answerFor(fault); e.synthetic != nil {
			c.recordAnswer(r, e.synthetic, fault)
			c.creq.br.Discard(len(b))
			return out, fault, c.answer(e)
		}
		e.fault, fault = Fault{}, Fault{} // not answerable: forwarded as it is
	}
	if fault.Kind != NoFault {
		c.p.faults.Add(1)
		if r != nil {
			r.fault = fault
		}
	}
	if c.h.RequestApiKey != keyProduce || !produceNeedsNoResponse(body, c.h.RequestApiVersion) {
		if err := c.push(e); err != nil {
			return out, fault, err
		}
	}
	if whole {
		out = append(out, b...)
		c.creq.br.Discard(len(b))
		return out, fault, nil
	}
	if err := c.writeUp(out); err != nil {
		return out[:0], fault, err
	}
	return out[:0], fault, c.stream(c.up, &c.uwdl, c.creq.br, 4+size)
}

// record makes the record of the request whose header c.h holds, which
// will keep a body of body bytes (nil past MaxRecords or
// MaxRecordedBytes).
func (c *conn) record(seq int, hv int16, body int) *rec {
	cost := recSize + len(c.h.ClientId.Value) + body
	for _, t := range c.h.UnknownTags {
		cost += 16 + len(t.Data)
	}
	if c.p.recorded.Add(1) > uint64(c.p.cfg.MaxRecords) || !c.p.reserve(cost) {
		c.p.unrecorded.Add(1)
		return nil
	}
	r := c.recs.next()
	r.seq, r.at, r.connSeq, r.hv, r.h = c.p.seq.Add(1), c.p.since(), seq, hv, c.h
	if len(c.h.UnknownTags) > 0 {
		// c.h's tags are reused by the next parse.
		r.h.UnknownTags = append(codec.TaggedFields(nil), c.h.UnknownTags...)
	}
	return r
}

// decide asks the Injector about a group request (decoding it when codec
// can: the injector may look at epochs, generations, member and instance
// ids).
func (c *conn) decide(seq int, body []byte) Fault {
	gr := GroupRequest{Conn: c.id, Broker: c.l.upstream, Seq: seq, N: int(c.p.groupReqs.Add(1) - 1), Header: &c.h}
	switch m := c.decodeGroup(body).(type) {
	case *codec.ConsumerGroupHeartbeatRequest:
		gr.Heartbeat = m
	case *codec.LeaveGroupRequest:
		gr.LeaveGroup = m
	case *codec.JoinGroupRequest:
		gr.JoinGroup = m
	case *codec.SyncGroupRequest:
		gr.SyncGroup = m
	case *codec.HeartbeatRequest:
		gr.ClassicHeartbeat = m
	}
	return c.p.cfg.Faults.Fault(gr)
}

// decodeGroup decodes the group request whose header c.h holds into the
// connection's own struct for its api, without copying, and keeps it in
// c.group until the next request (nil for another api, a version codec
// does not decode, or a body that does not decode).
func (c *conn) decodeGroup(body []byte) codec.Message {
	c.group = c.decodeGroupInto(body)
	return c.group
}

func (c *conn) decodeGroupInto(body []byte) codec.Message {
	var m interface {
		codec.Message
		Decode([]byte, int16, codec.DecodeOptions) error
	}
	switch c.h.RequestApiKey {
	case codec.ConsumerGroupHeartbeat:
		m = &c.hb
	case codec.LeaveGroup:
		m = &c.lg
	case codec.JoinGroup:
		m = &c.jg
	case codec.SyncGroup:
		m = &c.sg
	case codec.Heartbeat:
		m = &c.chb
	default:
		return nil
	}
	v := c.h.RequestApiVersion
	if !codec.Lookup(c.h.RequestApiKey).Supports(v) || m.Decode(body, v, codec.DecodeOptions{NoCopy: true}) != nil {
		return nil
	}
	return m
}

// answerFor encodes the error answer of an AnswerError fault to the
// request decide just decoded (nil when there is none to give).
func (c *conn) answerFor(f Fault) []byte {
	if c.group == nil {
		return nil
	}
	return errorResponse(&c.h, c.group, f.Code)
}

// joinLapse is what a held JoinGroup or SyncGroup may take beyond the
// rebalance timeout, as Kafka's client allows it (its JoinGroup request
// timeout is the rebalance timeout plus 5 s).
const joinLapse = 5 * time.Second

// held keeps the client's connection open, past IdleTimeout if need be,
// while the broker may hold the JoinGroup or SyncGroup just read: a
// JoinGroup waits for the rebalance (up to its RebalanceTimeoutMs; v0's
// is its SessionTimeoutMs), a SyncGroup for the leader's assignment (up
// to the same timeout, the latest JoinGroup's on the connection, else the
// longest any connection asked for), and the client says nothing
// meanwhile.
func (c *conn) held(body []byte, whole bool) {
	if c.h.RequestApiKey == codec.JoinGroup && whole {
		if c.group == nil {
			c.decodeGroup(body)
		}
		if jg, ok := c.group.(*codec.JoinGroupRequest); ok {
			ms := jg.RebalanceTimeoutMs
			if c.h.RequestApiVersion == 0 {
				ms = jg.SessionTimeoutMs
			}
			c.rebalance = time.Duration(max(ms, 0)) * time.Millisecond
			c.p.noteRebalance(c.rebalance)
		}
	}
	d := c.rebalance
	if d == 0 {
		d = time.Duration(c.p.maxRebalance.Load())
	}
	if d > 0 && c.creq.idle > 0 {
		c.creq.holdFor(d + joinLapse)
	}
}

// recordAnswer records an answer the proxy made as the response the
// client got.
func (c *conn) recordAnswer(r *rec, frame []byte, f Fault) {
	c.p.faults.Add(1)
	if r == nil {
		return
	}
	r.fault = f
	if at := responseBody(frame, c.h.RequestApiKey, c.h.RequestApiVersion); at > 0 && c.keep(r, len(frame)-at) {
		r.resp = c.reqArena.copy(frame[at:])
	}
}

// keep reserves n more bytes of the recording's budget for r; when they
// do not fit, r is left out of the recording (counted unrecorded): a
// request without the answer the client got would be judged wrongly.
func (c *conn) keep(r *rec, n int) bool {
	if c.p.reserve(n) {
		return true
	}
	r.skip = true
	c.p.unrecorded.Add(1)
	return false
}

// responseBody is where the body of a response frame (size prefix
// included) to key at version starts (0 if the frame is too short).
func responseBody(frame []byte, key codec.APIKey, version int16) int {
	if len(frame) < 8 {
		return 0
	}
	if hv, err := codec.ResponseHeaderVersion(key, version); err == nil && hv >= 1 {
		return max(skipTags(frame, 8), 0)
	}
	return 8
}

// push queues a request owed an answer.
func (c *conn) push(e entry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enqueue(e)
}

// enqueue appends e to the queue, reusing its storage once it empties.
// The caller holds c.mu.
func (c *conn) enqueue(e entry) error {
	if len(c.q) >= maxInFlight {
		return errInFlight
	}
	if len(c.q) == 0 {
		c.q = c.qbuf[:0]
	}
	c.q = append(c.q, e)
	if cap(c.q) > cap(c.qbuf) {
		c.qbuf = c.q[:0]
	}
	return nil
}

// answer puts an answer the proxy made in its place: written at once when
// nothing is owed before it (the response pump is then idle, its output
// written), else queued for the response pump.
func (c *conn) answer(e entry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.q) > 0 || c.busy {
		return c.enqueue(e)
	}
	_ = c.client.SetWriteDeadline(time.Now().Add(c.p.cfg.WriteTimeout))
	_, err := c.client.Write(e.synthetic)
	return err
}

func (c *conn) writeUp(b []byte) error { return write(c.up, &c.uwdl, c.p.cfg.WriteTimeout, b) }

func (c *conn) writeClient(b []byte) error {
	return write(c.client, &c.cwdl, c.p.cfg.WriteTimeout, b)
}

// stream copies the next n bytes of src to dst, a frame too large to
// hold, under a fresh write deadline (the reader's frame deadline bounds
// the reading).
func (c *conn) stream(dst net.Conn, dl *wire.Deadline, src io.Reader, n int) error {
	dl.Reset()
	if at, due := dl.Renew(c.p.cfg.WriteTimeout); due {
		_ = dst.SetWriteDeadline(at)
	}
	_, err := io.CopyN(dst, src, int64(n))
	if err == io.EOF {
		return io.ErrUnexpectedEOF // the frame had begun
	}
	return err
}

// pumpResponses relays the broker's answers to the client until either
// side ends the connection.
func (c *conn) pumpResponses() error {
	var out []byte
	for {
		if c.uresp.br.Buffered() < 4 {
			var err error
			if out, err = c.settle(out); err != nil {
				return err
			}
		}
		size, b, whole, err := c.uresp.next()
		if err != nil {
			return err
		}
		if size < 4 {
			return errShortHeader
		}
		c.mu.Lock()
		c.busy = true
		// Answers of the proxy's queued while the last answer owed was
		// being read go first: they precede this one.
		out = c.drainAnswers(out)
		var e entry
		ok := len(c.q) > 0
		if ok {
			e = c.q[0]
		}
		c.mu.Unlock()
		if !ok {
			return errUnsolicited
		}
		if corr := int32(binary.BigEndian.Uint32(b[4:8])); corr != e.corr {
			return fmt.Errorf("%w: %d, want %d (%v v%d)", errCorrelation, corr, e.corr, e.key, e.version)
		}
		if e.fault.Kind == CloseAfterForward {
			// The broker answered before the request pump closed the
			// connection: the client must not see it. What came before
			// goes out; the connection ends here.
			if err := c.writeClient(out); err != nil {
				return err
			}
			return errFaultClosed
		}
		if out, err = c.response(out, e, size, b, whole); err != nil {
			return err
		}
		c.mu.Lock()
		c.q[0] = entry{}
		c.q = c.q[1:]
		out = c.drainAnswers(out)
		c.mu.Unlock()
	}
}

// drainAnswers appends the proxy's own answers now at the head of the
// queue to out. The caller holds c.mu.
func (c *conn) drainAnswers(out []byte) []byte {
	for len(c.q) > 0 && c.q[0].synthetic != nil {
		out = append(out, c.q[0].synthetic...)
		c.q[0] = entry{}
		c.q = c.q[1:]
	}
	return out
}

// settle writes out and, when nothing more is owed, marks the response
// pump idle, so the request pump may write its own answers directly.
func (c *conn) settle(out []byte) ([]byte, error) {
	for {
		if len(out) > 0 {
			if err := c.writeClient(out); err != nil {
				return out[:0], err
			}
			out = out[:0]
		}
		c.mu.Lock()
		out = c.drainAnswers(out)
		if len(out) == 0 {
			c.busy = len(c.q) > 0
			c.mu.Unlock()
			return out, nil
		}
		c.mu.Unlock()
	}
}

// response handles the broker's answer to e (the frame next found),
// consuming it: rewritten (routing), read for the record, dropped,
// delayed, or relayed as it is.
func (c *conn) response(out []byte, e entry, size int, b []byte, whole bool) ([]byte, error) {
	if e.fault.Kind == DelayResponse {
		if err := c.writeClient(out); err != nil {
			return out[:0], err
		}
		out = out[:0]
		select {
		case <-time.After(e.fault.Delay):
		case <-c.done:
			return out, errProxyClosed
		}
		c.uresp.rearm()
	}
	if e.fault.Kind == DropResponse && !whole {
		// Too large to keep: the broker answered, which is all a drop
		// needs.
		if e.rec != nil {
			e.rec.dropped = true
		}
		if err := c.writeClient(out); err != nil {
			return out[:0], err
		}
		return out[:0], errDropped
	}
	read := e.key == codec.Metadata || e.key == codec.FindCoordinator || e.key == codec.ApiVersions ||
		e.rec != nil && decodedBodies(e.key) && size <= maxRecordedFrame || e.fault.Kind == DropResponse
	if !read {
		if whole {
			c.uresp.br.Discard(len(b))
			return append(out, b...), nil
		}
		if err := c.writeClient(out); err != nil {
			return out[:0], err
		}
		return out[:0], c.stream(c.client, &c.cwdl, c.uresp.br, 4+size)
	}
	frame, consumed, err := c.uresp.whole(size, b, whole)
	if err != nil {
		return out, err
	}
	if !consumed {
		defer c.uresp.br.Discard(len(frame))
	}
	start := len(out)
	switch e.key {
	case codec.Metadata, codec.FindCoordinator:
		out, err = rewriteRouting(out, frame[4:], e.key, e.version, c.p)
	case codec.ApiVersions:
		out = append(out, frame...)
		if vs, ok := capVersions(out[start+8:], e.version); ok && e.rec != nil && c.keep(e.rec, versionsSize(vs)) {
			e.rec.versions = vs
		}
	default:
		if at := responseBody(frame, e.key, e.version); at > 0 && e.rec != nil && c.keep(e.rec, len(frame)-at) {
			e.rec.resp, e.rec.answered = c.respArena.copy(frame[at:]), c.p.since()
		}
		out = append(out, frame...)
	}
	if e.fault.Kind == DropResponse {
		if e.rec != nil {
			e.rec.dropped = true
		}
		if werr := c.writeClient(out[:start]); werr != nil {
			return out[:0], werr
		}
		return out[:0], errDropped
	}
	return out, err
}
