// Package corpus holds ghostcheck's regression corpus; its test replays
// every history in it (see README.md).
package corpus

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/internal/targets"
)

// TestReplayHistories re-runs every corpus history against the target it
// names and requires the verdict it stores: one subtest per file.
func TestReplayHistories(t *testing.T) {
	files, err := targets.CorpusFiles("histories")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("the corpus has no histories")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			rr, err := targets.ReplayFile(f, "")
			if err != nil {
				t.Fatal(err)
			}
			if !rr.Pass {
				t.Fatalf("expected %s %s, got %s %s: %s\nreproduce: go run ./cmd/ghostcheck replay corpus/%s",
					rr.Expect.Verdict, rr.Expect.Rule, rr.Got.Verdict, rr.Got.Rule, rr.Detail, f)
			}
		})
	}
}
