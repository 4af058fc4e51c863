package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/linearize"
)

func runCheck(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var peer conformance.Peer
	fs.StringVar(&peer.Addr, "bootstrap", "", "the broker to check, HOST:PORT (required)")
	fs.DurationVar(&peer.SessionTimeout, "session-timeout", 0, "the broker's consumer session timeout; needed by the session cases and the history run (keep it short, e.g. 1s)")
	fs.DurationVar(&peer.HeartbeatInterval, "heartbeat-interval", 0, "the broker's consumer heartbeat interval; needed by the history run")
	fs.IntVar(&peer.MaxGroupSize, "max-group-size", 0, "the broker's group.consumer.max.size, for the size-cap case (0: skip it)")
	fs.StringVar(&peer.Topic, "topic", "alpha", "a topic the broker has, for subscriptions")
	cases := fs.String("cases", "", "run only cases whose names start with one of these, comma-separated (e.g. A1,B4.2)")
	risky := fs.Bool("risky", true, "run the cases that may crash a broker that mishandles them (after everything else)")
	histories := fs.Int("histories", 2, "fault-injected histories to run after the suite (0: none)")
	seed := fs.Uint64("seed", 1, "first history's seed")
	clients := fs.Int("clients", 6, "client processes per history")
	rounds := fs.Int("rounds", 40, "rounds of 50 ms real time per history")
	faults := fs.String("faults", "uniform=10", "fault rates per request, as for ghostcheck run")
	out := fs.String("out", "out", "directory for failing histories")
	asJSON := fs.Bool("json", false, "print results as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck check --bootstrap HOST:PORT [flags]")
		fmt.Fprintln(stderr, "Runs the conformance suite (one case per rule of docs/PROTOCOL.md A1-A3, §B4.2, §B4.4, §B5) against a broker,")
		fmt.Fprintln(stderr, "then fault-injected client histories checked at the observable level. Exit 1 if anything fails.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if peer.Addr == "" || fs.NArg() > 0 || *histories < 0 || *clients < 1 || *rounds < 10 {
		fs.Usage()
		return 2
	}
	opts := conformance.DefaultHistoryOptions()
	opts.Clients, opts.Rounds = *clients, *rounds
	var err error
	if opts.Faults, err = parseFaults(*faults); err != nil {
		fmt.Fprintln(stderr, "ghostcheck check:", err)
		return 2
	}
	var prefixes []string
	if *cases != "" {
		prefixes = strings.Split(*cases, ",")
	}
	var safe, last []conformance.Case
	for _, c := range conformance.Select(prefixes, *risky, true) {
		if c.Risky {
			last = append(last, c)
		} else {
			safe = append(safe, c)
		}
	}
	progress := func(r conformance.Result) {
		if !*asJSON {
			fmt.Fprintf(stderr, "  %-44s %s\n", r.Name, r.Status)
		}
	}
	fmt.Fprintf(stderr, "ghostcheck check: %d conformance cases against %s\n", len(safe)+len(last), peer.Addr)
	results, err := conformance.Run(peer, safe, progress)
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck check:", err)
		return 1
	}
	var hist []conformance.HistoryResult
	if *histories > 0 {
		if peer.SessionTimeout <= 0 || peer.HeartbeatInterval <= 0 {
			fmt.Fprintln(stderr, "ghostcheck check: no history run: give --session-timeout and --heartbeat-interval (the broker's)")
		} else {
			fmt.Fprintf(stderr, "ghostcheck check: %d fault-injected histories\n", *histories)
			hist, err = conformance.RunHistories(conformance.HistoryConfig{Peer: peer, Seed: *seed, Histories: *histories, Options: opts, Out: *out},
				func(h conformance.HistoryResult) {
					if !*asJSON {
						fmt.Fprintf(stderr, "  seed %d: %s %s (%.1fs)\n", h.Seed, h.Verdict, h.Rule, h.Seconds)
					}
				})
			if err != nil {
				fmt.Fprintln(stderr, "ghostcheck check: history run:", err)
				return 1
			}
		}
	}
	if len(last) > 0 {
		more, err := conformance.Run(peer, last, progress)
		if err != nil {
			fmt.Fprintln(stderr, "ghostcheck check: risky cases:", err)
		}
		results = append(results, more...)
	}
	failed := 0
	for _, r := range results {
		if r.Status == conformance.Fail {
			failed++
		}
	}
	for _, h := range hist {
		if h.Verdict != linearize.Ok {
			failed++
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"bootstrap": peer.Addr, "cases": results, "histories": hist})
	} else {
		printCheck(stdout, peer, results, hist)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

func printCheck(w io.Writer, peer conformance.Peer, results []conformance.Result, hist []conformance.HistoryResult) {
	fmt.Fprintf(w, "conformance of %s\n\n", peer.Addr)
	conformance.Table(w, results, nil)
	c := conformance.Counts(results)
	fmt.Fprintf(w, "\n%d cases: %d pass, %d fail, %d skip\n", len(results), c[conformance.Pass], c[conformance.Fail], c[conformance.Skip])
	if len(hist) == 0 {
		return
	}
	fmt.Fprintf(w, "\nhistories (observable level, %s session timeout)\n", peer.SessionTimeout)
	for _, h := range hist {
		line := fmt.Sprintf("  seed %-4d %-8s %4d ops, lag %3d ms, %.1fs", h.Seed, h.Verdict, h.Operations, h.LagMs, h.Seconds)
		if h.Verdict != linearize.Ok {
			line += fmt.Sprintf("\n    %s: %s", h.Rule, h.Detail)
			if h.File != "" {
				line += "\n    history: " + h.File
			}
		}
		fmt.Fprintln(w, line)
	}
}
