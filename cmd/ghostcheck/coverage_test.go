package main

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/model"
)

func TestCoverageFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--coverage"}, true},
		{[]string{"--duration", "5s", "-coverage=true"}, true},
		{[]string{"--duration", "5s"}, false},
		{[]string{"--coverage=false"}, false},
	} {
		if got := coverageRequested(c.args); got != c.want {
			t.Errorf("%v: %v, want %v", c.args, got, c.want)
		}
		for _, a := range withoutCoverage(c.args) {
			if strings.TrimLeft(a, "-") == "coverage" {
				t.Errorf("%v: --coverage left in", c.args)
			}
		}
	}
}

// A text profile's blocks no run reached are listed by file and line, a
// block reached by any counter file counting as reached; a file of a
// package under the root is named by its path under it.
func TestUncoveredBlocks(t *testing.T) {
	prof := `mode: set
example.com/m/model/a.go:10.2,12.3 2 0
example.com/m/model/a.go:14.2,14.9 1 1
example.com/m/model/a.go:20.1,20.5 1 0
example.com/m/model/a.go:20.1,20.5 1 1
example.com/m/model/b.go:3.1,4.2 3 0
example.com/m/model/client/a.go:5.1,6.2 1 0
`
	lines, n := uncoveredBlocks(strings.NewReader(prof), "example.com/m/model")
	want := []string{"a.go: 10-12 (2)", "b.go: 3-4 (3)", "client/a.go: 5-6 (1)"}
	if n != 6 || strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("got %v (%d statements), want %v (6)", lines, n, want)
	}
}

// run --coverage builds the command with -cover, runs it, and prints the
// summary, the statement coverage of model/ and impl/, what the run did
// not reach and the clause table.
func TestRunCoverage(t *testing.T) {
	t.Parallel() // its time is go build's, in a child process
	if testing.Short() {
		t.Skip("builds ghostcheck with -cover")
	}
	code, out, errOut := run(t, "", "run", "--coverage", "--histories", "3", "--rounds", "20", "--heartbeat-version", "1", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"verdict Ok", "model\t\tcoverage:", "impl\t\tcoverage:", "model statements the run did not reach", "A3/row-1-admin-removal", "clauses applied"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// Every classic clause said never drawn is one the model has (a renamed
// clause would leave its reason behind), and the summary names each one
// the run missed with its reason.
func TestUndrawnClassicClausesAreClauses(t *testing.T) {
	known := map[model.Clause]bool{}
	for _, c := range model.Clauses() {
		known[c.ID] = true
	}
	for id := range undrawnClassic {
		if !known[id] {
			t.Errorf("undrawnClassic names %s, which is no clause of the model", id)
		}
	}
	var b strings.Builder
	printClassicClauses(&b, model.ClauseHits{})
	out := b.String()
	for id, why := range undrawnClassic {
		if !strings.Contains(out, string(id)) || !strings.Contains(out, why) {
			t.Errorf("the summary of a run that applied nothing does not give %s's reason", id)
		}
	}
	if !strings.Contains(out, "classic clauses (A6, B8): 0 of ") {
		t.Errorf("summary: %s", out)
	}
}
