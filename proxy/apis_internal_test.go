package proxy

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The header table agrees with franz-go's kmsg, an independent reading of
// Kafka's schemas, on every api and version kmsg knows: the name (up to
// Kafka's spelling of acronyms) and whether the request is flexible.
func TestHeaderTableMatchesKmsg(t *testing.T) {
	checked := 0
	for k := int16(0); k < int16(len(apiTable))+20; k++ {
		r := kmsg.RequestForKey(k)
		if r == nil {
			if hv, known := headerVersion(codec.APIKey(k), 0); known {
				t.Errorf("key %d: known here (header v%d), unknown to kmsg", k, hv)
			}
			continue
		}
		if int(k) >= len(apiTable) || apiTable[k].name == "" {
			t.Errorf("key %d (%s): not in the table", k, kmsg.NameForKey(k))
			continue
		}
		// kmsg shortens key 45's name; Kafka's is AlterPartitionReassignments.
		if k != 45 && !sameName(apiTable[k].name, kmsg.NameForKey(k)) {
			t.Errorf("key %d: name %s, kmsg %s", k, apiTable[k].name, kmsg.NameForKey(k))
		}
		for v := int16(0); v <= r.MaxVersion(); v++ {
			r.SetVersion(v)
			want := int16(1)
			if r.IsFlexible() {
				want = 2
			}
			if hv, _ := headerVersion(codec.APIKey(k), v); hv != want {
				t.Errorf("%s v%d: header v%d, kmsg says v%d", apiTable[k].name, v, hv, want)
			}
			checked++
		}
	}
	if checked < 300 {
		t.Errorf("checked %d versions only", checked)
	}
	// codec's own apis: the same header versions as codec says.
	for _, a := range codec.AllAPIs() {
		for v := a.MinVersion; v <= a.MaxVersion; v++ {
			want, _ := codec.RequestHeaderVersion(a.Key, v)
			if hv, _ := headerVersion(a.Key, v); hv != want {
				t.Errorf("%s v%d: header v%d, codec v%d", a.Name, v, hv, want)
			}
		}
	}
}

// sameName compares names ignoring case (kmsg writes InitProducerID,
// Kafka InitProducerId).
func sameName(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

// parseHeader reads what kmsg writes, for every header shape: ClientId
// null or set, header v1 and v2, tag 0 and other tags.
func TestParseHeader(t *testing.T) {
	inst := codec.UUID{1, 2, 3}
	for _, tc := range []struct {
		h      codec.RequestHeader
		wantHV int16
	}{
		{codec.RequestHeader{RequestApiKey: 11, RequestApiVersion: 5, CorrelationId: 7, ClientId: codec.Str("c")}, 1},
		{codec.RequestHeader{RequestApiKey: 11, RequestApiVersion: 9, CorrelationId: 7, ClientId: codec.Str("c"), ClientInstanceId: codec.SomeUUID(inst)}, 2},
		{codec.RequestHeader{RequestApiKey: 1, RequestApiVersion: 18, CorrelationId: -3, UnknownTags: codec.TaggedFields{{Tag: 4, Data: []byte("xy")}}}, 2},
		{codec.RequestHeader{RequestApiKey: 500, RequestApiVersion: 1, CorrelationId: 1, ClientId: codec.Str("z")}, 0},
	} {
		hv, _ := headerVersion(tc.h.RequestApiKey, tc.h.RequestApiVersion)
		b, err := tc.h.AppendTo(nil, hv)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, 0xAA, 0xBB) // a body
		var got codec.RequestHeader
		gotHV, at, err := parseHeader(b, &got)
		if err != nil || gotHV != tc.wantHV || at != len(b)-2 {
			t.Fatalf("%+v: hv %d at %d err %v", tc.h, gotHV, at, err)
		}
		if got.ClientId != tc.h.ClientId || got.ClientInstanceId != tc.h.ClientInstanceId || got.CorrelationId != tc.h.CorrelationId || len(got.UnknownTags) != len(tc.h.UnknownTags) {
			t.Errorf("read %+v, want %+v", got, tc.h)
		}
	}
	var h codec.RequestHeader
	for _, bad := range [][]byte{nil, {0, 11}, {0, 11, 0, 9, 0, 0, 0, 1, 0x7f, 0xff}, {0, 11, 0, 9, 0, 0, 0, 1, 0xff, 0xff, 5}} {
		if _, _, err := parseHeader(bad, &h); err == nil {
			t.Errorf("% x parsed", bad)
		}
	}
}

// A Produce with acks=0 is never answered; with acks 1 or -1, or a body
// too short to tell, it is.
func TestProduceNeedsNoResponse(t *testing.T) {
	for _, tc := range []struct {
		version int16
		body    []byte
		want    bool
	}{
		{2, []byte{0, 0, 0, 0, 0x75, 0x30}, true},
		{2, []byte{0, 1}, false},
		{3, []byte{0xff, 0xff, 0, 0}, true},              // null TransactionalId
		{3, []byte{0, 2, 't', 'x', 0xff, 0xff}, false},   // acks -1
		{3, []byte{0, 2, 't', 'x', 0, 0}, true},          // "tx", acks 0
		{9, []byte{0, 0, 0}, true},                       // compact null
		{9, []byte{3, 't', 'x', 0, 1}, false},            // "tx", acks 1
		{9, []byte{3, 't', 'x', 0, 0}, true},             // "tx", acks 0
		{9, []byte{0xff, 0xff, 0xff, 0xff, 0xff}, false}, // a bad varint
		{3, []byte{0x7f, 0xff}, false},                   // a length past the end
		{12, nil, false},
	} {
		if got := produceNeedsNoResponse(tc.body, tc.version); got != tc.want {
			t.Errorf("v%d % x: %v, want %v", tc.version, tc.body, got, tc.want)
		}
	}
}
