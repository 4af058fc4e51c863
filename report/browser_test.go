package report

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ghostcheck/ghostcheck/internal/conformance"
)

// chromium finds a Chromium binary, or skips the test saying how to get
// one (.ci/run installs the Debian package).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium binary found: install it (apt-get install -y chromium) to test the pages in a browser; .ci/run does")
	return ""
}

// browser is a headless Chromium with a 1280×800 viewport that records
// every console error and uncaught exception of the pages it opens.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{ctx: ctx}
	// The first call starts the browser, which lives as long as ctx: no
	// timeout on it (each step below has one).
	err := chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				msg = fmt.Sprintf("console.%s: %d args", ev.Type, len(ev.Args))
				for _, a := range ev.Args {
					msg += " " + string(a.Value) + a.Description
				}
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				msg = "log: " + ev.Entry.Text + " " + ev.Entry.URL
			}
		}
		if msg != "" {
			b.mu.Lock()
			b.errors = append(b.errors, msg)
			b.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	ctx2, cancel2 := b.step()
	defer cancel2()
	if err := chromedp.Do(ctx2, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return b
}

// box is an element's place in the viewport.
type box struct {
	ID                       string
	Top, Left, Bottom, Right float64
	Visible                  bool
	Text                     string
}

// open loads a page from disk, lets its scripts run, and returns the
// boxes of the elements with the given ids.
func (b *browser) open(t *testing.T, path string, ids ...string) []box {
	t.Helper()
	b.mu.Lock()
	b.errors = nil
	b.mu.Unlock()
	js := fmt.Sprintf(`JSON.stringify(%s.map(function (id) {
	  var e = document.getElementById(id); if (!e) return {ID: id}
	  var r = e.getBoundingClientRect(), s = getComputedStyle(e)
	  return {ID: id, Top: r.top, Left: r.left, Bottom: r.bottom, Right: r.right, Text: e.innerText,
	    Visible: s.visibility !== 'hidden' && s.display !== 'none' && r.width > 0 && r.height > 0}
	}))`, mustJSON(append([]string{}, ids...)))
	ctx, cancel := b.step()
	defer cancel()
	err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady(chromedp.CSS("body")), chromedp.Sleep(300*time.Millisecond))
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	out := eval[string](t, b, js)
	var boxes []box
	if err := json.Unmarshal([]byte(out), &boxes); err != nil {
		t.Fatal(err)
	}
	return boxes
}

// noErrors fails the test with the page's script errors, if any.
func (b *browser) noErrors(t *testing.T, page string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errors {
		t.Errorf("%s: %s", page, e)
	}
}

// screenshot saves the viewport as dir/name.png.
func (b *browser) screenshot(t *testing.T, dir, name string) string {
	t.Helper()
	ctx, cancel := b.step()
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
	return path
}

// step is a context for one step, bounded so a stuck browser fails the
// test instead of hanging it.
func (b *browser) step() (context.Context, context.CancelFunc) {
	return context.WithTimeout(b.ctx, 60*time.Second)
}

// eval runs a script in the page and returns its value.
func eval[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	ctx, cancel := b.step()
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %q: %v", js, err)
	}
	return v
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// inViewport fails unless each box is visible within the first 1280×800.
func inViewport(t *testing.T, page string, boxes []box) {
	t.Helper()
	for _, bx := range outside(boxes) {
		t.Errorf("%s: #%s is not visible within the first 1280×800 viewport: %+v", page, bx.ID, bx)
	}
}

// outside are the boxes not visible within the first 1280×800.
func outside(boxes []box) []box {
	var out []box
	for _, bx := range boxes {
		if !bx.Visible || bx.Top < 0 || bx.Left < 0 || bx.Bottom > 800 || bx.Right > 1280 {
			out = append(out, bx)
		}
	}
	return out
}

// The failure page of the v0 ghost opens without a script error and shows
// the violation and the replay command in the first screen; its
// timeline opens scrolled to the violation, without a script error.
func TestFailurePageInABrowser(t *testing.T) {
	b := newBrowser(t)
	dir := outDir(t)
	f := replayCorpus(t, "../corpus/histories/v0-lost-join-response-ghost.jsonl")
	art, err := WriteFailure(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	boxes := b.open(t, art.HTML, "verdict", "violation", "replay")
	for _, bx := range boxes {
		t.Logf("#%s at top %.0f, bottom %.0f, left %.0f, right %.0f", bx.ID, bx.Top, bx.Bottom, bx.Left, bx.Right)
	}
	b.noErrors(t, art.HTML)
	inViewport(t, art.HTML, boxes)
	for _, want := range []string{"Illegal", "holds member", f.Replay} {
		if !strings.Contains(boxes[0].Text+boxes[1].Text+boxes[2].Text, want) {
			t.Errorf("the first screen lacks %q: %+v", want, boxes)
		}
	}
	b.screenshot(t, dir, "failure-page")

	b.open(t, art.Timeline)
	b.noErrors(t, art.Timeline)
	scrolled := eval[float64](t, b, `window.scrollX`)
	marks := eval[int](t, b, `(function () { var n = 0; document.querySelectorAll('rect.client-annotation-rect').forEach(function (r) {
	  var b = r.getBoundingClientRect(); if (b.left >= 0 && b.right <= innerWidth) n++ }); return n })()`)
	if marks == 0 {
		t.Errorf("the timeline does not open at the violation (scrolled to x=%v, no violation box in view)", scrolled)
	}
}

// The index of a run opens without a script error, with its verdict and
// failures in the first screen and its plots drawn.
func TestIndexInABrowser(t *testing.T) {
	b := newBrowser(t)
	dir := outDir(t)
	f := replayCorpus(t, "../corpus/histories/v0-lost-join-response-ghost.jsonl")
	art, err := WriteFailure(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	ix := sampleIndex(t, f, art.HTML)
	path, err := WriteIndex(dir, ix)
	if err != nil {
		t.Fatal(err)
	}
	boxes := b.open(t, path, "verdict", "headline", "failures")
	b.noErrors(t, path)
	inViewport(t, path, boxes)
	svgs := eval[int](t, b, `document.querySelectorAll('.plot svg').length`)
	if svgs != len(ix.Plots) {
		t.Errorf("%d plots drawn, want %d", svgs, len(ix.Plots))
	}
	b.screenshot(t, dir, "index")
}

// sampleIndex is an index like run's and check's together: a failure, a
// summary, every kind of plot, a conformance table and a history.
func sampleIndex(t *testing.T, f Failure, page string) Index {
	t.Helper()
	ix := Index{Kind: "run", Title: "run against impl", Verdict: "Ok", Headline: "KIP-1082 holds: no ghost in 3 v1 histories; v0 made 2.",
		Summary:  Table{Columns: []string{"", "v1", "v0"}, Rows: [][]string{{"histories", "3", "3"}, {"ghosts found", "0", "2"}}},
		Failures: []FailureLink{{Label: "v0, seed 1", Verdict: "Illegal", Rule: f.Report.Rule, Detail: f.Report.Detail, Replay: f.Replay, Href: filepath.Base(page)}}}
	add := func(p Plot, err error) {
		if err != nil {
			t.Fatal(err)
		}
		ix.Plots = append(ix.Plots, p)
	}
	add(LinePlot("Ghosts", "per history", "history", "ghosts", []Series{{"v1", []float64{1, 2, 3}, []float64{0, 0, 0}}, {"v0", []float64{1, 2, 3}, []float64{1, 1, 2}}}))
	add(BarPlot("Faults", "by kind", "count", []string{"lost-request", "lost-response"}, []Bars{{"v1", []float64{3, 4}}, {"v0", []float64{2, 5}}}))
	add(LatencyPlot("Round trips", "real time", map[string][]time.Duration{"ConsumerGroupHeartbeat": {time.Millisecond, 2 * time.Millisecond, 40 * time.Millisecond}}))
	ix.Cases = CaseRows([]conformance.Result{
		{Name: "A1/v1-join-empty-member-id", Status: conformance.Fail, Observed: "NONE member=x", Expected: "INVALID_REQUEST and no member"},
		{Name: "A1/v1-join-blank-member-id", Status: conformance.Pass, Observed: "INVALID_REQUEST"},
	})
	ix.Histories = []HistoryRow{{Seed: 1, Verdict: "Illegal", Rule: f.Report.Rule, Detail: f.Report.Detail, Operations: len(f.Result.History), Href: filepath.Base(page)}}
	return ix
}

// The browser harness itself sees a page's script errors and tells an
// element below the first screen: the tests above can fail.
func TestBrowserHarnessCanFail(t *testing.T) {
	b := newBrowser(t)
	page := filepath.Join(t.TempDir(), "broken.html")
	html := `<!doctype html><body><div id="top">top</div><div id="low" style="margin-top:1200px">low</div>` +
		`<script>console.error("on purpose"); undefinedFunction()</script></body>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	boxes := b.open(t, page, "top", "low")
	b.mu.Lock()
	n := len(b.errors)
	b.mu.Unlock()
	if n < 2 {
		t.Errorf("the harness saw %d of the page's 2 script errors: %v", n, b.errors)
	}
	if out := outside(boxes); len(out) != 1 || out[0].ID != "low" {
		t.Errorf("want only #low outside the first screen, got %+v", out)
	}
}
