package fuzz

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"
)

// TestDifferentialKmsg compares this codec with franz-go's kmsg on valid
// values, for every message and every version both implement: the two
// encodings are byte for byte the same, each codec decodes the other's bytes
// to the drawn value, and kmsg re-encodes what it decoded identically.
//
// Versions left out, because kmsg does not have them (not differences):
// telemetry v1 (GetTelemetrySubscriptions and PushTelemetry v1 are
// docs/PROTOCOL.md A2's KIP-1313 layout; kmsg has v0 only) and, the other way
// round, ApiVersions v5 (kmsg has it, this codec stops at v4). Metadata
// (v0-v13), FindCoordinator (v0-v6) and the classic apis (JoinGroup v0-v9,
// Heartbeat v0-v4, SyncGroup v0-v5, DescribeGroups v0-v6) are compared at
// every version.
// Strings drawn here are at most 400 bytes, so kmsg not checking compact
// strings against 0x7fff (docs/PROTOCOL.md §B2) does not arise;
// TestDecodeDifferences pins it.
func TestDifferentialKmsg(t *testing.T) {
	for _, k := range codectest.Kinds() {
		for v := k.API().MinVersion; v <= kmsgMaxVersion(k.Key); v++ {
			t.Run(fmt.Sprintf("%s/v%d", k.Name(), v), func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) {
					x := codectest.Message(k, v).Draw(t, "x")
					ours, err := x.AppendTo(nil, v)
					if err != nil {
						t.Fatalf("encode: %v", err)
					}
					theirs := toKmsg(x, v).AppendTo(nil)
					if !bytes.Equal(ours, theirs) {
						t.Fatalf("encodings differ:\n ours % x\nkmsg % x", ours, theirs)
					}

					km := newKmsg(k.Key, k.Response, v)
					if err := km.ReadFrom(ours); err != nil {
						t.Fatalf("kmsg cannot decode our bytes: %v\n% x", err, ours)
					}
					if got := fromKmsg(km, v); !reflect.DeepEqual(got, x) {
						t.Fatalf("kmsg decodes our bytes to\n%#v\nwant %#v", got, x)
					}
					if again := km.AppendTo(nil); !bytes.Equal(again, ours) {
						t.Fatalf("kmsg re-encodes differently:\n% x\n% x", again, ours)
					}

					y := codec.Lookup(k.Key).NewMessage(k.Response)
					if err := codec.DecodeBody(y, theirs, v, codec.DecodeOptions{Strict: true}); err != nil {
						t.Fatalf("we cannot decode kmsg's bytes: %v", err)
					}
					if !reflect.DeepEqual(y, x) {
						t.Fatalf("we decode kmsg's bytes to\n%#v\nwant %#v", y, x)
					}
				})
			})
		}
	}
}

// TestDifferentialRequestFrame compares whole request frames with kmsg's
// RequestFormatter, which writes header v1 or v2 from the body's
// flexibility. kmsg never writes header tags (it has no KIP-1313
// ClientInstanceId, tag 0), so the headers drawn here carry none.
func TestDifferentialRequestFrame(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := codectest.RequestHeader().Draw(t, "h")
		h.ClientInstanceId = codec.NullableUUID{}
		h.UnknownTags = nil
		if h.RequestApiVersion > kmsgMaxVersion(h.RequestApiKey) {
			h.RequestApiVersion = kmsgMaxVersion(h.RequestApiKey)
		}
		body := codectest.Message(codectest.Kind{Key: h.RequestApiKey}, h.RequestApiVersion).Draw(t, "body")
		ours, err := codec.AppendRequest(nil, &h, body)
		if err != nil {
			t.Fatal(err)
		}
		f := kmsg.NewRequestFormatter()
		if h.ClientId.Valid {
			f = kmsg.NewRequestFormatter(kmsg.FormatterClientID(h.ClientId.Value))
		}
		req := toKmsg(body, h.RequestApiVersion).(kmsg.Request)
		theirs := f.AppendRequest(nil, req, h.CorrelationId)
		if !bytes.Equal(ours, theirs) {
			t.Fatalf("frames differ:\n ours % x\nkmsg % x", ours, theirs)
		}
	})
}

// TestDecodeDifferences pins, one input each, every place where this codec
// and kmsg decode the same bytes differently. This codec follows Kafka's
// Java reader (docs/PROTOCOL.md §B2) in each; FuzzDifferentialKmsg tolerates
// exactly these.
func TestDecodeDifferences(t *testing.T) {
	long := append([]byte{0x82, 0x80, 0x02}, bytes.Repeat([]byte{'x'}, 0x8001)...)
	cases := []struct {
		name     string
		key      codec.APIKey
		response bool
		version  int16
		in       []byte
		oursOK   bool
		kmsgOK   bool
	}{
		{"compact string longer than 0x7fff: Java and we refuse, kmsg reads it",
			codec.ConsumerGroupDescribe, false, 0, append(append([]byte{0x02}, long...), 0, 0), false, true},
		{"null for a non-nullable array: Java and we refuse, kmsg reads it as empty",
			codec.ConsumerGroupDescribe, false, 0, []byte{0x00, 0x00, 0x00}, false, true},
		{"null for non-nullable bytes: Java and we refuse, kmsg reads them as empty",
			codec.PushTelemetry, false, 0, append(make([]byte, 22), 0x00, 0x00), false, true},
		{"known tag shorter than its declared size: we refuse, kmsg skips the rest",
			codec.ApiVersions, true, 3, []byte{0, 0, 1, 0, 0, 0, 0, 1, 3, 2, 1, 0}, false, true},
		{"fifth varint byte above 0x0f: Java and we drop the high bits, kmsg refuses",
			codec.ConsumerGroupDescribe, false, 0, []byte{0x81, 0x80, 0x80, 0x80, 0x70, 0x00, 0x00}, true, false},
		{"compact nullable string length that wraps negative: Java and we read null, kmsg refuses",
			codec.ConsumerGroupHeartbeat, true, 0, []byte{0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := codec.Lookup(tc.key).NewMessage(tc.response)
			oerr := codec.DecodeBody(m, tc.in, tc.version, codec.DecodeOptions{})
			kerr := newKmsg(tc.key, tc.response, tc.version).ReadFrom(tc.in)
			if (oerr == nil) != tc.oursOK || (kerr == nil) != tc.kmsgOK {
				t.Fatalf("ours: %v, kmsg: %v; want ours ok %v, kmsg ok %v", oerr, kerr, tc.oursOK, tc.kmsgOK)
			}
		})
	}
	// Nullable struct marker: Java and we read any negative int8 as null;
	// kmsg only -1. Both succeed, with different values.
	in := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfe, 0x01, 0x00, 0x00}
	var ours codec.ConsumerGroupHeartbeatResponse
	if err := codec.DecodeBody(&ours, in, 1, codec.DecodeOptions{}); err != nil || ours.Assignment != nil {
		t.Fatalf("ours: %v, %+v", err, ours.Assignment)
	}
	km := &kmsg.ConsumerGroupHeartbeatResponse{Version: 1}
	if err := km.ReadFrom(in); err != nil || km.Assignment == nil {
		t.Fatalf("kmsg: %v, %+v", err, km.Assignment)
	}
}
