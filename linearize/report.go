package linearize

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	// Partial: the timeline's search ran out of its bound (the check's
	// timeout), so the timeline shows the longest partial linearizations
	// it found rather than a whole one.
	Partial bool
}

// WriteArtifacts writes the history file and the HTML timeline of a checked
// run into dir (created if needed) as name.jsonl and name.html. The timeline
// needs porcupine's verbose search, which Check does not run (it replays
// sequential partitions without a search, and its search keeps no
// linearization); that search is bounded by the check's own timeout, so a
// history whose check ran out costs at most as much again, never a hang.
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
	m := porcupineModel(res.Plan.ModelConfig())
	lin, info := porcupine.CheckOperationsVerbose(m, porcupineOps(res.History), rep.timelineBudget())
	art.Partial = lin == porcupine.Unknown
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

// timelineBudget bounds the timeline's search: the check's own bound (a
// Report not made by Check gets the default).
func (r *Report) timelineBudget() time.Duration {
	if r.budget <= 0 {
		return CheckOptions{}.timeout()
	}
	return r.budget
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
	if art.HTML != "" && art.Partial {
		fmt.Fprintf(w, "timeline: %s (partial: its search ran out of time)\n", art.HTML)
	} else if art.HTML != "" {
		fmt.Fprintf(w, "timeline: %s\n", art.HTML)
	}
	if replay != "" {
		fmt.Fprintf(w, "replay:   %s\n", replay)
	}
}
