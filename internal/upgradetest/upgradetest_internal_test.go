package upgradetest

import (
	"strings"
	"testing"
)

// fake is a process whose library says what the test says.
type fake struct {
	id, member string
	owned      []int32
}

func (f fake) ClientID() string         { return f.id }
func (f fake) Consumer() bool           { return false }
func (f fake) MemberID() (string, bool) { return f.member, f.member != "" }
func (f fake) Owned() []int32           { return f.owned }
func (f fake) Consumed() int            { return 0 }
func (f fake) Close()                   {}
func parts(ps ...int32) []int32         { return ps }
func view(settled bool, ms map[string]Member) View {
	return View{Kind: "consumer", Settled: settled, Members: ms}
}

// problem, case by case: the group is the live processes, or says why
// not.
func TestProblem(t *testing.T) {
	a := fake{"a", "A", parts(0, 1)}
	b := fake{"b", "", parts(2, 3)} // its library does not say its member id
	good := map[string]Member{"a": {"A", parts(0, 1)}, "b": {"B", parts(2, 3)}}
	for _, tc := range []struct {
		name  string
		v     View
		live  []Process
		first map[string]string
		want  string // a substring of the problem; "" for none
	}{
		{"settled, exactly the live processes", view(true, good), []Process{a, b}, nil, ""},
		{"not settled", view(false, good), []Process{a, b}, nil, "not settled"},
		{"a member with no process", view(true, good), []Process{a}, nil, "members [a b], live processes [a]"},
		{"a process the library says holds another id", view(true, good), []Process{fake{"a", "Z", parts(0, 1)}, b}, nil, `a holds member id "Z"`},
		{"an id changed since first seen", view(true, good), []Process{a, b}, map[string]string{"b": "B0"}, `b's member id went from "B0" to "B"`},
		{"a process owning what the coordinator does not say", view(true, good), []Process{fake{"a", "A", parts(0)}, b}, nil, "a owns [0], the coordinator says [0 1]"},
		{"a partition owned twice", view(true, map[string]Member{"a": {"A", parts(0, 1)}, "b": {"B", parts(1, 2, 3)}}),
			[]Process{a, fake{"b", "", parts(1, 2, 3)}}, nil, "partition 1 owned by a and b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := map[string]string{}
			for k, v := range tc.first {
				first[k] = v
			}
			o := observer{w: &World{Topic: "alpha", Partitions: 4}, firstIDs: first}
			got := o.problem(tc.v, tc.live)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("problem %q, want %q", got, tc.want)
			}
		})
	}
	o := observer{w: &World{Topic: "alpha", Partitions: 6}, firstIDs: map[string]string{}}
	if got := o.problem(view(true, good), []Process{a, b}); got != "4 of alpha's 6 partitions owned" {
		t.Errorf("partitions nobody owns: %q", got)
	}
	if s := (View{Kind: "classic", Members: good, Classic: 2}).String(); s != "classic 2/2 classic" {
		t.Errorf("View.String %q", s)
	}
}
