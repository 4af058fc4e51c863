package conformance_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/brokertest"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
)

func parseKnown(t *testing.T, text string) *conformance.Known {
	t.Helper()
	k, err := conformance.ParseKnown(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestParseKnown(t *testing.T) {
	t.Parallel()
	k := parseKnown(t, `# findings
K1 case  A1/v1-join-empty-member-id   NONE member=
K1 probe v1-join-empty-member-id

K9 rule  NoGhosts   (epoch  -2)
L1 workaround join-regex-empty  the mock aborts
`)
	if len(k.Entries) != 4 {
		t.Fatalf("%d entries: %+v", len(k.Entries), k.Entries)
	}
	if e, ok := k.Case("A1/v1-join-empty-member-id"); !ok || e.ID != "K1" || e.Observed != "NONE member=" || e.Line != 2 {
		t.Errorf("case entry %+v", e)
	}
	if e, ok := k.Rule("NoGhosts"); !ok || e.Observed != "(epoch  -2)" {
		t.Errorf("rule entry %+v: the observed text keeps its inner spaces", e)
	}
	if _, ok := k.Probe("v1-join-empty-member-id"); !ok || !k.Workaround(conformance.WorkaroundJoinRegex) {
		t.Error("probe or workaround missing")
	}
	var none *conformance.Known
	if _, ok := none.Case("A1/v1-join-empty-member-id"); ok || none.Workaround(conformance.WorkaroundJoinRegex) {
		t.Error("a nil Known knows something")
	}
	for _, bad := range []string{
		"K1 case",
		"K1 case A1/no-such-case",
		"K1 probe no-such-probe",
		"K1 rule NoSuchRule",
		"K1 workaround no-such-workaround",
		"K1 finding A1/v1-join-empty-member-id",
	} {
		if _, err := conformance.ParseKnown(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v, want an error naming line 1", bad, err)
		}
	}
}

// A known finding's FAIL is marked with its id and is not a failure; a
// failure that differs from what was recorded, and a known finding that
// no longer reproduces, are noted; Mismatches lists both.
func TestRunMarksKnownFindings(t *testing.T) {
	t.Parallel()
	addr := startMutant(t, impl.Mutants{}.With(impl.MutV1EmptyMemberID))
	k := parseKnown(t, `
X1 case A1/v1-join-empty-member-id NONE member=
X2 case A1/v1-join-blank-member-id something else
X3 case A1/v1-heartbeat-empty-member-id
`)
	rep, err := conformance.Run(peer(addr), conformance.Select([]string{"A1/v1-"}, false, false), conformance.Options{Known: k})
	if err != nil {
		t.Fatal(err)
	}
	rs := byName(rep.Results)
	if r := rs["A1/v1-join-empty-member-id"]; r.Status != conformance.Fail || r.Known != "X1" || r.Failed() {
		t.Errorf("known: %+v", r)
	}
	if r := rs["A1/v1-join-blank-member-id"]; r.Known != "" || !r.Failed() || !strings.Contains(r.Note, `X2 was recorded as "something else"; this FAIL differs`) {
		t.Errorf("differs: %+v", r)
	}
	if r := rs["A1/v1-heartbeat-empty-member-id"]; r.Status != conformance.Pass || r.Note != "known finding X3 did not reproduce" {
		t.Errorf("stale: %+v", r)
	}
	var b strings.Builder
	conformance.Table(&b, rep.Results)
	if !strings.Contains(b.String(), "FAIL (known X1)") {
		t.Errorf("table:\n%s", b.String())
	}
	if m := k.Mismatches(rep.Results); len(m) != 2 || !strings.Contains(m[0], "blank") || !strings.Contains(m[1], "X3") {
		t.Errorf("mismatches %q", m)
	}
}

// nullRegex is a heartbeat naming topics with a null regex, on which
// librdkafka's mock aborts (L1).
func nullRegex(_ *codec.RequestHeader, req codec.Message) bool {
	hb, ok := req.(*codec.ConsumerGroupHeartbeatRequest)
	return ok && hb.SubscribedTopicNames != nil && !hb.SubscribedTopicRegex.Valid
}

// A broker that dies on every join a Java client sends: the workaround
// gets the cases and histories past it, and the one case that still sends
// such a join crashes it (the known finding, reproduced). Probes listed
// are left out of the histories, and a rule listed makes a history KNOWN.
func TestKnownWorkaroundsAndProbes(t *testing.T) {
	t.Parallel()
	k := parseKnown(t, `
L1 workaround join-regex-empty
L1 case B4.2/join-null-regex-allowed the broker stopped answering after ConsumerGroupHeartbeat
`)
	var n atomic.Int32
	b, err := conformance.NewBroker(nil, launcher(t, brokertest.Options{DieOn: nullRegex}, &n), 0)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := conformance.Run(peer(b.Addr()), conformance.Select([]string{"A1/retried", "A3/admin", "B4.4/leave", "B4.2/join-null-regex"}, true, false), conformance.Options{Known: k, Broker: b, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Failed() || r.Status == conformance.Skip {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Observed)
		}
	}
	if r := byName(rep.Results)["B4.2/join-null-regex-allowed"]; r.Status != conformance.Crash || r.Known != "L1" {
		t.Errorf("the null regex: %+v", r)
	}
	// Histories: the workaround keeps the broker alive; the empty-id
	// probe is left out, so a broker that makes ghosts of it is KNOWN
	// through the rule it then breaks, or Ok.
	ghosts := brokertest.Start(t, startMutant(t, impl.Mutants{}.With(impl.MutV1EmptyMemberID)), brokertest.Options{DieOn: nullRegex})
	cfg := conformance.HistoryConfig{Peer: peer(ghosts.Addr()), Seed: 1, Histories: 1, Options: shortHistories(), Known: k}
	h, err := conformance.RunHistories(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hr := h.Histories[0]; hr.Status != "Illegal" || ghosts.Dead() {
		t.Fatalf("with the probe: %+v (dead %v), want Illegal: the empty v1 id made a member", hr, ghosts.Dead())
	}
	cfg.Known = parseKnown(t, "L1 workaround join-regex-empty\nX1 probe v1-join-empty-member-id\n")
	if h, err = conformance.RunHistories(cfg, nil); err != nil {
		t.Fatal(err)
	}
	if hr := h.Histories[0]; hr.Status != "Ok" || len(h.LeftOut) != 1 || len(h.Workarounds) != 1 {
		t.Fatalf("probe left out: %+v, left out %v, workarounds %v", hr, h.LeftOut, h.Workarounds)
	}
	// The rules it breaks, known: KNOWN. With only the KIP-1082 answer
	// known, the same join's other violation (the id it made is not the
	// one sent) is still found.
	cfg.Known = parseKnown(t, "L1 workaround join-regex-empty\nX1 rule ObservableResponse\nX1 rule NoGhosts\nX1 rule OneMemberPerProcess\nX1 rule QuiescentMembership\n")
	if h, err = conformance.RunHistories(cfg, nil); err != nil {
		t.Fatal(err)
	}
	if hr := h.Histories[0]; hr.Status != conformance.HistoryKnown || hr.Failed() || len(hr.Known) == 0 {
		t.Fatalf("rules known: %+v", hr)
	}
	cfg.Known = parseKnown(t, "L1 workaround join-regex-empty\nX1 rule ObservableResponse KIP-1082\nX1 rule NoGhosts\nX1 rule OneMemberPerProcess\nX1 rule QuiescentMembership\n")
	if h, err = conformance.RunHistories(cfg, nil); err != nil {
		t.Fatal(err)
	}
	if hr := h.Histories[0]; hr.Status != "Illegal" || hr.Rule != "ObservableResponse" || !strings.Contains(hr.Detail, "must echo member id") || !slices.Contains(hr.Known, "X1 ObservableResponse") {
		t.Fatalf("one violation known: %+v", hr)
	}
}

// LoadKnown is the one loader of known-findings files (check --known, and
// the tests holding kfake and librdkafka's mock to their findings): its
// errors name the file, and the line for what is in it.
func TestLoadKnown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name    string
		path    string
		entries int
		wantErr []string // each must be in the error; nil: no error
	}{
		{"good", write("good.known", "# c\nK1 case A1/v1-join-empty-member-id\n\nK9 rule NoGhosts x\n"), 2, nil},
		{"empty", write("empty.known", ""), 0, nil},
		{"missing", filepath.Join(dir, "missing.known"), 0, []string{"missing.known", "no such file"}},
		{"bad kind", write("bad.known", "# c\n\nK1 finding A1/v1-join-empty-member-id\n"), 0, []string{"bad.known, line 3", `kind "finding"`}},
		{"short line", write("short.known", "K1 case\n"), 0, []string{"short.known, line 1", "want ID KIND NAME"}},
		{"line too long", write("long.known", "K1 case A1/v1-join-empty-member-id\n"+strings.Repeat("x", 70<<10)+"\n"), 0, []string{"long.known, after line 1", "too long"}},
		{"the repo's kfake findings", "testdata/kfake.known", -1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := conformance.LoadKnown(tc.path)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if tc.entries >= 0 && len(k.Entries) != tc.entries {
					t.Errorf("%d entries, want %d: %+v", len(k.Entries), tc.entries, k.Entries)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one containing %q", tc.wantErr)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
