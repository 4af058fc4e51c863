// Package docs carries ghostcheck's protocol rules (PROTOCOL.md, embedded)
// into the binary, so that a report can show the rule it cites and
// `ghostcheck explain` works without a checkout.
//
// A section of PROTOCOL.md is a heading whose first word is an id followed
// by "." or ":" ("### A3. Static membership ...", "### NoGhosts: every
// member ..."). Its text runs to the next heading. A conformance case is a
// table row whose first cell is the case name in backticks
// ("| `A3/batch-per-member-errors` | ... | ... |"); it belongs to the
// section whose text holds the row, which must be the section its name
// starts with (docs_test checks that for every case).
//
// The package imports only the standard library, so anything may use it.
package docs

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

//go:embed PROTOCOL.md
var protocol string

// Path is PROTOCOL.md's place in the repository, for links a reader can
// follow from a report.
const Path = "docs/PROTOCOL.md"

// Protocol returns PROTOCOL.md as embedded.
func Protocol() string { return protocol }

// Section is one section of PROTOCOL.md.
type Section struct {
	// ID is what code, case names and reports cite: "A3", "B4.2",
	// "NoGhosts".
	ID string
	// Title is the heading's words after the id.
	Title string
	// Anchor is the heading's anchor as GitHub renders it, without '#'.
	Anchor string
	// Level is the heading's level (the number of '#').
	Level int
	// Text is the section's own text, up to the next heading, trimmed.
	Text string
	// Subsections are the ids of the sections nested under this one, in
	// order.
	Subsections []string
}

// Link is where the section is read on the web or in a checkout:
// "docs/PROTOCOL.md#anchor".
func (s Section) Link() string { return Path + "#" + s.Anchor }

// Summary is the section's first paragraph as plain text: what a report
// prints before pointing to the whole section.
func (s Section) Summary() string {
	para, _, _ := strings.Cut(strings.TrimSpace(s.Text), "\n\n")
	return plain(strings.Join(strings.Fields(para), " "))
}

// Case is a conformance case's row in PROTOCOL.md.
type Case struct {
	Name   string // "A3/batch-per-member-errors"
	Checks string // what the case checks, in words
	Source string // the KIP or release the rule comes from
	// Section is the id of the section whose table holds the row.
	Section string
}

// index is PROTOCOL.md parsed once: sections in document order and by id,
// case rows by name.
type index struct {
	sections []Section
	byID     map[string]int
	cases    map[string]Case
	anchors  map[string]bool // every heading's anchor, with or without an id
}

// parsed is the index of the embedded document. It is computed once and
// never changes, like the document itself.
var parsed = sync.OnceValue(func() *index { return parse(protocol) })

// Sections returns every section with an id, in document order.
func Sections() []Section {
	return append([]Section(nil), parsed().sections...)
}

// Lookup finds the section an id names: a section id ("A3", "§B4.2" or
// "B4.2."), a checker rule ("NoGhosts"), or a conformance case name
// ("A3/batch-per-member-errors"), which resolves to the section holding its
// row.
func Lookup(id string) (Section, bool) {
	ix := parsed()
	id = normalize(id)
	if c, ok := ix.cases[id]; ok {
		id = c.Section
	}
	i, ok := ix.byID[id]
	if !ok {
		return Section{}, false
	}
	return ix.sections[i], true
}

// FindCase finds a conformance case's row by its name.
func FindCase(name string) (Case, bool) {
	c, ok := parsed().cases[normalize(name)]
	return c, ok
}

// Cases returns every case row of PROTOCOL.md, in no particular order.
func Cases() []Case {
	var out []Case
	for _, c := range parsed().cases {
		out = append(out, c)
	}
	return out
}

// HasAnchor reports whether some heading of PROTOCOL.md renders with this
// anchor, so a link "docs/PROTOCOL.md#anchor" leads somewhere.
func HasAnchor(anchor string) bool { return parsed().anchors[anchor] }

// normalize accepts the ways code and reports write an id: "§B4.2",
// "B4.2.", " A3 ".
func normalize(id string) string {
	id = strings.TrimSpace(id)
	id = strings.TrimPrefix(id, "§")
	return strings.TrimRight(id, ".:")
}

func parse(doc string) *index {
	ix := &index{byID: map[string]int{}, cases: map[string]Case{}, anchors: map[string]bool{}}
	slugs := map[string]int{}
	type open struct{ level, at int } // sections whose subsections are being collected
	var stack []open
	var body []string
	cur := -1 // index of the section whose text is being read, -1 none
	flush := func() {
		if cur >= 0 {
			ix.sections[cur].Text = strings.TrimSpace(strings.Join(body, "\n"))
		}
		body = body[:0]
	}
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		level, heading := headingOf(line)
		if fenced || level == 0 {
			body = append(body, line)
			continue
		}
		flush()
		cur = -1
		anchor := Anchor(heading)
		if n := slugs[anchor]; n > 0 {
			slugs[anchor]++
			anchor = anchor + "-" + strconv.Itoa(n)
		} else {
			slugs[anchor] = 1
		}
		ix.anchors[anchor] = true
		for len(stack) > 0 && stack[len(stack)-1].level >= level {
			stack = stack[:len(stack)-1]
		}
		id, title, ok := idOf(heading)
		if !ok {
			// A heading without an id (a part, an introduction) closes
			// the sections at its level and above, as any heading does.
			continue
		}
		for _, o := range stack {
			ix.sections[o.at].Subsections = append(ix.sections[o.at].Subsections, id)
		}
		cur = len(ix.sections)
		ix.byID[id] = cur
		ix.sections = append(ix.sections, Section{ID: id, Title: title, Anchor: anchor, Level: level})
		stack = append(stack, open{level, cur})
	}
	flush()
	for _, s := range ix.sections {
		for _, line := range strings.Split(s.Text, "\n") {
			if c, ok := caseRow(line); ok {
				c.Section = s.ID
				ix.cases[c.Name] = c
			}
		}
	}
	return ix
}

// headingOf returns a Markdown heading's level and text (0 if the line is
// not a heading).
func headingOf(line string) (int, string) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n == len(line) || line[n] != ' ' {
		return 0, ""
	}
	return n, strings.TrimSpace(line[n:])
}

// idOf splits "A3. Static membership" into ("A3", "Static membership").
// A heading whose first word does not end in '.' or ':' has no id.
func idOf(heading string) (id, title string, ok bool) {
	first, rest, _ := strings.Cut(heading, " ")
	if len(first) < 2 || !strings.ContainsAny(first[len(first)-1:], ".:") {
		return "", "", false
	}
	return first[:len(first)-1], strings.TrimSpace(rest), true
}

// caseRow reads a case table row: "| `A1/name` | checks | source |".
func caseRow(line string) (Case, bool) {
	if !strings.HasPrefix(line, "| `") {
		return Case{}, false
	}
	cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	if len(cells) != 3 {
		return Case{}, false
	}
	name := strings.Trim(strings.TrimSpace(cells[0]), "`")
	if !strings.Contains(name, "/") {
		return Case{}, false
	}
	return Case{Name: name, Checks: strings.TrimSpace(cells[1]), Source: strings.TrimSpace(cells[2])}, true
}

// Anchor is the anchor GitHub gives a Markdown heading (the text after the
// '#'s): lower case; letters, digits, '-' and '_' kept; spaces made '-';
// everything else dropped. A second heading with the same anchor gets "-1"
// appended, a third "-2" (Sections and HasAnchor account for that).
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plain drops Markdown emphasis and code marks for a terminal.
func plain(s string) string {
	return strings.NewReplacer("**", "", "`", "").Replace(s)
}
