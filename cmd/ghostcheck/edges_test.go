package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every edge of the command line ends with the status it documents: 0
// checked and all Ok (or help asked for), 1 a violation or bad input, 2
// bad usage, 3 (replay) fixed; each error printed once; nothing passes
// without checking something.
func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../corpus/histories/mutant-early-handoff.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(src), "\n")
	headerOnly := filepath.Join(dir, "header-only.jsonl")
	if err := os.WriteFile(headerOnly, []byte(header+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := "../../corpus/histories/mutant-early-handoff.jsonl", "../../corpus/histories/v0-lost-join-response-ghost.jsonl"
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr, or stdout for 0 and replay
	}{
		{[]string{"run", "--duration", "-5s"}, 2, "--duration -5s: want a positive time budget"},
		{[]string{"run", "--duration", "0s"}, 2, "--duration 0s"},
		{[]string{"run", "--histories", "-1"}, 2, "--histories -1"},
		{[]string{"run", "--workers", "0"}, 2, "--workers 0: want at least 1"},
		{[]string{"run", "--shrink", "-1"}, 2, "--shrink -1"},
		{[]string{"run", "--static", "101"}, 2, "--static 101"},
		{[]string{"run", "--rounds", "5"}, 2, "--rounds at least 10"},
		{[]string{"check", "--bootstrap", "127.0.0.1:1", "--cases", "Z9", "--histories", "0"}, 2, "--cases: no case name starts with Z9; the sections are A1 A2 A3"},
		{[]string{"check", "--list"}, 0, "A1/v1-join-empty-member-id"},
		{[]string{"check", "--bootstrap", "127.0.0.1:1", "--cases", "A1"}, 2, "the history run needs the broker's --session-timeout and --heartbeat-interval"},
		{[]string{"check", "--bootstrap", "127.0.0.1:1", "--session-timeout", "-1s", "--heartbeat-interval", "100ms"}, 2, "--session-timeout -1s must not be negative"},
		{[]string{"check", "--bootstrap", "127.0.0.1:1", "--classic-min-session-timeout", "1m", "--classic-max-session-timeout", "1s"}, 2, "--classic-min-session-timeout 1m0s is above --classic-max-session-timeout 1s"},
		{[]string{"check", "--bootstrap", "127.0.0.1:1", "--histories", "-1"}, 2, "--histories -1"},
		{[]string{"check", "--bootstrap", "127.0.0.1:1", "--cases", "none", "--histories", "0"}, 2, "nothing to check"},
		{[]string{"check", "--bootstrap", "127.0.0.1:1", "--max-group-size", "-1", "--histories", "0"}, 2, "--max-group-size -1"},
		{[]string{"replay", headerOnly}, 1, "holds no operations"},
		{[]string{"replay", filepath.Join(dir, "missing.jsonl")}, 1, "no such file"},
		{[]string{"replay", "--target", "kafka", a, b}, 2, `--target "kafka": ghostcheck builds impl and model`},
		{[]string{"replay", "--json", headerOnly}, 1, `"schema": "ghostcheck/replay/v1"`},
		{[]string{"decode", "-h"}, 0, ""},
		{[]string{"demo", "-h"}, 0, ""},
		{[]string{"demo", "extra"}, 2, "usage: ghostcheck demo"},
		{[]string{"decode", "--size-prefix", "yes", "0000000d0044"}, 1, "truncated"},
		{[]string{"decode", "--size-prefix", "maybe", "00"}, 2, "--size-prefix must be auto, yes or no"},
		{[]string{"serve", "--drain-timeout", "-1s"}, 2, "--drain-timeout -1s must not be negative"},
		{[]string{"serve", "--max-connections", "-1"}, 2, "must not be negative"},
	} {
		code, out, errOut := run(t, "", tc.args...)
		text := errOut
		if code == 0 || tc.args[0] == "replay" && code != 2 {
			text = out + errOut
		}
		if code != tc.code || !strings.Contains(text, tc.want) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%s%s", tc.args, code, tc.code, tc.want, out, errOut)
		}
		if code == 2 && tc.want != "" && strings.Count(errOut, tc.want) != 1 {
			t.Errorf("%v: the error is printed %d times:\n%s", tc.args, strings.Count(errOut, tc.want), errOut)
		}
	}
}

// `COMMAND -h` exits 0 for every command, with its usage.
func TestDashHExitsZero(t *testing.T) {
	for _, c := range commands() {
		code, out, errOut := run(t, "", c.name, "-h")
		if code != 0 || !strings.Contains(out+errOut, "usage: ghostcheck "+c.name) {
			t.Errorf("%s -h: exit %d\n%s%s", c.name, code, out, errOut)
		}
	}
}

// A replayed history whose bug is gone is FIXED, with exit status 3,
// distinct from a failure (1) and from a reproduction (0); --json says the
// same with its schema and options.
func TestReplayFixedExitsThree(t *testing.T) {
	src, err := os.ReadFile("../../corpus/histories/mutant-early-handoff.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	fixed := filepath.Join(t.TempDir(), "fixed.jsonl")
	if err := os.WriteFile(fixed, []byte(strings.Replace(string(src), `"mutant":"early-handoff",`, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "", "replay", fixed, "../../corpus/histories/v0-lost-join-response-ghost.jsonl")
	if code != exitFixed || !strings.Contains(out, "FIXED "+fixed+" (impl): now Ok; it recorded Illegal NoDoubleClientAssignment") ||
		!strings.Contains(out, "1 of 2 histories reproduced their verdict; 1 now Ok (fixed)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, out, _ = run(t, "", "replay", "--json", fixed)
	var got struct {
		Schema    string         `json:"schema"`
		Options   map[string]any `json:"options"`
		Histories []struct {
			Status string `json:"status"`
			Level  string `json:"level"`
		} `json:"histories"`
		Summary    replaySummary `json:"summary"`
		ExitStatus int           `json:"exitStatus"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if code != exitFixed || got.Schema != "ghostcheck/replay/v1" || got.ExitStatus != exitFixed || got.Summary.Fixed != 1 ||
		len(got.Histories) != 1 || got.Histories[0].Status != "FIXED" || got.Histories[0].Level != "exact" || got.Options["paths"] == nil {
		t.Fatalf("exit %d, --json: %+v", code, got)
	}
}

// A history ghostchecktest wrote is not replayed here: replay says which
// go test replays it.
func TestReplayOfAGoTestHistorySaysHow(t *testing.T) {
	src, err := os.ReadFile("../../corpus/histories/v0-lost-join-response-ghost.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mine.jsonl")
	text := strings.Replace(string(src), `"target":"impl"`, `"target":"go test example.com/mine -run '^TestMine$'"`, 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "", "replay", path)
	if code != exitFailed || !strings.Contains(out, "replay it there: go test example.com/mine -run '^TestMine$' -ghostcheck.replay=") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}
