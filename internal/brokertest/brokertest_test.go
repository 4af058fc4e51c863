package brokertest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/brokertest"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/wire"
)

func backend(t *testing.T) string {
	coord := impl.New(impl.Config{Topics: []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}}, SessionTimeoutMs: 1000, HeartbeatIntervalMs: 100})
	addr, _ := servertest.Start(t, coord, server.Config{})
	return addr
}

func negotiate(t *testing.T, addr string) (*wire.Negotiation, error) {
	t.Helper()
	w, err := wire.Dial(addr, wire.Options{Timeout: time.Second})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	hm, err := wire.NewHeaders(codec.Str("t"), codec.UUID{1})
	if err != nil {
		t.Fatal(err)
	}
	return w.Negotiate(hm, wire.NegotiateOptions{})
}

func TestProxy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		o       brokertest.Options
		version int16    // ApiVersions settles at
		notes   int      // fallbacks noted
		offers  []bool   // Describe, Heartbeat
		sends   []string // what a Describe round trip gives: "ok" or "closed"
	}{
		{"plain", brokertest.Options{}, 4, 0, []bool{true, true}, []string{"ok"}},
		{"garbled v3+", brokertest.Options{GarbleApiVersionsFrom: 3}, 2, 2, []bool{true, true}, []string{"ok"}},
		{"no describe", brokertest.Options{Hide: []codec.APIKey{codec.ConsumerGroupDescribe}}, 4, 0, []bool{false, true}, []string{"closed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := brokertest.Start(t, backend(t), tc.o)
			n, err := negotiate(t, p.Addr())
			if err != nil {
				t.Fatalf("negotiate: %v (%s)", err, n)
			}
			if n.Version != tc.version || len(n.Notes) != tc.notes {
				t.Errorf("settled at v%d with notes %q, want v%d and %d notes", n.Version, n.Notes, tc.version, tc.notes)
			}
			if got := []bool{n.Versions.Max(codec.ConsumerGroupDescribe) >= 0, n.Versions.Max(codec.ConsumerGroupHeartbeat) >= 0}; got[0] != tc.offers[0] || got[1] != tc.offers[1] {
				t.Errorf("offers describe, heartbeat: %v, want %v", got, tc.offers)
			}
			w := servertest.Dial(t, p.Addr())
			hm, _ := wire.NewHeaders(codec.Str("t"), codec.UUID{1})
			_, err = w.RoundTrip(hm.Next(codec.ConsumerGroupDescribe, 0), &codec.ConsumerGroupDescribeRequest{GroupIds: []string{"g"}})
			got := "ok"
			if errors.Is(err, wire.ErrConnClosed) {
				got = "closed"
			} else if err != nil {
				got = err.Error()
			}
			if got != tc.sends[0] {
				t.Errorf("describe: %s, want %s", got, tc.sends[0])
			}
		})
	}
}

// DieOn kills the broker at the request it names: the connection closes
// unanswered and no new one is accepted; Hang keeps it silent instead.
func TestProxyDies(t *testing.T) {
	for _, hang := range []bool{false, true} {
		p := brokertest.Start(t, backend(t), brokertest.Options{Hang: hang, DieOn: func(_ *codec.RequestHeader, req codec.Message) bool {
			hb, ok := req.(*codec.ConsumerGroupHeartbeatRequest)
			return ok && hb.MemberEpoch < -2
		}})
		if _, err := negotiate(t, p.Addr()); err != nil {
			t.Fatal(err)
		}
		w, err := wire.Dial(p.Addr(), wire.Options{Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		hm, _ := wire.NewHeaders(codec.Str("t"), codec.UUID{1})
		_, err = w.RoundTrip(hm.Next(codec.ConsumerGroupHeartbeat, 1), &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", MemberEpoch: -3, RebalanceTimeoutMs: -1})
		w.Close()
		if !errors.Is(err, wire.ErrNoResponse) || !p.Dead() {
			t.Fatalf("hang %v: %v (dead %v), want no response and a dead broker", hang, err, p.Dead())
		}
		if hang != strings.Contains(err.Error(), "timeout") {
			t.Errorf("hang %v: %v", hang, err)
		}
		_, err = negotiate(t, p.Addr())
		if err == nil {
			t.Errorf("hang %v: the broker still answers ApiVersions", hang)
		}
	}
}
