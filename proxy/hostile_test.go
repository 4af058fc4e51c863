package proxy_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/clients"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
	"github.com/ghostcheck/ghostcheck/wire"
)

// fakeBroker serves each connection with handle until the test ends, and
// returns its address.
func fakeBroker(t *testing.T, handle func(nc net.Conn)) string {
	t.Helper()
	return nettest.Serve(t, handle)
}

// readRequest reads one request frame and returns its correlation id and
// api key (-1 on error).
func readRequest(br *bufio.Reader) (corr int32, key int16, frame []byte) {
	var size [4]byte
	if _, err := io.ReadFull(br, size[:]); err != nil {
		return -1, -1, nil
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > 1<<24 {
		return -1, -1, nil
	}
	frame = make([]byte, n)
	if _, err := io.ReadFull(br, frame); err != nil || n < 8 {
		return -1, -1, nil
	}
	return int32(binary.BigEndian.Uint32(frame[4:])), int16(binary.BigEndian.Uint16(frame)), frame
}

// frameOf is a response frame: size, correlation id, body.
func frameOf(corr int32, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	return append(b, body...)
}

// closedWithin waits for the proxy to close nc (a read returns an error,
// not a timeout) within d.
func closedWithin(t *testing.T, nc net.Conn, d time.Duration) {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, nc)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the proxy did not close the connection within %v", d)
	}
}

// Bad clients: garbage, sizes out of range, a header too short or that
// does not parse, a frame cut short, half a frame and silence, a peer that
// pipelines and never reads. Each loses its connection, the proxy does not
// panic or hang, and a well-behaved consumer keeps being served meanwhile.
func TestBadClients(t *testing.T) {
	p := startProxy(t, proxy.Config{Upstream: serveCoordinator(t), FrameTimeout: 200 * time.Millisecond,
		WriteTimeout: 300 * time.Millisecond, MaxFrameSize: 1 << 20, Logf: func(string, ...any) {}})
	good := newConsumer(t, p.Addr(), "good", "", clients.NoBug)
	heartbeat(t, good, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(rng.IntN(256))
	}
	heartbeatFrame, _ := codec.AppendRequest(nil, &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, CorrelationId: 1},
		&codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "x", MemberEpoch: 5, RebalanceTimeoutMs: -1})
	for _, tc := range []struct {
		name  string
		bytes []byte
		stay  bool // keep the connection open and silent after the bytes
		flood bool // pipeline heartbeats forever without reading
	}{
		{"garbage", garbage, false, false},
		{"2 GiB size", []byte{0x7f, 0xff, 0xff, 0xff}, true, false},
		{"negative size", []byte{0xff, 0xff, 0xff, 0xfe}, true, false},
		{"over the maximum", []byte{0x00, 0x10, 0x00, 0x01}, true, false},
		{"header too short", []byte{0, 0, 0, 3, 0, 68, 0}, true, false},
		{"ClientId past the frame", []byte{0, 0, 0, 10, 0, 68, 0, 1, 0, 0, 0, 1, 0x7f, 0xff}, true, false},
		{"truncated", heartbeatFrame[:len(heartbeatFrame)/2], false, false},
		{"half a frame and silence", heartbeatFrame[:len(heartbeatFrame)/2], true, false},
		{"unknown api key", []byte{0, 0, 0, 10, 0x03, 0xe8, 0, 0, 0, 0, 0, 1, 0xff, 0xff}, true, false},
		{"pipelines and never reads", nil, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc, err := net.Dial("tcp", p.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.Write(tc.bytes)
			if tc.flood {
				nc.(*net.TCPConn).SetReadBuffer(4096)
				nc.SetWriteDeadline(time.Now().Add(3 * time.Second))
				for {
					if _, err := nc.Write(bytes.Repeat(heartbeatFrame, 64)); err != nil {
						break
					}
				}
			}
			if !tc.stay {
				nc.(*net.TCPConn).CloseWrite()
			}
			closedWithin(t, nc, 3*time.Second)
			heartbeat(t, good, 1)
		})
	}
	if st := p.Stats(); st.ProtocolErrors < 5 {
		t.Errorf("%d protocol errors counted: %+v", st.ProtocolErrors, st)
	}
}

// Bad brokers: garbage, an answer nobody asked for, another correlation
// id, a size out of range, a broker that closes mid-answer (small, large,
// routing) or before answering, a routing answer that does not decode,
// silence. The client's connection ends at once (its request's outcome
// unknown) instead of hanging or being fed the bad bytes, and the proxy
// closes cleanly.
func TestBadBrokers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(nc net.Conn, corr int32)
		key    codec.APIKey
		hangs  bool // the broker keeps the connection, silent: the client's own timeout ends it
	}{
		{"garbage", func(nc net.Conn, corr int32) { nc.Write(bytes.Repeat([]byte{0xde, 0xad}, 100)) }, codec.ApiVersions, false},
		{"another correlation id", func(nc net.Conn, corr int32) { nc.Write(frameOf(corr+1, []byte{0, 0})) }, codec.ApiVersions, false},
		{"2 GiB size", func(nc net.Conn, corr int32) { nc.Write([]byte{0x7f, 0xff, 0xff, 0xff}) }, codec.ApiVersions, false},
		{"closes mid-answer", func(nc net.Conn, corr int32) { nc.Write(frameOf(corr, make([]byte, 100))[:50]); nc.Close() }, codec.ApiVersions, false},
		{"closes mid-answer, large", func(nc net.Conn, corr int32) { nc.Write(frameOf(corr, make([]byte, 200<<10))[:100<<10]); nc.Close() }, codec.ApiVersions, false},
		{"closes mid-routing-answer", func(nc net.Conn, corr int32) { nc.Write(frameOf(corr, make([]byte, 100))[:50]); nc.Close() }, codec.Metadata, false},
		{"closes before answering", func(nc net.Conn, corr int32) { nc.Close() }, codec.ApiVersions, false},
		{"metadata that does not decode", func(nc net.Conn, corr int32) { nc.Write(frameOf(corr, []byte{0, 0, 0, 9, 9})) }, codec.Metadata, false},
		{"half an answer and silence", func(nc net.Conn, corr int32) { nc.Write(frameOf(corr, make([]byte, 100))[:50]) }, codec.ApiVersions, true},
		{"silence", func(nc net.Conn, corr int32) {}, codec.ApiVersions, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := fakeBroker(t, func(nc net.Conn) {
				br := bufio.NewReader(nc)
				corr, _, _ := readRequest(br)
				if corr >= 0 {
					tc.answer(nc, corr)
				}
				io.Copy(io.Discard, br)
			})
			p := startProxy(t, proxy.Config{Upstream: up, Logf: func(string, ...any) {}})
			// A client of a hanging upstream learns from its own
			// timeout; of any other, from the proxy closing its
			// connection, long before a timeout it cannot reach even
			// on a loaded machine.
			timeout := 500 * time.Millisecond
			if !tc.hangs {
				timeout = 30 * time.Second
			}
			w, err := wire.Dial(p.Addr(), wire.Options{Timeout: timeout})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			var req codec.Message = &codec.ApiVersionsRequest{}
			v := int16(0)
			if tc.key == codec.Metadata {
				req, v = codec.NewMetadataRequest(), 12
			}
			hm, _ := wire.NewHeaders(codec.Str("c"), codec.UUID{1})
			start := time.Now()
			resp, err := w.RoundTrip(hm.Next(tc.key, v), req)
			if !errors.Is(err, wire.ErrNoResponse) {
				t.Fatalf("got %v, %v: want the answer lost", resp, err)
			}
			if !tc.hangs && !errors.Is(err, wire.ErrConnClosed) {
				t.Errorf("the client learned after %v (%v): the proxy should have closed its connection", time.Since(start), err)
			}
		})
	}
	t.Run("unsolicited", func(t *testing.T) {
		up := fakeBroker(t, func(nc net.Conn) {
			nc.Write(frameOf(1, []byte{0, 0}))
			io.Copy(io.Discard, nc)
		})
		p := startProxy(t, proxy.Config{Upstream: up, Logf: func(string, ...any) {}})
		nc, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		closedWithin(t, nc, 2*time.Second)
	})
}

// Frames larger than the read buffer are streamed through intact, both
// ways, between smaller ones.
func TestLargeFramesStreamed(t *testing.T) {
	big := make([]byte, 300<<10)
	for i := range big {
		big[i] = byte(i * 7)
	}
	up := fakeBroker(t, func(nc net.Conn) {
		br := bufio.NewReader(nc)
		for {
			corr, _, frame := readRequest(br)
			if corr < 0 {
				return
			}
			// Echo the request's body back as the answer's.
			nc.Write(frameOf(corr, frame[8:]))
		}
	})
	p := startProxy(t, proxy.Config{Upstream: up})
	w, err := wire.Dial(p.Addr(), wire.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i, size := range []int{10, len(big), 20, len(big) / 2} {
		// An api the proxy does not read (DescribeConfigs v3: header v1, no ClientId).
		req := binary.BigEndian.AppendUint32(nil, uint32(8+2+size))
		req = append(req, 0, 32, 0, 3)
		req = binary.BigEndian.AppendUint32(req, uint32(i+1))
		req = append(req, 0xff, 0xff)
		req = append(req, big[:size]...)
		if err := w.WriteRaw(req); err != nil {
			t.Fatal(err)
		}
		got, err := w.ReadFrame()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		want := append([]byte{0xff, 0xff}, big[:size]...)
		if int(binary.BigEndian.Uint32(got)) != i+1 || !bytes.Equal(got[4:], want) {
			t.Fatalf("frame %d of %d bytes came back changed (%d bytes)", i, size, len(got))
		}
	}
}

// A frame sent in part and then left is bounded by FrameTimeout whatever
// its size, either way: a client sending 40 KiB of a 1 MiB request, or a
// broker sending 40 KiB of a 1 MiB answer (relayed as it comes, or read
// whole to be rewritten), loses its connection once FrameTimeout passes,
// not at IdleTimeout (or never, on the broker's side).
func TestHalfSentLargeFrames(t *testing.T) {
	const frameTimeout = 200 * time.Millisecond
	part := func(size int) []byte { return make([]byte, size) }
	// An api the proxy relays without reading (DescribeConfigs v3: header
	// v1), and one it reads whole (Metadata: rewritten).
	request := func(key int16, corr int32, bodySize int) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(8+2+bodySize))
		b = binary.BigEndian.AppendUint16(b, uint16(key))
		b = append(b, 0, 3)
		b = binary.BigEndian.AppendUint32(b, uint32(corr))
		b = append(b, 0xff, 0xff)
		return append(b, part(bodySize)...)
	}
	for _, tc := range []struct {
		name string
		key  int16
		// broker is the broker's part: it answers each request so (nil:
		// it reads and says nothing).
		broker func(nc net.Conn, corr int32)
		// client writes the client's part.
		client func(nc net.Conn)
	}{
		{"client, 40 KiB of 1 MiB", 32, nil, func(nc net.Conn) { nc.Write(request(32, 1, 1<<20)[:40<<10]) }},
		{"broker, 40 KiB of 1 MiB relayed", 32, func(nc net.Conn, corr int32) { nc.Write(frameOf(corr, part(1<<20))[:40<<10]) },
			func(nc net.Conn) { nc.Write(request(32, 1, 0)) }},
		{"broker, 40 KiB of 1 MiB read whole", 3, func(nc net.Conn, corr int32) { nc.Write(frameOf(corr, part(1<<20))[:40<<10]) },
			func(nc net.Conn) { nc.Write(request(3, 1, 0)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := fakeBroker(t, func(nc net.Conn) {
				br := bufio.NewReader(nc)
				for {
					corr, _, _ := readRequest(br)
					if corr < 0 {
						return
					}
					if tc.broker != nil {
						tc.broker(nc, corr)
					}
				}
			})
			p := startProxy(t, proxy.Config{Upstream: up, FrameTimeout: frameTimeout, Logf: func(string, ...any) {}})
			nc, err := net.Dial("tcp", p.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			start := time.Now()
			tc.client(nc)
			closedWithin(t, nc, 3*time.Second)
			if took := time.Since(start); took < frameTimeout/2 {
				t.Errorf("closed after %v, before FrameTimeout", took)
			}
		})
	}
}

// An answer the proxy reads whole (a routing answer) is read as it
// arrives: brokers announcing 100 MiB and sending 40 KiB cost the proxy
// about what arrived, not what was announced.
func TestAnnouncedSizeNotAllocated(t *testing.T) {
	const conns = 5
	var sent sync.WaitGroup
	sent.Add(conns)
	up := fakeBroker(t, func(nc net.Conn) {
		br := bufio.NewReader(nc)
		corr, _, _ := readRequest(br)
		if corr < 0 {
			return
		}
		answer := binary.BigEndian.AppendUint32(nil, 100<<20-16)
		answer = binary.BigEndian.AppendUint32(answer, uint32(corr))
		nc.Write(append(answer, make([]byte, 40<<10)...))
		sent.Done()
		io.Copy(io.Discard, br)
	})
	p := startProxy(t, proxy.Config{Upstream: up, FrameTimeout: 10 * time.Second, Logf: func(string, ...any) {}})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < conns; i++ {
		w, err := wire.Dial(p.Addr(), wire.Options{Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		hm, _ := wire.NewHeaders(codec.Str("c"), codec.UUID{1})
		if err := w.Send(hm.Next(codec.Metadata, 12), codec.NewMetadataRequest()); err != nil {
			t.Fatal(err)
		}
	}
	sent.Wait()
	time.Sleep(200 * time.Millisecond) // the proxy reads what was sent
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("%d answers announcing 100 MiB and sending 40 KiB made the proxy allocate %d MiB", conns, grew>>20)
	}
}

// A client that never pauses (acks=0 Produce requests, owed no answer,
// in frames that never line up with the proxy's buffer) has its requests
// forwarded while it sends, and costs the proxy a bounded batch: the
// proxy wrote a batch only when the client's bytes ran out, so such a
// client grew it without limit and the broker got nothing.
func TestUnpausedClientForwarded(t *testing.T) {
	var received atomic.Int64
	up := fakeBroker(t, func(nc net.Conn) {
		buf := make([]byte, 64<<10)
		for {
			n, err := nc.Read(buf)
			received.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	p := startProxy(t, proxy.Config{Upstream: up, MaxRecords: 1000, Logf: func(string, ...any) {}})
	// Produce v3 (header v1, null ClientId), null TransactionalId, acks 0:
	// 1001 bytes in all.
	frame := binary.BigEndian.AppendUint32(nil, 997)
	frame = append(frame, 0, 0, 0, 3, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0)
	frame = append(frame, make([]byte, 1001-len(frame))...)
	burst := bytes.Repeat(frame, 64)
	nc, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var sent atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
			n, err := nc.Write(burst)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	time.Sleep(time.Second)
	got, wrote := received.Load(), sent.Load()
	runtime.GC()
	runtime.ReadMemStats(&after)
	close(stop)
	<-done
	if got < wrote/4 {
		t.Errorf("the client sent %d KiB without a pause; the broker got %d KiB meanwhile", wrote>>10, got>>10)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 16<<20 {
		t.Errorf("the proxy's heap grew by %d MiB while the client sent %d MiB", grew>>20, wrote>>20)
	}
	t.Logf("sent %d MiB, the broker got %d MiB", wrote>>20, got>>20)
}

// An ended connection leaves behind only what it recorded: connections
// that open and close (half of them recording one request) cost the
// proxy a few hundred bytes each, not their buffers (66 KiB each: the
// record of an ended connection pointed into it).
func TestEndedConnectionsLetGo(t *testing.T) {
	up := fakeBroker(t, func(nc net.Conn) { io.Copy(io.Discard, nc) })
	p := startProxy(t, proxy.Config{Upstream: up, Logf: func(string, ...any) {}})
	// An acks=0 Produce v3 (no answer owed), recorded.
	produce := binary.BigEndian.AppendUint32(nil, 16)
	produce = append(produce, 0, 0, 0, 3, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0)
	const cycles = 1000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < cycles; i++ {
		nc, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			nc.Write(produce)
		}
		nc.(*net.TCPConn).CloseWrite()
		closedWithin(t, nc, 5*time.Second)
		nc.Close()
	}
	p.Close()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if n := len(p.Recording()); n != cycles/2 {
		t.Fatalf("%d requests recorded, want %d", n, cycles/2)
	}
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / cycles
	if per > 2<<10 {
		t.Errorf("each ended connection keeps %d bytes", per)
	}
	t.Logf("each ended connection keeps %d bytes", per)
}

// The recording holds at most MaxRecordedBytes, whatever the count
// allows: requests with large ClientIds, or whose answers the recording
// keeps, are forwarded and counted past it, not recorded, and the verdict
// output says the recording is partial.
func TestRecordingByteBudget(t *testing.T) {
	const budget = 256 << 10
	big := strings.Repeat("x", 16<<10)
	for _, tc := range []struct {
		name     string
		clientID string // of each request
		answer   int    // bytes of each heartbeat answer's error message
	}{
		{"16 KiB ClientIds", big, 0},
		{"16 KiB answers", "c", 16 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := fakeBroker(t, func(nc net.Conn) {
				br := bufio.NewReader(nc)
				for {
					corr, _, _ := readRequest(br)
					if corr < 0 {
						return
					}
					b, _ := codec.AppendResponse(nil, corr, 1, &codec.ConsumerGroupHeartbeatResponse{ErrorCode: codec.GroupIDNotFound,
						ErrorMessage: codec.Str(strings.Repeat("e", tc.answer))})
					nc.Write(b)
				}
			})
			p := startProxy(t, proxy.Config{Upstream: up, MaxRecordedBytes: budget})
			w, err := wire.Dial(p.Addr(), wire.Options{Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			const n = 100
			for i := int32(1); i <= n; i++ {
				// Each request names its ClientId (a client that repeats it).
				h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, CorrelationId: i, ClientId: codec.Str(tc.clientID)}
				if _, err := w.RoundTrip(h, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", MemberEpoch: 1, RebalanceTimeoutMs: -1}); err != nil {
					t.Fatal(err)
				}
			}
			p.Close()
			st := p.Stats()
			recorded := len(p.Recording())
			if recorded == 0 || recorded+int(st.Unrecorded) != n || st.RecordedBytes > budget+64<<10 {
				t.Errorf("%d of %d requests recorded, %d not, %d bytes held: want the first ones recorded within %d bytes and the rest counted",
					recorded, n, st.Unrecorded, st.RecordedBytes, budget)
			}
			if recorded*16<<10 > budget {
				t.Errorf("%d requests of 16 KiB recorded within a budget of %d", recorded, budget)
			}
			var out strings.Builder
			proxy.WriteVerdicts(&out, rules.CheckClients(p.Recording()), st)
			if !strings.Contains(out.String(), fmt.Sprintf("%d requests forwarded but not recorded", st.Unrecorded)) {
				t.Errorf("the verdict output does not say the recording is partial:\n%s", out.String())
			}
		})
	}
}
