package rules

// The registry of every rule a report can name: the rules this package's
// checks judge (Judged), and the rules judged by the checks of a history
// as a whole (package check) and by the driver, which need a run or a
// model and so are named here but judged there.

// The rules judged outside this package.
const (
	// RuleLinearizability is broken when no sequential order of the
	// history is legal under the model (package check, exact level), and
	// undecided when the search for one ran out of time.
	RuleLinearizability Rule = "Linearizability"
	// RuleHarnessAssumption is broken when the history breaks what the
	// checker relies on or the harness failed in the run: the verdict is
	// then Unknown.
	RuleHarnessAssumption Rule = "HarnessAssumption"
	// RuleObservableResponse is broken by a response the protocol does
	// not allow for its request (package check, observable level).
	RuleObservableResponse Rule = "ObservableResponse"
	// RuleMemberVanished is broken by a member that left its group
	// without a leave, a removal, a takeover or a timer that may have
	// fired (package check, observable level).
	RuleMemberVanished Rule = "MemberVanished"
	// RuleDescribeAgrees is broken by a ConsumerGroupDescribe answer that
	// does not show the coordinator's own state of the same instant (the
	// driver, for a target that shows its whole state).
	RuleDescribeAgrees Rule = "DescribeAgrees"
)

// judgedElsewhereMeaning is Meaning for the rules judged outside this
// package ("" for any other id).
func judgedElsewhereMeaning(r Rule) string {
	switch r {
	case RuleLinearizability:
		return meaningLinearizability
	case RuleHarnessAssumption:
		return meaningHarnessAssumption
	case RuleObservableResponse:
		return meaningObservableResponse
	case RuleMemberVanished:
		return meaningMemberVanished
	case RuleDescribeAgrees:
		return meaningDescribeAgrees
	}
	return ""
}

const (
	meaningLinearizability    = "the concurrent history has a legal sequential order under the reference model"
	meaningHarnessAssumption  = "the harness's own assumptions held (a failure here is not the target's bug)"
	meaningObservableResponse = "each response is one the protocol allows for its request: error codes the API may answer, member ids and epochs echoed as promised, INVALID_REQUEST where KIP-1082 and KIP-1313 demand it"
	meaningMemberVanished     = "a member leaves its group only by a leave, an administrative removal, a static takeover, or a session or rebalance timeout that has passed"
	meaningDescribeAgrees     = "ConsumerGroupDescribe shows the groups the coordinator holds: their epochs, and each member's id, epoch, instance id, subscription, assignment and (when current) target assignment"
)

// Checker is what checks a rule.
type Checker string

const (
	// ByRun: the driver, on every observation of the coordinator during
	// a run (the invariants, and the request headers its clients send);
	// package check reports them at either level.
	ByRun Checker = "run"
	// ByExact: package check at the exact level.
	ByExact Checker = "exact"
	// ByObservable: package check at the observable level.
	ByObservable Checker = "observable"
	// ByClient: CheckClients, on the traffic of a real client library
	// that the recording proxy (ghostcheck proxy) saw.
	ByClient Checker = "client"
)

// Info describes a rule a report can name.
type Info struct {
	// ID is what a report's rule, a violation's and a corpus file hold.
	ID Rule
	// Meaning says in words what the rule protects.
	Meaning string
	// CheckedBy lists what checks it.
	CheckedBy []Checker
}

// All lists every rule a run, a check or the proxy can report: the rules
// of Judged, then those judged outside this package. Each is documented
// under its id in docs/PROTOCOL.md.
func All() []Info {
	client := map[Rule]bool{}
	for _, r := range ClientRules() {
		client[r] = true
	}
	var out []Info
	for _, r := range Judged() {
		var by []Checker
		if !r.IsClientOnly() {
			by = append(by, ByRun)
		}
		if r == RuleMonotonicEpochs || r == RuleStaticRestartKeepsAssignment {
			by = append(by, ByObservable) // from the epochs responses carry
		}
		if client[r] {
			by = append(by, ByClient)
		}
		out = append(out, Info{ID: r, Meaning: r.Meaning(), CheckedBy: by})
	}
	for _, r := range []struct {
		id Rule
		by []Checker
	}{
		{RuleLinearizability, []Checker{ByExact}},
		{RuleHarnessAssumption, []Checker{ByRun, ByExact, ByObservable}},
		{RuleObservableResponse, []Checker{ByObservable}},
		{RuleMemberVanished, []Checker{ByObservable}},
		{RuleDescribeAgrees, []Checker{ByRun}},
	} {
		out = append(out, Info{ID: r.id, Meaning: r.id.Meaning(), CheckedBy: r.by})
	}
	return out
}

// Meaning says in words what the rule with this id protects (All); an id
// no rule has, as an old corpus file may hold, says so.
func Meaning(id string) string {
	for _, r := range All() {
		if string(r.ID) == id {
			return r.Meaning
		}
	}
	return "not a rule this version of ghostcheck checks"
}
