package bindings

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// The '..' operator is one VM instruction, with no hook and no limit: a string
// doubled in a loop passes any heap budget in one uninterruptible copy (at 1 GiB, a
// doubling allocates 2 GiB at once, before a watchdog sample can see it). So Compile
// rewrites every '..' chain into a call of a library function that has the string
// limit, as string.rep and table.concat have (chunkPass): each chunk starts by copying that
// function into a local whose name no Lua source can spell, before any of the
// chunk's own code runs, so no script can shadow or replace it.

// concatName is the name of the bounded concatenation, both the global the library
// has and the local each chunk copies it to. The space keeps it out of reach of any
// Lua identifier.
const concatName = "luatool concat"

// withConcatLocal returns chunk with the local that holds the bounded concatenation
// declared first, copied from the library before any of the chunk's code runs.
func withConcatLocal(chunk []ast.Stmt) []ast.Stmt {
	head := &ast.LocalAssignStmt{Names: []string{concatName}, Exprs: []ast.Expr{&ast.IdentExpr{Value: concatName}}}
	return append([]ast.Stmt{head}, chunk...)
}

// concatCall is the call that replaces the chain c: its operands, left to right, as
// the arguments, on c's lines so that errors point where the '..' is.
func concatCall(c *ast.StringConcatOpExpr) *ast.FuncCallExpr {
	var args []ast.Expr
	for e := ast.Expr(c); ; {
		cc, ok := e.(*ast.StringConcatOpExpr)
		if !ok {
			args = append(args, e)
			break
		}
		args = append(args, cc.Lhs)
		e = cc.Rhs
	}
	// An operand is one value: a call or ... as the last argument would pass all of
	// theirs, as if parenthesized.
	switch last := args[len(args)-1].(type) {
	case *ast.FuncCallExpr:
		last.AdjustRet = true
	case *ast.Comma3Expr:
		last.AdjustRet = true
	}
	fn := &ast.IdentExpr{Value: concatName}
	fn.SetLine(c.Line())
	fn.SetLastLine(c.LastLine())
	call := &ast.FuncCallExpr{Func: fn, Args: args}
	call.SetLine(c.Line())
	call.SetLastLine(c.LastLine())
	return call
}

// concat is '..' over its arguments with the string limit: strings and numbers are
// joined as Lua joins them, from the right, and any other operand goes through its
// (or its neighbour's) __concat metamethod, two at a time, as in Lua.
func (vm *VM) concat(L *lua.LState) int {
	n := L.GetTop()
	if s, ok := vm.concatPlain(L, n); ok {
		L.Push(lua.LString(s))
		return 1
	}
	rhs := L.Get(n)
	for i := n - 1; i >= 1; {
		lhs := L.Get(i)
		if !lua.LVCanConvToString(lhs) || !lua.LVCanConvToString(rhs) {
			rhs = vm.concatMeta(L, lhs, rhs)
			i--
			continue
		}
		// The run of strings and numbers ending at i, joined at once.
		j := i
		for j > 1 && lua.LVCanConvToString(L.Get(j-1)) {
			j--
		}
		size := int64(len(lua.LVAsString(rhs)))
		for k := j; k <= i; k++ {
			size += int64(len(lua.LVAsString(L.Get(k))))
		}
		if size > int64(vm.limits.MaxStringBytes) {
			vm.tooLong(L, "string concatenation (..)", size)
		}
		var b strings.Builder
		b.Grow(int(size))
		for k := j; k <= i; k++ {
			b.WriteString(lua.LVAsString(L.Get(k)))
		}
		b.WriteString(lua.LVAsString(rhs))
		rhs = lua.LString(b.String())
		i = j - 1
	}
	L.Push(rhs)
	return 1
}

// concatPlain joins the n arguments when all are strings or numbers (ok false
// otherwise), each converted once: the common case, in one allocation.
func (vm *VM) concatPlain(L *lua.LState, n int) (string, bool) {
	var small [8]string
	parts := small[:0]
	size := 0
	for i := 1; i <= n; i++ {
		var s string
		switch v := L.Get(i).(type) {
		case lua.LString:
			s = string(v)
		case lua.LNumber:
			s = v.String()
		default:
			return "", false
		}
		parts = append(parts, s)
		size += len(s)
	}
	if size > vm.limits.MaxStringBytes {
		vm.tooLong(L, "string concatenation (..)", int64(size))
	}
	return strings.Join(parts, ""), true
}

// concatMeta joins two operands of which one is not a string or number: by the
// __concat metamethod of the left one, or else the right one.
func (vm *VM) concatMeta(L *lua.LState, lhs, rhs lua.LValue) lua.LValue {
	op := L.GetMetaField(lhs, "__concat")
	if op == lua.LNil {
		op = L.GetMetaField(rhs, "__concat")
	}
	if op.Type() != lua.LTFunction {
		L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
	}
	L.Push(op)
	L.Push(lhs)
	L.Push(rhs)
	L.Call(2, 1)
	v := L.Get(-1)
	L.Pop(1)
	return v
}
