package clients_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
)

// What every real client's scenario here shares, consumer or classic: its
// world (kfake with ten records, the recording proxy in front of it), the
// verdicts of the recording, one fault injected once, and a client held
// to its known findings.

// proxyEnv is a scenario's world: kfake (opts) with ten records in alpha,
// the proxy in front of its first broker injecting faults, and a group id
// of the test's own.
type proxyEnv struct {
	t       *testing.T
	cluster *kfake.Cluster
	proxy   *proxy.Proxy
	group   string
	// target and client say what ran in the header of a recording kept
	// under GHOSTCHECK_RECORD, as file keepName (".jsonl" added).
	target, client, keepName string
}

func newProxyEnv(t *testing.T, faults proxy.Injector, opts ...kfake.Opt) *proxyEnv {
	t.Helper()
	cluster := kfaketest.Start(t, append([]kfake.Opt{kfake.SeedTopics(6, "alpha")}, opts...)...)
	produce(t, cluster.ListenAddrs())
	p, err := proxy.Start(proxy.Config{Listen: "127.0.0.1:0", Upstream: cluster.ListenAddrs()[0], Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return &proxyEnv{t: t, cluster: cluster, proxy: p, group: "g-" + strings.ReplaceAll(t.Name(), "/", "-")}
}

// verdicts closes the proxy and judges the recording: each client's
// results by ClientId, and the recording. With GHOSTCHECK_RECORD=DIR set,
// the recording is kept as DIR/keepName.jsonl with the verdict it replays
// to: that is how the corpus's client entries were made.
func (e *proxyEnv) verdicts() (map[string]rules.ClientResult, []rules.ClientRequest) {
	e.proxy.Close()
	reqs := e.proxy.Recording()
	results := rules.CheckClients(reqs)
	if dir := os.Getenv("GHOSTCHECK_RECORD"); dir != "" {
		e.keep(filepath.Join(dir, e.keepName+".jsonl"), reqs, results)
	}
	out := map[string]rules.ClientResult{}
	for _, c := range results {
		out[c.ClientID] = c
	}
	return out, reqs
}

// keep writes a recording and its verdict to path.
func (e *proxyEnv) keep(path string, reqs []rules.ClientRequest, results []rules.ClientResult) {
	f, err := os.Create(path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	hdr := history.ClientFileHeader{Target: e.target, Title: e.client + " through ghostcheck proxy: " + e.t.Name(),
		Expect: history.ClientExpect(results)}
	if err := history.WriteClientFile(f, hdr, reqs); err != nil {
		e.t.Fatal(err)
	}
	e.t.Logf("recording kept: %s", path)
}

// faulted fails the test unless the proxy applied exactly one fault.
func (e *proxyEnv) faulted() {
	e.t.Helper()
	if n := e.proxy.Stats().Faults; n != 1 {
		e.t.Errorf("%d faults applied, want 1", n)
	}
}

// onceFor faults the first group request pred accepts, once.
func onceFor(pred func(proxy.GroupRequest) bool, f proxy.Fault) proxy.Injector {
	var mu sync.Mutex
	done := false
	return proxy.InjectorFunc(func(r proxy.GroupRequest) proxy.Fault {
		mu.Lock()
		defer mu.Unlock()
		if !done && pred(r) {
			done = true
			return f
		}
		return proxy.Fault{}
	})
}

// finding is a rule a client breaks, and how.
type finding struct {
	id     string
	rule   rules.Rule
	detail string // a substring of the violation's detail: what the client did
	// maybe: the timing decides whether the scenario shows it (the
	// second of two fencing processes), so its absence is no failure.
	maybe bool
}

// mayShow is f where the timing decides whether it shows.
func (f finding) mayShow() finding { f.maybe = true; return f }

// expectFindings holds a client's results to its findings: every
// violation one of them, and each of them reproduced (unless it may not
// show).
func expectFindings(t *testing.T, c rules.ClientResult, findings []finding) {
	t.Helper()
	if c.Requests == 0 {
		t.Fatal("no traffic recorded for the client")
	}
	want := map[rules.Rule]finding{}
	for _, f := range findings {
		want[f.rule] = f
	}
	for _, r := range c.Results {
		f, known := want[r.Rule]
		switch {
		case known && f.maybe && r.Outcome != rules.OutcomeViolated:
			t.Logf("finding %s (%s) did not show this time: %s %s", f.id, r.Rule, r.Outcome, r.Detail)
		case known && (r.Outcome != rules.OutcomeViolated || !strings.Contains(r.Detail, f.detail)):
			t.Errorf("finding %s (%s) did not reproduce: %s %s; want VIOLATED with %q", f.id, r.Rule, r.Outcome, r.Detail, f.detail)
		case known:
			t.Logf("known finding %s: %s: %s", f.id, r.Rule, r.Detail)
		case r.Outcome == rules.OutcomeViolated:
			t.Errorf("%s: a new violation: %s", r.Rule, r.Detail)
		}
	}
}
