package luaload

import (
	"bytes"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/luatool/luatool/engine/content"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/srcpos"
	"github.com/luatool/luatool/internal/spell"
)

// contentFields are the fields of content blocks of every type but "type": a table
// constructor in mapResult or get with a literal type and one of these is taken for
// a block, one with a literal type alone (a value the function encodes, say) is not.
var contentFields = []string{"text", "data", "mimeType", "source", "resource", "uri", "name", "title", "description", "size", "annotations"}

// lintContent reads, in the functions a file gives for member (a tool's mapResult, a
// prompt's get), the content blocks written as table constructors, and reports what
// they literally hold that MCP does not take, before a call does: a type it has no
// block of (a warning: the table may not be a block after all), and for a block of
// a known type an unknown field, a MIME type that is not type/subtype or not of the
// block's kind, and literal data that is not base64 (errors). What a block is given
// at run time (a variable, a computed field, a block built elsewhere) only the call
// checks. It parses the source again; luatool check asks for it (Options.Lint).
func lintContent(file string, src []byte, member string) []diag.Diagnostic {
	chunk, err := parse.Parse(bytes.NewReader(src), file)
	if err != nil {
		return nil // compiling reported it
	}
	l := &contentLint{file: file, member: member, parts: map[*ast.TableExpr]bool{}}
	l.walk(reflect.ValueOf(chunk), false)
	return l.diags
}

type contentLint struct {
	file, member string
	diags        []diag.Diagnostic
	// parts are the tables inside blocks (an image's source, a resource's contents),
	// which are not blocks themselves.
	parts map[*ast.TableExpr]bool
}

// walk visits the syntax tree at v; in says whether v is inside a function given for
// the member.
func (l *contentLint) walk(v reflect.Value, in bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		switch n := v.Interface().(type) {
		case *ast.TableExpr:
			if in {
				l.table(n)
			}
			for _, f := range n.Fields {
				l.walk(reflect.ValueOf(f.Key), in)
				l.walk(reflect.ValueOf(f.Value), in || l.isMember(f.Key))
			}
			return
		case *ast.AssignStmt:
			for i, e := range n.Rhs {
				l.walk(reflect.ValueOf(e), in || i < len(n.Lhs) && l.isMember(n.Lhs[i]))
			}
			return
		case *ast.LocalAssignStmt:
			for i, e := range n.Exprs {
				l.walk(reflect.ValueOf(e), in || i < len(n.Names) && n.Names[i] == l.member)
			}
			return
		case *ast.FuncDefStmt:
			l.walk(reflect.ValueOf(n.Func), in || n.Name.Method == l.member || l.isMember(n.Name.Func))
			return
		}
		l.walk(v.Elem(), in)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				l.walk(v.Field(i), in)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			l.walk(v.Index(i), in)
		}
	}
}

// isMember reports whether e names the member: the key of a table field, or
// x.member, or a global of its name.
func (l *contentLint) isMember(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.StringExpr:
		return e.Value == l.member
	case *ast.AttrGetExpr:
		k, ok := e.Key.(*ast.StringExpr)
		return ok && k.Value == l.member
	case *ast.IdentExpr:
		return e.Value == l.member
	}
	return false
}

// table checks a table constructor that is a content block.
func (l *contentLint) table(t *ast.TableExpr) {
	fields := literalFields(t)
	typ, ok := fields["type"].(*ast.StringExpr)
	if !ok || l.parts[t] || !slices.ContainsFunc(contentFields, func(k string) bool { return fields[k] != nil }) {
		return
	}
	keys, known := blockKeys[typ.Value]
	if !known {
		msg := fmt.Sprintf("%s: content block type %q is not one MCP takes (text, image, audio, resource or resource_link)", l.member, typ.Value)
		if s := spell.Suggest(typ.Value, slices.Sorted(maps.Keys(blockKeys))); s != "" {
			msg += fmt.Sprintf("; did you mean %s?", s)
		}
		l.report(typ.Line(), diag.SeverityWarning, msg)
		return
	}
	where := fmt.Sprintf("%s: %s block", l.member, typ.Value)
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
func (l *contentLint) unknownFields(fields map[string]ast.Expr, line int, keys []string, where, prefix string) {
	if err := onlyKeys(fields, keys, prefix); err != nil {
		l.report(line, diag.SeverityError, fmt.Sprintf("%s: %v", where, err))
	}
}

// mime checks a MIME type written as a literal.
func (l *contentLint) mime(e ast.Expr, major, where, field string) {
	if s, ok := e.(*ast.StringExpr); ok {
		if err := content.CheckMIME(s.Value, major); err != nil {
			l.report(s.Line(), diag.SeverityError, fmt.Sprintf("%s: %s: %v", where, field, err))
		}
	}
}

// base64 checks data written as a literal.
func (l *contentLint) base64(e ast.Expr, where, field string) {
	if s, ok := e.(*ast.StringExpr); ok {
		if err := content.CheckBase64(s.Value); err != nil {
			l.report(s.Line(), diag.SeverityError, fmt.Sprintf("%s: %s %v", where, field, err))
		}
	}
}

func (l *contentLint) report(line int, sev diag.Severity, msg string) {
	l.diags = append(l.diags, diag.Diagnostic{Pos: srcpos.Pos{File: l.file, Line: line}, Severity: sev, Member: l.member, Message: msg})
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
