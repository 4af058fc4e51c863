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
//     COMMAND --flag` is a command of cmd/ghostcheck and a flag it defines.
//   - TestManualCoversEveryTargetAndCommand: every make target has a row
//     in docs/running.md, and every command is shown in the manual.
//
// Drift that another branch is fixing is listed in knownDrift, with why; a
// listed problem that no longer happens fails the test too, so the table
// empties as the branches land.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ghostcheck/ghostcheck/docs"
)

// knownDrift is the drift other branches are removing now, problem by
// problem, exactly as the tests word it, with why it is not fixed here. The
// lead empties it as those branches merge: a problem listed here that no
// longer happens fails the test.
var knownDrift = map[string]string{
	"linearize: the package doc's file map does not list canary.go":                                                                 linSplit,
	"linearize: the package doc's file map does not list canary_clients.go":                                                         linSplit,
	"linearize: the package doc's file map does not list canary_invariants.go":                                                      linSplit,
	"linearize: the package doc's file map does not list clientcheck.go":                                                            linSplit,
	"linearize: the package doc's file map does not list clienthistory.go":                                                          linSplit,
	"linearize: the package doc's file map does not list describecheck.go":                                                          linSplit,
	"linearize: the package doc's file map does not list plan_more.go":                                                              linSplit,
	"linearize: the package doc's file map does not list rates.go":                                                                  linSplit,
	"linearize: the package doc's file map does not list stall.go":                                                                  linSplit,
	"linearize: the package doc's file map does not list tcp.go":                                                                    linSplit,
	"DESIGN.md: the package table has a row for impl/equivtest/, which is not a folder":                                             designRewrite,
	"DESIGN.md: the package table has no row for codec/codectest/ (github.com/ghostcheck/ghostcheck/codec/codectest)":               designRewrite,
	"DESIGN.md: the package table has no row for impl/server/servertest/ (github.com/ghostcheck/ghostcheck/impl/server/servertest)": designRewrite,
	"DESIGN.md: the package table has no row for internal/equivtest/ (github.com/ghostcheck/ghostcheck/internal/equivtest)":         designRewrite,
	"DESIGN.md: the package table has no row for internal/nettest/ (github.com/ghostcheck/ghostcheck/internal/nettest)":             designRewrite,
}

const (
	linSplit      = "linearize is being split into plan, history, driver, check and tcptarget (house-linearize): its map goes with it"
	designRewrite = "docs/DESIGN.md's package table is being rewritten for the split (house-linearize, house-model)"
)

// Which test words a problem so: each test owns its entries of knownDrift.
func isDesignProblem(p string) bool  { return strings.HasPrefix(p, "DESIGN.md: the package table") }
func isFileMapProblem(p string) bool { return strings.Contains(p, ": the package doc's file map ") }
func isLinkProblem(p string) bool    { return strings.Contains(p, " links to ") }
func isCodeNameProblem(p string) bool {
	return strings.Contains(p, ": `") || strings.Contains(p, ": RUNFLAGS: ") || strings.Contains(p, ": ghostcheck ")
}
func isCoverageProblem(p string) bool {
	return strings.Contains(p, "the table of make targets") || strings.HasPrefix(p, "the manual never shows")
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

// repoFiles are the repository's files with one of these endings, test
// data and generated output aside, with slashes, relative to the root.
func repoFiles(t *testing.T, endings ...string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "out", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		for _, e := range endings {
			if strings.HasSuffix(p, e) {
				rel, _ := filepath.Rel(root, p)
				files = append(files, filepath.ToSlash(rel))
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// markdownFiles are the repository's Markdown documents (README.md,
// docs/*.md, the READMEs of corpus/ and peers/).
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := repoFiles(t, ".md")
	for _, must := range []string{"README.md", "docs/PROTOCOL.md", "docs/DESIGN.md"} {
		if !slices.Contains(files, must) {
			t.Fatalf("%s not found among the Markdown files %v", must, files)
		}
	}
	return files
}

// mdDoc is a Markdown file split into what is prose and what is code.
type mdDoc struct {
	path string
	// prose lines, with inline code spans blanked out, by line number
	// (1-based); lines inside fenced blocks are empty.
	prose []string
	// code is every inline code span and every fenced block's lines, each
	// with the line it starts on.
	code []codeText
	// headings are the ATX headings outside fenced blocks, as written.
	headings []string
}

type codeText struct {
	line int
	text string
}

func readMarkdown(t *testing.T, rel string) mdDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	d := mdDoc{path: rel}
	var outside []string // the lines outside fenced blocks; fenced ones empty
	fence := ""
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			} else {
				d.code = append(d.code, codeText{i + 1, line})
			}
			outside = append(outside, "")
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			outside = append(outside, "")
		default:
			outside = append(outside, line)
			if level, _ := headingLevel(line); level > 0 {
				d.headings = append(d.headings, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#")))
			}
		}
	}
	prose, spans := codeSpans(strings.Join(outside, "\n"))
	d.prose = strings.Split(prose, "\n")
	d.code = append(d.code, spans...)
	sort.SliceStable(d.code, func(i, j int) bool { return d.code[i].line < d.code[j].line })
	return d
}

// codeSpans finds the inline code spans of Markdown text, which may run
// over lines within a paragraph: a run of n backticks up to the next run of
// exactly n. It returns the text with each span blanked (its newlines
// kept) and the spans, each on the line it starts, its newlines read as
// spaces and a table's escaped pipe as a pipe.
func codeSpans(text string) (string, []codeText) {
	out := []byte(text)
	var spans []codeText
	run := func(i int) int {
		n := 0
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		return n
	}
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := run(i)
		end := -1
		for j := i + n; j < len(text); {
			if text[j] == '\n' && blankLineAfter(text, j) {
				break // a blank line ends the paragraph
			}
			if text[j] != '`' {
				j++
				continue
			}
			m := run(j)
			if m == n {
				end = j
				break
			}
			j += m
		}
		if end < 0 {
			i += n
			continue
		}
		body := strings.ReplaceAll(text[i+n:end], "\n", " ")
		body = strings.ReplaceAll(body, `\|`, "|")
		spans = append(spans, codeText{1 + strings.Count(text[:i], "\n"), body})
		for k := i; k < end+n; k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
		i = end + n
	}
	return string(out), spans
}

// blankLineAfter reports whether the line after the newline at text[nl]
// is blank.
func blankLineAfter(text string, nl int) bool {
	next, _, _ := strings.Cut(text[nl+1:], "\n")
	return strings.TrimSpace(next) == ""
}

// headingLevel returns an ATX heading's level, or 0.
func headingLevel(line string) (int, bool) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n == len(line) || line[n] != ' ' {
		return 0, false
	}
	return n, true
}

var mdLinkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// anchors are the anchors GitHub gives the document's headings: the
// heading's rendered text (a link's text, not its target) through
// docs.Anchor, and a second heading with the same anchor "-1", a third
// "-2".
func (d mdDoc) anchors() map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	for _, h := range d.headings {
		a := docs.Anchor(mdLinkText.ReplaceAllString(h, "$1"))
		if c := count[a]; c > 0 {
			out[a+"-"+strconv.Itoa(c)] = true
		} else {
			out[a] = true
		}
		count[a]++
	}
	return out
}

var (
	// mdLink is an inline link or image: [text](target "title").
	mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refLink is a reference definition: [label]: target.
	refLink = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$`)
	// htmlLink is an HTML href or src.
	htmlLink = regexp.MustCompile(`(?:href|src)="([^"]+)"`)
	// scheme starts an absolute URL.
	scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// Every relative link and anchor of the Markdown leads somewhere: a file or
// folder that exists, a heading that renders with that anchor.
func TestMarkdownLinksResolve(t *testing.T) {
	files := markdownFiles(t)
	parsed := map[string]mdDoc{}
	doc := func(rel string) mdDoc {
		if d, ok := parsed[rel]; ok {
			return d
		}
		d := readMarkdown(t, rel)
		parsed[rel] = d
		return d
	}
	var problems []string
	links := 0
	for _, rel := range files {
		d := doc(rel)
		for i, line := range d.prose {
			var targets []string
			for _, re := range []*regexp.Regexp{mdLink, refLink, htmlLink} {
				for _, m := range re.FindAllStringSubmatch(line, -1) {
					targets = append(targets, m[1])
				}
			}
			for _, target := range targets {
				if scheme.MatchString(target) {
					continue
				}
				links++
				where := fmt.Sprintf("%s:%d", rel, i+1)
				file, anchor, _ := strings.Cut(target, "#")
				dest := rel
				if file != "" {
					dest = path.Clean(path.Join(path.Dir(rel), file))
					if dest == ".." || strings.HasPrefix(dest, "../") {
						problems = append(problems, fmt.Sprintf("%s links to %s, outside the repository", where, target))
						continue
					}
					if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
						problems = append(problems, fmt.Sprintf("%s links to %s, which does not exist", where, target))
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					problems = append(problems, fmt.Sprintf("%s links to %s: an anchor in a file that is not Markdown", where, target))
					continue
				}
				if !doc(dest).anchors()[anchor] {
					problems = append(problems, fmt.Sprintf("%s links to %s, but no heading of %s renders as #%s", where, target, dest, anchor))
				}
			}
		}
	}
	if links < 20 {
		t.Fatalf("only %d relative links found: has the link syntax changed?", links)
	}
	t.Logf("%d relative links in %d Markdown files", links, len(files))
	checkDrift(t, isLinkProblem, problems)
}

// exported is what a package declares: its exported identifiers and, for
// each type, its fields and methods (nil for a type whose members are
// declared elsewhere, such as an alias of another package's type).
type exported struct {
	names   map[string]bool
	members map[string]map[string]bool
}

// declarations parses the module's non-test sources for what each package
// exports, keyed by folder.
func declarations(t *testing.T) (map[string]*exported, map[string][]string) {
	t.Helper()
	byFolder := map[string]*exported{}
	byName := map[string][]string{} // package name -> folders
	fset := token.NewFileSet()
	for _, p := range packages(t) {
		if p.Name == "main" {
			continue
		}
		e := &exported{names: map[string]bool{}, members: map[string]map[string]bool{}}
		addMember := func(typ, name string) {
			if e.members[typ] == nil {
				e.members[typ] = map[string]bool{}
			}
			e.members[typ][name] = true
		}
		foreign := map[string]bool{} // types whose members live elsewhere
		for _, name := range p.sources() {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				switch decl := decl.(type) {
				case *ast.FuncDecl:
					if decl.Recv == nil {
						e.names[decl.Name.Name] = true
						continue
					}
					addMember(receiverType(decl.Recv.List[0].Type), decl.Name.Name)
				case *ast.GenDecl:
					for _, spec := range decl.Specs {
						switch spec := spec.(type) {
						case *ast.ValueSpec:
							for _, n := range spec.Names {
								e.names[n.Name] = true
							}
						case *ast.TypeSpec:
							e.names[spec.Name.Name] = true
							if spec.Assign.IsValid() {
								foreign[spec.Name.Name] = true
							}
							switch typ := spec.Type.(type) {
							case *ast.StructType:
								for _, fld := range typ.Fields.List {
									if len(fld.Names) == 0 {
										addMember(spec.Name.Name, receiverType(fld.Type))
									}
									for _, n := range fld.Names {
										addMember(spec.Name.Name, n.Name)
									}
								}
							case *ast.InterfaceType:
								for _, m := range typ.Methods.List {
									if len(m.Names) == 0 {
										foreign[spec.Name.Name] = true // embeds another interface
									}
									for _, n := range m.Names {
										addMember(spec.Name.Name, n.Name)
									}
								}
							case *ast.SelectorExpr:
								foreign[spec.Name.Name] = true // a type of another package
							}
						}
					}
				}
			}
		}
		for typ := range foreign {
			e.members[typ] = nil
		}
		byFolder[p.folder()] = e
		byName[p.Name] = append(byName[p.Name], p.folder())
	}
	return byFolder, byName
}

// receiverType names the type of a receiver or an embedded field: T, *T,
// T[K], pkg.T.
func receiverType(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.StarExpr:
		return receiverType(x.X)
	case *ast.IndexExpr:
		return receiverType(x.X)
	case *ast.IndexListExpr:
		return receiverType(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	}
	return ""
}

var (
	// goRef is pkg.Name or pkg.Type.Member, the package possibly given by
	// its folder (internal/targets.KillMutant).
	goRef = regexp.MustCompile(`(?:^|[^\w./-])((?:[a-z][\w]*/)*[a-z][\w]*)\.([A-Z]\w*)(?:\.([A-Z]\w*))?`)
	// makeRef is `make TARGET`.
	makeRef = regexp.MustCompile(`(?:^|[\s($;&|])make ([a-z][\w-]*)`)
	// makeTarget is a rule of the Makefile.
	makeTarget = regexp.MustCompile(`(?m)^([A-Za-z][\w-]*)\s*:([^=]|$)`)
	// ghostcheckCmd is the command at the start of a command line, or after
	// a path or a shell prompt.
	ghostcheckCmd = regexp.MustCompile(`(?:^|[\s/$(])ghostcheck\s+(.*)$`)
	// runflags is make's RUNFLAGS='...' (flags of ghostcheck run).
	runflags = regexp.MustCompile(`RUNFLAGS=(?:'([^']*)'|"([^"]*)"|(\S+))`)
	// quoted is a shell-quoted argument, whose words are not ghostcheck's.
	quoted = regexp.MustCompile(`'[^']*'|"[^"]*"`)
)

// The Go names, make targets and command-line flags the Markdown shows in
// code exist: a reader who copies them gets what the text says.
func TestMarkdownCodeNamesExist(t *testing.T) {
	byFolder, byName := declarations(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range makeTarget.FindAllStringSubmatch(string(makefile), -1) {
		targets[m[1]] = true
	}
	commands := commandFlags(t)

	var problems []string
	refs := 0
	for _, rel := range markdownFiles(t) {
		d := readMarkdown(t, rel)
		for _, c := range joinContinuations(d.code) {
			where := fmt.Sprintf("%s:%d", rel, c.line)
			for _, m := range goRef.FindAllStringSubmatch(c.text, -1) {
				pkg, name, member := m[1], m[2], m[3]
				var folders []string
				if strings.Contains(pkg, "/") {
					if byFolder[pkg] != nil {
						folders = []string{pkg}
					}
				} else {
					folders = byName[pkg]
				}
				if len(folders) == 0 {
					continue // not one of the module's packages
				}
				refs++
				if p := checkGoRef(byFolder, folders, name, member); p != "" {
					problems = append(problems, fmt.Sprintf("%s: `%s.%s%s`: %s", where, pkg, name, dotted(member), p))
				}
			}
			for _, m := range makeRef.FindAllStringSubmatch(c.text, -1) {
				refs++
				if !targets[m[1]] {
					problems = append(problems, fmt.Sprintf("%s: `make %s`: the Makefile has no target %s", where, m[1], m[1]))
				}
			}
			for _, m := range runflags.FindAllStringSubmatch(c.text, -1) {
				for _, flag := range flagsOf(strings.Fields(m[1] + m[2] + m[3])) {
					refs++
					if !commands["run"][flag] {
						problems = append(problems, fmt.Sprintf("%s: RUNFLAGS: ghostcheck run has no flag --%s", where, flag))
					}
				}
			}
			problems = append(problems, checkCommandLine(commands, where, c.text, &refs)...)
		}
	}
	if refs < 50 {
		t.Fatalf("only %d names found in the Markdown's code: has the format changed?", refs)
	}
	t.Logf("%d names checked", refs)
	checkDrift(t, isCodeNameProblem, problems)
}

func dotted(member string) string {
	if member == "" {
		return ""
	}
	return "." + member
}

// checkGoRef says what is wrong with pkg.name(.member) in the packages of
// these folders, or "" if one of them declares it.
func checkGoRef(byFolder map[string]*exported, folders []string, name, member string) string {
	problem := ""
	for _, f := range folders {
		e := byFolder[f]
		switch {
		case !e.names[name]:
			problem = fmt.Sprintf("%s declares no %s", f, name)
		case member == "":
			return ""
		default:
			members, typed := e.members[name]
			if !typed {
				// A function or a value: pkg.Func.X is prose, not a member.
				return ""
			}
			if members == nil || members[member] {
				return ""
			}
			problem = fmt.Sprintf("%s.%s has no field or method %s", f, name, member)
		}
	}
	return problem
}

// joinContinuations joins a fenced block's lines ending in '\' with the
// next, so a command split over lines is read whole.
func joinContinuations(code []codeText) []codeText {
	var out []codeText
	for i := 0; i < len(code); i++ {
		c := code[i]
		for strings.HasSuffix(strings.TrimSpace(c.text), `\`) && i+1 < len(code) && code[i+1].line == code[i].line+1 {
			i++
			c.text = strings.TrimSuffix(strings.TrimSpace(c.text), `\`) + " " + code[i].text
		}
		out = append(out, c)
	}
	return out
}

// checkCommandLine checks `ghostcheck COMMAND [SUB] --flag ...` in a line
// of code, and a code span that starts with a command and a flag ("check
// --cases Z9").
func checkCommandLine(commands map[string]map[string]bool, where, text string, refs *int) []string {
	var args []string
	if m := ghostcheckCmd.FindStringSubmatch(text); m != nil {
		args = strings.Fields(quoted.ReplaceAllString(cutShell(m[1]), "ARG"))
	} else if f := strings.Fields(text); len(f) > 1 && commands[f[0]] != nil && strings.HasPrefix(f[1], "--") {
		args = strings.Fields(quoted.ReplaceAllString(cutShell(text), "ARG"))
	}
	if len(args) == 0 || !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(args[0]) {
		return nil // an output line ("ghostcheck run: ..."), or a placeholder (COMMAND)
	}
	*refs++
	flags, ok := commands[args[0]]
	if !ok {
		return []string{fmt.Sprintf("%s: ghostcheck %s: no such command", where, args[0])}
	}
	var problems []string
	for _, flag := range flagsOf(args[1:]) {
		*refs++
		if !flags[flag] {
			problems = append(problems, fmt.Sprintf("%s: ghostcheck %s --%s: no such flag", where, args[0], flag))
		}
	}
	return problems
}

// cutShell ends a command line at a pipe, a redirection, a separator or a
// closing parenthesis.
func cutShell(s string) string {
	if i := strings.IndexAny(s, "|;&<>)"); i >= 0 {
		return s[:i]
	}
	return s
}

// flagsOf returns the flag names of command-line words: "--seed", "-h",
// "--restarts=false", "[--html" give seed, h, restarts, html.
func flagsOf(words []string) []string {
	var out []string
	for _, w := range words {
		w = strings.TrimLeft(w, "[")
		if !strings.HasPrefix(w, "-") {
			continue
		}
		name := strings.TrimLeft(w, "-")
		name, _, _ = strings.Cut(name, "=")
		name = strings.TrimRight(name, "]")
		if name == "" || !regexp.MustCompile(`^[a-z][a-z0-9-]*$`).MatchString(name) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// commandFlags reads cmd/ghostcheck's commands (the names in commands())
// and the flags each command's flag set defines, from the source: a
// function that calls flag.NewFlagSet(NAME, ...) and defines flags on it
// (fs.StringVar(&x, "seed", ...), fs.Bool("json", ...)). Every command
// takes -h and --help.
func commandFlags(t *testing.T) map[string]map[string]bool {
	t.Helper()
	dir := filepath.Join(root, "cmd", "ghostcheck")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	commands := map[string]map[string]bool{}
	var funcs []*ast.FuncDecl
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok {
				funcs = append(funcs, fn)
			}
		}
	}
	for _, fn := range funcs {
		if fn.Name.Name != "commands" {
			continue
		}
		ast.Inspect(fn, func(n ast.Node) bool {
			if lit, ok := n.(*ast.CompositeLit); ok && len(lit.Elts) > 0 {
				if s, ok := stringLit(lit.Elts[0]); ok {
					commands[s] = map[string]bool{"h": true, "help": true}
					return false
				}
			}
			return true
		})
	}
	if len(commands) < 5 {
		t.Fatalf("found only %d commands in cmd/ghostcheck's commands(): has it moved?", len(commands))
	}
	defining := map[string]bool{}
	for _, kind := range []string{"Bool", "Int", "Int64", "Uint", "Uint64", "String", "Float64", "Duration"} {
		defining[kind], defining[kind+"Var"] = true, true
	}
	for _, kind := range []string{"Var", "Func", "BoolFunc", "TextVar"} {
		defining[kind] = true
	}
	for _, fn := range funcs {
		sets := map[string]string{} // variable -> command
		ast.Inspect(fn, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			call, ok := as.Rhs[0].(*ast.CallExpr)
			if !ok || !isSelector(call.Fun, "flag", "NewFlagSet") || len(call.Args) == 0 {
				return true
			}
			name, ok := stringLit(call.Args[0])
			if bin, isBin := call.Args[0].(*ast.BinaryExpr); !ok && isBin {
				name, ok = stringLit(bin.X) // "members "+sub
			}
			if id, isID := as.Lhs[0].(*ast.Ident); ok && isID {
				if fields := strings.Fields(name); len(fields) > 0 {
					sets[id.Name] = fields[0]
				}
			}
			return true
		})
		if len(sets) == 0 {
			continue
		}
		ast.Inspect(fn, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !defining[sel.Sel.Name] {
				return true
			}
			v, ok := sel.X.(*ast.Ident)
			if !ok || sets[v.Name] == "" {
				return true
			}
			for _, arg := range call.Args {
				if s, ok := stringLit(arg); ok {
					cmd := sets[v.Name]
					if commands[cmd] == nil {
						t.Errorf("cmd/ghostcheck: a flag set named %q, which commands() does not list", cmd)
						commands[cmd] = map[string]bool{}
					}
					commands[cmd][s] = true
					break
				}
			}
			return true
		})
	}
	for _, must := range []string{"run", "check", "replay"} {
		if len(commands[must]) < 5 {
			t.Fatalf("found only %d flags of ghostcheck %s: has its flag parsing moved?", len(commands[must]), must)
		}
	}
	return commands
}

func isSelector(x ast.Expr, pkg, name string) bool {
	sel, ok := x.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

func stringLit(x ast.Expr) (string, bool) {
	lit, ok := x.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// Every make target has a row in docs/running.md's table of targets, and
// every command of cmd/ghostcheck is shown in the manual: a target or a
// command nobody can read about is one nobody uses, or misuses.
func TestManualCoversEveryTargetAndCommand(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	running := readMarkdown(t, "docs/running.md")
	rows := map[string]bool{}
	for i, line := range running.prose {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		for _, c := range running.code {
			if c.line == i+1 {
				if m := makeRef.FindStringSubmatch(c.text); m != nil && strings.HasPrefix(c.text, "make ") {
					rows[m[1]] = true
				}
				break // the row's first code span names it
			}
		}
	}
	var problems []string
	for _, m := range makeTarget.FindAllStringSubmatch(string(makefile), -1) {
		if !rows[m[1]] {
			problems = append(problems, fmt.Sprintf("docs/running.md: the table of make targets has no row for make %s", m[1]))
		}
	}
	shown := map[string]bool{}
	for _, rel := range markdownFiles(t) {
		for _, c := range readMarkdown(t, rel).code {
			if m := ghostcheckCmd.FindStringSubmatch(c.text); m != nil {
				if f := strings.Fields(m[1]); len(f) > 0 {
					shown[f[0]] = true
				}
			}
		}
	}
	for name := range commandFlags(t) {
		if !shown[name] {
			problems = append(problems, fmt.Sprintf("the manual never shows the command ghostcheck %s", name))
		}
	}
	sort.Strings(problems)
	checkDrift(t, isCoverageProblem, problems)
}
