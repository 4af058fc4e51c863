package report

import (
	"html"
	"html/template"
	"regexp"
	"strings"

	"github.com/ghostcheck/ghostcheck/docs"
)

// RepoURL is where ghostcheck's sources are read on the web: pages link a
// rule's section there, as a reader of a report may have no checkout.
const RepoURL = "https://github.com/ghostcheck/ghostcheck"

// DocURL is the web address of a docs/PROTOCOL.md section.
func DocURL(s docs.Section) string {
	return RepoURL + "/blob/main/" + s.Link()
}

// markdown renders the Markdown the sections of docs/PROTOCOL.md use (paragraphs,
// lists, tables, code blocks, emphasis, code spans, links) as HTML, so a
// page can carry a rule's text without a network or a checkout. Relative
// links point at the repository on the web.
func markdown(src string) template.HTML {
	var b strings.Builder
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "":
			i++
		case strings.HasPrefix(line, "```"):
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
				j++
			}
			b.WriteString("<pre>" + html.EscapeString(strings.Join(lines[i+1:min(j, len(lines))], "\n")) + "</pre>")
			i = j + 1
		case strings.HasPrefix(line, "|"):
			j := i
			for j < len(lines) && strings.HasPrefix(lines[j], "|") {
				j++
			}
			table(&b, lines[i:j])
			i = j
		case listItem.MatchString(line):
			j := i
			b.WriteString("<ul>")
			for j < len(lines) && (listItem.MatchString(lines[j]) || strings.HasPrefix(lines[j], "  ") && strings.TrimSpace(lines[j]) != "") {
				if listItem.MatchString(lines[j]) {
					if j > i {
						b.WriteString("</li>")
					}
					b.WriteString("<li>" + inline(listItem.ReplaceAllString(lines[j], "")))
				} else {
					b.WriteString(" " + inline(strings.TrimSpace(lines[j])))
				}
				j++
			}
			b.WriteString("</li></ul>")
			i = j
		default:
			j := i
			var para []string
			for j < len(lines) && strings.TrimSpace(lines[j]) != "" && !strings.HasPrefix(lines[j], "```") && !strings.HasPrefix(lines[j], "|") && (j == i || !listItem.MatchString(lines[j])) {
				para = append(para, strings.TrimSpace(lines[j]))
				j++
			}
			b.WriteString("<p>" + inline(strings.Join(para, " ")) + "</p>")
			i = j
		}
	}
	return template.HTML(b.String())
}

var (
	listItem = regexp.MustCompile(`^\s*([-*]|\d+\.) `)
	codeSpan = regexp.MustCompile("`([^`]+)`")
	bold     = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	emph     = regexp.MustCompile(`\*([^*\s][^*]*)\*`)
	link     = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
)

// inline renders a line's emphasis, code spans and links (escaped first).
func inline(s string) string {
	s = html.EscapeString(s)
	s = codeSpan.ReplaceAllString(s, "<code>$1</code>")
	s = bold.ReplaceAllString(s, "<b>$1</b>")
	s = emph.ReplaceAllString(s, "<i>$1</i>")
	return link.ReplaceAllStringFunc(s, func(m string) string {
		sub := link.FindStringSubmatch(m)
		return `<a href="` + webLink(html.UnescapeString(sub[2])) + `">` + sub[1] + `</a>`
	})
}

// webLink makes a link written in docs/PROTOCOL.md absolute.
func webLink(href string) string {
	switch {
	case strings.HasPrefix(href, "http://") || strings.HasPrefix(href, "https://"):
	case strings.HasPrefix(href, "#"):
		href = RepoURL + "/blob/main/" + docs.Path + href
	default:
		href = RepoURL + "/blob/main/docs/" + href
	}
	return html.EscapeString(href)
}

// table renders a Markdown table (its second line is the rule under the
// head).
func table(b *strings.Builder, rows []string) {
	b.WriteString(`<table class="doc">`)
	for i, r := range rows {
		if i == 1 && strings.Trim(r, "|-: ") == "" {
			continue
		}
		tag := "td"
		if i == 0 {
			tag = "th"
		}
		b.WriteString("<tr>")
		for _, c := range strings.Split(strings.Trim(strings.TrimSpace(r), "|"), "|") {
			b.WriteString("<" + tag + ">" + inline(strings.TrimSpace(c)) + "</" + tag + ">")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
}
