package cputime_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/internal/cputime"
)

// sink keeps the spinning loop's result, so the loop stays.
var sink uint64

// Work done by this process shows in its CPU time; sleeping does not.
func TestProcessCountsWorkNotSleep(t *testing.T) {
	if !cputime.Measured {
		t.Skipf("%s: CPU time is not measured here (cputime.Process is 0)", runtime.GOOS)
	}
	before := cputime.Process()
	if before <= 0 {
		t.Fatalf("CPU time so far %v: a process that started a test has used some", before)
	}
	// Spin until the CPU time has moved 20 ms (on a loaded machine that
	// takes longer by the clock, never forever).
	x := uint64(1)
	for giveUp := time.Now().Add(30 * time.Second); cputime.Process()-before < 20*time.Millisecond; {
		if time.Now().After(giveUp) {
			t.Fatalf("30 s of spinning moved the CPU time by %v", cputime.Process()-before)
		}
		for i := 0; i < 10000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink = x
	before = cputime.Process()
	time.Sleep(100 * time.Millisecond)
	if idle := cputime.Process() - before; idle >= 100*time.Millisecond {
		t.Fatalf("100 ms of sleep used %v of CPU", idle)
	}
}
