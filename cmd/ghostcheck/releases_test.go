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

// The release matrix: for each release, check (the release inferred, and
// --kafka-version X) against serve --kafka-version X passes every case that
// applies and skips the rest with reasons: 0 FAIL, 0 ERROR, exit 0, and
// the inferred release lists and serves what X does. go test runs the
// fast subset of cases; with GHOSTCHECK_RELEASE_MATRIX=FILE (make
// release-matrix) every case, and the table goes to FILE.
func TestReleaseMatrix(t *testing.T) {
	file := os.Getenv(releaseMatrixEnv)
	var mu sync.Mutex
	var rows []matrixRow
	t.Run("releases", func(t *testing.T) {
		for _, r := range releases.All() {
			t.Run(r.Name, func(t *testing.T) {
				t.Parallel()
				addr := startServeCommand(t, "--kafka-version", r.Name, "--max-group-size", "5", "--classic-min-session-timeout", "100ms",
					"--initial-rebalance-delay", "100ms", "--classic-max-group-size", "5")
				for _, mode := range []string{"inferred", "--kafka-version"} {
					args := []string{"check", "--bootstrap", addr, "--session-timeout", "800ms", "--heartbeat-interval", "100ms", "--max-group-size", "5",
						"--classic-session-timeout", "1.6s", "--classic-max-group-size", "5", "--histories", "0", "--out", t.TempDir(), "--json"}
					if file == "" {
						args = append(args, "--cases", matrixCases)
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
				}
			})
		}
	})
	if file != "" {
		if err := os.WriteFile(file, []byte(matrixTable(rows)), 0o644); err != nil {
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

// Histories against a broker that does not serve the consumer protocol (a
// default Kafka 3.9 lists ConsumerGroupHeartbeat and answers it
// UNSUPPORTED_VERSION; 3.1 lists none) SKIP saying so and naming
// --protocol classic, and check exits 0: never a FAIL or a hang.
func TestHistoriesSkipWithoutTheConsumerProtocol(t *testing.T) {
	for _, c := range []struct{ release, why string }{
		{"3.9", "ConsumerGroupHeartbeat listed but answered UNSUPPORTED_VERSION"},
		{"3.1", "ConsumerGroupHeartbeat not listed"},
	} {
		addr := startServeCommand(t, "--kafka-version", c.release)
		code, out, errOut := run(t, "", "check", "--bootstrap", addr, "--session-timeout", "800ms", "--heartbeat-interval", "100ms",
			"--histories", "1", "--cases", "B7.1", "--out", t.TempDir())
		if code != exitOK || !strings.Contains(out, "histories: SKIP: the broker does not serve the consumer protocol ("+c.why+"); --protocol classic") ||
			!strings.Contains(out, "held to Kafka "+c.release) {
			t.Errorf("Kafka %s: exit %d\n%s\n%s", c.release, code, out, errOut)
		}
	}
}
