package luaload

import (
	"bytes"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// memberLines finds, in a tool file's source, the line where each member of the
// returned table is given: a field of the table constructor in the final return
// statement, or of the table a local names there (`local tool = {...} return tool`),
// or an assignment `tool.member = ...` at the top level. Members it cannot place are
// absent; diagnostics then name the file alone. It parses the source again, which
// only happens when there is something to report.
func memberLines(file string, src []byte) map[string]int {
	lines := map[string]int{}
	chunk, err := parse.Parse(bytes.NewReader(src), file)
	if err != nil {
		return lines
	}
	var ret *ast.ReturnStmt
	for _, st := range chunk {
		if r, ok := st.(*ast.ReturnStmt); ok {
			ret = r
		}
	}
	if ret == nil || len(ret.Exprs) == 0 {
		return lines
	}
	addFields := func(t *ast.TableExpr) {
		for _, f := range t.Fields {
			if k, ok := f.Key.(*ast.StringExpr); ok && f.Value != nil {
				if _, seen := lines[k.Value]; !seen {
					lines[k.Value] = f.Value.Line()
				}
			}
		}
	}
	switch x := ret.Exprs[0].(type) {
	case *ast.TableExpr:
		addFields(x)
	case *ast.IdentExpr:
		for _, st := range chunk {
			switch s := st.(type) {
			case *ast.LocalAssignStmt:
				for i, name := range s.Names {
					if t, ok := exprAt(s.Exprs, i).(*ast.TableExpr); ok && name == x.Value {
						addFields(t)
					}
				}
			case *ast.AssignStmt:
				for _, lhs := range s.Lhs {
					get, ok := lhs.(*ast.AttrGetExpr)
					if !ok {
						continue
					}
					obj, ok1 := get.Object.(*ast.IdentExpr)
					key, ok2 := get.Key.(*ast.StringExpr)
					if ok1 && ok2 && obj.Value == x.Value {
						if _, seen := lines[key.Value]; !seen {
							lines[key.Value] = lhs.Line()
						}
					}
				}
			}
		}
	}
	return lines
}

func exprAt(exprs []ast.Expr, i int) ast.Expr {
	if i < len(exprs) {
		return exprs[i]
	}
	return nil
}
