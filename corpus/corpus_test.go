// Package corpus holds ghostcheck's regression corpus; its test replays
// every history in it (see README.md).
package corpus

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model/rules"
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

// Two mutants' histories (null-owned-releases, regex-not-full-request)
// answer a static KIP-848 client's heartbeat FENCED_INSTANCE_ID. The
// reference client takes it as fatal, as Java's consumer does: re-run, its
// process sends nothing more, and NoRejoinAfterFencedInstance, which judges
// ConsumerGroupHeartbeat too, finds nothing (a client that heartbeats on
// under the instance, as the reference client did when these files were
// written, is reported). Their verdicts (Linearizability) stand.
func TestFencedStaticConsumerStops(t *testing.T) {
	for _, f := range []string{"histories/mutant-null-owned-releases.jsonl", "histories/mutant-regex-not-full-request.jsonl"} {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".jsonl"), func(t *testing.T) {
			rr, err := targets.ReplayFile(f, "")
			if err != nil {
				t.Fatal(err)
			}
			if !rr.Pass {
				t.Fatalf("expected %s %s, got %s %s", rr.Expect.Verdict, rr.Expect.Rule, rr.Got.Verdict, rr.Got.Rule)
			}
			h, clients := rr.Run.History, len(rr.Header.Plan.Clients)
			fenced := slices.IndexFunc(h, func(op history.Op) bool {
				r, ok := op.Response.(*codec.ConsumerGroupHeartbeatResponse)
				return ok && op.Client < clients && op.Note == "" && r.ErrorCode == codec.FencedInstanceID
			})
			if fenced < 0 {
				t.Fatal("the re-run no longer answers a plan client's heartbeat FENCED_INSTANCE_ID")
			}
			for _, op := range h[fenced+1:] {
				if op.Client == h[fenced].Client {
					t.Errorf("%s sent %s (op %d) after op %d was answered FENCED_INSTANCE_ID", op.Name, op.Header.RequestApiKey, op.ID, h[fenced].ID)
				}
			}
			for _, v := range rr.Run.Violations {
				if v.Rule == string(rules.RuleNoRejoinAfterFencedInstance) {
					t.Errorf("%s: %s", v.Rule, v.What)
				}
			}
		})
	}
}
