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

// A case may be listed once per way its finding shows: a FAIL containing
// any line's observation reproduces it; one containing none differs (a
// note, not KNOWN); a PASS did not reproduce it.
func TestSeveralObservationsOfOneCase(t *testing.T) {
	k, err := ParseKnown(strings.NewReader(`
L26 case B8.6/stable-follower-same  the leader's heartbeat ILLEGAL_GENERATION
L26 case B8.6/stable-follower-same  the follower's unchanged rejoin: answered false
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		status          Status
		observed, known string
	}{
		{Fail, "the leader's heartbeat ILLEGAL_GENERATION at generation 2", "L26"},
		{Fail, "FAIL the follower's unchanged rejoin: answered false, <nil>", "L26"},
		{Fail, "the follower's rejoin answered at generation 3", ""},
		{Pass, "the follower's unchanged rejoin: answered false", ""},
	} {
		r := Result{Name: "B8.6/stable-follower-same", Status: tc.status, Observed: tc.observed}
		markKnown(&r, k)
		if r.Known != tc.known || (tc.known == "") == (r.Note == "") {
			t.Errorf("%s %q: known %q, note %q; want known %q and a note only when not known", tc.status, tc.observed, r.Known, r.Note, tc.known)
		}
	}
}
