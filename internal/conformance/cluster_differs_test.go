package conformance_test

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/internal/conformance"
)

// ClusterDiffers finds each way a cluster's table may differ from one
// broker's, and nothing when it does not.
func TestClusterDiffers(t *testing.T) {
	pass := conformance.Result{Name: "A1/x", Status: conformance.Pass}
	fail := conformance.Result{Name: "A1/x", Status: conformance.Fail}
	known := conformance.Result{Name: "A1/x", Status: conformance.Fail, Known: "K1"}
	lone := conformance.Result{Name: "B4.5/y", Status: conformance.Skip, Observed: "needs a cluster of two brokers or more; 1 known"}
	ran := conformance.Result{Name: "B4.5/y", Status: conformance.Fail}
	slow := conformance.Result{Name: "A1/x", Status: conformance.Skip, Observed: "too slow to judge: the session ran out first"}
	if !slow.TooSlow() {
		t.Fatal("the too-slow result is not TooSlow: its prefix changed")
	}
	for _, tc := range []struct {
		name      string
		one, many []conformance.Result
		want      string // "" for no difference
	}{
		{"the same", []conformance.Result{pass, lone}, []conformance.Result{pass, ran}, ""},
		{"the same finding", []conformance.Result{known}, []conformance.Result{known}, ""},
		{"a status moved", []conformance.Result{pass}, []conformance.Result{fail}, "A1/x: PASS against one broker, FAIL against the cluster"},
		{"a finding became known", []conformance.Result{fail}, []conformance.Result{known}, "against the cluster"},
		{"a cluster case skipped on the cluster", []conformance.Result{lone}, []conformance.Result{lone}, "B4.5/y: SKIP against the cluster too"},
		{"too slow is left out", []conformance.Result{pass}, []conformance.Result{slow}, ""},
		{"other cases", []conformance.Result{pass}, []conformance.Result{ran}, "result 0: A1/x against one broker, B4.5/y"},
		{"other counts", []conformance.Result{pass}, nil, "1 results against one broker, 0 against the cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(conformance.ClusterDiffers(tc.one, tc.many), "\n")
			switch {
			case tc.want == "" && got != "":
				t.Errorf("got %q, want no difference", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
