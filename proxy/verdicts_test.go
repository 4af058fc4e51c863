package proxy_test

import (
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/proxy"
)

// What a client or broker chose (a ClientId, a member id in a violation's
// detail, a broker's host) reaches the terminal escaped: no control
// character or invisible rune of theirs is printed raw, and printable
// names are printed as they are.
func TestVerdictsPrintable(t *testing.T) {
	hostile := "evil\x1b]0;pwned\x07\x1b[2J\u200b\xff"
	results := []rules.ClientResult{
		{Client: "clientId " + hostile, ClientID: hostile, Conns: []uint64{1}, Brokers: []string{"h" + hostile + ":9092"}, Requests: 2,
			Results: []rules.RuleResult{{Rule: rules.RuleStableMemberID, Outcome: rules.OutcomeViolated, Detail: "member id " + hostile + " changed"}}},
		{Client: "clientId plain-ök \"q\"", ClientID: "plain-ök", Conns: []uint64{2}, Brokers: []string{"b:9092"}, Requests: 1},
	}
	var out strings.Builder
	proxy.WriteVerdicts(&out, results, proxy.Stats{})
	got := out.String()
	for _, r := range got {
		if r != '\n' && r != '\t' && r < 0x20 || r == 0x7f || r == '\u200b' || r == '\ufffd' {
			t.Fatalf("the verdicts print %q raw:\n%s", r, got)
		}
	}
	for _, want := range []string{`clientId evil\x1b]0;pwned\a\x1b[2J\u200b\xff`, `member id evil\x1b]0;pwned`, `clientId plain-ök "q"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the verdicts lack %s:\n%s", want, got)
		}
	}
}
