package bindings

import (
	"fmt"
	"reflect"

	"github.com/luatool/luatool/srcpos"

	"github.com/yuin/gopher-lua/ast"
)

// sourceNesting returns the deepest nesting of blocks and brackets in Lua source and
// the line where it is reached, scanning tokens without parsing: strings and comments
// are skipped; function, do, then and repeat open a block, end, until and elseif
// close one; (, [ and { open a bracket, ), ] and } close it. It costs one pass and no
// allocation, so a compile bomb (thousands of nested functions or tables) is refused
// before the parser spends seconds and gigabytes on it.
func sourceNesting(src []byte) (depth, line int) {
	cur, ln := 0, 1
	open := func() {
		cur++
		if cur > depth {
			depth, line = cur, ln
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			ln++
			i++
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			i += 2
			if lvl, ok := longBracket(src, i); ok {
				i, ln = skipLong(src, i, lvl, ln)
				continue
			}
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			i++
			for i < len(src) && src[i] != c && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) {
					if src[i+1] == '\n' {
						ln++
					}
					i++
				}
				i++
			}
			i++
		case c == '[':
			if lvl, ok := longBracket(src, i); ok {
				i, ln = skipLong(src, i, lvl, ln)
				continue
			}
			open()
			i++
		case c == '(' || c == '{':
			open()
			i++
		case c == ')' || c == ']' || c == '}':
			cur--
			i++
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			switch string(src[i:j]) {
			case "function", "do", "then", "repeat":
				open()
			case "end", "until", "elseif":
				cur--
			}
			i = j
		default:
			i++
		}
	}
	return depth, line
}

// longBracket reports whether a long bracket ([[, [=[, ...) starts at src[i], and its level.
func longBracket(src []byte, i int) (int, bool) {
	if i >= len(src) || src[i] != '[' {
		return 0, false
	}
	j := i + 1
	for j < len(src) && src[j] == '=' {
		j++
	}
	if j < len(src) && src[j] == '[' {
		return j - i - 1, true
	}
	return 0, false
}

// skipLong skips a long string or comment opened at src[i] with the given level and
// returns the index after it and the line count.
func skipLong(src []byte, i, level, ln int) (int, int) {
	i += level + 2
	for i < len(src) {
		if src[i] == '\n' {
			ln++
		}
		if src[i] == ']' {
			j := i + 1
			for j < len(src) && src[j] == '=' {
				j++
			}
			if j < len(src) && src[j] == ']' && j-i-1 == level {
				return j + 1, ln
			}
		}
		i++
	}
	return i, ln
}

func isIdentStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || ('0' <= c && c <= '9') }

// astDepth measures how deeply statements and expressions nest in a parsed chunk,
// which sourceNesting cannot see: a chain of 50,000 binary operators has no brackets,
// yet compiles in quadratic time. It walks the tree by reflection, so that it covers
// every node type of gopher-lua's ast package, and stops as soon as limit is passed.
func astDepth(chunk []ast.Stmt, limit int) (depth, line int) {
	var walk func(v reflect.Value, d int)
	walk = func(v reflect.Value, d int) {
		if depth > limit {
			return
		}
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			if v.IsNil() {
				return
			}
			if n, ok := v.Interface().(interface{ Line() int }); ok && v.Kind() == reflect.Pointer {
				d++
				if d > depth {
					depth, line = d, n.Line()
				}
			}
			walk(v.Elem(), d)
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i), d)
				}
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), d)
			}
		}
	}
	walk(reflect.ValueOf(chunk), 0)
	return depth, line
}

func nestingError(name string, line, limit int) *ScriptError {
	return &ScriptError{Pos: srcpos.Pos{File: name, Line: line}, Message: fmt.Sprintf("nesting is deeper than %d levels; split the code into smaller functions", limit)}
}
