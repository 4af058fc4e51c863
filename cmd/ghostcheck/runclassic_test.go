package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// run --protocol classic runs JoinGroup v4+ clients, then the v3 control:
// no ghost and every history Ok at v4+, ghosts at v3 (expected, so the
// exit is 0), and the summary says KIP-394's claim held. The same for
// --target model and impl.
func TestRunClassicShowsKIP394(t *testing.T) {
	for _, target := range []string{"impl", "model"} {
		code, out, errOut := run(t, "", "run", "--protocol", "classic", "--target", target, "--histories", "20", "--out", t.TempDir(), "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d, want 0 (v3 ghosts are the expected control)\n%s\n%s", target, code, out, errOut)
		}
		var sum struct {
			Options map[string]any `json:"options"`
			Phases  []struct {
				Label    string         `json:"label"`
				Protocol string         `json:"protocol"`
				Join     int            `json:"joinGroupVersion"`
				Control  bool           `json:"control"`
				Ghosts   int            `json:"ghosts"`
				Verdicts map[string]int `json:"verdicts"`
			} `json:"phases"`
		}
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatalf("--json output: %v\n%s", err, out)
		}
		ps := sum.Phases
		if len(ps) != 2 || ps[0].Join != 9 || ps[1].Join != 3 || ps[0].Control || !ps[1].Control || ps[0].Protocol != "classic" {
			t.Fatalf("%s: want a JoinGroup v9 column then the v3 control: %+v", target, ps)
		}
		if ps[0].Ghosts != 0 || ps[0].Verdicts["Ok"] != 20 || ps[1].Ghosts == 0 {
			t.Fatalf("%s: want 20 Ok histories without ghosts at v4+ and ghosts at v3: %+v", target, ps)
		}
		if sum.Options["protocol"] != "classic" {
			t.Errorf("%s: --json options %v lack the protocol", target, sum.Options)
		}
	}
	code, out, _ := run(t, "", "run", "--protocol", "classic", "--histories", "10", "--out", t.TempDir())
	if code != 0 || !strings.Contains(out, "KIP-394 holds: no ghost in 10 JoinGroup v4+ histories") || !strings.Contains(out, "JoinGroup v3 (no KIP-394)") {
		t.Fatalf("exit %d, summary:\n%s", code, out)
	}
}

// run --protocol mixed draws each group consumer or classic: one column of
// today's clients of both, then both controls; the consumer protocol stays
// the default.
func TestRunMixedAndDefaultProtocol(t *testing.T) {
	code, out, errOut := run(t, "", "run", "--protocol", "mixed", "--histories", "10", "--out", t.TempDir())
	if code != 0 || !strings.Contains(out, "mixed v1, JoinGroup v4+") || !strings.Contains(out, "mixed v0, JoinGroup v3") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	cfg, code := parseRunFlags([]string{"--histories", "1"}, io.Discard)
	if code >= 0 || len(cfg.columns) != 2 || cfg.columns[0].classic() || cfg.columns[1].classic() {
		t.Fatalf("the default run: exit %d, columns %+v; want consumer-protocol v1 and v0", code, cfg.columns)
	}
	for _, args := range [][]string{{"run", "--protocol", "kafka"}, {"run", "--protocol", "classic", "--join-group-version", "5"}} {
		if code, _, _ := run(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
