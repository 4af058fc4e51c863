// Package splitbroker makes one broker of two, for tests that run real
// consumers against ghostcheck's own coordinator: the group coordination
// apis (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, DescribeGroups,
// ConsumerGroupHeartbeat, ConsumerGroupDescribe) go to ghostcheck's server,
// which answers nothing else, and every other request (Metadata,
// FindCoordinator, ListOffsets, Fetch, OffsetFetch, ...) to a full broker
// (kfake, in tests). ApiVersions is asked of both: the answer is the full
// broker's with the group apis' ranges replaced by the server's, so a
// client negotiates the group protocol with the coordinator that runs it.
//
// It forwards one request at a time per client connection, in order, over
// one connection to each side made on first use: a held JoinGroup holds
// its connection, as the server's muted socket does, and a client's
// pipelined requests keep their order. Only tests use it.
package splitbroker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
)

// GroupAPIs are the apis the group side answers.
var GroupAPIs = map[codec.APIKey]bool{
	codec.JoinGroup: true, codec.SyncGroup: true, codec.Heartbeat: true, codec.LeaveGroup: true,
	codec.DescribeGroups: true, codec.ConsumerGroupHeartbeat: true, codec.ConsumerGroupDescribe: true,
}

const (
	maxFrame = 100 << 20 // Kafka's socket.request.max.bytes
	// idle bounds a wait for the client's next request and for either
	// side's answer: a test that went away does not hold a connection.
	idle = 30 * time.Second
)

// Broker is a running split broker on 127.0.0.1.
type Broker struct {
	group, rest string
	ln          net.Listener
	wg          sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool
}

// Start runs a split broker in front of group (ghostcheck's server) and
// rest (a full broker) until tb ends.
func Start(tb testing.TB, group, rest string) *Broker {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	b := &Broker{group: group, rest: rest, ln: ln, conns: map[net.Conn]bool{}}
	b.wg.Add(1)
	go b.accept()
	tb.Cleanup(b.Close)
	return b
}

// Addr is the broker's address, HOST:PORT.
func (b *Broker) Addr() string { return b.ln.Addr().String() }

// Dial connects to the split broker whatever addr says: as a proxy's
// upstream dialer (proxy.Config.DialUpstream) it keeps every broker the
// full broker's Metadata names on this one (a one-broker cluster).
func (b *Broker) Dial(ctx context.Context, _ string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", b.Addr())
}

// Close stops accepting, closes every connection and waits for them.
func (b *Broker) Close() {
	b.mu.Lock()
	b.closed = true
	for c := range b.conns {
		c.Close()
	}
	b.mu.Unlock()
	b.ln.Close()
	b.wg.Wait()
}

// track keeps c to be closed by Close, and reports whether to use it.
func (b *Broker) track(c net.Conn) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		c.Close()
		return false
	}
	b.conns[c] = true
	return true
}

func (b *Broker) untrack(c net.Conn) {
	b.mu.Lock()
	delete(b.conns, c)
	b.mu.Unlock()
	c.Close()
}

func (b *Broker) accept() {
	defer b.wg.Done()
	for {
		nc, err := b.ln.Accept()
		if err != nil {
			return
		}
		if !b.track(nc) {
			continue
		}
		b.wg.Add(1)
		go b.serve(nc)
	}
}

// side is a client connection's connection to one of the two brokers,
// dialed on first use.
type side struct {
	b    *Broker
	addr string
	conn net.Conn
}

func (s *side) roundTrip(frame []byte) ([]byte, error) {
	if s.conn == nil {
		c, err := net.DialTimeout("tcp", s.addr, 5*time.Second)
		if err != nil {
			return nil, err
		}
		if !s.b.track(c) {
			return nil, net.ErrClosed
		}
		s.conn = c
	}
	_ = s.conn.SetDeadline(time.Now().Add(idle))
	out, start := codec.BeginFrame(nil)
	if _, err := s.conn.Write(codec.FinishFrame(append(out, frame...), start)); err != nil {
		return nil, err
	}
	return codec.ReadFrame(s.conn, nil, maxFrame)
}

func (s *side) close() {
	if s.conn != nil {
		s.b.untrack(s.conn)
	}
}

// apiVersionsMax is the highest ApiVersions version codec reads, so the
// highest the split broker merges.
var apiVersionsMax = codec.Lookup(codec.ApiVersions).MaxVersion

// errShort is a request frame too short for a request header.
var errShort = errors.New("splitbroker: a request frame shorter than its header")

func (b *Broker) serve(client net.Conn) {
	defer b.wg.Done()
	defer b.untrack(client)
	group, rest := &side{b: b, addr: b.group}, &side{b: b, addr: b.rest}
	defer group.close()
	defer rest.close()
	for {
		_ = client.SetReadDeadline(time.Now().Add(idle))
		frame, err := codec.ReadFrame(client, nil, maxFrame)
		if err != nil {
			return
		}
		resp, err := b.answer(frame, group, rest)
		if err != nil {
			return // as a broker that cannot answer: the connection closes
		}
		out, start := codec.BeginFrame(nil)
		_ = client.SetWriteDeadline(time.Now().Add(idle))
		if _, err := client.Write(codec.FinishFrame(append(out, resp...), start)); err != nil {
			return
		}
	}
}

// answer is the response frame (without its size prefix) to one request.
func (b *Broker) answer(frame []byte, group, rest *side) ([]byte, error) {
	if len(frame) < 8 {
		return nil, errShort
	}
	key := codec.APIKey(binary.BigEndian.Uint16(frame))
	switch {
	case GroupAPIs[key]:
		return group.roundTrip(frame)
	case key != codec.ApiVersions:
		return rest.roundTrip(frame)
	}
	version := int16(binary.BigEndian.Uint16(frame[2:]))
	corr := int32(binary.BigEndian.Uint32(frame[4:]))
	if version > apiVersionsMax {
		// KIP-511: too new to merge (codec reads neither side's
		// answer); the client retries at the version named.
		out, err := codec.AppendResponse(nil, corr, 0, &codec.ApiVersionsResponse{ErrorCode: codec.UnsupportedVersion,
			ApiKeys: []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MaxVersion: apiVersionsMax}}})
		if err != nil {
			return nil, err
		}
		return out[4:], nil
	}
	restResp, err := rest.roundTrip(frame)
	if err != nil {
		return nil, err
	}
	groupResp, err := group.roundTrip(frame)
	if err != nil {
		return nil, err
	}
	return MergeApiVersions(restResp, groupResp, corr, version)
}

// MergeApiVersions is the full broker's ApiVersions answer (a response
// frame without its size prefix, to a request at version) with each group
// api's range taken from the group side's answer, and a group api the
// group side does not offer left out. An answer holding an error (an
// unsupported version: the client retries lower) is the full broker's as
// it came.
func MergeApiVersions(restResp, groupResp []byte, corr int32, version int16) ([]byte, error) {
	rest, v, err := decodeApiVersions(restResp, version)
	if err != nil {
		return nil, err
	}
	if rest.ErrorCode != codec.None {
		return restResp, nil
	}
	group, _, err := decodeApiVersions(groupResp, version)
	if err != nil {
		return nil, err
	}
	offered := map[codec.APIKey]codec.ApiVersionsKey{}
	for _, k := range group.ApiKeys {
		if GroupAPIs[k.ApiKey] {
			offered[k.ApiKey] = k
		}
	}
	keys := rest.ApiKeys[:0]
	for _, k := range rest.ApiKeys {
		if GroupAPIs[k.ApiKey] {
			g, ok := offered[k.ApiKey]
			if !ok {
				continue
			}
			k.MinVersion, k.MaxVersion = g.MinVersion, g.MaxVersion
			delete(offered, k.ApiKey)
		}
		if k.ApiKey == codec.ApiVersions {
			k.MaxVersion = min(k.MaxVersion, apiVersionsMax)
		}
		keys = append(keys, k)
	}
	for _, g := range group.ApiKeys { // offered by the group side only
		if _, ok := offered[g.ApiKey]; ok {
			keys = append(keys, g)
		}
	}
	rest.ApiKeys = keys
	out, err := codec.AppendResponse(nil, corr, v, rest)
	if err != nil {
		return nil, err
	}
	return out[4:], nil
}

// decodeApiVersions decodes an ApiVersions answer at version, else at v0
// (KIP-511: an unsupported version is answered with a v0 body), and says
// which.
func decodeApiVersions(resp []byte, version int16) (*codec.ApiVersionsResponse, int16, error) {
	_, m, err := codec.DecodeResponse(resp, codec.ApiVersions, version, codec.DecodeOptions{})
	if err == nil {
		return m.(*codec.ApiVersionsResponse), version, nil
	}
	if _, m, err0 := codec.DecodeResponse(resp, codec.ApiVersions, 0, codec.DecodeOptions{}); err0 == nil {
		return m.(*codec.ApiVersionsResponse), 0, nil
	}
	return nil, 0, fmt.Errorf("splitbroker: an ApiVersions v%d answer that does not decode: %w", version, err)
}
