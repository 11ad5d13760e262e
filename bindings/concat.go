package bindings

import (
	"reflect"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// The '..' operator is one VM instruction, with no hook and no limit: a string
// doubled in a loop passes any heap budget in one uninterruptible copy (at 1 GiB, a
// doubling allocates 2 GiB at once, before a watchdog sample can see it). So Compile
// rewrites every '..' chain into a call of a library function that has the string
// limit, as string.rep and table.concat have: each chunk starts by copying that
// function into a local whose name no Lua source can spell, before any of the
// chunk's own code runs, so no script can shadow or replace it.

// concatName is the name of the bounded concatenation, both the global the library
// has and the local each chunk copies it to. The space keeps it out of reach of any
// Lua identifier.
const concatName = "luatool concat"

// rewriteConcat replaces every '..' chain of chunk (a .. b .. c, which the parser
// nests to the right) with a call of the bounded concatenation with its operands, and
// prepends the local that holds that function.
func rewriteConcat(chunk []ast.Stmt) []ast.Stmt {
	rewriteExprs(reflect.ValueOf(chunk))
	head := &ast.LocalAssignStmt{Names: []string{concatName}, Exprs: []ast.Expr{&ast.IdentExpr{Value: concatName}}}
	return append([]ast.Stmt{head}, chunk...)
}

var exprType = reflect.TypeFor[ast.Expr]()

// rewriteExprs walks a node of the syntax tree and replaces, in place, each
// expression slot that holds a '..' chain.
func rewriteExprs(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if c, ok := v.Interface().(*ast.StringConcatOpExpr); ok && v.Type() == exprType && v.CanSet() {
			v.Set(reflect.ValueOf(concatCall(c)))
			rewriteExprs(v.Elem()) // the operands may hold chains of their own
			return
		}
		rewriteExprs(v.Elem())
	case reflect.Pointer:
		if !v.IsNil() {
			rewriteExprs(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				rewriteExprs(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			rewriteExprs(v.Index(i))
		}
	}
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
