package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/impl"
)

// check --junit writes XML that parses back: a testcase per case (FAIL a
// failure, SKIP and a known finding skipped, PASS passing) and per
// history; --json carries the schema and the options.
func TestCheckJUnitAndJSON(t *testing.T) {
	t.Parallel() // it waits on a broker over TCP
	addr := startCoordinator(t, impl.Mutants{}.With(impl.MutV1EmptyMemberID))
	dir := t.TempDir()
	known := filepath.Join(dir, "known")
	if err := os.WriteFile(known, []byte("K1 case A1/v1-join-blank-member-id\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(dir, "check.xml")
	code, out, errOut := run(t, "", "check", "--bootstrap", addr, "--session-timeout", "800ms", "--heartbeat-interval", "100ms",
		"--cases", "A1/v1-join,B4.4/group-max-size,B7.2/describe-missing", "--histories", "1", "--rounds", "20",
		"--known", known, "--junit", junit, "--json", "--out", dir)
	if code != exitFailed {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var js struct {
		Schema     string         `json:"schema"`
		Options    map[string]any `json:"options"`
		ExitStatus int            `json:"exitStatus"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || js.Schema != "ghostcheck/check/v1" || js.Options["cases"] == nil || js.ExitStatus != 1 {
		t.Fatalf("--json: %v %+v\n%s", err, js, out)
	}
	s := readJUnit(t, junit)
	if len(s.Suites) != 2 || s.Suites[0].Tests != 4 || s.Suites[1].Tests != 1 {
		t.Fatalf("suites: %+v", s)
	}
	byName := map[string]junitCase{}
	for _, c := range s.Suites[0].Cases {
		byName[c.Name] = c
	}
	for name, want := range map[string]string{
		"A1/v1-join-empty-member-id":  "failure FAIL",
		"A1/v1-join-blank-member-id":  "skipped known finding K1: FAIL",
		"B4.4/group-max-size":         "skipped SKIP: ",
		"B7.2/describe-missing-group": "pass",
	} {
		c, ok := byName[name]
		got := "pass"
		switch {
		case !ok:
			got = "missing"
		case c.Failure != nil:
			got = "failure " + c.Failure.Type
		case c.Skipped != nil:
			got = "skipped " + c.Skipped.Message
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if c := byName["A1/v1-join-empty-member-id"]; c.Classname != "ghostcheck.check.A1" || !strings.Contains(c.Failure.Text, "ghostcheck explain A1/v1-join-empty-member-id") {
		t.Errorf("the failing case: %+v", c)
	}
	h := s.Suites[1].Cases[0]
	if h.Name != "seed 1" || h.Failure != nil && !strings.Contains(h.Failure.Text, "replay:  ghostcheck replay --bootstrap "+addr) {
		t.Errorf("the history: %+v", h)
	}
}
