package luaload

import (
	"bytes"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/apischema"
	"github.com/luatool/luatool/engine/content"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/srcpos"
	"github.com/luatool/luatool/internal/spell"
)

// The lint is what luatool check and watch ask the loader for beside loading
// (Options.Lint): what can be seen wrong in a file's source without running it, in
// one pass over gopher-lua's syntax tree, with Lua's scopes followed so that a local
// of the same name hides what it shadows:
//
//   - the content blocks a tool's mapResult or a prompt's get writes as table
//     constructors (a type MCP has no block of, an unknown field, a bad MIME type or
//     base64);
//   - in a tool's member functions, a field of the input read by a literal name that
//     the input schema does not declare (the model sends what the schema says), an
//     unknown field or method of ctx, and more parameters than the member is called
//     with (engine.Member.Params), which are always nil;
//   - anywhere, a field of a module (a local given require("fs")) or of a standard
//     library (string, table, ...) that it does not have: fs.raed.
//
// What a value is at run time (a variable key, a table built elsewhere, an input
// passed on to a helper) only the call sees. A name that is assigned again (fs =
// ...) or an input field the code writes is not checked.

// contentFields are the fields of content blocks of every type but "type": a table
// constructor in mapResult or get with a literal type and one of these is taken for
// a block, one with a literal type alone (a value the function encodes, say) is not.
var contentFields = []string{"text", "data", "mimeType", "source", "resource", "uri", "name", "title", "description", "size", "annotations"}

// lintFile is the lint of one file. content names the member whose functions write
// content blocks ("mapResult", "get"; "" for none); tool says whether the file is a
// tool's, whose members' functions are checked against the contract; input decides
// which fields of the input are declared (nil: none is checked); names are what ctx,
// the modules and the libraries have.
type lintFile struct {
	file    string
	content string
	tool    bool
	input   func(field string) (declared bool, known []string)
	names   *luaNames

	diags []diag.Diagnostic
	// found are the findings about a name, kept until the end: a name assigned
	// again anywhere in its scope, or an input field written, is not checked.
	found []finding
	// parts are the tables inside blocks (an image's source, a resource's contents),
	// which are not blocks themselves.
	parts map[*ast.TableExpr]bool
}

type finding struct {
	b     *binding
	field string
	d     diag.Diagnostic
}

// A binding is what a name in scope stands for, as far as the lint knows.
type binding struct {
	kind bindingKind
	// module is the module's (or library's) name, for bindModule; library says it
	// is a library of the globals (string, table, ...).
	module  string
	library bool
	// reassigned is set when the name is assigned again; written are the fields of
	// an input the code sets.
	reassigned bool
	written    map[string]bool
}

type bindingKind int

const (
	bindOther  bindingKind = iota // a local the lint knows nothing of
	bindModule                    // a module or library table
	bindCtx                       // a member's ctx parameter
	bindInput                     // a member's input parameter
)

type scope struct {
	parent *scope
	names  map[string]*binding
}

func (s *scope) lookup(name string) *binding {
	for ; s != nil; s = s.parent {
		if b, ok := s.names[name]; ok {
			return b
		}
	}
	return nil
}

func (s *scope) child() *scope { return &scope{parent: s, names: map[string]*binding{}} }

// lint parses src and returns what lintFile finds in it; nothing when it does not
// parse (compiling reported that).
func (l *lintFile) lint(src []byte) []diag.Diagnostic {
	chunk, err := parse.Parse(bytes.NewReader(src), l.file)
	if err != nil {
		return nil
	}
	l.parts = map[*ast.TableExpr]bool{}
	globals := &scope{names: map[string]*binding{}}
	if l.names != nil {
		for name := range l.names.libraries {
			globals.names[name] = &binding{kind: bindModule, module: name, library: true}
		}
	}
	l.block(chunk, globals, false)
	for _, f := range l.found {
		if !f.b.reassigned && !f.b.written[f.field] {
			l.diags = append(l.diags, f.d)
		}
	}
	return l.diags
}

// block walks a block in a scope of its own; in says whether it is inside a
// function that writes content blocks.
func (l *lintFile) block(stmts []ast.Stmt, outer *scope, in bool) {
	sc := outer.child()
	for _, s := range stmts {
		l.stmt(s, sc, in)
	}
}

func (l *lintFile) stmt(s ast.Stmt, sc *scope, in bool) {
	switch s := s.(type) {
	case *ast.LocalAssignStmt:
		for i, e := range s.Exprs {
			name := ""
			if i < len(s.Names) {
				name = s.Names[i]
			}
			l.value(e, sc, in, name)
		}
		for i, name := range s.Names {
			b := &binding{}
			if i < len(s.Exprs) {
				if mod := l.required(s.Exprs[i], sc); mod != "" {
					b = &binding{kind: bindModule, module: mod}
				}
			}
			sc.names[name] = b
		}
	case *ast.AssignStmt:
		for i, e := range s.Rhs {
			member := ""
			if i < len(s.Lhs) {
				member = memberNamed(s.Lhs[i])
			}
			l.value(e, sc, in, member)
		}
		for _, e := range s.Lhs {
			l.target(e, sc, in)
		}
	case *ast.FuncDefStmt:
		member, method := memberNamed(s.Name.Func), false
		if s.Name.Method != "" {
			member, method = s.Name.Method, true
			l.expr(s.Name.Func, sc, in)
		} else {
			l.target(s.Name.Func, sc, in)
		}
		l.function(s.Func, sc, in || member != "" && member == l.content, member, method)
	case *ast.FuncCallStmt:
		l.expr(s.Expr, sc, in)
	case *ast.DoBlockStmt:
		l.block(s.Stmts, sc, in)
	case *ast.WhileStmt:
		l.expr(s.Condition, sc, in)
		l.block(s.Stmts, sc, in)
	case *ast.RepeatStmt:
		body := sc.child() // until sees the body's locals
		for _, st := range s.Stmts {
			l.stmt(st, body, in)
		}
		l.expr(s.Condition, body, in)
	case *ast.IfStmt:
		l.expr(s.Condition, sc, in)
		l.block(s.Then, sc, in)
		l.block(s.Else, sc, in)
	case *ast.NumberForStmt:
		l.expr(s.Init, sc, in)
		l.expr(s.Limit, sc, in)
		l.expr(s.Step, sc, in)
		body := sc.child()
		body.names[s.Name] = &binding{}
		l.block(s.Stmts, body, in)
	case *ast.GenericForStmt:
		for _, e := range s.Exprs {
			l.expr(e, sc, in)
		}
		body := sc.child()
		for _, n := range s.Names {
			body.names[n] = &binding{}
		}
		l.block(s.Stmts, body, in)
	case *ast.ReturnStmt:
		for _, e := range s.Exprs {
			l.expr(e, sc, in)
		}
	}
}

// value walks an expression given for a name: a table field's key, an assigned
// name, a local's; a function given for a member is the member's.
func (l *lintFile) value(e ast.Expr, sc *scope, in bool, name string) {
	in = in || name != "" && name == l.content
	if f, ok := e.(*ast.FunctionExpr); ok {
		l.function(f, sc, in, name, false)
		return
	}
	l.expr(e, sc, in)
}

// target walks what an assignment assigns to: a name assigned again loses what the
// lint knew of it, an input field written is one the code may read.
func (l *lintFile) target(e ast.Expr, sc *scope, in bool) {
	switch e := e.(type) {
	case *ast.IdentExpr:
		if b := sc.lookup(e.Value); b != nil {
			b.reassigned = true
		}
		return
	case *ast.AttrGetExpr:
		if id, ok := e.Object.(*ast.IdentExpr); ok {
			if b := sc.lookup(id.Value); b != nil && b.kind == bindInput {
				if k, ok := e.Key.(*ast.StringExpr); ok {
					if b.written == nil {
						b.written = map[string]bool{}
					}
					b.written[k.Value] = true
				}
			}
		}
		l.expr(e.Object, sc, in) // the object is read, not its field
		l.expr(e.Key, sc, in)
		return
	}
	l.expr(e, sc, in)
}

func (l *lintFile) expr(e ast.Expr, sc *scope, in bool) {
	switch e := e.(type) {
	case *ast.AttrGetExpr:
		l.attr(e, sc, in, "field")
	case *ast.FuncCallExpr:
		switch fn, ok := e.Func.(*ast.AttrGetExpr); {
		case e.Receiver != nil:
			if id, ok := e.Receiver.(*ast.IdentExpr); ok {
				l.field(sc.lookup(id.Value), id.Value+":"+e.Method, e.Method, e.Line(), "method")
			}
			l.expr(e.Receiver, sc, in)
		case ok:
			l.attr(fn, sc, in, "function")
		default:
			l.expr(e.Func, sc, in)
		}
		for _, a := range e.Args {
			l.expr(a, sc, in)
		}
	case *ast.TableExpr:
		if in {
			l.table(e)
		}
		for _, f := range e.Fields {
			l.expr(f.Key, sc, in)
			name := ""
			if k, ok := f.Key.(*ast.StringExpr); ok {
				name = k.Value
			}
			l.value(f.Value, sc, in, name)
		}
	case *ast.FunctionExpr:
		l.function(e, sc, in, "", false)
	default:
		for _, o := range operands(e) {
			l.expr(o, sc, in)
		}
	}
}

// operands returns the operands of an operator expression.
func operands(e ast.Expr) []ast.Expr {
	switch e := e.(type) {
	case *ast.LogicalOpExpr:
		return []ast.Expr{e.Lhs, e.Rhs}
	case *ast.RelationalOpExpr:
		return []ast.Expr{e.Lhs, e.Rhs}
	case *ast.StringConcatOpExpr:
		return []ast.Expr{e.Lhs, e.Rhs}
	case *ast.ArithmeticOpExpr:
		return []ast.Expr{e.Lhs, e.Rhs}
	case *ast.UnaryMinusOpExpr:
		return []ast.Expr{e.Expr}
	case *ast.UnaryNotOpExpr:
		return []ast.Expr{e.Expr}
	case *ast.UnaryLenOpExpr:
		return []ast.Expr{e.Expr}
	}
	return nil
}

// attr walks x.key, checking key when x is a name the lint knows; kind is what
// x.key is used as: a "field", or a "function" called.
func (l *lintFile) attr(e *ast.AttrGetExpr, sc *scope, in bool, kind string) {
	if id, ok := e.Object.(*ast.IdentExpr); ok {
		if k, ok := e.Key.(*ast.StringExpr); ok {
			l.field(sc.lookup(id.Value), id.Value+"."+k.Value, k.Value, e.Line(), kind)
		}
	}
	l.expr(e.Object, sc, in)
	l.expr(e.Key, sc, in)
}

// function walks a function; member names the member of the Tool contract it is
// given for, if any, and method says it was defined with a colon (self first).
func (l *lintFile) function(f *ast.FunctionExpr, sc *scope, in bool, member string, method bool) {
	body := sc.child()
	params := f.ParList.Names
	if method {
		params = append([]string{"self"}, params...)
	}
	m, isMember := engine.LookupMember(member)
	isMember = isMember && l.tool && m.Kind.Func
	for i, p := range params {
		b := &binding{}
		if isMember && i < len(m.Params) {
			switch strings.TrimSuffix(m.Params[i], "?") {
			case "input":
				if l.input != nil && !m.RawInput {
					b.kind = bindInput
				}
			case "ctx":
				if l.names != nil {
					b.kind = bindCtx
				}
			}
		}
		body.names[p] = b
	}
	if isMember && len(params) > len(m.Params) {
		l.arity(m, params, f.Line())
	}
	for _, s := range f.Stmts {
		l.stmt(s, body, in)
	}
}

// arity reports the parameters of a member's function beyond those it is called
// with.
func (l *lintFile) arity(m engine.Member, params []string, line int) {
	called := "with no arguments"
	if len(m.Params) == 1 {
		called = "with 1 argument (" + strings.TrimSuffix(m.Params[0], "?") + ")"
	} else if len(m.Params) > 1 {
		names := make([]string, len(m.Params))
		for i, p := range m.Params {
			names[i] = strings.TrimSuffix(p, "?")
		}
		called = fmt.Sprintf("with %d arguments (%s)", len(m.Params), strings.Join(names, ", "))
	}
	extra := params[len(m.Params):]
	verb := "is"
	if len(extra) > 1 {
		verb = "are"
	}
	l.report(line, diag.SeverityWarning, m.Name, fmt.Sprintf("%s = function(%s): %s is called %s, so %s %s always nil",
		m.Name, strings.Join(params, ", "), m.Name, called, strings.Join(extra, ", "), verb))
}

// field checks the key of expr (x.key or x:key) for what the name x stands for, b;
// kind is what it is used as: a "field", a "function" or a "method".
func (l *lintFile) field(b *binding, expr, key string, line int, kind string) {
	if b == nil || l.names == nil {
		return
	}
	var known []string
	var what string
	switch b.kind {
	case bindModule:
		known, what = l.names.modules[b.module], "the "+b.module+" module"
		if b.library {
			known, what = l.names.libraries[b.module], "the "+b.module+" library"
		}
	case bindCtx:
		known, what = l.names.ctx, "ctx"
	case bindInput:
		declared, props := l.input(key)
		if declared {
			return
		}
		msg := fmt.Sprintf("%s reads a field inputSchema does not declare", expr)
		if s := spell.Suggest(key, props); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		msg += ": the model is told only of the schema's properties, so it is nil"
		l.found = append(l.found, finding{b, key, l.diagnostic(line, diag.SeverityWarning, "", msg)})
		return
	default:
		return
	}
	if known == nil || slices.Contains(known, key) {
		return
	}
	msg := fmt.Sprintf("%s: %s has no %s %s", expr, what, kind, key)
	if s := spell.Suggest(key, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	l.found = append(l.found, finding{b, "", l.diagnostic(line, diag.SeverityWarning, "", msg)})
}

// required returns the module e requires, when e is require("name") of a module
// whose names are known.
func (l *lintFile) required(e ast.Expr, sc *scope) string {
	call, ok := e.(*ast.FuncCallExpr)
	if !ok || call.Receiver != nil || len(call.Args) != 1 || l.names == nil {
		return ""
	}
	fn, ok := call.Func.(*ast.IdentExpr)
	if !ok || fn.Value != "require" || sc.lookup("require") != nil {
		return ""
	}
	name, ok := call.Args[0].(*ast.StringExpr)
	if !ok {
		return ""
	}
	if _, known := l.names.modules[name.Value]; !known {
		return "" // a Lua module of lib/, or none (loading says so)
	}
	return name.Value
}

// memberNamed returns the name an assignment target gives what it is assigned:
// x.name, or a global name.
func memberNamed(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.AttrGetExpr:
		if k, ok := e.Key.(*ast.StringExpr); ok {
			return k.Value
		}
	case *ast.IdentExpr:
		return e.Value
	}
	return ""
}

// table checks a table constructor that is a content block.
func (l *lintFile) table(t *ast.TableExpr) {
	fields := literalFields(t)
	typ, ok := fields["type"].(*ast.StringExpr)
	if !ok || l.parts[t] || !slices.ContainsFunc(contentFields, func(k string) bool { return fields[k] != nil }) {
		return
	}
	keys, known := blockKeys[typ.Value]
	if !known {
		msg := fmt.Sprintf("%s: content block type %q is not one MCP takes (text, image, audio, resource or resource_link)", l.content, typ.Value)
		if s := spell.Suggest(typ.Value, slices.Sorted(maps.Keys(blockKeys))); s != "" {
			msg += fmt.Sprintf("; did you mean %s?", s)
		}
		l.report(typ.Line(), diag.SeverityWarning, l.content, msg)
		return
	}
	where := fmt.Sprintf("%s: %s block", l.content, typ.Value)
	l.unknownFields(fields, t.Line(), keys, where, "")
	major := ""
	if typ.Value == "image" || typ.Value == "audio" {
		major = typ.Value
	}
	l.mime(fields["mimeType"], major, where, "mimeType")
	l.base64(fields["data"], where, "data")
	if src, ok := fields["source"].(*ast.TableExpr); ok {
		l.parts[src] = true
		sf := literalFields(src)
		l.unknownFields(sf, src.Line(), []string{"type", "media_type", "data"}, where, "source.")
		l.mime(sf["media_type"], "image", where, "source.media_type")
		l.base64(sf["data"], where, "source.data")
	}
	if res, ok := fields["resource"].(*ast.TableExpr); ok {
		l.parts[res] = true
		rf := literalFields(res)
		l.unknownFields(rf, res.Line(), []string{"uri", "mimeType", "text", "blob"}, where, "resource.")
		l.mime(rf["mimeType"], "", where, "resource.mimeType")
		l.base64(rf["blob"], where, "resource.blob")
	}
}

// unknownFields reports the fields of a table constructor at line that a block does
// not have.
func (l *lintFile) unknownFields(fields map[string]ast.Expr, line int, keys []string, where, prefix string) {
	if err := onlyKeys(fields, keys, prefix); err != nil {
		l.report(line, diag.SeverityError, l.content, fmt.Sprintf("%s: %v", where, err))
	}
}

// mime checks a MIME type written as a literal.
func (l *lintFile) mime(e ast.Expr, major, where, field string) {
	if s, ok := e.(*ast.StringExpr); ok {
		if err := content.CheckMIME(s.Value, major); err != nil {
			l.report(s.Line(), diag.SeverityError, l.content, fmt.Sprintf("%s: %s: %v", where, field, err))
		}
	}
}

// base64 checks data written as a literal.
func (l *lintFile) base64(e ast.Expr, where, field string) {
	if s, ok := e.(*ast.StringExpr); ok {
		if err := content.CheckBase64(s.Value); err != nil {
			l.report(s.Line(), diag.SeverityError, l.content, fmt.Sprintf("%s: %s %v", where, field, err))
		}
	}
}

func (l *lintFile) diagnostic(line int, sev diag.Severity, member, msg string) diag.Diagnostic {
	return diag.Diagnostic{Pos: srcpos.Pos{File: l.file, Line: line}, Severity: sev, Member: member, Message: msg}
}

func (l *lintFile) report(line int, sev diag.Severity, member, msg string) {
	l.diags = append(l.diags, l.diagnostic(line, sev, member, msg))
}

// literalFields returns the fields of t that have string keys, by key.
func literalFields(t *ast.TableExpr) map[string]ast.Expr {
	m := map[string]ast.Expr{}
	for _, f := range t.Fields {
		if k, ok := f.Key.(*ast.StringExpr); ok {
			m[k.Value] = f.Value
		}
	}
	return m
}

// inputFields returns, for an input schema whose properties are all it admits, a
// function telling whether a field is declared, with the declared names for a
// hint; nil for a schema that admits other fields or whose fields cannot be known
// without resolving it: additionalProperties or unevaluatedProperties other than
// false, a $ref, no properties at all. Properties declared by anyOf, oneOf, allOf,
// if, then, else and dependentSchemas count; patternProperties declare what they
// match.
func inputFields(schema map[string]any) func(string) (bool, []string) {
	props := map[string]bool{}
	var patterns []*regexp.Regexp
	var collect func(s map[string]any) bool
	collect = func(s map[string]any) bool {
		if _, ok := s["$ref"]; ok {
			return false
		}
		for _, k := range []string{"additionalProperties", "unevaluatedProperties"} {
			if v, ok := s[k]; ok && v != false {
				return false
			}
		}
		if p, ok := s["properties"].(map[string]any); ok {
			for name := range p {
				props[name] = true
			}
		}
		if pp, ok := s["patternProperties"].(map[string]any); ok {
			for pat := range pp {
				re, err := regexp.Compile(pat)
				if err != nil {
					return false
				}
				patterns = append(patterns, re)
			}
		}
		var subs []any
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if list, ok := s[k].([]any); ok {
				subs = append(subs, list...)
			}
		}
		for _, k := range []string{"if", "then", "else"} {
			subs = append(subs, s[k])
		}
		if ds, ok := s["dependentSchemas"].(map[string]any); ok {
			for _, d := range ds {
				subs = append(subs, d)
			}
		}
		for _, sub := range subs {
			if m, ok := sub.(map[string]any); ok && !collect(m) {
				return false
			}
		}
		return true
	}
	if schema == nil || !collect(schema) || len(props) == 0 && len(patterns) == 0 {
		return nil
	}
	names := slices.Sorted(maps.Keys(props))
	return func(field string) (bool, []string) {
		if props[field] || slices.ContainsFunc(patterns, func(re *regexp.Regexp) bool { return re.MatchString(field) }) {
			return true, names
		}
		return false, names
	}
}

// lint is Options.Lint for the tool or hook file lt just defined.
func (l *Loader) lint(lt *luaTool, def *engine.ToolDef, hook bool) []diag.Diagnostic {
	lf := &lintFile{file: lt.file, names: l.names()}
	if !hook {
		lf.content, lf.tool, lf.input = "mapResult", true, inputFields(def.InputSchema)
	}
	return lf.lint(lt.src)
}

// refusals warns of what the model APIs refuse of a tool's definition
// (apischema.Refusals): a few lookups, so every load says it, as the engine says
// which names the APIs refuse.
func refusals(lt *luaTool, def *engine.ToolDef) []diag.Diagnostic {
	var diags []diag.Diagnostic
	for _, r := range apischema.Refusals(def.Name, def.InputSchema) {
		diags = append(diags, diag.Diagnostic{Pos: srcpos.Pos{File: lt.file, Line: lt.memberLine(r.Member)},
			Severity: diag.SeverityWarning, Member: r.Member, Message: r.Err.Error()})
	}
	return diags
}

// luaNames are the names the lint checks fields against, read from a state as
// scripts get them rather than listed again: the fields and methods of ctx, of each
// module require gives, and of each library table among the globals.
type luaNames struct {
	ctx       []string
	modules   map[string][]string
	libraries map[string][]string
}

// readLuaNames reads the names from a state of its own, with the modules.
func readLuaNames(modules []*bindings.Module, limits bindings.Limits) *luaNames {
	vm := bindings.NewVM(bindings.Config{Limits: limits, Modules: modules})
	defer vm.Close()
	L := vm.L
	n := &luaNames{modules: map[string][]string{}, libraries: map[string][]string{}}
	c := newLuaContext(vm)
	c.bind(&engine.CallContext{Deadline: time.Unix(1, 0)}) // every field set
	n.ctx = tableKeys(c.table)
	names := []string{"json"}
	for _, m := range modules {
		names = append(names, m.Name)
	}
	for _, name := range names {
		if err := L.CallByParam(lua.P{Fn: L.GetGlobal("require"), NRet: 1, Protect: true}, lua.LString(name)); err == nil {
			n.modules[name] = tableKeys(L.Get(-1))
			L.Pop(1)
		}
	}
	L.G.Global.ForEach(func(k, v lua.LValue) {
		if name, ok := k.(lua.LString); ok && name != "_G" && v.Type() == lua.LTTable {
			n.libraries[string(name)] = tableKeys(v)
		}
	})
	return n
}

// tableKeys returns the string keys of a table, and of the table behind it when it
// is a read-only view (its __index), sorted.
func tableKeys(v lua.LValue) []string {
	var keys []string
	add := func(t *lua.LTable) {
		t.ForEach(func(k, _ lua.LValue) {
			if s, ok := k.(lua.LString); ok {
				keys = append(keys, string(s))
			}
		})
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil
	}
	add(t)
	if mt, ok := t.Metatable.(*lua.LTable); ok {
		if backing, ok := mt.RawGetString("__index").(*lua.LTable); ok {
			add(backing)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
