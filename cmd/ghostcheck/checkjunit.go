package main

import (
	"fmt"
	"strings"

	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
)

// writeCheckJUnit writes a check as JUnit XML: a testsuite of the
// conformance cases, a testcase each (PASS passes; FAIL and CRASH are
// failures, with the rule they break; SKIP, and any other status that
// says the case does not apply, is skipped with the reason; a FAIL or
// CRASH of a known finding is skipped with the finding's id, so that it
// shows without failing the build, as it does not fail the exit status;
// a case the check never ran, after a crash, is an error), and a testsuite
// of the histories, a testcase per seed (Ok passes, KNOWN is skipped, any
// other status is a failure with the command that replays it).
func writeCheckJUnit(path string, cfg checkConfig, out checkOutcome) error {
	root := junitSuites{Name: "ghostcheck check"}
	root.Suites = append(root.Suites, caseSuite(cfg, out))
	if out.hist != nil {
		root.Suites = append(root.Suites, historySuite(cfg, out))
	}
	return writeJUnit(path, root)
}

func caseSuite(cfg checkConfig, out checkOutcome) junitSuite {
	s := junitSuite{Name: "conformance of " + out.addr}
	for k, v := range map[string]any{"bootstrap": out.addr, "sessionTimeout": cfg.peer.SessionTimeout, "heartbeatInterval": cfg.peer.HeartbeatInterval,
		"brokerCmd": cfg.brokerCmd, "known": cfg.knownFile, "negotiation": strings.Join(out.cases.Negotiation, "; ")} {
		s.Properties = append(s.Properties, prop(k, v))
	}
	sortProps(s.Properties)
	for _, r := range out.cases.Results {
		s.add(caseTestcase(r))
	}
	for _, name := range out.cases.NotRun {
		s.add(junitCase{Name: name, Classname: caseClass(name), Error: failureOf("NOT RUN", "not run: "+out.cases.Stopped, "")})
	}
	return s
}

// caseTestcase is one conformance case's testcase.
func caseTestcase(r conformance.Result) junitCase {
	c := junitCase{Name: r.Name, Classname: caseClass(r.Name), Time: r.Seconds, Output: "observed: " + r.Observed}
	if r.Note != "" {
		c.Output += "\nnote: " + r.Note
	}
	var rule strings.Builder
	citeRule(&rule, r.Name)
	switch {
	case r.Known != "":
		c.Skipped = &junitSkipped{Message: fmt.Sprintf("known finding %s: %s, observed %s", r.Known, r.Status, r.Observed)}
	case r.Status == conformance.Pass:
	case r.Status == conformance.Fail:
		c.Failure = failureOf("FAIL", fmt.Sprintf("observed %s; expected %s", r.Observed, r.Expected), r.Rule+"\n"+rule.String())
	case r.Status == conformance.Crash:
		text := r.Rule + "\n" + rule.String()
		if r.FrameFile != "" {
			text += "\nthe last request: " + r.FrameFile + " (ghostcheck decode < " + r.FrameFile + ")"
		}
		c.Failure = failureOf("CRASH", "the broker stopped answering: "+r.Observed, text)
	default: // SKIP, or whatever else says the case does not apply
		c.Skipped = &junitSkipped{Message: fmt.Sprintf("%s: %s", r.Status, r.Observed)}
	}
	return c
}

func historySuite(cfg checkConfig, out checkOutcome) junitSuite {
	h := out.hist
	s := junitSuite{Name: fmt.Sprintf("histories of %s (observable level)", out.addr)}
	s.Properties = []junitProperty{prop("seed", cfg.hist.Seed), prop("histories", cfg.hist.Histories), prop("clients", cfg.hist.Options.Clients),
		prop("rounds", cfg.hist.Options.Rounds), prop("faults", faultsFlag(cfg.hist.Options.Faults)),
		prop("unchecked", strings.Join(h.Unchecked, ", ")), prop("leftOut", strings.Join(h.LeftOut, ", "))}
	for _, hr := range h.Histories {
		c := junitCase{Name: fmt.Sprintf("seed %d", hr.Seed), Classname: "ghostcheck.check.histories", Time: hr.Seconds,
			Output: fmt.Sprintf("%s: %d operations, lag %d ms; %s", hr.Status, hr.Operations, hr.LagMs, hr.Plan)}
		switch {
		case hr.Status == string(history.Ok):
		case hr.Status == conformance.HistoryKnown:
			c.Skipped = &junitSkipped{Message: "known: " + strings.Join(hr.Known, ", ")}
		default:
			text := hr.Detail
			if hr.Crash != "" {
				text += "\ncrash: " + hr.Crash
			}
			if hr.File != "" {
				text += "\nhistory: " + hr.File
			}
			text += "\nreplay:  " + checkReplay(cfg, hr)
			c.Failure = failureOf(hr.Status, fmt.Sprintf("%s %s: %s", hr.Status, hr.Rule, hr.Detail), text)
		}
		s.add(c)
	}
	if h.Stopped != "" {
		s.add(junitCase{Name: "histories not run", Classname: "ghostcheck.check.histories", Error: failureOf("NOT RUN", "stopped: "+h.Stopped, "")})
	}
	return s
}

// caseClass groups a case under its section, as CI systems group
// testcases by class: ghostcheck.check.A1.
func caseClass(name string) string {
	sec, _, _ := strings.Cut(name, "/")
	return "ghostcheck.check." + sec
}

func sortProps(ps []junitProperty) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Name < ps[j-1].Name; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}
