package ghostchecktest

import (
	"fmt"
	"os"

	"github.com/ghostcheck/ghostcheck/history"
)

// replay runs the history in path again against a fresh target (the
// -ghostcheck.replay flag): the test passes when it now checks Ok (the
// bug it recorded is fixed) and fails while it does not, saying whether it
// fails as recorded or differently. A history written by another test is
// skipped, so that `go test ./... -ghostcheck.replay=FILE` runs it only
// where it belongs.
func (r *runner) replay(path string) *Outcome {
	r.t.Helper()
	r.out = &Outcome{}
	hdr, h, err := readHistory(path)
	if err != nil {
		r.t.Fatalf("ghostcheck: -ghostcheck.replay=%s: %v", path, err)
	}
	if hdr.Target != r.target() {
		r.t.Skipf("ghostcheck: -ghostcheck.replay=%s is a history of %q, not of this test (%s)", path, hdr.Target, r.target())
	}
	res, rep := r.check(hdr.Plan)
	r.seen(res, rep)
	was := verdictWords(hdr.Expect.Verdict, hdr.Expect.Rule)
	if rep.Verdict == history.Ok {
		r.t.Logf("ghostcheck: %s now checks Ok at the %s level (it recorded %s, %d operations): fixed", path, rep.Level, was, len(h))
		return r.out
	}
	f := &Failure{Seed: hdr.Plan.Seed, Verdict: string(rep.Verdict), Rule: rep.Rule, Explanation: rep.Detail, Level: rep.Level,
		History: path, Notes: rep.Notes, Replay: fmt.Sprintf("%s -ghostcheck.replay=%s", r.target(), path)}
	r.out.Failure = f
	how := "reproduced"
	if rep.Verdict != hdr.Expect.Verdict || rep.Rule != hdr.Expect.Rule {
		how = "it recorded " + was + ", and now fails differently"
	}
	r.t.Errorf("%s", r.message(f, fmt.Sprintf("replay of %s (%s)", path, how)))
	return r.out
}

// readHistory reads a history file, refusing one without operations: it
// would replay nothing, and pass.
func readHistory(path string) (history.FileHeader, history.History, error) {
	f, err := os.Open(path)
	if err != nil {
		return history.FileHeader{}, nil, err
	}
	defer f.Close()
	hdr, h, err := history.ReadFile(f)
	if err != nil {
		return hdr, nil, err
	}
	if len(h) == 0 {
		return hdr, nil, fmt.Errorf("the history holds no operations")
	}
	return hdr, h, nil
}

func verdictWords(v history.Verdict, rule string) string {
	if rule == "" {
		return string(v)
	}
	return string(v) + " " + rule
}
