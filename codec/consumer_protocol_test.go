package codec_test

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
)

// Golden vectors of the consumer protocol, written from Apache Kafka's
// ConsumerProtocolSubscription.json and ConsumerProtocolAssignment.json
// (fields, the versions of each, nullability; never flexible) and
// ConsumerProtocol's int16 version prefix, never produced by this codec.

type subscriptionGolden struct {
	name    string
	version int16
	msg     codec.ConsumerProtocolSubscription
	wire    string
}

var goldenSubscriptions = []subscriptionGolden{
	{"v0 topics, null user data", 0, codec.ConsumerProtocolSubscription{Topics: []string{"a", "bc"}, GenerationId: -1, RackId: codec.Null}, `
		00 00              # version 0
		00 00 00 02        # Topics: int32 count 2
		00 01 61           #   "a"
		00 02 62 63        #   "bc"
		ff ff ff ff        # UserData: null (int32 -1)`},
	{"v0 no topics, empty user data", 0, codec.ConsumerProtocolSubscription{UserData: []byte{}, GenerationId: -1, RackId: codec.Null}, `
		00 00  00 00 00 00  # version 0, Topics: empty (decodes to nil)
		00 00 00 00         # UserData: empty, not null`},
	{"v1 owned partitions", 1, codec.ConsumerProtocolSubscription{Topics: []string{"t"}, UserData: []byte{7},
		OwnedPartitions: []codec.ConsumerProtocolTopicPartitions{{Topic: "t", Partitions: []int32{0, 2}}}, GenerationId: -1, RackId: codec.Null}, `
		00 01                # version 1
		00 00 00 01  00 01 74  # Topics: "t"
		00 00 00 01  07      # UserData: 1 byte
		00 00 00 01          # OwnedPartitions: 1
		00 01 74             #   Topic "t"
		00 00 00 02  00 00 00 00  00 00 00 02  # Partitions [0, 2]`},
	{"v2 generation", 2, codec.ConsumerProtocolSubscription{Topics: []string{"t"}, GenerationId: 5, RackId: codec.Null}, `
		00 02  00 00 00 01  00 01 74  # version 2, Topics "t"
		ff ff ff ff                   # UserData null
		00 00 00 00                   # OwnedPartitions: empty
		00 00 00 05                   # GenerationId 5`},
	{"v3 rack", 3, codec.ConsumerProtocolSubscription{GenerationId: -1, RackId: codec.Str("r1")}, `
		00 03  00 00 00 00  ff ff ff ff  # version 3, Topics empty, UserData null
		00 00 00 00                      # OwnedPartitions empty
		ff ff ff ff                      # GenerationId -1
		00 02 72 31                      # RackId "r1"`},
	{"v3 null rack", 3, codec.ConsumerProtocolSubscription{Topics: []string{"x"}, GenerationId: 0, RackId: codec.Null}, `
		00 03  00 00 00 01 00 01 78  ff ff ff ff  # version 3, Topics "x", UserData null
		00 00 00 00  00 00 00 00                  # OwnedPartitions empty, GenerationId 0
		ff ff                                     # RackId null (int16 -1)`},
}

type assignmentGolden struct {
	name    string
	version int16
	msg     codec.ConsumerProtocolAssignment
	wire    string
}

var goldenAssignments = []assignmentGolden{
	{"v0 two topics", 0, codec.ConsumerProtocolAssignment{AssignedPartitions: []codec.ConsumerProtocolTopicPartitions{
		{Topic: "a", Partitions: []int32{1}}, {Topic: "b"}}}, `
		00 00                      # version 0
		00 00 00 02                # AssignedPartitions: 2
		00 01 61  00 00 00 01  00 00 00 01  # "a" [1]
		00 01 62  00 00 00 00      # "b" [] (decodes to nil)
		ff ff ff ff                # UserData null`},
	{"v1 user data", 1, codec.ConsumerProtocolAssignment{UserData: []byte{1, 2}}, `
		00 01  00 00 00 00  00 00 00 02 01 02  # version 1, nothing assigned, UserData 2 bytes`},
	{"v2 empty", 2, codec.ConsumerProtocolAssignment{UserData: []byte{}}, `
		00 02  00 00 00 00  00 00 00 00  # version 2, nothing assigned, UserData empty`},
	{"v3 one partition", 3, codec.ConsumerProtocolAssignment{AssignedPartitions: []codec.ConsumerProtocolTopicPartitions{
		{Topic: "t", Partitions: []int32{9}}}}, `
		00 03  00 00 00 01  00 01 74  00 00 00 01  00 00 00 09  ff ff ff ff  # version 3, "t" [9], UserData null`},
}

var decodeModes = []codec.DecodeOptions{{Strict: true}, {}, {NoCopy: true}, {OneCopy: true}}

func TestConsumerProtocolGolden(t *testing.T) {
	for _, tc := range goldenSubscriptions {
		t.Run("Subscription "+tc.name, func(t *testing.T) {
			b := wire(t, tc.wire)
			for _, opts := range decodeModes {
				var got codec.ConsumerProtocolSubscription
				v, err := got.Decode(b, opts)
				if err != nil || v != tc.version || !reflect.DeepEqual(got, tc.msg) {
					t.Fatalf("decode %+v: v%d, %v\n got %#v\nwant %#v", opts, v, err, got, tc.msg)
				}
			}
			enc, err := tc.msg.AppendTo([]byte{0xde}, tc.version)
			if err != nil || enc[0] != 0xde || !bytes.Equal(enc[1:], b) {
				t.Fatalf("encode: %v\n got % x\nwant % x", err, enc[1:], b)
			}
		})
	}
	for _, tc := range goldenAssignments {
		t.Run("Assignment "+tc.name, func(t *testing.T) {
			b := wire(t, tc.wire)
			for _, opts := range decodeModes {
				var got codec.ConsumerProtocolAssignment
				v, err := got.Decode(b, opts)
				if err != nil || v != tc.version || !reflect.DeepEqual(got, tc.msg) {
					t.Fatalf("decode %+v: v%d, %v\n got %#v\nwant %#v", opts, v, err, got, tc.msg)
				}
			}
			enc, err := tc.msg.AppendTo(nil, tc.version)
			if err != nil || !bytes.Equal(enc, b) {
				t.Fatalf("encode: %v\n got % x\nwant % x", err, enc, b)
			}
		})
	}
}

// A version above the highest known is read as the highest, and what
// follows the fields of that version is left unread (Kafka's
// ConsumerProtocol: newer versions only add fields at the end), strict or
// not; a negative version, truncated input and, in strict mode, bytes
// after a known version's fields are errors naming the field and offset.
func TestConsumerProtocolVersionsAndErrors(t *testing.T) {
	newer := wire(t, `
		00 07  00 00 00 01  00 01 74  ff ff ff ff  # version 7, Topics "t", UserData null
		00 00 00 00  00 00 00 02  ff ff            # OwnedPartitions empty, GenerationId 2, RackId null
		aa bb                                      # a field of version 7`)
	var s codec.ConsumerProtocolSubscription
	if v, err := s.Decode(newer, codec.DecodeOptions{Strict: true}); err != nil || v != 7 || s.GenerationId != 2 || !reflect.DeepEqual(s.Topics, []string{"t"}) {
		t.Fatalf("a newer version: v%d, %v, %#v", v, err, s)
	}
	_, err := s.Decode(wire(t, `ff ff 00 00 00 00`), codec.DecodeOptions{})
	wantError(t, "negative version", err, codec.ErrUnsupportedVersion, "ConsumerProtocolSubscription", "Version", 0, 0)
	_, err = s.Decode(wire(t, `00`), codec.DecodeOptions{})
	wantError(t, "no version", err, codec.ErrTruncated, "ConsumerProtocolSubscription", "Version", 0, 0)
	_, err = s.Decode(wire(t, `00 01  00 00 00 01  00 01`), codec.DecodeOptions{})
	wantError(t, "truncated topic", err, codec.ErrLengthOverrun, "ConsumerProtocolSubscription", "Topics", 1, 6)
	var a codec.ConsumerProtocolAssignment
	_, err = a.Decode(wire(t, `00 00  7f ff ff ff`), codec.DecodeOptions{})
	wantError(t, "huge count", err, codec.ErrLengthOverrun, "ConsumerProtocolAssignment", "AssignedPartitions", 0, 2)
	trailing := wire(t, `00 00  00 00 00 00  ff ff ff ff  01`)
	if _, err := a.Decode(trailing, codec.DecodeOptions{}); err != nil {
		t.Fatalf("lenient decoding refused trailing bytes: %v", err)
	}
	_, err = a.Decode(trailing, codec.DecodeOptions{Strict: true})
	wantError(t, "trailing", err, codec.ErrTrailingBytes, "ConsumerProtocolAssignment", "", 0, 10)
	for _, v := range []int16{-1, codec.ConsumerProtocolMaxVersion + 1} {
		if _, err := (&codec.ConsumerProtocolAssignment{}).AppendTo(nil, v); err == nil {
			t.Fatalf("encoding at v%d succeeded", v)
		}
		if _, err := (&codec.ConsumerProtocolSubscription{}).AppendTo(nil, v); err == nil {
			t.Fatalf("encoding at v%d succeeded", v)
		}
	}
}

// Every drawn value encodes at its version and decodes back to itself,
// whatever the decoding mode, and decoding into a value that held another
// gives the same.
func TestConsumerProtocolRoundTrip(t *testing.T) {
	for v := int16(0); v <= codec.ConsumerProtocolMaxVersion; v++ {
		t.Run("v"+strconv.Itoa(int(v)), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := codectest.ConsumerProtocolSubscription(v).Draw(t, "subscription")
				other := codectest.ConsumerProtocolSubscription(codec.ConsumerProtocolMaxVersion).Draw(t, "other")
				b, err := s.AppendTo(nil, v)
				if err != nil {
					t.Fatalf("encode: %v", err)
				}
				for _, opts := range decodeModes {
					got := other // reused: its slices hold other data
					if gv, err := got.Decode(b, opts); err != nil || gv != v || !reflect.DeepEqual(got, s) {
						t.Fatalf("decode %+v: v%d %v\n got %#v\nwant %#v", opts, gv, err, got, s)
					}
				}
				a := codectest.ConsumerProtocolAssignment().Draw(t, "assignment")
				b, err = a.AppendTo(nil, v)
				if err != nil {
					t.Fatalf("encode: %v", err)
				}
				for _, opts := range decodeModes {
					var got codec.ConsumerProtocolAssignment
					if gv, err := got.Decode(b, opts); err != nil || gv != v || !reflect.DeepEqual(got, a) {
						t.Fatalf("decode %+v: v%d %v\n got %#v\nwant %#v", opts, gv, err, got, a)
					}
				}
			})
		})
	}
}
