package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/releases"
	"github.com/ghostcheck/ghostcheck/wire"
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

	if out := serveBanner(t, "--mutant", "static-restart-rebalances"); !strings.Contains(out, "MUTANT static-restart-rebalances planted") {
		t.Errorf("the banner does not say a mutant is planted:\n%s", out)
	}
}

// serveBanner is what serve prints with args when it starts and stops at
// once.
func serveBanner(t *testing.T, args ...string) string {
	t.Helper()
	var errOut, out bytes.Buffer
	cfg, code := parseServeFlags(args, &errOut)
	if code >= 0 {
		t.Fatalf("flags %v: %d %s", args, code, errOut.String())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // start, print the banner, stop
	if err := serve(ctx, ln, cfg, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// serve --kafka-version X lists what a default broker of X lists, answers
// UNSUPPORTED_VERSION to what X lists without serving (ConsumerGroupHeartbeat
// in 3.7-3.9), and closes the connection on what X does not list; an
// unknown release is bad usage.
func TestServeKafkaVersion(t *testing.T) {
	var errOut bytes.Buffer
	for _, bad := range []string{"2.2", "5.0", "next", "x"} {
		if _, code := parseServeFlags([]string{"--kafka-version", bad}, &errOut); code != 2 {
			t.Errorf("--kafka-version %s: exit %d, want 2", bad, code)
		}
	}
	for _, r := range releases.All() {
		t.Run(r.Name, func(t *testing.T) {
			addr := startServeCommand(t, "--kafka-version", r.Name)
			ctx := context.Background()
			hm, err := wire.NewHeaders(codec.Str("t"), codec.UUID{1})
			if err != nil {
				t.Fatal(err)
			}
			d := &wire.Dialer{Options: wire.Options{Timeout: 5 * time.Second}}
			w, pre, err := d.DialNegotiated(ctx, addr, hm, wire.NegotiateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			for _, k := range releases.Columns {
				want, listed := r.Advertises(k)
				got, has := pre.Negotiation.Versions[k]
				if k == codec.Metadata || k == codec.FindCoordinator {
					continue // serve routes nothing
				}
				if has != listed || has && (got[0] != want.Min || got[1] != want.Max) {
					t.Errorf("%v: listed %v %v, want %v %v", k, has, got, listed, want)
				}
			}
			hb := &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m", MemberEpoch: 0, RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{"alpha"},
				TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}
			resp, err := w.RoundTrip(hm.Next(codec.ConsumerGroupHeartbeat, 0), hb)
			switch rg, listed := r.Advertises(codec.ConsumerGroupHeartbeat); {
			case !listed:
				if !errors.Is(err, wire.ErrConnClosed) {
					t.Errorf("ConsumerGroupHeartbeat, which Kafka %s does not list: %v, %v; want the connection closed", r.Name, resp, err)
				}
			case !r.Serves(codec.ConsumerGroupHeartbeat, rg.Max):
				if err != nil || resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode != codec.UnsupportedVersion {
					t.Errorf("ConsumerGroupHeartbeat, which Kafka %s lists without serving: %v, %v; want UNSUPPORTED_VERSION", r.Name, resp, err)
				}
			default:
				if err != nil || resp.(*codec.ConsumerGroupHeartbeatResponse).ErrorCode != codec.None {
					t.Errorf("ConsumerGroupHeartbeat v0 join on Kafka %s: %v, %v; want NONE", r.Name, resp, err)
				}
			}
		})
	}
}

// serve --migration-policy NAME sets group.consumer.migration.policy: a
// classic JoinGroup to a consumer group with a member is a mixed group's
// join (A7.1: MEMBER_ID_REQUIRED first) under Kafka's four policies, and
// outside the model (A6.5: the connection closed) by default; an unknown
// name is bad usage.
func TestServeMigrationPolicyFlag(t *testing.T) {
	var errOut bytes.Buffer
	if _, code := parseServeFlags([]string{"--migration-policy", "sideways"}, &errOut); code != 2 || !strings.Contains(errOut.String(), "sideways") {
		t.Errorf("unknown policy: exit %d, %q; want 2 naming it", code, errOut.String())
	}
	sub, err := (&codec.ConsumerProtocolSubscription{Topics: []string{"alpha"}, GenerationId: -1}).AppendTo(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		want  impl.MigrationPolicy
		mixed bool
	}{
		{nil, impl.MigrationOutside, false},
		{[]string{"--migration-policy", "outside"}, impl.MigrationOutside, false},
		{[]string{"--migration-policy", "disabled"}, impl.MigrationDisabled, true},
		{[]string{"--migration-policy", "upgrade"}, impl.MigrationUpgrade, true},
		{[]string{"--migration-policy", "downgrade"}, impl.MigrationDowngrade, true},
		{[]string{"--migration-policy", "BIDIRECTIONAL"}, impl.MigrationBidirectional, true},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cfg, code := parseServeFlags(append([]string{"--topics", "alpha:2"}, tc.args...), &errOut)
			if code >= 0 || cfg.coord.MigrationPolicy != tc.want {
				t.Fatalf("exit %d, policy %d; want %d", code, cfg.coord.MigrationPolicy, tc.want)
			}
			c := impl.New(cfg.coord)
			h := &codec.RequestHeader{RequestApiKey: codec.ConsumerGroupHeartbeat, RequestApiVersion: 1, ClientId: codec.Str("t")}
			if _, err := c.Handle(impl.Conn{ID: 1}, h, &codec.ConsumerGroupHeartbeatRequest{GroupId: "g", MemberId: "m1", RebalanceTimeoutMs: 5000,
				SubscribedTopicNames: []string{"alpha"}, TopicPartitions: []codec.ConsumerGroupHeartbeatTopicPartitions{}}); err != nil {
				t.Fatal(err)
			}
			h = &codec.RequestHeader{RequestApiKey: codec.JoinGroup, RequestApiVersion: 5, ClientId: codec.Str("k")}
			resp, err := c.Handle(impl.Conn{ID: 2}, h, &codec.JoinGroupRequest{GroupId: "g", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 5000,
				ProtocolType: "consumer", Protocols: []codec.JoinGroupRequestProtocol{{Name: "range", Metadata: sub}}})
			switch {
			case tc.mixed && (err != nil || resp.(*codec.JoinGroupResponse).ErrorCode != codec.MemberIDRequired):
				t.Errorf("a classic join to the consumer group: %v %+v; want MEMBER_ID_REQUIRED (A7.1)", err, resp)
			case !tc.mixed && err == nil:
				t.Errorf("a classic join to the consumer group answered %+v; want the connection closed (A6.5)", resp)
			}
		})
	}
	if out := serveBanner(t, "--migration-policy", "bidirectional"); !strings.Contains(out, "group.consumer.migration.policy bidirectional") {
		t.Errorf("the banner does not name the policy:\n%s", out)
	}
}
