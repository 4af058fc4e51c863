package linearize

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Rates are fault probabilities in percent, by fault name, as a --faults
// flag gives them. One grammar, read by RateGrammar.Parse, serves every
// command that takes one (run and check with the network's fault kinds,
// proxy with its own): "none" (or nothing), or NAME=PERCENT pairs joined by
// commas, where NAME is a fault or a group that spreads PERCENT over its
// faults ("uniform=10"); a name given twice adds up.

// RateGrammar is what a --faults flag may name and how much it may add up
// to.
type RateGrammar struct {
	// Kinds are the faults, in the order errors list them.
	Kinds []string
	// Groups spread a percentage over faults, by the group's name.
	Groups map[string]func(percent int) map[string]int
	// Max caps the total; Why, when set, says why in the error.
	Max int
	Why string
}

// Parse reads a --faults value.
func (g RateGrammar) Parse(spec string) (map[string]int, error) {
	out := map[string]int{}
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "none" {
		return out, nil
	}
	for _, part := range strings.Split(spec, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		pct, err := strconv.Atoi(val)
		if !ok || err != nil || pct < 0 || pct > 100 {
			return nil, fmt.Errorf("--faults: %q: want KIND=PERCENT", part)
		}
		if spread, ok := g.Groups[name]; ok {
			for k, v := range spread(pct) {
				out[k] += v
			}
			continue
		}
		if !slices.Contains(g.Kinds, name) {
			return nil, fmt.Errorf("--faults: unknown kind %q (kinds: %s)", name, strings.Join(g.names(), ", "))
		}
		out[name] += pct
	}
	total := 0
	for _, v := range out {
		total += v
	}
	if total > g.Max {
		why := ""
		if g.Why != "" {
			why = " (" + g.Why + ")"
		}
		return nil, fmt.Errorf("--faults: the rates add up to %d %%, more than %d %%%s", total, g.Max, why)
	}
	return out, nil
}

// names are the kinds and then the groups, sorted.
func (g RateGrammar) names() []string {
	out := append([]string(nil), g.Kinds...)
	var groups []string
	for n := range g.Groups {
		groups = append(groups, n)
	}
	slices.Sort(groups)
	return append(out, groups...)
}

// faultRates is the grammar of run's and check's --faults: the network's
// fault kinds, uniform=N (UniformFaults), at most 33 % in all.
var faultRates = RateGrammar{
	Kinds: func() []string {
		var ks []string
		for _, k := range FaultKinds() {
			ks = append(ks, string(k))
		}
		return ks
	}(),
	Groups: map[string]func(int) map[string]int{"uniform": func(pct int) map[string]int {
		out := map[string]int{}
		for k, v := range UniformFaults(pct) {
			out[string(k)] = v
		}
		return out
	}},
	Max: 33,
	Why: "early requests get three times the rate",
}

// ParseFaultRates reads run's and check's --faults:
// "lost-response=5,duplicate=2", "uniform=10" or "none".
func ParseFaultRates(spec string) (map[FaultKind]int, error) {
	r, err := faultRates.Parse(spec)
	if err != nil {
		return nil, err
	}
	out := make(map[FaultKind]int, len(r))
	for k, v := range r {
		out[FaultKind(k)] = v
	}
	return out, nil
}
