package conformance

import (
	"strings"
	"testing"
)

// A rule may carry several findings, each its own violations (OBSERVED):
// every entry is tried, and the first that matches names the finding.
func TestSeveralFindingsOfOneRule(t *testing.T) {
	k, err := ParseKnown(strings.NewReader(`
K17 rule StaticRestartKeepsAssignment  static rejoin of member
K19 rule StaticRestartKeepsAssignment  the group epoch moved on: member
`))
	if err != nil {
		t.Fatal(err)
	}
	for what, want := range map[string]string{
		"the static rejoin of member m (instance i, op 3) moved the group epoch":                 "K17",
		"after the coordinator move (op 4, coordinator-move) the group epoch moved on: member m": "K19",
		"after the takeover member m lost [a:1], given to it at epoch 3":                         "",
	} {
		e, ok := k.violationOf("StaticRestartKeepsAssignment", what)
		if got := map[bool]string{true: e.ID}[ok]; got != want || k.knownViolation("StaticRestartKeepsAssignment", what) != (want != "") {
			t.Errorf("%q: %q, want %q", what, got, want)
		}
	}
	if k.knownViolation("NoGhosts", "the group epoch moved on: member m") {
		t.Error("a finding of another rule set aside")
	}
}
