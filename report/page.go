package report

import (
	"embed"
	"fmt"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"html/template"
	"io"
	"path/filepath"
	"strings"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/docs"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/plan"
)

//go:embed assets
var assets embed.FS

// templates are parsed once per page written; they are small.
func parse(name string) (*template.Template, error) {
	return template.ParseFS(assets, "assets/"+name)
}

func css() template.CSS {
	b, _ := assets.ReadFile("assets/style.css")
	return template.CSS(b)
}

// Failure is one failing history, as its page shows it.
type Failure struct {
	// Name is the pages' file name without extension: NAME.html,
	// NAME.timeline.html and NAME.jsonl.
	Name string
	// Header is the history file's header (target, mutant, title, plan);
	// its Expect is filled from Report.
	Header history.FileHeader
	Result *driver.Result
	Report *check.Report
	// Replay is the command that reproduces the failure.
	Replay string
	// Ghosts are member ids known to be ghosts besides those the run
	// flagged (Result.Ghosts) and the NoGhosts violations name.
	Ghosts []string
}

// WriteFailure writes a failing history's files into dir: the history
// (NAME.jsonl), porcupine's timeline (NAME.timeline.html) and the page a
// person reads (NAME.html), which tells the story and frames the
// timeline. Everything is inline; the page opens from disk with no
// network. The timeline's search is bounded by the check's timeout.
func WriteFailure(dir string, f Failure) (Artifacts, error) {
	art, err := writeArtifacts(dir, f.Name, f.Header, f.Result, f.Report)
	if err != nil {
		return art, err
	}
	art.HTML = filepath.Join(dir, f.Name+".html")
	err = history.WritePath(art.HTML, func(w io.Writer) error {
		return RenderFailure(w, f, art)
	})
	return art, err
}

// RenderFailure writes the failure page of f, whose history and timeline
// art names (the page links them by their base names, beside it).
func RenderFailure(w io.Writer, f Failure, art Artifacts) error {
	t, err := parse("failure.html.tmpl")
	if err != nil {
		return err
	}
	return t.Execute(w, failureData(f, art))
}

// failurePage is what the failure template shows.
type failurePage struct {
	CSS                       template.CSS
	Name, Title               string
	Verdict, Rule, Meaning    string
	Detail, Also, Replay      string
	Seed, Target, Plan        string
	HistoryHref, TimelineHref string
	Partial                   bool
	Scope                     string
	Doc                       *docView
	Story                     []event
	Omitted                   int
	Groups                    []groupView
}

// docView is a rule's section of docs/PROTOCOL.md, rendered.
type docView struct {
	ID, Title, URL string
	Summary, Body  template.HTML
}

type groupView struct {
	Name   string
	SVG    template.HTML
	Hidden int
}

func failureData(f Failure, art Artifacts) failurePage {
	rep, res := f.Report, f.Result
	p := failurePage{CSS: css(), Name: f.Name, Title: f.Header.Title, Verdict: string(rep.Verdict), Rule: rep.Rule,
		Detail: rep.Detail, Replay: f.Replay, Seed: fmt.Sprint(res.Plan.Seed), Target: targetWords(f.Header),
		Plan: planWords(&res.Plan, len(res.History)), HistoryHref: filepath.Base(art.History),
		TimelineHref: filepath.Base(art.Timeline), Partial: art.Partial, Scope: art.Window}
	if rep.Rule != "" {
		p.Meaning = "— " + rules.Meaning(rep.Rule)
	}
	if rep.Detail == "" {
		p.Detail = "nothing was broken"
	}
	var also []string
	if rep.Mismatch != "" && rep.Mismatch != rep.Detail {
		also = append(also, "the history is not linearizable: "+rep.Mismatch)
	}
	for _, v := range rep.Invariants[min(1, len(rep.Invariants)):] {
		also = append(also, fmt.Sprintf("%s (round %d)", v.Rule, v.Round))
	}
	p.Also = strings.Join(also, "; ")
	p.Doc = docFor(rep.Rule)
	a := analyze(res, rep, f.Ghosts)
	p.Story, p.Omitted = storyWindow(a.events, a.omitted, a.focus)
	for _, g := range a.groups {
		svg, hidden := groupSVG(a, g)
		p.Groups = append(p.Groups, groupView{Name: g, SVG: svg, Hidden: hidden})
	}
	return p
}

// docFor renders the section of docs/PROTOCOL.md a rule or case cites.
func docFor(id string) *docView {
	s, ok := docs.Lookup(id)
	if !ok {
		return nil
	}
	summary, rest, _ := strings.Cut(strings.TrimSpace(s.Text), "\n\n")
	summary = strings.TrimPrefix(summary, "**Rule.** ")
	sum := markdown(summary)
	// The summary sits after the bold title: drop its paragraph tags.
	sum = template.HTML(strings.TrimSuffix(strings.TrimPrefix(string(sum), "<p>"), "</p>"))
	return &docView{ID: s.ID, Title: s.Title, URL: DocURL(s), Summary: sum, Body: markdown(rest)}
}

// maxStory is the most lines a story has; a longer one keeps the lines
// around the first violation.
const maxStory = 120

// storyWindow cuts a long story down to maxStory lines: first without
// ApiVersions and telemetry, then to the first violation's group (and the
// restarts), then to the lines around the first violation. It counts what
// it leaves out.
func storyWindow(evs []event, omitted int, focus string) ([]event, int) {
	keep := func(ok func(e event) bool) {
		if len(evs) <= maxStory {
			return
		}
		var out []event
		for _, e := range evs {
			if ok(e) {
				out = append(out, e)
			}
		}
		omitted += len(evs) - len(out)
		evs = out
	}
	keep(func(e event) bool { return !e.Minor })
	if focus != "" {
		keep(func(e event) bool { return e.Group == focus || e.Class == "restart" })
	}
	if len(evs) <= maxStory {
		return evs, omitted
	}
	first := len(evs) - 1
	for i, e := range evs {
		if e.First {
			first = i
			break
		}
	}
	start := max(0, min(first-maxStory*2/3, len(evs)-maxStory))
	return evs[start : start+maxStory], omitted + len(evs) - maxStory
}

func targetWords(h history.FileHeader) string {
	s := h.Target
	if h.Mutant != "" {
		s += " with mutant " + h.Mutant
	}
	return s
}

// planWords summarizes a plan in a line.
func planWords(p *plan.Plan, ops int) string {
	s := fmt.Sprintf("%s; %d ms rounds, session timeout %d ms; %d operations", p.String(), p.RoundMs, p.SessionTimeoutMs, ops)
	var fs []string
	for i, f := range p.Faults {
		if i == 4 {
			fs = append(fs, fmt.Sprintf("and %d more", len(p.Faults)-4))
			break
		}
		name := fmt.Sprint(f.Client)
		if f.Client < len(p.Clients) {
			name = p.Clients[f.Client].Name
		}
		fs = append(fs, fmt.Sprintf("%s on %s's request %d", f.Kind, name, f.Request))
	}
	if len(fs) > 0 {
		s += " (" + strings.Join(fs, ", ") + ")"
	}
	return s
}
