package hostmod

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// requiredLiteral returns the longest piece of text every match of re contains (a
// literal that the expression concatenates, case-sensitive), or nil: files without
// it are skipped without running the expression, as ripgrep does with inner
// literals. "func \w+\(ctx context\.Context" gives "(ctx context.Context".
func requiredLiteral(re *regexp.Regexp) []byte {
	prefix, _ := re.LiteralPrefix()
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return usableLiteral(prefix)
	}
	best := longestLiteral(tree.Simplify(), exactText)
	if len(prefix) > len(best) {
		best = prefix
	}
	return usableLiteral(best)
}

// requiredFoldLiteral is requiredLiteral for the case-insensitive pieces of re: the
// longest ASCII text, in lower case, that every match of re contains up to ASCII
// case, or nil. Only letters whose every case is ASCII count (not k or s, which
// (?i) also matches as the Kelvin sign and the long s), so that a search of the
// text folding ASCII letters finds every match. "(?i)errunexpectedeof" gives
// "errunexpectedeof"; "(?i)task queue" gives " queue".
func requiredFoldLiteral(re *regexp.Regexp) []byte {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	return usableLiteral(longestLiteral(tree.Simplify(), asciiFoldText))
}

// requiredAlternatives returns the literals of an alternation that every match goes
// through (the expression, or a part it concatenates), when each branch has a
// required literal: every match contains one of them, so a file holding none is
// skipped. "ErrShortWrite|ErrUnexpectedEOF" (which the parser reads as
// Err(?:ShortWrite|UnexpectedEOF)) gives ShortWrite and UnexpectedEOF; nil when no
// such alternation has a literal in every branch.
func requiredAlternatives(re *regexp.Regexp) [][]byte {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	var find func(t *syntax.Regexp) [][]byte
	find = func(t *syntax.Regexp) [][]byte {
		switch t.Op {
		case syntax.OpCapture, syntax.OpPlus:
			return find(t.Sub[0])
		case syntax.OpConcat:
			for _, sub := range t.Sub {
				if lits := find(sub); lits != nil {
					return lits
				}
			}
		case syntax.OpAlternate:
			var out [][]byte
			for _, branch := range t.Sub {
				lit := usableLiteral(longestLiteral(branch, exactText))
				if lit == nil {
					return nil
				}
				out = append(out, lit)
			}
			return out
		}
		return nil
	}
	return find(tree.Simplify())
}

// longestLiteral returns the longest text that text finds in a literal every match
// of t contains, "" when it finds none.
func longestLiteral(t *syntax.Regexp, text func(lit *syntax.Regexp) string) string {
	best := ""
	var visit func(t *syntax.Regexp)
	visit = func(t *syntax.Regexp) {
		switch t.Op {
		case syntax.OpLiteral:
			if s := text(t); len(s) > len(best) {
				best = s
			}
		case syntax.OpConcat:
			for _, sub := range t.Sub {
				visit(sub)
			}
		case syntax.OpCapture, syntax.OpPlus: // once at least
			visit(t.Sub[0])
		}
	}
	visit(t)
	return best
}

// exactText is the text of a case-sensitive literal, "" for a case-folded one.
func exactText(lit *syntax.Regexp) string {
	if lit.Flags&syntax.FoldCase != 0 {
		return ""
	}
	return string(lit.Rune)
}

// asciiFoldText is the longest run of a literal's runes that are ASCII and fold to
// ASCII only, in lower case.
func asciiFoldText(lit *syntax.Regexp) string {
	best, start := "", 0
	for i := 0; i <= len(lit.Rune); i++ {
		if i < len(lit.Rune) && asciiFoldOnly(lit.Rune[i]) {
			continue
		}
		if i-start > len(best) {
			best = strings.ToLower(string(lit.Rune[start:i]))
		}
		start = i + 1
	}
	return best
}

// asciiFoldOnly reports whether r and every rune that case-folds to it are ASCII.
func asciiFoldOnly(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// usableLiteral returns lit as bytes, or nil when it is empty or holds U+FFFD, which
// in a pattern matches any invalid byte: its bytes need not be there.
func usableLiteral(lit string) []byte {
	if lit == "" || strings.ContainsRune(lit, utf8.RuneError) {
		return nil
	}
	return []byte(lit)
}

// A foldFinder finds a lower-case ASCII text in data up to ASCII case. It looks for
// one byte of the text (its pivot, the one least common in source code), in both
// cases, with bytes.IndexByte, and compares the text around each.
type foldFinder struct {
	text  []byte
	pivot int     // index in text of the byte looked for
	cases [2]byte // its two cases (the same byte twice for one without case)
}

// commonBytes ranks bytes by how common they are in source code, most common first;
// a byte not listed is rarer than all these.
const commonBytes = " \tetaoinsrlcdhupmf.(),_gbywv=\"':;0123456789-*/{}[]<>kx+&|!#qjz"

func newFoldFinder(text []byte) *foldFinder {
	f := &foldFinder{text: text}
	rank := func(b byte) int {
		if i := strings.IndexByte(commonBytes, b); i >= 0 {
			return i
		}
		return len(commonBytes)
	}
	for i, b := range text {
		if rank(b) > rank(text[f.pivot]) {
			f.pivot = i
		}
	}
	b := text[f.pivot]
	f.cases = [2]byte{b, b}
	if 'a' <= b && b <= 'z' {
		f.cases[1] = b - 'a' + 'A'
	}
	return f
}

// A foldScan is a search of one content for a foldFinder's text, from offsets that
// never decrease: it keeps where each case of the pivot comes next, so that no byte
// is scanned twice for one case.
type foldScan struct {
	f    *foldFinder
	data []byte
	next [2]int // offset of the next byte of each case at or after the last search's start; -1 none; -2 not searched
}

func (f *foldFinder) scan(data []byte) foldScan {
	return foldScan{f: f, data: data, next: [2]int{-2, -2}}
}

// index returns the offset of the first occurrence of the text at or after off, -1
// when there is none.
func (s *foldScan) index(off int) int {
	f, data := s.f, s.data
	for at := off + f.pivot; at < len(data); {
		p := -1
		for c := range s.next {
			if c == 1 && f.cases[1] == f.cases[0] {
				break
			}
			if s.next[c] != -1 && s.next[c] < at {
				s.next[c] = -1
				if i := bytes.IndexByte(data[at:], f.cases[c]); i >= 0 {
					s.next[c] = at + i
				}
			}
			if s.next[c] >= 0 && (p < 0 || s.next[c] < p) {
				p = s.next[c]
			}
		}
		if p < 0 {
			return -1
		}
		if start := p - f.pivot; start+len(f.text) <= len(data) && equalFoldASCII(data[start:start+len(f.text)], f.text) {
			return start
		}
		at = p + 1
	}
	return -1
}

// equalFoldASCII reports whether b equals the lower-case text lower up to ASCII case.
func equalFoldASCII(b, lower []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
