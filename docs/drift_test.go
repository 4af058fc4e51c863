package docs_test

// The documents are checked against the code they describe, so that a
// renamed package, file, identifier, make target or flag breaks a test, not
// a reader's trust:
//
//   - TestDesignHasARowForEveryPackage: docs/DESIGN.md's package table has a
//     row for every package `go list ./...` prints, and every row names a
//     folder that exists.
//   - TestFileMapsListEveryFile: a package doc comment with a file map
//     (lines "name.go: what it owns") lists every non-test .go file of its
//     package and names no file the package does not have.
//   - TestMarkdownLinksResolve: every relative link and #anchor of the
//     repository's Markdown leads to a file and a heading that exist, by
//     GitHub's anchor rules.
//   - TestMarkdownCodeNamesExist: every `pkg.Name` in the Markdown's code
//     whose pkg is one of the module's packages names an exported
//     identifier it has (and `pkg.Type.Member` a field or method of it);
//     every `make TARGET` is a target of the Makefile; every `ghostcheck
//     COMMAND --flag` is a command of cmd/ghostcheck and a flag it defines;
//     every path in a code span (`impl/mutants.go`) and every package a go
//     command names (`go test ./impl`) is in the repository, and every test
//     named (`TestKgoStaticMemberRestarted`, `-run TestX`) is a test.
//   - TestManualCoversEveryTargetAndCommand: every make target has a row
//     in docs/running.md, every command is shown in the manual, and every
//     fuzz target has a row in docs/fuzzing.md.
//
// Drift that another branch is fixing is listed in knownDrift, with why; a
// listed problem that no longer happens fails the test too, so the table
// empties as the branches land.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// knownDrift is the drift other branches are removing now, problem by
// problem, exactly as the tests word it, with why it is not fixed here. The
// lead empties it as those branches merge: a problem listed here that no
// longer happens fails the test.
var knownDrift = map[string]string{}

// Which test words a problem so: each test owns its entries of knownDrift.
func isDesignProblem(p string) bool  { return strings.HasPrefix(p, "DESIGN.md: the package table") }
func isFileMapProblem(p string) bool { return strings.Contains(p, ": the package doc's file map ") }
func isLinkProblem(p string) bool    { return strings.Contains(p, " links to ") }
func isCodeNameProblem(p string) bool {
	return strings.Contains(p, ": `") || strings.Contains(p, ": RUNFLAGS: ") || strings.Contains(p, ": ghostcheck ")
}
func isCoverageProblem(p string) bool {
	return strings.Contains(p, "the table of make targets") || strings.HasPrefix(p, "the manual never shows") ||
		strings.Contains(p, "the table of fuzz targets")
}

// root is the module's root, seen from docs/ where go test runs.
const root = ".."

// checkDrift reports problems not in knownDrift as errors, the known ones
// as log lines, and every entry of knownDrift that belongs to the calling
// test but matches no problem as an error: the table must not outlive the
// drift.
func checkDrift(t *testing.T, belongs func(problem string) bool, problems []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range problems {
		if seen[p] {
			continue
		}
		seen[p] = true
		if why, ok := knownDrift[p]; ok {
			t.Logf("known drift: %s (%s)", p, why)
			continue
		}
		t.Error(p)
	}
	for p := range knownDrift {
		if belongs(p) && !seen[p] {
			t.Errorf("knownDrift lists %q, which no longer happens: remove it", p)
		}
	}
}

// goPackage is what `go list -json` says of a package.
type goPackage struct {
	ImportPath     string
	Dir            string
	Name           string
	GoFiles        []string
	CgoFiles       []string
	IgnoredGoFiles []string
}

// folder is the package's directory relative to the module root, with
// slashes: "impl/server".
func (p goPackage) folder() string {
	abs, _ := filepath.Abs(root)
	rel, err := filepath.Rel(abs, p.Dir)
	if err != nil {
		return p.Dir
	}
	return filepath.ToSlash(rel)
}

// sources are the package's non-test .go files, whatever their build
// constraints.
func (p goPackage) sources() []string {
	var out []string
	out = append(out, p.GoFiles...)
	out = append(out, p.CgoFiles...)
	for _, f := range p.IgnoredGoFiles {
		if !strings.HasSuffix(f, "_test.go") {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

var modulePackages = sync.OnceValues(func() ([]goPackage, error) {
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, "list", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list ./...: %v\n%s", err, stderr.String())
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list ./...: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		return nil, fmt.Errorf("go list ./... printed %d packages: is the test run from docs/?", len(pkgs))
	}
	return pkgs, nil
})

func packages(t *testing.T) []goPackage {
	t.Helper()
	pkgs, err := modulePackages()
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// designRow matches a row of DESIGN.md's package table: "| `impl/server/` | ...".
var designRow = regexp.MustCompile("^\\| `([^`]+)` \\|")

// designFolders reads the folders of DESIGN.md's table under "## Packages".
func designFolders(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	var folders []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "## ") {
			in = strings.TrimSpace(strings.TrimPrefix(line, "## ")) == "Packages"
			continue
		}
		if m := designRow.FindStringSubmatch(line); in && m != nil {
			folders = append(folders, strings.TrimSuffix(m[1], "/"))
		}
	}
	if len(folders) == 0 {
		t.Fatal(`DESIGN.md has no package table under "## Packages" (rows "| ` + "`folder/`" + ` | owns | may import |")`)
	}
	return folders
}

// Every package has a row in DESIGN.md's table, and every row a folder:
// a reader looking up a package finds what it owns and may import.
func TestDesignHasARowForEveryPackage(t *testing.T) {
	rows := map[string]bool{}
	var problems []string
	for _, f := range designFolders(t) {
		rows[f] = true
		matches, _ := filepath.Glob(filepath.Join(root, strings.ReplaceAll(f, "NAME", "*")))
		if len(matches) == 0 {
			problems = append(problems, fmt.Sprintf("DESIGN.md: the package table has a row for %s/, which is not a folder", f))
		}
	}
	for _, p := range packages(t) {
		if !rows[p.folder()] {
			problems = append(problems, fmt.Sprintf("DESIGN.md: the package table has no row for %s/ (%s)", p.folder(), p.ImportPath))
		}
	}
	checkDrift(t, isDesignProblem, problems)
}

var (
	// fileMapEntry is a line of a file map: "name.go: what it owns", or
	// "a.go, b.go: ...", with or without a list bullet or indentation.
	fileMapEntry = regexp.MustCompile(`^\s*(?:[-*]\s+)?[\w.-]+\.go(?:(?:,\s*|\s+and\s+)[\w.-]+\.go)*:\s`)
	// goFileName is a file named in a doc comment, not as part of a path.
	goFileName = regexp.MustCompile(`(?:^|[^\w/.-])([\w-]+(?:\.[\w-]+)*\.go)\b`)
)

// packageDoc returns the doc comments of a package's clause, from every
// file that has one.
func packageDoc(t *testing.T, p goPackage) string {
	t.Helper()
	var docText strings.Builder
	fset := token.NewFileSet()
	for _, name := range p.sources() {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			docText.WriteString(f.Doc.Text())
			docText.WriteString("\n")
		}
	}
	return docText.String()
}

// A package doc that maps its files maps all of them, and only them: the
// map is where a reader starts, so a file missing from it is a file nobody
// finds, and a name in it that left is a dead end.
func TestFileMapsListEveryFile(t *testing.T) {
	var problems []string
	maps := 0
	for _, p := range packages(t) {
		text := packageDoc(t, p)
		hasMap := false
		for _, line := range strings.Split(text, "\n") {
			if fileMapEntry.MatchString(line) {
				hasMap = true
				break
			}
		}
		if !hasMap {
			continue
		}
		maps++
		named := map[string]bool{}
		for _, m := range goFileName.FindAllStringSubmatch(text, -1) {
			named[m[1]] = true
		}
		for _, f := range p.sources() {
			if !named[f] && f != "doc.go" { // doc.go holds the map itself
				problems = append(problems, fmt.Sprintf("%s: the package doc's file map does not list %s", p.folder(), f))
			}
		}
		for f := range named {
			if _, err := os.Stat(filepath.Join(p.Dir, f)); err != nil {
				problems = append(problems, fmt.Sprintf("%s: the package doc's file map names %s, which the package does not have", p.folder(), f))
			}
		}
	}
	sort.Strings(problems)
	if maps == 0 {
		t.Fatal("no package doc has a file map: has the entry format changed?")
	}
	checkDrift(t, isFileMapProblem, problems)
}
