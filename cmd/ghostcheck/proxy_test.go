package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/clients"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
	"github.com/ghostcheck/ghostcheck/proxy"
)

// runProxyWith runs `ghostcheck proxy ARGS` in front of ghostcheck's
// coordinator, drives a wire consumer through it (with the planted bug
// given), and returns the exit status and output.
func runProxyWith(t *testing.T, bug clients.Bug, args ...string) (int, string, string) {
	t.Helper()
	addr := startCoordinator(t, impl.Mutants{})
	args = append([]string{"--listen", "127.0.0.1:0", "--upstream", addr}, args...)
	cfg, code := parseProxyFlags(args, os.Stderr)
	if code >= 0 {
		t.Fatalf("flags %v: exit %d", args, code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := func(p *proxy.Proxy) {
		defer cancel()
		c, err := clients.New(clients.Config{Bootstrap: p.Addr(), Group: "g", Topics: []string{"alpha"}, ClientID: "cli", Bug: bug, Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		for i := 0; i < 6; i++ {
			c.Heartbeat()
		}
		c.Leave()
	}
	var out, errOut bytes.Buffer
	code = proxyRun(ctx, cfg, &out, &errOut, ready)
	return code, out.String(), errOut.String()
}

// The transparent run exits 0 with every adopted rule PASS, writes a
// recording that replays to its verdict, and the index.
func TestProxyTransparentRun(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runProxyWith(t, clients.NoBug, "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"RULE                         C1\n", "StableMemberID               PASS", "C1 = instance ", "(cli): 8 requests on 1 connection to",
		"history:  " + filepath.Join(dir, "proxy.jsonl"), "index:    " + filepath.Join(dir, "index.html")} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if regexp.MustCompile(`(?m)^[A-Za-z]+ +(VIOLATED|NOT ADOPTED)`).MatchString(out) {
		t.Errorf("the transparent run of a client that keeps every rule:\n%s", out)
	}
	if code, rout, _ := run(t, "", "replay", filepath.Join(dir, "proxy.jsonl")); code != 0 || !strings.Contains(rout, "1 of 1 histories reproduced") {
		t.Errorf("replaying the recording: exit %d\n%s", code, rout)
	}
	html, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil || !bytes.Contains(html, []byte("MemberIDFromFirstHeartbeat")) {
		t.Errorf("index.html: %v", err)
	}
}

// With every group request's answer dropped, the planted bug (a new member
// id after each lost answer) is caught: exit 1, the rule and the replay
// command printed, and the recording replays to Illegal StableMemberID.
func TestProxyCatchesThePlantedBug(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runProxyWith(t, clients.NewIDAfterLostResponse, "--out", dir, "--faults", "drop=100", "--seed", "7")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"C1 StableMemberID: a KIP-1082 process keeps one member id", "response dropped", "faults drop=100, seed 7",
		"replay:   ghostcheck replay " + filepath.Join(dir, "proxy.jsonl")} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, rout, _ := run(t, "", "replay", filepath.Join(dir, "proxy.jsonl"))
	if code != 0 || !strings.Contains(rout, "Illegal StableMemberID") {
		t.Errorf("replaying the recording: exit %d\n%s", code, rout)
	}
}

func TestProxyUsage(t *testing.T) {
	for _, args := range [][]string{{"proxy"}, {"proxy", "--upstream", "x:1", "extra"}, {"proxy", "--upstream", "x:1", "--faults", "lose=5"},
		{"proxy", "--upstream", "x:1", "--duration", "-1s"}} {
		if code, _, _ := run(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, errOut := run(t, "", "proxy", "-h"); code != 0 || !strings.Contains(errOut, "--upstream") {
		t.Errorf("proxy -h: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := run(t, "", "proxy", "--upstream", "127.0.0.1:1", "--listen", "bad address"); code != 1 {
		t.Errorf("a bad --listen: exit %d\n%s", code, errOut)
	}
}

// The proxy in front of three kfake brokers whose listeners take TLS and
// SASL/PLAIN: it originates TLS upstream (--tls-ca) while the client speaks
// plaintext to it, and passes the client's own SASL exchange through, so
// the client authenticates and joins. The PLAIN token holds the password:
// neither the recording, the report nor the output may.
func TestProxyTLSUpstreamPassesClientSASL(t *testing.T) {
	pki := nettest.NewPKI(t)
	c := startKfakeCluster(t, kfake.TLS(pki.ServerConfig(false)), kfake.EnableSASL(), kfake.Superuser(codec.MechanismPlain, "ghost", saslPassword))
	dir := t.TempDir()
	cfg, code := parseProxyFlags([]string{"--listen", "127.0.0.1:0", "--upstream", c.ListenAddrs()[0], "--tls-ca", pki.CAFile, "--out", dir}, os.Stderr)
	if code >= 0 {
		t.Fatalf("flags: exit %d", code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var joined codec.ErrorCode = -1
	ready := func(p *proxy.Proxy) {
		defer cancel()
		cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addr()), kgo.SASL(plain.Auth{User: "ghost", Pass: saslPassword}.AsMechanism()), kgo.ClientID("sasl-client"))
		if err != nil {
			t.Error(err)
			return
		}
		defer cl.Close()
		rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer rcancel()
		req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis = "g", "3f1d2c8a-ghostcheck-proxy-member", 0, 30000
		req.SubscribedTopicNames, req.Topics = []string{"alpha"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
		resp, err := req.RequestWith(rctx, cl)
		if err != nil {
			t.Errorf("a join through the proxy: %v", err)
			return
		}
		joined = codec.ErrorCode(resp.ErrorCode)
	}
	var out, errOut bytes.Buffer
	proxyRun(ctx, cfg, &out, &errOut, ready)
	if joined != codec.None {
		t.Fatalf("the join through the proxy: %v\n%s\n%s", joined, out.String(), errOut.String())
	}
	rec, err := os.ReadFile(filepath.Join(dir, "proxy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(rec, []byte("SaslAuthenticate")) || !bytes.Contains(rec, []byte("ConsumerGroupHeartbeat")) {
		t.Errorf("the recording should hold the client's SASL exchange and its join:\n%s", rec)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for name, b := range map[string][]byte{"recording": rec, "index.html": html, "stdout": out.Bytes(), "stderr": errOut.Bytes()} {
		if bytes.Contains(b, []byte(saslPassword)) {
			t.Errorf("the %s holds the client's password", name)
		}
	}
}
