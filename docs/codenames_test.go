package docs_test

// The names the Markdown shows in code, held to the code: Go identifiers of
// the module's packages, make targets, ghostcheck's commands and flags.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// exported is what a package declares: its identifiers and, for each
// type, its fields and methods (nil for a type whose members are not all
// declared in the package, such as an alias of another package's type).
type exported struct {
	names   map[string]bool
	members map[string]map[string]bool
}

// moduleExports parses the module's non-test sources for what each
// package exports, keyed by folder, and the folders of each package name.
func moduleExports(t *testing.T) (byFolder map[string]*exported, byName map[string][]string) {
	t.Helper()
	byFolder, byName = map[string]*exported{}, map[string][]string{}
	fset := token.NewFileSet()
	for _, p := range packages(t) {
		if p.Name == "main" {
			continue
		}
		e := &exported{names: map[string]bool{}, members: map[string]map[string]bool{}}
		open := map[string]bool{} // types whose members are not all declared here
		for _, name := range p.sources() {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				e.add(decl, open)
			}
		}
		for typ := range open {
			e.members[typ] = nil
		}
		byFolder[p.folder()] = e
		byName[p.Name] = append(byName[p.Name], p.folder())
	}
	return byFolder, byName
}

// add records what one declaration declares; a type whose members are
// not all declared in the package (an alias, a type of another package or
// of another type, an embedding) goes into open.
func (e *exported) add(decl ast.Decl, open map[string]bool) {
	member := func(typ, name string) {
		if e.members[typ] == nil {
			e.members[typ] = map[string]bool{}
		}
		e.members[typ][name] = true
	}
	switch decl := decl.(type) {
	case *ast.FuncDecl:
		if decl.Recv == nil {
			e.names[decl.Name.Name] = true
		} else {
			member(receiverType(decl.Recv.List[0].Type), decl.Name.Name)
		}
	case *ast.GenDecl:
		for _, spec := range decl.Specs {
			switch spec := spec.(type) {
			case *ast.ValueSpec:
				for _, n := range spec.Names {
					e.names[n.Name] = true
				}
			case *ast.TypeSpec:
				name := spec.Name.Name
				e.names[name] = true
				if e.members[name] == nil {
					e.members[name] = map[string]bool{}
				}
				var fields []*ast.Field
				switch typ := spec.Type.(type) {
				case *ast.StructType:
					fields = typ.Fields.List
				case *ast.InterfaceType:
					fields = typ.Methods.List
				default:
					open[name] = true
				}
				if spec.Assign.IsValid() {
					open[name] = true
				}
				for _, f := range fields {
					if len(f.Names) == 0 {
						member(name, receiverType(f.Type))
						open[name] = true // promoted members
					}
					for _, n := range f.Names {
						member(name, n.Name)
					}
				}
			}
		}
	}
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

// foreignQualifiers are the qualifiers the Markdown's code may use that are
// not the module's packages: other modules' packages, the example user
// package of docs/library.md and variables of its examples. Any other
// lowercase qualifier is a package that left, or a typo.
var foreignQualifiers = map[string]bool{
	// the standard library
	"io": true, "testing": true,
	// confluent-kafka-go, franz-go, rapid
	"kafka": true, "kfake": true, "kgo": true, "kmsg": true, "rapid": true,
	// the coordinator of docs/library.md's example, and its examples' variables
	"mycoord": true, "cfg": true, "rep": true, "res": true, "t": true,
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
	// commandName is a command's name, not an output line's "run:" nor a
	// placeholder's COMMAND.
	commandName = regexp.MustCompile(`^[a-z][a-z-]*$`)
	// flagName is a flag's name without its dashes.
	flagName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
)

// The Go names, make targets, command-line flags, repository paths and
// test names the Markdown shows in code exist: a reader who copies them
// gets what the text says.
func TestMarkdownCodeNamesExist(t *testing.T) {
	byFolder, byName := moduleExports(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range makeTarget.FindAllStringSubmatch(string(makefile), -1) {
		targets[m[1]] = true
	}
	commands := commandFlags(t)
	topLevel := map[string]bool{}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		topLevel[e.Name()] = true
	}
	modules := moduleRoots(t)
	tests := testFuncs(t)

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
					if !strings.Contains(pkg, "/") && !foreignQualifiers[pkg] {
						refs++
						problems = append(problems, fmt.Sprintf("%s: `%s.%s`: %s is no package of the module (nor in foreignQualifiers)", where, pkg, name, pkg))
					}
					continue
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
			for _, name := range testNamesIn(c.text) {
				refs++
				if !tests.has(name) {
					problems = append(problems, fmt.Sprintf("%s: `%s`: no test, benchmark or fuzz target has that name", where, name))
				}
			}
			for _, p := range goCommandPackages(c.text) {
				refs++
				if !existsInAModule(p, modules) {
					problems = append(problems, fmt.Sprintf("%s: `./%s`: no such package folder", where, p))
				}
			}
			if p := repoPathIn(c.text, topLevel); p != "" {
				refs++
				if !existsInAModule(p, modules) {
					problems = append(problems, fmt.Sprintf("%s: `%s`: no such file or folder", where, p))
				}
			}
		}
	}
	if refs < 50 {
		t.Fatalf("only %d names found in the Markdown's code: has the format changed?", refs)
	}
	t.Logf("%d names checked", refs)
	checkDrift(t, isCodeNameProblem, problems)
}

var (
	// repoPath is a code span that is a path: "impl/mutants.go", "model/".
	repoPath = regexp.MustCompile(`^[\w.-]+(?:/[\w.-]+)+/?$|^[\w.-]+/$`)
	// folderName is a folder as the repository names them.
	folderName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	// placeholder marks a path that stands for others: NAME, NN_name, ...
	placeholder = regexp.MustCompile(`NAME|NN_|\.\.\.|\.[A-Z]`)
)

// repoPathIn returns the path a code span names in the repository, or "":
// a path whose first folder is one of the repository's, or a Go file or a
// folder under a lowercase folder (which may be one that left). What a run
// writes (out/) is not the repository's.
func repoPathIn(span string, topLevel map[string]bool) string {
	span = strings.TrimSpace(span)
	if !repoPath.MatchString(span) || placeholder.MatchString(span) {
		return ""
	}
	first, _, _ := strings.Cut(span, "/")
	switch {
	case first == "out":
		return ""
	case topLevel[first]:
		return span
	case folderName.MatchString(first) && (strings.HasSuffix(span, ".go") || strings.HasSuffix(span, "/")):
		return span
	}
	return ""
}

var (
	// goCommand is a go command that takes packages.
	goCommand = regexp.MustCompile(`\bgo (?:test|run|build|vet|install|list)\b(.*)`)
	// relPackage is a package given by its folder: ./impl, ./internal/...
	relPackage = regexp.MustCompile(`(?:^|\s)\./([\w-]+(?:/[\w-]+)*)(?:/\.\.\.)?(?:\s|$)`)
)

// goCommandPackages are the package folders a go command in a line of code
// names (./linearize, ./cmd/ghostcheck), without "./" and "/...".
func goCommandPackages(line string) []string {
	m := goCommand.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	var out []string
	for _, p := range relPackage.FindAllStringSubmatch(cutShell(quoted.ReplaceAllString(m[1], "ARG"))+" ", -1) {
		out = append(out, p[1])
	}
	return out
}

var (
	// testName is a test, benchmark or fuzz target a code span names
	// alone, perhaps with a subtest: `TestKgoStaticMemberRestarted`,
	// `TestKgoInjectedErrors/UNKNOWN_MEMBER_ID`.
	testName = regexp.MustCompile(`^((?:Test|Benchmark|Fuzz)[A-Z0-9]\w*)(?:/\S*)?$`)
	// runFlag is go test's -run, -bench or -fuzz given one name:
	// -run TestX, -run '^TestX$'.
	runFlag = regexp.MustCompile(`-(?:run|bench|fuzz)[ =]'?\^?((?:Test|Benchmark|Fuzz)[A-Z0-9]\w*)\$?'?(?:\s|$)`)
	// testFunc is a test function's declaration.
	testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)\w*)\(`)
)

// testNamesIn returns the tests, benchmarks and fuzz targets a piece of
// code names: alone, or as the one name given to -run, -bench or -fuzz,
// where a name without its closing $ stands for every name it begins
// ("-run 'TestKgo'", written "TestKgo*").
func testNamesIn(code string) []string {
	var out []string
	if m := testName.FindStringSubmatch(strings.TrimSpace(code)); m != nil {
		out = append(out, m[1])
	}
	for _, m := range runFlag.FindAllStringSubmatch(code, -1) {
		name := m[1]
		if !strings.Contains(m[0], "$") {
			name += "*"
		}
		out = append(out, name)
	}
	return out
}

// testSet is the names of the repository's tests.
type testSet map[string]bool

// has reports whether a test has the name, or begins with it when the
// name ends in '*'. The pages' own example tests (a user's
// TestMyCoordinator, a placeholder TestX) are not the repository's.
func (s testSet) has(name string) bool {
	switch strings.TrimSuffix(name, "*") {
	case "TestMyCoordinator", "TestX":
		return true
	}
	prefix, ok := strings.CutSuffix(name, "*")
	if !ok {
		return s[name]
	}
	for n := range s {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// testFuncs are the names of every test, benchmark, fuzz target and
// example of the repository's modules.
func testFuncs(t *testing.T) testSet {
	t.Helper()
	names := testSet{}
	for _, f := range repoFiles(t, "_test.go") {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
			names[m[1]] = true
		}
	}
	return names
}

// moduleRoots are the folders of the repository's Go modules, relative to
// the root: "." and the modules of peers/. A path in a page about a module
// is often written from that module's root ("cmd/rdmock").
func moduleRoots(t *testing.T) []string {
	t.Helper()
	var roots []string
	for _, f := range repoFiles(t, "go.mod") {
		roots = append(roots, path.Dir(f))
	}
	if !slices.Contains(roots, ".") {
		t.Fatalf("no go.mod at the root among %v", roots)
	}
	return roots
}

// existsInAModule reports whether p is a file or folder under one of the
// module roots.
func existsInAModule(p string, modules []string) bool {
	for _, m := range modules {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m), filepath.FromSlash(p))); err == nil {
			return true
		}
	}
	return false
}

// dotted is ".member", or "" for none.
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
	if len(args) == 0 || !commandName.MatchString(args[0]) {
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
		if !flagName.MatchString(name) {
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
			if !ok {
				return true
			}
			if cmd := setArg(call, sets); cmd != "" && !defining[sel.Sel.Name] {
				// A helper handed the flag set (brokerflags.go's
				// register): the flags it defines on it, and the flag
				// names the call passes it.
				for f := range helperFlags(funcs, sel.Sel.Name, defining, map[string]bool{}) {
					commands[cmd][f] = true
				}
				for _, arg := range call.Args {
					if s, ok := stringLit(arg); ok && flagName.MatchString(s) {
						commands[cmd][s] = true
					}
				}
				return true
			}
			if !defining[sel.Sel.Name] {
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

// setArg is the command whose flag set call passes as an argument, "" if
// none.
func setArg(call *ast.CallExpr, sets map[string]string) string {
	for _, arg := range call.Args {
		if id, ok := arg.(*ast.Ident); ok && sets[id.Name] != "" {
			return sets[id.Name]
		}
	}
	return ""
}

// helperFlags are the flags the functions named name define on their
// *flag.FlagSet parameter, and those the helpers they hand it to define.
func helperFlags(funcs []*ast.FuncDecl, name string, defining, seen map[string]bool) map[string]bool {
	out := map[string]bool{}
	if seen[name] {
		return out
	}
	seen[name] = true
	for _, fn := range funcs {
		if fn.Name.Name != name {
			continue
		}
		params := map[string]string{}
		for _, f := range fn.Type.Params.List {
			if star, ok := f.Type.(*ast.StarExpr); ok && isSelector(star.X, "flag", "FlagSet") {
				for _, n := range f.Names {
					params[n.Name] = name
				}
			}
		}
		if len(params) == 0 {
			continue
		}
		ast.Inspect(fn, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if v, ok := sel.X.(*ast.Ident); ok && params[v.Name] != "" && defining[sel.Sel.Name] {
				for _, arg := range call.Args {
					if s, ok := stringLit(arg); ok {
						if flagName.MatchString(s) {
							out[s] = true // else a name the caller passes
						}
						break
					}
				}
				return true
			}
			if setArg(call, params) != "" {
				for f := range helperFlags(funcs, sel.Sel.Name, defining, seen) {
					out[f] = true
				}
			}
			return true
		})
	}
	return out
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

// Every make target has a row in docs/running.md's table of targets, every
// command of cmd/ghostcheck is shown in the manual, and every fuzz target
// has its row in docs/fuzzing.md: what nobody can read about is what
// nobody uses, or misuses.
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
	fuzzing := map[string]bool{}
	for _, c := range readMarkdown(t, "docs/fuzzing.md").code {
		fuzzing[c.text] = true
	}
	for _, name := range fuzzTargets(t) {
		if !fuzzing[name] {
			problems = append(problems, fmt.Sprintf("docs/fuzzing.md: the table of fuzz targets has no %s", name))
		}
	}
	sort.Strings(problems)
	checkDrift(t, isCoverageProblem, problems)
}

// fuzzTargetDecl is a fuzz target's declaration.
var fuzzTargetDecl = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)

// fuzzTargets are the fuzz targets of package fuzz.
func fuzzTargets(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "fuzz", "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fuzzTargetDecl.FindAllStringSubmatch(string(b), -1) {
			names = append(names, m[1])
		}
	}
	if len(names) < 5 {
		t.Fatalf("found %d fuzz targets in fuzz/: have they moved?", len(names))
	}
	return names
}
