package wire_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/wire"
)

// stallingBroker answers ApiVersions and, after stall is called, holds
// each answer until the stall is over: a broker stopped alone, with the
// checking process running.
func stallingBroker(t *testing.T) (addr string, stall func(time.Duration)) {
	t.Helper()
	var until atomic.Int64
	answer := speaks(t, 4)
	b := startBroker(t, func(r request) []byte {
		time.Sleep(time.Until(time.Unix(0, until.Load())))
		return answer(r)
	})
	return b.addr, func(d time.Duration) { until.Store(time.Now().Add(d).UnixNano()) }
}

// A StallWatch sees a broker that stops answering for a while although
// this process runs on (WatchBroker's pings wait for it), and sees
// nothing of it without pings (WatchStalls).
func TestStallWatchSeesAStoppedBroker(t *testing.T) {
	for _, c := range []struct {
		name  string
		watch func(addr string) *wire.StallWatch
		sees  bool
	}{
		{"pinging the broker", func(addr string) *wire.StallWatch { return wire.WatchBroker(addr, time.Second) }, true},
		{"this process alone", func(string) *wire.StallWatch { return wire.WatchStalls() }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr, stall := stallingBroker(t)
			w := c.watch(addr)
			defer w.Stop()
			time.Sleep(50 * time.Millisecond)
			stall(300 * time.Millisecond)
			time.Sleep(400 * time.Millisecond)
			w.Stop()
			got := w.Max()
			if sees := got >= 250*time.Millisecond; sees != c.sees {
				t.Fatalf("broker stopped for 300 ms: stall %v, want seen %v", got, c.sees)
			}
			t.Logf("stall %v", got)
		})
	}
}
