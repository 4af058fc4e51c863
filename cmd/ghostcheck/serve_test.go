package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
)

// serve --mutant NAME plants one of impl's bugs in the coordinator it
// serves; help lists every name; an unknown name is bad usage.
func TestServeMutantFlag(t *testing.T) {
	var errOut bytes.Buffer
	if _, code := parseServeFlags([]string{"-h"}, &errOut); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	for _, m := range impl.AllMutants() {
		if !strings.Contains(errOut.String(), m.Name) {
			t.Errorf("help does not list mutant %s:\n%s", m.Name, errOut.String())
		}
	}
	errOut.Reset()
	if _, code := parseServeFlags([]string{"--mutant", "no-such-bug"}, &errOut); code != 2 || !strings.Contains(errOut.String(), "no-such-bug") {
		t.Errorf("unknown mutant: exit %d, %q; want 2 naming it", code, errOut.String())
	}
	for _, m := range impl.AllMutants() {
		cfg, code := parseServeFlags([]string{"--mutant", m.Name}, &errOut)
		if code >= 0 || cfg.coord.Mutants != (impl.Mutants{}.With(m.Mutant)) {
			t.Errorf("--mutant %s: exit %d, mutants %v", m.Name, code, cfg.coord.Mutants)
		}
	}
	if cfg, _ := parseServeFlags(nil, &errOut); cfg.coord.Mutants.Any() {
		t.Errorf("no --mutant: mutants %v, want none", cfg.coord.Mutants)
	}
}

// The coordinator serve builds with --mutant static-restart-rebalances
// rebalances on a static takeover, and says so when it starts; without the
// flag the takeover keeps the group epoch.
func TestServeMutantIsPlanted(t *testing.T) {
	takeoverEpoch := func(args ...string) int32 {
		t.Helper()
		var errOut bytes.Buffer
		cfg, code := parseServeFlags(append([]string{"--topics", "alpha:2"}, args...), &errOut)
		if code >= 0 {
			t.Fatalf("flags %v: %d %s", args, code, errOut.String())
		}
		c := impl.New(cfg.coord)
		send := func(member string, epoch int32) *codec.ConsumerGroupHeartbeatResponse {
			req := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: member, MemberEpoch: epoch, InstanceId: codec.Str("i1"),
				RebalanceTimeoutMs: 5000, SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
			if epoch < 0 {
				req.RebalanceTimeoutMs, req.SubscribedTopicNames, req.TopicPartitions = -1, nil, nil
			}
			h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, ClientId: codec.Str("t")}
			resp, err := c.Handle(impl.Conn{ID: 1}, h, req)
			if err != nil {
				t.Fatal(err)
			}
			return resp.(*codec.ConsumerGroupHeartbeatResponse)
		}
		send("m1", 0)
		send("m1", -2)
		return send("m3", 0).MemberEpoch
	}
	if got := takeoverEpoch(); got != 1 {
		t.Errorf("without a mutant the takeover answers epoch %d, want 1 (no rebalance)", got)
	}
	if got := takeoverEpoch("--mutant", "static-restart-rebalances"); got != 2 {
		t.Errorf("with the mutant the takeover answers epoch %d, want 2 (a rebalance)", got)
	}

	var errOut, out bytes.Buffer
	cfg, _ := parseServeFlags([]string{"--mutant", "static-restart-rebalances"}, &errOut)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // start, print the banner, stop
	if err := serve(ctx, ln, cfg, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "MUTANT static-restart-rebalances planted") {
		t.Errorf("the banner does not say a mutant is planted:\n%s", out.String())
	}
}
