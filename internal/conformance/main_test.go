package conformance_test

import (
	"os"
	"testing"

	"github.com/ghostcheck/ghostcheck/internal/nettest"
)

// The tests wait on real time (sessions running out, brokers stopping):
// they run side by side, t.Parallel, more at once than GOMAXPROCS.
func TestMain(m *testing.M) {
	nettest.ParallelWaits()
	os.Exit(m.Run())
}
