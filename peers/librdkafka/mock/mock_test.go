package mock_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
	"github.com/ghostcheck/ghostcheck/plan"
	"github.com/ghostcheck/ghostcheck/wire"
)

// librdkafka's mock cluster as a peer, held to docs/PROTOCOL.md by the
// conformance suite and the histories, as `ghostcheck check --broker-cmd`
// runs them. The mock aborts on some requests, so it never runs in this
// test binary: each broker is cmd/rdmock, a child process, started afresh
// after a crash. Its findings are testdata/mock.known (docs/findings.md's
// L1-L40, L43, L44): a finding that stops reproducing, or a failure not recorded
// there, fails these tests.

// The timers every mock here runs with: short, so the histories take
// seconds. The mock checks sessions once a second, so a member outlives
// its session by up to a second; no check here can see that (it needs
// ConsumerGroupDescribe, which the mock lacks).
const (
	sessionTimeout    = time.Second
	heartbeatInterval = 100 * time.Millisecond
)

// rdmock is the command built for these tests.
var rdmock string

// The tests mostly wait (the mock's join phases, its sessions, a fresh
// mock per case after a crash: a few seconds of CPU in twenty minutes of
// waiting), so they run side by side, more at once than GOMAXPROCS
// (nettest.ParallelWaits).
func TestMain(m *testing.M) {
	nettest.ParallelWaits()
	dir, err := os.MkdirTemp("", "rdmock")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rdmock = filepath.Join(dir, "rdmock")
	build := exec.Command("go", "build", "-o", rdmock, "../cmd/rdmock")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building rdmock:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// launch is what check's --broker-cmd would be.
func launch() conformance.Launcher {
	return conformance.CommandLauncher(fmt.Sprintf("%s --session-timeout %v --heartbeat-interval %v", rdmock, sessionTimeout, heartbeatInterval))
}

// classicSession is the session timeout the classic cases' JoinGroups
// send. The mock answers a new group's first JoinGroup after a 3 s delay
// (its group.initial.rebalance.delay.ms) and a later join phase after the
// session timeout less 1 s, and it removes a member whose JoinGroup it
// holds once its session ends, checked each second, never answering that
// JoinGroup (L24): a session under about 4 s lets no group form, so the
// cases send 6 s, Kafka's default group.min.session.timeout.ms.
const classicSession = 6 * time.Second

// The session-timeout bounds the classic cases hold the mock to: it has
// none (L24), so Kafka's defaults, group.min.session.timeout.ms and
// group.max.session.timeout.ms, which a client of a Kafka broker meets.
const (
	classicMinSession = 6 * time.Second
	classicMaxSession = 30 * time.Minute
)

func peer(addr string) conformance.Peer {
	// No MaxGroupSize: the mock has no group.consumer.max.size (nor a
	// classic group.max.size: the classic size-cap cases SKIP).
	return conformance.Peer{Bootstrap: []string{addr}, SessionTimeout: sessionTimeout, HeartbeatInterval: heartbeatInterval, ClassicSessionTimeout: classicSession,
		ClassicMinSessionTimeout: classicMinSession, ClassicMaxSessionTimeout: classicMaxSession}
}

func known(t testing.TB) *conformance.Known {
	t.Helper()
	k, err := conformance.LoadKnown("../testdata/mock.known")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// rdmock starts, prints its address, serves ApiVersions (the versions it
// offers are what the findings rest on), and stops when its stdin closes.
func TestRdmock(t *testing.T) {
	t.Parallel()
	b, err := launch()()
	if err != nil {
		t.Fatal(err)
	}
	w, err := wire.Dial(b.Addr(), wire.Options{Timeout: 3 * time.Second})
	if err != nil {
		b.Stop()
		t.Fatal(err)
	}
	hm, _ := wire.NewHeaders(codec.Str("t"), codec.UUID{1})
	n, err := w.Negotiate(hm, wire.NegotiateOptions{})
	w.Close()
	b.Stop()
	if err != nil {
		t.Fatalf("ApiVersions: %v (%s)", err, n)
	}
	for key, want := range map[codec.APIKey][2]int16{
		codec.ApiVersions: {0, 2}, codec.ConsumerGroupHeartbeat: {1, 1}, codec.LeaveGroup: {0, 4},
		codec.GetTelemetrySubscriptions: {0, 0}, codec.PushTelemetry: {0, 0},
	} {
		if got, ok := n.Versions[key]; !ok || got != want {
			t.Errorf("%v: v%d-v%d (offered %v), want v%d-v%d", key, got[0], got[1], ok, want[0], want[1])
		}
	}
	if _, ok := n.Versions[codec.ConsumerGroupDescribe]; ok {
		t.Error("the mock offers ConsumerGroupDescribe now: L7 no longer holds")
	}
	// L5: v4 and v3 are answered with bodies that parse as no version.
	if n.Version != 2 || len(n.Notes) != 2 {
		t.Errorf("ApiVersions settled at v%d after %q, want v2 after two fallbacks (L5)", n.Version, n.Notes)
	}
	if st, words := b.Exit(); st != "exited 0" || !strings.Contains(words, "stdin closed: stopping") {
		t.Errorf("rdmock ended %q: %s", st, words)
	}
}

// launchBrokers is launch with n mock brokers (the mock spreads the
// groups' coordinators over them).
func launchBrokers(n int) conformance.Launcher {
	return conformance.CommandLauncher(fmt.Sprintf("%s --brokers %d --session-timeout %v --heartbeat-interval %v", rdmock, n, sessionTimeout, heartbeatInterval))
}

// mockShards is how many mocks (of n brokers each) a conformanceOf runs
// its cases on, side by side (conformance.RunShards): the cases mostly
// wait on the mock's join phases (3 s for a new classic group, 5 s for a
// rebalance) and sessions, and after each shard's first crash every case
// waits for a fresh mock too: the one-broker run's longest case takes
// up to a minute, and 16 mocks bring the run near it (8 took 150-210 s,
// 16 about 80 s; a mock costs almost no CPU). Each mock runs one case at
// a time, as in a single run.
const mockShards = 16

// conformanceOf runs cases against mocks of n brokers, a fresh one from
// the first crash on, as check runs them by default (the newest Kafka
// release: a rule no release ships is N/A), and holds the table to the
// known findings of those cases. The cases run on mockShards mocks, a
// crash giving only its own mock's later cases fresh ones.
func conformanceOf(t *testing.T, n int, k *conformance.Known, cases []conformance.Case) []conformance.Result {
	t.Helper()
	var brokers []*conformance.Broker
	defer func() {
		for _, b := range brokers {
			b.Close()
		}
	}()
	out := t.TempDir()
	rep, err := conformance.RunShards(mockShards, cases, func(int) (conformance.Shard, error) {
		b, err := conformance.NewBroker(nil, launchBrokers(n), 0)
		if err != nil {
			return conformance.Shard{}, err
		}
		brokers = append(brokers, b)
		return conformance.Shard{Peer: peer(b.Addr()), Options: conformance.Options{Known: k, Broker: b, Out: out, KafkaVersion: conformance.NewestRelease}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	launches := 0
	for _, b := range brokers {
		launches += b.Launches
	}
	var table strings.Builder
	conformance.Table(&table, rep.Results)
	c := conformance.Counts(rep.Results)
	t.Logf("conformance of librdkafka's mock, %d brokers:\n%s\n%d cases: %d pass, %d fail, %d skip, %d crash, %d n/a; %d brokers started; ApiVersions: %s; slowest: %s",
		n, table.String(), len(rep.Results), c[conformance.Pass], c[conformance.Fail], c[conformance.Skip], c[conformance.Crash], c[conformance.NotApplicable], launches, strings.Join(rep.Negotiation, "; "),
		slowest(rep.Results, 8))
	if len(rep.Results) != len(cases) || rep.Stopped != "" {
		t.Fatalf("%d results of %d cases; stopped %q", len(rep.Results), len(cases), rep.Stopped)
	}
	for _, m := range k.Mismatches(rep.Results) {
		t.Error(m)
	}
	for _, e := range k.Of(conformance.KnownCase) {
		found, ran := false, false
		for _, r := range rep.Results {
			found = found || r.Name == e.Name
		}
		for _, c := range cases {
			ran = ran || c.Name == e.Name
		}
		if ran && !found {
			t.Errorf("%s: known finding %s names a case that did not run", e.Name, e.ID)
		}
	}
	return rep.Results
}

// slowest names the n slowest cases of rs with their seconds.
func slowest(rs []conformance.Result, n int) string {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b conformance.Result) int { return cmp.Compare(b.Seconds, a.Seconds) })
	var out []string
	for _, r := range rs[:min(n, len(rs))] {
		out = append(out, fmt.Sprintf("%s %.1fs", r.Name, r.Seconds))
	}
	return strings.Join(out, ", ")
}

// The conformance table against one mock broker, every case, the classic
// group protocol's too (its findings L19-L29, L34-L39, L43 and L44, and KIP-394's
// cases N/A: the mock makes a member at once, with no pending id), and
// against three brokers the cases but the classic ones: the same
// findings, every case the same status on three brokers as on one (no NOT_COORDINATOR judged),
// and the cluster's own cases, which SKIP against one broker, run against
// three; the cases' groups are coordinated by all three. The classic
// cases run against one broker only: they wait out the mock's join phases
// (3 s for a new group, 5 s for a rebalance at the cases' 6 s sessions),
// about 4 minutes in all, and routing is the consumer cases' to show.
func TestMockConformance(t *testing.T) {
	t.Parallel()
	k := known(t)
	// One broker and three side by side: both runs mostly wait.
	var one, three []conformance.Result
	t.Run("brokers", func(t *testing.T) {
		t.Run("1", func(t *testing.T) {
			t.Parallel()
			one = conformanceOf(t, 1, k, conformance.Select(nil, true, true))
		})
		t.Run("3", func(t *testing.T) {
			t.Parallel()
			three = conformanceOf(t, 3, k, consumerCases())
		})
	})
	if one == nil || three == nil {
		return // a run that could not finish has said why
	}
	var oneConsumer []conformance.Result
	for _, r := range one {
		if !classicCase(r.Name) {
			oneConsumer = append(oneConsumer, r)
		}
	}
	// KIP-394 not adopted: its cases that reach a first JoinGroup are N/A,
	// saying why (B8.11/pending-not-counted SKIPs first: no group.max.size).
	for _, name := range []string{"A6.1/member-id-required", "A6.1/member-id-required-v4", "A6.1/pending-joins", "A6.1/pending-not-member", "A6.1/pending-expired",
		"A6.1/pending-expires-by-session", "A6.3/pending-dropped"} {
		i := slices.IndexFunc(one, func(r conformance.Result) bool { return r.Name == name })
		if i < 0 {
			t.Errorf("%s did not run", name)
		} else if r := one[i]; r.Status != conformance.NotApplicable || !strings.Contains(r.Observed, "KIP-394 not adopted") {
			t.Errorf("%s: %s (%s), want N/A: KIP-394 not adopted", name, r.Status, r.Observed)
		}
	}
	for _, d := range conformance.ClusterDiffers(oneConsumer, three) {
		t.Error(d)
	}
	brokers := map[int32]int{}
	for _, r := range three {
		brokers[r.Broker]++
	}
	t.Logf("cases per broker against three: %v", brokers)
	if len(brokers) < 3 {
		t.Errorf("the cases spoke to brokers %v: want all three (the mock spreads the coordinators)", brokers)
	}
}

// Histories at the observable level, with the known findings set aside:
// the prober's empty-id join (L2) left out, the workarounds for L1 and L4
// applied, the null member id of every leave (L15) known. Nothing else may
// break, and the broker must survive every history.
func TestMockHistories(t *testing.T) {
	t.Parallel()
	b, err := conformance.NewBroker(nil, launch(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rep, err := conformance.RunHistories(conformance.HistoryConfig{Peer: peer(b.Addr()), Seed: 1, Histories: 3, Options: conformance.DefaultHistoryOptions(),
		Known: known(t), Broker: b, Out: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("unchecked without Describe: %v; left out %v; workarounds %v", rep.Unchecked, rep.LeftOut, rep.Workarounds)
	if len(rep.Unchecked) == 0 || len(rep.Histories) != 3 {
		t.Fatalf("%d histories, unchecked %v", len(rep.Histories), rep.Unchecked)
	}
	for _, h := range rep.Histories {
		t.Logf("seed %d: %s %v %s %s (%d ops)", h.Seed, h.Status, h.Known, h.Rule, h.Detail, h.Operations)
		if h.Failed() {
			t.Errorf("seed %d: %s %s: %s %s", h.Seed, h.Status, h.Rule, h.Detail, h.Crash)
		}
	}
	if !strings.Contains(strings.Join(rep.Histories[0].Known, " "), "L15 ObservableResponse") {
		t.Errorf("L15 (a leave answered with a null member id) did not reproduce in history 1: %v", rep.Histories[0].Known)
	}
}

// crashes are docs/findings.md's reproductions: each frame (hex, size prefix
// included) sent alone on a fresh connection to a fresh mock aborts it
// with the assertion given.
var crashes = []struct {
	id, what, frame, assertion string
}{
	{"L1", "a join naming topics, SubscribedTopicRegex null",
		"000000240044000100000001ffff000267026d000000000000000075300206616c70686100000100",
		"validate_subscription: Assertion `(SubscribedTopicNames == ((void *)0)) == ((SubscribedTopicRegex)->len == -1)' failed"},
	{"L1", "a join by regex, SubscribedTopicNames null",
		"000000230044000100000001ffff000267026d000000000000000075300006616c706861000100",
		"validate_subscription: Assertion `(SubscribedTopicNames == ((void *)0)) == ((SubscribedTopicRegex)->len == -1)' failed"},
	{"L1", "a join with an empty subscription",
		"0000001e0044000100000001ffff000267026d000000000000000075300101000100",
		"validate_subscription: Assertion `SubscribedTopicNames == ((void *)0) || SubscribedTopicNamesCnt > 0"},
	{"L2", "a v1 join with MemberId \"\"",
		"000000230044000100000001ffff00026701000000000000000075300206616c70686101000100",
		"rd_kafka_mock_cgrp_consumer_member_topic_id_set: Assertion `(((MemberId)->len) == -1 ? 0 : ((MemberId)->len)) > 0' failed"},
	{"L3", "a heartbeat at MemberEpoch -3",
		"0000001e0044000100000001ffff000267026dfffffffd0000ffffffff0000000000",
		"Assertion `MemberEpoch >= -2' failed"},
	{"L3", "a heartbeat with RebalanceTimeoutMs -2",
		"0000001e0044000100000001ffff000267026d000000010000fffffffe0000000000",
		"Assertion `RebalanceTimeoutMs >= -1' failed"},
	{"L3", "a heartbeat with GroupId null",
		"0000001d0044000100000001ffff0000026d000000010000ffffffff0000000000",
		"Assertion `!((&GroupId)->len == -1)' failed"},
	{"L4", "PushTelemetry v0 with Metrics \"m\" (not OTLP)",
		"000000240048000000000001ffff0001000000000000000000000000000000000000000000026d00",
		"rd_kafka_mock_handle_PushTelemetry_decode_error: Assertion `!*\"Failure while decoding telemetry data\"' failed"},
}

func TestMockCrashReproductions(t *testing.T) {
	t.Parallel()
	for _, c := range crashes {
		t.Run(c.id+" "+c.what, func(t *testing.T) {
			frame, err := hex.DecodeString(c.frame)
			if err != nil {
				t.Fatal(err)
			}
			if n := int(frame[0])<<24 | int(frame[1])<<16 | int(frame[2])<<8 | int(frame[3]); n+4 != len(frame) {
				t.Fatalf("size prefix %d for %d bytes", n, len(frame))
			}
			if _, _, err := codec.DecodeRequest(frame[4:], codec.DecodeOptions{}); err != nil && !strings.Contains(c.what, "GroupId null") {
				t.Fatalf("the frame does not decode: %v", err)
			}
			b, err := launch()()
			if err != nil {
				t.Fatal(err)
			}
			defer b.Stop()
			nc, err := net.DialTimeout("tcp", b.Addr(), 3*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			if _, err := nc.Write(frame); err != nil {
				t.Fatal(err)
			}
			var st, words string
			for end := time.Now().Add(5 * time.Second); st == "" && time.Now().Before(end); {
				st, words = b.Exit()
			}
			if st != "exit status 134" || !strings.Contains(words, c.assertion) {
				t.Fatalf("finding %s no longer reproduces: the mock ended %q, saying:\n%s", c.id, st, words)
			}
		})
	}
}

// The same crashes through check: each is a CRASH whose frame is written
// out and decodes to the request that was sent.
func TestMockCrashFramesDecode(t *testing.T) {
	t.Parallel()
	b, err := conformance.NewBroker(nil, launch(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rep, err := conformance.Run(peer(b.Addr()), conformance.Select([]string{"B4.2/epoch-below-minus-two"}, false, false), conformance.Options{Broker: b, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Status != conformance.Crash || r.FrameFile == "" {
		t.Fatalf("%s %s", r.Status, r.Observed)
	}
	text, err := os.ReadFile(r.FrameFile)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := hex.DecodeString(strings.TrimSpace(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	_, req, err := codec.DecodeRequest(raw[4:], codec.DecodeOptions{})
	if hb, ok := req.(*codec.ConsumerGroupHeartbeatRequest); err != nil || !ok || hb.MemberEpoch != -3 {
		t.Fatalf("%s does not hold the heartbeat at epoch -3: %v %v", r.FrameFile, req, err)
	}
	if !strings.Contains(r.Observed, "Assertion `MemberEpoch >= -2' failed") || !strings.Contains(r.Observed, "exit status 134") {
		t.Errorf("the crash report lacks the mock's last words: %s", r.Observed)
	}
}

// mockControl plays coordinator moves on an rdmock it started, through
// its stdin commands: each group the target has sent requests about gets
// the next broker as its coordinator (the mock numbers brokers from 1).
// The mock's groups belong to the cluster, so nothing is loaded: as kfake,
// a correct mock carries every group across a move.
type mockControl struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	boot string
	n    int32
	cl   *wire.Cluster
}

func startMockControl(t *testing.T, n int) *mockControl {
	t.Helper()
	cmd := exec.Command(rdmock, "--brokers", fmt.Sprint(n), "--session-timeout", sessionTimeout.String(), "--heartbeat-interval", heartbeatInterval.String())
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m := &mockControl{cmd: cmd, in: in, out: bufio.NewReader(out), n: int32(n)}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	line, err := m.out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	m.boot, _, _ = strings.Cut(strings.TrimSpace(line), ",")
	if m.cl, err = wire.Connect(context.Background(), []string{m.boot}, wire.ClusterOptions{Dialer: wire.Dialer{Options: wire.Options{Timeout: 3 * time.Second}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.cl.Close() })
	return m
}

func (m *mockControl) Kinds() []plan.ClusterFaultKind {
	return []plan.ClusterFaultKind{plan.CoordinatorMove}
}

func (m *mockControl) MoveCoordinators(groups []string) error {
	for _, g := range groups {
		resp, err := m.cl.RoundTripTo(context.Background(), m.cl.Brokers()[0].ID, 0, &codec.FindCoordinatorRequest{CoordinatorKey: g})
		if err != nil {
			return err
		}
		next := resp.(*codec.FindCoordinatorResponse).NodeId%m.n + 1
		if _, err := fmt.Fprintf(m.in, "coordinator %s %d\n", g, next); err != nil {
			return err
		}
		if ans, err := m.out.ReadString('\n'); err != nil || strings.TrimSpace(ans) != "ok" {
			return fmt.Errorf("rdmock: coordinator %s %d: %q %v", g, next, ans, err)
		}
	}
	return nil
}

func (m *mockControl) StopBroker(int32) error  { return errors.New("not played against the mock") }
func (m *mockControl) StartBroker(int32) error { return errors.New("not played against the mock") }

// Histories against three mock brokers whose coordinators move (its
// coordinator setting, group by group) and whose clients' connections are
// reset: with the findings set aside as against one broker, nothing
// breaks, and the moves are played.
func TestMockClusterHistories(t *testing.T) {
	t.Parallel()
	m := startMockControl(t, 3)
	if n := len(m.cl.Brokers()); n != 3 {
		t.Fatalf("Metadata lists %d brokers, want 3", n)
	}
	rep, err := conformance.RunHistories(conformance.HistoryConfig{Peer: peer(m.boot), Seed: 1, Histories: 3, Options: conformance.DefaultHistoryOptions(),
		Known: known(t), Control: m, Out: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	moves := 0
	for _, h := range rep.Histories {
		moves += h.ClusterFaults[plan.CoordinatorMove]
		t.Logf("seed %d: %s %v %s %s (%d ops, cluster faults %v, retries waited %d ms)", h.Seed, h.Status, h.Known, h.Rule, h.Detail, h.Operations, h.ClusterFaults, h.RetryMs)
		if h.Failed() {
			t.Errorf("seed %d: %s %s: %s %s", h.Seed, h.Status, h.Rule, h.Detail, h.Crash)
		}
	}
	if len(rep.Histories) != 3 || moves < 3 {
		t.Fatalf("%d histories, %d coordinator moves (stopped: %s)", len(rep.Histories), moves, rep.Stopped)
	}
}
