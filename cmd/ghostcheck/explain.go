package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ghostcheck/ghostcheck/docs"
)

// runExplain prints the docs/PROTOCOL.md section an id refers to: a case
// name (its row, then its section), a section id, or a checker rule. The
// document is compiled in, so it works wherever the binary runs.
func runExplain(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ghostcheck explain ID")
		fmt.Fprintln(stderr, "Prints the docs/PROTOCOL.md section ID refers to: a conformance case (A3/batch-per-member-errors),")
		fmt.Fprintln(stderr, "a section (A3, B4.2) or a rule a report names (NoGhosts). Exit 1 if there is no such rule.")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	id := fs.Arg(0)
	s, ok := docs.Lookup(id)
	if !ok {
		fmt.Fprintf(stderr, "ghostcheck explain: %s has no rule, case or section %q\n", docs.Path, id)
		fmt.Fprintf(stderr, "sections and rules: %s\n", strings.Join(sectionIDs(), " "))
		if like := casesLike(id); len(like) > 0 {
			fmt.Fprintf(stderr, "cases like it: %s\n", strings.Join(like, " "))
		}
		return 1
	}
	if c, ok := docs.FindCase(id); ok {
		fmt.Fprintf(stdout, "%s\n%s%s\n", c.Name, wrap("checks  ", mdPlain(c.Checks), 78), wrap("source  ", mdPlain(c.Source), 78))
	}
	fmt.Fprintf(stdout, "%s. %s\n%s\n\n%s\n", s.ID, s.Title, s.Link(), mdPlain(s.Text))
	if len(s.Subsections) > 0 {
		fmt.Fprintf(stdout, "\nsubsections: %s (ghostcheck explain %s)\n", strings.Join(s.Subsections, ", "), s.Subsections[0])
	}
	return 0
}

// citeRule prints, under a failure, the rule it broke: the section's id,
// title and first paragraph, and where to read the rest. id is a case name
// or a rule id; nothing is printed for an id docs/PROTOCOL.md does not know.
func citeRule(w io.Writer, id string) {
	s, ok := docs.Lookup(id)
	if !ok {
		return
	}
	fmt.Fprintf(w, "  section  %s. %s\n", s.ID, s.Title)
	if c, ok := docs.FindCase(id); ok {
		fmt.Fprint(w, wrap("checks   ", mdPlain(c.Checks), 78))
		fmt.Fprint(w, wrap("source   ", mdPlain(c.Source), 78))
	}
	fmt.Fprint(w, wrap("rule     ", strings.TrimPrefix(s.Summary(), "Rule. "), 78))
	fmt.Fprintf(w, "  more     ghostcheck explain %s\n           %s\n", id, s.Link())
}

// wrap indents text two spaces, starts it with label, and breaks it into
// lines of at most width columns, continuing under the label.
func wrap(label, text string, width int) string {
	pad := "  " + strings.Repeat(" ", len(label))
	var b strings.Builder
	line := "  " + label
	n := len(line)
	fresh := true
	for _, w := range strings.Fields(text) {
		if !fresh && n+1+len(w) > width {
			b.WriteString(line + "\n")
			line, n, fresh = pad, len(pad), true
		}
		if !fresh {
			line += " "
			n++
		}
		line += w
		n += len(w)
		fresh = false
	}
	b.WriteString(line + "\n")
	return b.String()
}

// mdPlain drops Markdown's emphasis and code marks for a terminal.
func mdPlain(s string) string {
	return strings.NewReplacer("**", "", "`", "").Replace(s)
}

func sectionIDs() []string {
	var out []string
	for _, s := range docs.Sections() {
		out = append(out, s.ID)
	}
	return out
}

// casesLike lists case names that contain id, for a misspelled or
// abbreviated case name.
func casesLike(id string) []string {
	var out []string
	for _, c := range docs.Cases() {
		if id != "" && strings.Contains(c.Name, id) {
			out = append(out, c.Name)
		}
	}
	sort.Strings(out)
	if len(out) > 10 {
		out = append(out[:10], "...")
	}
	return out
}
