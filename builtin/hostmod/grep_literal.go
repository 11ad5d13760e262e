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

// requiredFinder returns the finder of the text every match of re contains: its
// required literal, or without one its required text up to ASCII case; nil when
// there is neither.
func requiredFinder(re *regexp.Regexp) *literalFinder {
	if lit := requiredLiteral(re); lit != nil {
		return newLiteralFinder(lit, false)
	}
	if lit := requiredFoldLiteral(re); lit != nil {
		return newLiteralFinder(lit, true)
	}
	return nil
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

// A literalFinder finds a text in data, exactly or (fold) up to ASCII case, the
// text being in lower case. It looks for one byte of the text, its pivot (the one
// least common in source code), with bytes.IndexByte, in both cases when folding,
// and compares the text around each: fewer stops than bytes.Index makes at a
// common first byte ("f" of "func main").
type literalFinder struct {
	text  []byte
	fold  bool
	pivot int     // index in text of the byte looked for
	cases [2]byte // its two cases (the same byte twice without fold or case)
}

// commonBytes ranks the bytes by their frequency in the text files of the Go source
// tree, most common first; a byte not listed is rarer than all these.
const commonBytes = " et\t0rn\naiso,xlcfdu1.p/()m2:g\"h=b4S3_6TAEy{}Rv8OCI\\5PD9M7kXLwVFNB-[]U*"

func newLiteralFinder(text []byte, fold bool) *literalFinder {
	f := &literalFinder{text: text, fold: fold}
	rank := func(b byte) int { // the rank of the more common case, when folding
		r := strings.IndexByte(commonBytes, b)
		if fold && 'a' <= b && b <= 'z' {
			if u := strings.IndexByte(commonBytes, b-'a'+'A'); u >= 0 && (r < 0 || u < r) {
				r = u
			}
		}
		if r < 0 {
			return len(commonBytes)
		}
		return r
	}
	for i, b := range text {
		if rank(b) > rank(text[f.pivot]) {
			f.pivot = i
		}
	}
	b := text[f.pivot]
	f.cases = [2]byte{b, b}
	if fold && 'a' <= b && b <= 'z' {
		f.cases[1] = b - 'a' + 'A'
	}
	return f
}

// A literalScan is a search of one content for a literalFinder's text, from offsets
// that never decrease: it keeps where each case of the pivot comes next, so that no
// byte is scanned twice for one case. An exact search that stops too often at its
// pivot without finding the text goes on with bytes.Index.
type literalScan struct {
	f     *literalFinder
	data  []byte
	next  [2]int // offset of the next byte of each case at or after the last search's start; -1 none; -2 not searched
	fails int
}

func (f *literalFinder) scan(data []byte) literalScan {
	return literalScan{f: f, data: data, next: [2]int{-2, -2}}
}

// index returns the offset of the first occurrence of the text at or after off, -1
// when there is none.
func (s *literalScan) index(off int) int {
	f, data := s.f, s.data
	for at := off + f.pivot; at < len(data); {
		if !f.fold && s.fails > 16+(at>>4) { // more than one stop in 16 bytes, as bytes.Index allows
			if i := bytes.Index(data[off:], f.text); i >= 0 {
				return off + i
			}
			return -1
		}
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
		if start := p - f.pivot; start+len(f.text) <= len(data) && s.equal(data[start:start+len(f.text)]) {
			return start
		}
		s.fails++
		at = p + 1
	}
	return -1
}

func (s *literalScan) equal(b []byte) bool {
	if !s.f.fold {
		return bytes.Equal(b, s.f.text)
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s.f.text[i] {
			return false
		}
	}
	return true
}
