package codec_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
	"pgregory.net/rapid"
)

// forEachMessageVersion runs fn as a subtest for every message type and
// every version this codec implements for it.
func forEachMessageVersion(t *testing.T, fn func(t *testing.T, k codectest.Kind, v int16)) {
	for _, k := range codectest.Kinds() {
		a := k.API()
		for v := a.MinVersion; v <= a.MaxVersion; v++ {
			t.Run(fmt.Sprintf("%s/v%d", k.Name(), v), func(t *testing.T) { fn(t, k, v) })
		}
	}
}

// TestRoundTrip: for a value x valid at version v, decode(encode(x)) == x,
// in strict, lenient and no-copy modes; and the encoding is canonical:
// encoding the decoded value gives the same bytes back.
func TestRoundTrip(t *testing.T) {
	forEachMessageVersion(t, func(t *testing.T, k codectest.Kind, v int16) {
		rapid.Check(t, func(t *rapid.T) {
			x := codectest.Message(k, v).Draw(t, "x")
			b, err := x.AppendTo(nil, v)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			for _, opts := range []codec.DecodeOptions{{Strict: true}, {}, {NoCopy: true}, {OneCopy: true}} {
				y := fresh(x)
				if err := codec.DecodeBody(y, b, v, opts); err != nil {
					t.Fatalf("decode %+v: %v\n% x", opts, err, b)
				}
				if !reflect.DeepEqual(x, y) {
					t.Fatalf("decode %+v:\n got %#v\nwant %#v", opts, y, x)
				}
				b2, err := y.AppendTo(nil, v)
				if err != nil || !bytes.Equal(b, b2) {
					t.Fatalf("re-encode: %v\n got % x\nwant % x", err, b2, b)
				}
			}
		})
	})
}

// TestDecodeIntoReused: decoding into a message that holds other data
// (decoded from another value, possibly at another version, so its slices
// have storage to reuse) gives exactly what decoding into a fresh one gives.
func TestDecodeIntoReused(t *testing.T) {
	forEachMessageVersion(t, func(t *testing.T, k codectest.Kind, v int16) {
		a := k.API()
		rapid.Check(t, func(t *rapid.T) {
			v0 := rapid.Int16Range(a.MinVersion, a.MaxVersion).Draw(t, "previousVersion")
			prev := codectest.Message(k, v0).Draw(t, "previous")
			x := codectest.Message(k, v).Draw(t, "x")
			pb, err := prev.AppendTo(nil, v0)
			if err != nil {
				t.Fatalf("encode previous: %v", err)
			}
			b, err := x.AppendTo(nil, v)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			for _, opts := range []codec.DecodeOptions{{}, {NoCopy: true}, {OneCopy: true}} {
				m := fresh(x)
				if err := codec.DecodeBody(m, pb, v0, opts); err != nil {
					t.Fatalf("decode previous: %v", err)
				}
				if err := codec.DecodeBody(m, b, v, opts); err != nil {
					t.Fatalf("decode into reused: %v", err)
				}
				if !reflect.DeepEqual(m, x) {
					t.Fatalf("decode into reused %+v:\n got %#v\nwant %#v", opts, m, x)
				}
			}
		})
	})
}

// Request headers round-trip at the header version their key and version
// call for, through ParseRequestHeader, including into a reused header.
func TestRequestHeaderRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := codectest.RequestHeader().Draw(t, "h")
		prev := codectest.RequestHeader().Draw(t, "previous")
		hv, err := h.HeaderVersion()
		if err != nil {
			t.Fatal(err)
		}
		b, err := h.AppendTo(nil, hv)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		pv, _ := prev.HeaderVersion()
		pb, err := prev.AppendTo(nil, pv)
		if err != nil {
			t.Fatalf("encode previous: %v", err)
		}
		var reused codec.RequestHeader
		if _, err := codec.ParseRequestHeader(pb, &reused, codec.DecodeOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, got := range []*codec.RequestHeader{new(codec.RequestHeader), &reused} {
			off, err := codec.ParseRequestHeader(b, got, codec.DecodeOptions{Strict: true})
			if err != nil || off != len(b) {
				t.Fatalf("decode: %v, offset %d of %d", err, off, len(b))
			}
			if !reflect.DeepEqual(*got, h) {
				t.Fatalf("\n got %#v\nwant %#v", *got, h)
			}
		}
	})
}

// Whole request frames: AppendRequest then SplitFrame and DecodeRequest
// give back header and body.
func TestRequestFrameRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := codectest.RequestHeader().Draw(t, "h")
		body := codectest.Message(codectest.Kind{Key: h.RequestApiKey}, h.RequestApiVersion).Draw(t, "body")
		frame, err := codec.AppendRequest(nil, &h, body)
		if err != nil {
			t.Fatal(err)
		}
		f, rest, err := codec.SplitFrame(frame, len(frame))
		if err != nil || len(rest) != 0 {
			t.Fatalf("split: %v", err)
		}
		gh, gb, err := codec.DecodeRequest(f, codec.DecodeOptions{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gh, h) || !reflect.DeepEqual(gb, body) {
			t.Fatalf("\n got %#v %#v\nwant %#v %#v", gh, gb, h, body)
		}
	})
}

// Whole response frames, for every response type and version.
func TestResponseFrameRoundTrip(t *testing.T) {
	forEachMessageVersion(t, func(t *testing.T, k codectest.Kind, v int16) {
		if !k.Response {
			return
		}
		rapid.Check(t, func(t *rapid.T) {
			body := codectest.Message(k, v).Draw(t, "body")
			corr := rapid.Int32().Draw(t, "correlation")
			frame, err := codec.AppendResponse(nil, corr, v, body)
			if err != nil {
				t.Fatal(err)
			}
			h, gb, err := codec.DecodeResponse(frame[4:], k.Key, v, codec.DecodeOptions{Strict: true})
			if err != nil || h.CorrelationId != corr || !reflect.DeepEqual(gb, body) {
				t.Fatalf("%v: %#v %#v", err, h, gb)
			}
			// The same frame decoded into a header and a message that
			// held another response gives the same values.
			prev := codectest.Message(k, v).Draw(t, "previous")
			pframe, err := codec.AppendResponse(nil, corr+1, v, prev)
			if err != nil {
				t.Fatal(err)
			}
			var rh codec.ResponseHeader
			into := fresh(body)
			for _, f := range [][]byte{pframe, frame} {
				if err := codec.DecodeResponseInto(f[4:], &rh, into, v, codec.DecodeOptions{Strict: true}); err != nil {
					t.Fatalf("DecodeResponseInto: %v", err)
				}
			}
			if rh.CorrelationId != corr || !reflect.DeepEqual(into, body) {
				t.Fatalf("DecodeResponseInto into a reused message:\n got %#v %#v\nwant %#v", rh, into, body)
			}
		})
	})
}

// DecodeResponseInto refuses a request message: responses do not name
// their type, so the message passed is what was asked.
func TestDecodeResponseIntoNeedsResponse(t *testing.T) {
	frame, err := codec.AppendResponse(nil, 7, 1, &codec.ConsumerGroupHeartbeatResponse{MemberEpoch: 3})
	if err != nil {
		t.Fatal(err)
	}
	var h codec.ResponseHeader
	if err := codec.DecodeResponseInto(frame[4:], &h, new(codec.ConsumerGroupHeartbeatRequest), 1, codec.DecodeOptions{}); err == nil {
		t.Fatal("a request message was accepted")
	}
	var resp codec.ConsumerGroupHeartbeatResponse
	if err := codec.DecodeResponseInto(frame[4:], &h, &resp, 1, codec.DecodeOptions{}); err != nil || h.CorrelationId != 7 || resp.MemberEpoch != 3 {
		t.Fatalf("%v %+v %+v", err, h, resp)
	}
}
