package wire

import (
	"runtime"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
)

// A broker's list of api keys, however long, costs a map of the distinct
// keys: a 16 MiB answer repeating 7 keys made a map sized for its 2.8
// million entries (32 MiB); here one of 768 KiB.
func TestVersionsOfLongListCostsItsKeys(t *testing.T) {
	r := &codec.ApiVersionsResponse{ApiKeys: make([]codec.ApiVersionsKey, 1<<17)}
	for i := range r.ApiKeys {
		r.ApiKeys[i] = codec.ApiVersionsKey{ApiKey: codec.APIKey(i % 7), MaxVersion: 1}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	vs := versionsOf(r)
	runtime.ReadMemStats(&after)
	if len(vs) != 7 {
		t.Fatalf("%d keys, want 7", len(vs))
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
		t.Errorf("versionsOf allocated %d KiB for 7 keys", grew>>10)
	}
}
