package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/linearize"
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
	addr := startCoordinator(t, 0)
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
	addr := startCoordinator(t, impl.Mutants(0).With(impl.MutV1EmptyMemberID))
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
	printCheck(&b, conformance.Peer{Addr: "broker:9092", SessionTimeout: time.Second}, nil, []conformance.HistoryResult{
		{Seed: 1, Verdict: linearize.Ok},
		{Seed: 2, Verdict: linearize.Illegal, Rule: "NoGhosts", Detail: "group g holds member m", File: "out/check-seed2.jsonl"},
		{Seed: 3, Verdict: linearize.VerdictUnknown, Rule: "Harness", Detail: "advance failed"},
	})
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
