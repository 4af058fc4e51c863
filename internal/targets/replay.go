package targets

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/wire"
)

// ReplayResult is what replaying one corpus file showed.
type ReplayResult struct {
	Path   string
	Target string
	Mutant string
	Expect history.Expect
	// Got is the verdict of re-running the plan against the target.
	Got history.Expect
	// Detail explains Got.
	Detail string
	// Stored is the linearizability of the history stored in the file.
	Stored string
	// Pass: the re-run reproduced the expected verdict and rule.
	Pass bool
	// Fixed: the file recorded a failure and its plan now checks Ok (the
	// bug it recorded is gone). Pass is false: the file no longer shows
	// what it says, which is news, not an error.
	Fixed bool
	// Header, Run and Report are the file's header, the re-run and its
	// verdict, for a report page.
	Header history.FileHeader
	Run    *driver.Result
	Report *check.Report
	// Clients is, for a recording of client traffic, each client's
	// outcome per rule as judged again.
	Clients []rules.ClientResult
}

// ReplayOptions say what to replay a history against.
type ReplayOptions struct {
	// Target, when set, replaces the target the file names (one of
	// Names).
	Target string
	// Bootstrap are the addresses of the broker or cluster (HOST:PORT)
	// that a history of a broker reached by address (ghostcheck check's,
	// whose target is an address or a list of them) runs against again;
	// other histories ignore it.
	Bootstrap []string
	// Dialer makes the connections to it (TLS, SASL).
	Dialer wire.Dialer
	// Timeout bounds each check's linearizability search (0: 30 s).
	Timeout time.Duration
}

// ReplayFile re-runs the plan stored in a corpus history file against its
// target (or target, when non-empty); see Replay.
func ReplayFile(path, target string) (ReplayResult, error) {
	return Replay(path, ReplayOptions{Target: target})
}

// Replay re-runs the plan stored in a history file and compares the
// verdict with the one the file expects. A plan of ghostcheck's own
// targets (impl, model) runs against a fresh one, and the stored history
// is checked too, so a file whose recorded operations contradict its
// expected verdict is caught; a plan that ran against a broker by address
// runs against opts.Bootstrap at the observable level; a recording of
// client traffic is re-checked (targets are ignored). A file without
// operations, and a history of a coordinator ghostcheck cannot build (one
// a go test wrote through ghostchecktest, which says how to replay it),
// are errors.
func Replay(path string, opts ReplayOptions) (ReplayResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return ReplayResult{Path: path}, err
	}
	defer f.Close()
	hdr, h, err := history.ReadFile(f)
	if errors.Is(err, history.ErrClientRecording) {
		return replayClientFile(path)
	}
	if err != nil {
		return ReplayResult{Path: path}, fmt.Errorf("%s: %w", path, err)
	}
	rr := ReplayResult{Path: path, Target: hdr.Target, Mutant: hdr.Mutant, Expect: hdr.Expect, Header: hdr}
	if len(h) == 0 {
		return rr, fmt.Errorf("%s: the history holds no operations: nothing to replay", path)
	}
	if opts.Target != "" {
		rr.Target = opts.Target
	}
	switch {
	case slices.Contains(Names(), rr.Target):
		return replayBuilt(rr, h, opts)
	case strings.HasPrefix(rr.Target, "go test "):
		abs, _ := filepath.Abs(path)
		return rr, fmt.Errorf("%s: a history of a coordinator of your own, written by ghostchecktest in a go test: replay it there: %s -ghostcheck.replay=%s", path, rr.Target, abs)
	case isAddress(rr.Target) && len(opts.Bootstrap) > 0:
		return replayTCP(rr, opts)
	case isAddress(rr.Target):
		p := hdr.Plan
		return rr, fmt.Errorf("%s: a history of ghostcheck check against the broker at %s: replay it against a running broker with --bootstrap HOST:PORT (configured as it was: session timeout %d ms, heartbeat interval %d ms)",
			path, rr.Target, brokerSessionMs(p), p.HeartbeatIntervalMs)
	}
	return rr, fmt.Errorf("%s: target %q is not one ghostcheck builds (%s) nor a broker's address", path, rr.Target, strings.Join(Names(), ", "))
}

// replayBuilt re-runs the plan against a fresh target of ghostcheck's own.
func replayBuilt(rr ReplayResult, h history.History, opts ReplayOptions) (ReplayResult, error) {
	hdr := rr.Header
	t, err := New(rr.Target, hdr.Plan, hdr.Mutant)
	if err != nil {
		return rr, err
	}
	res, err := driver.Run(t, hdr.Plan)
	if err != nil {
		return rr, err
	}
	rep := check.Check(res, check.Options{Timeout: opts.timeout()})
	rr.settle(res, rep)
	stored := check.History(hdr.Plan, h, check.Options{Timeout: opts.timeout()})
	rr.Stored = string(stored.Linearizable)
	// The stored operations must check as the file says they do (a
	// passing file's history must be linearizable).
	want := rr.Expect.Linearizable
	if want == "" && rr.Expect.Verdict == history.Ok {
		want = "Ok"
	}
	if want != "" && rr.Stored != want {
		rr.Pass, rr.Fixed = false, false
		rr.Detail = fmt.Sprintf("the stored history checks %s against the model, the file says %s (%s)", rr.Stored, want, stored.Mismatch)
	}
	return rr, nil
}

// settle records the re-run's verdict and whether it reproduced the
// file's, or shows the recorded failure fixed.
func (rr *ReplayResult) settle(res *driver.Result, rep *check.Report) {
	rr.Run, rr.Report = res, rep
	rr.Got = history.Expect{Verdict: rep.Verdict, Rule: rep.Rule}
	rr.Detail = rep.Detail
	rr.Pass = rr.Got.Verdict == rr.Expect.Verdict && (rr.Expect.Rule == "" || rr.Got.Rule == rr.Expect.Rule)
	rr.Fixed = rr.Expect.Verdict != history.Ok && rr.Got.Verdict == history.Ok
}

func (o ReplayOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return 30 * time.Second
	}
	return o.Timeout
}

// isAddress reports whether a history's target is a broker's HOST:PORT.
func isAddress(target string) bool {
	for _, a := range strings.Split(target, ",") {
		host, port, err := net.SplitHostPort(a)
		if err != nil || host == "" || port == "" {
			return false
		}
	}
	return true
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
