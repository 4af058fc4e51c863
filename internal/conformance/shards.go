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
// running them on several brokers side by side, each broker as Run runs
// one list: one case at a time, a crash giving that broker's later cases a
// fresh broker each. RunShards does that; the verdicts are the cases' own,
// as in one run (a case never shares a broker with a case running at the
// same time).

// A Shard is the broker one shard of the cases runs against: the peer
// and the options of its Run (Options.Broker, when given, must be the
// shard's own).
type Shard struct {
	Peer    Peer
	Options Options
}

// RunShards runs cases on n shards side by side, each taking the next case
// of the list not yet taken when it is done with one (so a shard held up
// by a slow case takes fewer), against the broker start(k) gives shard k,
// called once per shard before any case runs; an Options.Progress sees one
// result at a time. A case keeps its position in the list (which picks its
// broker in a cluster when no group does). The
// report has the results in the cases' order; its negotiation and holding
// are shard 0's; it stopped when a shard stopped (a shard's broker stopped
// answering and it had no launcher: the other shards go on with the rest),
// and NotRun lists, in order, the cases no shard ran. The first error a
// start or a Run returns is returned, once every shard has ended.
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
	if len(cases) == 0 {
		return Run(shards[0].Peer, nil, shards[0].Options)
	}
	// A Progress sees one result at a time, as in one run.
	var progress sync.Mutex
	for k := range shards {
		if f := shards[k].Options.Progress; f != nil {
			shards[k].Options.Progress = func(r Result) {
				progress.Lock()
				defer progress.Unlock()
				f(r)
			}
		}
	}
	q := &sharedList{list: caseList{cases: cases}}
	reps := make([]*Report, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[k], errs[k] = run(shards[k].Peer, q, false, shards[k].Options)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return mergeShards(reps, cases), nil
}

// sharedList is a list's queue shared by the shards: a stopped shard
// leaves the rest to the others.
type sharedList struct {
	mu   sync.Mutex
	list caseList
}

func (s *sharedList) next() (int, Case, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list.next()
}

func (s *sharedList) rest() []Case { return nil }

// mergeShards puts the shards' results back in the cases' order.
func mergeShards(reps []*Report, cases []Case) *Report {
	out := &Report{Negotiation: reps[0].Negotiation, Versions: reps[0].Versions, Held: reps[0].Held}
	var stopped []string
	at := make([]*Result, len(cases))
	for k, r := range reps {
		if r.Stopped != "" {
			stopped = append(stopped, fmt.Sprintf("shard %d: %s", k, r.Stopped))
		}
		for j := range r.Results {
			at[r.positions[j]] = &r.Results[j]
		}
	}
	out.Stopped = strings.Join(stopped, "; ")
	for i, r := range at {
		if r != nil {
			out.Results = append(out.Results, *r)
		} else {
			out.NotRun = append(out.NotRun, cases[i].Name)
		}
	}
	return out
}
