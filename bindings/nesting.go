package bindings

import (
	"fmt"

	"github.com/luatool/luatool/engine/srcpos"
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

func nestingError(name string, line, limit int) *ScriptError {
	return &ScriptError{Pos: srcpos.Pos{File: name, Line: line}, Message: fmt.Sprintf("nesting is deeper than %d levels; split the code into smaller functions", limit)}
}
