package rates

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Grammar is what a --faults flag may name and how much it may add up
// to.
type Grammar struct {
	// Kinds are the faults, in the order errors list them.
	Kinds []string
	// Groups spread a percentage over faults, by the group's name.
	Groups map[string]func(percent int) map[string]int
	// Max caps the total; Why, when set, says why in the error.
	Max int
	Why string
}

// Parse reads a --faults value.
func (g Grammar) Parse(spec string) (map[string]int, error) {
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
func (g Grammar) names() []string {
	out := append([]string(nil), g.Kinds...)
	var groups []string
	for n := range g.Groups {
		groups = append(groups, n)
	}
	slices.Sort(groups)
	return append(out, groups...)
}
