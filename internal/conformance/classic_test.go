package conformance_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/impl/server"
	"github.com/ghostcheck/ghostcheck/impl/server/servertest"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/model"
)

// classicCases are the cases of the classic group protocol (A6, B8 and
// B5's classic part), slow ones included.
func classicCases() []conformance.Case {
	return conformance.Select([]string{"A6.", "B8.", "B5/classic"}, false, true)
}

// ghostcheck's own server passes every classic case.
func TestServePassesEveryClassicCase(t *testing.T) {
	t.Parallel()
	passesEvery(t, "classic", startServe(t), classicCases())
}

// passesEvery runs cases against the broker at addr and holds every one
// it could judge to PASS; what names the cases in the log.
func passesEvery(t *testing.T, what, addr string, cases []conformance.Case) {
	t.Helper()
	rep, err := conformance.Run(peer(addr), cases, conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	conformance.Table(&b, rep.Results)
	t.Logf("%s conformance of ghostcheck serve:\n%s", what, b.String())
	for _, r := range judgeable(t, rep.Results) {
		if r.Status != conformance.Pass {
			t.Errorf("%s: %s: observed %s; expected %s", r.Name, r.Status, r.Observed, r.Expected)
		}
	}
	if len(rep.Results) != len(cases) {
		t.Fatalf("%d results for %d cases", len(rep.Results), len(cases))
	}
}

// classicCaseCatches is, for each classic mutant a client can see, every
// classic case that fails against it over TCP: docs/mutants.md's table of
// the classic mutants over TCP, row for row
// (TestClassicMutantTableInDocs), measured whole by
// TestClassicMutantTableComplete.
var classicCaseCatches = []mutantCases{
	{impl.MutClassicNoFence, []string{"A6.2/old-member-fenced", "A6.3/fenced-instance"}},
	{impl.MutPendingNeverExpires, []string{"A6.1/pending-expired", "A6.1/pending-expires-by-session"}},
	{impl.MutPendingCountsTowardMaxSize, []string{"B8.11/group-full", "B8.11/pending-not-counted"}},
	{impl.MutHeartbeatGenerationUnchecked, []string{"B8.9/illegal-generation", "B8.9/error-does-not-refresh-session"}},
	{impl.MutLeaderNotReelected, []string{"B8.7/leader-moved"}},
	{impl.MutStaticReplacementRebalances, []string{"A6.2/replaced-stable", "A6.2/replaced-leader-skip-assignment", "B8.10/sync-expired-replaced-id"}},
	{impl.MutReplacementKeepsOldInstance, []string{"A6.2/replaced-stable", "A6.2/old-member-fenced", "A6.2/new-member-serves", "B8.10/sync-expired-replaced-id"}},
	{impl.MutAdminRemovalIgnored, []string{"A6.3/admin-removal"}},
	{impl.MutPendingLeaveKept, []string{"A6.3/pending-dropped"}},
	{impl.MutStaticRemovedAtCompletion, []string{"A6.2/static-kept-not-rejoined", "B8.7/nobody-rejoined"}},
	{impl.MutSyncTimeoutRemovesSynced, []string{"B8.10/sync-expired", "B8.10/sync-expired-replaced-id"}},
	{impl.MutRemovedJoinNotAnswered, []string{"A6.3/removed-join-answered"}},
	{impl.MutClassicErrorRefreshesSession, []string{"B8.9/error-does-not-refresh-session"}},
	{impl.MutSkipAssignmentWithheld, []string{"A6.2/replaced-leader-skip-assignment"}},
	{impl.MutHeartbeatRebalancingNone, []string{"A6.3/member-removed", "B5/classic-member-v0-v2", "B8.6/stable-leader-rejoins", "B8.9/rebalancing", "A6.3/static-removed-by-id", "B8.10/expiry-rebalances", "B8.6/new-member-added", "B8.6/existing-completing-changed", "B8.7/nobody-rejoined", "B8.10/sync-expired-replaced-id", "B8.4/v0-rebalance-timeout"}},
	{impl.MutSessionMinRefused, []string{"B8.4/session-min-accepted"}},
	{impl.MutSessionAboveMaxAccepted, []string{"B8.4/session-above-max-refused"}},
	{impl.MutMemberIDRequiredFromV5, []string{"A6.1/member-id-required-v4"}},
	{impl.MutPendingExpiresByRebalanceTimeout, []string{"A6.1/pending-expires-by-session"}},
	{impl.MutCompletingRejoinRebalances, []string{"B8.6/existing-completing-same"}},
	{impl.MutPendingJoinUnknown, []string{"A6.1/pending-joins", "A6.1/pending-not-member", "A6.2/replaced-stable", "A6.2/static-kept-not-rejoined", "A6.3/admin-removal", "A6.3/pending-dropped", "A6.3/member-removed", "A6.3/removed-join-answered", "A6.4/consumer-heartbeat-classic-group", "B5/classic-member-v0-v2", "B8.4/sync-null-protocol", "B8.4/member-unknown-instance", "B8.6/inconsistent-protocol", "B8.6/existing-completing-same", "B8.6/stable-follower-same", "B8.6/stable-leader-rejoins", "B8.7/dynamic-removed-not-rejoined", "B8.7/leader-moved", "B8.8/follower-waits-for-leader", "B8.8/missing-assignment-empty", "B8.8/illegal-generation", "B8.8/rebalancing", "B8.9/illegal-generation", "B8.9/rebalancing", "B8.9/error-does-not-refresh-session", "B8.10/session-expired", "B8.10/sync-expired", "B8.11/group-full", "B8.11/pending-not-counted", "B8.13/described-stable", "A6.3/unknown-member", "A6.3/static-removed-by-id", "A6.3/removed-sync-unanswered", "A6.3/leave-completes-join", "B8.8/inconsistent-protocol", "B8.8/leader-assigns", "B8.9/completing-rebalance-ok", "B8.10/session-kept-waiting", "B8.10/expiry-rebalances", "B8.10/expiry-completes-join", "B8.13/described-completing", "A6.1/pending-with-instance", "A6.2/replaced-completing", "A6.2/replaced-preparing", "A6.2/old-request-fenced", "A6.5/superseded-not-coordinator", "B8.6/group-created", "B8.6/new-member-added", "B8.6/existing-preparing", "B8.6/existing-completing-changed", "B8.6/join-replaced", "B8.7/rebalance-started", "B8.7/completed-all-joined", "B8.7/nobody-rejoined", "B8.7/generation-empty", "B8.10/new-member-expired", "B8.10/sync-expired-replaced-id", "A6.4/join-replaces-consumer-group", "A6.4/heartbeat-replaces-classic-group", "B8.8/sync-replaced", "B8.8/stable-current"}},
	{impl.MutPendingHeartbeatAccepted, []string{"A6.1/pending-not-member"}},
	{impl.MutStaticMemberIDRequired, []string{"A6.2/new-static-member", "A6.2/replaced-stable", "A6.2/replaced-leader-skip-assignment", "A6.2/old-member-fenced", "A6.2/new-member-serves", "A6.2/static-kept-not-rejoined", "A6.3/admin-removal", "A6.3/fenced-instance", "A6.3/unknown-instance", "B8.7/dynamic-removed-not-rejoined", "B8.7/leader-moved", "A6.3/empty-unknown", "A6.3/static-removed-by-id", "A6.2/replaced-completing", "A6.2/replaced-preparing", "A6.2/old-request-fenced", "B8.6/member-id-made", "B8.7/nobody-rejoined", "B8.10/sync-expired-replaced-id", "A6.2/replaced-protocol-changes"}},
	{impl.MutClassicLeaveUnknownInstanceByID, []string{"A6.3/unknown-instance"}},
	{impl.MutClassicLeaveNoRebalance, []string{"A6.3/member-removed", "B5/classic-member-v0-v2", "A6.3/static-removed-by-id", "B8.7/nobody-rejoined", "B8.7/generation-empty", "A6.4/heartbeat-replaces-classic-group"}},
	{impl.MutClassicEmptyGroupIDServed, []string{"B8.4/invalid-group-id"}},
	{impl.MutProtocolsComparedByName, []string{"A6.3/removed-join-answered", "B8.7/dynamic-removed-not-rejoined", "B8.7/leader-moved", "B8.8/rebalancing", "B8.9/rebalancing", "A6.3/leave-completes-join", "B8.10/expiry-completes-join", "A6.2/old-request-fenced", "A6.5/superseded-not-coordinator", "B8.6/join-replaced"}},
	{impl.MutFollowerSameRebalances, []string{"B8.6/stable-follower-same"}},
	{impl.MutMemberUnknownInstanceFenced, []string{"A6.3/unknown-instance", "B8.4/member-unknown-instance"}},
	{impl.MutDynamicKeptNotRejoined, []string{"B8.7/dynamic-removed-not-rejoined", "B8.7/generation-empty"}},
	{impl.MutSyncTimerNotStarted, []string{"B8.10/sync-expired", "B8.10/sync-expired-replaced-id"}},
	{impl.MutSyncNullProtocolAccepted, []string{"B8.4/sync-null-protocol"}},
	{impl.MutSyncGenerationUnchecked, []string{"B8.8/illegal-generation"}},
	{impl.MutSyncRebalancingAnswered, []string{"B8.8/rebalancing"}},
	{impl.MutFollowerSyncNotHeld, []string{"B8.8/follower-waits-for-leader", "A6.3/removed-sync-unanswered", "B8.8/leader-assigns", "B8.10/session-kept-waiting", "B8.7/rebalance-started", "B8.8/sync-replaced"}},
	{impl.MutStableSyncEmpty, []string{"A6.2/replaced-stable", "B8.8/stable-current"}},
	{impl.MutHeartbeatMissingGroupNotFound, []string{"B8.9/unknown-group"}},
	{impl.MutUnknownMemberIllegalGeneration, []string{"B8.9/error-does-not-refresh-session", "B8.7/generation-empty"}},
	{impl.MutDescribeNotFoundFromV7, []string{"A6.4/describe-consumer-group", "B8.13/not-found-v6", "B8.6/missing-group-not-made"}},
	{impl.MutDescribeNotFoundFromV5, []string{"B8.13/dead-v0-v5"}},
	{impl.MutDescribeStableNoMetadata, []string{"B8.13/described-stable"}},
	{impl.MutProtocolTypeUnchecked, []string{"B8.6/inconsistent-protocol"}},
	{impl.MutClassicGroupUnknownMember, []string{"A6.4/consumer-heartbeat-classic-group"}},
	{impl.MutDescribeConsumerGroupEmpty, []string{"A6.4/describe-consumer-group"}},
	{impl.MutStableLeaderRejoinAnswered, []string{"B8.6/stable-leader-rejoins", "B8.8/follower-waits-for-leader", "B8.8/missing-assignment-empty", "B8.10/sync-expired", "A6.3/removed-sync-unanswered", "B8.8/leader-assigns", "B8.10/session-kept-waiting", "B8.13/described-completing", "A6.2/replaced-completing", "A6.2/replaced-preparing", "B8.7/rebalance-started", "B8.7/completed-all-joined", "B8.10/sync-expired-replaced-id", "B8.8/sync-replaced"}},
	{impl.MutMissingAssignmentKept, []string{"B8.8/missing-assignment-empty"}},
	{impl.MutConsumerMemberIllegalGeneration, []string{"A6.4/heartbeat-consumer-group"}},
	{impl.MutClassicLeaveEmptyUnknownNone, []string{"A6.3/empty-unknown"}},
	{impl.MutClassicLeaveUnknownMemberNone, []string{"A6.3/unknown-member"}},
	{impl.MutClassicLeaveStaticByIDFenced, []string{"A6.3/static-removed-by-id"}},
	{impl.MutRemovedSyncAnswered, []string{"A6.3/removed-sync-unanswered"}},
	{impl.MutClassicLeaveNoCompletion, []string{"A6.3/leave-completes-join"}},
	{impl.MutSyncMissingGroupNotFound, []string{"B8.8/unknown-group"}},
	{impl.MutSyncProtocolNameUnchecked, []string{"B8.8/inconsistent-protocol"}},
	{impl.MutLeaderSyncAnswersFirst, []string{"B8.8/leader-assigns"}},
	{impl.MutHeartbeatCompletingRebalancing, []string{"B8.9/completing-rebalance-ok", "B8.10/session-kept-waiting"}},
	{impl.MutSessionExpiresWhileWaiting, []string{"B8.10/session-kept-waiting"}},
	{impl.MutExpiryNoRebalance, []string{"B8.10/expiry-rebalances"}},
	{impl.MutExpiryNoCompletion, []string{"B8.10/expiry-completes-join"}},
	{impl.MutDescribeCompletingMetadata, []string{"B8.13/described-completing"}},
	{impl.MutJoinWaitsForTimer, []string{"A6.3/leave-completes-join", "B8.10/session-kept-waiting", "B8.10/expiry-rebalances", "B8.7/completed-all-joined"}},
	{impl.MutSupersededDropped, []string{"A6.5/superseded-not-coordinator"}},
	{impl.MutSecondJoinRefused, []string{"A6.5/superseded-not-coordinator", "B8.6/join-replaced"}},
	{impl.MutPreparingJoinKeepsProtocols, []string{"B8.6/existing-preparing"}},
	{impl.MutMissingGroupJoinCreates, []string{"B8.6/missing-group-not-made"}},
	{impl.MutCompletingChangedAnswered, []string{"B8.6/existing-completing-changed"}},
	{impl.MutOldRequestDropped, []string{"A6.2/old-request-fenced"}},
	{impl.MutReplacedCompletingNoRebalance, []string{"A6.2/replaced-completing"}},
	{impl.MutPendingWithInstanceJoins, []string{"A6.1/pending-with-instance"}},
	{impl.MutClassicGroupStartsAtOne, []string{"B8.6/group-created"}},
	{impl.MutReplacedPreparingAnswered, []string{"A6.2/replaced-preparing"}},
	{impl.MutEmptyGenerationKept, []string{"B8.7/generation-empty"}},
	{impl.MutNobodyRejoinedNewGeneration, []string{"B8.7/nobody-rejoined"}},
	{impl.MutRebalanceKeepsSyncsWaiting, []string{"B8.7/rebalance-started"}},
	{impl.MutMemberIDNoDash, []string{"B8.6/member-id-made"}},
	{impl.MutNewMemberNoRebalance, []string{"B8.6/new-member-added", "B8.4/v0-rebalance-timeout"}},
	{impl.MutReplacedIDNotAwaited, []string{"B8.10/sync-expired-replaced-id"}},
	{impl.MutNewMemberSessionTimeout, []string{"B8.10/new-member-expired"}},
	{impl.MutV0RebalanceTimeoutDefault, []string{"B8.4/v0-rebalance-timeout"}},
	{impl.MutSecondSyncRefused, []string{"B8.8/sync-replaced"}},
	{impl.MutProtocolChangeReplacedAnswered, []string{"A6.2/replaced-protocol-changes"}},
	{impl.MutEmptyConsumerGroupKept, []string{"A6.4/join-replaces-consumer-group"}},
	{impl.MutEmptyClassicGroupKept, []string{"A6.4/heartbeat-replaces-classic-group"}},
}

// Every classic mutant a client can see fails the classic cases listed
// for it over TCP (and they pass without it:
// TestServePassesEveryClassicCase).
func TestClassicCasesCatchTheirMutants(t *testing.T) {
	t.Parallel()
	for _, tc := range classicCaseCatches {
		t.Run(tc.mutant.String(), func(t *testing.T) {
			t.Parallel()
			tc.failAgainstServe(t)
		})
	}
}

// classicMutantsNoCaseCatches are the classic mutants no classic case can
// catch over TCP, with why: docs/mutants.md's row for each says "none: "
// and the reason, word for word. run catches each.
var classicMutantsNoCaseCatches = map[string]string{
	"restart-keeps-classic-state": "it acts only when the coordinator restarts (the group kept as it is in memory instead of reloaded from its last record), " +
		"and check never restarts a broker it reaches by address; run catches it (M39)",
	"leader-greatest-id":         "which member leads once the leader is removed is Kafka's hash-map order, which promises nothing (A6.5: any member may lead), so no case holds a broker to the model's smallest id; run catches it",
	"initial-delay-early":        "a millisecond off a timer, far below what timing over TCP resolves; run catches it",
	"initial-delay-late":         "a millisecond off a timer, far below what timing over TCP resolves; run catches it",
	"join-timer-early":           "a millisecond off a timer, far below what timing over TCP resolves; run catches it",
	"initial-delay-not-extended": "the extension is one more initial delay (100 ms in this table's serve; check is not told a broker's delay), and telling a phase of one delay from one of two needs a member added within the first and timing finer than TCP resolves on a loaded machine; run catches it",
	"restart-drops-waiting":      "it acts only when the coordinator restarts (the waiting requests dropped instead of answered NOT_COORDINATOR), and check never restarts a broker it reaches by address; run catches it",
	"protocol-tie-largest": "which of the protocols tied on votes is selected is Kafka's hash-map order (ClassicGroup.selectProtocol takes the first most-voted entry of a HashMap), which promises nothing (A6.5: any protocol with the most votes), " +
		"and the mutant still selects one with the most votes, so no case holds a broker to the model's smallest name; run catches it",
	"join-mixed-answered":      "serve runs Kafka's bidirectional migration policy, under which a JoinGroup to a consumer group with members joins it (A7.1): the mutant acts only outside mixed groups; run catches it",
	"upgrade-refused-answered": "serve runs Kafka's bidirectional migration policy, under which a ConsumerGroupHeartbeat join to a classic group with members upgrades it (A7.4): the mutant acts only outside mixed groups; run catches it",
	"held-connection-read":     "serve mutes a connection while its request waits (impl/server, as Kafka's socket server does), so its coordinator never sees a request behind a held one; run catches it",
}

// Every classic mutant is in classicCaseCatches or in
// classicMutantsNoCaseCatches, not both.
func TestClassicMutantsAllListed(t *testing.T) {
	caught := map[string]bool{}
	for _, tc := range classicCaseCatches {
		caught[tc.mutant.String()] = true
	}
	for _, m := range impl.AllMutants() {
		if !m.Classic {
			continue
		}
		_, excused := classicMutantsNoCaseCatches[m.Name]
		if caught[m.Name] == excused {
			t.Errorf("classic mutant %s: in classicCaseCatches %v, excused %v: want exactly one", m.Name, caught[m.Name], excused)
		}
	}
}

// classicMutantTableHeading heads docs/mutants.md's table of the classic
// mutants over TCP.
const classicMutantTableHeading = "### The classic protocol's mutants over TCP"

// docs/mutants.md's table of the classic mutants over TCP is
// classicCaseCatches and classicMutantsNoCaseCatches: a row per classic
// mutant, in impl's order, with the rule it breaks and the cases that
// catch it (or "none: " and why), and the count of those caught.
func TestClassicMutantTableInDocs(t *testing.T) {
	var classic []impl.MutantInfo
	for _, m := range impl.AllMutants() {
		if m.Classic {
			classic = append(classic, m)
		}
	}
	mutantTableInDocs(t, classicMutantTableHeading, "classic", classic, classicCaseCatches, classicMutantsNoCaseCatches)
}

// mutantTableInDocs holds docs/mutants.md's table under heading to
// mutants, in order: a row each with its name, the rule it breaks and the
// cases catches lists for it, or "none: " and excused's reason; and the
// count of those caught.
func mutantTableInDocs(t *testing.T, heading, what string, mutants []impl.MutantInfo, catchList []mutantCases, excused map[string]string) {
	t.Helper()
	b, err := os.ReadFile("../../docs/mutants.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, text := markdownTableAfter(t, string(b), heading)
	catches := map[string][]string{}
	for _, tc := range catchList {
		catches[tc.mutant.String()] = tc.cases
	}
	var want [][]string
	for _, m := range mutants {
		cell := "none: " + excused[m.Name]
		if cs, ok := catches[m.Name]; ok {
			cell = strings.Join(cs, ", ")
		}
		want = append(want, []string{"`" + m.Name + "`", m.Rule, cell})
	}
	for i := 0; i < max(len(rows), len(want)); i++ {
		switch {
		case i >= len(rows):
			t.Errorf("docs/mutants.md lacks the row | %s |", strings.Join(want[i], " | "))
		case i >= len(want):
			t.Errorf("docs/mutants.md has a row for no %s mutant: %q", what, rows[i])
		case !slices.Equal(rows[i], want[i]):
			t.Errorf("docs/mutants.md's row %q, want | %s |", rows[i], strings.Join(want[i], " | "))
		}
	}
	if n := fmt.Sprintf("%d of %d caught by the cases", len(catchList), len(mutants)); !strings.Contains(text, n) {
		t.Errorf("docs/mutants.md's %s table does not say %q", what, n)
	}
}

// markdownTableAfter is the first table after heading in doc: its rows'
// cells (header and separator left out), and the text from the heading to
// the next one.
func markdownTableAfter(t *testing.T, doc, heading string) ([][]string, string) {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("no heading %q", heading)
	}
	if i := strings.Index(rest, "\n#"); i >= 0 {
		rest = rest[:i]
	}
	var rows [][]string
	in := false
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "|") {
			if in {
				break
			}
			continue
		}
		if !in {
			in = true // the header
			continue
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows, rest
}

// The whole table, measured: every classic case against `serve --mutant
// NAME` for each classic mutant, the cases that fail being exactly those
// classicCaseCatches lists (none for the mutants no case can catch). A
// measurement (a few minutes on two cores), not run by default; it logs
// docs/mutants.md's rows:
//
//	GHOSTCHECK_CLASSIC_MUTANT_TABLE=1 go test -run TestClassicMutantTableComplete -v -parallel 4 ./internal/conformance
func TestClassicMutantTableComplete(t *testing.T) {
	if os.Getenv("GHOSTCHECK_CLASSIC_MUTANT_TABLE") == "" {
		t.Skip("a measurement: set GHOSTCHECK_CLASSIC_MUTANT_TABLE=1 to run every classic case against every classic mutant")
	}
	catches := map[string][]string{}
	for _, tc := range classicCaseCatches {
		catches[tc.mutant.String()] = tc.cases
	}
	eachClassicMutant(t, func(t *testing.T, mi impl.MutantInfo, addr string) {
		rep, err := conformance.Run(peer(addr), classicCases(), conformance.Options{})
		if err != nil {
			t.Fatal(err)
		}
		failed := failedRow(t, mi, rep.Results)
		if want := catches[mi.Name]; !slices.Equal(sorted(failed), sorted(want)) {
			t.Errorf("against --mutant %s the classic cases that fail are %v; classicCaseCatches lists %v", mi.Name, failed, want)
		}
	})
}

// eachClassicMutant runs check, a parallel subtest per classic mutant,
// against `serve --mutant NAME` at addr.
func eachClassicMutant(t *testing.T, check func(t *testing.T, mi impl.MutantInfo, addr string)) {
	for _, mi := range impl.AllMutants() {
		if !mi.Classic {
			continue
		}
		t.Run(mi.Name, func(t *testing.T) {
			t.Parallel()
			check(t, mi, startServeMutant(t, impl.Mutants{}.With(mi.Mutant)))
		})
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// failedRow returns the judgeable cases that did not pass against mutant
// mi, logging each and the docs/mutants.md row they make.
func failedRow(t *testing.T, mi impl.MutantInfo, results []conformance.Result) []string {
	var failed []string
	for _, r := range judgeable(t, results) {
		if r.Status != conformance.Pass {
			failed = append(failed, r.Name)
			t.Logf("%s: %s: %s", r.Name, r.Status, r.Observed)
		}
	}
	t.Logf("ROW | `%s` | %s | %s |", mi.Name, mi.Rule, strings.Join(failed, ", "))
	return failed
}

// A broker that serves no classic groups gets N/A for every classic case,
// never FAIL: it is not asked to.
func TestClassicCasesNotApplicableWithoutClassicApis(t *testing.T) {
	t.Parallel()
	coord := impl.New(impl.Config{
		Topics:           []impl.Topic{{Name: "alpha", ID: model.TopicIDFor("alpha"), Partitions: 6}},
		SessionTimeoutMs: sessionTimeout.Milliseconds(), HeartbeatIntervalMs: int32(heartbeatInterval.Milliseconds()),
		MaxVersions: map[codec.APIKey]int16{codec.JoinGroup: -1, codec.SyncGroup: -1, codec.Heartbeat: -1, codec.DescribeGroups: -1},
	})
	addr, _ := servertest.Start(t, coord, server.Config{})
	rep, err := conformance.Run(peer(addr), classicCases(), conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != conformance.NotApplicable || !strings.Contains(r.Observed, "serves no classic groups") {
			t.Errorf("%s: %s (%s), want N/A", r.Name, r.Status, r.Observed)
		}
	}
}
