package impl_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ghostcheck/ghostcheck/internal/equivtest"
)

// TestEquivalence: model and impl, fed the same generated operations (joins,
// heartbeats at right, stale and wrong epochs, leaves, static leaves,
// LeaveGroup batches, describes, telemetry, ApiVersions, clock advances,
// disconnects, coordinator restarts; several groups; v0 and v1 clients),
// give byte-identical responses and equal snapshots after every step.
func TestEquivalence(t *testing.T) {
	rapid.Check(t, equivtest.Property(0))
}
