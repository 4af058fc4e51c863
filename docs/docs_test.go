package docs_test

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/docs"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/model/rules"
)

// Every conformance case has a row in PROTOCOL.md, in the section its name
// starts with, and that section exists: a user who sees a case FAIL can
// always find its rule.
func TestEveryCaseHasARowInItsSection(t *testing.T) {
	for _, c := range conformance.Cases() {
		prefix, _, ok := strings.Cut(c.Name, "/")
		if !ok {
			t.Errorf("case %q is not named SECTION/what", c.Name)
			continue
		}
		if _, ok := docs.Lookup(prefix); !ok {
			t.Errorf("case %s: PROTOCOL.md has no section %s", c.Name, prefix)
		}
		row, ok := docs.FindCase(c.Name)
		if !ok {
			t.Errorf("case %s has no row in PROTOCOL.md: add \"| `%s` | what it checks | source |\" to section %s's table", c.Name, c.Name, prefix)
			continue
		}
		if row.Section != prefix {
			t.Errorf("case %s: its row is in section %s, want %s", c.Name, row.Section, prefix)
		}
		if row.Checks == "" || row.Source == "" {
			t.Errorf("case %s: row lacks what it checks or its source: %+v", c.Name, row)
		}
	}
}

// Every case row names a case that exists: a renamed or removed case does
// not leave a stale row behind.
func TestEveryRowIsACase(t *testing.T) {
	known := map[string]bool{}
	for _, c := range conformance.Cases() {
		known[c.Name] = true
	}
	for _, row := range docs.Cases() {
		if !known[row.Name] {
			t.Errorf("PROTOCOL.md section %s has a row for %s, which is not a conformance case", row.Section, row.Name)
		}
	}
}

// ruleIDs are the rule ids the checkers can report (rules.All).
func ruleIDs() []string {
	var ids []string
	for _, r := range rules.All() {
		ids = append(ids, string(r.ID))
	}
	return ids
}

// Every rule id a report can name has a section of its own, headed by that
// id, with the rule, its source and what it looks like on the wire.
func TestEveryRuleHasASection(t *testing.T) {
	for _, id := range ruleIDs() {
		s, ok := docs.Lookup(id)
		if !ok {
			t.Errorf("rule %s has no section in PROTOCOL.md (a heading \"### %s: ...\")", id, id)
			continue
		}
		if s.ID != id {
			t.Errorf("rule %s resolves to section %s", id, s.ID)
		}
		for _, part := range []string{"**Rule.**", "**Source.**", "**On the wire.**"} {
			if !strings.Contains(s.Text, part) {
				t.Errorf("rule %s: section lacks %s", id, part)
			}
		}
	}
}

// Part A's sections and the sections cases cite say what the rule is, where
// it comes from and what a failure looks like.
func TestCitedSectionsHaveRuleSourceAndWire(t *testing.T) {
	for _, id := range []string{"A1", "A2", "A3", "A3.1", "A3.2", "A3.3", "A5.5", "B1.1", "B4.2", "B4.4", "B5", "B6", "B7.1", "B7.2"} {
		s, ok := docs.Lookup(id)
		if !ok {
			t.Errorf("no section %s", id)
			continue
		}
		for _, part := range []string{"**Rule.**", "**On the wire.**"} {
			if !strings.Contains(s.Text, part) {
				t.Errorf("section %s lacks %s", id, part)
			}
		}
		if !strings.Contains(s.Text, "**Source.**") && !strings.Contains(s.Text, "| source |") {
			t.Errorf("section %s gives no source", id)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		query, want string // want "" = not found
	}{
		{"A3", "A3"},
		{"§B4.2", "B4.2"},
		{"B4.2.", "B4.2"},
		{" A1 ", "A1"},
		{"NoGhosts", "NoGhosts"},
		{"A3/batch-per-member-errors", "A3"},
		{"B4.4/parked-member-expires", "B4.4"},
		{"StaticRestartKeepsAssignment", "StaticRestartKeepsAssignment"},
		{"A3.1", "A3.1"},
		{"Z9", ""},
		{"", ""},
		{"A3/no-such-case", ""},
		{"noghosts", ""}, // ids are case-sensitive, as the code writes them
		{"Part", ""},     // headings without an id are not sections
	} {
		s, ok := docs.Lookup(tc.query)
		switch {
		case tc.want == "" && ok:
			t.Errorf("Lookup(%q) found section %s, want nothing", tc.query, s.ID)
		case tc.want != "" && (!ok || s.ID != tc.want):
			t.Errorf("Lookup(%q) = %q, %v; want section %s", tc.query, s.ID, ok, tc.want)
		}
	}
}

func TestSectionShape(t *testing.T) {
	a3, _ := docs.Lookup("A3")
	if got, want := strings.Join(a3.Subsections, ","), "A3.1,A3.2,A3.3"; got != want {
		t.Errorf("A3's subsections are %s, want %s", got, want)
	}
	if a3.Title != "Static membership and batch LeaveGroup (KIP-345)" {
		t.Errorf("A3's title is %q", a3.Title)
	}
	if a3.Link() != "docs/PROTOCOL.md#a3-static-membership-and-batch-leavegroup-kip-345" {
		t.Errorf("A3's link is %s", a3.Link())
	}
	if strings.Contains(a3.Text, "A3.1. LeaveGroup removes") {
		t.Error("A3's own text runs into its subsection A3.1")
	}
	if !strings.HasPrefix(a3.Summary(), "Rule. LeaveGroup removes members") || strings.Contains(a3.Summary(), "\n") {
		t.Errorf("A3's summary is not its first paragraph in one line: %q", a3.Summary())
	}
	b4, _ := docs.Lookup("B4")
	if got, want := strings.Join(b4.Subsections, ","), "B4.1,B4.2,B4.3,B4.4,B4.5"; got != want {
		t.Errorf("B4's subsections are %s, want %s", got, want)
	}
	row, _ := docs.FindCase("A3/batch-per-member-errors")
	if !strings.Contains(row.Checks, "[NONE, UNKNOWN_MEMBER_ID]") || !strings.Contains(row.Source, "KIP-345") {
		t.Errorf("A3/batch-per-member-errors's row: %+v", row)
	}
	seen := map[string]bool{}
	for _, s := range docs.Sections() {
		if seen[s.ID] {
			t.Errorf("two sections have id %s", s.ID)
		}
		seen[s.ID] = true
	}
}

func TestAnchor(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"A3. Static membership and batch LeaveGroup (KIP-345)", "a3-static-membership-and-batch-leavegroup-kip-345"},
		{"B4.2. Request validation", "b42-request-validation"},
		{"NoGhosts: every member belongs to a live process", "noghosts-every-member-belongs-to-a-live-process"},
		{"Part A — what ghostcheck enforces", "part-a--what-ghostcheck-enforces"},
		{"The `check` data flow", "the-check-data-flow"},
		{"snake_case stays", "snake_case-stays"},
	} {
		if got := docs.Anchor(tc.heading); got != tc.want {
			t.Errorf("Anchor(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

// Links inside PROTOCOL.md lead to its headings.
func TestInternalLinksResolve(t *testing.T) {
	for _, m := range regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(docs.Protocol(), -1) {
		if !docs.HasAnchor(m[1]) {
			t.Errorf("PROTOCOL.md links to #%s, which no heading renders", m[1])
		}
	}
}

var (
	// "§B4.2", "§A3": a section cited by id.
	sectionRef = regexp.MustCompile(`§([AB]\d+(?:\.\d+)*)`)
	// "PROTOCOL.md A2", "PROTOCOL.md, A3": a Part A section cited after the file.
	fileSectionRef = regexp.MustCompile(`PROTOCOL\.md,? ([AB]\d+(?:\.\d+)*)`)
	// "PROTOCOL.md#anchor", "DESIGN.md#anchor": a link to a heading.
	anchorRef = regexp.MustCompile(`(PROTOCOL|DESIGN)\.md#([a-z0-9_-]+)`)
	// "PROTOCOL.md" or "DESIGN.md" not under docs/.
	bareRef = regexp.MustCompile(`(^|[^/\w])(PROTOCOL|DESIGN)\.md`)
)

// The repository's code comments, READMEs and documents cite sections that
// exist, link to headings that exist, and name the documents by their
// place (docs/PROTOCOL.md), outside docs/ itself.
func TestReferencesResolve(t *testing.T) {
	designAnchors := readMarkdown(t, "docs/DESIGN.md").anchors()
	checked := 0
	for _, rel := range repoFiles(t, ".go", ".md") {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		checked++
		inDocs := path.Dir(rel) == "docs"
		for i, line := range strings.Split(string(b), "\n") {
			where := rel + ":" + strconv.Itoa(i+1)
			for _, m := range sectionRef.FindAllStringSubmatch(line, -1) {
				if _, ok := docs.Lookup(m[1]); !ok {
					t.Errorf("%s cites §%s, which PROTOCOL.md does not have", where, m[1])
				}
			}
			for _, m := range fileSectionRef.FindAllStringSubmatch(line, -1) {
				if _, ok := docs.Lookup(m[1]); !ok {
					t.Errorf("%s cites PROTOCOL.md %s, which does not exist", where, m[1])
				}
			}
			for _, m := range anchorRef.FindAllStringSubmatch(line, -1) {
				if m[2] == "anchor" {
					continue // the placeholder of "docs/PROTOCOL.md#anchor"
				}
				ok := docs.HasAnchor(m[2])
				if m[1] == "DESIGN" {
					ok = designAnchors[m[2]]
				}
				if !ok {
					t.Errorf("%s links to %s.md#%s, which no heading renders", where, m[1], m[2])
				}
			}
			if !inDocs && bareRef.MatchString(line) {
				name := bareRef.FindStringSubmatch(line)[2] + ".md"
				t.Errorf("%s names %s without its place: write docs/%s", where, name, name)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d files checked: is the test run from docs/?", checked)
	}
}
