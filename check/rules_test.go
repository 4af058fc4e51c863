package check_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ghostcheck/ghostcheck/check"
	"github.com/ghostcheck/ghostcheck/codec"
	"github.com/ghostcheck/ghostcheck/driver"
	"github.com/ghostcheck/ghostcheck/history"
	"github.com/ghostcheck/ghostcheck/model/rules"
	"github.com/ghostcheck/ghostcheck/plan"
)

// parsePackage parses the non-test Go files of dir.
func parsePackage(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// ruleConsts maps the constants the files declare of type typ (an
// identifier, or pkg.Ident) to their ids.
func ruleConsts(t *testing.T, files []*ast.File, typ string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || vs.Type == nil || exprString(vs.Type) != typ {
				return true
			}
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("rule %s is not a string literal", name.Name)
				}
				out[name.Name], _ = strconv.Unquote(lit.Value)
			}
			return true
		})
	}
	return out
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	}
	return ""
}

// Every rule id the check and the driver put in a report or a violation
// is a declared rule (package rules, whose own test holds that All lists
// each with its meaning): the observer's violate is passed a declared rule
// constant (an untyped string would convert silently), and every Rule
// field is set from a declared rule constant, from a rules.Rule parameter,
// or copied from another Rule field.
func TestEveryReportedRuleIsListed(t *testing.T) {
	fset := token.NewFileSet()
	files := append(parsePackage(t, fset, "."), parsePackage(t, fset, "../driver")...)
	declared := ruleConsts(t, parsePackage(t, fset, "../model/rules"), "Rule")
	listed := map[string]bool{}
	for _, r := range rules.All() {
		listed[string(r.ID)] = true
	}
	for name, id := range declared {
		if !listed[id] {
			t.Errorf("rules.%s (%q) is declared but not in rules.All", name, id)
		}
	}

	// isRule: a declared rule constant.
	isRule := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		return ok && exprString(sel.X) == "rules" && declared[sel.Sel.Name] != ""
	}
	sites := 0
	for _, f := range files {
		var params map[string]bool // the rules.Rule parameters of the function being read
		// ruleValue: what a Rule field may be set from.
		ruleValue := func(e ast.Expr) bool {
			if sel, ok := e.(*ast.SelectorExpr); ok && sel.Sel.Name == "Rule" {
				return true // copied from another record
			}
			call, ok := e.(*ast.CallExpr)
			if !ok || exprString(call.Fun) != "string" || len(call.Args) != 1 {
				return false
			}
			if sel, ok := call.Args[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "Rule" {
				return true // copied from another record's rules.Rule
			}
			id, ok := call.Args[0].(*ast.Ident)
			return isRule(call.Args[0]) || ok && params[id.Name]
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				params = map[string]bool{}
				for _, fld := range n.Type.Params.List {
					if exprString(fld.Type) == "rules.Rule" {
						for _, name := range fld.Names {
							params[name.Name] = true
						}
					}
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "violate" && len(n.Args) > 1 {
					sites++
					if !isRule(n.Args[1]) {
						t.Errorf("%s: violate's rule is not a declared rule constant", fset.Position(n.Pos()))
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Rule" {
					sites++
					if !ruleValue(n.Value) {
						t.Errorf("%s: a Rule field set from something other than a rule", fset.Position(n.Pos()))
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if sel, ok := lhs.(*ast.SelectorExpr); ok && sel.Sel.Name == "Rule" && len(n.Rhs) == len(n.Lhs) {
						sites++
						if !ruleValue(n.Rhs[i]) {
							t.Errorf("%s: a Rule field set from something other than a rule", fset.Position(n.Pos()))
						}
					}
				}
			}
			return true
		})
	}
	if sites < 20 {
		t.Errorf("found %d places that set a rule: the source reader misses some", sites)
	}
}

// What runs and checks report, sampled: ghosts of v0 clients at both
// levels, a tampered history and a broken assumption; every rule named is
// one of Rules.
func TestReportedRulesAreListed(t *testing.T) {
	listed := map[string]bool{}
	for _, r := range rules.All() {
		listed[string(r.ID)] = true
	}
	seen := map[string]bool{}
	see := func(rule string) {
		if rule != "" {
			seen[rule] = true
		}
		if rule != "" && !listed[rule] {
			t.Errorf("reported rule %q is not in Rules", rule)
		}
	}
	o := plan.DefaultOptions()
	o.HeartbeatVersion = -1
	o.Faults = plan.UniformFaults(30)
	for seed := uint64(1); seed <= 10; seed++ {
		res, rep := runModel(t, plan.New(seed, o))
		for rule := range res.ViolationCounts {
			see(rule)
		}
		see(rep.Rule)
		see(check.Check(res, check.Options{Level: check.LevelObservable}).Rule)
		h := append(history.History(nil), res.History...)
		for i := len(h) - 1; i >= 0; i-- {
			if r, ok := h[i].Response.(*codec.ConsumerGroupHeartbeatResponse); ok && r.ErrorCode == codec.None && r.MemberEpoch > 0 {
				tampered := *r
				tampered.MemberEpoch = -5
				h[i].Response = &tampered
				break
			}
		}
		see(check.History(res.Plan, h, check.Options{}).Rule)
		see(check.Check(&driver.Result{Plan: res.Plan, History: h}, check.Options{Level: check.LevelObservable}).Rule)
		h[0].ID = 7
		see(check.History(res.Plan, h, check.Options{}).Rule)
	}
	for _, want := range []rules.Rule{rules.RuleNoGhosts, rules.RuleLinearizability, rules.RuleHarnessAssumption, rules.RuleMonotonicEpochs} {
		if !seen[string(want)] {
			t.Errorf("the sample never reported %s: it does not exercise what it should (saw %v)", want, seen)
		}
	}
}
