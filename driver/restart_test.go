package driver

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/plan"
)

// A crashed process's member outlives its last heartbeat by a session
// timeout counted from a restart it lived through, and no further: grace is
// extended, not removed.
func TestSessionEndCountsRestarts(t *testing.T) {
	d := &driver{plan: &plan.Plan{SessionTimeoutMs: 6000}}
	for _, c := range []struct {
		restarts []int64
		last     int64
		want     int64
	}{
		{nil, 1000, 7000},
		{[]int64{500}, 1000, 7000},          // before the last heartbeat
		{[]int64{4000}, 1000, 10000},        // within the session
		{[]int64{7000}, 1000, 7000},         // after it ended
		{[]int64{4000, 9000}, 1000, 15000},  // chained
		{[]int64{4000, 10000}, 1000, 10000}, // the second came too late
		{[]int64{1000}, 1000, 7000},         // the same instant
	} {
		d.restartAt = c.restarts
		if got := d.sessionEnd(c.last); got != c.want {
			t.Errorf("restarts %v, last heartbeat %d: session ends %d, want %d", c.restarts, c.last, got, c.want)
		}
	}
}
