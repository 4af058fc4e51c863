package wire_test

import (
	"encoding/binary"
	"net"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// request is one request as the fake broker read it.
type request struct {
	// N counts the requests of its connection from 0.
	N      int
	Header codec.RequestHeader
	Frame  []byte
}

// fakeBroker is a tiny broker on 127.0.0.1 whose every answer a test
// writes: answer gets each request and returns the bytes to write back
// (frames, size prefix included), or nil to close the connection. A frame
// cut short (fewer bytes than its size prefix says) is followed by a
// close.
// Everything it starts ends when the test does.
type fakeBroker struct {
	addr   string
	answer func(r request) []byte

	mu   sync.Mutex
	seen []codec.RequestHeader
}

func startBroker(t *testing.T, answer func(r request) []byte) *fakeBroker {
	t.Helper()
	b := &fakeBroker{answer: answer}
	b.addr = nettest.Serve(t, b.serve)
	return b
}

func (b *fakeBroker) serve(nc net.Conn) {
	for n := 0; ; n++ {
		// Bounded: a broker waiting on a test that went away gives up.
		_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
		frame, err := codec.ReadFrame(nc, nil, 1<<20)
		if err != nil {
			return
		}
		var h codec.RequestHeader
		if _, err := codec.ParseRequestHeader(frame, &h, codec.DecodeOptions{}); err != nil {
			return
		}
		b.mu.Lock()
		b.seen = append(b.seen, h)
		b.mu.Unlock()
		out := b.answer(request{N: n, Header: h, Frame: frame})
		if out == nil {
			return
		}
		if _, err := nc.Write(out); err != nil {
			return
		}
		if len(out) >= 4 && int(binary.BigEndian.Uint32(out))+4 > len(out) {
			return // a frame cut short: the close ends it
		}
	}
}

// headers are the request headers the broker read, in order.
func (b *fakeBroker) headers() []codec.RequestHeader {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]codec.RequestHeader(nil), b.seen...)
}

// reply is a response frame of m at version. It may run on the broker's
// goroutine, so a failure is t.Error (and a closed connection).
func reply(t *testing.T, corr int32, version int16, m codec.Message) []byte {
	t.Helper()
	b, err := codec.AppendResponse(nil, corr, version, m)
	if err != nil {
		t.Error(err)
		return nil
	}
	return b
}

// rawReply is a frame of a v0 response header (the correlation id) and
// body as given.
func rawReply(corr int32, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	return append(b, body...)
}

// apiVersions is a broker's ApiVersions reply listing ApiVersions
// [0, avMax] and ConsumerGroupHeartbeat [0, 1].
func apiVersions(avMax int16) *codec.ApiVersionsResponse {
	r := codec.NewApiVersionsResponse()
	r.ApiKeys = []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MinVersion: 0, MaxVersion: avMax}, {ApiKey: codec.ConsumerGroupHeartbeat, MinVersion: 0, MaxVersion: 1}}
	return r
}

// kip511 is the reply of a broker speaking ApiVersions up to avMax to a
// version above it: a v0 body, UNSUPPORTED_VERSION, its ApiVersions range.
func kip511(t *testing.T, corr int32, avMax int16) []byte {
	r := codec.NewApiVersionsResponse()
	r.ErrorCode = codec.UnsupportedVersion
	r.ApiKeys = []codec.ApiVersionsKey{{ApiKey: codec.ApiVersions, MinVersion: 0, MaxVersion: avMax}}
	return reply(t, corr, 0, r)
}

// speaks answers ApiVersions like a broker knowing versions up to avMax.
func speaks(t *testing.T, avMax int16) func(r request) []byte {
	return func(r request) []byte {
		if v := r.Header.RequestApiVersion; v > avMax {
			return kip511(t, r.Header.CorrelationId, avMax)
		}
		return reply(t, r.Header.CorrelationId, r.Header.RequestApiVersion, apiVersions(avMax))
	}
}
