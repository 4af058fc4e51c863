package targets

import (
	"fmt"
	"os"
	"sort"

	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// replayClientFile re-checks a recording of client traffic (ghostcheck
// proxy's, history.KindClients): the client rules are judged again on
// the recorded requests, and the verdict and every client's outcome per
// rule must be the ones the file stores. Nothing is re-run: a recording is
// what a real client did, and it is the evidence.
func replayClientFile(path string) (ReplayResult, error) {
	rr := ReplayResult{Path: path, Target: "recorded clients"}
	f, err := os.Open(path)
	if err != nil {
		return rr, err
	}
	defer f.Close()
	hdr, reqs, err := history.ReadClientFile(f)
	if err != nil {
		return rr, fmt.Errorf("%s: %w", path, err)
	}
	rr.Target = "recorded clients, " + hdr.Target
	if len(reqs) == 0 {
		return rr, fmt.Errorf("%s: the recording holds no requests: nothing to judge", path)
	}
	rr.Expect = hdr.Expect
	rr.Clients = rules.CheckClients(reqs)
	got := history.ClientExpect(rr.Clients)
	rr.Got = history.Expect{Verdict: got.Verdict, Rule: got.Rule}
	rr.Detail = fmt.Sprintf("%d requests of %d clients", len(reqs), len(rr.Clients))
	rr.Pass = got.Verdict == hdr.Expect.Verdict && got.Rule == hdr.Expect.Rule
	if hdr.Expect.Clients != nil {
		if diff := outcomeDiff(hdr.Expect.Clients, got.Clients); diff != "" {
			rr.Pass, rr.Detail = false, diff
		}
	}
	return rr, nil
}

// outcomeDiff names the first client and rule whose outcome differs
// between want and got ("" when they agree).
func outcomeDiff(want, got map[string]map[string]string) string {
	var clients []string
	for c := range want {
		clients = append(clients, c)
	}
	for c := range got {
		if _, ok := want[c]; !ok {
			clients = append(clients, c)
		}
	}
	sort.Strings(clients)
	for _, c := range clients {
		w, g := want[c], got[c]
		if w == nil || g == nil {
			return fmt.Sprintf("client %s: expected %v, got %v", c, w != nil, g != nil)
		}
		var ids []string
		for r := range w {
			ids = append(ids, r)
		}
		for r := range g {
			if _, ok := w[r]; !ok {
				ids = append(ids, r)
			}
		}
		sort.Strings(ids)
		for _, r := range ids {
			if w[r] != g[r] {
				return fmt.Sprintf("client %s, rule %s: expected %q, got %q", c, r, w[r], g[r])
			}
		}
	}
	return ""
}
