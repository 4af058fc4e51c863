package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/wire"
)

// replayConfig is what `ghostcheck replay` was asked to do.
type replayConfig struct {
	opts targets.ReplayOptions
	// conn are --bootstrap and its security flags.
	conn   brokerFlags
	html   bool
	out    string
	asJSON bool
	paths  []string
}

// replayUsage is replay's help after its usage line.
const replayUsage = `Re-runs histories and checks that each reproduces the verdict it stores: the corpus, and whatever
run, check and proxy wrote. A history of ghostcheck check (its target a broker's address) runs against
the broker --bootstrap names, at the observable level; a recording of client traffic (proxy) is judged
again; a history ghostchecktest wrote in a go test is replayed by that go test (the error says how).

Each file: ok (reproduced), FAIL (a different verdict), FIXED (it recorded a failure and now checks Ok:
the bug is fixed) or ERROR (it cannot be replayed: no operations, a target ghostcheck cannot build).
Exit 0 when every history reproduced, 1 when one failed or could not be replayed, 3 when none failed
and some are fixed, 2 on bad usage.
`

func runReplay(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cfg, code := parseReplayFlags(args, stderr)
	if code >= 0 {
		return code
	}
	files, err := targets.CorpusFiles(cfg.paths...)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck replay:", err)
		return exitFailed
	}
	if code := cfg.reachable(stderr); code >= 0 {
		return code
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "ghostcheck replay: no .jsonl histories found in", strings.Join(cfg.paths, " "))
		return exitFailed
	}
	var rows []replayRow
	for _, f := range files {
		row := replayOne(cfg, f, stdout, stderr)
		rows = append(rows, row)
	}
	sum := summarizeReplay(rows)
	if cfg.asJSON {
		printReplayJSON(stdout, cfg, rows, sum)
	} else {
		fmt.Fprintln(stdout, sum.line())
	}
	return sum.exit()
}

func parseReplayFlags(args []string, stderr io.Writer) (replayConfig, int) {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg replayConfig
	fs.StringVar(&cfg.opts.Target, "target", "", "replay against this target instead of the one each file names ("+strings.Join(targets.Names(), ", ")+")")
	cfg.conn.register(fs, "bootstrap", "the broker or cluster that histories of ghostcheck check run against again (configured with the timers the file holds)")
	fs.BoolVar(&cfg.html, "html", false, "also write each replayed history's report page (NAME.html, with its timeline and history) into --out")
	fs.StringVar(&cfg.out, "out", "out", "directory for the pages --html writes")
	fs.BoolVar(&cfg.asJSON, "json", false, "print the results as JSON (schema ghostcheck/replay/v1)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck replay [--target T | --bootstrap HOST:PORT] [--html [--out DIR]] [--json] FILE|DIR...")
		fmt.Fprint(stderr, replayUsage)
		fs.PrintDefaults()
	}
	if code := parseFlags(fs, args); code >= 0 {
		return cfg, code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return cfg, exitUsage
	}
	if t := cfg.opts.Target; t != "" && !slices.Contains(targets.Names(), t) {
		return cfg, usageErr(stderr, "replay", "--target %q: ghostcheck builds %s; a broker is replayed with --bootstrap HOST:PORT, a coordinator of your own by its go test (ghostchecktest)",
			t, strings.Join(targets.Names(), " and "))
	}
	cfg.paths = fs.Args()
	cfg.opts.Bootstrap = cfg.conn.addrs()
	var err error
	if cfg.opts.Dialer, err = cfg.conn.dialer(stderr); err != nil {
		return cfg, usageErr(stderr, "replay", "%v", err)
	}
	return cfg, -1
}

// reachable connects to the cluster --bootstrap names, if any, before
// any history is replayed: credentials or certificates it refuses end the
// command at once (exit 2), not one ERROR per file.
func (cfg replayConfig) reachable(stderr io.Writer) int {
	if len(cfg.opts.Bootstrap) == 0 {
		return -1
	}
	d := cfg.opts.Dialer
	d.Timeout = 5 * time.Second
	cl, err := wire.Connect(context.Background(), cfg.opts.Bootstrap, wire.ClusterOptions{Dialer: d, ClientID: "ghostcheck-replay"})
	if err != nil {
		return dialFailed(stderr, "replay", err)
	}
	cl.Close()
	return -1
}

// replayRow is one file's outcome, as --json prints it.
type replayRow struct {
	Path     string          `json:"path"`
	Target   string          `json:"target,omitempty"`
	Mutant   string          `json:"mutant,omitempty"`
	Status   string          `json:"status"` // ok, FAIL, FIXED, ERROR
	Expected *history.Expect `json:"expected,omitempty"`
	Got      *history.Expect `json:"got,omitempty"`
	Level    string          `json:"level,omitempty"`
	Detail   string          `json:"detail,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// replayOne replays one file, prints its line (unless --json) and writes
// its page (--html).
func replayOne(cfg replayConfig, f string, stdout, stderr io.Writer) replayRow {
	rr, err := targets.Replay(f, cfg.opts)
	row := replayRow{Path: f, Target: rr.Target, Mutant: rr.Mutant}
	if err != nil {
		// Errors name their file; the line already does.
		row.Status, row.Error = "ERROR", strings.TrimPrefix(err.Error(), f+": ")
		if !cfg.asJSON {
			fmt.Fprintf(stdout, "ERROR %s: %s\n", f, row.Error)
		}
		return row
	}
	exp, got := rr.Expect, rr.Got
	row.Expected, row.Got, row.Detail = &exp, &got, rr.Detail
	if rr.Report != nil {
		row.Level = rr.Report.Level.String()
	}
	switch {
	case rr.Pass:
		row.Status = "ok"
	case rr.Fixed:
		row.Status = "FIXED"
	default:
		row.Status = "FAIL"
	}
	if !cfg.asJSON {
		printReplay(stdout, f, rr)
	}
	if cfg.html {
		writeReplayPage(rr, cfg.out, stdout, stderr)
	}
	return row
}

// printReplay prints one file's outcome.
func printReplay(stdout io.Writer, f string, rr targets.ReplayResult) {
	what := rr.Target
	if rr.Mutant != "" {
		what += ", mutant " + rr.Mutant
	}
	switch {
	case rr.Pass:
		fmt.Fprintf(stdout, "ok    %s (%s): %s %s\n", f, what, rr.Got.Verdict, rr.Got.Rule)
	case rr.Fixed:
		fmt.Fprintf(stdout, "FIXED %s (%s): now Ok; it recorded %s %s: the bug is fixed (update or retire the file)\n", f, what, rr.Expect.Verdict, rr.Expect.Rule)
	default:
		fmt.Fprintf(stdout, "FAIL  %s (%s): expected %s %s, got %s %s\n      %s\n", f, what, rr.Expect.Verdict, rr.Expect.Rule, rr.Got.Verdict, rr.Got.Rule, rr.Detail)
	}
}

// replaySummary counts the files by outcome.
type replaySummary struct {
	Total      int `json:"total"`
	Reproduced int `json:"reproduced"`
	Fixed      int `json:"fixed"`
	Failed     int `json:"failed"`
	Errors     int `json:"errors"`
}

func summarizeReplay(rows []replayRow) replaySummary {
	s := replaySummary{Total: len(rows)}
	for _, r := range rows {
		switch r.Status {
		case "ok":
			s.Reproduced++
		case "FIXED":
			s.Fixed++
		case "FAIL":
			s.Failed++
		default:
			s.Errors++
		}
	}
	return s
}

func (s replaySummary) line() string {
	line := fmt.Sprintf("%d of %d histories reproduced their verdict", s.Reproduced, s.Total)
	var more []string
	if s.Fixed > 0 {
		more = append(more, fmt.Sprintf("%d now Ok (fixed)", s.Fixed))
	}
	if s.Failed > 0 {
		more = append(more, fmt.Sprintf("%d failed", s.Failed))
	}
	if s.Errors > 0 {
		more = append(more, fmt.Sprintf("%d could not be replayed", s.Errors))
	}
	if len(more) > 0 {
		line += "; " + strings.Join(more, ", ")
	}
	return line
}

// exit: 1 when a file failed or could not be replayed, else 3 when some
// are fixed, else 0.
func (s replaySummary) exit() int {
	switch {
	case s.Failed > 0 || s.Errors > 0:
		return exitFailed
	case s.Fixed > 0:
		return exitFixed
	}
	return exitOK
}

// printReplayJSON prints the results, with the schema and the options.
func printReplayJSON(w io.Writer, cfg replayConfig, rows []replayRow, sum replaySummary) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	opts := map[string]any{"target": cfg.opts.Target, "bootstrap": strings.Join(cfg.opts.Bootstrap, ","), "html": cfg.html, "out": cfg.out,
		"paths": cfg.paths}
	cfg.conn.options(opts)
	_ = enc.Encode(map[string]any{
		"schema":     "ghostcheck/replay/v1",
		"options":    opts,
		"histories":  rows,
		"summary":    sum,
		"exitStatus": sum.exit(),
	})
}
