package conformance_test

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/docs"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
)

// Every case carries its source, the same words as its row in
// docs/PROTOCOL.md, and the source says which releases ship the rule.
func TestCaseSourcesMatchDocs(t *testing.T) {
	t.Parallel()
	for _, c := range conformance.Cases() {
		if c.Source == "" {
			t.Errorf("%s: no Source", c.Name)
			continue
		}
		if row, ok := docs.FindCase(c.Name); ok && row.Source != c.Source {
			t.Errorf("%s: Source %q, but its row in docs/PROTOCOL.md says %q", c.Name, c.Source, row.Source)
		}
		if _, err := conformance.ShipsOf(c.Source); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}

func TestShipsOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		source string
		want   string // Ships.String(); "" = an error
		in     map[string]bool
	}{
		{"KIP-1082, Kafka 4.0", "Kafka 4.0", map[string]bool{"3.9": false, "4.0": true, "4.1": true, "4.0.1": true, "10.0": true}},
		{"KIP-345, Kafka 2.4; consumer groups Kafka 4.0", "Kafka 4.0", map[string]bool{"2.4": false, "3.9": false, "4.0": true}},
		{"KIP-345, Kafka 2.3 (KAFKA-8225)", "Kafka 2.3", map[string]bool{"2.2": false, "2.3": true}},
		{"every Kafka release", "every Kafka release", map[string]bool{"0.8": true, "4.1": true}},
		{"KAFKA-19233, trunk only (merged 2026-01; release unverified)", "no known release", map[string]bool{"4.1": false, "9.9": false}},
		{"open PR (apache/kafka#23542), in no release", "no known release", map[string]bool{"4.1": false}},
		{"KIP-1313, KIP accepted, not shipped", "no known release", map[string]bool{"4.1": false}},
		{"Kafka 4.0; in place KAFKA-19233, trunk only", "no known release", map[string]bool{"4.0": false}},
		{"KIP-848", "", nil},
		{"", "", nil},
	} {
		s, err := conformance.ShipsOf(tc.source)
		if tc.want == "" {
			if err == nil {
				t.Errorf("ShipsOf(%q) = %v, want an error", tc.source, s)
			}
			continue
		}
		if err != nil || s.String() != tc.want {
			t.Errorf("ShipsOf(%q) = %v, %v; want %s", tc.source, s, err, tc.want)
		}
		for rel, want := range tc.in {
			if got := s.In(rel); got != want {
				t.Errorf("ShipsOf(%q).In(%s) = %v, want %v", tc.source, rel, got, want)
			}
		}
	}
	for _, bad := range []string{"4", "four.one", "4.1.2.3", "", "-1.0"} {
		if _, err := conformance.ParseRelease(bad); err == nil {
			t.Errorf("ParseRelease(%q): no error", bad)
		}
	}
}

// With a Kafka release given, a case that fails on a rule the release
// does not ship is N/A, not a failure; one whose rule it ships still
// fails. Two planted bugs: a v1 join with an empty id makes a member
// (KIP-1082, Kafka 4.0), a retried join makes a second member
// (KAFKA-19233, in no release known).
func TestKafkaVersionMakesUnshippedRulesNotApplicable(t *testing.T) {
	t.Parallel()
	addr := startServeMutant(t, impl.Mutants{}.With(impl.MutV1EmptyMemberID).With(impl.MutRetriedJoinNewMember))
	cases := conformance.Select([]string{"A1/v1-join-empty-member-id", "A1/retried-join-same-member"}, false, false)
	for _, tc := range []struct {
		release            string
		emptyID, retried   conformance.Status
		emptyWhy, retryWhy string
	}{
		{"", conformance.Fail, conformance.Fail, "", ""},
		{"4.1", conformance.Fail, conformance.NotApplicable, "", "no known release"},
		{"3.9", conformance.NotApplicable, conformance.NotApplicable, "Kafka 4.0", "no known release"},
	} {
		rep, err := conformance.Run(peer(addr), cases, conformance.Options{KafkaVersion: tc.release})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]conformance.Result{}
		for _, r := range rep.Results {
			got[r.Name] = r
		}
		for name, want := range map[string][2]string{
			"A1/v1-join-empty-member-id":  {string(tc.emptyID), tc.emptyWhy},
			"A1/retried-join-same-member": {string(tc.retried), tc.retryWhy},
		} {
			r := got[name]
			if string(r.Status) != want[0] || r.ShipsIn != want[1] || r.Failed() != (want[0] == string(conformance.Fail)) {
				t.Errorf("--kafka-version %q, %s: %s (ships in %q, failed %v), want %s (%q)", tc.release, name, r.Status, r.ShipsIn, r.Failed(), want[0], want[1])
			}
		}
		if tc.release == "3.9" {
			var b strings.Builder
			conformance.Table(&b, rep.Results)
			if !strings.Contains(b.String(), "N/A (ships in Kafka 4.0)") || !strings.Contains(b.String(), "N/A (ships in no known release)") {
				t.Errorf("the table does not say where the rules ship:\n%s", b.String())
			}
		}
	}
}
