package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
)

// Artifacts are the files a failed check leaves behind.
type Artifacts struct {
	// History is the JSON-lines history, in the corpus format, with the
	// plan and the verdict it must reproduce.
	History string
	// Timeline is porcupine's timeline of the history (NAME.timeline.html),
	// with the violation annotated and each operation's network fate in
	// its label and tooltip.
	Timeline string
	// HTML is the failure page a person reads first (NAME.html): the
	// report package writes it around the timeline. Empty when only
	// WriteArtifacts ran.
	HTML string
	// Partial: the timeline's search ran out of its bound (the check's
	// timeout), so the timeline shows the longest partial linearizations
	// it found rather than a whole one.
	Partial bool
	// Window says which operations the timeline shows when the history
	// was too large to show whole ("" when it shows every one).
	Window string
}

// WriteArtifacts writes the history file and porcupine's timeline of a
// checked run into dir (created if needed) as name.jsonl and
// name.timeline.html. The timeline needs porcupine's verbose search, which
// Check does not run (it replays sequential partitions without a search,
// and its search keeps no linearization); that search is bounded by the
// check's own timeout, so a history whose check ran out costs at most as
// much again, never a hang.
func writeArtifacts(dir, name string, hdr history.FileHeader, res *driver.Result, rep *check.Report) (Artifacts, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Artifacts{}, err
	}
	art := Artifacts{History: filepath.Join(dir, name+".jsonl"), Timeline: filepath.Join(dir, name+".timeline.html")}
	hdr.Expect = history.Expect{Verdict: rep.Verdict, Rule: rep.Rule, Linearizable: string(rep.Linearizable)}
	if err := history.WritePath(art.History, func(w io.Writer) error { return history.WriteFile(w, hdr, res.History) }); err != nil {
		return art, err
	}
	err := history.WritePath(art.Timeline, func(w io.Writer) error {
		tl, err := WriteTimeline(w, res, rep, TimelineOptions{Title: name})
		art.Partial, art.Window = tl.Partial, tl.Scope
		return err
	})
	return art, err
}

// eventAt is the event time of the last operation delivered at or before
// coordinator time at, so annotations land where the violation was seen.
func eventAt(h history.History, at int64) int64 {
	var t int64
	for _, op := range h {
		if op.At <= at && op.Return != history.Never && op.Return > t {
			t = op.Return
		}
	}
	return t
}

// Explain writes the report for a person: the verdict, the rule broken in
// words, where to look, and the command that replays it.
func Explain(w io.Writer, r *check.Report, art Artifacts, replay string) {
	fmt.Fprintf(w, "verdict: %s\n", r.Verdict)
	if r.Rule != "" {
		fmt.Fprintf(w, "rule:    %s — %s\n", r.Rule, rules.Meaning(r.Rule))
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
	if art.HTML != "" {
		fmt.Fprintf(w, "report:   %s\n", art.HTML)
	}
	if art.History != "" {
		fmt.Fprintf(w, "history:  %s\n", art.History)
	}
	if art.Timeline != "" && art.Partial {
		fmt.Fprintf(w, "timeline: %s (partial: its search ran out of time)\n", art.Timeline)
	} else if art.Timeline != "" {
		fmt.Fprintf(w, "timeline: %s\n", art.Timeline)
	}
	if replay != "" {
		fmt.Fprintf(w, "replay:   %s\n", replay)
	}
}

// TimelineOptions shape WriteTimeline.
type TimelineOptions struct {
	// Title names the page (the report's name).
	Title string
	// MaxBytes bounds the page (0: 900 KiB). A history whose timeline
	// would be larger is shown as a window: the operations of the first
	// violation's group up to just after it, as many as fit, and the page
	// says which.
	MaxBytes int
}

// Timeline says what WriteTimeline drew.
type Timeline struct {
	// Partial: the search ran out of its bound before it found a whole
	// linearization.
	Partial bool
	// Shown of Total operations are drawn; Scope says which, when not all.
	Shown, Total int
	Scope        string
}

// maxTimelineOps is the largest window WriteTimeline tries first; past
// that porcupine's page (every operation with its states) is megabytes.
const maxTimelineOps = 1500

// WriteTimeline writes porcupine's timeline of a checked run: one row per
// process (named), each operation labelled with its request, response
// and network fate (the tooltip has the whole of each), the invariant
// violations on a row of their own, and a script that opens the page
// scrolled to the first violation. Its searches share the check's bound
// (Report's budget), so writing it never runs an unbounded search.
func WriteTimeline(w io.Writer, res *driver.Result, rep *check.Report, opts TimelineOptions) (Timeline, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 900 << 10
	}
	deadline := time.Now().Add(rep.SearchBudget())
	limit := min(len(res.History), maxTimelineOps)
	for attempt := 0; ; attempt++ {
		win := windowFor(res, rep, limit)
		page, partial, err := renderTimeline(res, rep, win, time.Until(deadline), opts.Title)
		if err != nil {
			return Timeline{}, err
		}
		tl := Timeline{Partial: partial, Shown: len(win.ops), Total: len(res.History), Scope: win.scope}
		if len(page) <= opts.MaxBytes || limit <= 20 || attempt >= 4 {
			_, err = w.Write(page)
			return tl, err
		}
		limit = int(float64(limit) * float64(opts.MaxBytes) / float64(len(page)) * 0.9)
	}
}

// timelineWindow is the part of a history a timeline draws.
type timelineWindow struct {
	ops history.History
	// before are the operations replayed on the model, in delivery
	// order, to give the window its starting state.
	before history.History
	scope  string
}

// windowFor picks at most limit operations: the whole history when it
// fits, else the first violation's group (and every restart), ending a
// little after the violation.
func windowFor(res *driver.Result, rep *check.Report, limit int) timelineWindow {
	h := res.History
	if len(h) <= limit {
		return timelineWindow{ops: h}
	}
	focus, group := timelineFocus(res, rep)
	part := h
	if group != "" {
		part = nil
		for i := range h {
			if h[i].Restart || check.Partition(&h[i]) == "group:"+group {
				part = append(part, h[i])
			}
		}
	}
	end := len(part)
	for i := range part {
		if part[i].At > focus {
			end = min(len(part), i+limit/10)
			break
		}
	}
	start := max(0, end-limit)
	where := "the history"
	if group != "" {
		where = "group " + group
	}
	scope := fmt.Sprintf("a window: %d of the %d operations of %s (%d in the whole history), from its start to just after the first violation",
		end-start, len(part), where, len(h))
	if start > 0 {
		scope = fmt.Sprintf("a window: %d of the %d operations of %s (%d in the whole history), ending just after the first violation; it starts from the model's state after the %d operations before it, replayed in delivery order",
			end-start, len(part), where, len(h), start)
	}
	return timelineWindow{ops: part[start:end], before: part[:start], scope: scope}
}

// timelineFocus is the coordinator time and group of the first
// violation: the first invariant broken, else the operation the model
// answers differently, else the end.
func timelineFocus(res *driver.Result, rep *check.Report) (int64, string) {
	h := res.History
	if len(rep.Invariants) > 0 {
		v := rep.Invariants[0]
		return v.At, groupIn(v.What, res.Plan.Groups())
	}
	var id int
	if _, err := fmt.Sscanf(rep.Mismatch, "op %d", &id); err == nil && id >= 0 && id < len(h) {
		k := check.Partition(&h[id])
		return h[id].At, strings.TrimPrefix(k, "group:")
	}
	if len(h) == 0 {
		return 0, ""
	}
	return h[len(h)-1].At, ""
}

// groupIn finds the group a violation's words name ("group g1 holds
// ..."), if it is one of groups.
func groupIn(text string, groups []string) string {
	for _, f := range strings.Split(text, "group ")[1:] {
		name := strings.TrimRight(strings.Fields(f + " ")[0], ".,:;)")
		for _, g := range groups {
			if g == name {
				return g
			}
		}
	}
	return ""
}

// renderTimeline runs porcupine's verbose search on the window (bounded
// by budget) and returns its page with ghostcheck's labels, banner and
// scroll script.
func renderTimeline(res *driver.Result, rep *check.Report, win timelineWindow, budget time.Duration, title string) ([]byte, bool, error) {
	m := check.TimelineModel(res.Plan.ModelConfig(), win.before, win.ops)
	m.DescribeOperation = func(in, _ any) string { return timelineLabel(in.(*history.Op)) }
	m.DescribeOperationMetadata = func(md any) string { s, _ := md.(string); return s }
	ops := check.PorcupineOps(win.ops)
	for i := range ops {
		ops[i].Metadata = timelineTooltip(&win.ops[i])
	}
	budget = max(budget, time.Millisecond) // porcupine reads 0 as no bound
	lin, info := porcupine.CheckOperationsVerbose(m, ops, budget)
	var notes []porcupine.Annotation
	for _, v := range res.Violations {
		t := eventAt(win.ops, v.At)
		notes = append(notes, porcupine.Annotation{
			Tag: "invariants", Start: t, End: t, Description: v.Rule,
			Details:         fmt.Sprintf("round %d, t=%d ms: %s", v.Round, v.At, v.What),
			BackgroundColor: "#f8c4c4",
		})
	}
	info.AddAnnotations(notes)
	var b bytes.Buffer
	if err := porcupine.Visualize(m, info, &b); err != nil {
		return nil, false, err
	}
	return decorateTimeline(b.Bytes(), res.History, rep, win, title), lin == porcupine.Unknown, nil
}

// timelineLabel is an operation's box: the request in short, the response
// in short, and what the network did to it.
func timelineLabel(op *history.Op) string {
	if op.Restart {
		return "coordinator restart"
	}
	s := history.RequestLabel(op) + " → " + history.ResponseLabel(op)
	if f := history.Fate(*op); f != "" {
		s += " (" + f + ")"
	}
	return s
}

// timelineTooltip is an operation's tooltip (porcupine shows it as HTML):
// who sent it on which connection and when, the whole request and
// response, and the network's part.
func timelineTooltip(op *history.Op) string {
	esc := html.EscapeString
	if op.Restart {
		return fmt.Sprintf("<b>coordinator restart</b> at t=%d ms (round %d): %s", op.At, op.Sent, esc(history.Fate(*op)))
	}
	s := fmt.Sprintf("<b>%s</b>, connection %d, sent in round %d, delivered at t=%d ms<br><br>%s",
		esc(op.Name), op.Conn.ID, op.Sent, op.At, esc(history.Describe(op)))
	if f := history.Fate(*op); f != "" {
		s += "<br><br><b>network:</b> " + esc(f)
	}
	return s
}

// timelineScript names porcupine's rows after the processes and opens the
// page at the first violation: the first annotation on the invariants
// row, else porcupine's first illegal linearization point. It scrolls
// only its own window, so a page that frames the timeline stays put.
const timelineScript = `
;(function () {
  var names = %s
  var labels = document.querySelectorAll('#canvas svg > g:first-of-type > text')
  labels.forEach(function (t) {
    var i = Number(t.textContent)
    if (String(i) === t.textContent && names[i]) t.textContent = names[i]
  })
  var marks = Array.prototype.slice.call(document.querySelectorAll('rect.client-annotation-rect'))
  if (marks.length === 0) marks = Array.prototype.slice.call(document.querySelectorAll('.linearization-invalid'))
  if (marks.length === 0) return
  marks.sort(function (a, b) { return a.getBoundingClientRect().left - b.getBoundingClientRect().left })
  var r = marks[0].getBoundingClientRect()
  window.scrollTo(Math.max(0, window.scrollX + r.left - window.innerWidth / 2),
    Math.max(0, window.scrollY + r.top - window.innerHeight / 2))
})()
`

// decorateTimeline gives porcupine's page a title, a banner that says how
// to read it (and which window of the history it shows), and the script.
func decorateTimeline(page []byte, h history.History, rep *check.Report, win timelineWindow, title string) []byte {
	names := map[int]string{}
	maxID := 0
	for _, op := range h {
		names[op.Client] = op.Name
		maxID = max(maxID, op.Client)
	}
	list := make([]string, maxID+1)
	for i := range list {
		list[i] = names[i]
	}
	js, _ := json.Marshal(list)
	esc := html.EscapeString
	banner := fmt.Sprintf(`<div id="gc-banner" style="margin:0 10px;padding-top:42px;font:13px/1.4 sans-serif;color:#333">`+
		`<b>%s</b>: porcupine's timeline (%s %s). One row per process; a box spans the coordinator's handling of one request. `+
		`Hover a box for the whole request, the response and what the network did to it; click to pin it. `+
		`The red box on the <i>invariants</i> row is the first violation.%s</div>`,
		esc(title), esc(string(rep.Verdict)), esc(rep.Rule), scopeNote(win))
	s := string(page)
	s = strings.Replace(s, "<title>Porcupine</title>", "<title>"+esc(title)+" — timeline</title>", 1)
	s = strings.Replace(s, "<body>", "<body>\n"+banner, 1)
	s = strings.Replace(s, "margin-top: 45px;", "margin-top: 8px;", 1)
	if i := strings.LastIndex(s, "</script>"); i >= 0 {
		s = s[:i] + fmt.Sprintf(timelineScript, js) + s[i:]
	}
	return []byte(s)
}

func scopeNote(win timelineWindow) string {
	if win.scope == "" {
		return ""
	}
	return " <b>Shown:</b> " + html.EscapeString(win.scope) + "."
}
