package mock_test

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/internal/conformance"
)

// librdkafka's mock has no mixed groups (docs/findings.md L33): a classic
// JoinGroup to a consumer group with members makes a classic group of
// its own under the id, and a ConsumerGroupHeartbeat join to a classic
// group with members makes a consumer group beside it (assigning it every
// partition) while the classic group's rebalance goes on. The mixed cases
// are N/A, saying which answer showed it, or SKIP where they need
// DescribeGroups, ConsumerGroupDescribe or SyncGroup v5, which the mock
// lacks, or group.consumer.max.size, which the test does not give; none
// FAILs.
func TestMockMixedCases(t *testing.T) {
	t.Parallel()
	k := known(t)
	rs := conformanceOf(t, 1, k, conformance.Select([]string{"A7."}, false, true))
	const (
		ownGroup   = "a classic JoinGroup v5 to a consumer group with members was answered as a classic group of its own: NONE"
		goesOn     = "the classic group went on beside the consumer group the join made"
		noDescribe = "needs DescribeGroups, which the broker does not offer"
		noCGD      = "needs ConsumerGroupDescribe, which the broker does not offer"
		noMaxSize  = "the broker's group.consumer.max.size was not given"
		noSyncV5   = "needs SyncGroup v5 (its protocol name, KIP-559)"
	)
	want := map[string]struct {
		status conformance.Status
		saying string
	}{
		"A7.1/member-id-required":               {conformance.NotApplicable, ownGroup},
		"A7.1/joined":                           {conformance.NotApplicable, ownGroup},
		"A7.1/describe-mixed-group":             {conformance.Skip, noDescribe},
		"A7.1/classic-session-own-timeout":      {conformance.Skip, noCGD},
		"A7.1/group-max-size":                   {conformance.Skip, noMaxSize},
		"A7.1/inconsistent-protocol":            {conformance.NotApplicable, ownGroup},
		"A7.1/subscription-undecodable":         {conformance.NotApplicable, ownGroup},
		"A7.1/unknown-instance":                 {conformance.NotApplicable, ownGroup},
		"A7.1/fenced-instance":                  {conformance.NotApplicable, ownGroup},
		"A7.1/static-replaced":                  {conformance.Skip, noCGD},
		"A7.1/subscription-changed":             {conformance.Skip, noCGD},
		"A7.1/join-timer-removes":               {conformance.NotApplicable, ownGroup},
		"A7.1/sync-timer-removes":               {conformance.NotApplicable, ownGroup},
		"A7.2/sync-assignment":                  {conformance.NotApplicable, ownGroup},
		"A7.2/sync-illegal-generation":          {conformance.NotApplicable, ownGroup},
		"A7.2/heartbeat-illegal-generation":     {conformance.NotApplicable, ownGroup},
		"A7.2/heartbeat-ok":                     {conformance.NotApplicable, ownGroup},
		"A7.2/heartbeat-rejoin":                 {conformance.NotApplicable, ownGroup},
		"A7.2/sync-withholds-revoked":           {conformance.Skip, noCGD},
		"A7.2/leave-group":                      {conformance.NotApplicable, ownGroup},
		"A7.2/sync-inconsistent-protocol":       {conformance.Skip, noSyncV5},
		"A7.2/sync-rebalance-in-progress":       {conformance.NotApplicable, ownGroup},
		"A7.2/heartbeat-keeps-session":          {conformance.NotApplicable, ownGroup},
		"A7.3/classic-member-switches":          {conformance.NotApplicable, ownGroup},
		"A7.3/consumer-replaces-classic-static": {conformance.NotApplicable, ownGroup},
		"A7.4/upgraded":                         {conformance.Skip, noCGD},
		"A7.4/waiting-answered":                 {conformance.NotApplicable, goesOn},
		"A7.4/upgrade-failed":                   {conformance.Skip, noDescribe},
		"A7.4/upgrade-refused":                  {conformance.NotApplicable, goesOn},
		"A7.5/downgraded":                       {conformance.Skip, noCGD},
	}
	if len(rs) != len(want) {
		t.Errorf("%d mixed cases ran; the test knows %d", len(rs), len(want))
	}
	for _, r := range rs {
		w, ok := want[r.Name]
		if !ok || r.Status != w.status || !strings.Contains(r.Observed, w.saying) {
			t.Errorf("%s against the mock: %s %q; want %s saying %q (L33)", r.Name, r.Status, r.Observed, w.status, w.saying)
		}
	}
}
