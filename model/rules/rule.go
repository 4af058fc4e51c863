package rules

import "fmt"

// Rule is the id of a rule: a section of docs/PROTOCOL.md Part C. The id is
// what reports and corpus files store, so a rule's id never changes.
type Rule string

// Judged lists every rule the checks of this package can report: the
// invariants, trackers and header rules a run checks on every observation,
// then the rules judged only on recorded client traffic (ClientRules).
func Judged() []Rule {
	return append([]Rule{RuleNoGhosts, RuleOneMemberPerProcess, RuleUniqueMemberIDs, RuleNoZeroUUIDs,
		RuleNoDoubleClientAssignment, RuleQuiescentMembership, RuleMonotonicEpochs, RuleStableMemberID,
		RuleClientInstanceIDInHeader, RuleClientIDOnFirstRequest, RuleStaticRestartKeepsAssignment}, clientOnlyRules()...)
}

// Meaning says in words what the rule protects ("" for an id that is not
// one of All).
func (r Rule) Meaning() string {
	switch r {
	case RuleNoGhosts:
		return meaningNoGhosts
	case RuleOneMemberPerProcess:
		return meaningOneMemberPerProcess
	case RuleUniqueMemberIDs:
		return meaningUniqueMemberIDs
	case RuleNoZeroUUIDs:
		return meaningNoZeroUUIDs
	case RuleNoDoubleClientAssignment:
		return meaningNoDoubleClientAssignment
	case RuleQuiescentMembership:
		return meaningQuiescentMembership
	case RuleMonotonicEpochs:
		return meaningMonotonicEpochs
	case RuleStableMemberID:
		return meaningStableMemberID
	case RuleClientInstanceIDInHeader:
		return meaningClientInstanceIDInHeader
	case RuleClientIDOnFirstRequest:
		return meaningClientIDOnFirstRequest
	case RuleStaticRestartKeepsAssignment:
		return meaningStaticRestartKeepsAssignment
	}
	if m := clientRuleMeaning(r); m != "" {
		return m
	}
	return judgedElsewhereMeaning(r)
}

// Violation is a broken invariant.
type Violation struct {
	Rule   string // the id of one of Judged
	Detail string
}

func (v *Violation) Error() string { return v.Rule + ": " + v.Detail }

// violation takes a Rule, not a string, so that every id a check reports
// is a declared rule (a test holds the calls to Judged's constants).
func violation(rule Rule, format string, args ...any) *Violation {
	return &Violation{Rule: string(rule), Detail: fmt.Sprintf(format, args...)}
}
