package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/brokertest"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/model"
)

// startCoordinator serves an impl coordinator (800 ms sessions, 100 ms
// heartbeats) on 127.0.0.1 until the test ends.
func startCoordinator(t *testing.T, muts impl.Mutants) string {
	t.Helper()
	coord := impl.New(impl.Config{
		Topics:              []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}, {Name: "beta", ID: model.TopicIDFor("beta"), Partitions: 3}},
		SessionTimeoutMs:    800,
		HeartbeatIntervalMs: 100,
		Telemetry:           impl.TelemetryConfig{SubscriptionID: 1, TelemetryMaxBytes: 1 << 20, AcceptedCompressionTypes: []int8{0}},
		Mutants:             muts,
	})
	addr, _ := servertest.Start(t, coord, server.Config{})
	return addr
}

func TestCheckAgainstOurServerExitsZero(t *testing.T) {
	t.Parallel() // it waits on a broker over TCP
	addr := startCoordinator(t, impl.Mutants{})
	code, out, errOut := run(t, "", "check", "--bootstrap", addr, "--session-timeout", "800ms", "--heartbeat-interval", "100ms",
		"--cases", "A1,A3,B4.2,B1.1", "--histories", "1", "--rounds", "20", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"A1/v1-join-empty-member-id", "0 fail", "seed 1    Ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ghostcheck explain") {
		t.Errorf("a clean run cites rules:\n%s", out)
	}
}

// A broker that makes a member for an empty v1 member id fails A1's cases
// and the command says so with exit status 1.
func TestCheckFindsAPlantedBug(t *testing.T) {
	addr := startCoordinator(t, impl.Mutants{}.With(impl.MutV1EmptyMemberID))
	code, out, errOut := run(t, "", "check", "--bootstrap", addr, "--cases", "A1/v1-join", "--histories", "0", "--out", t.TempDir())
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "A1/v1-join-empty-member-id  FAIL") {
		t.Errorf("the table does not show the failure:\n%s", out)
	}
	// After the table, each failing case cites its rule: the section's id
	// and title, what the case checks, the rule's first lines, and where
	// to read the rest.
	_, after, _ := strings.Cut(out, "cases:")
	for _, want := range []string{
		"\nA1/v1-join-empty-member-id  FAIL\n  section  A1. Client-made member ids (KIP-1082)\n  checks   a v1 join with MemberId \"\" is INVALID_REQUEST",
		"\n  source   KIP-1082, Kafka 4.0\n  rule     From ConsumerGroupHeartbeat v1 on, the client makes its",
		"\n  more     ghostcheck explain A1/v1-join-empty-member-id\n           docs/PROTOCOL.md#a1-client-made-member-ids-kip-1082\n",
		"\nA1/v1-join-blank-member-id  FAIL\n",
		"ghostcheck explain A1/v1-join-blank-member-id",
	} {
		if !strings.Contains(after, want) {
			t.Errorf("the failures after the table lack %q:\n%s", want, after)
		}
	}
	// The rule's first lines are there in full, wrapped.
	if flat := strings.Join(strings.Fields(after), " "); !strings.Contains(flat, "sends it on every heartbeat, the first (the join, epoch 0) included. more") {
		t.Errorf("the rule's first paragraph is not printed whole:\n%s", after)
	}
}

func TestCheckHelpExitsZero(t *testing.T) {
	code, out, errOut := run(t, "", "check", "-h")
	if code != 0 || out != "" || !strings.Contains(errOut, "usage: ghostcheck check --bootstrap") || !strings.Contains(errOut, "-session-timeout") {
		t.Fatalf("check -h: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

func TestCheckUsage(t *testing.T) {
	for _, args := range [][]string{
		{"check"},
		{"check", "--bootstrap", "127.0.0.1:1", "extra"},
		{"check", "--bootstrap", "127.0.0.1:1", "--rounds", "5"},
		{"check", "--bootstrap", "127.0.0.1:1", "--histories", "-1"},
		{"check", "--bootstrap", "127.0.0.1:1", "--faults", "lost-response=90"},
		{"check", "--no-such-flag"},
	} {
		if code, _, _ := run(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// serve starts, says what it serves, and drains and stops when its
// context ends.
func TestServeStartsAndDrains(t *testing.T) {
	var errOut bytes.Buffer
	cfg, code := parseServeFlags([]string{"--session-timeout", "1s", "--heartbeat-interval", "100ms", "--topics", "alpha:6,beta:3", "--max-group-size", "3"}, &errOut)
	if code >= 0 {
		t.Fatalf("flags: %d %s", code, errOut.String())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, cfg, &out, &errOut) }()
	addr := ln.Addr().String()
	var c net.Conn
	for i := 0; i < 100 && c == nil; i++ {
		c, _ = net.Dial("tcp", addr)
		time.Sleep(5 * time.Millisecond)
	}
	if c == nil {
		t.Fatal("serve does not accept connections")
	}
	c.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"listening on " + addr, "topic alpha: 6 partitions", "ConsumerGroupHeartbeat v0-v1", "max group size 3", "shutting down"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, bad := range [][]string{{"--topics", "alpha"}, {"--topics", "a:1,a:2"}, {"--session-timeout", "0s"}, {"extra"}} {
		if _, code := parseServeFlags(bad, &errOut); code != 2 {
			t.Errorf("flags %v: code %d, want 2", bad, code)
		}
	}
}

// A failing history names its rule and the command that explains it; a
// rule docs/PROTOCOL.md does not know gets no such line.
func TestPrintCheckCitesHistoryRules(t *testing.T) {
	var b strings.Builder
	printCheck(&b, checkOutcome{addr: "broker:9092", peer: conformance.Peer{Bootstrap: []string{"broker:9092"}, SessionTimeout: time.Second}, cases: &conformance.Report{},
		hist: &conformance.HistoryReport{Histories: []conformance.HistoryResult{
			{Seed: 1, Verdict: history.Ok, Status: "Ok"},
			{Seed: 2, Verdict: history.Illegal, Status: "Illegal", Rule: "NoGhosts", Detail: "group g holds member m", File: "out/check-seed2.jsonl"},
			{Seed: 3, Verdict: history.Unknown, Status: "Unknown", Rule: "Harness", Detail: "advance failed"},
		}}})
	out := b.String()
	for _, want := range []string{
		"  seed 2    Illegal     0 ops",
		"    NoGhosts: group g holds member m\n    history: out/check-seed2.jsonl\n    rule:    ghostcheck explain NoGhosts\n",
		"    Harness: advance failed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "ghostcheck explain") != 1 {
		t.Errorf("want one explain line (NoGhosts only):\n%s", out)
	}
}

// TestHelperBroker is not a test: run as a child by --broker-cmd (with
// GHOSTCHECK_HELPER_BROKER set), it serves ghostcheck's coordinator behind
// a proxy that dies on a heartbeat at epoch -3 (as librdkafka's mock
// aborts on one), prints the address, and serves until stdin closes.
func TestHelperBroker(t *testing.T) {
	if os.Getenv("GHOSTCHECK_HELPER_BROKER") != "1" {
		t.Skip("a broker for --broker-cmd, not a test")
	}
	p := brokertest.Start(t, startCoordinator(t, impl.Mutants{}), brokertest.Options{DieOn: epochBelowMinusTwo})
	fmt.Println(p.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// rowOf is a case's row in check's table, its columns' padding squeezed
// to two spaces after RESULT ("NAME RESULT  SOURCE  OBSERVED...").
func rowOf(out, name string) string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == name {
			return regexp.MustCompile(`   +`).ReplaceAllString(line, "  ")
		}
	}
	return ""
}

// rowStatus is the RESULT column of a case's row in check's table.
func rowStatus(out, name string) string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == name {
			return f[1]
		}
	}
	return ""
}

func epochBelowMinusTwo(_ *codec.RequestHeader, req codec.Message) bool {
	hb, ok := req.(*codec.ConsumerGroupHeartbeatRequest)
	return ok && hb.MemberEpoch < -2
}

// A broker that dies on a case: the case is CRASH, the request is written
// where decode reads it, and the check stops; with --broker-cmd every case
// after it runs on a fresh broker, and the table is whole.
func TestCheckBrokerGoneMidCase(t *testing.T) {
	dir := t.TempDir()
	p := brokertest.Start(t, startCoordinator(t, impl.Mutants{}), brokertest.Options{DieOn: epochBelowMinusTwo})
	code, out, errOut := run(t, "", "check", "--bootstrap", p.Addr(), "--cases", "B4.2", "--histories", "0", "--out", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	frame := filepath.Join(dir, "crash-B4.2_epoch-below-minus-two.hex")
	if st := rowStatus(out, "B4.2/epoch-below-minus-two"); st != "CRASH" || !strings.Contains(rowOf(out, "B4.2/epoch-below-minus-two"), "CRASH  Kafka 4.0  the broker stopped answering after ConsumerGroupHeartbeat v1") {
		t.Errorf("the crash's row: %s\n%s", st, out)
	}
	for _, want := range []string{
		", 1 crash, 0 n/a (not shipped in Kafka " + conformance.NewestRelease + ")\n", "stopped: the broker stopped answering during B4.2/epoch-below-minus-two",
		"not run: 3 cases (B4.2/unsupported-assignor, B4.2/empty-subscription-allowed, B4.2/join-null-regex-allowed)",
		"\nB4.2/epoch-below-minus-two  CRASH\n  request  " + frame + " (ghostcheck decode < " + frame + ")\n  section  B4.2.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	hexFrame, err := os.ReadFile(frame)
	if err != nil {
		t.Fatal(err)
	}
	if code, dec, errOut := run(t, string(hexFrame), "decode"); code != 0 || !strings.Contains(dec, `"MemberEpoch": -3`) {
		t.Fatalf("decode of the crash frame: exit %d\n%s\n%s", code, dec, errOut)
	}

	t.Setenv("GHOSTCHECK_HELPER_BROKER", "1")
	cmd := os.Args[0] + " -test.run=^TestHelperBroker$"
	code, out, errOut = run(t, "", "check", "--broker-cmd", cmd, "--cases", "B4.2", "--histories", "0", "--out", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"12 cases: 11 pass, 0 fail, 0 skip, 1 crash", "brokers started by --broker-cmd: 4\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("with --broker-cmd, output lacks %q:\n%s", want, out)
		}
	}
	if st := rowStatus(out, "B4.2/join-null-regex-allowed"); st != "PASS" {
		t.Errorf("the last case, on a fresh broker: %s\n%s", st, out)
	}
	if strings.Contains(out, "stopped:") || strings.Contains(out, "not run:") {
		t.Errorf("with --broker-cmd the check should not stop:\n%s", out)
	}
	// The crash, recorded as known: exit 0.
	known := filepath.Join(dir, "known")
	if err := os.WriteFile(known, []byte("X1 case B4.2/epoch-below-minus-two stopped answering after ConsumerGroupHeartbeat v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, "", "check", "--broker-cmd", cmd, "--known", known, "--cases", "B4.2/epoch", "--histories", "0", "--out", dir)
	if code != 0 || !strings.Contains(out, "CRASH (known X1)") || !strings.Contains(out, "(1 of the fail and crash known)") {
		t.Fatalf("a known crash: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	// Known, but with nothing to start another broker the cases after it
	// went unchecked: exit 1.
	p2 := brokertest.Start(t, startCoordinator(t, impl.Mutants{}), brokertest.Options{DieOn: epochBelowMinusTwo})
	code, out, errOut = run(t, "", "check", "--bootstrap", p2.Addr(), "--known", known, "--cases", "B4.2", "--histories", "0", "--out", dir)
	if code != 1 || !strings.Contains(out, "CRASH (known X1)") || !strings.Contains(out, "not run: 3 cases") {
		t.Fatalf("a known crash that stopped the check: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
}

// A broker whose ApiVersions v3+ replies do not parse and that offers no
// ConsumerGroupDescribe: check says how it negotiated, skips what needs
// Describe, and says what the histories could not check.
func TestCheckBrokerThatDiffers(t *testing.T) {
	t.Parallel() // it waits on a broker over TCP
	p := brokertest.Start(t, startCoordinator(t, impl.Mutants{}), brokertest.Options{GarbleApiVersionsFrom: 3, Hide: []codec.APIKey{codec.ConsumerGroupDescribe}})
	code, out, errOut := run(t, "", "check", "--bootstrap", p.Addr(), "--session-timeout", "800ms", "--heartbeat-interval", "100ms",
		"--cases", "A1/v1-join-empty,B7.2", "--histories", "1", "--rounds", "20", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	if row := rowOf(out, "A1/v1-join-empty-member-id"); !strings.Contains(row, "SKIP  KIP-1082, Kafka 4.0  INVALID_REQUEST; the rest of the rule needs ConsumerGroupDescribe") {
		t.Errorf("the row of A1/v1-join-empty-member-id: %q", row)
	}
	// Every B7.2 case needs ConsumerGroupDescribe: all of them skip, and
	// A1/v1-join-empty-member-id.
	b72 := len(conformance.Select([]string{"B7.2"}, false, false))
	for _, want := range []string{
		"ApiVersions: v4 reply did not parse", "fell back to v2\n",
		fmt.Sprintf("%d cases: 0 pass, 0 fail, %d skip, 0 crash", b72+1, b72+1),
		"  without ConsumerGroupDescribe, not checked: NoGhosts, OneMemberPerProcess",
		"seed 1    Ok",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "", "check", "--bootstrap", p.Addr(), "--cases", "B7.2", "--histories", "0", "--json", "--out", t.TempDir())
	var v struct {
		Negotiation []string
		Cases       []conformance.Result
	}
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || len(v.Negotiation) != 2 || len(v.Cases) != b72 || v.Cases[0].Status != conformance.Skip || v.Cases[0].Source != "Kafka 4.0" {
		t.Fatalf("--json: exit %d, %v: %s", code, err, out)
	}
}

func TestCheckKnownUsage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("K1 case A1/no-such-case\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "--bootstrap", "127.0.0.1:1", "--known", bad},
		{"check", "--bootstrap", "127.0.0.1:1", "--known", filepath.Join(dir, "missing")},
		{"check", "--known", bad},
	} {
		if code, _, errOut := run(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errOut)
		}
	}
	_, _, errOut := run(t, "", "check", "-h")
	for _, want := range []string{"--known FILE", "case NAME", "probe KIND", "rule RULE", "workaround NAME", "-broker-cmd COMMAND"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("check -h lacks %q", want)
		}
	}
}

// --kafka-version holds a broker to a release: a case failing on a rule
// the release does not ship is N/A (with where it ships), in the table,
// in --json and in the HTML index, and does not make the exit status 1.
// Two planted bugs: a v1 join with an empty id makes a member (KIP-1082,
// Kafka 4.0), a retried join a second member (KAFKA-19233, trunk only).
func TestCheckKafkaVersion(t *testing.T) {
	addr := startCoordinator(t, impl.Mutants{}.With(impl.MutV1EmptyMemberID).With(impl.MutRetriedJoinNewMember))
	cases := "A1/v1-join-empty-member-id,A1/retried-join-same-member"
	dir := t.TempDir()
	code, out, errOut := run(t, "", "check", "--bootstrap", addr, "--cases", cases, "--histories", "0", "--kafka-version", "4.1", "--out", dir)
	if code != 1 || rowStatus(out, "A1/v1-join-empty-member-id") != "FAIL" || !strings.Contains(rowOf(out, "A1/retried-join-same-member"), "N/A (ships in no known release)  KAFKA-19233, trunk only") {
		t.Fatalf("--kafka-version 4.1: exit %d, want 1, with the retried join N/A:\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "2 cases: 0 pass, 1 fail, 0 skip, 0 crash, 1 n/a (not shipped in Kafka 4.1)") {
		t.Errorf("the summary does not count the N/A:\n%s", out)
	}
	html, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil || !strings.Contains(string(html), "N/A (ships in no known release)") || !strings.Contains(string(html), "KAFKA-19233, trunk only (merged 2026-01; release unverified)") {
		t.Errorf("the index does not show the N/A and the case's source (%v)", err)
	}
	code, out, errOut = run(t, "", "check", "--bootstrap", addr, "--cases", cases, "--histories", "0", "--kafka-version", "3.9", "--json", "--out", dir)
	var v struct{ Cases []conformance.Result }
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || len(v.Cases) != 2 {
		t.Fatalf("--kafka-version 3.9 --json: exit %d, want 0 (%v)\n%s\n%s", code, err, out, errOut)
	}
	for _, r := range v.Cases {
		if r.Status != conformance.NotApplicable || r.ShipsIn == "" || r.Source == "" {
			t.Errorf("--kafka-version 3.9: %s %s ships in %q, source %q; want N/A", r.Name, r.Status, r.ShipsIn, r.Source)
		}
	}
	if code, _, _ := run(t, "", "check", "--bootstrap", addr, "--cases", cases, "--histories", "0", "--out", dir); code != 1 {
		t.Errorf("without --kafka-version: exit %d, want 1", code)
	}
	if code, _, errOut := run(t, "", "check", "--bootstrap", addr, "--histories", "0", "--kafka-version", "four"); code != 2 || !strings.Contains(errOut, "--kafka-version") {
		t.Errorf("--kafka-version four: exit %d, want 2: %s", code, errOut)
	}
}

// check catches KIP-345's broken promise over TCP: against `ghostcheck
// serve --mutant static-restart-rebalances` (a static restart bumps the
// group epoch) A5.5/static-restart-keeps-assignment fails and check exits
// 1; against serve without the mutant it passes.
func TestCheckCatchesServeStaticRestartMutant(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 0, "PASS"},
		{[]string{"--mutant", "static-restart-rebalances"}, 1, "FAIL"},
	} {
		addr := startServeCommand(t, tc.args...)
		code, out, errOut := run(t, "", "check", "--bootstrap", addr, "--cases", "A5.5", "--histories", "0", "--out", t.TempDir())
		if code != tc.code || rowStatus(out, "A5.5/static-restart-keeps-assignment") != tc.want {
			t.Fatalf("serve %v: exit %d (want %d), A5.5 %s (want %s)\n%s\n%s", tc.args, code, tc.code, rowStatus(out, "A5.5/static-restart-keeps-assignment"), tc.want, out, errOut)
		}
		if tc.code == 1 && !strings.Contains(out, "the group epoch moved") {
			t.Errorf("the failure does not say the group epoch moved:\n%s", out)
		}
	}
}

// startServeCommand runs what `ghostcheck serve` runs, with its flags
// after these (800 ms sessions, 100 ms heartbeats, alpha:6,beta:3), on
// 127.0.0.1 until the test ends.
func startServeCommand(t *testing.T, args ...string) string {
	t.Helper()
	var errOut bytes.Buffer
	cfg, code := parseServeFlags(append([]string{"--session-timeout", "800ms", "--heartbeat-interval", "100ms"}, args...), &errOut)
	if code >= 0 {
		t.Fatalf("serve %v: exit %d: %s", args, code, errOut.String())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, cfg, io.Discard, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String()
}
