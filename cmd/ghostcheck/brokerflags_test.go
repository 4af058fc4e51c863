package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/internal/conformance"
	"github.com/ghostcheck/ghostcheck/internal/kfaketest"
	"github.com/ghostcheck/ghostcheck/internal/nettest"
)

// The password of the SASL tests; nothing ghostcheck writes may hold it.
const (
	saslPassword  = "gh0st-Pa55-in-the-shell"
	wrongPassword = "n0t-the-Pa55-at-all"
)

// startKfakeCluster runs three kfake brokers on 127.0.0.1, configured as
// internal/conformance's tests configure them, with opts on top.
func startKfakeCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	return kfaketest.Start(t, append([]kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(6, "alpha"),
		kfaketest.GroupTimers(800*time.Millisecond, 100*time.Millisecond),
		kfake.BrokerConfigs(map[string]string{"group.consumer.max.size": "5", "group.max.size": "5"})}, opts...)...)
}

// secureCluster is three kfake brokers whose listeners take TLS (signed
// by a CA made for the test) and SASL/SCRAM-SHA-512 (user ghost), and the
// flags that reach them, the password in a file.
func secureCluster(t *testing.T, password string) (*kfake.Cluster, []string) {
	t.Helper()
	pki := nettest.NewPKI(t)
	c := startKfakeCluster(t, kfake.TLS(pki.ServerConfig(false)), kfake.EnableSASL(), kfake.Superuser(codec.MechanismScramSHA512, "ghost", saslPassword))
	pw := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pw, []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return c, []string{"--bootstrap", c.ListenAddrs()[0], "--tls-ca", pki.CAFile, "--sasl-mechanism", "SCRAM-SHA-512", "--sasl-user", "ghost", "--sasl-password-file", pw}
}

// tlsShards is how many checks each side of TestCheckOverTLSAndSCRAM
// deals the cases over.
const tlsShards = 4

// caseShards deals the names of check's cases but the risky over n lists,
// in turn, leaving out a name that starts with another (--cases runs it
// with that one), so each case runs once.
func caseShards(n int) [][]string {
	var names []string
	for _, c := range conformance.Select(nil, false, true) {
		names = append(names, c.Name)
	}
	slices.Sort(names) // a name sorts after the names it starts with
	out := make([][]string, n)
	var given []string
	for _, name := range names {
		if slices.ContainsFunc(given, func(g string) bool { return strings.HasPrefix(name, g) }) {
			continue // runs with g
		}
		k := len(given) % n
		out[k] = append(out[k], name)
		given = append(given, name)
	}
	return out
}

// checkCases runs check's cases against one cluster (every case but the
// risky, unless args say which) and returns each case's status.
func checkCases(t *testing.T, args ...string) map[string]string {
	t.Helper()
	got, err := checkStatuses(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// checkStatuses is checkCases, saying what went wrong instead of ending
// the test (it may run in a goroutine of the test's).
func checkStatuses(t *testing.T, args ...string) (map[string]string, error) {
	args = append([]string{"check", "--risky=false", "--session-timeout", "800ms", "--heartbeat-interval", "100ms", "--max-group-size", "5",
		"--histories", "0", "--json", "--out", t.TempDir()}, args...)
	var out, errOut bytes.Buffer
	if code := Main(args, strings.NewReader(""), &out, &errOut); code == 2 {
		return nil, fmt.Errorf("exit 2: %s", errOut.String())
	}
	var v struct {
		Cases []struct{ Name, Status string }
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		return nil, fmt.Errorf("%v:\n%s\n%s", err, out.String(), errOut.String())
	}
	got := map[string]string{}
	for _, c := range v.Cases {
		got[c.Name] = c.Status
	}
	return got, nil
}

// check over TLS and SASL/SCRAM-SHA-512 against three kfake brokers passes
// and fails the cases it does in plaintext against three kfake brokers:
// the connection's security changes nothing a case sees (the SASL
// exchange's ApiVersions carries each connection's ClientId, so the
// ClientId cases judge the same first request). The cases run with 800 ms
// sessions, so a loaded machine can make one miss a deadline on one side:
// a case whose statuses differ is run again alone on both sides, twice at
// most, and only a difference that stays is one. The cases mostly wait
// (sessions, join phases), so both sides run at once, each dealt over
// tlsShards checks side by side, each check against clusters of its own.
func TestCheckOverTLSAndSCRAM(t *testing.T) {
	t.Parallel()
	var secure, plainArgs []string
	shards := caseShards(tlsShards)
	plains, gots := make([]map[string]string, len(shards)), make([]map[string]string, len(shards))
	errs := make([]error, 2*len(shards))
	var wg sync.WaitGroup
	for k, names := range shards {
		only := "--cases=" + strings.Join(names, ",")
		_, sec := secureCluster(t, saslPassword)
		pl := []string{"--bootstrap", startKfakeCluster(t).ListenAddrs()[0]}
		if k == 0 {
			secure, plainArgs = sec, pl
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			plains[k], errs[2*k] = checkStatuses(t, append(slices.Clone(pl), only)...)
		}()
		go func() {
			defer wg.Done()
			gots[k], errs[2*k+1] = checkStatuses(t, append(slices.Clone(sec), only)...)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	plain, got := map[string]string{}, map[string]string{}
	for k := range shards {
		maps.Copy(plain, plains[k])
		maps.Copy(got, gots[k])
	}
	if len(got) == 0 || len(got) != len(plain) {
		t.Fatalf("%d cases over TLS and SASL, %d in plaintext", len(got), len(plain))
	}
	if want := len(conformance.Select(nil, false, true)); len(plain) != want {
		t.Fatalf("%d cases in plaintext, want every case but the risky: %d", len(plain), want)
	}
	for name, st := range plain {
		for try := 0; got[name] != st && try < 2; try++ {
			t.Logf("%s: %s over TLS and SASL, %s in plaintext: run alone on both sides again", name, got[name], st)
			only := "--cases=" + name
			st = checkCases(t, append(plainArgs, only)...)[name]
			got[name] = checkCases(t, append(slices.Clone(secure), only)...)[name]
			plain[name] = st
		}
		if got[name] != st {
			t.Errorf("%s: %s over TLS and SASL, %s in plaintext (run alone twice more)", name, got[name], st)
		}
	}
	counts := map[string]int{}
	for _, st := range got {
		counts[st]++
	}
	t.Logf("%d cases over TLS and SCRAM-SHA-512, the same statuses as in plaintext: %v", len(got), counts)
	if plain["B4.5/not-coordinator-elsewhere"] != "PASS" || plain["A2/instance-id-every-broker"] != "PASS" {
		t.Errorf("the cluster's cases against three brokers: %s, %s", plain["B4.5/not-coordinator-elsewhere"], plain["A2/instance-id-every-broker"])
	}
}

// A wrong password ends check, members and replay with exit 2 and a clear
// message, before any case: not a case failure. Neither password is in
// anything they print or write (stdout, stderr, the report, the JUnit
// file), nor is the user in the report or the JUnit file.
func TestWrongPasswordExitsTwoAndLeaksNothing(t *testing.T) {
	_, flags := secureCluster(t, wrongPassword)
	dir := t.TempDir()
	junit := filepath.Join(dir, "junit.xml")
	code, out, errOut := run(t, "", append([]string{"check", "--cases", "A1", "--histories", "0", "--out", dir, "--junit", junit}, flags...)...)
	if code != 2 || !strings.Contains(errOut, "authentication failed") || !strings.Contains(errOut, "nothing was checked") {
		t.Fatalf("check: exit %d, want 2 with \"authentication failed\"\n%s\n%s", code, out, errOut)
	}
	outputs := []string{out, errOut}
	code, mo, me := run(t, "", append([]string{"members", "list", "--group", "g"}, flags...)...)
	if code != 2 || !strings.Contains(me, "authentication failed") {
		t.Errorf("members: exit %d, want 2\n%s\n%s", code, mo, me)
	}
	code, ro, re := run(t, "", append([]string{"replay"}, append(flags, filepath.Join("..", "..", "corpus", "histories"))...)...)
	if code != 2 || !strings.Contains(re, "authentication failed") {
		t.Errorf("replay --bootstrap: exit %d, want 2\n%s\n%s", code, ro, re)
	}
	outputs = append(outputs, mo, me, ro, re)
	// A check that runs writes its report and JUnit: the right password,
	// a case failing or not, and the same greps.
	_, good := secureCluster(t, saslPassword)
	code, out, errOut = run(t, "", append([]string{"check", "--cases", "A1,B4.2", "--histories", "1", "--session-timeout", "800ms",
		"--heartbeat-interval", "100ms", "--rounds", "12", "--out", dir, "--junit", junit, "--json"}, good...)...)
	if code == 2 {
		t.Fatalf("check with the right password: exit 2\n%s", errOut)
	}
	if !strings.Contains(out, `"sasl": "SCRAM-SHA-512"`) || !strings.Contains(out, `"tls": true`) {
		t.Errorf("--json's options should say TLS and the mechanism:\n%s", out)
	}
	outputs = append(outputs, out, errOut)
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		outputs = append(outputs, string(b))
		if strings.Contains(string(b), "ghost\"") || strings.Contains(string(b), "--sasl-user ghost") {
			t.Errorf("%s names the SASL user", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outputs {
		for _, pw := range []string{saslPassword, wrongPassword} {
			if strings.Contains(o, pw) {
				t.Errorf("output %d holds a password", i)
			}
		}
	}
	if len(outputs) < 8 {
		t.Fatalf("only %d outputs read", len(outputs))
	}
}

// The password never comes from a flag; one from the environment works,
// two sources, or none, are usage errors (exit 2) that name no password.
func TestPasswordSources(t *testing.T) {
	_, flags := secureCluster(t, saslPassword)
	noFile := slices.Clip(flags[:len(flags)-2])
	t.Setenv(passwordEnv, saslPassword)
	got := checkCases(t, append(noFile, "--cases", "B7.2/describe-missing")...)
	if got["B7.2/describe-missing-group"] != "PASS" {
		t.Errorf("the password from %s: %v", passwordEnv, got)
	}
	code, _, errOut := run(t, "", append([]string{"check", "--cases", "A1", "--histories", "0"}, flags...)...)
	if code != 2 || !strings.Contains(errOut, "two passwords") || strings.Contains(errOut, saslPassword) {
		t.Errorf("a file and the environment: exit %d: %s", code, errOut)
	}
	t.Setenv(passwordEnv, "")
	code, _, errOut = run(t, "", append([]string{"check", "--cases", "A1", "--histories", "0"}, noFile...)...)
	if code != 2 || !strings.Contains(errOut, "needs a password") {
		t.Errorf("no password: exit %d: %s", code, errOut)
	}
	code, _, errOut = run(t, "", "check", "--bootstrap", "127.0.0.1:1", "--sasl-password", saslPassword)
	if code != 2 || strings.Contains(errOut, "sasl-password ") && !strings.Contains(errOut, "not defined") {
		t.Errorf("--sasl-password (a flag that must not exist): exit %d: %s", code, errOut)
	}
}
