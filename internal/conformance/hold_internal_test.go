package conformance

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// A request ghostcheck cannot build is its own ERROR, never the broker's
// FAIL; a response that does not decode is the broker's.
func TestOwnErrorIsNeverAFail(t *testing.T) {
	h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 9, CorrelationId: 1}
	_, encErr := codec.AppendRequest(nil, h, &codec.ConsumerGroupHeartbeatRequest{})
	_, _, decErr := codec.DecodeResponse([]byte{0, 0, 0, 1, 0xff}, codec.ConsumerGroupHeartbeat, 1, codec.DecodeOptions{})
	if encErr == nil || decErr == nil {
		t.Fatalf("encode %v, decode %v: want both to fail", encErr, decErr)
	}
	for _, c := range []struct {
		name string
		err  error
		want Status
	}{
		{"ghostcheck's own request", encErr, Error},
		{"the broker's response", decErr, Fail},
	} {
		v := failOrOwn("ConsumerGroupHeartbeat v9", c.err, "a response")
		if v.status != c.want {
			t.Errorf("%s: %s %q, want %s", c.name, v.status, v.observed, c.want)
		}
		r := Result{Status: v.status, Source: "Kafka 9.9"}
		markNotShipped(&r, "3.9")
		if c.want == Error && (r.Status != Error || r.Failed() || !strings.Contains(v.observed, "bug of ghostcheck")) {
			t.Errorf("%s: %s failed=%v %q; want an ERROR that says it is ghostcheck's and is no finding", c.name, r.Status, r.Failed(), v.observed)
		}
	}
}
