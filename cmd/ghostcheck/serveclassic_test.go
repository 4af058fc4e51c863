package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/wire"
)

// serve's classic settings default to Kafka's (group.min.session.timeout.ms
// 6 s, group.max.session.timeout.ms 30 min, a 3 s initial rebalance delay,
// no group.max.size), are set by their flags, and are refused when they
// make no sense.
func TestServeClassicFlags(t *testing.T) {
	var errOut bytes.Buffer
	cfg, code := parseServeFlags(nil, &errOut)
	if code >= 0 {
		t.Fatalf("no flags: exit %d: %s", code, errOut.String())
	}
	c := cfg.coord
	if c.ClassicMinSessionTimeoutMs != 6000 || c.ClassicMaxSessionTimeoutMs != 1800000 || c.InitialRebalanceDelayMs != 3000 ||
		c.ClassicMaxGroupSize != 0 || c.NewMemberJoinTimeoutMs != 300000 {
		t.Errorf("defaults: %+v, want Kafka's", c)
	}
	cfg, code = parseServeFlags([]string{"--classic-min-session-timeout", "100ms", "--classic-max-session-timeout", "1m",
		"--initial-rebalance-delay", "0s", "--classic-max-group-size", "3"}, &errOut)
	if c := cfg.coord; code >= 0 || c.ClassicMinSessionTimeoutMs != 100 || c.ClassicMaxSessionTimeoutMs != 60000 || c.InitialRebalanceDelayMs != 0 || c.ClassicMaxGroupSize != 3 {
		t.Errorf("flags: exit %d, %+v", code, c)
	}
	for _, bad := range [][]string{{"--classic-min-session-timeout", "10s", "--classic-max-session-timeout", "5s"},
		{"--classic-max-group-size", "-1"}, {"--initial-rebalance-delay", "-1s"}, {"--classic-min-session-timeout", "0s"}} {
		errOut.Reset()
		if _, code := parseServeFlags(bad, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", bad, code, errOut.String())
		}
	}
}

// `ghostcheck serve` with its default classic settings serves a classic
// group over TCP: a first JoinGroup v9 is MEMBER_ID_REQUIRED (KIP-394),
// the rejoin with the id is held for the first rebalance's delay and
// answered at generation 1, the leader's SyncGroup gets its own
// assignment, and a Heartbeat is NONE. (serve without the classic settings
// refused every JoinGroup: a maximum session timeout of 0.)
func TestServeAnswersAClassicGroup(t *testing.T) {
	t.Parallel()
	addr := startServeCommand(t, "--initial-rebalance-delay", "100ms")
	w, err := wire.Dial(addr, wire.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	hm, err := wire.NewHeaders(codec.Str("serve-classic"), codec.UUID{9})
	if err != nil {
		t.Fatal(err)
	}
	do := func(key codec.APIKey, v int16, req codec.Message) codec.Message {
		t.Helper()
		resp, err := w.RoundTrip(hm.Next(key, v), req)
		if err != nil {
			t.Fatalf("%v v%d: %v", key, v, err)
		}
		return resp
	}
	join := &codec.JoinGroupRequest{GroupId: "cg", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 10000, ProtocolType: "consumer",
		Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{1}}}}
	r := do(codec.JoinGroup, 9, join).(*codec.JoinGroupResponse)
	if r.ErrorCode != codec.MemberIDRequired || !strings.HasPrefix(r.MemberId, "serve-classic-") {
		t.Fatalf("first join: %v member %q, want MEMBER_ID_REQUIRED with a made id", r.ErrorCode, r.MemberId)
	}
	join.MemberId = r.MemberId
	start := time.Now()
	r = do(codec.JoinGroup, 9, join).(*codec.JoinGroupResponse)
	if r.ErrorCode != codec.None || r.GenerationId != 1 || r.Leader != join.MemberId || len(r.Members) != 1 {
		t.Fatalf("rejoin: %+v", r)
	}
	if held := time.Since(start); held < 90*time.Millisecond {
		t.Errorf("the rejoin was answered after %v, before the 100 ms initial delay", held)
	}
	s := do(codec.SyncGroup, 5, &codec.SyncGroupRequest{GroupId: "cg", GenerationId: 1, MemberId: join.MemberId, ProtocolType: codec.Str("consumer"),
		ProtocolName: codec.Str("range"), Assignments: []codec.SyncGroupRequestAssignment{{MemberId: join.MemberId, Assignment: []byte{4, 2}}}}).(*codec.SyncGroupResponse)
	if s.ErrorCode != codec.None || !bytes.Equal(s.Assignment, []byte{4, 2}) {
		t.Fatalf("sync: %+v", s)
	}
	if h := do(codec.Heartbeat, 4, &codec.HeartbeatRequest{GroupId: "cg", GenerationId: 1, MemberId: join.MemberId}).(*codec.HeartbeatResponse); h.ErrorCode != codec.None {
		t.Fatalf("heartbeat: %v", h.ErrorCode)
	}
}

// check's classic cases over TCP against serve: with the classic flags
// (sessions the broker accepts, its group.max.size and session bounds)
// KIP-394's cases, the size cap's and the session bounds' pass; a planted bug of KIP-394's LeaveGroup (serve
// --mutant pending-leave-kept) fails A6.3/pending-dropped, which
// --kafka-version 2.1, a release before KIP-394, reports N/A (ships in
// Kafka 2.2).
func TestCheckClassicCases(t *testing.T) {
	t.Parallel()
	classic := []string{"--classic-min-session-timeout", "100ms", "--initial-rebalance-delay", "50ms", "--classic-max-group-size", "3"}
	addr := startServeCommand(t, classic...)
	code, out, errOut := run(t, "", "check", "--bootstrap", addr, "--cases", "A6.1,B8.11,B8.4/session-", "--classic-session-timeout", "1s",
		"--classic-max-group-size", "3", "--classic-min-session-timeout", "100ms", "--classic-max-session-timeout", "30m", "--histories", "0", "--out", t.TempDir())
	if code != 0 || !strings.Contains(out, "12 cases: 12 pass") {
		t.Fatalf("check --cases A6.1,B8.11,B8.4/session- against serve: exit %d, want 0 with 12 passes:\n%s\n%s", code, out, errOut)
	}
	addr = startServeCommand(t, append(classic, "--mutant", "pending-leave-kept")...)
	code, out, errOut = run(t, "", "check", "--bootstrap", addr, "--cases", "A6.3/pending-dropped", "--classic-session-timeout", "1s", "--histories", "0", "--out", t.TempDir())
	if code != 1 || rowStatus(out, "A6.3/pending-dropped") != "FAIL" {
		t.Fatalf("against --mutant pending-leave-kept: exit %d, want 1 with the case failing:\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, "", "check", "--bootstrap", addr, "--cases", "A6.3/pending-dropped", "--classic-session-timeout", "1s", "--histories", "0",
		"--kafka-version", "2.1", "--out", t.TempDir())
	if code != 0 || !strings.Contains(rowOf(out, "A6.3/pending-dropped"), "N/A (ships in Kafka 2.2)") {
		t.Fatalf("--kafka-version 2.1: exit %d, want 0 with the case N/A:\n%s\n%s", code, out, errOut)
	}
}
