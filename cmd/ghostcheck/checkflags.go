package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ghostcheck/ghostcheck/internal/conformance"
)

// validateCheck refuses what would check nothing, or less than it seems
// to: counts out of range, negative timers, case names no case has, and
// histories without the broker's timers (a history cannot tell a ghost
// from a member still within its session without them).
func validateCheck(cfg *checkConfig, stderr io.Writer) int {
	o, p := cfg.hist.Options, cfg.peer
	switch {
	case cfg.hist.Histories < 0:
		return usageErr(stderr, "check", "--histories %d: want a count (0: no history run)", cfg.hist.Histories)
	case o.Clients < 1 || o.Rounds < 10:
		return usageErr(stderr, "check", "--clients must be at least 1, --rounds at least 10")
	case p.MaxGroupSize < 0:
		return usageErr(stderr, "check", "--max-group-size %d must not be negative (0: skip the size-cap case)", p.MaxGroupSize)
	case p.ClassicMaxGroupSize < 0:
		return usageErr(stderr, "check", "--classic-max-group-size %d must not be negative (0: skip the classic size-cap cases)", p.ClassicMaxGroupSize)
	}
	if f, bad := negativeDuration(durationFlag{"session-timeout", p.SessionTimeout}, durationFlag{"heartbeat-interval", p.HeartbeatInterval},
		durationFlag{"classic-session-timeout", p.ClassicSessionTimeout}, durationFlag{"classic-min-session-timeout", p.ClassicMinSessionTimeout},
		durationFlag{"classic-max-session-timeout", p.ClassicMaxSessionTimeout}); bad {
		return usageErr(stderr, "check", "--%s %v must not be negative", f.name, f.d)
	}
	if lo, hi := p.ClassicMinSessionTimeout, p.ClassicMaxSessionTimeout; lo > 0 && hi > 0 && lo > hi {
		return usageErr(stderr, "check", "--classic-min-session-timeout %v is above --classic-max-session-timeout %v", lo, hi)
	}
	if cfg.hist.Histories > 0 && (p.SessionTimeout == 0 || p.HeartbeatInterval == 0) {
		return usageErr(stderr, "check", "the history run needs the broker's --session-timeout and --heartbeat-interval "+
			"(without them a history cannot tell a ghost from a member within its session); give them, or --histories 0 to run the cases alone")
	}
	prefixes, unknown := casePrefixes(cfg.cases)
	if len(unknown) > 0 {
		return usageErr(stderr, "check", "--cases: no case name starts with %s; the sections are %s (ghostcheck check --list lists every case)",
			strings.Join(unknown, ", "), strings.Join(caseSections(), " "))
	}
	cfg.prefixes = prefixes
	if len(conformance.Select(prefixes, cfg.risky, true)) == 0 && cfg.hist.Histories == 0 {
		return usageErr(stderr, "check", "nothing to check: no case is selected (--cases %q, --risky=%v) and --histories is 0", cfg.cases, cfg.risky)
	}
	return -1
}

// casePrefixes reads --cases: comma-separated prefixes of case names, or
// none (no case: histories only). It returns the prefixes, and those no
// case name starts with.
func casePrefixes(s string) (prefixes, unknown []string) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
		case p == "none":
			prefixes = append(prefixes, p) // matches no case name
		case len(conformance.Select([]string{p}, true, true)) == 0:
			unknown = append(unknown, p)
		default:
			prefixes = append(prefixes, p)
		}
	}
	if len(prefixes) == 0 && len(unknown) == 0 {
		prefixes = []string{"none"}
	}
	return prefixes, unknown
}

// caseSections are the sections cases are named after (A1, B4.2, ...).
func caseSections() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range conformance.Cases() {
		sec, _, _ := strings.Cut(c.Name, "/")
		if !seen[sec] {
			seen[sec] = true
			out = append(out, sec)
		}
	}
	sort.Strings(out)
	return out
}

// printCaseList prints every case: its name, whether it is risky (it may
// crash a broker that mishandles it: run last, or left out with
// --risky=false) or slow (it waits for a session timeout), and its rule.
func printCaseList(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tRISKY\tSLOW\tRULE")
	cases := conformance.Cases()
	for _, c := range cases {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, yes(c.Risky), yes(c.Slow), c.Rule)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d cases in sections %s; --cases takes prefixes of these names (A1, B4.2/blank), "+
		"ghostcheck explain CASE prints a case's rule\n", len(cases), strings.Join(caseSections(), " "))
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "-"
}

// checkOptions are the options a check used, as --json and --junit
// record them.
func checkOptions(cfg checkConfig) map[string]any {
	o := cfg.hist.Options
	m := map[string]any{
		"bootstrap": strings.Join(cfg.peer.Bootstrap, ","), "brokerCmd": cfg.brokerCmd, "sessionTimeout": cfg.peer.SessionTimeout.String(),
		"heartbeatInterval": cfg.peer.HeartbeatInterval.String(), "maxGroupSize": cfg.peer.MaxGroupSize, "topic": cfg.peer.Topic,
		"classicSessionTimeout": cfg.peer.ClassicSessionTimeout.String(), "classicMaxGroupSize": cfg.peer.ClassicMaxGroupSize,
		"classicMinSessionTimeout": cfg.peer.ClassicMinSessionTimeout.String(), "classicMaxSessionTimeout": cfg.peer.ClassicMaxSessionTimeout.String(),
		"cases": cfg.cases, "risky": cfg.risky, "histories": cfg.hist.Histories, "seed": cfg.hist.Seed, "clients": o.Clients,
		"rounds": o.Rounds, "faults": faultsFlag(o.Faults), "protocol": string(o.Protocol), "out": cfg.hist.Out, "known": cfg.knownFile, "junit": cfg.junit, "kafkaVersion": cfg.kafkaVersion,
	}
	cfg.conn.options(m)
	return m
}
