package bindings

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// A chunkPass is the one walk over a parsed chunk before it compiles. It measures
// how deeply statements and expressions nest, which sourceNesting cannot see (a
// chain of 50,000 binary operators has no brackets, yet compiles in quadratic
// time), stopping as soon as the limit is passed; and it replaces each '..' chain
// with a call of the bounded concatenation (concat.go). It knows every node type of
// gopher-lua's ast package by name, for speed; should a new one appear and hide a
// '..', checkNoConcat refuses the compiled program rather than run it unbounded.
type chunkPass struct {
	limit int
	// depth is the deepest nesting seen, line where it was reached.
	depth, line int
}

// prepareChunk runs the pass over chunk, whose nodes it rewrites in place, and
// returns the chunk to compile (with the local that holds the concatenation first)
// and the nesting it found.
func prepareChunk(chunk []ast.Stmt, limit int) (prepared []ast.Stmt, depth, line int) {
	p := &chunkPass{limit: limit}
	p.stmts(chunk, 0)
	return withConcatLocal(chunk), p.depth, p.line
}

// at records a node at depth d and reports whether to go on (the limit is not yet
// passed).
func (p *chunkPass) at(d, line int) bool {
	if d > p.depth {
		p.depth, p.line = d, line
	}
	return p.depth <= p.limit
}

func (p *chunkPass) stmts(list []ast.Stmt, d int) {
	for i, s := range list {
		p.stmt(s, d+1)
		if f, ok := s.(*ast.GenericForStmt); ok {
			list[i] = forOverLocals(f)
		}
	}
}

// forOverLocals returns the generic for f as a block that evaluates its expression
// list into three locals first, then iterates over them:
//
//	for k, v in EXPLIST do ... end  ->  do local (for f), (for s), (for c) = EXPLIST
//	                                       for k, v in (for f), (for s), (for c) do ... end end
//
// which Lua defines to mean the same. gopher-lua v1.1.2 miscompiles a generic for
// whose expression calls a field of a call's result (`for m in require("re").gmatch(s,
// p) do`, `for x in get().f() do`): the loop raises "attempt to call a non-function
// object", or runs no time at all; through locals it runs as Lua says. The names
// cannot be written in Lua source, so they hide nothing of the tool's.
func forOverLocals(f *ast.GenericForStmt) ast.Stmt {
	names := []string{"(for f)", "(for s)", "(for c)"}
	decl := &ast.LocalAssignStmt{Names: names, Exprs: f.Exprs}
	decl.SetLine(f.Line())
	decl.SetLastLine(f.Line())
	f.Exprs = make([]ast.Expr, len(names))
	for i, n := range names {
		id := &ast.IdentExpr{Value: n}
		id.SetLine(f.Line())
		id.SetLastLine(f.Line())
		f.Exprs[i] = id
	}
	block := &ast.DoBlockStmt{Stmts: []ast.Stmt{decl, f}}
	block.SetLine(f.Line())
	block.SetLastLine(f.LastLine())
	return block
}

func (p *chunkPass) exprs(list []ast.Expr, d int) {
	for i := range list {
		p.expr(&list[i], d+1)
	}
}

func (p *chunkPass) stmt(s ast.Stmt, d int) {
	if s == nil || !p.at(d, s.Line()) {
		return
	}
	switch s := s.(type) {
	case *ast.AssignStmt:
		p.exprs(s.Lhs, d)
		p.exprs(s.Rhs, d)
	case *ast.LocalAssignStmt:
		p.exprs(s.Exprs, d)
	case *ast.FuncCallStmt:
		p.expr(&s.Expr, d+1)
	case *ast.DoBlockStmt:
		p.stmts(s.Stmts, d)
	case *ast.WhileStmt:
		p.expr(&s.Condition, d+1)
		p.stmts(s.Stmts, d)
	case *ast.RepeatStmt:
		p.expr(&s.Condition, d+1)
		p.stmts(s.Stmts, d)
	case *ast.IfStmt:
		p.expr(&s.Condition, d+1)
		p.stmts(s.Then, d)
		p.stmts(s.Else, d)
	case *ast.NumberForStmt:
		p.expr(&s.Init, d+1)
		p.expr(&s.Limit, d+1)
		p.expr(&s.Step, d+1)
		p.stmts(s.Stmts, d)
	case *ast.GenericForStmt:
		p.exprs(s.Exprs, d)
		p.stmts(s.Stmts, d)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			p.expr(&s.Name.Func, d+1)
			p.expr(&s.Name.Receiver, d+1)
		}
		if s.Func != nil {
			var fn ast.Expr = s.Func
			p.expr(&fn, d+1)
		}
	case *ast.ReturnStmt:
		p.exprs(s.Exprs, d)
	case *ast.BreakStmt, *ast.LabelStmt, *ast.GotoStmt:
	}
}

// expr walks the expression in slot, replacing it when it is a '..' chain.
func (p *chunkPass) expr(slot *ast.Expr, d int) {
	e := *slot
	if e == nil || !p.at(d, e.Line()) {
		return
	}
	switch e := e.(type) {
	case *ast.StringConcatOpExpr:
		// The chain as the parser nests it, a .. (b .. (c .. d)): each link one
		// level deeper, its left operand one below that.
		link, ld := e, d
		for {
			p.expr(&link.Lhs, ld+1)
			next, ok := link.Rhs.(*ast.StringConcatOpExpr)
			if !ok {
				p.expr(&link.Rhs, ld+1)
				break
			}
			ld++
			if !p.at(ld, next.Line()) {
				return
			}
			link = next
		}
		*slot = concatCall(e)
	case *ast.AttrGetExpr:
		p.expr(&e.Object, d+1)
		p.expr(&e.Key, d+1)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			p.expr(&f.Key, d+1)
			p.expr(&f.Value, d+1)
		}
	case *ast.FuncCallExpr:
		p.expr(&e.Func, d+1)
		p.expr(&e.Receiver, d+1)
		p.exprs(e.Args, d)
	case *ast.LogicalOpExpr:
		p.expr(&e.Lhs, d+1)
		p.expr(&e.Rhs, d+1)
	case *ast.RelationalOpExpr:
		p.expr(&e.Lhs, d+1)
		p.expr(&e.Rhs, d+1)
	case *ast.ArithmeticOpExpr:
		p.expr(&e.Lhs, d+1)
		p.expr(&e.Rhs, d+1)
	case *ast.UnaryMinusOpExpr:
		p.expr(&e.Expr, d+1)
	case *ast.UnaryNotOpExpr:
		p.expr(&e.Expr, d+1)
	case *ast.UnaryLenOpExpr:
		p.expr(&e.Expr, d+1)
	case *ast.FunctionExpr:
		p.stmts(e.Stmts, d)
	case *ast.TrueExpr, *ast.FalseExpr, *ast.NilExpr, *ast.NumberExpr, *ast.StringExpr, *ast.Comma3Expr, *ast.IdentExpr:
	}
}

// checkNoConcat reports an error when a compiled function, or one nested in it,
// still has gopher-lua's own '..' instruction: the pass missed a chain, which would
// run without the string limit.
func checkNoConcat(proto *lua.FunctionProto) error {
	for _, inst := range proto.Code {
		if int(inst>>26) == lua.OP_CONCAT {
			return fmt.Errorf("internal error: a '..' at line %d escaped the string limit (a syntax luatool does not know?)", proto.LineDefined)
		}
	}
	for _, fn := range proto.FunctionPrototypes {
		if err := checkNoConcat(fn); err != nil {
			return err
		}
	}
	return nil
}
