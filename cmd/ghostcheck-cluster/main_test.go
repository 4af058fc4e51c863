package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/wire"
)

// The cluster starts on ports the system picks, with TLS and SASL: its
// first stdout line lists three brokers, which a wire.Cluster reaches
// over TLS with the CA it wrote and the password from the environment;
// the password is printed nowhere; stop ends it.
func TestClusterWithTLSAndSASL(t *testing.T) {
	const pw = "cluster-Pa55-word"
	t.Setenv(passwordEnv, pw)
	dir := t.TempDir()
	outR, outW := io.Pipe()
	var errOut strings.Builder
	stop := make(chan struct{})
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"--port", "0", "--tls-dir", dir, "--sasl-mechanism", "scram-sha-256", "--sasl-user", "ghost"}, strings.NewReader(""), outW, &errOut, stop)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	addrs := strings.Split(strings.TrimSpace(line), ",")
	if len(addrs) != 3 {
		t.Fatalf("first line %q: want three addresses", line)
	}
	tlsCfg, err := wire.TLSFiles{CAFile: filepath.Join(dir, "ca.pem")}.Config()
	if err != nil {
		t.Fatal(err)
	}
	d := wire.Dialer{Options: wire.Options{Timeout: 5 * time.Second}, TLS: tlsCfg, SASL: &wire.SASL{Mechanism: "SCRAM-SHA-256", User: "ghost", Password: wire.NewSecret(pw)}}
	cl, err := wire.Connect(context.Background(), addrs[:1], wire.ClusterOptions{Dialer: d})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cl.Brokers()); n != 3 {
		t.Errorf("Metadata lists %d brokers, want 3", n)
	}
	if _, _, err := cl.Coordinator(context.Background(), "g"); err != nil {
		t.Errorf("FindCoordinator over TLS and SASL: %v", err)
	}
	cl.Close()
	close(stop)
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
	if strings.Contains(errOut.String(), pw) {
		t.Error("stderr holds the password")
	}
	if !strings.Contains(errOut.String(), "--tls-ca "+filepath.Join(dir, "ca.pem")) {
		t.Errorf("stderr should say how check reaches the cluster:\n%s", errOut.String())
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"--brokers", "0"}, {"extra"}, {"--sasl-mechanism", "PLAIN"}, {"--port", "-1"}} {
		if code := run(args, strings.NewReader(""), io.Discard, io.Discard, nil); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	os.Unsetenv(passwordEnv)
	if code := run([]string{"--port", "0", "--sasl-mechanism", "PLAIN", "--sasl-user", "u"}, strings.NewReader(""), io.Discard, io.Discard, nil); code != 2 {
		t.Errorf("SASL without a password: exit %d, want 2", code)
	}
}
