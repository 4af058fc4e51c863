package main

// `ghostcheck run --coverage`: how much of the reference model and of impl
// a run reaches, as numbers. The command builds itself with -cover (from
// its source: run it in the repository, e.g. `make coverage`), runs the
// same `run` under GOCOVERDIR, prints run's summary, then the statement
// coverage of model/ (the coordinator, model/client and model/rules) and
// impl/ (`go tool covdata percent`), the model's statements the run never
// reached, and how often the coordinator applied each clause of
// docs/PROTOCOL.md over the run's plans (model.Clauses, counted by
// model.Config.Clauses on the reference model running the same seeds).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/impl"
	"github.com/ghostcheck/ghostcheck/internal/targets"
	"github.com/ghostcheck/ghostcheck/model"
	"github.com/ghostcheck/ghostcheck/model/client"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// coverageRequested reports whether run's args ask for --coverage.
func coverageRequested(args []string) bool {
	return len(withoutCoverage(args)) != len(args)
}

// withoutCoverage is args without the --coverage flag.
func withoutCoverage(args []string) []string {
	var out []string
	for _, a := range args {
		switch strings.TrimLeft(a, "-") {
		case "coverage", "coverage=true", "coverage=1":
			continue
		}
		out = append(out, a)
	}
	return out
}

// runCoverage runs `run` with args in a build of the command instrumented
// for model/ and impl/ and reports the coverage it reached.
func runCoverage(args []string, stdout, stderr io.Writer) int {
	args = withoutCoverage(args)
	cfg, code := parseRunFlags(args, stderr)
	if code >= 0 {
		return code
	}
	dir, err := os.MkdirTemp("", "ghostcheck-coverage-")
	if err != nil {
		fmt.Fprintln(stderr, "ghostcheck run --coverage:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	counters := filepath.Join(dir, "counters")
	bin := filepath.Join(dir, "ghostcheck")
	if err := buildCovered(bin, stderr); err != nil {
		fmt.Fprintln(stderr, "ghostcheck run --coverage: building ghostcheck with -cover (run it in ghostcheck's repository):", err)
		return 1
	}
	if err := os.Mkdir(counters, 0o755); err != nil {
		fmt.Fprintln(stderr, "ghostcheck run --coverage:", err)
		return 1
	}
	var out bytes.Buffer
	child := exec.Command(bin, append([]string{"run", "--json"}, args...)...)
	child.Env = append(os.Environ(), "GOCOVERDIR="+counters)
	child.Stdout, child.Stderr = &out, stderr
	status := 0
	if err := child.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			fmt.Fprintln(stderr, "ghostcheck run --coverage:", err)
			return 1
		}
		status = ee.ExitCode()
	}
	var summary struct{ Phases []*phaseSummary }
	if err := json.Unmarshal(out.Bytes(), &summary); err != nil {
		fmt.Fprintf(stderr, "ghostcheck run --coverage: reading the run's summary: %v\n", err)
		return 1
	}
	printSummary(stdout, cfg, summary.Phases)
	if err := printStatementCoverage(stdout, counters, dir); err != nil {
		fmt.Fprintln(stderr, "ghostcheck run --coverage:", err)
		return 1
	}
	printClauseHits(stdout, clauseHits(cfg, summary.Phases))
	return status
}

// coveredPackages are the import paths whose coverage is reported: the
// model's three (the coordinator first), then impl.
func coveredPackages() []string {
	return []string{reflect.TypeFor[model.Config]().PkgPath(), reflect.TypeFor[client.Config]().PkgPath(),
		reflect.TypeFor[rules.Rule]().PkgPath(), reflect.TypeFor[impl.Config]().PkgPath()}
}

// modelPackages are the covered packages under model/.
func modelPackages() []string { return coveredPackages()[:3] }

// buildCovered builds the command into bin with model/ and impl/ (and the
// command itself, without which a -cover build writes no counters)
// instrumented.
func buildCovered(bin string, stderr io.Writer) error {
	self := path.Join(path.Dir(coveredPackages()[0]), "cmd", "ghostcheck") // the module's model/ is beside cmd/
	pkgs := append(coveredPackages(), self)
	cmd := exec.Command("go", "build", "-cover", "-coverpkg="+strings.Join(pkgs, ","), "-o", bin, self)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	return cmd.Run()
}

// printStatementCoverage prints `go tool covdata percent` for model/ and
// impl/, then every block of model/ (its three packages) the run never
// reached.
func printStatementCoverage(w io.Writer, counters, dir string) error {
	pkgs := strings.Join(coveredPackages(), ",")
	percent, err := exec.Command("go", "tool", "covdata", "percent", "-i", counters, "-pkg", pkgs).Output()
	if err != nil {
		return fmt.Errorf("go tool covdata percent: %w", err)
	}
	fmt.Fprintf(w, "\nstatement coverage reached by the run:\n%s", percent)
	prof := filepath.Join(dir, "model.prof")
	if err := exec.Command("go", "tool", "covdata", "textfmt", "-i", counters, "-pkg", strings.Join(modelPackages(), ","), "-o", prof).Run(); err != nil {
		return fmt.Errorf("go tool covdata textfmt: %w", err)
	}
	f, err := os.Open(prof)
	if err != nil {
		return err
	}
	defer f.Close()
	uncovered, n := uncoveredBlocks(f, modelPackages()[0])
	fmt.Fprintf(w, "\nmodel statements the run did not reach (%d):\n", n)
	for _, line := range uncovered {
		fmt.Fprintln(w, "  "+line)
	}
	return nil
}

// uncoveredBlocks reads a text coverage profile and lists, per file, the
// lines of the blocks no run reached, with how many statements they hold.
// A file is named by its path under the package root ("heartbeat.go",
// "client/heartbeat.go").
func uncoveredBlocks(r io.Reader, root string) ([]string, int) {
	type block struct {
		stmts int
		hit   bool
	}
	blocks := map[string]*block{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var pos string
		var stmts, count int
		if _, err := fmt.Sscanf(sc.Text(), "%s %d %d", &pos, &stmts, &count); err != nil || strings.HasPrefix(pos, "mode:") {
			continue
		}
		b := blocks[pos]
		if b == nil {
			b = &block{stmts: stmts}
			blocks[pos] = b
		}
		b.hit = b.hit || count > 0
	}
	byFile := map[string][]string{}
	total := 0
	for pos, b := range blocks {
		if b.hit {
			continue
		}
		total += b.stmts
		file, lines, _ := strings.Cut(pos, ":")
		from, to, _ := strings.Cut(lines, ",")
		from, _, _ = strings.Cut(from, ".")
		to, _, _ = strings.Cut(to, ".")
		span := from
		if to != from {
			span += "-" + to
		}
		name := strings.TrimPrefix(file, root+"/")
		byFile[name] = append(byFile[name], fmt.Sprintf("%s (%d)", span, b.stmts))
	}
	var out []string
	for file, spans := range byFile {
		sort.Slice(spans, func(i, j int) bool { return lineOf(spans[i]) < lineOf(spans[j]) })
		out = append(out, fmt.Sprintf("%s: %s", file, strings.Join(spans, ", ")))
	}
	sort.Strings(out)
	return out, total
}

func lineOf(span string) int {
	n := 0
	fmt.Sscanf(span, "%d", &n)
	return n
}

// clauseHits counts the clauses the reference model applies over the plans
// of the run's histories: the same seeds, options and heartbeat versions,
// each plan run against a model with a clause counter.
func clauseHits(cfg runConfig, phases []*phaseSummary) model.ClauseHits {
	type job struct {
		seed uint64
		col  column
	}
	jobs := make(chan job)
	var mu sync.Mutex
	total := model.ClauseHits{}
	var wg sync.WaitGroup
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hits := model.ClauseHits{}
			for j := range jobs {
				opts := j.col.options(cfg.opts)
				pl := plan.New(j.seed, opts)
				mc := pl.ModelConfig()
				mc.Clauses = hits
				_, _ = driver.Run(targets.NewModelTarget(mc), pl)
			}
			mu.Lock()
			for id, n := range hits {
				total[id] += n
			}
			mu.Unlock()
		}()
	}
	for _, p := range phases {
		for i := 0; i < p.Histories; i++ {
			jobs <- job{cfg.seed + uint64(i), p.column()}
		}
	}
	close(jobs)
	wg.Wait()
	return total
}

// printClauseHits prints every clause the model can apply with how often
// it did, and the clauses never applied.
func printClauseHits(w io.Writer, hits model.ClauseHits) {
	fmt.Fprintf(w, "\nclauses of docs/PROTOCOL.md the model applied over the run's plans:\n")
	var missed []string
	for _, c := range model.Clauses() {
		fmt.Fprintf(w, "  %-40s %9d  %s\n", c.ID, hits[c.ID], c.What)
		if hits[c.ID] == 0 {
			missed = append(missed, string(c.ID))
		}
	}
	n := len(model.Clauses())
	fmt.Fprintf(w, "%d of %d clauses applied", n-len(missed), n)
	if len(missed) > 0 {
		fmt.Fprintf(w, "; never: %s", strings.Join(missed, ", "))
	}
	fmt.Fprintln(w)
	printClassicClauses(w, hits)
}

// undrawnClassic are the classic clauses (docs/PROTOCOL.md A6, B8) the
// plans never draw, each with why: what a plan would have to send that no
// client of Kafka's sends, or what would make a history the checks cannot
// judge. The equivalence property (impl's TestEquivalenceReachesEveryClassicClause)
// and the model's rule tests reach each of them.
var undrawnClassic = map[model.Clause]string{
	"A6.4/join-replaces-consumer-group":     "drawn by the cross-kind joins of mixed plans only (--protocol mixed)",
	"A6.4/join-mixed-refused":               "drawn by the cross-kind joins of mixed plans only (--protocol mixed)",
	"A6.4/heartbeat-replaces-classic-group": "drawn by the cross-kind joins of mixed plans only (--protocol mixed)",
	"A6.4/upgrade-refused":                  "drawn by the cross-kind joins of mixed plans only (--protocol mixed)",
	"B8.10/new-member-expired":              "Kafka's new-member join timeout is 5 minutes (not configurable), longer than any history",
}

// printClassicClauses prints how many of the classic clauses (A6, B8) the
// run applied, and why each one it never applied is never drawn.
func printClassicClauses(w io.Writer, hits model.ClauseHits) {
	n, applied := 0, 0
	var missed []string
	for _, c := range model.Clauses() {
		if id := string(c.ID); !strings.HasPrefix(id, "A6") && !strings.HasPrefix(id, "B8") {
			continue
		}
		n++
		if hits[c.ID] > 0 {
			applied++
			continue
		}
		why, ok := undrawnClassic[c.ID]
		if !ok {
			why = "drawn by the plans, not reached in this run (more histories, or --protocol classic|mixed)"
		}
		missed = append(missed, fmt.Sprintf("  %-40s %s", c.ID, why))
	}
	fmt.Fprintf(w, "classic clauses (A6, B8): %d of %d applied\n", applied, n)
	if len(missed) > 0 {
		fmt.Fprintf(w, "classic clauses never applied, and why:\n%s\n", strings.Join(missed, "\n"))
	}
}
