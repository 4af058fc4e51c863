// Package targets builds the in-process coordinators ghostcheck checks (the
// reference model and the optimized impl) as driver targets, configured
// from a plan, and replays history files and recordings. It is the glue
// the command and the corpus replay share; the driver itself knows only
// its Target interface.
//
// The files:
//
//   - targets.go: New, a target by name (model or impl) for a plan.
//   - modeltarget.go: ModelTarget, the reference model as a driver.Target.
//   - impl.go: impl (with a mutant, and its snapshot cache) as a target.
//   - replay.go: a history file run again against the target it names;
//     replaytcp.go, one of a broker by address; clientreplay.go, a
//     recording of client traffic judged again.
//   - kill.go: KillMutant, the kill table of `make mutate`.
//
// Tests: targets_test.go, snapshot_test.go, snapshotcache_test.go,
// replay_test.go, clientreplay_test.go, mutants_test.go.
package targets

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/plan"
)

// New builds the named target ("model" or "impl") for plan p, with an
// optional mutant (only impl has mutants).
func New(name string, p plan.Plan, mutant string) (driver.Target, error) {
	switch name {
	case "impl":
		return NewImpl(p, mutant)
	case "model":
		if mutant != "" {
			return nil, fmt.Errorf("target model has no mutants (%q); use --target impl", mutant)
		}
		return NewModelTarget(p.ModelConfig()), nil
	}
	return nil, fmt.Errorf("unknown target %q (known: %v)", name, Names())
}

// Names lists the known targets, in order; New has a case for each.
func Names() []string { return []string{"impl", "model"} }
