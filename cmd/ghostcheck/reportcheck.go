package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	pages "github.com/ghostcheck/ghostcheck/report"
)

// writeCheckReport writes out/index.html for `ghostcheck check`: the
// conformance table with each case's rule, the histories with a page for
// each failing one, and the broker's round-trip times per API.
func writeCheckReport(cfg checkConfig, out checkOutcome, stdout, stderr io.Writer) {
	dir := cfg.hist.Out
	results := out.cases.Results
	var hist []conformance.HistoryResult
	if out.hist != nil {
		hist = out.hist.Histories
	}
	ix := pages.Index{Kind: "check", Title: "check of " + out.addr, Verdict: "Ok", Cases: pages.CaseRows(results)}
	c := conformance.Counts(results)
	ix.Headline = fmt.Sprintf("%d conformance cases: %d pass, %d fail, %d skip, %d crash", len(results), c[conformance.Pass], c[conformance.Fail], c[conformance.Skip], c[conformance.Crash])
	if out.kafkaVersion != "" && out.kafkaVersion != conformance.ReleaseNext {
		ix.Headline += fmt.Sprintf(", %d n/a (not shipped in Kafka %s)", c[conformance.NotApplicable], out.kafkaVersion)
	}
	if out.heldLine != "" {
		ix.Headline += "; " + out.heldLine
	}
	if out.cases.Stopped != "" {
		ix.Headline += "; stopped: " + out.cases.Stopped
	}
	if n := checkFailures(out); n > 0 {
		ix.Verdict = "FAIL"
	}
	ix.Subtitle = fmt.Sprintf("session timeout %v, heartbeat interval %v; %d fault-injected histories (observable level)",
		cfg.peer.SessionTimeout, cfg.peer.HeartbeatInterval, len(hist))
	for _, r := range results {
		if r.Failed() {
			ix.Failures = append(ix.Failures, pages.FailureLink{Label: "case " + r.Name, Verdict: "FAIL", Rule: r.Name,
				Detail: fmt.Sprintf("observed %s; expected %s", r.Observed, r.Expected), Href: "#case-" + r.Name})
		}
	}
	links := map[uint64]string{}
	rtt := map[string][]time.Duration{}
	for _, h := range hist {
		for api, ds := range h.RoundTrips {
			rtt[api] = append(rtt[api], ds...)
		}
		if !h.Failed() || h.Run == nil || h.Report == nil {
			continue
		}
		name := fmt.Sprintf("check-seed%d", h.Seed)
		target := out.addr // with --broker-cmd alone, the first broker it started
		hdr := history.FileHeader{Target: target, Title: "ghostcheck check: " + h.Rule, Plan: h.Run.Plan}
		f := pages.Failure{Name: name, Header: hdr, Result: h.Run, Report: h.Report, Replay: checkReplay(cfg, h)}
		art, err := pages.WriteFailure(dir, f)
		if err != nil {
			fmt.Fprintln(stderr, "ghostcheck check: writing the page of seed", h.Seed, err)
			continue
		}
		links[h.Seed] = filepath.Base(art.HTML)
		ix.Failures = append(ix.Failures, pages.FailureOf(fmt.Sprintf("history, seed %d", h.Seed), h.Report, art, f.Replay))
	}
	ix.Histories = pages.HistoryRows(hist, links)
	ix.Plots = checkPlots(results, rtt)
	path, err := pages.WriteIndex(dir, ix)
	sayIndex(path, err, cfg.asJSON, stdout, stderr)
}

// checkReplay is the command that runs one history again against the
// same broker: replay of the history check wrote (out/check-seedN.jsonl),
// or, when it wrote none, check itself on the history's seed alone.
func checkReplay(cfg checkConfig, h conformance.HistoryResult) string {
	addr := strings.Join(cfg.peer.Bootstrap, ",")
	if addr == "" { // a broker --broker-cmd started: gone by now
		addr = "HOST:PORT"
	}
	sec := cfg.conn.replayFlags()
	if h.File != "" {
		return fmt.Sprintf("ghostcheck replay --bootstrap %s%s %s", addr, sec, h.File)
	}
	o := cfg.hist.Options
	return fmt.Sprintf("ghostcheck check --bootstrap %s%s --session-timeout %v --heartbeat-interval %v --cases none --histories 1 --seed %d --clients %d --rounds %d --faults %s",
		addr, sec, cfg.peer.SessionTimeout, cfg.peer.HeartbeatInterval, h.Seed, o.Clients, o.Rounds, faultsFlag(o.Faults))
}

// checkPlots: the cases' results by section of docs/PROTOCOL.md, and the
// broker's round trips per API.
func checkPlots(results []conformance.Result, rtt map[string][]time.Duration) []pages.Plot {
	var plots []pages.Plot
	bySection := map[string]map[conformance.Status]int{}
	for _, r := range results {
		sec, _, _ := strings.Cut(r.Name, "/")
		if bySection[sec] == nil {
			bySection[sec] = map[conformance.Status]int{}
		}
		bySection[sec][r.Status]++
	}
	secs := make([]string, 0, len(bySection))
	for s := range bySection {
		secs = append(secs, s)
	}
	sort.Strings(secs)
	var bars []pages.Bars
	statuses := []conformance.Status{conformance.Pass, conformance.Fail, conformance.Skip, conformance.Crash}
	if conformance.Counts(results)[conformance.NotApplicable] > 0 {
		statuses = append(statuses, conformance.NotApplicable)
	}
	for _, st := range statuses {
		b := pages.Bars{Label: string(st)}
		for _, s := range secs {
			b.Values = append(b.Values, float64(bySection[s][st]))
		}
		bars = append(bars, b)
	}
	if p, err := pages.BarPlot("Cases by section", "Conformance cases per section of docs/PROTOCOL.md, by result.", "cases", secs, bars); err == nil && len(secs) > 0 {
		plots = append(plots, p)
	}
	if len(rtt) > 0 {
		if p, err := pages.LatencyPlot("Round trips per API (p50, p99)",
			"Measured by the TCP target over the histories' connections: real time from writing a request to reading its response (the histories' own times are logical). In brackets: requests answered.", rtt); err == nil {
			plots = append(plots, p)
		}
	}
	return plots
}

// writeReplayPage writes the report page of a replayed history into dir,
// never over the file replayed.
func writeReplayPage(rr targets.ReplayResult, dir string, stdout, stderr io.Writer) {
	if rr.Run == nil || rr.Report == nil {
		return
	}
	name := strings.TrimSuffix(filepath.Base(rr.Path), ".jsonl")
	if a, b := absPath(filepath.Join(dir, name+".jsonl")), absPath(rr.Path); a == b {
		name += ".replay"
	}
	hdr := rr.Header
	hdr.Target = rr.Target
	f := pages.Failure{Name: name, Header: hdr, Result: rr.Run, Report: rr.Report, Replay: "ghostcheck replay " + rr.Path}
	art, err := pages.WriteFailure(dir, f)
	if err != nil {
		fmt.Fprintf(stderr, "ghostcheck replay: %s: writing its page: %v\n", rr.Path, err)
		return
	}
	fmt.Fprintf(stdout, "      page: %s\n", art.HTML)
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
