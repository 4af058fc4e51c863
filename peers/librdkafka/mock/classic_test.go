package mock_test

import (
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/wire"
)

// consumerCases are the suite's cases but the classic group protocol's
// (A6, B8, B5's classic part), which TestMockConformance runs against one
// broker only.
func consumerCases() []conformance.Case {
	var out []conformance.Case
	for _, c := range conformance.Select(nil, true, true) {
		if !classicCase(c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// classicCase reports whether the case named name is the classic
// protocol's.
func classicCase(name string) bool {
	return strings.HasPrefix(name, "A6.") || strings.HasPrefix(name, "B8.") || strings.HasPrefix(name, "B5/classic")
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

// L20: the mock advertises SyncGroup up to v4, the first flexible version,
// and reads a v4 request as v3: a SyncGroup v4 is never answered (the
// mock logs a read buffer underflow and closes the connection), and the
// leader's SyncGroup v4 carrying an assignment for each of a group of two
// crashes it (a segmentation fault). Two members join a new group at
// JoinGroup v5 (answered after the mock's 3 s first-join delay); the
// leader syncs at v4.
func TestMockSyncGroupV4Crashes(t *testing.T) {
	b, err := launch()()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	type client struct {
		w    *wire.Conn
		hm   *wire.Headers
		join *codec.JoinGroupResponse
		err  error
	}
	cs := make([]*client, 2)
	var wg sync.WaitGroup
	for i := range cs {
		w, err := wire.Dial(b.Addr(), wire.Options{Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		hm, _ := wire.NewHeaders(codec.Str("l20"), codec.UUID{1})
		c := &client{w: w, hm: hm}
		cs[i] = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r codec.Message
			r, c.err = c.w.RoundTrip(c.hm.Next(codec.JoinGroup, 5), &codec.JoinGroupRequest{GroupId: "l20", SessionTimeoutMs: 6000, RebalanceTimeoutMs: 3000,
				ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{0, 0, 0, 0, 0, 0, 255, 255, 255, 255}}}})
			if c.err == nil {
				c.join = r.(*codec.JoinGroupResponse)
			}
		}()
	}
	wg.Wait()
	var leader *client
	for _, c := range cs {
		if c.err != nil || c.join.ErrorCode != codec.None {
			t.Fatalf("JoinGroup v5: %v %v, want NONE", c.join, c.err)
		}
		if c.join.Leader == c.join.MemberId {
			leader = c
		}
	}
	if leader == nil || len(leader.join.Members) != 2 {
		t.Fatalf("no leader told of both members: %+v, %+v", cs[0].join, cs[1].join)
	}
	var as []codec.SyncGroupRequestAssignment
	for _, m := range leader.join.Members {
		as = append(as, codec.SyncGroupRequestAssignment{MemberId: m.MemberId, Assignment: []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}})
	}
	_, err = leader.w.RoundTrip(leader.hm.Next(codec.SyncGroup, 4), &codec.SyncGroupRequest{GroupId: "l20", GenerationId: leader.join.GenerationId,
		MemberId: leader.join.MemberId, ProtocolType: codec.Null, ProtocolName: codec.Null, Assignments: as})
	if !errors.Is(err, wire.ErrConnClosed) && !errors.Is(err, wire.ErrNoResponse) {
		t.Fatalf("SyncGroup v4: %v, want no answer (L20)", err)
	}
	var st, words string
	for end := time.Now().Add(5 * time.Second); st == "" && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		st, words = b.Exit()
	}
	if st != "exit status 139" || !strings.Contains(words, "Segmentation fault") {
		t.Fatalf("L20 no longer reproduces: the mock ended %q, saying:\n%s", st, words)
	}
}

// L24: a member whose JoinGroup the mock holds is removed when its
// session timeout passes (the mock checks sessions each second), and that
// JoinGroup is never answered; Kafka keeps a member alive while its
// JoinGroup waits. A first JoinGroup to a new group waits the mock's 3 s
// first-join delay: with a 2 s session it is never answered (6 s and more
// are answered after the 3 s, TestMockSyncGroupV4Crashes).
func TestMockHeldJoinExpires(t *testing.T) {
	b, err := launch()()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	w, err := wire.Dial(b.Addr(), wire.Options{Timeout: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	hm, _ := wire.NewHeaders(codec.Str("l24"), codec.UUID{1})
	start := time.Now()
	r, err := w.RoundTrip(hm.Next(codec.JoinGroup, 5), &codec.JoinGroupRequest{GroupId: "l24", SessionTimeoutMs: 2000, RebalanceTimeoutMs: 1000,
		ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{0, 0, 0, 0, 0, 0, 255, 255, 255, 255}}}})
	var ne net.Error
	if err == nil || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("JoinGroup v5 with a 2 s session: %v %v after %v; want no answer in 8 s (L24)", r, err, time.Since(start).Round(time.Millisecond))
	}
}
