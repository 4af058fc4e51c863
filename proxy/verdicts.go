package proxy

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/ghostcheck/ghostcheck/model/rules"
)

// What `ghostcheck proxy` prints and reports at the end: a verdict table
// with a row per client rule and a column per client, the clients' legend,
// and each violation with the request that broke it.

// VerdictTable is the verdict table: its header (the rule, then C1, C2, ...
// one per client) and a row per rule of rules.ClientRules.
func VerdictTable(results []rules.ClientResult) (columns []string, rows [][]string) {
	columns = []string{"rule"}
	for i := range results {
		columns = append(columns, fmt.Sprintf("C%d", i+1))
	}
	for _, rule := range rules.ClientRules() {
		row := []string{string(rule)}
		for _, c := range results {
			row = append(row, string(c.Result(rule).Outcome))
		}
		rows = append(rows, row)
	}
	return columns, rows
}

// Legend names each column's client: its label, connections, brokers and
// requests. What a peer chose (ClientIds, broker hosts) is made printable.
func Legend(results []rules.ClientResult) []string {
	var out []string
	for i, c := range results {
		out = append(out, fmt.Sprintf("C%d = %s: %s on %s to %s", i+1, printable(c.Client), plural(c.Requests, "request"),
			plural(len(c.Conns), "connection"), printable(strings.Join(c.Brokers, ", "))))
	}
	return out
}

// printable escapes what a terminal would act on in a string a peer chose
// (a ClientId, a member id, a broker's host): control characters, other
// invisible runes and bytes that are not UTF-8 become Go escapes (\x1b,
// \u200b), so a client cannot move the cursor, retitle the window or hide
// text in the verdicts it is judged by. Printable text is left as it is.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsGraphic(r) && r != ' ' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w <= 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case unicode.IsGraphic(r) || r == ' ':
			b.WriteString(s[i : i+w])
		default:
			q := strconv.QuoteRune(r) // '\x1b', '\u200b'
			b.WriteString(q[1 : len(q)-1])
		}
		i += w
	}
	return b.String()
}

// Violation is one client's broken rule.
type Violation struct {
	Column, Client string
	Rule           rules.Rule
	Detail         string
}

// Violations lists every VIOLATED outcome, client by client, the client's
// label and the detail made printable.
func Violations(results []rules.ClientResult) []Violation {
	var out []Violation
	for i, c := range results {
		for _, r := range c.Results {
			if r.Outcome == rules.OutcomeViolated {
				out = append(out, Violation{Column: fmt.Sprintf("C%d", i+1), Client: printable(c.Client), Rule: r.Rule, Detail: printable(r.Detail)})
			}
		}
	}
	return out
}

// WriteVerdicts prints the table, the legend, what the outcomes mean, and
// each violation; and, when the recording's bounds left requests out
// (st.Unrecorded), that the verdicts judge only the part recorded.
func WriteVerdicts(w io.Writer, results []rules.ClientResult, st Stats) {
	if st.Unrecorded > 0 {
		fmt.Fprintf(w, "%s forwarded but not recorded, past the recording's bounds (--max-records, --max-recorded-bytes; %d MiB recorded): the verdicts judge the requests recorded before\n\n",
			plural(int(st.Unrecorded), "request"), st.RecordedBytes>>20)
	}
	if len(results) == 0 {
		fmt.Fprintln(w, "no client traffic was recorded")
		return
	}
	columns, rows := VerdictTable(results)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(columns, "\t")))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, l := range Legend(results) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, "PASS: kept every time; VIOLATED: broken (below); NOT ADOPTED: the client does not implement that change yet; -: nothing the rule speaks of happened")
	for _, v := range Violations(results) {
		fmt.Fprintf(w, "\n%s %s: %s\n  %s\n  more: ghostcheck explain %s\n", v.Column, v.Rule, v.Rule.Meaning(), v.Detail, v.Rule)
	}
}

// APICounts counts the recorded requests per api, most first.
func APICounts(reqs []rules.ClientRequest) []string {
	n := map[string]int{}
	for _, r := range reqs {
		n[r.API]++
	}
	var names []string
	for k := range n {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if n[names[i]] != n[names[j]] {
			return n[names[i]] > n[names[j]]
		}
		return names[i] < names[j]
	})
	out := make([]string, len(names))
	for i, k := range names {
		out[i] = fmt.Sprintf("%s %d", k, n[k])
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
