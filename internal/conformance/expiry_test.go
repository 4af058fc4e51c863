package conformance_test

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
)

// slowJoins relays to the broker at backend, holding each join (a
// ConsumerGroupHeartbeat at epoch 0) for delay before the broker gets it:
// a broker that is slow to take a request in, as on a loaded machine,
// arms the member's session that much after the join was sent.
func slowJoins(t *testing.T, backend string, delay time.Duration) string {
	t.Helper()
	return nettest.Serve(t, func(nc net.Conn) {
		bc, err := net.Dial("tcp", backend)
		if err != nil {
			return
		}
		defer bc.Close()
		go func() { _, _ = io.Copy(nc, bc) }()
		for {
			frame, err := codec.ReadFrame(nc, nil, 1<<20)
			if err != nil {
				return
			}
			var h codec.RequestHeader
			if n, err := codec.ParseRequestHeader(frame, &h, codec.DecodeOptions{}); err == nil && h.RequestApiKey == codec.ConsumerGroupHeartbeat {
				var r codec.ConsumerGroupHeartbeatRequest
				if err := r.Decode(frame[n:], h.RequestApiVersion, codec.DecodeOptions{}); err == nil && r.MemberEpoch == 0 {
					time.Sleep(delay)
				}
			}
			if _, err := bc.Write(binary.BigEndian.AppendUint32(nil, uint32(len(frame)))); err != nil {
				return
			}
			if _, err := bc.Write(frame); err != nil {
				return
			}
		}
	})
}

// The session cases time a session from what they saw: a broker that
// took the join in 400 ms late (more than the cases' margin) still
// passes them, and one whose parked member never expires still fails. A
// case this machine was too slow to judge is left out (judgeable), not
// held against the broker.
func TestSessionCasesCountFromTheJoinsResponse(t *testing.T) {
	t.Parallel()
	names := []string{"B4.4/session-expiry", "B4.4/error-does-not-refresh-session", "B4.4/parked-member-expires"}
	for _, c := range []struct {
		name string
		muts impl.Mutants
		fail string
	}{
		{"correct", impl.Mutants{}, ""},
		{"parked-never-expires", impl.Mutants{}.With(impl.MutParkedNeverExpires), "B4.4/parked-member-expires"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			addr := slowJoins(t, startServeMutant(t, c.muts), 400*time.Millisecond)
			rep, err := conformance.Run(peer(addr), conformance.Select(names, false, true), conformance.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != len(names) {
				t.Fatalf("%d results for %d cases", len(rep.Results), len(names))
			}
			for _, r := range judgeable(t, rep.Results) {
				want := conformance.Pass
				if r.Name == c.fail {
					want = conformance.Fail
				}
				if r.Status != want {
					t.Errorf("%s: %s %s, want %s", r.Name, r.Status, r.Observed, want)
				}
			}
		})
	}
}
