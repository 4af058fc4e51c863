package counterexample

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/explore"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/targets"
)

// TestReproduceReplays: the shortest traces the explorer finds for
// planted bugs of both protocols (a retried join making a second member, a
// LeaveGroup entry by member id refused, a static restart counted as a
// rebalance; a classic static member's instance not fenced, a KIP-394
// pending member id never dropped, a classic group's state kept across a
// coordinator restart; a KIP-394 pending id refused when it joins, a
// replaced member's waiting JoinGroup never answered, the waiting requests
// dropped at a restart) become plans whose runs
// are Illegal, and Ok against impl without the bug; the corpus files
// written from them replay to the verdicts they store, as `go test
// ./corpus` replays them.
func TestReproduceReplays(t *testing.T) {
	for _, c := range []struct {
		mutant string
		cfg    func() explore.Config
	}{
		{"retried-join-new-member", func() explore.Config {
			cfg := explore.Default()
			cfg.Clients, cfg.Ops, cfg.Faults = explore.Clients(1, 1, 0, 0), 1, explore.LostResponse
			return cfg
		}},
		{"leavegroup-member-id-unknown", func() explore.Config {
			cfg := explore.Default()
			cfg.Clients, cfg.Ops, cfg.Faults, cfg.MaxFaults, cfg.Admin = explore.Clients(2, 1, 1, 0), 1, 0, 0, 1
			return cfg
		}},
		{"static-restart-rebalances", func() explore.Config {
			cfg := explore.Default()
			cfg.Clients, cfg.Faults, cfg.MaxFaults = explore.Clients(1, 1, 1, 0), 0, 0
			return cfg
		}},
		{"classic-no-fence", func() explore.Config {
			cfg := explore.Default()
			cfg.Protocol = explore.Classic
			cfg.Clients, cfg.Ops, cfg.Faults, cfg.MaxFaults, cfg.Admin = explore.Clients(2, 1, 1, 0), 1, 0, 0, 1
			return cfg
		}},
		{"pending-never-expires", func() explore.Config {
			cfg := explore.Default()
			cfg.Protocol = explore.Classic
			cfg.Clients, cfg.Ops, cfg.Faults, cfg.MaxFaults = explore.Clients(1, 1, 0, 0), 1, 0, 0
			return cfg
		}},
		{"restart-keeps-classic-state", func() explore.Config {
			cfg := explore.Default()
			cfg.Protocol = explore.Classic
			cfg.Clients, cfg.Ops, cfg.Faults = explore.Clients(2, 1, 1, 0), 1, explore.CoordinatorRestart|explore.Crash|explore.Disconnect
			return cfg
		}},
		{"pending-join-unknown", func() explore.Config {
			cfg := explore.Default()
			cfg.Protocol = explore.Classic
			cfg.Clients, cfg.Ops, cfg.Faults, cfg.MaxFaults = explore.Clients(1, 1, 0, 0), 1, 0, 0
			return cfg
		}},
		{"old-request-dropped", func() explore.Config {
			cfg := explore.Default()
			cfg.Protocol = explore.Classic
			cfg.Clients, cfg.Faults, cfg.MaxFaults = explore.Clients(1, 1, 1, 0), 0, 0
			return cfg
		}},
		{"restart-drops-waiting", func() explore.Config {
			cfg := explore.Default()
			cfg.Protocol = explore.Classic
			cfg.Clients, cfg.Ops, cfg.Faults = explore.Clients(2, 1, 1, 0), 1, explore.CoordinatorRestart|explore.Crash|explore.Disconnect
			return cfg
		}},
	} {
		t.Run(c.mutant, func(t *testing.T) {
			m, err := impl.ParseMutant(c.mutant)
			if err != nil {
				t.Fatal(err)
			}
			cfg := c.cfg()
			cfg.Mutants = impl.Mutants{}.With(m)
			r, err := explore.Run(cfg)
			if err != nil || r.Violation == nil {
				t.Fatalf("the explorer did not find %s: %v %v", c.mutant, r.Summary(), err)
			}
			f, err := Reproduce(cfg, r.Violation)
			if err != nil {
				t.Fatalf("%s (%d events): %v", r.Violation.Rule, r.Violation.Depth, err)
			}
			if f.Header.Expect.Verdict != history.Illegal || f.Header.Target != "impl" || f.Header.Mutant != c.mutant {
				t.Fatalf("header %+v", f.Header)
			}
			if classic := f.Header.Plan.HasClassic(); classic != (cfg.Protocol == explore.Classic) {
				t.Fatalf("a %s trace made a plan with classic clients %v", cfg.Protocol, classic)
			}
			// The plan shows the bug, not the harness: impl without it
			// passes.
			clean, err := targets.New("impl", f.Header.Plan, "")
			if err != nil {
				t.Fatal(err)
			}
			res, err := driver.Run(clean, f.Header.Plan)
			if err != nil {
				t.Fatal(err)
			}
			if rep := check.Check(res, check.Options{Timeout: 10 * time.Second}); rep.Verdict != history.Ok {
				t.Fatalf("the plan against impl without %s: %s %s: %s", c.mutant, rep.Verdict, rep.Rule, rep.Detail)
			}
			path := filepath.Join(t.TempDir(), "explore-"+c.mutant+".jsonl")
			out, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := history.WriteFile(out, f.Header, f.Run.History); err != nil {
				t.Fatal(err)
			}
			out.Close()
			rr, err := targets.ReplayFile(path, "")
			if err != nil {
				t.Fatal(err)
			}
			if !rr.Pass {
				t.Fatalf("the file replays to %s %s, it stores %s %s: %s", rr.Got.Verdict, rr.Got.Rule, rr.Expect.Verdict, rr.Expect.Rule, rr.Detail)
			}
		})
	}
}

// A trace with no step is no counterexample.
func TestReproduceNeedsATrace(t *testing.T) {
	if _, err := Reproduce(explore.Default(), &explore.Violation{}); err == nil {
		t.Fatal("no error for an empty trace")
	}
}
