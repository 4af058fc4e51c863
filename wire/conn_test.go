package wire_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
	"github.com/ghostcheck/ghostcheck/wire"
)

// answers replies to each request with an empty successful response of
// its api, at its version.
func answers(t *testing.T) func(r request) []byte {
	return func(r request) []byte {
		var m codec.Message
		switch r.Header.RequestApiKey {
		case codec.ApiVersions:
			m = apiVersions(4)
		case codec.ConsumerGroupDescribe:
			m = &codec.ConsumerGroupDescribeResponse{}
		case codec.ConsumerGroupHeartbeat:
			m = &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("m"), MemberEpoch: r.Header.CorrelationId}
		case codec.LeaveGroup:
			m = &codec.LeaveGroupResponse{}
		default:
			return nil
		}
		return reply(t, r.Header.CorrelationId, r.Header.RequestApiVersion, m)
	}
}

// A response frame above the cap is refused from its size prefix, before
// its body is allocated or read; the connection is unusable from then on.
func TestResponseSizeCap(t *testing.T) {
	cases := []struct {
		name    string
		max     int
		size    uint32
		refused bool
	}{
		{"the default cap refuses 1 GiB", 0, 1 << 30, true},
		{"the default cap refuses a negative size", 0, 1 << 31, true},
		{"a per-connection cap refuses a frame one byte above it", 64, 65, true},
		{"a per-connection cap takes a frame at it", 64, 64, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := startBroker(t, func(r request) []byte {
				out := binary.BigEndian.AppendUint32(nil, tc.size)
				out = binary.BigEndian.AppendUint32(out, uint32(r.Header.CorrelationId))
				if tc.size <= 64 {
					out = append(out, make([]byte, tc.size-4)...)
				}
				return out
			})
			c := dial(t, b.addr, wire.Options{MaxResponseSize: tc.max})
			if err := c.WriteRaw(rawFrame(t, headers(t, "cap").Next(codec.ApiVersions, 0), &codec.ApiVersionsRequest{})); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			frame, err := c.ReadFrame()
			runtime.ReadMemStats(&after)
			if !tc.refused {
				if err != nil || len(frame) != int(tc.size) {
					t.Fatalf("a %d-byte frame at a cap of %d should be read, got %d bytes, %v", tc.size, tc.max, len(frame), err)
				}
				return
			}
			if !errors.Is(err, codec.ErrFrameTooLarge) || !errors.Is(err, wire.ErrNoResponse) {
				t.Fatalf("a %d-byte frame should be refused as too large (no response), got %v", tc.size, err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
				t.Fatalf("refusing a frame should allocate next to nothing, allocated %d bytes", grew)
			}
			if _, err2 := c.ReadFrame(); !errors.Is(err2, codec.ErrFrameTooLarge) {
				t.Fatalf("after a refused frame the stream has lost its framing: every read should repeat the error, got %v", err2)
			}
			if err2 := c.Send(headers(t, "cap").Next(codec.ApiVersions, 0), &codec.ApiVersionsRequest{}); !errors.Is(err2, codec.ErrFrameTooLarge) {
				t.Fatalf("after a refused frame a send should repeat the error, got %v", err2)
			}
		})
	}
}

func rawFrame(t *testing.T, h *codec.RequestHeader, m codec.Message) []byte {
	t.Helper()
	b, err := codec.AppendRequest(nil, h, m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Pipelined requests are written in one Flush and their responses
// received in order, each decoded as the api its request named.
func TestPipeliningKeepsOrder(t *testing.T) {
	b := startBroker(t, answers(t))
	c := dial(t, b.addr, wire.Options{})
	hm := headers(t, "pipe")
	reqs := []struct {
		key codec.APIKey
		v   int16
		m   codec.Message
	}{
		{codec.ApiVersions, 3, &codec.ApiVersionsRequest{ClientSoftwareName: "t", ClientSoftwareVersion: "1"}},
		{codec.ConsumerGroupHeartbeat, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", RebalanceTimeoutMs: -1}},
		{codec.ConsumerGroupDescribe, 1, &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}},
		{codec.ConsumerGroupHeartbeat, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", RebalanceTimeoutMs: -1}},
	}
	for _, r := range reqs {
		if err := c.Buffer(hm.Next(r.key, r.v), r.m); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Send(hm.Next(codec.LeaveGroup, 3), &codec.LeaveGroupRequest{}); err == nil {
		t.Fatal("Send with requests buffered should be refused: it would overtake them")
	}
	if c.Pending() != len(reqs) {
		t.Fatalf("%d requests buffered, Pending says %d", len(reqs), c.Pending())
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if len(b.headers()) > len(reqs) {
		t.Fatal("the refused Send must not have been written")
	}
	var hb codec.ConsumerGroupHeartbeatResponse
	if err := c.ReceiveInto(&hb); err == nil {
		t.Fatal("ReceiveInto a heartbeat response while the oldest request is ApiVersions should be refused")
	}
	for i, r := range reqs {
		if r.key == codec.ConsumerGroupHeartbeat {
			if err := c.ReceiveInto(&hb); err != nil || hb.MemberEpoch != int32(i+1) {
				t.Fatalf("response %d: epoch %d (the broker's echo of the correlation id), %v; want %d", i, hb.MemberEpoch, err, i+1)
			}
			continue
		}
		resp, err := c.Receive()
		if err != nil || resp.Key() != r.key {
			t.Fatalf("response %d should answer %v, got %v, %v", i, r.key, resp, err)
		}
	}
	if _, err := c.Receive(); err == nil || c.Pending() != 0 {
		t.Fatal("Receive with nothing outstanding should be refused")
	}
}

// A response under another correlation id than the oldest request's is no
// response to it.
func TestCorrelationMismatch(t *testing.T) {
	b := startBroker(t, func(r request) []byte {
		return reply(t, r.Header.CorrelationId+1, 1, &codec.ConsumerGroupDescribeResponse{})
	})
	c := dial(t, b.addr, wire.Options{})
	_, err := c.RoundTrip(headers(t, "x").Next(codec.ConsumerGroupDescribe, 1), &codec.ConsumerGroupDescribeRequest{})
	if !errors.Is(err, wire.ErrNoResponse) || !strings.Contains(err.Error(), "correlation id 2, want 1") {
		t.Fatalf("a mismatched correlation id should be no response, got %v", err)
	}
}

// A broker closing the connection is ErrConnClosed, on Receive and on a
// raw read.
func TestBrokerCloses(t *testing.T) {
	b := startBroker(t, func(request) []byte { return nil })
	c := dial(t, b.addr, wire.Options{})
	_, err := c.RoundTrip(headers(t, "x").Next(codec.ConsumerGroupDescribe, 1), &codec.ConsumerGroupDescribeRequest{})
	if !errors.Is(err, wire.ErrConnClosed) || !errors.Is(err, wire.ErrNoResponse) {
		t.Fatalf("a close should be ErrConnClosed (an ErrNoResponse), got %v", err)
	}
	if _, err := c.ReadFrame(); !errors.Is(err, wire.ErrConnClosed) {
		t.Fatalf("a read after the close should say so again, got %v", err)
	}
}

func TestDialFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if c, err := wire.Dial(addr, wire.Options{Timeout: time.Second}); err == nil {
		c.Close()
		t.Fatal("dialing a closed port should fail")
	}
}

// KIP-1313 headers over a connection: ClientId on its first request and
// null afterwards (also on requests whose header is v1), the instance id
// in tag 0 of every v2 header; Reset starts a new connection's headers.
func TestHeadersOnTheWire(t *testing.T) {
	b := startBroker(t, answers(t))
	c := dial(t, b.addr, wire.Options{})
	hm := headers(t, "first")
	seq := []struct {
		key codec.APIKey
		v   int16
		m   codec.Message
	}{
		{codec.ApiVersions, 2, &codec.ApiVersionsRequest{}}, // header v1
		{codec.ConsumerGroupHeartbeat, 1, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m"}},
		{codec.LeaveGroup, 3, &codec.LeaveGroupRequest{GroupId: "g"}}, // header v1
		{codec.ConsumerGroupDescribe, 1, &codec.ConsumerGroupDescribeRequest{}},
	}
	for _, r := range seq {
		if _, err := c.RoundTrip(hm.Next(r.key, r.v), r.m); err != nil {
			t.Fatal(err)
		}
	}
	hs := b.headers()
	for i, h := range hs {
		if wantID := i == 0; h.ClientId.Valid != wantID || wantID && h.ClientId.Value != "first" {
			t.Errorf("request %d: ClientId %v; it belongs on the connection's first request only", i, h.ClientId)
		}
		hv, _ := codec.RequestHeaderVersion(h.RequestApiKey, h.RequestApiVersion)
		if want := hv >= 2; h.ClientInstanceId.Valid != want || want && h.ClientInstanceId.UUID != testInstance {
			t.Errorf("request %d (%v v%d, header v%d): instance id %v; want it in every v2 header", i, h.RequestApiKey, h.RequestApiVersion, hv, h.ClientInstanceId)
		}
		if h.CorrelationId != int32(i+1) {
			t.Errorf("request %d: correlation id %d, want %d", i, h.CorrelationId, i+1)
		}
	}
	hm.Reset()
	if h := hm.Next(codec.ConsumerGroupHeartbeat, 1); h.ClientId != codec.Str("first") || h.CorrelationId != int32(len(seq)+1) {
		t.Errorf("after Reset the next header should carry ClientId again and keep counting: %+v", h)
	}
}

func TestZeroInstanceIDRefused(t *testing.T) {
	if _, err := wire.NewHeaders(codec.Str("c"), codec.UUID{}); !errors.Is(err, wire.ErrZeroInstanceID) {
		t.Fatalf("NewHeaders with the zero UUID should be refused, got %v", err)
	}
	hm := headers(t, "c")
	if err := hm.SetInstanceID(codec.UUID{}); !errors.Is(err, wire.ErrZeroInstanceID) {
		t.Fatalf("SetInstanceID with the zero UUID should be refused, got %v", err)
	}
	if hm.InstanceID() != testInstance {
		t.Fatal("a refused SetInstanceID must keep the id")
	}
	// A source that gives the zero UUID first: drawn again.
	src := io.MultiReader(bytes.NewReader(make([]byte, 16)), bytes.NewReader(testInstance[:]))
	if u, err := wire.NewInstanceID(src); err != nil || u != testInstance {
		t.Fatalf("NewInstanceID should skip the zero UUID: %v %v", u, err)
	}
	if _, err := wire.NewInstanceID(bytes.NewReader(make([]byte, 20))); err == nil {
		t.Fatal("NewInstanceID from a source of zeros that runs dry should fail")
	}
}

// A Send refused because requests wait in the buffer takes nothing away:
// the buffered requests stay pending, and are received after a Flush.
func TestRefusedSendKeepsPending(t *testing.T) {
	b := startBroker(t, answers(t))
	for _, via := range []string{"RoundTrip", "Negotiate"} {
		t.Run(via, func(t *testing.T) {
			c := dial(t, b.addr, wire.Options{})
			hm := headers(t, "pend")
			if err := c.Buffer(hm.Next(codec.ConsumerGroupHeartbeat, 1), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", RebalanceTimeoutMs: -1}); err != nil {
				t.Fatal(err)
			}
			var err error
			if via == "RoundTrip" {
				_, err = c.RoundTrip(hm.Next(codec.ConsumerGroupDescribe, 1), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}})
			} else {
				_, err = c.Negotiate(hm, wire.NegotiateOptions{})
			}
			if err == nil {
				t.Fatalf("%s with a request buffered should be refused", via)
			}
			if c.Pending() != 1 {
				t.Fatalf("after the refused %s, Pending is %d: want the buffered request's 1", via, c.Pending())
			}
			if err := c.Flush(); err != nil {
				t.Fatal(err)
			}
			if resp, err := c.Receive(); err != nil || resp.Key() != codec.ConsumerGroupHeartbeat {
				t.Fatalf("the buffered request's answer: %v, %v", resp, err)
			}
		})
	}
}

// A Deadline is due at first, not again until half of its timeout has
// passed, and at once after Reset. The timeout is long enough that a
// loaded machine's pause between two steps does not pass half of it.
func TestDeadlineRenewsAtHalfLife(t *testing.T) {
	var d wire.Deadline
	const timeout = time.Second
	steps := []struct {
		what  string
		sleep time.Duration
		reset bool
		due   bool
	}{
		{"the first", 0, false, true},
		{"right after", 0, false, false},
		{"after a reset", 0, true, true},
		{"past half of it", timeout/2 + 50*time.Millisecond, false, true},
	}
	for _, s := range steps {
		time.Sleep(s.sleep)
		if s.reset {
			d.Reset()
		}
		at, due := d.Renew(timeout)
		if due != s.due || due && time.Until(at) <= timeout/2 {
			t.Errorf("%s: due %v at %v from now, want due %v", s.what, due, time.Until(at), s.due)
		}
	}
}

// PeerClosed tells an idle connection the broker closed from one it keeps
// open, without waiting, and counts bytes sent unasked as closed; with a
// request pending it does not look.
func TestPeerClosed(t *testing.T) {
	cases := []struct {
		name   string
		answer func(t *testing.T, r request) []byte
		closed bool
	}{
		{"kept open", func(t *testing.T, r request) []byte { return reply(t, r.Header.CorrelationId, 0, apiVersions(3)) }, false},
		{"closed after answering", nil, true},
		{"two answers to one request", func(t *testing.T, r request) []byte {
			b := reply(t, r.Header.CorrelationId, 0, apiVersions(3))
			return append(b, b...)
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var addr string
			if tc.answer != nil {
				addr = startBroker(t, func(r request) []byte { return tc.answer(t, r) }).addr
			} else {
				// Answer one request, then close: an EOF, no stray bytes.
				addr = nettest.Serve(t, func(nc net.Conn) {
					frame, err := codec.ReadFrame(nc, nil, 1<<20)
					if err != nil {
						return
					}
					var h codec.RequestHeader
					if _, err := codec.ParseRequestHeader(frame, &h, codec.DecodeOptions{}); err == nil {
						_, _ = nc.Write(reply(t, h.CorrelationId, 0, apiVersions(3)))
					}
				})
			}
			w, err := wire.Dial(addr, wire.Options{Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			hm, _ := wire.NewHeaders(codec.Str("c"), codec.UUID{1})
			if err := w.Send(hm.Next(codec.ApiVersions, 0), &codec.ApiVersionsRequest{}); err != nil {
				t.Fatal(err)
			}
			if w.PeerClosed() {
				t.Fatal("PeerClosed with a request pending")
			}
			if _, err := w.Receive(); err != nil {
				t.Fatal(err)
			}
			// The close (or the extra bytes) may still be on the way: ask
			// until it shows, for a bounded while.
			got := w.PeerClosed()
			for deadline := time.Now().Add(time.Second); tc.closed && !got && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
				got = w.PeerClosed()
			}
			if got != tc.closed {
				t.Fatalf("PeerClosed %v, want %v", got, tc.closed)
			}
			if !tc.closed {
				// Still usable: the look set no deadline that sticks.
				if _, err := w.RoundTrip(hm.Next(codec.ApiVersions, 0), &codec.ApiVersionsRequest{}); err != nil {
					t.Fatalf("a round trip after PeerClosed: %v", err)
				}
			} else if _, err := w.RoundTrip(hm.Next(codec.ApiVersions, 0), &codec.ApiVersionsRequest{}); err == nil {
				t.Fatal("a connection found closed served a request")
			}
		})
	}
}
