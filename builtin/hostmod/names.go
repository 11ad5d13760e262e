package hostmod

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tools list file names one a line, and a model reads them back into file_path
// inputs, so a name must survive both ways: one that holds a newline would be read as
// two names, one that holds an escape sequence could recolour a terminal, and bytes
// that are not UTF-8 cannot travel in JSON at all. Such a path is shown as a Go
// double-quoted string instead ("a\nb.txt", "\x1b[31m.log", "caf\xe9.txt"), which
// is printable ASCII escapes and UTF-8 only, and fs.abs reads that form back as the
// name it stands for. Ordinary names are shown as they are.
//
// The reading back needs no file system: a path is taken for the quoted form when it
// starts and ends with a double quote, holds a backslash and is a valid Go string
// literal. Every quoted form has a backslash (it quotes a name only for a character
// it must escape, or for a leading double quote, which it writes as \"), so a real
// name such as `"draft".txt` or `"notes"` still names itself. A name that would
// itself read as a quoted form, such as the seven characters `"a\tb"`, is quoted in
// turn, so that every name, shown, reads back as itself. That the reading depends on
// the text alone matters for permissions: a tool's getPath (path.unquote) and its
// call (fs.abs) then always agree on the file, whatever exists on disk.

// quoteName returns p as tools show it: p itself when it reads back as itself and
// every character is printable (strconv.IsPrint: letters, marks, numbers,
// punctuation, symbols and the ASCII space), otherwise p quoted with strconv.Quote,
// which escapes control characters (\n, \t, \x1b), other unprintable characters
// (\u00a0, \u202e) and each byte that is not UTF-8 (\xff).
func quoteName(p string) string {
	if !needsQuote(p) {
		return p
	}
	return strconv.Quote(p)
}

func needsQuote(p string) bool {
	if unquoteName(p) != p {
		return true
	}
	for i, r := range p {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(p[i:]); size == 1 {
				return true
			}
		}
		if !strconv.IsPrint(r) {
			return true
		}
	}
	return false
}

// unquoteName returns the path s stands for: the name it quotes when s is in the
// quoted form quoteName writes (see above), otherwise s itself.
func unquoteName(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' || !strings.Contains(s, `\`) {
		return s
	}
	name, err := strconv.Unquote(s)
	if err != nil {
		return s
	}
	return name
}
