package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/internal/releases"
)

// releaseMatrixEnv names the file the whole release matrix writes its
// table to (make release-matrix); unset, the matrix runs its fast subset.
const releaseMatrixEnv = "GHOSTCHECK_RELEASE_MATRIX"

// matrixCases are the fast subset's cases: those that tell releases apart
// (ApiVersions, framing, the header's tags, LeaveGroup's versions).
const matrixCases = "B1.1,B7.1,A2/header-tags-ignorable,B5/"

// matrixRow is one check of the matrix.
type matrixRow struct {
	release, mode, heldTo string
	counts                map[conformance.Status]int
	exit                  int
}

// releaseMutant is, for one release, a planted bug (impl/mutants.go) of a
// rule that release ships, and the case that catches it at that release:
// the newest rule the release brought that a mutant breaks where there is
// one (KIP-345's fencing in 2.3, its LeaveGroup v3 in 2.4, KAFKA-12890 in
// 3.0, KIP-814 in 3.2, KIP-1082 and KAFKA-18188 in 4.0), else an older
// rule it still ships, varied across releases.
var releaseMutant = map[string]struct{ mutant, caseName string }{
	"2.3":   {"classic-no-fence", "A6.2/old-member-fenced"},
	"2.4":   {"admin-removal-ignored", "A6.3/admin-removal"},
	"2.5":   {"static-replacement-rebalances", "A6.2/replaced-stable"},
	"2.6":   {"member-id-required-from-v5", "A6.1/member-id-required-v4"},
	"2.7":   {"pending-counts-toward-max-size", "B8.11/pending-not-counted"},
	"2.8":   {"heartbeat-generation-unchecked", "B8.9/illegal-generation"},
	"3.0":   {"sync-timeout-removes-synced", "B8.10/sync-expired"},
	"3.1":   {"completing-rejoin-rebalances", "B8.6/existing-completing-same"},
	"3.2":   {"skip-assignment-withheld", "A6.2/replaced-leader-skip-assignment"},
	"3.3":   {"skip-assignment-withheld", "A6.2/replaced-leader-skip-assignment"},
	"3.4":   {"skip-assignment-withheld", "A6.2/replaced-leader-skip-assignment"},
	"3.5":   {"skip-assignment-withheld", "A6.2/replaced-leader-skip-assignment"},
	"3.6":   {"skip-assignment-withheld", "A6.2/replaced-leader-skip-assignment"},
	"3.7":   {"leader-not-reelected", "B8.7/leader-moved"},
	"3.8":   {"removed-join-not-answered", "A6.3/removed-join-answered"},
	"3.9":   {"pending-leave-kept", "A6.3/pending-dropped"},
	"4.0.0": {"v1-empty-member-id", "A1/v1-join-empty-member-id"},
	"4.0.1": {"leavegroup-member-id-unknown", "A3/remove-by-member-id"},
	"4.1":   {"leavegroup-bump-per-member", "A3/batch-one-epoch-bump"},
	"4.2":   {"describe-hides-parked", "B4.4/static-leave-parks"},
}

// The release matrix: for each release, check (the release inferred, and
// --kafka-version X) against serve --kafka-version X passes every case that
// applies and skips the rest with reasons: 0 FAIL, 0 ERROR, exit 0, and
// the inferred release lists and serves what X does; and serve
// --kafka-version X --mutant M, M a planted bug of a rule X ships
// (releaseMutant), fails the case that checks the rule at X, exit 1. The
// classic session cases get the bounds serve was given. go test runs the
// fast subset of cases; with GHOSTCHECK_RELEASE_MATRIX=FILE (make
// release-matrix) every case, and the table goes to FILE.
func TestReleaseMatrix(t *testing.T) {
	file := os.Getenv(releaseMatrixEnv)
	var mu sync.Mutex
	var rows []matrixRow
	var caught []matrixCatch
	t.Run("releases", func(t *testing.T) {
		for _, r := range releases.All() {
			t.Run(r.Name, func(t *testing.T) {
				t.Parallel()
				mut, ok := releaseMutant[r.Name]
				if !ok {
					t.Fatalf("no planted bug chosen for %s (releaseMutant)", r)
				}
				serveArgs := []string{"--kafka-version", r.Name, "--max-group-size", "5", "--classic-min-session-timeout", "100ms",
					"--classic-max-session-timeout", "10m", "--initial-rebalance-delay", "100ms", "--classic-max-group-size", "5"}
				addr := startServeCommand(t, serveArgs...)
				checkArgs := func(addr string) []string {
					return []string{"check", "--bootstrap", addr, "--session-timeout", "800ms", "--heartbeat-interval", "100ms", "--max-group-size", "5",
						"--classic-session-timeout", "1.6s", "--classic-min-session-timeout", "100ms", "--classic-max-session-timeout", "10m",
						"--classic-max-group-size", "5", "--histories", "0", "--out", t.TempDir(), "--json"}
				}
				for _, mode := range []string{"inferred", "--kafka-version"} {
					args := checkArgs(addr)
					if file == "" {
						args = append(args, "--cases", matrixCases+","+mut.caseName)
					}
					if mode != "inferred" {
						args = append(args, "--kafka-version", r.Name)
					}
					code, out, errOut := run(t, "", args...)
					var got struct {
						Cases  []conformance.Result
						HeldTo *conformance.Holding
					}
					if err := json.Unmarshal([]byte(out), &got); err != nil || got.HeldTo == nil {
						t.Fatalf("%s: %v: %s\n%s", mode, err, out, errOut)
					}
					counts := conformance.Counts(got.Cases)
					row := matrixRow{release: r.Name, mode: mode, heldTo: got.HeldTo.Profile.Name, counts: counts, exit: code}
					mu.Lock()
					rows = append(rows, row)
					mu.Unlock()
					if code != exitOK || counts[conformance.Fail]+counts[conformance.Error]+counts[conformance.Crash] > 0 {
						for _, c := range got.Cases {
							if c.Status == conformance.Fail || c.Status == conformance.Error || c.Status == conformance.Crash {
								t.Errorf("%s: %s %s: %s", mode, c.Name, c.Status, c.Observed)
							}
						}
						t.Errorf("%s: exit %d, %v", mode, code, counts)
					}
					held, err := releases.Lookup(row.heldTo)
					if err != nil || mode == "--kafka-version" && held.Name != r.Name || len(held.Mismatches(observedOf(r))) > 0 {
						t.Errorf("%s: held to %s (%v), which a default %s broker does not fit", mode, row.heldTo, err, r)
					}
					if status := statusOf(got.Cases, mut.caseName); status != conformance.Pass {
						t.Errorf("%s: %s %s without a planted bug, want PASS", mode, mut.caseName, status)
					}
				}
				// The planted bug of one of the release's rules: the case
				// that checks the rule FAILs at the release (not N/A, not
				// SKIP), and check exits 1.
				maddr := startServeCommand(t, append(serveArgs, "--mutant", mut.mutant)...)
				code, out, errOut := run(t, "", append(checkArgs(maddr), "--kafka-version", r.Name, "--cases", mut.caseName)...)
				var got struct{ Cases []conformance.Result }
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("--mutant %s: %v: %s\n%s", mut.mutant, err, out, errOut)
				}
				status := statusOf(got.Cases, mut.caseName)
				if code != exitFailed || status != conformance.Fail {
					t.Errorf("serve --mutant %s --kafka-version %s: %s %s, exit %d; want FAIL, exit 1", mut.mutant, r.Name, mut.caseName, status, code)
				}
				mu.Lock()
				caught = append(caught, matrixCatch{release: r.Name, mutant: mut.mutant, caseName: mut.caseName, status: status, exit: code})
				mu.Unlock()
			})
		}
	})
	if file != "" {
		if err := os.WriteFile(file, []byte(matrixTable(rows)+"\n"+catchTable(caught)), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("release matrix written to %s", file)
	}
}

// observedOf is what serve --kafka-version r shows: what a default broker
// of r lists and serves, without Metadata and FindCoordinator (serve
// routes nothing; without them 2.5 to 3.1 look the same, and the newest
// of them is inferred).
func observedOf(r releases.Release) releases.Observed {
	obs := releases.Observed{Listed: map[codec.APIKey][2]int16{}, Unserved: map[codec.APIKey]bool{}}
	for _, a := range r.APIs() {
		if a.Listed && a.Key != codec.Metadata && a.Key != codec.FindCoordinator {
			obs.Listed[a.Key] = [2]int16{a.Advertised.Min, a.Advertised.Max}
			obs.Unserved[a.Key] = !a.Served
		}
	}
	return obs
}

// matrixTable is the matrix as Markdown, releases in order.
func matrixTable(rows []matrixRow) string {
	var b strings.Builder
	b.WriteString("| serve --kafka-version | check | held to | pass | skip | n/a | fail | error | crash | exit |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, name := range releases.Names() {
		for _, mode := range []string{"inferred", "--kafka-version"} {
			for _, r := range rows {
				if r.release == name && r.mode == mode {
					c := r.counts
					fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %d | %d | %d |\n", r.release, r.mode, r.heldTo, c[conformance.Pass], c[conformance.Skip],
						c[conformance.NotApplicable], c[conformance.Fail], c[conformance.Error], c[conformance.Crash], r.exit)
				}
			}
		}
	}
	return b.String()
}

// matrixCatch is one planted bug checked at its release.
type matrixCatch struct {
	release, mutant, caseName string
	status                    conformance.Status
	exit                      int
}

// catchTable is the planted bugs' checks as Markdown, releases in order.
func catchTable(cs []matrixCatch) string {
	var b strings.Builder
	b.WriteString("| serve --kafka-version X --mutant | check --kafka-version X: the case | result | exit |\n|---|---|---|---|\n")
	for _, name := range releases.Names() {
		for _, c := range cs {
			if c.release == name {
				fmt.Fprintf(&b, "| %s `%s` | %s | %s | %d |\n", c.release, c.mutant, c.caseName, c.status, c.exit)
			}
		}
	}
	return b.String()
}

// statusOf is the named case's status among results ("" when it did not
// run).
func statusOf(results []conformance.Result, name string) conformance.Status {
	for _, r := range results {
		if r.Name == name {
			return r.Status
		}
	}
	return ""
}

// Histories against a broker that does not serve the consumer protocol (a
// default Kafka 3.9 lists ConsumerGroupHeartbeat and answers it
// UNSUPPORTED_VERSION; 2.3 lists none) run classic members when --protocol
// is not given, say so, and pass (an Ok history in which classic members
// joined); --protocol consumer SKIPs them with the reason. check exits 0
// either way: never a FAIL or a hang.
func TestHistoriesWithoutTheConsumerProtocol(t *testing.T) {
	for _, c := range []struct{ release, why string }{
		{"3.9", "ConsumerGroupHeartbeat listed but answered UNSUPPORTED_VERSION"},
		{"2.3", "ConsumerGroupHeartbeat not listed"},
	} {
		t.Run(c.release, func(t *testing.T) {
			t.Parallel()
			addr := startServeCommand(t, "--kafka-version", c.release, "--initial-rebalance-delay", "100ms")
			args := []string{"check", "--bootstrap", addr, "--session-timeout", "800ms", "--heartbeat-interval", "100ms",
				"--histories", "1", "--cases", "B7.1", "--out", t.TempDir()}
			noConsumer := "the broker does not serve the consumer protocol (" + c.why + ")"
			code, out, errOut := run(t, "", append(args, "--rounds", "100", "--json")...)
			var got struct {
				HeldTo                  *conformance.Holding
				HistoriesProtocol       string
				HistoriesProtocolChosen string
				Histories               []conformance.HistoryResult
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || got.HeldTo == nil {
				t.Fatalf("%v: %s\n%s", err, out, errOut)
			}
			if code != exitOK || got.HeldTo.Profile.Name != c.release || got.HistoriesProtocol != "classic" || got.HistoriesProtocolChosen != noConsumer ||
				len(got.Histories) != 1 || got.Histories[0].Status != "Ok" {
				t.Errorf("without --protocol: exit %d, held to %s, histories %q (%q): %+v\n%s", code, got.HeldTo.Profile.Name, got.HistoriesProtocol,
					got.HistoriesProtocolChosen, got.Histories, errOut)
			}
			code, out, errOut = run(t, "", append(args, "--protocol", "consumer")...)
			if code != exitOK || !strings.Contains(out, "histories: SKIP: "+noConsumer+"; without --protocol, or with --protocol classic, the histories run classic members") {
				t.Errorf("--protocol consumer: exit %d\n%s\n%s", code, out, errOut)
			}
			// With no case either, nothing was checked: not a pass.
			code, out, errOut = run(t, "", append(args, "--protocol", "consumer", "--cases", "none")...)
			if code != exitFailed || !strings.Contains(out, "nothing was checked") {
				t.Errorf("--protocol consumer --cases none: exit %d, want 1 saying nothing was checked\n%s\n%s", code, out, errOut)
			}
		})
	}
}
