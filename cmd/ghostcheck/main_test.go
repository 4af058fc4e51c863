package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain runs the test binary as `ghostcheck explore-worker` when a
// test's explore starts its worker processes (os.Executable is the test
// binary then), and the tests otherwise.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == exploreWorkerCommand {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// run calls Main as the binary would and returns its exit status and
// output.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRunWithoutMutantExitsZero(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "", "run", "--heartbeat-version", "1", "--histories", "20", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"histories                        20", "verdict Illegal                  0", "ghosts found                     0"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestRunWithMutantExitsOneAndNamesTheRule(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "", "run", "--mutant", "early-handoff", "--histories", "5", "--out", dir, "--shrink", "50")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "rule:     NoDoubleClientAssignment") {
		t.Errorf("the report does not name the violated rule:\n%s", out)
	}
	if !strings.Contains(out, "replay:   ghostcheck replay "+dir) {
		t.Errorf("the report does not print the replay command:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one history written, found %v", files)
	}
	// The written history replays to the same verdict.
	if code, out, _ := run(t, "", "replay", files[0]); code != 0 {
		t.Fatalf("replaying the written history: exit %d\n%s", code, out)
	}
}

func TestRunCompareShowsTheKIPClaim(t *testing.T) {
	code, out, errOut := run(t, "", "run", "--histories", "10", "--out", t.TempDir(), "--json")
	if code != 0 {
		t.Fatalf("exit %d, want 0 (v0 ghosts are the expected control)\n%s\n%s", code, out, errOut)
	}
	var sum struct {
		Phases []struct {
			Version int `json:"heartbeatVersion"`
			Ghosts  int `json:"ghosts"`
		} `json:"phases"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if len(sum.Phases) != 2 || sum.Phases[0].Version != 1 || sum.Phases[1].Version != 0 {
		t.Fatalf("want a v1 then a v0 phase: %+v", sum.Phases)
	}
	if sum.Phases[0].Ghosts != 0 || sum.Phases[1].Ghosts == 0 {
		t.Fatalf("want no v1 ghost and some v0 ghosts: %+v", sum.Phases)
	}
}

func TestRunBadUsageExitsTwo(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--mutant", "no-such-bug"},
		{"run", "--heartbeat-version", "7"},
		{"run", "--faults", "lost-response=90"},
		{"run", "--target", "nowhere"},
		{"frobnicate"},
	} {
		if code, _, _ := run(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestReplayOfTheCorpusPasses(t *testing.T) {
	code, out, errOut := run(t, "", "replay", "../../corpus/histories")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "histories reproduced their verdict") {
		t.Fatalf("unexpected output:\n%s", out)
	}
}

func TestReplayDetectsAWrongExpectation(t *testing.T) {
	src, err := os.ReadFile("../../corpus/histories/mutant-early-handoff.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Claim the history passes: replay must refuse.
	bad := bytes.Replace(src, []byte(`"verdict":"Illegal"`), []byte(`"verdict":"Ok"`), 1)
	path := filepath.Join(t.TempDir(), "wrong.jsonl")
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, "", "replay", path); code != 1 || !strings.Contains(out, "FAIL") {
		t.Fatalf("exit %d, want 1 with FAIL:\n%s", code, out)
	}
}

func TestDecodeBadFrameExitsOneWithTheOffset(t *testing.T) {
	code, _, errOut := run(t, "", "decode", "0000000d00440001000000070001630000")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(errOut, "field GroupId at byte 12") || !strings.Contains(errOut, "ConsumerGroupHeartbeatRequest v1") {
		t.Fatalf("the error must name the field, version and offset: %s", errOut)
	}
}

func TestDecodeResponseFromStdin(t *testing.T) {
	frame := "0000005b0000000700000000000000002537336430313665662d623831642d343037662d396262352d6634626430316162393533310000000300001388010265d224ec62ba40f7bbd1a34229261ffa04000000000000000200000004000000"
	code, out, errOut := run(t, frame, "decode", "--response", "68:1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		API  string
		Body struct {
			MemberId    string
			MemberEpoch int32
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.API != "ConsumerGroupHeartbeat" || got.Body.MemberId != "73d016ef-b81d-407f-9bb5-f4bd01ab9531" || got.Body.MemberEpoch != 3 {
		t.Fatalf("decoded %+v", got)
	}
}
