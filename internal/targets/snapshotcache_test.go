package targets

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/race"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// The driver's snapshots of impl come from a cache that converts only the
// groups impl reports changed (cachedSnapshots, impl.SnapshotCache): at
// every observation of whole runs (v1, v0 and mixed clients, faults,
// restarts, static members) they must be exactly what a fresh snapshot
// gives; and the cache must serve some groups unchanged, or it would
// check nothing here and save nothing there.
func TestCachedSnapshotsAreFresh(t *testing.T) {
	observations, reused := 0, 0
	for _, version := range []int{1, 0, -1} {
		for seed := uint64(1); seed <= uint64(race.Sweep(20)); seed++ {
			t.Run(fmt.Sprintf("v%d/seed%d", version, seed), func(t *testing.T) {
				o := plan.DefaultOptions()
				o.HeartbeatVersion = version
				p := plan.New(seed, o)
				clock := impl.NewManualClock(0)
				c := impl.New(ImplConfig(p.ModelConfig(), clock, impl.Mutants{}))
				cache := c.NewSnapshotCache()
				cached := cachedSnapshots(cache)
				target := implFuncs(c, clock)
				snap := func() []rules.GroupSnapshot {
					got, want := cached(), ModelSnapshot(c.Snapshot())
					observations++
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("observation %d: cached %+v\nfresh %+v", observations, got, want)
					}
					_, same := cache.Snapshot() // nothing changed since: every group is served again
					for _, s := range same {
						if !s {
							t.Fatalf("observation %d: a group rebuilt with nothing changed", observations)
						}
						reused++
					}
					return got
				}
				if _, err := driver.Run(driver.WithSnapshot(target, snap), p); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
	if observations == 0 || reused == 0 {
		t.Fatalf("%d observations, %d groups served from the cache", observations, reused)
	}
}
