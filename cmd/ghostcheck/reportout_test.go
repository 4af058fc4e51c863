package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/impl"
)

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// run writes out/index.html with the summary, the plots and a link to
// each failure's page, which it writes beside its history and timeline.
func TestRunWritesTheIndexAndFailurePages(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "", "run", "--histories", "6", "--out", dir, "--shrink", "30")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "index:    "+filepath.Join(dir, "index.html")) {
		t.Errorf("run does not say where the index is:\n%s", out)
	}
	index := readText(t, filepath.Join(dir, "index.html"))
	for _, want := range []string{"Ghosts found, history by history", "Violations by rule", "Faults applied", "Histories checked per second", "<svg", "v0 (broker-made ids)", "KIP-1082 holds"} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*-noghosts.html"))
	if len(pages) != 1 {
		t.Fatalf("want the v0 failure's page, found %v", pages)
	}
	if !strings.Contains(index, `href="`+filepath.Base(pages[0])+`"`) {
		t.Errorf("index.html does not link %s", pages[0])
	}
	if page := readText(t, pages[0]); !strings.Contains(page, "ghostcheck replay "+strings.TrimSuffix(pages[0], ".html")+".jsonl") {
		t.Errorf("the failure page lacks its replay command")
	}
}

// replay --html writes a page for each file it replays, never over it.
func TestReplayHTMLWritesAPage(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := run(t, "", "replay", "--html", "--out", dir, "../../corpus/histories/v0-lost-join-response-ghost.jsonl")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	page := filepath.Join(dir, "v0-lost-join-response-ghost.html")
	if !strings.Contains(out, "page: "+page) {
		t.Errorf("replay does not name the page:\n%s", out)
	}
	if p := readText(t, page); !strings.Contains(p, "response lost: the client never saw this") {
		t.Errorf("the page does not tell that the join response was lost")
	}
}

// check writes its index: the conformance table with each case's
// section, the histories, and the broker's round trips per API.
func TestCheckWritesTheIndex(t *testing.T) {
	t.Parallel() // it waits on a broker over TCP
	addr := startCoordinator(t, impl.Mutants{})
	dir := t.TempDir()
	code, out, errOut := run(t, "", "check", "--bootstrap", addr, "--session-timeout", "800ms", "--heartbeat-interval", "100ms",
		"--cases", "A1", "--histories", "1", "--rounds", "20", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	index := readText(t, filepath.Join(dir, "index.html"))
	for _, want := range []string{`id="case-A1/v1-join-empty-member-id"`, "§A1", "Round trips per API", "ConsumerGroupHeartbeat", "Fault-injected histories"} {
		if !strings.Contains(index, want) && !strings.Contains(index, strings.ReplaceAll(want, "ConsumerGroup", "CG")) {
			t.Errorf("index.html lacks %q", want)
		}
	}
}

// A failing case and a failing history of check each appear in the
// index; the history gets a page whose command runs it again.
func TestCheckIndexLinksFailures(t *testing.T) {
	t.Parallel() // it waits on a broker over TCP
	addr := startCoordinator(t, impl.Mutants{}.With(impl.MutV1EmptyMemberID))
	dir := t.TempDir()
	code, out, errOut := run(t, "", "check", "--bootstrap", addr, "--session-timeout", "800ms", "--heartbeat-interval", "100ms",
		"--cases", "A1/v1-join-empty", "--histories", "1", "--rounds", "20", "--out", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	index := readText(t, filepath.Join(dir, "index.html"))
	if !strings.Contains(index, `href="#case-A1/v1-join-empty-member-id"`) {
		t.Errorf("index.html does not link the failing case")
	}
	if strings.Contains(out, "seed 1    Ok") {
		// The plan of seed 1 sends the prober's v1 join with an empty
		// member id, which this broker accepts: the history must fail.
		t.Fatalf("the history passed against a broker that accepts an empty v1 member id:\n%s", out)
	}
	page := filepath.Join(dir, "check-seed1.html")
	if !strings.Contains(index, `href="check-seed1.html"`) {
		t.Errorf("index.html does not link %s", page)
	}
	history := filepath.Join(dir, "check-seed1.jsonl")
	if p := readText(t, page); !strings.Contains(p, "ghostcheck replay --bootstrap "+addr+" "+history) || !strings.Contains(p, `class="lanes"`) {
		t.Errorf("%s lacks the command that runs it again, or its membership timeline", page)
	}
	// That command reproduces the failure against the broker, and shows
	// it fixed against one without the bug (exit 3); without --bootstrap
	// it says what it needs.
	if code, out, _ := run(t, "", "replay", "--bootstrap", addr, history); code != exitOK || !strings.HasPrefix(out, "ok    ") {
		t.Errorf("replay against the buggy broker: exit %d\n%s", code, out)
	}
	if code, out, _ := run(t, "", "replay", "--bootstrap", startCoordinator(t, impl.Mutants{}), history); code != exitFixed || !strings.HasPrefix(out, "FIXED ") {
		t.Errorf("replay against a fixed broker: exit %d\n%s", code, out)
	}
	if code, out, _ := run(t, "", "replay", history); code != exitFailed || !strings.Contains(out, "--bootstrap HOST:PORT") {
		t.Errorf("replay without --bootstrap: exit %d\n%s", code, out)
	}
}
