package rules_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/model/rules"
)

// ruleSource is what the package's source (tests aside) says about rules:
// the constants declared of type Rule (name to id), and each call of
// violation with what its rule argument is.
type ruleSource struct {
	consts map[string]string
	calls  []ruleCall
}

type ruleCall struct {
	pos string
	arg ast.Expr
}

func readRuleSource(t *testing.T) ruleSource {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	src := ruleSource{consts: map[string]string{}}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Rule" {
					for i, name := range n.Names {
						lit, ok := n.Values[i].(*ast.BasicLit)
						if !ok {
							t.Fatalf("%s: rule %s is not a string literal", fset.Position(n.Pos()), name.Name)
						}
						v, _ := strconv.Unquote(lit.Value)
						src.consts[name.Name] = v
					}
				}
			case *ast.CallExpr:
				if fn, ok := n.Fun.(*ast.Ident); ok && fn.Name == "violation" && len(n.Args) > 0 {
					src.calls = append(src.calls, ruleCall{fset.Position(n.Pos()).String(), n.Args[0]})
				}
			}
			return true
		})
	}
	return src
}

// Every violation the checks can report names a rule, and every rule a
// report can name is listed by All: each call of violation passes a
// declared Rule constant (an untyped string would convert silently), every
// declared Rule is listed by All (Judged's among them) with its meaning and
// what checks it, and an id no rule has says so.
func TestEveryViolationNamesARule(t *testing.T) {
	src := readRuleSource(t)
	listed := map[string]bool{}
	for _, info := range rules.All() {
		id := string(info.ID)
		if listed[id] {
			t.Errorf("All lists %s twice", id)
		}
		listed[id] = true
		if info.Meaning == "" || len(info.CheckedBy) == 0 || rules.Meaning(id) != info.Meaning || info.ID.Meaning() != info.Meaning {
			t.Errorf("rule %s: meaning %q, checked by %v", id, info.Meaning, info.CheckedBy)
		}
	}
	for _, r := range rules.Judged() {
		if !listed[string(r)] {
			t.Errorf("Judged's %s is not in All", r)
		}
	}
	for name, id := range src.consts {
		if !listed[id] {
			t.Errorf("%s (%q) is declared but not in All", name, id)
		}
	}
	if len(src.consts) != len(listed) {
		t.Errorf("%d Rule constants declared, %d listed by All", len(src.consts), len(listed))
	}
	if len(src.calls) < len(rules.Judged()) {
		t.Errorf("found %d calls of violation for %d rules: the source reader misses some", len(src.calls), len(rules.Judged()))
	}
	for _, c := range src.calls {
		id, ok := c.arg.(*ast.Ident)
		if !ok || src.consts[id.Name] == "" {
			t.Errorf("%s: violation's rule is not a declared Rule constant", c.pos)
		}
	}
	if got := rules.Rule("NoSuchRule").Meaning(); got != "" {
		t.Errorf("an unknown rule means %q", got)
	}
	if got := rules.Meaning("NoSuchRule"); !strings.Contains(got, "not a rule") {
		t.Errorf("an unknown rule id means %q", got)
	}
}
