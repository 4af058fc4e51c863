package conformance_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/internal/releases"
	"github.com/ghostcheck/ghostcheck/model"
)

// mixedCases are the cases of mixed groups (A7), slow ones included.
func mixedCases() []conformance.Case {
	return conformance.Select([]string{"A7."}, false, true)
}

// ghostcheck's own server, under Kafka's default migration policy, passes
// every mixed case.
func TestServePassesEveryMixedCase(t *testing.T) {
	t.Parallel()
	passesEvery(t, "mixed", startServe(t), mixedCases())
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
	{impl.MutClassicHeartbeatNoRejoin, []string{"A7.1/join-timer-removes", "A7.2/heartbeat-rejoin", "A7.4/upgraded"}},
	{impl.MutClassicSessionGroupTimeout, []string{"A7.1/classic-session-own-timeout"}},
	{impl.MutSyncHandsPending, []string{"A7.2/sync-withholds-revoked"}},
	{impl.MutDowngradeGenerationReset, []string{"A7.5/downgraded"}},
	{impl.MutClassicJoinClassicStyleID, []string{"A7.1/member-id-required"}},
	{impl.MutClassicJoinMaxSizeOffByOne, []string{"A7.1/group-max-size"}},
	{impl.MutClassicJoinNoMemberIDRequired, []string{"A7.1/member-id-required"}},
	{impl.MutClassicUnknownInstanceJoins, []string{"A7.1/unknown-instance"}},
	{impl.MutClassicStaticReplacementBumps, []string{"A7.1/static-replaced"}},
	{impl.MutClassicMemberJoinedNoBump, []string{"A7.2/sync-assignment", "A7.2/sync-withholds-revoked"}},
	{impl.MutClassicSubscriptionChangeNoBump, []string{"A7.1/subscription-changed"}},
	{impl.MutClassicJoinTimerIgnored, []string{"A7.1/join-timer-removes"}},
	{impl.MutClassicSyncTimerIgnored, []string{"A7.1/sync-timer-removes"}},
	{impl.MutClassicSyncIgnoresEpoch, []string{"A7.2/sync-rebalance-in-progress"}},
	{impl.MutClassicHeartbeatNoSession, []string{"A7.2/heartbeat-keeps-session"}},
	{impl.MutClassicHolderUnreleased, []string{"A7.3/consumer-replaces-classic-static"}},
	{impl.MutUpgradeWaitingUnknown, []string{"A7.4/waiting-answered"}},
	{impl.MutUpgradeEmptyAssignmentRead, []string{"A7.4/upgrade-failed"}},
	{impl.MutClassicJoinProtocolTypeUnchecked, []string{"A7.1/inconsistent-protocol"}},
	{impl.MutClassicJoinUndecodableAsEmpty, []string{"A7.1/subscription-undecodable"}},
	{impl.MutClassicSyncProtocolNameUnchecked, []string{"A7.2/sync-inconsistent-protocol"}},
	{impl.MutUpgradeIgnoresProtocolType, []string{"A7.4/upgrade-refused"}},
	{impl.MutClassicJoinFencedAsUnknown, []string{"A7.1/fenced-instance"}},
	{impl.MutClassicSyncGenerationUnchecked, []string{"A7.2/sync-illegal-generation"}},
	{impl.MutClassicHeartbeatGenerationUnchecked, []string{"A7.2/heartbeat-illegal-generation"}},
	{impl.MutSwitchKeepsClassicState, []string{"A7.3/classic-member-switches"}},
}

// mixedMutantTableHeading heads docs/mutants.md's table of the mixed
// mutants over TCP.
const mixedMutantTableHeading = "### The mixed groups' mutants over TCP"

// mixedMutantsNoCaseCatches are the mixed mutants no mixed case can
// catch over TCP, with why (docs/mutants.md's row says "none: " and the
// reason). Each is caught by the run (docs/mutants.md's kill table).
var mixedMutantsNoCaseCatches = map[string]string{
	"restart-keeps-classic-timers": "it acts only when the coordinator restarts, and check never restarts a broker it reaches by address; run catches it",
}

// docs/mutants.md's table of the mixed mutants over TCP is
// mixedCaseCatches and mixedMutantsNoCaseCatches, row for row, in impl's
// order.
func TestMixedMutantTableInDocs(t *testing.T) {
	mutantTableInDocs(t, mixedMutantTableHeading, "mixed", impl.MixedMutants(), mixedCaseCatches, mixedMutantsNoCaseCatches)
}

// Every mixed mutant is in mixedCaseCatches or in
// mixedMutantsNoCaseCatches, not both.
func TestMixedMutantsAllListed(t *testing.T) {
	caught := map[string]bool{}
	for _, tc := range mixedCaseCatches {
		caught[tc.mutant.String()] = true
	}
	for _, m := range impl.MixedMutants() {
		if _, excused := mixedMutantsNoCaseCatches[m.Name]; caught[m.Name] == excused {
			t.Errorf("mixed mutant %s: in mixedCaseCatches %v, excused %v: want exactly one", m.Name, caught[m.Name], excused)
		}
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
			failed := failedRow(t, mi, rep.Results)
			// A case this machine was too slow to judge (judgeable left
			// it out) is not held to its row.
			want := slices.DeleteFunc(slices.Clone(catches[mi.Name]), func(name string) bool {
				return slices.ContainsFunc(rep.Results, func(r conformance.Result) bool { return r.Name == name && r.TooSlow() })
			})
			if !slices.Equal(sorted(failed), sorted(want)) {
				t.Errorf("against --mutant %s the mixed cases that fail are %v; mixedCaseCatches lists %v", mi.Name, failed, want)
			}
		})
	}
}

// Under another group.consumer.migration.policy, or with mixed groups
// outside the model (a broker that keeps the protocols apart), no mixed
// case FAILs: a conversion the policy forbids, or a classic join the
// broker refuses, makes the case about it N/A, saying which answer
// showed it; the others still pass.
func TestMixedCasesUnderOtherPolicies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		policy impl.MigrationPolicy
		// na are the cases N/A under the policy; every other passes.
		na []string
	}{
		{impl.MigrationDisabled, []string{"A7.4/upgraded", "A7.4/waiting-answered", "A7.5/downgraded"}},
		{impl.MigrationUpgrade, []string{"A7.5/downgraded"}},
		{impl.MigrationDowngrade, []string{"A7.4/upgraded", "A7.4/waiting-answered"}},
		// Outside the model the coordinator closes the connection on
		// the first mixed request of each case: every case is N/A.
		{impl.MigrationOutside, caseNames(mixedCases())},
	} {
		t.Run(model.MigrationPolicy(tc.policy).String(), func(t *testing.T) {
			t.Parallel()
			addr := startServePolicy(t, tc.policy)
			rep, err := conformance.Run(peer(addr), mixedCases(), conformance.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range judgeable(t, rep.Results) {
				want := conformance.Pass
				if slices.Contains(tc.na, r.Name) {
					want = conformance.NotApplicable
				}
				t.Logf("%s: %s: %s", r.Name, r.Status, r.Observed)
				if r.Status != want {
					t.Errorf("%s: %s (%s), want %s", r.Name, r.Status, r.Observed, want)
				}
				if r.Status == conformance.NotApplicable && !strings.Contains(r.Observed, "keeps the two protocols apart") {
					t.Errorf("%s: N/A without saying why: %s", r.Name, r.Observed)
				}
			}
		})
	}
}

// caseNames are the names of cases.
func caseNames(cases []conformance.Case) []string {
	var out []string
	for _, c := range cases {
		out = append(out, c.Name)
	}
	return out
}

// A broker of a release before Kafka 4.0 (serve --kafka-version 3.9:
// ConsumerGroupHeartbeat listed, answered UNSUPPORTED_VERSION) serves no
// consumer groups: every mixed case is N/A, saying so.
func TestMixedCasesNotApplicableBeforeKafka40(t *testing.T) {
	t.Parallel()
	cfg := serveConfig()
	r, err := releases.Lookup("3.9")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxVersions, cfg.MinVersions, cfg.Unserved = r.ServerCaps()
	addr := startServeConfig(t, cfg)
	rep, err := conformance.Run(peer(addr), mixedCases(), conformance.Options{KafkaVersion: "3.9"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != conformance.NotApplicable || !strings.Contains(r.Observed, "serves no consumer groups") {
			t.Errorf("%s: %s (%s), want N/A", r.Name, r.Status, r.Observed)
		}
	}
}

// kfake has no mixed groups (docs/findings.md K32): a classic JoinGroup
// to a consumer group with members makes a classic group of its own
// under the same id (its joiner leads it), and a ConsumerGroupHeartbeat
// join to a classic group with members is GROUP_ID_NOT_FOUND. Every
// mixed case is therefore N/A, saying which answer showed it, but
// A7.4/upgrade-failed and A7.4/upgrade-refused, whose GROUP_ID_NOT_FOUND
// (the classic group going on) is right whatever the broker does with
// mixed groups: they pass. No mixed case FAILs.
func TestKfakeMixedCases(t *testing.T) {
	t.Parallel()
	addr := startKfake(t)
	k := kfakeKnown(t)
	rep, err := conformance.Run(peer(addr), mixedCases(), asCheck(k))
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstFindings(t, "kfake", judgeable(t, rep.Results), k)
	const (
		ownGroup = "a classic JoinGroup v9 to a consumer group with members was answered as a classic group of its own: NONE"
		refused  = "a ConsumerGroupHeartbeat join to a classic group with members was answered GROUP_ID_NOT_FOUND"
	)
	for _, r := range judgeable(t, rep.Results) {
		want, saying := conformance.NotApplicable, ownGroup
		switch r.Name {
		case "A7.4/upgraded", "A7.4/waiting-answered":
			saying = refused
		case "A7.4/upgrade-failed", "A7.4/upgrade-refused":
			want, saying = conformance.Pass, "GROUP_ID_NOT_FOUND"
		}
		if r.Status != want || !strings.Contains(r.Observed, saying) {
			t.Errorf("%s against kfake: %s %q; want %s saying %q (K32)", r.Name, r.Status, r.Observed, want, saying)
		}
	}
}
