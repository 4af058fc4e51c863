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

// Decoding into a reused message keeps a string the message already holds
// when the new bytes are equal (nothing is copied). The kept strings must
// still honour each mode's promise: without NoCopy they survive the reuse
// of both inputs; with NoCopy they alias the newest input, not the one the
// previous decode aliased.
func TestUnchangedStringsKeptSafely(t *testing.T) {
	h, m := benchHeartbeat()
	encode := func() []byte {
		frame, err := codec.AppendRequest(nil, &h, m)
		if err != nil {
			t.Fatal(err)
		}
		return frame[4:]
	}
	decodeTwice := func(opts codec.DecodeOptions) (codec.RequestHeader, *codec.ConsumerGroupHeartbeatRequest, []byte, []byte) {
		var gh codec.RequestHeader
		var req codec.ConsumerGroupHeartbeatRequest
		first, second := encode(), encode()
		for _, b := range [][]byte{first, second} {
			off, err := codec.ParseRequestHeader(b, &gh, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := req.Decode(b[off:], gh.RequestApiVersion, opts); err != nil {
				t.Fatal(err)
			}
		}
		return gh, &req, first, second
	}
	for _, opts := range []codec.DecodeOptions{{}, {OneCopy: true}} {
		gh, req, first, second := decodeTwice(opts)
		clear(first)
		clear(second)
		if !reflect.DeepEqual(gh, h) || !reflect.DeepEqual(req, m) {
			t.Fatalf("%+v: kept strings changed with an input:\n%#v\n%#v", opts, gh, req)
		}
	}
	gh, req, first, second := decodeTwice(codec.DecodeOptions{NoCopy: true})
	clear(first)
	if !reflect.DeepEqual(gh, h) || !reflect.DeepEqual(req, m) {
		t.Fatalf("NoCopy: strings alias the first input, not the second:\n%#v\n%#v", gh, req)
	}
	clear(second)
	if req.GroupId == m.GroupId || req.MemberId == m.MemberId || req.SubscribedTopicNames[0] == m.SubscribedTopicNames[0] {
		t.Fatal("NoCopy strings should alias the newest input")
	}
}

// Allocation budgets of the hot paths, the targets the benchmarks measure:
// encoding into a reused buffer allocates nothing; decoding into a reused
// message allocates at most once per non-empty string that changed since
// the previous decode, and once per non-empty byte string (byte strings
// are copied on every decode), so a steady stream of the same member's
// heartbeats allocates nothing; OneCopy allocates at most once per header
// and once per body, and once per byte string; NoCopy never.
func TestAllocationBudgets(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	hbH, hb := benchHeartbeat()
	hbH2, hb2 := benchHeartbeat()
	changeStrings(&hbH2, hb2)
	lgH, lg := benchLeave()
	lgH2, lg2 := benchLeave()
	changeStrings(&lgH2, lg2)
	jgH, jg := benchJoinGroup()
	jgH2, jg2 := benchJoinGroup()
	changeStrings(&jgH2, jg2)
	chH, ch := benchClassicHeartbeat()
	chH2, ch2 := benchClassicHeartbeat()
	changeStrings(&chH2, ch2)
	sgH, sg := benchSyncGroup()
	sgH2, sg2 := benchSyncGroup()
	changeStrings(&sgH2, sg2)
	cases := []struct {
		name    string
		h, h2   codec.RequestHeader
		m, m2   codec.Message
		into    decoder
		strings int // non-empty strings in header and body
		bytes   int // non-empty byte strings in the body
	}{
		{"ConsumerGroupHeartbeat v1", hbH, hbH2, hb, hb2, new(codec.ConsumerGroupHeartbeatRequest), 8, 0},
		{"LeaveGroup v5", lgH, lgH2, lg, lg2, new(codec.LeaveGroupRequest), 31, 0},
		{"JoinGroup v9", jgH, jgH2, jg, jg2, new(codec.JoinGroupRequest), 8, 2},
		{"Heartbeat v4", chH, chH2, ch, ch2, new(codec.HeartbeatRequest), 4, 0},
		{"SyncGroup v5", sgH, sgH2, sg, sg2, new(codec.SyncGroupRequest), 16, 10},
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
			buf, _ = codec.AppendRequest(buf[:0], &tc.h2, tc.m2)
			frame2 := append([]byte(nil), buf[4:]...)
			copies := float64(tc.bytes)
			for _, c := range []struct {
				opts      codec.DecodeOptions
				unchanged float64 // the budget when no string changed
				changed   float64 // the budget when every string changed
			}{
				{codec.DecodeOptions{}, copies, float64(tc.strings) + copies},
				{codec.DecodeOptions{OneCopy: true}, copies, 2 + copies}, // header and body
				{codec.DecodeOptions{NoCopy: true}, 0, 0},
			} {
				var h codec.RequestHeader
				decode := func(frame []byte) {
					off, err := codec.ParseRequestHeader(frame, &h, c.opts)
					if err != nil {
						t.Fatal(err)
					}
					if err := tc.into.Decode(frame[off:], h.RequestApiVersion, c.opts); err != nil {
						t.Fatal(err)
					}
				}
				if n := testing.AllocsPerRun(100, func() { decode(frame) }); n != c.unchanged {
					t.Errorf("decode the same frame into a reused message with %+v: %v allocations, want %v", c.opts, n, c.unchanged)
				}
				// Alternate two frames whose strings all differ: each
				// decode copies them all.
				n := testing.AllocsPerRun(100, func() { decode(frame2); decode(frame) }) / 2
				if n > c.changed {
					t.Errorf("decode changed strings into a reused message with %+v: %v allocations, want at most %v", c.opts, n, c.changed)
				}
				if c.opts == (codec.DecodeOptions{}) && n != c.changed {
					t.Errorf("decode changed strings with copies: %v allocations, want one per string (%v): are the frames' strings all different?", n, c.changed)
				}
			}
		})
	}
}
