package counterexample

import "github.com/ghostcheck/ghostcheck/explore"

// The driver's phases: a round of the driver moves the clock (timers
// fire, a planned restart happens), delivers the answers due, has each
// process do its planned operations and then send what it has due, and
// delivers the requests sent. A trace moves within an instant in any
// order; a phased candidate keeps the trace's order by giving each step
// the first round, from its instant's on, whose phase for it comes no
// earlier than the step before's.
const (
	phaseClock = iota
	phaseAnswers
	phaseOperations
	phaseSends
	phaseRequests
)

// phaseOf is the phase of the driver's round in which a trace's step
// happens; -1 for one that is no step of the driver's (a delay: the
// message waits, which the step that moves it says).
func phaseOf(s explore.Step) int {
	switch s.Event {
	case "tick", "restart":
		return phaseClock
	case "join", "leave", "close", "crash", "disconnect", "admin":
		return phaseOperations
	case "send":
		return phaseSends
	case "deliver", "lose", "duplicate":
		if s.Answer {
			return phaseAnswers
		}
		return phaseRequests
	}
	return -1
}

// phase gives each step its round, and the rounds by which the driver
// must delay the message a delivery step moves (by the step's index): a
// request arrives in the round it is sent, unless the trace delivers it
// later; an answer in the round after the step that gave it, unless the
// trace delivers it later. Where a round is pushed past its instant's,
// every later step is pushed as much (drift), so that the time between
// steps is kept.
func phase(steps []explore.Step, rounds func(ms int64) int) ([]int, map[int]int) {
	at := make([]int, len(steps))
	delays := map[int]int{}
	type key struct{ client, process, request int }
	sent := map[key]int{}
	round, ph, drift := 0, phaseClock, 0
	for i, s := range steps {
		p := phaseOf(s)
		if p < 0 {
			at[i] = round
			continue
		}
		r := max(2+rounds(s.At)+drift, round)
		if r == round && p < ph {
			r++
		}
		if s.Answer && (s.Event == "deliver" || s.Event == "lose") {
			r = max(r, at[s.From]+1)
			if r == round && p < ph {
				r++
			}
			if s.Event == "deliver" {
				delays[i] = r - (at[s.From] + 1)
			}
		}
		if !s.Answer && s.Event == "deliver" {
			if k, ok := sent[key{s.Client, s.Process, s.Request}]; ok && r > k {
				delays[i] = r - k
			}
		}
		at[i], round, ph = r, r, p
		drift = max(drift, r-(2+rounds(s.At)))
		switch s.Event {
		case "join", "send", "leave", "close":
			// The requests sent by the step: up to Sent.
			for n := s.Sent; n > 0; n-- {
				k := key{s.Client, s.Process, n}
				if _, ok := sent[k]; ok {
					break
				}
				sent[k] = r
			}
		}
	}
	return at, delays
}

// faulted reports whether the trace has a fault on the message delivery
// step d moves (then the fault, not a delay of the driver's, is planned
// for it).
func faulted(steps []explore.Step, d explore.Step) bool {
	for _, s := range steps {
		switch s.Event {
		case "lose", "duplicate", "delay":
			if s.Client == d.Client && s.Process == d.Process && s.Request == d.Request && s.Answer == d.Answer {
				return true
			}
		}
	}
	return false
}
