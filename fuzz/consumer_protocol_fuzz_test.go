package fuzz

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/codec/codectest"
)

// consumerProtocol is one of the consumer protocol's structures, as the
// fuzz target sees it.
type consumerProtocol interface {
	Decode(b []byte, opts codec.DecodeOptions) (int16, error)
	AppendTo(dst []byte, version int16) ([]byte, error)
}

// FuzzConsumerProtocol decodes the fuzzer's bytes (after the first, whose
// low bit picks ConsumerProtocolSubscription or ConsumerProtocolAssignment)
// as a consumer protocol structure, version prefix first. Invariants:
//   - decoding never panics; a failure is an *codec.Error inside the input;
//   - strict and lenient decoding agree, except that strict also reports
//     bytes after a known version's fields; NoCopy and OneCopy decoding
//     give the same value and error;
//   - a decoded value encodes at its version (at most the highest known:
//     a newer version is read as that), and the encoding decodes, strictly,
//     to the same value.
//
// Reproduce a failure with: go test ./fuzz -run '^FuzzConsumerProtocol$'
func FuzzConsumerProtocol(f *testing.F) {
	for v := int16(0); v <= codec.ConsumerProtocolMaxVersion; v++ {
		s := codectest.ConsumerProtocolSubscription(v).Example(int(v))
		b, _ := s.AppendTo([]byte{0}, v)
		f.Add(b)
		a := codectest.ConsumerProtocolAssignment().Example(int(v))
		b, _ = a.AppendTo([]byte{1}, v)
		f.Add(b)
	}
	f.Add([]byte{0, 0, 9, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 2}) // a newer version with more fields
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		fresh := func() consumerProtocol {
			if in[0]&1 == 0 {
				return &codec.ConsumerProtocolSubscription{}
			}
			return &codec.ConsumerProtocolAssignment{}
		}
		b := in[1:]
		m := fresh()
		v, errL := m.Decode(b, lenient)
		ms := fresh()
		_, errS := ms.Decode(b, strict)
		strictAgrees(t, errL, errS)
		if errS == nil && !reflect.DeepEqual(m, ms) {
			t.Fatalf("strict and lenient values differ:\n%#v\n%#v", m, ms)
		}
		for _, opts := range []codec.DecodeOptions{noCopy, oneCopy} {
			mo := fresh()
			if _, err := mo.Decode(b, opts); (err == nil) != (errL == nil) || errL == nil && !reflect.DeepEqual(m, mo) {
				t.Fatalf("decoding with %+v differs: %v vs %v", opts, err, errL)
			}
		}
		if errL != nil {
			checkDecodeError(t, errL, len(b))
			return
		}
		ev := min(v, codec.ConsumerProtocolMaxVersion)
		enc, err := m.AppendTo(nil, ev)
		if err != nil {
			t.Fatalf("decoded value does not encode at v%d: %v\n%#v", ev, err, m)
		}
		m2 := fresh()
		if v2, err := m2.Decode(enc, strict); err != nil || v2 != ev || !reflect.DeepEqual(m, m2) {
			t.Fatalf("re-encoding decodes to v%d %v:\n got %#v\nwant %#v", v2, err, m2, m)
		}
		if enc2, _ := m2.AppendTo(nil, ev); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not canonical:\n% x\n% x", enc, enc2)
		}
	})
}
