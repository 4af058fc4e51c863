package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/internal/targets"
)

// outDir is where a test leaves its pages: a temporary directory, or
// GHOSTCHECK_REPORT_OUT when set (to look at them, or keep the
// screenshots).
func outDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("GHOSTCHECK_REPORT_OUT"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	return t.TempDir()
}

// replayCorpus re-runs a corpus file as `ghostcheck replay` does and
// returns its failure, ready to render.
func replayCorpus(t testing.TB, path string) Failure {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hdr, _, err := history.ReadFile(f)
	if errors.Is(err, history.ErrClientRecording) {
		t.Skip("a recording of client traffic (ghostcheck proxy's) has no failure page; ghostcheck replay re-checks it")
	}
	if err != nil {
		t.Fatal(err)
	}
	target, err := targets.New(hdr.Target, hdr.Plan, hdr.Mutant)
	if err != nil {
		t.Fatal(err)
	}
	res, err := driver.Run(target, hdr.Plan)
	if err != nil {
		t.Fatal(err)
	}
	rep := check.Check(res, check.Options{Timeout: 20 * time.Second})
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	return Failure{Name: name, Header: hdr, Result: res, Report: rep, Replay: "ghostcheck replay " + path}
}

func corpusFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../corpus/histories/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus histories found (%v)", err)
	}
	return files
}

// Every corpus entry gets a page that says its verdict, rule, violation
// and replay command, draws each group, and links its timeline, which
// labels every operation with its network fate.
func TestEveryCorpusEntryRenders(t *testing.T) {
	dir := outDir(t)
	for _, path := range corpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f := replayCorpus(t, path)
			if f.Header.Expect.Verdict == history.Ok {
				t.Skip("a passing history (a false alarm's regression) has no failure page; go test ./corpus re-checks it")
			}
			art, err := WriteFailure(dir, f)
			if err != nil {
				t.Fatal(err)
			}
			page := read(t, art.HTML)
			for _, want := range []string{`id="violation"`, `id="replay"`, f.Report.Rule, string(f.Report.Verdict),
				htmlText(f.Replay), `class="lanes"`, filepath.Base(art.Timeline), `id="first-violation"`} {
				if !strings.Contains(page, want) {
					t.Errorf("%s lacks %q", art.HTML, want)
				}
			}
			if strings.Contains(page, `src="http`) || strings.Contains(page, "<script src") || strings.Contains(page, "<link ") || strings.Contains(page, "@import") {
				t.Errorf("%s loads something from elsewhere", art.HTML)
			}
			if tl := read(t, art.Timeline); !strings.Contains(tl, "<title>"+f.Name+" — timeline</title>") {
				t.Errorf("%s is not the decorated timeline", art.Timeline)
			}
		})
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// htmlText is s as html/template writes it in text.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
