package report

import (
	"fmt"
	"html/template"
	"io"
	"path/filepath"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/docs"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
)

// Index is a command's results page, out/index.html: what ran, the
// failures with links to their pages, the summary, plots, and for a
// broker the conformance table and the histories. `run` and `check` fill
// it; any command that judges histories can (a proxy recording a client
// library's traffic would fill Failures, Histories and Plots).
type Index struct {
	// Kind names the command ("run", "check").
	Kind string
	// Title and Subtitle say what ran; Verdict is the headline result
	// ("Ok", "FAIL", "Unknown") and Headline the sentence that goes
	// with it.
	Title, Subtitle   string
	Verdict, Headline string
	Failures          []FailureLink
	Summary           Table
	Plots             []Plot
	Cases             []CaseRow
	Histories         []HistoryRow
	// Notes are closing remarks (what a number means, what was skipped).
	Notes []string
}

// Table is a plain table: a header and rows of cells.
type Table struct {
	Columns []string
	Rows    [][]string
}

// FailureLink is one failure in the index.
type FailureLink struct {
	// Label says where it was found ("v1 (KIP-1082), seed 12").
	Label                 string
	Verdict, Rule, Detail string
	Replay                string
	// Href is its page, relative to the index.
	Href string
}

// CaseRow is one conformance case with the rule it holds the broker to.
type CaseRow struct {
	Name, Status       string
	Observed, Expected string
	// Section (an id), SectionTitle, Source and Checks come from the
	// case's row in docs/PROTOCOL.md; URL is the section on the web.
	Section, SectionTitle, Source, Checks, URL string
	// Rule is the section's first paragraph.
	Rule template.HTML
}

// HistoryRow is one fault-injected history of `check`.
type HistoryRow struct {
	Seed                  uint64
	Verdict, Rule, Detail string
	Operations            int
	LagMs                 int64
	Seconds               float64
	// Href is its failure page; File its history, when it has no page.
	Href, File string
}

// CaseRows joins conformance results with their rows and sections in
// docs/PROTOCOL.md. The source is the case's own (Result.Source), which a
// test keeps equal to its row's; the row's stands in for a result without
// one.
func CaseRows(results []conformance.Result) []CaseRow {
	out := make([]CaseRow, 0, len(results))
	for _, r := range results {
		row := CaseRow{Name: r.Name, Status: r.StatusText(), Observed: r.Observed, Expected: r.Expected, Checks: r.Rule}
		if c, ok := docs.FindCase(r.Name); ok {
			row.Checks, row.Source = c.Checks, c.Source
		}
		if r.Source != "" {
			row.Source = r.Source
		}
		if s, ok := docs.Lookup(r.Name); ok {
			row.Section, row.SectionTitle, row.URL = s.ID, s.Title, DocURL(s)
			row.Rule = markdown(s.Summary())
		}
		out = append(out, row)
	}
	return out
}

// HistoryRows lists check's histories; pages maps a seed to its failure
// page (relative to the index).
func HistoryRows(hs []conformance.HistoryResult, pages map[uint64]string) []HistoryRow {
	out := make([]HistoryRow, 0, len(hs))
	for _, h := range hs {
		verdict := string(h.Verdict)
		if h.Status != "" {
			verdict = h.Status // KNOWN or CRASH say more than the verdict
		}
		out = append(out, HistoryRow{Seed: h.Seed, Verdict: verdict, Rule: h.Rule, Detail: h.Detail,
			Operations: h.Operations, LagMs: h.LagMs, Seconds: h.Seconds, Href: pages[h.Seed], File: h.File})
	}
	return out
}

// WriteIndex writes dir/index.html and returns its path.
func WriteIndex(dir string, ix Index) (string, error) {
	path := filepath.Join(dir, "index.html")
	return path, history.WritePath(path, func(w io.Writer) error { return RenderIndex(w, ix) })
}

// indexPage is what the index template shows.
type indexPage struct {
	Index
	CSS        template.CSS
	CaseCounts string
}

// RenderIndex writes the index page.
func RenderIndex(w io.Writer, ix Index) error {
	t, err := parse("index.html.tmpl")
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, c := range ix.Cases {
		counts[c.Status]++
	}
	cc := fmt.Sprintf("%d cases: %d pass, %d fail, %d skip", len(ix.Cases), counts["PASS"], counts["FAIL"], counts["SKIP"])
	return t.Execute(w, indexPage{Index: ix, CSS: css(), CaseCounts: cc})
}

// FailureOf is the index's link to a failure page written by
// WriteFailure.
func FailureOf(label string, rep *check.Report, art Artifacts, replay string) FailureLink {
	return FailureLink{Label: label, Verdict: string(rep.Verdict), Rule: rep.Rule, Detail: rep.Detail, Replay: replay,
		Href: filepath.Base(art.HTML)}
}
