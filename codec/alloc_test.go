package codec_test

import (
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The copy options keep their promises: without NoCopy the decoded message
// does not depend on the input buffer, which a server reuses for the next
// frame at once.
func TestDecodedStringsSurviveInputReuse(t *testing.T) {
	h, m := benchHeartbeat()
	for _, opts := range []codec.DecodeOptions{{}, {OneCopy: true}} {
		frame, err := codec.AppendRequest(nil, &h, m)
		if err != nil {
			t.Fatal(err)
		}
		gh, body, err := codec.DecodeRequest(frame[4:], opts)
		if err != nil {
			t.Fatal(err)
		}
		clear(frame)
		if !reflect.DeepEqual(gh, h) || !reflect.DeepEqual(body, codec.Message(m)) {
			t.Fatalf("%+v: decoded values changed with the input:\n%#v\n%#v", opts, gh, body)
		}
	}
	// NoCopy aliases: the same strings see the buffer's new bytes.
	frame, _ := codec.AppendRequest(nil, &h, m)
	_, body, err := codec.DecodeRequest(frame[4:], codec.DecodeOptions{NoCopy: true})
	if err != nil {
		t.Fatal(err)
	}
	clear(frame)
	if body.(*codec.ConsumerGroupHeartbeatRequest).GroupId == m.GroupId {
		t.Fatal("NoCopy strings should alias the input")
	}
}

// Allocation budgets of the hot paths, the targets the benchmarks measure:
// encoding into a reused buffer allocates nothing; decoding into a reused
// message allocates at most once per non-empty string (and nothing else);
// OneCopy once per message; NoCopy never.
func TestAllocationBudgets(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	hbH, hb := benchHeartbeat()
	lgH, lg := benchLeave()
	cases := []struct {
		name    string
		h       codec.RequestHeader
		m       codec.Message
		into    decoder
		strings int // non-empty strings in header and body
	}{
		{"ConsumerGroupHeartbeat v1", hbH, hb, new(codec.ConsumerGroupHeartbeatRequest), 8},
		{"LeaveGroup v5", lgH, lg, new(codec.LeaveGroupRequest), 31},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			buf := make([]byte, 0, 4096)
			if n := testing.AllocsPerRun(100, func() {
				buf, _ = codec.AppendRequest(buf[:0], &tc.h, tc.m)
			}); n != 0 {
				t.Errorf("encode into a reused buffer: %v allocations, want 0", n)
			}
			frame := append([]byte(nil), buf[4:]...)
			for _, c := range []struct {
				opts codec.DecodeOptions
				max  float64
			}{
				{codec.DecodeOptions{}, float64(tc.strings)},
				{codec.DecodeOptions{OneCopy: true}, 2}, // header and body
				{codec.DecodeOptions{NoCopy: true}, 0},
			} {
				var h codec.RequestHeader
				n := testing.AllocsPerRun(100, func() {
					off, err := codec.ParseRequestHeader(frame, &h, c.opts)
					if err != nil {
						t.Fatal(err)
					}
					if err := tc.into.Decode(frame[off:], h.RequestApiVersion, c.opts); err != nil {
						t.Fatal(err)
					}
				})
				if n > c.max {
					t.Errorf("decode into a reused message with %+v: %v allocations, want at most %v", c.opts, n, c.max)
				}
			}
		})
	}
}
