package linearize

import "github.com/ghostcheck/ghostcheck/model/rules"

// Checker is what checks a rule.
type Checker string

const (
	// ByRun: the driver, on every observation of the coordinator during
	// a run (model's invariants, and the request headers its clients
	// send); Check reports them at either level.
	ByRun Checker = "run"
	// ByExact: Check at LevelExact.
	ByExact Checker = "exact"
	// ByObservable: Check at LevelObservable.
	ByObservable Checker = "observable"
	// ByClient: rules.CheckClients, on the traffic of a real client
	// library that the recording proxy (ghostcheck proxy) saw.
	ByClient Checker = "client"
)

// RuleInfo describes a rule a report can name.
type RuleInfo struct {
	// ID is what Report.Rule, RoundViolation.Rule and corpus files hold.
	ID rules.Rule
	// Meaning says in words what the rule protects.
	Meaning string
	// CheckedBy lists what checks it.
	CheckedBy []Checker
}

// Rules lists every rule a run, a check or the proxy can report: model's
// invariants and client rules, then the rules of the checks. Each is
// documented under its id in docs/PROTOCOL.md.
func Rules() []RuleInfo {
	client := map[rules.Rule]bool{}
	for _, r := range rules.ClientRules() {
		client[r] = true
	}
	var out []RuleInfo
	for _, r := range rules.Judged() {
		var by []Checker
		if !r.IsClientOnly() {
			by = append(by, ByRun)
		}
		if r == rules.RuleMonotonicEpochs || r == rules.RuleStaticRestartKeepsAssignment {
			by = append(by, ByObservable) // from the epochs responses carry
		}
		if client[r] {
			by = append(by, ByClient)
		}
		out = append(out, RuleInfo{ID: r, Meaning: r.Meaning(), CheckedBy: by})
	}
	return append(out,
		RuleInfo{ID: RuleLinearizability, Meaning: meaningLinearizability, CheckedBy: []Checker{ByExact}},
		RuleInfo{ID: RuleHarnessAssumption, Meaning: meaningHarnessAssumption, CheckedBy: []Checker{ByRun, ByExact, ByObservable}},
		RuleInfo{ID: RuleObservableResponse, Meaning: meaningObservableResponse, CheckedBy: []Checker{ByObservable}},
		RuleInfo{ID: RuleMemberVanished, Meaning: meaningMemberVanished, CheckedBy: []Checker{ByObservable}},
		RuleInfo{ID: RuleDescribeAgrees, Meaning: meaningDescribeAgrees, CheckedBy: []Checker{ByRun}},
	)
}

// RuleMeaning says in words what the rule with this id protects (Rules);
// an id no rule has, as an old corpus file may hold, says so.
func RuleMeaning(id string) string {
	for _, r := range Rules() {
		if string(r.ID) == id {
			return r.Meaning
		}
	}
	return "not a rule this version of ghostcheck checks"
}
