// Package targets builds the in-process coordinators ghostcheck checks (the
// reference model and the optimized impl) as linearize targets, configured
// from a plan. It is the glue the command and the corpus replay share; the
// linearize package itself knows only its Target interface.
package targets

import (
	"fmt"
	"sort"

	"github.com/ghostcheck/ghostcheck/linearize"
)

// Builder makes a fresh target for a plan, with an optional mutant (only
// impl has mutants).
type Builder func(plan linearize.Plan, mutant string) (linearize.Target, error)

var builders = map[string]Builder{
	"model": func(plan linearize.Plan, mutant string) (linearize.Target, error) {
		if mutant != "" {
			return nil, fmt.Errorf("target model has no mutants (%q); use --target impl", mutant)
		}
		return linearize.NewModelTarget(plan.ModelConfig()), nil
	},
}

// New builds the named target ("model" or "impl") for plan.
func New(name string, plan linearize.Plan, mutant string) (linearize.Target, error) {
	b, ok := builders[name]
	if !ok {
		return nil, fmt.Errorf("unknown target %q (known: %v)", name, Names())
	}
	return b(plan, mutant)
}

// Names lists the known targets.
func Names() []string {
	var out []string
	for n := range builders {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
