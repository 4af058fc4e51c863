package conformance_test

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/impl"
)

// consumerCaseCatches are the consumer cases written for rows of
// docs/mutants.md's table of the newer consumer-protocol mutants over TCP
// that no case reached (issue 28, item 3), each with the mutant it
// catches; TestCasesCatchTheirMutants holds the earlier ones.
var consumerCaseCatches = []mutantCases{
	{impl.MutSubscriptionComparedByCount, []string{"A5.1/subscription-switch-moves-epoch"}},
	{impl.MutRegexRefusedGroupKept, []string{"B4.4/invalid-regex-makes-no-group"}},
	{impl.MutDescribeMissingGroupDead, []string{"B4.4/invalid-regex-makes-no-group"}},
}

// Each of those cases fails against serve with its mutant planted, and
// passes without it (TestServePassesEveryCase).
func TestConsumerCasesCatchTheirRowMutants(t *testing.T) {
	t.Parallel()
	for _, tc := range consumerCaseCatches {
		t.Run(tc.mutant.String(), func(t *testing.T) {
			t.Parallel()
			tc.failAgainstServe(t)
		})
	}
}
