package conformance_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
)

// mixedCases are the cases of mixed groups (A7), slow ones included.
func mixedCases() []conformance.Case {
	return conformance.Select([]string{"A7."}, false, true)
}

// ghostcheck's own server, under Kafka's default migration policy, passes
// every mixed case.
func TestServePassesEveryMixedCase(t *testing.T) {
	t.Parallel()
	addr := startServe(t)
	cases := mixedCases()
	rep, err := conformance.Run(peer(addr), cases, conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	conformance.Table(&b, rep.Results)
	t.Logf("mixed conformance of ghostcheck serve:\n%s", b.String())
	for _, r := range judgeable(t, rep.Results) {
		if r.Status != conformance.Pass {
			t.Errorf("%s: %s: observed %s; expected %s", r.Name, r.Status, r.Observed, r.Expected)
		}
	}
	if len(rep.Results) != len(cases) {
		t.Fatalf("%d results for %d cases", len(rep.Results), len(cases))
	}
}

// startServePolicy is startServe under another migration policy.
func startServePolicy(t testing.TB, policy impl.MigrationPolicy) string {
	t.Helper()
	cfg := serveConfig()
	cfg.MigrationPolicy = policy
	return startServeConfig(t, cfg)
}

// mixedCaseCatches is, for each mixed mutant (impl.MixedMutants), every
// mixed case that fails against it over TCP: docs/mutants.md's table of
// the mixed mutants over TCP, row for row (TestMixedMutantTableInDocs),
// measured whole by TestMixedMutantTableComplete.
var mixedCaseCatches = []mutantCases{
	{impl.MutUpgradeDropsLastMember, []string{"A7.4/upgraded"}},
	{impl.MutDowngradeNoRebalance, []string{"A7.5/downgraded"}},
	{impl.MutClassicHeartbeatNoRejoin, []string{"A7.2/heartbeat-rejoin", "A7.4/upgraded"}},
	{impl.MutClassicSessionGroupTimeout, []string{"A7.1/classic-session-own-timeout"}},
	{impl.MutSyncHandsPending, []string{"A7.2/sync-withholds-revoked"}},
}

// mixedMutantTableHeading heads docs/mutants.md's table of the mixed
// mutants over TCP.
const mixedMutantTableHeading = "### The mixed groups' mutants over TCP"

// docs/mutants.md's table of the mixed mutants over TCP is
// mixedCaseCatches: a row per mixed mutant, in impl's order, with the rule
// it breaks and the cases that catch it, and the count of those caught.
// A mixed mutant no case catches has no entry in mixedCaseCatches, and
// its row must say "none: " and why.
func TestMixedMutantTableInDocs(t *testing.T) {
	b, err := os.ReadFile("../../docs/mutants.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, text := markdownTableAfter(t, string(b), mixedMutantTableHeading)
	catches := map[string][]string{}
	for _, tc := range mixedCaseCatches {
		catches[tc.mutant.String()] = tc.cases
	}
	mixed := impl.MixedMutants()
	if len(rows) != len(mixed) {
		t.Errorf("docs/mutants.md's mixed table has %d rows for %d mixed mutants", len(rows), len(mixed))
	}
	for i, m := range mixed {
		if i >= len(rows) {
			break
		}
		cs, caught := catches[m.Name]
		want := []string{"`" + m.Name + "`", m.Rule, strings.Join(cs, ", ")}
		if !caught {
			if len(rows[i]) == 3 && strings.HasPrefix(rows[i][2], "none: ") {
				want[2] = rows[i][2]
			} else {
				want[2] = "none: WHY"
			}
		}
		if !slices.Equal(rows[i], want) {
			t.Errorf("docs/mutants.md's row %q, want | %s |", rows[i], strings.Join(want, " | "))
		}
	}
	if n := fmt.Sprintf("%d of %d caught by the cases", len(mixedCaseCatches), len(mixed)); !strings.Contains(text, n) {
		t.Errorf("docs/mutants.md's mixed table does not say %q", n)
	}
}

// The whole mixed table, measured in every `go test` (a few seconds):
// every mixed case against `serve --mutant NAME` for each mixed mutant,
// the cases that fail being exactly those mixedCaseCatches lists (and
// none without a mutant: TestServePassesEveryMixedCase). It logs
// docs/mutants.md's rows.
func TestMixedMutantTableComplete(t *testing.T) {
	t.Parallel()
	catches := map[string][]string{}
	for _, tc := range mixedCaseCatches {
		catches[tc.mutant.String()] = tc.cases
	}
	for _, mi := range impl.MixedMutants() {
		t.Run(mi.Name, func(t *testing.T) {
			t.Parallel()
			addr := startServeMutant(t, impl.Mutants{}.With(mi.Mutant))
			rep, err := conformance.Run(peer(addr), mixedCases(), conformance.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, r := range judgeable(t, rep.Results) {
				if r.Status != conformance.Pass {
					failed = append(failed, r.Name)
					t.Logf("%s: %s: %s", r.Name, r.Status, r.Observed)
				}
			}
			t.Logf("ROW | `%s` | %s | %s |", mi.Name, mi.Rule, strings.Join(failed, ", "))
			if want := catches[mi.Name]; !slices.Equal(sorted(failed), sorted(want)) {
				t.Errorf("against --mutant %s the mixed cases that fail are %v; mixedCaseCatches lists %v", mi.Name, failed, want)
			}
		})
	}
}
