package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/internal/targets"
)

// hostile are strings a crafted history file (or a broker, or a client
// through the proxy) puts where ids and messages go: each, written into a
// page as markup, runs a script that counts itself in window.__gcXSS.
var hostile = map[string]string{
	"group":    `g1<img src=x onerror="window.__gcXSS=(window.__gcXSS||0)+1">`,
	"instance": `inst<script>window.__gcXSS=(window.__gcXSS||0)+1</script>`,
	"client":   `c5<img src=y onerror="window.__gcXSS=(window.__gcXSS||0)+1">`,
	"member":   `m<img src=z onerror="window.__gcXSS=(window.__gcXSS||0)+1">`,
	"message":  `oops<script>window.__gcXSS=(window.__gcXSS||0)+1</script>`,
}

// markup is what must not survive into a page raw.
var markup = []string{"<img src=", "<script>window.__gcXSS"}

// hostileFailure runs a corpus plan (a static member parked and never
// expired, NoGhosts) with a hostile group id, instance id and client name,
// then gives its history a hostile member id and error message, as a
// crafted history file may carry, and checks it again.
func hostileFailure(t *testing.T) Failure {
	t.Helper()
	f, err := os.Open("../corpus/histories/mutant-parked-never-expires.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hdr, _, err := history.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	for i := range hdr.Plan.Clients {
		c := &hdr.Plan.Clients[i]
		c.Name, c.Group, c.InstanceID = hostile["client"], hostile["group"], hostile["instance"]
	}
	hdr.Title = "hostile " + hostile["message"]
	target, err := targets.New(hdr.Target, hdr.Plan, hdr.Mutant)
	if err != nil {
		t.Fatal(err)
	}
	res, err := driver.Run(target, hdr.Plan)
	if err != nil {
		t.Fatal(err)
	}
	// The member id the coordinator's answers name, renamed everywhere.
	var member string
	for _, op := range res.History {
		if r, ok := op.Response.(*codec.ConsumerGroupHeartbeatResponse); ok && r.MemberId.Valid && r.MemberId.Value != "" {
			member = r.MemberId.Value
			break
		}
	}
	if member == "" {
		t.Fatal("no member id in the history")
	}
	var file bytes.Buffer
	if err := history.WriteFile(&file, hdr, res.History); err != nil {
		t.Fatal(err)
	}
	quoted, _ := json.Marshal(hostile["member"])
	renamed := strings.ReplaceAll(file.String(), member, string(quoted[1:len(quoted)-1]))
	if _, res.History, err = history.ReadFile(strings.NewReader(renamed)); err != nil {
		t.Fatal(err)
	}
	for i := range res.Violations {
		res.Violations[i].What = strings.ReplaceAll(res.Violations[i].What, member, hostile["member"]) + " " + hostile["message"]
	}
	for i := range res.Ghosts {
		res.Ghosts[i] = strings.ReplaceAll(res.Ghosts[i], member, hostile["member"])
	}
	// The last answer: the operations before it still linearize, so the
	// timeline shows the states they lead to.
	for i := len(res.History) - 1; i >= 0; i-- {
		if r, ok := res.History[i].Response.(*codec.ConsumerGroupHeartbeatResponse); ok {
			r.ErrorMessage = codec.Str(hostile["message"])
			break
		}
	}
	rep := check.Check(res, check.Options{Timeout: 20 * time.Second})
	if !strings.Contains(rep.Detail+rep.Mismatch, "<") {
		t.Logf("the report names no hostile string: %s / %s", rep.Detail, rep.Mismatch)
	}
	return Failure{Name: "hostile", Header: hdr, Result: res, Report: rep, Replay: "ghostcheck replay " + hostile["client"],
		Ghosts: []string{hostile["member"]}}
}

// hostilePages writes every page a hostile history reaches: its failure
// page, its timeline, and an index naming it (with a hostile label,
// detail, table cell, note, conformance observation and history row).
func hostilePages(t *testing.T, dir string) []string {
	t.Helper()
	f := hostileFailure(t)
	art, err := WriteFailure(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	ix := sampleIndex(t, f, art.HTML)
	ix.Title, ix.Headline = "run "+hostile["group"], hostile["message"]
	ix.Failures = append(ix.Failures, FailureLink{Label: hostile["client"], Verdict: "Illegal", Rule: f.Report.Rule, Detail: f.Report.Detail + hostile["member"],
		Replay: f.Replay, Href: filepath.Base(art.HTML)})
	ix.Summary.Rows = append(ix.Summary.Rows, []string{hostile["instance"], hostile["member"], hostile["message"]})
	ix.Notes = append(ix.Notes, "C1 = clientId "+hostile["client"])
	ix.Cases = append(ix.Cases, CaseRows([]conformance.Result{{Name: "A1/v1-join-empty-member-id", Status: conformance.Fail,
		Observed: "NONE member=" + hostile["member"], Expected: hostile["message"]}})...)
	ix.Histories = append(ix.Histories, HistoryRow{Seed: 9, Verdict: "Illegal", Rule: f.Report.Rule, Detail: hostile["group"], Href: filepath.Base(art.HTML)})
	index, err := WriteIndex(dir, ix)
	if err != nil {
		t.Fatal(err)
	}
	return []string{art.HTML, art.Timeline, index}
}

// Group ids, member ids, instance ids, client names and error messages
// are data in every page: none survives as markup.
func TestHostileIDsAreText(t *testing.T) {
	for _, page := range hostilePages(t, t.TempDir()) {
		s := read(t, page)
		for _, m := range markup {
			if strings.Contains(s, m) {
				i := strings.Index(s, m)
				t.Errorf("%s holds %q raw: …%s…", filepath.Base(page), m, s[max(0, i-80):min(len(s), i+120)])
			}
		}
	}
}

// The same in a browser: every page opened, every box of the timeline
// hovered and clicked (porcupine writes its tooltips with innerHTML), and
// no hostile script ran, and no element of theirs was made.
func TestHostileIDsRunNoScriptInABrowser(t *testing.T) {
	b := newBrowser(t)
	for _, page := range hostilePages(t, outDir(t)) {
		b.open(t, page)
		hovered := eval[int](t, b, `(function () {
		  var n = 0
		  document.querySelectorAll('rect.target-rect').forEach(function (r) {
		    var box = r.getBoundingClientRect(), at = {bubbles: true, clientX: box.left + 1, clientY: box.top + 1}
		    r.dispatchEvent(new MouseEvent('mouseover', at))
		    r.dispatchEvent(new MouseEvent('mousemove', at))
		    r.dispatchEvent(new MouseEvent('click', at))
		    r.dispatchEvent(new MouseEvent('click', at))
		    r.dispatchEvent(new MouseEvent('mouseout', at))
		    n++
		  })
		  return n
		})()`)
		if strings.HasSuffix(page, ".timeline.html") && hovered == 0 {
			t.Errorf("%s: no box of the timeline to hover", filepath.Base(page))
		}
		time.Sleep(300 * time.Millisecond) // an image's onerror runs once its load fails
		if ran := eval[int](t, b, `window.__gcXSS || 0`); ran > 0 {
			t.Errorf("%s: a hostile id ran script %d times (%d boxes hovered)", filepath.Base(page), ran, hovered)
		}
		if made := eval[int](t, b, `document.querySelectorAll('img[src="x"], img[src="y"], img[src="z"]').length`); made > 0 {
			t.Errorf("%s: a hostile id made %d elements", filepath.Base(page), made)
		}
	}
}
