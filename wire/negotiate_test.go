package wire_test

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/wire"
)

var testInstance = codec.UUID{0x67, 0x63, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}

func headers(t *testing.T, clientID string) *wire.Headers {
	t.Helper()
	hm, err := wire.NewHeaders(codec.Str(clientID), testInstance)
	if err != nil {
		t.Fatal(err)
	}
	return hm
}

func dial(t *testing.T, addr string, o wire.Options) *wire.Conn {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	c, err := wire.Dial(addr, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// garbage parses as no ApiVersions body of any version.
var garbage = []byte{0xde, 0xad, 0xbe, 0xef, 0x01}

// truncated is the first half of an ApiVersions v4 body.
func truncated(t *testing.T) []byte {
	b, err := apiVersions(4).AppendTo(nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	return b[:len(b)/2]
}

// below answers versions above v with bad, and the rest as a broker
// speaking up to 4 would.
func below(t *testing.T, v int16, bad func(r request) []byte) func(r request) []byte {
	good := speaks(t, 4)
	return func(r request) []byte {
		if r.Header.RequestApiVersion > v {
			return bad(r)
		}
		return good(r)
	}
}

func TestNegotiate(t *testing.T) {
	unsupported := func(keys ...codec.ApiVersionsKey) func(r request) []byte {
		return func(r request) []byte {
			m := codec.NewApiVersionsResponse()
			m.ErrorCode, m.ApiKeys = codec.UnsupportedVersion, keys
			return reply(t, r.Header.CorrelationId, 0, m)
		}
	}
	cases := []struct {
		name   string
		answer func(r request) []byte
		max    int16
		// asked are the ApiVersions versions the broker should see.
		asked   []int16
		version int16    // settled at (-1: not)
		notes   []string // substrings of each note, in order
		err     func(error) bool
	}{
		{name: "a broker speaking v3 answers v3 at once", answer: speaks(t, 3), max: 3, asked: []int16{3}, version: 3},
		{name: "a broker speaking v4 answers the default, v4", answer: speaks(t, 4), asked: []int16{4}, version: 4},
		{name: "KIP-511: UNSUPPORTED_VERSION with a v0 body, retried at its max", answer: speaks(t, 2), asked: []int16{4, 2}, version: 2,
			notes: []string{"v4 answered UNSUPPORTED_VERSION (v0 body) offering ApiVersions v0-v2; retried at v2"}},
		{name: "a garbage reply falls back one version", answer: below(t, 2, func(r request) []byte { return rawReply(r.Header.CorrelationId, garbage) }),
			asked: []int16{4, 3, 2}, version: 2, notes: []string{"v4 reply did not parse: codec: ApiVersionsResponse v4", "v3 reply did not parse"}},
		{name: "a truncated reply falls back one version", answer: below(t, 3, func(r request) []byte { return rawReply(r.Header.CorrelationId, truncated(t)) }),
			asked: []int16{4, 3}, version: 3, notes: []string{"v4 reply did not parse: codec: ApiVersionsResponse v4"}},
		{name: "a reply under another correlation id falls back", answer: below(t, 3, func(r request) []byte {
			return reply(t, r.Header.CorrelationId+100, 4, apiVersions(4))
		}), asked: []int16{4, 3}, version: 3, notes: []string{"v4 reply did not parse: correlation id 101, want 1; fell back to v3"}},
		{name: "UNSUPPORTED_VERSION listing no ApiVersions range falls back", answer: below(t, 3, unsupported()),
			asked: []int16{4, 3}, version: 3, notes: []string{"v4 answered UNSUPPORTED_VERSION without a lower ApiVersions range (none listed); fell back to v3"}},
		{name: "UNSUPPORTED_VERSION offering the version asked falls back", answer: below(t, 2, unsupported(codec.ApiVersionsKey{ApiKey: codec.ApiVersions, MaxVersion: 9})),
			asked: []int16{4, 3, 2}, version: 2, notes: []string{"(v0-v9); fell back to v3", "(v0-v9); fell back to v2"}},
		{name: "a v0 body without an error to a v4 request falls back", answer: below(t, 3, func(r request) []byte {
			return reply(t, r.Header.CorrelationId, 0, apiVersions(4))
		}), asked: []int16{4, 3}, version: 3, notes: []string{"v4 reply parsed only as a v0 body, without an error code; fell back to v3"}},
		{name: "garbage at every version fails after v0", answer: func(r request) []byte { return rawReply(r.Header.CorrelationId, garbage) },
			asked: []int16{4, 3, 2, 1, 0}, version: -1,
			notes: []string{"v4 reply did not parse", "v3", "v2", "v1", "v0 reply did not parse: codec: ApiVersionsResponse v0: field ApiKeys at byte 6: truncated (need 4 bytes, have 3); no lower version to fall back to"},
			err:   func(err error) bool { return errors.Is(err, wire.ErrNegotiation) }},
		{name: "an error code ends it", answer: func(r request) []byte {
			m := apiVersions(4)
			m.ErrorCode = codec.InvalidRequest
			return reply(t, r.Header.CorrelationId, 4, m)
		}, asked: []int16{4}, version: -1, err: func(err error) bool {
			var ae *wire.ApiVersionsError
			return errors.As(err, &ae) && ae.Code == codec.InvalidRequest && ae.Version == 4
		}},
		{name: "a broker that closes ends it", answer: func(request) []byte { return nil }, asked: []int16{4}, version: -1,
			err: func(err error) bool { return errors.Is(err, wire.ErrConnClosed) }},
		{name: "a frame cut short by a close ends it", answer: func(r request) []byte {
			return rawReply(r.Header.CorrelationId, truncated(t))[:12]
		}, asked: []int16{4}, version: -1, err: func(err error) bool { return errors.Is(err, wire.ErrConnClosed) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := startBroker(t, tc.answer)
			c := dial(t, b.addr, wire.Options{})
			n, err := c.Negotiate(headers(t, "neg"), wire.NegotiateOptions{MaxVersion: tc.max})
			if tc.err == nil && err != nil {
				t.Fatalf("the negotiation should settle, failed: %v (notes: %v)", err, n.Notes)
			}
			if tc.err != nil && !tc.err(err) {
				t.Fatalf("the negotiation should fail as the case says, got err %v (notes: %v)", err, n.Notes)
			}
			var asked []int16
			for _, h := range b.headers() {
				asked = append(asked, h.RequestApiVersion)
			}
			if !reflect.DeepEqual(asked, tc.asked) {
				t.Errorf("ApiVersions should be asked at %v, was at %v", tc.asked, asked)
			}
			if n.Version != tc.version {
				t.Errorf("the negotiation should settle at v%d, settled at v%d", tc.version, n.Version)
			}
			if tc.version >= 0 && (n.Versions.Max(codec.ConsumerGroupHeartbeat) != 1 || n.Response == nil) {
				t.Errorf("a settled negotiation should carry the broker's ranges, has %v", n.Versions)
			}
			if tc.version < 0 && n.Versions != nil {
				t.Errorf("a failed negotiation should carry no ranges, has %v", n.Versions)
			}
			if len(n.Notes) != len(tc.notes) {
				t.Fatalf("the negotiation should note %d replies, noted %q", len(tc.notes), n.Notes)
			}
			for i, want := range tc.notes {
				if !strings.Contains(n.Notes[i], want) {
					t.Errorf("note %d should say %q, says %q", i, want, n.Notes[i])
				}
			}
		})
	}
}

// A broker that never answers: the wait ends at the timeout, an outcome
// unknown.
func TestNegotiateTimesOut(t *testing.T) {
	b := startBroker(t, func(request) []byte { return []byte{} })
	c := dial(t, b.addr, wire.Options{Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := c.Negotiate(headers(t, "neg"), wire.NegotiateOptions{})
	if !errors.Is(err, wire.ErrNoResponse) || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a silent broker should time out as no response, got %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the wait should end near the 200ms timeout, took %v", d)
	}
}

// KIP-1313 during a negotiation: ClientId on the connection's first
// request only; the instance id in every v2 header, none in v1 headers.
func TestNegotiateHeaders(t *testing.T) {
	b := startBroker(t, speaks(t, 2))
	c := dial(t, b.addr, wire.Options{})
	if _, err := c.Negotiate(headers(t, "neg"), wire.NegotiateOptions{}); err != nil {
		t.Fatal(err)
	}
	hs := b.headers()
	if len(hs) != 2 {
		t.Fatalf("want the v4 request and the v2 retry, saw %d requests", len(hs))
	}
	if hs[0].ClientId != codec.Str("neg") || hs[1].ClientId.Valid {
		t.Errorf("ClientId should ride on the first request only: %v then %v", hs[0].ClientId, hs[1].ClientId)
	}
	if hs[0].ClientInstanceId != codec.SomeUUID(testInstance) {
		t.Errorf("the v4 request's v2 header should carry the instance id in tag 0: %v", hs[0].ClientInstanceId)
	}
	if hs[1].ClientInstanceId.Valid {
		t.Errorf("the v2 request's v1 header has no tags, yet carried %v", hs[1].ClientInstanceId)
	}
	if hs[0].CorrelationId == hs[1].CorrelationId {
		t.Errorf("each request needs its own correlation id, both had %d", hs[0].CorrelationId)
	}
}

func TestVersions(t *testing.T) {
	vs := wire.Versions{codec.LeaveGroup: {0, 5}, codec.ConsumerGroupDescribe: {1, 1}}
	cases := []struct {
		key      codec.APIKey
		min, max int16
		want     int16
		err      string
	}{
		{codec.LeaveGroup, 0, 3, 3, ""},
		{codec.LeaveGroup, 3, 9, 5, ""},
		{codec.ConsumerGroupDescribe, 0, 0, 0, "the broker offers ConsumerGroupDescribe v1-v1, ghostcheck needs v0-v0"},
		{codec.ConsumerGroupHeartbeat, 0, 1, 0, "the broker does not offer ConsumerGroupHeartbeat"},
	}
	for _, tc := range cases {
		got, err := vs.Pick(tc.key, tc.min, tc.max)
		if tc.err == "" && (err != nil || got != tc.want) || tc.err != "" && (err == nil || err.Error() != tc.err) {
			t.Errorf("Pick(%v, %d, %d) = %d, %v; want %d, %q", tc.key, tc.min, tc.max, got, err, tc.want, tc.err)
		}
	}
	if vs.Max(codec.LeaveGroup) != 5 || vs.Max(codec.ApiVersions) != -1 {
		t.Errorf("Max should be the range's top or -1: %d %d", vs.Max(codec.LeaveGroup), vs.Max(codec.ApiVersions))
	}
	if !vs.Offers(codec.ConsumerGroupDescribe, 1) || vs.Offers(codec.ConsumerGroupDescribe, 0) || vs.Offers(codec.ApiVersions, 0) {
		t.Errorf("Offers should hold exactly within a listed range")
	}
}
