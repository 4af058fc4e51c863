package fuzz

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
)

var (
	lenient = codec.DecodeOptions{}
	strict  = codec.DecodeOptions{Strict: true}
	noCopy  = codec.DecodeOptions{NoCopy: true}
	oneCopy = codec.DecodeOptions{OneCopy: true}
)

// checkDecodeError: every decoding failure is an *codec.Error whose offset
// lies inside the input.
func checkDecodeError(t *testing.T, err error, n int) {
	t.Helper()
	var ce *codec.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error is %T, not *codec.Error: %v", err, err)
	}
	if ce.Offset < 0 || ce.Offset > n {
		t.Fatalf("error offset %d outside the input of %d bytes: %v", ce.Offset, n, err)
	}
	if ce.Kind == nil {
		t.Fatalf("error without a kind: %#v", ce)
	}
}

// strictAgrees: strict decoding reports what lenient decoding reports, and
// besides only trailing bytes and tag order. errL and errS are the lenient
// and strict results for one input.
func strictAgrees(t *testing.T, errL, errS error) {
	t.Helper()
	switch {
	case errL == nil && errS != nil:
		if !errors.Is(errS, codec.ErrTrailingBytes) && !errors.Is(errS, codec.ErrTagOrder) {
			t.Fatalf("lenient accepts, strict refuses with %v", errS)
		}
	case errL != nil && errS == nil:
		t.Fatalf("strict accepts what lenient refuses: %v", errL)
	}
}

// checkBody holds a message body to every decoding invariant at version v:
//   - decoding never panics; a failure is an *codec.Error inside the input;
//   - strict and lenient decoding agree, except that strict also reports
//     trailing bytes and tags out of order (and then lenient gives the
//     same value as strict would have);
//   - decoding without copies (NoCopy) or with one shared copy (OneCopy)
//     gives the same value and error;
//   - decoding into a message that held another value gives the same value
//     as decoding into a fresh one;
//   - a decoded value encodes at v, unless lenient decoding accepted tags
//     out of order or repeated (ErrTagOrder, which strict decoding reports
//     too), and its encoding decodes, strictly, to the same value and
//     re-encodes to the same bytes.
func checkBody(t *testing.T, k codectest.Kind, v int16, b []byte, reused codec.Message, prev []byte, prevVersion int16) {
	a := k.API()
	m := a.NewMessage(k.Response)
	errL := codec.DecodeBody(m, b, v, lenient)
	ms := a.NewMessage(k.Response)
	errS := codec.DecodeBody(ms, b, v, strict)
	strictAgrees(t, errL, errS)
	if errS == nil && !reflect.DeepEqual(m, ms) {
		t.Fatalf("strict and lenient values differ:\n%#v\n%#v", m, ms)
	}
	mn := a.NewMessage(k.Response)
	errN := codec.DecodeBody(mn, b, v, noCopy)
	if (errN == nil) != (errL == nil) || (errL == nil && !reflect.DeepEqual(m, mn)) {
		t.Fatalf("NoCopy decoding differs: %v vs %v", errN, errL)
	}
	mo := a.NewMessage(k.Response)
	errO := codec.DecodeBody(mo, b, v, oneCopy)
	if (errO == nil) != (errL == nil) || (errL == nil && !reflect.DeepEqual(m, mo)) {
		t.Fatalf("OneCopy decoding differs: %v vs %v", errO, errL)
	}
	if errL != nil {
		checkDecodeError(t, errL, len(b))
		if !errors.Is(errN, errors.Unwrap(errL)) {
			t.Fatalf("NoCopy error %v, copying error %v", errN, errL)
		}
		return
	}
	if reused != nil {
		if err := codec.DecodeBody(reused, prev, prevVersion, lenient); err != nil {
			t.Fatalf("seed for reuse does not decode: %v", err)
		}
		if err := codec.DecodeBody(reused, b, v, lenient); err != nil || !reflect.DeepEqual(reused, m) {
			t.Fatalf("decoding into a reused message: %v\n got %#v\nwant %#v", err, reused, m)
		}
	}
	enc, err := m.AppendTo(nil, v)
	if err != nil {
		if errors.Is(err, codec.ErrTagOrder) && errors.Is(errS, codec.ErrTagOrder) {
			return
		}
		t.Fatalf("decoded value does not encode: %v\n%#v", err, m)
	}
	m2 := a.NewMessage(k.Response)
	if err := codec.DecodeBody(m2, enc, v, strict); err != nil {
		t.Fatalf("re-encoding does not decode: %v\n% x", err, enc)
	}
	if !reflect.DeepEqual(m, m2) {
		t.Fatalf("re-decoded value differs:\n got %#v\nwant %#v", m2, m)
	}
	if enc2, err := m2.AppendTo(nil, v); err != nil || !bytes.Equal(enc, enc2) {
		t.Fatalf("encoding is not canonical: %v\n% x\n% x", err, enc, enc2)
	}
}

// fuzzMessage runs checkBody for one message kind. The first input byte
// picks the version: every implemented one and one past the maximum
// (which must fail with ErrUnsupportedVersion).
func fuzzMessage(f *testing.F, k codectest.Kind) {
	addSeeds(f, bodySeeds(k))
	a := k.API()
	span := int(a.MaxVersion-a.MinVersion) + 2
	// A message to decode into before each input, from a fixed seed.
	prevVersion := a.MaxVersion
	prev, err := codectest.Message(k, prevVersion).Example(1).AppendTo(nil, prevVersion)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		v := a.MinVersion + int16(int(in[0])%span)
		b := in[1:]
		if !a.Supports(v) {
			err := codec.DecodeBody(a.NewMessage(k.Response), b, v, lenient)
			if !errors.Is(err, codec.ErrUnsupportedVersion) {
				t.Fatalf("v%d: want ErrUnsupportedVersion, got %v", v, err)
			}
			return
		}
		checkBody(t, k, v, b, a.NewMessage(k.Response), prev, prevVersion)
	})
}

// Per-message targets. Invariants: those of checkBody, for the message the
// target names, at the version picked by the first input byte.

func FuzzApiVersionsRequest(f *testing.F) { fuzzMessage(f, codectest.Kind{Key: codec.ApiVersions}) }
func FuzzApiVersionsResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.ApiVersions, Response: true})
}
func FuzzLeaveGroupRequest(f *testing.F) { fuzzMessage(f, codectest.Kind{Key: codec.LeaveGroup}) }
func FuzzLeaveGroupResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.LeaveGroup, Response: true})
}
func FuzzConsumerGroupHeartbeatRequest(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.ConsumerGroupHeartbeat})
}
func FuzzConsumerGroupHeartbeatResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.ConsumerGroupHeartbeat, Response: true})
}
func FuzzConsumerGroupDescribeRequest(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.ConsumerGroupDescribe})
}
func FuzzConsumerGroupDescribeResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.ConsumerGroupDescribe, Response: true})
}
func FuzzGetTelemetrySubscriptionsRequest(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.GetTelemetrySubscriptions})
}
func FuzzGetTelemetrySubscriptionsResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.GetTelemetrySubscriptions, Response: true})
}
func FuzzPushTelemetryRequest(f *testing.F) { fuzzMessage(f, codectest.Kind{Key: codec.PushTelemetry}) }
func FuzzPushTelemetryResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.PushTelemetry, Response: true})
}
func FuzzMetadataRequest(f *testing.F) { fuzzMessage(f, codectest.Kind{Key: codec.Metadata}) }
func FuzzMetadataResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.Metadata, Response: true})
}
func FuzzFindCoordinatorRequest(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.FindCoordinator})
}
func FuzzFindCoordinatorResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.FindCoordinator, Response: true})
}
func FuzzJoinGroupRequest(f *testing.F) { fuzzMessage(f, codectest.Kind{Key: codec.JoinGroup}) }
func FuzzJoinGroupResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.JoinGroup, Response: true})
}
func FuzzHeartbeatRequest(f *testing.F) { fuzzMessage(f, codectest.Kind{Key: codec.Heartbeat}) }
func FuzzHeartbeatResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.Heartbeat, Response: true})
}
func FuzzSyncGroupRequest(f *testing.F) { fuzzMessage(f, codectest.Kind{Key: codec.SyncGroup}) }
func FuzzSyncGroupResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.SyncGroup, Response: true})
}
func FuzzDescribeGroupsRequest(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.DescribeGroups})
}
func FuzzDescribeGroupsResponse(f *testing.F) {
	fuzzMessage(f, codectest.Kind{Key: codec.DescribeGroups, Response: true})
}

// FuzzRequestHeader decodes the input as a request header, both through
// ParseRequestHeader (header version chosen by the api key and version it
// reads) and through RequestHeader.ReadFrom at header version 1 or 2 (the
// low bit of the first byte; the rest is the header). Invariants:
//   - never panics; failures are *codec.Error inside the input;
//   - strict and lenient agree, except tag order;
//   - a decoded header encodes at its header version (or fails with
//     ErrTagOrder when lenient decoding accepted unordered tags) and the
//     encoding decodes to the same header, consuming exactly its bytes;
//   - decoding into a header that held another one gives the same result.
func FuzzRequestHeader(f *testing.F) {
	for _, s := range requestFrameSeeds() {
		f.Add(s[4:])
	}
	f.Add([]byte{0x00, 0x44, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0xff, 0xff, 0x02, 0x00, 0x10})
	f.Fuzz(func(t *testing.T, in []byte) {
		var h, hs codec.RequestHeader
		off, errL := codec.ParseRequestHeader(in, &h, lenient)
		_, errS := codec.ParseRequestHeader(in, &hs, strict)
		strictAgrees(t, errL, errS)
		if errL == nil {
			if off < 0 || off > len(in) {
				t.Fatalf("body offset %d outside %d bytes", off, len(in))
			}
			hv, err := h.HeaderVersion()
			if err != nil {
				t.Fatalf("parsed a header whose version is unknown: %v", err)
			}
			checkHeader(t, h, hv, errS, in[:off])
			reused := codec.RequestHeader{ClientId: codec.Str("old"), ClientInstanceId: codec.SomeUUID(codec.UUID{9}),
				UnknownTags: codec.TaggedFields{{Tag: 7, Data: []byte{1}}}}
			if _, err := codec.ParseRequestHeader(in, &reused, lenient); err != nil || !reflect.DeepEqual(reused, h) {
				t.Fatalf("decoding into a reused header: %v\n got %#v\nwant %#v", err, reused, h)
			}
		} else if !errors.Is(errL, codec.ErrUnknownAPIKey) && !errors.Is(errL, codec.ErrUnsupportedVersion) {
			checkDecodeError(t, errL, len(in))
		}

		if len(in) == 0 {
			return
		}
		hv := int16(in[0]&1) + 1
		b := in[1:]
		r := codec.NewReader(b, "RequestHeader", hv, hv == 2, lenient)
		var g codec.RequestHeader
		g.ReadFrom(&r, hv)
		errL = r.Err()
		rs := codec.NewReader(b, "RequestHeader", hv, hv == 2, strict)
		var gs codec.RequestHeader
		gs.ReadFrom(&rs, hv)
		strictAgrees(t, errL, rs.Err())
		if errL != nil {
			checkDecodeError(t, errL, len(b))
			return
		}
		checkHeader(t, g, hv, rs.Err(), b[:r.Offset()])
	})
}

// checkHeader: h, decoded leniently from in at header version hv (errS is
// the strict result), re-encodes to bytes that decode back to h.
func checkHeader(t *testing.T, h codec.RequestHeader, hv int16, errS error, in []byte) {
	t.Helper()
	enc, err := h.AppendTo(nil, hv)
	if err != nil {
		if errors.Is(err, codec.ErrTagOrder) && errors.Is(errS, codec.ErrTagOrder) {
			return
		}
		t.Fatalf("decoded header does not encode: %v\n%#v", err, h)
	}
	r := codec.NewReader(enc, "RequestHeader", hv, hv == 2, strict)
	var h2 codec.RequestHeader
	h2.ReadFrom(&r, hv)
	if err := r.Finish(); err != nil || !reflect.DeepEqual(h, h2) {
		t.Fatalf("re-encoded header: %v\n got %#v\nwant %#v", err, h2, h)
	}
	if errS == nil && len(enc) > len(in) {
		t.Fatalf("canonical encoding (%d bytes) longer than the input (%d)", len(enc), len(in))
	}
}

// FuzzResponseHeader decodes the input as a response header v0 or v1 (low
// bit of the first byte). Invariants: never panics; on success the header
// re-encodes and decodes to itself; strict and lenient agree except tag
// order.
func FuzzResponseHeader(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 7})
	f.Add([]byte{1, 0, 0, 0, 7, 0})
	f.Add([]byte{1, 0, 0, 0, 7, 2, 1, 0, 0, 1, 0xaa})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		hv := int16(in[0] & 1)
		b := in[1:]
		r := codec.NewReader(b, "ResponseHeader", hv, hv == 1, lenient)
		var h codec.ResponseHeader
		h.ReadFrom(&r, hv)
		rs := codec.NewReader(b, "ResponseHeader", hv, hv == 1, strict)
		var hs codec.ResponseHeader
		hs.ReadFrom(&rs, hv)
		strictAgrees(t, r.Err(), rs.Err())
		if err := r.Err(); err != nil {
			checkDecodeError(t, err, len(b))
			return
		}
		enc, err := h.AppendTo(nil, hv)
		if err != nil {
			if errors.Is(err, codec.ErrTagOrder) && errors.Is(rs.Err(), codec.ErrTagOrder) {
				return
			}
			t.Fatalf("decoded header does not encode: %v", err)
		}
		r2 := codec.NewReader(enc, "ResponseHeader", hv, hv == 1, strict)
		var h2 codec.ResponseHeader
		h2.ReadFrom(&r2, hv)
		if err := r2.Finish(); err != nil || !reflect.DeepEqual(h, h2) {
			t.Fatalf("re-encoded header: %v\n got %#v\nwant %#v", err, h2, h)
		}
	})
}

// FuzzTaggedFields reads the input as a tagged-field section (after a first
// byte whose low bit picks the mode) in which tag 1 is a known int64 and
// every other tag is kept raw, the way message decoders use TagSection.
// Invariants:
//   - never panics; failures are *codec.Error inside the input;
//   - a known tag whose declared size is not 8 is ErrTagSize;
//   - every kept tag's data is the declared number of bytes of the input;
//   - strict decoding fails exactly when lenient decoding succeeds with
//     tags not strictly ascending (or fails the same way);
//   - kept tags in strictly ascending order re-encode with
//     Writer.UnknownTags, and that section reads back the same tags;
//   - Reader.UnknownTags (no known tags) reads the same section as the
//     loop when the known tag is absent.
func FuzzTaggedFields(f *testing.F) {
	f.Add([]byte{0, 0})
	f.Add([]byte{0, 1, 1, 8, 0, 0, 0, 0, 0, 0, 0, 7})
	f.Add([]byte{1, 3, 0, 1, 0xaa, 1, 8, 1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0x01, 0})
	f.Add([]byte{0, 2, 5, 0, 2, 1, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		opts := lenient
		if in[0]&1 == 1 {
			opts = codec.DecodeOptions{NoCopy: true}
		}
		b := in[1:]
		kept, off, order, errL := readTagSection(t, b, opts)
		_, _, _, errS := readTagSection(t, b, codec.DecodeOptions{Strict: true, NoCopy: opts.NoCopy})
		if errL != nil {
			checkDecodeError(t, errL, len(b))
			if errS == nil {
				t.Fatalf("strict accepts what lenient refuses: %v", errL)
			}
			return
		}
		ascending := true
		for i := 1; i < len(order); i++ {
			if order[i] <= order[i-1] {
				ascending = false
			}
		}
		if ascending != (errS == nil) {
			t.Fatalf("tags %v: strict result %v", order, errS)
		}
		if !ascending {
			if !errors.Is(errS, codec.ErrTagOrder) {
				t.Fatalf("tags %v out of order: strict says %v", order, errS)
			}
		}
		total := 0
		for _, k := range kept {
			total += len(k.Data)
			if k.Data == nil {
				t.Fatalf("kept tag %d with nil data", k.Tag)
			}
		}
		if total > off {
			t.Fatalf("kept %d bytes of data from %d bytes read", total, off)
		}
		w := codec.NewWriter("Section", 0, true)
		enc := w.UnknownTags(nil, "TaggedFields", kept)
		sortedKept := true
		for i := 1; i < len(kept); i++ {
			if kept[i].Tag <= kept[i-1].Tag {
				sortedKept = false
			}
		}
		if !sortedKept {
			if !errors.Is(w.Err(), codec.ErrTagOrder) {
				t.Fatalf("unordered tags %v encoded: %v", order, w.Err())
			}
			return
		}
		if w.Err() != nil {
			t.Fatalf("ordered tags do not encode: %v", w.Err())
		}
		r := codec.NewReader(enc, "Section", 0, true, strict)
		again := r.UnknownTags("TaggedFields", nil)
		if err := r.Finish(); err != nil || !reflect.DeepEqual(again, tagsOrNil(kept)) {
			t.Fatalf("re-read tags: %v\n got %#v\nwant %#v", err, again, kept)
		}
		if !containsTag(order, 1) {
			r := codec.NewReader(b, "Section", 0, true, opts)
			plain := r.UnknownTags("TaggedFields", nil)
			if r.Err() != nil || r.Offset() != off || !reflect.DeepEqual(plain, tagsOrNil(kept)) {
				t.Fatalf("UnknownTags reads differently: %v at %d (loop at %d)\n%#v\n%#v", r.Err(), r.Offset(), off, plain, kept)
			}
		}
	})
}

// readTagSection reads b as FuzzTaggedFields describes, tag 1 being a
// known int64 and every other tag kept. It returns the kept tags, the
// offset reached, the tags in the order read and the error.
func readTagSection(t *testing.T, b []byte, opts codec.DecodeOptions) (codec.TaggedFields, int, []uint32, error) {
	t.Helper()
	r := codec.NewReader(b, "Section", 0, true, opts)
	var kept codec.TaggedFields
	var order []uint32
	ts := r.BeginTags("TaggedFields")
	for ts.Next(&r) {
		order = append(order, ts.Tag)
		if ts.Tag != 1 {
			kept = ts.Keep(&r, kept)
			continue
		}
		r.Int64("Known")
		ts.EndKnown(&r, "Known")
		if ts.Size != 8 && !errors.Is(r.Err(), codec.ErrTagSize) {
			t.Fatalf("known tag of declared size %d: %v", ts.Size, r.Err())
		}
	}
	return kept, r.Offset(), order, r.Err()
}

// tagsOrNil is how decoders return an empty tag section: nil.
func tagsOrNil(ts codec.TaggedFields) codec.TaggedFields {
	if len(ts) == 0 {
		return nil
	}
	return ts
}

func containsTag(ts []uint32, tag uint32) bool {
	for _, t := range ts {
		if t == tag {
			return true
		}
	}
	return false
}

// FuzzFrame splits the input into frames with SplitFrame and reads it with
// ReadFrame from a bytes.Reader, both with a small maximum frame size (the
// first input byte; 0 means the default). Invariants:
//   - never panics and never allocates for a frame before its size is
//     checked against the maximum;
//   - SplitFrame and ReadFrame see the same sequence of frames; where
//     SplitFrame stops with ErrFrameTooLarge so does ReadFrame, and where it
//     stops with ErrTruncated (a partial frame) ReadFrame reports an
//     unexpected EOF (or EOF when no byte of the next frame arrived);
//   - a frame's contents are the bytes its size prefix announced, and
//     re-framing them with BeginFrame/FinishFrame gives the input back.
func FuzzFrame(f *testing.F) {
	f.Add([]byte{16, 0, 0, 0, 2, 0xaa, 0xbb, 0, 0, 0, 0})
	f.Add([]byte{4, 0, 0, 0, 5, 1, 2, 3, 4, 5})
	f.Add([]byte{16, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{16, 0, 0, 0, 3, 1})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		max := int(in[0])
		b := in[1:]
		rd := bytes.NewReader(b)
		var buf []byte
		if len(b)%2 == 0 {
			buf = make([]byte, 0, 8) // sometimes a reused buffer, sometimes none
		}
		rest := b
		for {
			frame, next, err := codec.SplitFrame(rest, max)
			got, rerr := codec.ReadFrame(rd, buf, max)
			if err != nil {
				switch {
				case errors.Is(err, codec.ErrFrameTooLarge):
					if !errors.Is(rerr, codec.ErrFrameTooLarge) {
						t.Fatalf("SplitFrame: %v; ReadFrame: %v", err, rerr)
					}
				case errors.Is(err, codec.ErrTruncated):
					if len(rest) == 0 && rerr != io.EOF {
						t.Fatalf("at the end: ReadFrame says %v, want EOF", rerr)
					}
					if len(rest) > 0 && rerr != io.ErrUnexpectedEOF {
						t.Fatalf("partial frame of %d bytes: ReadFrame says %v", len(rest), rerr)
					}
				default:
					t.Fatalf("SplitFrame: unexpected %v", err)
				}
				if !bytes.Equal(next, rest) {
					t.Fatal("SplitFrame consumed input on error")
				}
				return
			}
			if rerr != nil || !bytes.Equal(frame, got) {
				t.Fatalf("SplitFrame gave % x, ReadFrame % x, %v", frame, got, rerr)
			}
			if lim := max; lim > 0 && len(frame) > lim {
				t.Fatalf("frame of %d bytes over the maximum %d", len(frame), lim)
			}
			re, start := codec.BeginFrame(nil)
			re = codec.FinishFrame(append(re, frame...), start)
			if !bytes.Equal(re, rest[:len(rest)-len(next)]) {
				t.Fatalf("re-framed % x, input % x", re, rest[:len(rest)-len(next)])
			}
			rest = next
			buf = got
		}
	})
}

// FuzzDecodeRequest decodes the input as request frames (size prefix,
// header, body) with a maximum of 1 MiB, as a server reads a connection.
// Invariants:
//   - never panics; a failure is an *codec.Error inside the frame;
//   - an unknown api key or an unsupported version is reported as such,
//     with the header's key, version and correlation id still returned;
//   - strict and lenient agree except trailing bytes and tag order;
//   - a decoded request re-encodes with AppendRequest (or fails with
//     ErrTagOrder after lenient decoding of unordered tags) to a frame that
//     decodes, strictly, to the same header and body.
func FuzzDecodeRequest(f *testing.F) {
	addSeeds(f, requestFrameSeeds())
	f.Fuzz(func(t *testing.T, in []byte) {
		rest := in
		for len(rest) > 0 {
			frame, next, err := codec.SplitFrame(rest, 1<<20)
			if err != nil {
				return
			}
			rest = next
			h, body, errL := codec.DecodeRequest(frame, lenient)
			hs, bodyS, errS := codec.DecodeRequest(frame, strict)
			strictAgrees(t, errL, errS)
			if errL != nil {
				checkDecodeError(t, errL, len(frame))
				if errors.Is(errL, codec.ErrUnknownAPIKey) && codec.Lookup(h.RequestApiKey) != nil {
					t.Fatalf("unknown api key error for known key %v", h.RequestApiKey)
				}
				continue
			}
			if errS == nil && (!reflect.DeepEqual(h, hs) || !reflect.DeepEqual(body, bodyS)) {
				t.Fatalf("strict and lenient values differ")
			}
			enc, err := codec.AppendRequest(nil, &h, body)
			if err != nil {
				if errors.Is(err, codec.ErrTagOrder) && errors.Is(errS, codec.ErrTagOrder) {
					continue
				}
				t.Fatalf("decoded request does not encode: %v\n%#v\n%#v", err, h, body)
			}
			f2, _, err := codec.SplitFrame(enc, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			h2, body2, err := codec.DecodeRequest(f2, strict)
			if err != nil || !reflect.DeepEqual(h, h2) || !reflect.DeepEqual(body, body2) {
				t.Fatalf("re-decoded request differs: %v\n%#v %#v\n%#v %#v", err, h2, body2, h, body)
			}
		}
	})
}
