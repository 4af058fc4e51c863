package plan_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/plan"
)

// run's and check's --faults: kinds, uniform, repeats adding up, at most
// 33 % in all, and an error naming what is wrong.
func TestParseFaultRates(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want map[plan.FaultKind]int
		err  string
	}{
		{"none", map[plan.FaultKind]int{}, ""},
		{" ", map[plan.FaultKind]int{}, ""},
		{"lost-response=5,duplicate=2", map[plan.FaultKind]int{plan.LostResponse: 5, plan.Duplicate: 2}, ""},
		{"lost-response=5, lost-response=5", map[plan.FaultKind]int{plan.LostResponse: 10}, ""},
		{"uniform=10", plan.UniformFaults(10), ""},
		{"uniform=3", plan.UniformFaults(3), ""},
		{"uniform=5,delay-request=3", map[plan.FaultKind]int{plan.LostRequest: 1, plan.LostResponse: 1, plan.Duplicate: 1,
			plan.DelayRequest: 4, plan.DelayResponse: 1}, ""},
		{"lost-request=20,duplicate=20", nil, "add up to 40 %, more than 33 % (early requests"},
		{"lose=5", nil, `unknown kind "lose" (kinds: lost-request, lost-response, duplicate, delay-request, delay-response, uniform)`},
		{"duplicate", nil, "want KIND=PERCENT"},
		{"duplicate=101", nil, "want KIND=PERCENT"},
		{"duplicate=-1", nil, "want KIND=PERCENT"},
	} {
		got, err := plan.ParseFaultRates(tc.spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error saying %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("%q: %v %v, want %v", tc.spec, got, err, tc.want)
		}
	}
}
