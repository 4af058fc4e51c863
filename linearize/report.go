package linearize

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/anishathalye/porcupine"
)

// Artifacts are the files a failed check leaves behind.
type Artifacts struct {
	// History is the JSON-lines history, in the corpus format, with the
	// plan and the verdict it must reproduce.
	History string
	// HTML is porcupine's timeline of the history, with the violation
	// annotated.
	HTML string
}

// WriteArtifacts writes the history file and the HTML timeline of a checked
// run into dir (created if needed) as name.jsonl and name.html.
func WriteArtifacts(dir, name string, hdr FileHeader, res *Result, rep *Report) (Artifacts, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Artifacts{}, err
	}
	art := Artifacts{History: filepath.Join(dir, name+".jsonl"), HTML: filepath.Join(dir, name+".html")}
	hdr.Expect = Expect{Verdict: rep.Verdict, Rule: rep.Rule, Linearizable: string(rep.Linearizable)}
	f, err := os.Create(art.History)
	if err != nil {
		return art, err
	}
	if err := WriteFile(f, hdr, res.History); err != nil {
		f.Close()
		return art, err
	}
	if err := f.Close(); err != nil {
		return art, err
	}
	// A verbose check keeps what the timeline needs.
	m := porcupineModel(res.Plan.ModelConfig())
	ops := make([]porcupine.Operation, len(res.History))
	for i := range res.History {
		op := &res.History[i]
		ops[i] = porcupine.Operation{ClientId: op.Client, Input: op, Call: op.Call, Output: op.Response, Return: op.Return}
	}
	_, info := porcupine.CheckOperationsVerbose(m, ops, 0)
	var notes []porcupine.Annotation
	for _, v := range res.Violations {
		t := eventAt(res.History, v.At)
		notes = append(notes, porcupine.Annotation{
			ClientId: len(res.Plan.Clients) + 1, Tag: "invariants", Start: t, End: t,
			Description: v.Rule, Details: fmt.Sprintf("round %d, t=%d ms: %s", v.Round, v.At, v.What),
			BackgroundColor: "#f8c4c4",
		})
	}
	info.AddAnnotations(notes)
	if err := porcupine.VisualizePath(m, info, art.HTML); err != nil {
		return art, err
	}
	return art, nil
}

// eventAt is the event time of the last operation delivered at or before
// coordinator time at, so annotations land where the violation was seen.
func eventAt(h History, at int64) int64 {
	var t int64
	for _, op := range h {
		if op.At <= at && op.Return != Unknown && op.Return > t {
			t = op.Return
		}
	}
	return t
}

// Explain writes the report for a person: the verdict, the rule broken in
// words, where to look, and the command that replays it.
func (r *Report) Explain(w io.Writer, art Artifacts, replay string) {
	fmt.Fprintf(w, "verdict: %s\n", r.Verdict)
	if r.Rule != "" {
		fmt.Fprintf(w, "rule:    %s — %s\n", r.Rule, RuleMeaning(r.Rule))
	}
	if r.Detail != "" {
		fmt.Fprintf(w, "what:    %s\n", r.Detail)
	}
	if r.Mismatch != "" && r.Mismatch != r.Detail {
		fmt.Fprintf(w, "also:    the history is not linearizable: %s\n", r.Mismatch)
	}
	if len(r.Invariants) > 1 {
		var more []string
		for _, v := range r.Invariants[1:] {
			more = append(more, fmt.Sprintf("%s (round %d)", v.Rule, v.Round))
		}
		fmt.Fprintf(w, "also broken: %s\n", strings.Join(more, ", "))
	}
	if art.History != "" {
		fmt.Fprintf(w, "history:  %s\n", art.History)
	}
	if art.HTML != "" {
		fmt.Fprintf(w, "timeline: %s\n", art.HTML)
	}
	if replay != "" {
		fmt.Fprintf(w, "replay:   %s\n", replay)
	}
}

// RuleMeaning says in words what a rule protects.
func RuleMeaning(rule string) string {
	switch rule {
	case "NoGhosts":
		return "every member belongs to a live process that holds its id, or to one that ended less than a session timeout ago"
	case "OneMemberPerProcess":
		return "each live process accounts for at most one member"
	case "UniqueMemberIDs":
		return "no two live processes hold the same member id"
	case "NoZeroUUIDs":
		return "no member id, client instance id or generated id is the zero UUID"
	case "NoDoubleClientAssignment":
		return "no partition is owned by two members at once"
	case "MonotonicEpochs":
		return "member and group epochs never go backwards"
	case "StableMemberID":
		return "a KIP-1082 process keeps one member id for its whole life"
	case "QuiescentMembership":
		return "after every client stops and a session timeout passes, a group holds exactly its live joined processes"
	case "ClientInstanceIDInHeader":
		return "every request header v2 carries the client's own instance id in tag 0 (KIP-1313)"
	case "ClientIDOnFirstRequest":
		return "ClientId rides on a connection's first request only, null after (KIP-1313)"
	case "Linearizability":
		return "the concurrent history has a legal sequential order under the reference model"
	case "HarnessAssumption":
		return "the harness's own assumptions held (a failure here is not the target's bug)"
	}
	return "see docs/PROTOCOL.md, Part C"
}
