package rates_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/internal/rates"
)

// A grammar of three faults and one group: names add up, a group spreads
// its percentage, the total is capped, and every error says what is wrong.
func TestGrammarParse(t *testing.T) {
	g := rates.Grammar{
		Kinds:  []string{"drop", "delay", "close"},
		Groups: map[string]func(int) map[string]int{"half": func(pct int) map[string]int { return map[string]int{"drop": pct / 2, "delay": pct - pct/2} }},
		Max:    50,
		Why:    "a test's cap",
	}
	for _, tc := range []struct {
		spec string
		want map[string]int
		err  string
	}{
		{"", map[string]int{}, ""},
		{" none ", map[string]int{}, ""},
		{"drop=5", map[string]int{"drop": 5}, ""},
		{"drop=5, drop=7,close=1", map[string]int{"drop": 12, "close": 1}, ""},
		{"half=9,delay=1", map[string]int{"drop": 4, "delay": 6}, ""},
		{"drop=30,close=21", nil, "add up to 51 %, more than 50 % (a test's cap)"},
		{"lose=5", nil, `unknown kind "lose" (kinds: drop, delay, close, half)`},
		{"drop", nil, "want KIND=PERCENT"},
		{"drop=x", nil, "want KIND=PERCENT"},
		{"drop=101", nil, "want KIND=PERCENT"},
		{"drop=-1", nil, "want KIND=PERCENT"},
	} {
		got, err := g.Parse(tc.spec)
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
	// Without Why the cap's error says no more than the numbers.
	g.Why = ""
	if _, err := g.Parse("drop=51"); err == nil || strings.Contains(err.Error(), "(") {
		t.Errorf("a cap without Why: %v", err)
	}
}
