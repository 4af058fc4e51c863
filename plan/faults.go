package plan

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/internal/rates"
)

// FaultKind is a way the simulated network mistreats one request.
type FaultKind string

// The network faults.
const (
	// LostRequest: the request never reaches the coordinator.
	LostRequest FaultKind = "lost-request"
	// LostResponse: the coordinator processes the request, the client
	// never sees the response (it times out and retries with the same id).
	LostResponse FaultKind = "lost-response"
	// Duplicate: the request is delivered twice.
	Duplicate FaultKind = "duplicate"
	// DelayRequest: the request reaches the coordinator Delay rounds late,
	// after requests sent later on other connections.
	DelayRequest FaultKind = "delay-request"
	// DelayResponse: the response reaches the client Delay rounds late.
	DelayResponse FaultKind = "delay-response"
)

// FaultKinds lists every network fault kind.
func FaultKinds() []FaultKind {
	return []FaultKind{LostRequest, LostResponse, Duplicate, DelayRequest, DelayResponse}
}

// ParseFaultKind accepts a fault kind's name.
func ParseFaultKind(s string) (FaultKind, error) {
	for _, k := range FaultKinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown fault %q (known: %v)", s, FaultKinds())
}

// Fault applies to one request: the Request-th (1-based) a process sends.
type Fault struct {
	Client  int       `json:"client"`
	Request int       `json:"request"`
	Kind    FaultKind `json:"kind"`
	Delay   int       `json:"delay,omitempty"` // rounds, for the delay kinds
}

// UniformFaults spreads percent evenly over every fault kind.
func UniformFaults(percent int) map[FaultKind]int {
	m := map[FaultKind]int{}
	for _, k := range FaultKinds() {
		m[k] = percent / len(FaultKinds())
		if m[k] == 0 && percent > 0 {
			m[k] = 1
		}
	}
	return m
}

// OnlyFault puts percent on one fault kind.
func OnlyFault(k FaultKind, percent int) map[FaultKind]int { return map[FaultKind]int{k: percent} }

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

// drawFaults draws at most one fault for each of a client's first
// requests (about one request per client per two rounds), at the rates of
// rate; a client's first four requests are hit three times as often.
func drawFaults(d drawer, rate map[FaultKind]int, clients, rounds int) []Fault {
	total := 0
	for _, k := range FaultKinds() {
		total += rate[k]
	}
	if total <= 0 {
		return nil
	}
	var out []Fault
	perClient := rounds / 2
	for ci := 0; ci < clients; ci++ {
		for req := 1; req <= perClient; req++ {
			scale := 1
			if req <= 4 {
				scale = 3
			}
			roll := d.intn("fault?", 100)
			for _, k := range FaultKinds() {
				pct := rate[k] * scale
				if roll >= pct {
					roll -= pct
					continue
				}
				f := Fault{Client: ci, Request: req, Kind: k}
				if k == DelayRequest || k == DelayResponse {
					f.Delay = 1 + d.intn("delay", 4)
				}
				out = append(out, f)
				break
			}
		}
	}
	return out
}
