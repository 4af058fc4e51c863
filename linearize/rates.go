package linearize

import "github.com/ghostcheck/ghostcheck/internal/rates"

// faultRates is the grammar of run's and check's --faults: the network's
// fault kinds, uniform=N (UniformFaults), at most 33 % in all.
var faultRates = rates.Grammar{
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
