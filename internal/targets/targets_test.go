package targets

import (
	"testing"

	"github.com/ghostcheck/ghostcheck/plan"
)

// Every name Names lists builds, and New refuses what it does not know.
func TestNew(t *testing.T) {
	p := plan.New(1, plan.DefaultOptions())
	type newCase struct {
		target, mutant string
		ok             bool
	}
	cases := []newCase{
		{"impl", "", true},
		{"model", "", true},
		{"impl", Mutants()[0][0], true},
		{"model", Mutants()[0][0], false},
		{"impl", "no-such-mutant", false},
		{"kafka", "", false},
		{"", "", false},
	}
	for _, name := range Names() {
		cases = append(cases, newCase{name, "", true})
	}
	for _, c := range cases {
		target, err := New(c.target, p, c.mutant)
		if (err == nil) != c.ok || (err == nil) != (target != nil) {
			t.Errorf("New(%q, mutant %q): target %v, error %v; want ok=%v", c.target, c.mutant, target, err, c.ok)
		}
	}
}
