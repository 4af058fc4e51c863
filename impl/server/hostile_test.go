package server_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"net"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/internal/testreq"
	"github.com/ghostcheck/ghostcheck/wire"
)

// Bad peers cannot hurt the server: each attack below runs while a
// well-formed client keeps a member alive and describes its group. The
// attacker's connection is closed, the good client is answered throughout,
// the coordinator's state is what the good client made it, and nothing
// leaks (TestMain runs goleak).
func TestBadPeersCannotHurtTheServer(t *testing.T) {
	h := startWith(t, longSessions(), func(c *server.Config) {
		c.MaxFrameSize = 64 << 10
		c.FrameTimeout = 300 * time.Millisecond
		c.WriteTimeout = 300 * time.Millisecond
	})
	good := h.dial()
	r := good.join("g", "good")
	epoch := r.MemberEpoch
	alive := func(what string) {
		t.Helper()
		resp := good.do(codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "good", epoch, "-")).(*codec.ConsumerGroupHeartbeatResponse)
		if resp.ErrorCode != codec.None {
			t.Fatalf("%s: the good member's heartbeat got %v", what, resp.ErrorCode)
		}
	}
	before := h.coord.Snapshot()

	dialRaw := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// closedSoon: the server closes the attacker's connection (reads end
	// in EOF or reset) within a bound.
	closedSoon := func(c net.Conn, what string) {
		t.Helper()
		_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
		buf := make([]byte, 4096)
		for {
			_, err := c.Read(buf)
			if err == nil {
				continue // a response to something valid before the attack
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("%s: the server kept the connection open", what)
			}
			return
		}
	}

	attacks := []struct {
		name string
		run  func(c net.Conn)
	}{
		{"garbage", func(c net.Conn) {
			b := make([]byte, 4096)
			rng := rand.New(rand.NewPCG(1, 2))
			for i := range b {
				b[i] = byte(rng.UintN(256))
			}
			b[0] = 0 // a plausible size prefix, then noise
			c.Write(b)
		}},
		{"random frames", func(c net.Conn) {
			rng := rand.New(rand.NewPCG(3, 4))
			var b []byte
			for i := 0; i < 50; i++ {
				body := make([]byte, rng.IntN(100))
				for j := range body {
					body[j] = byte(rng.UintN(256))
				}
				b = append(b, rawFrame(int16(rng.IntN(80)), int16(rng.IntN(6)), int32(i), body)...)
			}
			c.Write(b)
		}},
		{"truncated frame then close", func(c net.Conn) {
			f := rawFrame(68, 1, 1, bytes.Repeat([]byte{1}, 40))
			c.Write(f[:len(f)-10])
			c.(*net.TCPConn).CloseWrite()
		}},
		{"frame over the maximum", func(c net.Conn) {
			c.Write(binary.BigEndian.AppendUint32(nil, 64<<10+1))
		}},
		{"2 GiB size prefix", func(c net.Conn) {
			c.Write([]byte{0x7f, 0xff, 0xff, 0xff, 0, 68, 0, 1})
		}},
		{"negative size prefix", func(c net.Conn) {
			c.Write([]byte{0xff, 0xff, 0xff, 0xfe})
		}},
		{"half a frame, then silence", func(c net.Conn) {
			f := rawFrame(68, 1, 1, bytes.Repeat([]byte{1}, 40))
			c.Write(f[:20]) // FrameTimeout (300 ms) ends it
		}},
		{"slow writer", func(c net.Conn) {
			// One byte every 50 ms: the frame cannot finish in time.
			f := rawFrame(69, 1, 1, []byte{2, 2, 'g', 0, 0})
			go func() {
				for _, b := range f {
					if _, err := c.Write([]byte{b}); err != nil {
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
			}()
		}},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			c := dialRaw()
			a.run(c)
			alive(a.name) // answered while the attack is under way
			closedSoon(c, a.name)
			alive(a.name)
		})
	}
	t.Run("never reads its responses", func(t *testing.T) {
		// A peer that pipelines requests and never reads: once the
		// socket buffers fill, WriteTimeout ends it.
		timedOut := h.srv.Stats().TimedOut
		h.ln.sndbuf.Store(4096)
		defer h.ln.sndbuf.Store(0)
		w, err := wire.Dial(h.addr, wire.Options{Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if tc, ok := w.NetConn().(*net.TCPConn); ok {
			tc.SetReadBuffer(4096)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}}
			for i, end := 0, time.Now().Add(4*time.Second); time.Now().Before(end); i++ {
				if err := w.Buffer(&codec.RequestHeader{RequestApiKey: codec.ConsumerGroupDescribe, RequestApiVersion: 1, CorrelationId: int32(i), ClientInstanceId: codec.SomeUUID(codec.UUID{9})}, req); err != nil {
					return
				}
				if i%100 == 99 {
					if w.Flush() != nil {
						return
					}
				}
			}
		}()
		alive("while a peer does not read")
		waitFor(t, 5*time.Second, func() bool { return h.srv.Stats().TimedOut > timedOut })
		w.Close()
		wg.Wait()
		alive("after it")
	})
	after := h.coord.Snapshot()
	// Epochs and members are as the good client left them (no attack
	// reached the coordinator's state).
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("state changed:\nbefore %+v\nafter  %+v", before, after)
	}
	t.Logf("stats: %+v", h.srv.Stats())
}

// Thousands of idle connections cost the server little and do not stop it
// serving a good client; they close when the server shuts down.
func TestThousandsOfIdleConnections(t *testing.T) {
	const n = 2000
	h := start(t, func(c *server.Config) { c.MaxConns = n + 10 })
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		if i%3 == 0 {
			c.Write([]byte{0, 0}) // some have begun a frame (and will time out later)
		}
	}
	waitFor(t, 5*time.Second, func() bool { return h.srv.Stats().Open >= n })
	good := h.dial()
	start := time.Now()
	r := good.join("g", "m")
	for i := 0; i < 100; i++ {
		good.do(codec.ConsumerGroupHeartbeat, 1, testreq.Heartbeat("g", "m", r.MemberEpoch, "-"))
	}
	t.Logf("%d idle connections open; 101 requests of a good client took %v", h.srv.Stats().Open, time.Since(start))
}

// The idle timeout closes a silent connection.
func TestIdleTimeout(t *testing.T) {
	h := start(t, func(c *server.Config) { c.IdleTimeout = 200 * time.Millisecond })
	c := h.dial()
	c.describe("g")
	time.Sleep(400 * time.Millisecond)
	c.expectClosed("an idle connection")
}
