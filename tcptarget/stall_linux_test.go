package tcptarget_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/tcptarget"
	"github.com/ghostcheck/ghostcheck/wire"
)

// The TCP target measures a stall of the checking process that no clock
// reading of the driver sees (the process stopped between two of them,
// as a loaded machine stops it): the test stops itself for 300 ms
// (SIGSTOP; a child that sees it stopped in /proc sends SIGCONT 300 ms
// later). After Close the stall no longer grows.
func TestTargetMeasuresStall(t *testing.T) {
	target, err := tcptarget.Dial(context.Background(), []string{apiVersionsOnly(t)}, wire.ClusterOptions{Dialer: wire.Dialer{Options: wire.Options{Timeout: time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	if err := target.Advance(0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	before := target.MaxStallMs()
	pid := strconv.Itoa(os.Getpid())
	wake := exec.Command("sh", "-c", "until [ \"$(cut -d' ' -f3 /proc/"+pid+"/stat)\" = T ]; do sleep 0.01; done; sleep 0.3; kill -CONT "+pid)
	if err := wake.Start(); err != nil {
		t.Skip("no sh to wake the test:", err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := wake.Wait(); err != nil {
		t.Fatal(err)
	}
	during := target.MaxStallMs()
	if during < 250 {
		t.Fatalf("stopped for 300 ms: stall %d ms (%d ms before)", during, before)
	}
	target.Close()
	at := target.MaxStallMs()
	time.Sleep(30 * time.Millisecond)
	if after := target.MaxStallMs(); after != at {
		t.Fatalf("the stall grew after Close: %d ms, then %d ms", at, after)
	}
	t.Logf("stall %d ms before, %d ms after a 300 ms stop", before, during)
}
