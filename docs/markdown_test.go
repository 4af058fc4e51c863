package docs_test

// Reading the repository's Markdown as GitHub renders it: prose and code
// apart, headings and their anchors; and the test that every relative link
// and anchor leads somewhere.

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/docs"
)

// repoFiles are the repository's files with one of these endings, test
// data and generated output aside, with slashes, relative to the root.
func repoFiles(t *testing.T, endings ...string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "out", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		for _, e := range endings {
			if strings.HasSuffix(p, e) {
				rel, _ := filepath.Rel(root, p)
				files = append(files, filepath.ToSlash(rel))
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// markdownFiles are the repository's Markdown documents (README.md,
// docs/*.md, the READMEs of corpus/ and peers/).
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := repoFiles(t, ".md")
	for _, must := range []string{"README.md", "docs/PROTOCOL.md", "docs/DESIGN.md"} {
		if !slices.Contains(files, must) {
			t.Fatalf("%s not found among the Markdown files %v", must, files)
		}
	}
	return files
}

// mdDoc is a Markdown file split into what is prose and what is code.
type mdDoc struct {
	path string
	// prose lines, with inline code spans blanked out, by line number
	// (1-based); lines inside fenced blocks are empty.
	prose []string
	// code is every inline code span and every fenced block's lines, each
	// with the line it starts on.
	code []codeText
	// headings are the ATX headings outside fenced blocks, as written.
	headings []string
}

type codeText struct {
	line int
	text string
}

func readMarkdown(t *testing.T, rel string) mdDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	d := mdDoc{path: rel}
	var outside []string // the lines outside fenced blocks; fenced ones empty
	fence := ""
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			} else {
				d.code = append(d.code, codeText{i + 1, line})
			}
			outside = append(outside, "")
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			outside = append(outside, "")
		default:
			outside = append(outside, line)
			if level, _ := headingLevel(line); level > 0 {
				d.headings = append(d.headings, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#")))
			}
		}
	}
	prose, spans := codeSpans(strings.Join(outside, "\n"))
	d.prose = strings.Split(prose, "\n")
	d.code = append(d.code, spans...)
	sort.SliceStable(d.code, func(i, j int) bool { return d.code[i].line < d.code[j].line })
	return d
}

// codeSpans finds the inline code spans of Markdown text, which may run
// over lines within a paragraph: a run of n backticks up to the next run of
// exactly n. It returns the text with each span blanked (its newlines
// kept) and the spans, each on the line it starts, its newlines read as
// spaces and a table's escaped pipe as a pipe.
func codeSpans(text string) (string, []codeText) {
	out := []byte(text)
	var spans []codeText
	run := func(i int) int {
		n := 0
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		return n
	}
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := run(i)
		end := -1
		for j := i + n; j < len(text); {
			if text[j] == '\n' && blankLineAfter(text, j) {
				break // a blank line ends the paragraph
			}
			if text[j] != '`' {
				j++
				continue
			}
			m := run(j)
			if m == n {
				end = j
				break
			}
			j += m
		}
		if end < 0 {
			i += n
			continue
		}
		body := strings.ReplaceAll(text[i+n:end], "\n", " ")
		body = strings.ReplaceAll(body, `\|`, "|")
		spans = append(spans, codeText{1 + strings.Count(text[:i], "\n"), body})
		for k := i; k < end+n; k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
		i = end + n
	}
	return string(out), spans
}

// blankLineAfter reports whether the line after the newline at text[nl]
// is blank.
func blankLineAfter(text string, nl int) bool {
	next, _, _ := strings.Cut(text[nl+1:], "\n")
	return strings.TrimSpace(next) == ""
}

// headingLevel returns an ATX heading's level, or 0.
func headingLevel(line string) (int, bool) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n == len(line) || line[n] != ' ' {
		return 0, false
	}
	return n, true
}

var mdLinkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// anchors are the anchors GitHub gives the document's headings: the
// heading's rendered text (a link's text, not its target) through
// docs.Anchor, and a second heading with the same anchor "-1", a third
// "-2".
func (d mdDoc) anchors() map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	for _, h := range d.headings {
		a := docs.Anchor(mdLinkText.ReplaceAllString(h, "$1"))
		if c := count[a]; c > 0 {
			out[a+"-"+strconv.Itoa(c)] = true
		} else {
			out[a] = true
		}
		count[a]++
	}
	return out
}

var (
	// mdLink is an inline link or image: [text](target "title").
	mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refLink is a reference definition: [label]: target.
	refLink = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$`)
	// htmlLink is an HTML href or src.
	htmlLink = regexp.MustCompile(`(?:href|src)="([^"]+)"`)
	// scheme starts an absolute URL.
	scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// Every relative link and anchor of the Markdown leads somewhere: a file or
// folder that exists, a heading that renders with that anchor.
func TestMarkdownLinksResolve(t *testing.T) {
	files := markdownFiles(t)
	parsed := map[string]mdDoc{}
	doc := func(rel string) mdDoc {
		if d, ok := parsed[rel]; ok {
			return d
		}
		d := readMarkdown(t, rel)
		parsed[rel] = d
		return d
	}
	var problems []string
	links := 0
	for _, rel := range files {
		d := doc(rel)
		for i, line := range d.prose {
			var targets []string
			for _, re := range []*regexp.Regexp{mdLink, refLink, htmlLink} {
				for _, m := range re.FindAllStringSubmatch(line, -1) {
					targets = append(targets, m[1])
				}
			}
			for _, target := range targets {
				if scheme.MatchString(target) {
					continue
				}
				links++
				where := fmt.Sprintf("%s:%d", rel, i+1)
				file, anchor, _ := strings.Cut(target, "#")
				dest := rel
				if file != "" {
					dest = path.Clean(path.Join(path.Dir(rel), file))
					if dest == ".." || strings.HasPrefix(dest, "../") {
						problems = append(problems, fmt.Sprintf("%s links to %s, outside the repository", where, target))
						continue
					}
					if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
						problems = append(problems, fmt.Sprintf("%s links to %s, which does not exist", where, target))
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					problems = append(problems, fmt.Sprintf("%s links to %s: an anchor in a file that is not Markdown", where, target))
					continue
				}
				if !doc(dest).anchors()[anchor] {
					problems = append(problems, fmt.Sprintf("%s links to %s, but no heading of %s renders as #%s", where, target, dest, anchor))
				}
			}
		}
	}
	if links < 20 {
		t.Fatalf("only %d relative links found: has the link syntax changed?", links)
	}
	t.Logf("%d relative links in %d Markdown files", links, len(files))
	checkDrift(t, isLinkProblem, problems)
}

// The Markdown reader finds code spans as GitHub does (over lines within a
// paragraph, by the length of their backtick runs, not across a blank
// line), and numbers a repeated heading's anchor.
func TestMarkdownReader(t *testing.T) {
	for _, tc := range []struct {
		text      string
		spans     []codeText
		prose     string
		wantLines int
	}{
		{"a `b` c", []codeText{{1, "b"}}, "a     c", 1},
		{"`ghostcheck check\n--cases A1` x", []codeText{{1, "ghostcheck check --cases A1"}}, "                 \n            x", 2},
		{"``a ` b`` c", []codeText{{1, "a ` b"}}, "          c", 1},
		{"`a\n\nb` c", nil, "`a\n\nb` c", 3},
		{"| `x \\| y` |", []codeText{{1, "x | y"}}, "|          |", 1},
	} {
		prose, spans := codeSpans(tc.text)
		if prose != tc.prose || !slices.Equal(spans, tc.spans) || strings.Count(prose, "\n")+1 != tc.wantLines {
			t.Errorf("codeSpans(%q) = %q, %v; want %q, %v", tc.text, prose, spans, tc.prose, tc.spans)
		}
	}
	d := mdDoc{headings: []string{"Findings", "`make run`: a property run", "Findings", "See [the KIP](https://x)", "Findings"}}
	got := d.anchors()
	for _, want := range []string{"findings", "findings-1", "findings-2", "make-run-a-property-run", "see-the-kip"} {
		if !got[want] {
			t.Errorf("anchors of %v: no %s in %v", d.headings, want, got)
		}
	}
	if len(got) != 5 {
		t.Errorf("anchors of %v: %v, want 5", d.headings, got)
	}
}
