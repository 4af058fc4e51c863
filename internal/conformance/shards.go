package conformance

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// A run of the suite mostly waits: on sessions running out, join phases,
// a broker that holds a request. Its cases are independent (each in groups
// of its own), so a test holds a broker to a long list of cases sooner by
// dealing them over several brokers side by side, each run as Run runs
// one list: in order, a crash giving that broker's later cases a fresh
// broker each. RunShards does that; the verdicts are the cases' own, as
// in one run (a case never shares a broker with a case running at the
// same time).

// A Shard is the broker one shard of the cases runs against: the peer
// and the options of its Run (Options.Broker, when given, must be the
// shard's own).
type Shard struct {
	Peer    Peer
	Options Options
}

// RunShards runs cases over n shards side by side: case i goes to shard
// i mod n (so the slow cases, which the suite lists together, spread over
// the shards), and each shard's cases run in order by Run against the
// broker start(k) gives shard k, called once per shard before any case
// runs. A case keeps its position in the whole list (which picks its
// broker in a cluster when no group does). The report has the results in
// the cases' order; its negotiation and holding are shard 0's; it stopped
// when a shard stopped (the cases left out are listed in order). The
// first error a start or a Run returns is returned, once every shard has
// ended.
func RunShards(n int, cases []Case, start func(k int) (Shard, error)) (*Report, error) {
	n = max(1, min(n, len(cases)))
	shards := make([]Shard, n)
	for k := range shards {
		s, err := start(k)
		if err != nil {
			return nil, fmt.Errorf("shard %d: %w", k, err)
		}
		shards[k] = s
	}
	reps := make([]*Report, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range shards {
		var own []Case
		var pos []int
		for i := k; i < len(cases); i += n {
			own, pos = append(own, cases[i]), append(pos, i)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[k], errs[k] = run(shards[k].Peer, own, pos, shards[k].Options)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return mergeShards(reps, cases), nil
}

// mergeShards puts the shards' reports back in the cases' order (case i
// was shard i mod n's i/n-th).
func mergeShards(reps []*Report, cases []Case) *Report {
	n := len(reps)
	out := &Report{Negotiation: reps[0].Negotiation, Versions: reps[0].Versions, Held: reps[0].Held}
	var stopped []string
	for k, r := range reps {
		if r.Stopped != "" {
			stopped = append(stopped, fmt.Sprintf("shard %d: %s", k, r.Stopped))
		}
	}
	out.Stopped = strings.Join(stopped, "; ")
	notRun := map[string]bool{}
	for _, r := range reps {
		for _, name := range r.NotRun {
			notRun[name] = true
		}
	}
	for i, c := range cases {
		r := reps[i%n]
		if j := i / n; j < len(r.Results) {
			out.Results = append(out.Results, r.Results[j])
		} else if notRun[c.Name] {
			out.NotRun = append(out.NotRun, c.Name)
		}
	}
	return out
}
