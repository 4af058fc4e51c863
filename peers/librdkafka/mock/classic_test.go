package mock_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/wire"
)

// consumerCases are the suite's cases but the classic group protocol's
// (A6, B8, B5's classic part). The mock's classic coordinator is not held
// to those yet: it advertises JoinGroup v6 and closes the connection on
// it (L19, below), answers no MEMBER_ID_REQUIRED (no KIP-394), and holds
// a new group's first JoinGroup for seconds, so the classic cases need a
// recording of their own (docs/findings.md).
func consumerCases() []conformance.Case {
	var out []conformance.Case
	for _, c := range conformance.Select(nil, true, true) {
		if !strings.HasPrefix(c.Name, "A6.") && !strings.HasPrefix(c.Name, "B8.") && !strings.HasPrefix(c.Name, "B5/classic") {
			out = append(out, c)
		}
	}
	return out
}

// L19: the mock advertises JoinGroup up to v6, the first flexible version,
// and closes the connection on a v6 JoinGroup without an answer; v5 is
// answered.
func TestMockJoinGroupV6Closes(t *testing.T) {
	b, err := launch()()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	join := func(v int16) (codec.Message, error) {
		w, err := wire.Dial(b.Addr(), wire.Options{Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		hm, _ := wire.NewHeaders(codec.Str("l19"), codec.UUID{1})
		n, err := w.Negotiate(hm, wire.NegotiateOptions{})
		if err != nil {
			t.Fatalf("ApiVersions: %v", err)
		}
		if r := n.Versions[codec.JoinGroup]; r != [2]int16{0, 6} {
			t.Fatalf("the mock offers JoinGroup v%d-v%d now, not v0-v6: L19 to re-record", r[0], r[1])
		}
		return w.RoundTrip(hm.Next(codec.JoinGroup, v), &codec.JoinGroupRequest{GroupId: "l19", SessionTimeoutMs: 6000, RebalanceTimeoutMs: 1000,
			ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{0, 0, 0, 0, 0, 0, 255, 255, 255, 255}}}})
	}
	if _, err := join(6); !errors.Is(err, wire.ErrConnClosed) {
		t.Fatalf("JoinGroup v6: %v, want the connection closed (L19)", err)
	}
	if r, err := join(5); err != nil || r.(*codec.JoinGroupResponse).ErrorCode != codec.None {
		t.Fatalf("JoinGroup v5: %v %v, want an answer", r, err)
	}
}
