// Package targets builds the in-process coordinators ghostcheck checks (the
// reference model and the optimized impl) as linearize targets, configured
// from a plan. It is the glue the command and the corpus replay share; the
// linearize package itself knows only its Target interface.
//
// The files:
//
//   - targets.go: New and Names, a target by its name.
//   - impl.go: impl as a target, with a mutant planted (NewImpl,
//     ImplConfig, ModelSnapshot).
//   - replay.go: Replay, a history file run again, and CorpusFiles.
//   - replaytcp.go: a history of ghostcheck check run again against a
//     broker.
//   - clientreplay.go: a recording of clients judged again.
//   - kill.go: KillMutant and the kill table of make mutate.
package targets

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/linearize"
)

// New builds the named target ("model" or "impl") for plan, with an
// optional mutant (only impl has mutants).
func New(name string, plan linearize.Plan, mutant string) (linearize.Target, error) {
	switch name {
	case "impl":
		return NewImpl(plan, mutant)
	case "model":
		if mutant != "" {
			return nil, fmt.Errorf("target model has no mutants (%q); use --target impl", mutant)
		}
		return linearize.NewModelTarget(plan.ModelConfig()), nil
	}
	return nil, fmt.Errorf("unknown target %q (known: %v)", name, Names())
}

// Names lists the known targets, in order; New has a case for each.
func Names() []string { return []string{"impl", "model"} }
