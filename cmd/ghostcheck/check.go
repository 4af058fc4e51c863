package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ghostcheck/ghostcheck/docs"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/linearize"
)

// checkConfig is what `ghostcheck check` was asked to do.
type checkConfig struct {
	peer     conformance.Peer
	prefixes []string // case name prefixes; none: every case
	risky    bool
	// hist is the history run; hist.Histories 0 runs none.
	hist   conformance.HistoryConfig
	asJSON bool
}

func parseCheckFlags(args []string, stderr io.Writer) (checkConfig, int) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg checkConfig
	p := &cfg.peer
	fs.StringVar(&p.Addr, "bootstrap", "", "the broker to check, HOST:PORT (required)")
	fs.DurationVar(&p.SessionTimeout, "session-timeout", 0, "the broker's consumer session timeout; needed by the session cases and the history run (keep it short, e.g. 1s)")
	fs.DurationVar(&p.HeartbeatInterval, "heartbeat-interval", 0, "the broker's consumer heartbeat interval; needed by the history run")
	fs.IntVar(&p.MaxGroupSize, "max-group-size", 0, "the broker's group.consumer.max.size, for the size-cap case (0: skip it)")
	fs.StringVar(&p.Topic, "topic", "alpha", "a topic the broker has, for subscriptions")
	cases := fs.String("cases", "", "run only cases whose names start with one of these, comma-separated (e.g. A1,B4.2)")
	fs.BoolVar(&cfg.risky, "risky", true, "run the cases that may crash a broker that mishandles them (after everything else)")
	fs.IntVar(&cfg.hist.Histories, "histories", 2, "fault-injected histories to run after the suite (0: none)")
	fs.Uint64Var(&cfg.hist.Seed, "seed", 1, "first history's seed")
	cfg.hist.Options = conformance.DefaultHistoryOptions()
	fs.IntVar(&cfg.hist.Options.Clients, "clients", 6, "client processes per history")
	fs.IntVar(&cfg.hist.Options.Rounds, "rounds", 40, "rounds of 50 ms real time per history")
	faults := fs.String("faults", "uniform=10", "fault rates per request, as for ghostcheck run")
	fs.StringVar(&cfg.hist.Out, "out", "out", "directory for failing histories")
	fs.BoolVar(&cfg.asJSON, "json", false, "print results as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck check --bootstrap HOST:PORT [flags]")
		fmt.Fprintln(stderr, "Runs the conformance suite (one case per rule of docs/PROTOCOL.md A1-A3, §B4.2, §B4.4, §B5) against a broker,")
		fmt.Fprintln(stderr, "then fault-injected client histories checked at the observable level. Exit 1 if anything fails;")
		fmt.Fprintln(stderr, "each failure names its rule, which 'ghostcheck explain' prints.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, 0
		}
		return cfg, 2
	}
	o := cfg.hist.Options
	if p.Addr == "" || fs.NArg() > 0 || cfg.hist.Histories < 0 || o.Clients < 1 || o.Rounds < 10 {
		fs.Usage()
		return cfg, 2
	}
	var err error
	if cfg.hist.Options.Faults, err = parseFaults(*faults); err != nil {
		fmt.Fprintln(stderr, "ghostcheck check:", err)
		return cfg, 2
	}
	if *cases != "" {
		cfg.prefixes = strings.Split(*cases, ",")
	}
	cfg.hist.Peer = cfg.peer
	return cfg, -1
}

func runCheck(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cfg, code := parseCheckFlags(args, stderr)
	if code >= 0 {
		return code
	}
	var safe, last []conformance.Case
	for _, c := range conformance.Select(cfg.prefixes, cfg.risky, true) {
		if c.Risky {
			last = append(last, c)
		} else {
			safe = append(safe, c)
		}
	}
	progress := func(r conformance.Result) {
		if !cfg.asJSON {
			fmt.Fprintf(stderr, "  %-44s %s\n", r.Name, r.Status)
		}
	}
	fmt.Fprintf(stderr, "ghostcheck check: %d conformance cases against %s\n", len(safe)+len(last), cfg.peer.Addr)
	results, err := conformance.Run(cfg.peer, safe, progress)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck check:", err)
		return 1
	}
	hist, err := checkHistories(cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck check: history run:", err)
		return 1
	}
	if len(last) > 0 {
		more, err := conformance.Run(cfg.peer, last, progress)
		if err != nil {
			fmt.Fprintln(stderr, "ghostcheck check: risky cases:", err)
		}
		results = append(results, more...)
	}
	if cfg.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"bootstrap": cfg.peer.Addr, "cases": results, "histories": hist})
	} else {
		printCheck(stdout, cfg.peer, results, hist)
	}
	writeCheckReport(cfg, results, hist, stdout, stderr)
	if checkFailures(results, hist) > 0 {
		return 1
	}
	return 0
}

// checkHistories runs the fault-injected histories, if asked and if the
// broker's timers are known.
func checkHistories(cfg checkConfig, stderr io.Writer) ([]conformance.HistoryResult, error) {
	if cfg.hist.Histories == 0 {
		return nil, nil
	}
	if cfg.peer.SessionTimeout <= 0 || cfg.peer.HeartbeatInterval <= 0 {
		fmt.Fprintln(stderr, "ghostcheck check: no history run: give --session-timeout and --heartbeat-interval (the broker's)")
		return nil, nil
	}
	fmt.Fprintf(stderr, "ghostcheck check: %d fault-injected histories\n", cfg.hist.Histories)
	return conformance.RunHistories(cfg.hist, func(h conformance.HistoryResult) {
		if !cfg.asJSON {
			fmt.Fprintf(stderr, "  seed %d: %s %s (%.1fs)\n", h.Seed, h.Verdict, h.Rule, h.Seconds)
		}
	})
}

func checkFailures(results []conformance.Result, hist []conformance.HistoryResult) int {
	n := 0
	for _, r := range results {
		if r.Status == conformance.Fail {
			n++
		}
	}
	for _, h := range hist {
		if h.Verdict != linearize.Ok {
			n++
		}
	}
	return n
}

// printCheck prints the results: the table of cases, the rule each failing
// case checks (from docs/PROTOCOL.md), then the histories.
func printCheck(w io.Writer, peer conformance.Peer, results []conformance.Result, hist []conformance.HistoryResult) {
	fmt.Fprintf(w, "conformance of %s\n\n", peer.Addr)
	conformance.Table(w, results, nil)
	c := conformance.Counts(results)
	fmt.Fprintf(w, "\n%d cases: %d pass, %d fail, %d skip\n", len(results), c[conformance.Pass], c[conformance.Fail], c[conformance.Skip])
	for _, r := range results {
		if r.Status == conformance.Fail {
			fmt.Fprintf(w, "\n%s  FAIL\n", r.Name)
			citeRule(w, r.Name)
		}
	}
	if len(hist) == 0 {
		return
	}
	fmt.Fprintf(w, "\nhistories (observable level, %s session timeout)\n", peer.SessionTimeout)
	for _, h := range hist {
		fmt.Fprintf(w, "  seed %-4d %-8s %4d ops, lag %3d ms, %.1fs\n", h.Seed, h.Verdict, h.Operations, h.LagMs, h.Seconds)
		if h.Verdict == linearize.Ok {
			continue
		}
		fmt.Fprintf(w, "    %s: %s\n", h.Rule, h.Detail)
		if h.File != "" {
			fmt.Fprintf(w, "    history: %s\n", h.File)
		}
		if _, ok := docs.Lookup(h.Rule); ok {
			fmt.Fprintf(w, "    rule:    ghostcheck explain %s\n", h.Rule)
		}
	}
}
