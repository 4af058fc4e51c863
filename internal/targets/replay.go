package targets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/linearize"
	"github.com/ghostcheck/ghostcheck/model"
)

// ReplayResult is what replaying one corpus file showed.
type ReplayResult struct {
	Path   string
	Target string
	Mutant string
	Expect linearize.Expect
	// Got is the verdict of re-running the plan against the target.
	Got linearize.Expect
	// Detail explains Got.
	Detail string
	// Stored is the linearizability of the history stored in the file.
	Stored string
	// Pass: the re-run reproduced the expected verdict and rule.
	Pass bool
	// Header, Run and Report are the file's header, the re-run and its
	// verdict, for a report page.
	Header linearize.FileHeader
	Run    *linearize.Result
	Report *linearize.Report
	// Clients is, for a recording of client traffic, each client's
	// outcome per rule as judged again.
	Clients []model.ClientResult
}

// ReplayFile re-runs the plan stored in a corpus history file against its
// target (or target, when non-empty) and compares the verdict with the one
// the file expects. It also checks the stored history itself, so a file
// whose recorded operations contradict its expected verdict is caught. A
// recording of client traffic is re-checked instead (target is ignored).
func ReplayFile(path, target string) (ReplayResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return ReplayResult{Path: path}, err
	}
	defer f.Close()
	hdr, h, err := linearize.ReadFile(f)
	if errors.Is(err, linearize.ErrClientRecording) {
		return replayClientFile(path)
	}
	if err != nil {
		return ReplayResult{Path: path}, fmt.Errorf("%s: %w", path, err)
	}
	rr := ReplayResult{Path: path, Target: hdr.Target, Mutant: hdr.Mutant, Expect: hdr.Expect, Header: hdr}
	if target != "" {
		rr.Target = target
	}
	t, err := New(rr.Target, hdr.Plan, hdr.Mutant)
	if err != nil {
		return rr, err
	}
	res, err := linearize.Run(t, hdr.Plan)
	if err != nil {
		return rr, err
	}
	rep := linearize.Check(res, linearize.CheckOptions{Timeout: 30 * time.Second})
	rr.Run, rr.Report = res, rep
	rr.Got = linearize.Expect{Verdict: rep.Verdict, Rule: rep.Rule}
	rr.Detail = rep.Detail
	stored := linearize.CheckHistory(hdr.Plan, h, linearize.CheckOptions{Timeout: 30 * time.Second})
	rr.Stored = string(stored.Linearizable)
	rr.Pass = rr.Got.Verdict == rr.Expect.Verdict && (rr.Expect.Rule == "" || rr.Got.Rule == rr.Expect.Rule)
	// The stored operations must check as the file says they do (a
	// passing file's history must be linearizable).
	want := rr.Expect.Linearizable
	if want == "" && rr.Expect.Verdict == linearize.Ok {
		want = "Ok"
	}
	if want != "" && rr.Stored != want {
		rr.Pass = false
		rr.Detail = fmt.Sprintf("the stored history checks %s against the model, the file says %s (%s)", rr.Stored, want, stored.Mismatch)
	}
	return rr, nil
}

// CorpusFiles lists the .jsonl history files of the given files and
// directories (directories are walked), in order.
func CorpusFiles(paths ...string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}
