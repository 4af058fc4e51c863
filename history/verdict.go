package history

// Verdict is the outcome of checking a history (package check gives it; a
// history file's Expect holds the one it must reproduce). Unknown is
// honest: the check could not decide (the linearizability search timed
// out, or the harness's own assumptions failed). It is never a pass.
type Verdict string

// The verdicts.
const (
	// Ok: every rule held.
	Ok Verdict = "Ok"
	// Illegal: a rule was broken (the report names the first).
	Illegal Verdict = "Illegal"
	// Unknown: undecided.
	Unknown Verdict = "Unknown"
)
