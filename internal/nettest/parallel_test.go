package nettest_test

import (
	"flag"
	"runtime"
	"strconv"
	"testing"

	"github.com/ghostcheck/ghostcheck/internal/nettest"
)

// ParallelWaits raises -test.parallel to WaitingTests when the command line
// left it at GOMAXPROCS, and leaves a value given alone.
func TestParallelWaits(t *testing.T) {
	f := flag.Lookup("test.parallel")
	before := f.Value.String()
	t.Cleanup(func() { _ = flag.Set("test.parallel", before) })
	given := false
	flag.Visit(func(g *flag.Flag) { given = given || g.Name == "test.parallel" })
	nettest.ParallelWaits()
	want := strconv.Itoa(max(runtime.GOMAXPROCS(0), nettest.WaitingTests))
	if given {
		want = before
	}
	if got := f.Value.String(); got != want {
		t.Fatalf("-test.parallel %s after ParallelWaits (was %s, given %v), want %s", got, before, given, want)
	}
}
