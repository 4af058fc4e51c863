package conformance_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ghostcheck/ghostcheck/internal/conformance"
)

// A --broker-cmd broker's Stop returns in bounded time, leaving no
// goroutine behind, whatever the command left running: a grandchild in the
// command's process group dies with the group's signals; one in a session
// of its own (out of their reach) keeps the command's stdout and stderr
// open, and before exec.Cmd.WaitDelay Stop waited for it for ever.
func TestCommandBrokerStopBounded(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid:", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	addr := ln.Addr().String()
	// The commands run side by side (Stop mostly waits), after this
	// function returns; no goroutine may be left once all have stopped.
	// The test is not parallel to the others, so the goroutines are the
	// commands' alone.
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	for _, tc := range []struct {
		name string
		// cmd is the broker command; %[1]s is the grandchild's pid file,
		// %[2]s the address to print.
		cmd string
	}{
		{"grandchild in the group", `sleep 600 & echo $! > %[1]s; echo %[2]s`},
		{"grandchild in a session of its own", `setsid sleep 600 & echo $! > %[1]s; echo %[2]s`},
		{"own-session grandchild, command runs on", `setsid sleep 600 & echo $! > %[1]s; echo %[2]s; exec sleep 600`},
		{"command ignores SIGTERM", `trap '' TERM; setsid sleep 600 & echo $! > %[1]s; echo %[2]s; while :; do sleep 1; done`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pid")
			t.Cleanup(func() { killPidFile(t, pidFile) })
			b, err := conformance.CommandLauncher(fmt.Sprintf(tc.cmd, pidFile, addr))()
			if err != nil {
				t.Fatal(err)
			}
			if b.Addr() != addr {
				t.Errorf("Addr() = %q, want %q", b.Addr(), addr)
			}
			stopped := make(chan struct{})
			go func() { b.Stop(); close(stopped) }()
			// Stop's own bound is under 6 s; the test's deadline (or a
			// generous minute) is what a hang runs into.
			limit := time.Minute
			if d, ok := t.Deadline(); ok && time.Until(d)/2 < limit {
				limit = time.Until(d) / 2
			}
			select {
			case <-stopped:
			case <-time.After(limit):
				t.Fatalf("Stop did not return within %v", limit)
			}
			if st, _ := b.Exit(); st == "" {
				t.Error("Exit() after Stop: no status")
			}
		})
	}
}

// killPidFile kills the process whose pid the broker command wrote, so a
// test leaves no sleep behind.
func killPidFile(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Logf("no grandchild pid: %v", err)
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		t.Logf("grandchild pid %q: %v", data, err)
		return
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
