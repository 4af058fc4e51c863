package main

import (
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		toStdout bool
	}{
		{nil, 2, false},
		{[]string{"-h"}, 0, true},
		{[]string{"--help"}, 0, true},
		{[]string{"help"}, 0, true},
		{[]string{"frobnicate"}, 2, false},
	} {
		code, out, errOut := run(t, "", tc.args...)
		text := errOut
		if tc.toStdout {
			text = out
		}
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.code)
		}
		for _, c := range commands() {
			if !strings.Contains(text, "\n  "+c.name+" ") {
				t.Errorf("%v: the usage does not list %s:\n%s", tc.args, c.name, text)
			}
		}
	}
}

// The package documentation lists every command, as the usage does.
func TestPackageDocListsEveryCommand(t *testing.T) {
	src := readFile(t, "main.go")
	doc, _, _ := strings.Cut(src, "package main")
	for _, c := range commands() {
		if !strings.Contains(doc, "//\tghostcheck "+c.name) {
			t.Errorf("the package doc has no usage line for %s", c.name)
		}
	}
}

// `ghostcheck help CMD` prints exactly what `CMD -h` prints, on stdout, and
// exits 0 whatever CMD -h exits.
func TestHelpIsCommandDashH(t *testing.T) {
	for _, c := range commands() {
		if c.name == "help" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			_, dashOut, dashErr := run(t, "", c.name, "-h")
			code, out, errOut := run(t, "", "help", c.name)
			if code != 0 {
				t.Fatalf("help %s: exit %d, want 0", c.name, code)
			}
			if errOut != "" {
				t.Errorf("help %s wrote to stderr: %q", c.name, errOut)
			}
			if want := dashOut + dashErr; out != want || out == "" {
				t.Errorf("help %s printed\n%s\nwant what %s -h prints:\n%s", c.name, out, c.name, want)
			}
			if !strings.Contains(out, "usage: ghostcheck "+c.name) {
				t.Errorf("help %s does not start with its usage:\n%s", c.name, out)
			}
		})
	}
}

func TestHelpUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string // in stdout for 0, stderr otherwise
	}{
		{[]string{"help", "help"}, 0, "usage: ghostcheck help [COMMAND]"},
		{[]string{"help", "-h"}, 0, "usage: ghostcheck help [COMMAND]"},
		{[]string{"help", "frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"help", "run", "check"}, 2, "usage: ghostcheck help [COMMAND]"},
	} {
		code, out, errOut := run(t, "", tc.args...)
		text := errOut
		if tc.code == 0 {
			text = out
		}
		if code != tc.code || !strings.Contains(text, tc.want) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%s%s", tc.args, code, tc.code, tc.want, out, errOut)
		}
	}
}

func TestVersionText(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want []string
		not  []string
	}{
		{"go install of a tag", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/ghostcheck/ghostcheck", Version: "v0.3.1"}},
			true, []string{"ghostcheck v0.3.1\n", "  module    github.com/ghostcheck/ghostcheck\n", "  go        go1.26.0\n"}, []string{"revision", "time"}},
		{"a build in a changed checkout", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/ghostcheck/ghostcheck", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			true, []string{"ghostcheck (devel)\n", "  revision  0123456789abcdef (modified)\n", "  time      2026-12-01T10:00:00Z\n"}, nil},
		{"a clean checkout", &debug.BuildInfo{Main: debug.Module{Version: ""},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "fedcba"}, {Key: "vcs.modified", Value: "false"}}},
			true, []string{"ghostcheck (devel)\n", "  revision  fedcba\n", "  go        go1."}, []string{"modified", "module"}},
		{"no build information", nil, false, []string{"ghostcheck (no build information)\n", "  go        go1."}, nil},
	} {
		got := versionText(tc.bi, tc.ok)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q has %q", tc.name, got, n)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "ghostcheck ") || !strings.Contains(out, "  go        go") {
		t.Fatalf("version: exit %d:\n%s", code, out)
	}
	if code, _, _ := run(t, "", "version", "extra"); code != 2 {
		t.Errorf("version extra: exit %d, want 2", code)
	}
}

func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		id   string
		code int
		want []string // in stdout for 0, stderr otherwise
		not  []string
	}{
		{"A3/batch-per-member-errors", 0, []string{
			"A3/batch-per-member-errors\n  checks  one v3+ request with two entries",
			"  source  KIP-345, Kafka 2.4\n",
			"A3. Static membership and batch LeaveGroup (KIP-345)\ndocs/PROTOCOL.md#a3-static-membership-and-batch-leavegroup-kip-345\n",
			"Rule. LeaveGroup removes members by (member id, group instance id)",
			"On the wire.",
			"subsections: A3.1, A3.2, A3.3 (ghostcheck explain A3.1)",
		}, []string{"**", "A3.1. LeaveGroup removes a consumer-group member"}},
		{"NoGhosts", 0, []string{"NoGhosts. every member belongs to a live process\n", "#noghosts-", "Source. KIP-1082"}, []string{"subsections"}},
		{"§B4.2", 0, []string{"B4.2. Request validation\n", "B4.2/blank-group-id"}, nil},
		{"StaticRestartKeepsAssignment", 0, []string{"a static restart is not a rebalance", "Who reports it."}, []string{"Corrected."}},
		{"A3/batch-per-member-error", 1, []string{`no rule, case or section "A3/batch-per-member-error"`, "cases like it: A3/batch-per-member-errors"}, nil},
		{"Z9", 1, []string{"sections and rules: A1 A2 A3 A3.1", "NoGhosts"}, []string{"cases like it"}},
	} {
		code, out, errOut := run(t, "", "explain", tc.id)
		text := errOut
		if tc.code == 0 {
			text = out
		}
		if code != tc.code {
			t.Errorf("explain %s: exit %d, want %d\n%s%s", tc.id, code, tc.code, out, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("explain %s: output lacks %q:\n%s", tc.id, w, text)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(text, n) {
				t.Errorf("explain %s: output has %q:\n%s", tc.id, n, text)
			}
		}
	}
	for _, args := range [][]string{{"explain"}, {"explain", "A1", "A2"}, {"explain", "--nope"}} {
		if code, _, _ := run(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestWrap(t *testing.T) {
	got := wrap("rule     ", "one two three four five six", 21) // lines of at most 21 columns
	want := "  rule     one two\n           three four\n           five six\n"
	if got != want {
		t.Errorf("wrap:\n%q\nwant\n%q", got, want)
	}
	if got := wrap("x ", "averyveryverylongwordthatdoesnotfit", 10); got != "  x averyveryverylongwordthatdoesnotfit\n" {
		t.Errorf("a word longer than the line must stay whole: %q", got)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
