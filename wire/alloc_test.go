package wire_test

import (
	"net"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/wire"
)

// echoConn is an in-memory broker connection that answers every request
// with the same response frame: writes are dropped, reads serve the frame
// again and again. It allocates nothing, so allocations measured over it
// are the Conn's own.
type echoConn struct {
	frame []byte
	off   int
}

func (e *echoConn) Read(p []byte) (int, error) {
	n := copy(p, e.frame[e.off:])
	e.off = (e.off + n) % len(e.frame)
	return n, nil
}
func (e *echoConn) Write(p []byte) (int, error)        { return len(p), nil }
func (e *echoConn) Close() error                       { return nil }
func (e *echoConn) LocalAddr() net.Addr                { return nil }
func (e *echoConn) RemoteAddr() net.Addr               { return nil }
func (e *echoConn) SetDeadline(time.Time) error        { return nil }
func (e *echoConn) SetReadDeadline(t time.Time) error  { return nil }
func (e *echoConn) SetWriteDeadline(t time.Time) error { return nil }

// A client heartbeating at full speed allocates nothing per request:
// Headers.Fill into a reused header, Send, ReceiveInto a reused response
// (the load benchmark of impl/server relies on it).
func TestSteadyHeartbeatAllocatesNothing(t *testing.T) {
	resp := &codec.ConsumerGroupHeartbeatResponse{MemberId: codec.Str("member-1"), MemberEpoch: 3, HeartbeatIntervalMs: 5000}
	frame, err := codec.AppendResponse(nil, 1, 1, resp)
	if err != nil {
		t.Fatal(err)
	}
	c := wire.NewConn(&echoConn{frame: frame}, wire.Options{})
	req := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "member-1", MemberEpoch: 3, RebalanceTimeoutMs: -1}
	var h codec.RequestHeader
	var got codec.ConsumerGroupHeartbeatResponse
	hm, err := wire.NewHeaders(codec.Str("c"), testInstance)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		hm.Fill(&h, codec.ConsumerGroupHeartbeat, 1)
		h.CorrelationId = 1 // the echoed frame's
		if err := c.Send(&h, req); err != nil {
			t.Fatal(err)
		}
		if err := c.ReceiveInto(&got); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("a steady heartbeat should allocate nothing, allocated %.1f per request", allocs)
	}
	if got.MemberEpoch != 3 || got.MemberId.Value != "member-1" {
		t.Fatalf("decoded %+v", got)
	}
}
