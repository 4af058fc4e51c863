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
}

// A broker that makes a member for an empty v1 member id fails A1's cases
// and the command says so with exit status 1.
func TestCheckFindsAPlantedBug(t *testing.T) {
	addr := startCoordinator(t, impl.Mutants(0).With(impl.MutV1EmptyMemberID))
	code, out, errOut := run(t, "", "check", "--bootstrap", addr, "--cases", "A1/v1-join", "--histories", "0")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "A1/v1-join-empty-member-id  FAIL") {
		t.Errorf("the table does not show the failure:\n%s", out)
	}
}

func TestCheckUsage(t *testing.T) {
	if code, _, _ := run(t, "", "check"); code != 2 {
		t.Fatalf("check without --bootstrap: exit %d, want 2", code)
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
