package hostmod

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ripgrep compiles a pattern with Rust's regex crate, whose syntax is close to Go's
// RE2 but not the same. rustDialect checks a pattern against the Rust syntax before
// Go compiles it, so that what ripgrep refuses is refused with ripgrep's message
// (and what Go would take in another sense, such as \Q...\E or an octal escape,
// is not searched for), and translates the few forms Rust accepts and Go spells
// otherwise. ripgrep parses the pattern wrapped in "(?:" and ")", and its messages
// show it so, with carets under the part at fault.

// A rustSyntaxError is a pattern the Rust syntax refuses: the message and the span
// it points at, in runes of the wrapped pattern.
type rustSyntaxError struct {
	wrapped    []rune
	start, end int
	msg        string
	// unsupported marks a pattern Rust takes and Go's engine cannot search for:
	// luatool's limit, not ripgrep's error.
	unsupported bool
}

// pcre2Hint follows ripgrep's messages about what only its PCRE2 engine supports.
const pcre2Hint = "\n\nConsider enabling PCRE2 with the --pcre2 flag, which can handle backreferences\nand look-around."

// Error returns ripgrep's text, without its "rg: " prefix, or luatool's.
func (e *rustSyntaxError) Error() string {
	if e.unsupported {
		return fmt.Sprintf("luatool's regular expression engine (Go's RE2) cannot search for %q: %s", string(e.wrapped[3:len(e.wrapped)-1]), e.msg)
	}
	caret := strings.Repeat(" ", e.start) + strings.Repeat("^", max(1, e.end-e.start))
	text := fmt.Sprintf("regex parse error:\n    %s\n    %s\nerror: %s", string(e.wrapped), caret, e.msg)
	if strings.HasPrefix(e.msg, "look-around") || strings.HasPrefix(e.msg, "backreferences") {
		text += pcre2Hint
	}
	return text
}

// rustEscapeLetters are the letters Rust accepts after a backslash.
const rustEscapeLetters = "aftnrvxuUdDsSwWpPbBAz"

// A rustScan walks a wrapped pattern once, checking it and writing Go's spelling of
// it.
type rustScan struct {
	r      []rune
	i      int
	out    strings.Builder
	groups []int // the offsets of the open groups' "("
	// empty is set where a repetition operator would have nothing to repeat: at the
	// start of a group or of an alternative.
	empty bool
}

// rustDialect checks pattern against Rust's regex syntax and returns it as Go
// should compile it, or the error ripgrep reports.
func rustDialect(pattern string) (string, error) {
	s := &rustScan{r: []rune("(?:" + pattern + ")")}
	if err := s.scan(); err != nil {
		return "", err
	}
	out := s.out.String()
	return out[len("(?:") : len(out)-1], nil
}

func (s *rustScan) fail(start, end int, msg string) error {
	return &rustSyntaxError{wrapped: s.r, start: start, end: end, msg: msg}
}

// unsupported fails on what Rust takes and Go cannot say.
func (s *rustScan) unsupported(msg string) error {
	return &rustSyntaxError{wrapped: s.r, msg: msg, unsupported: true}
}

func (s *rustScan) peek(k int) rune {
	if s.i+k < len(s.r) {
		return s.r[s.i+k]
	}
	return -1
}

func (s *rustScan) scan() error {
	for s.i < len(s.r) {
		c := s.r[s.i]
		var err error
		switch c {
		case '\\':
			err = s.escape(false)
			s.empty = false
		case '(':
			err = s.open()
		case ')':
			if len(s.groups) == 0 {
				return s.fail(s.i, s.i+1, "unopened group")
			}
			s.groups = s.groups[:len(s.groups)-1]
			s.emit(s.i, s.i+1)
			s.empty = false
		case '[':
			err = s.class()
			s.empty = false
		case '|':
			s.emit(s.i, s.i+1)
			s.empty = true
		case '*', '+', '?':
			if s.empty {
				return s.fail(s.i, s.i+1, "repetition operator missing expression")
			}
			s.emit(s.i, s.i+1)
		case '{':
			if s.empty {
				return s.fail(s.i, s.i+1, "repetition operator missing expression")
			}
			err = s.counted()
		default:
			s.emit(s.i, s.i+1)
			s.empty = false
		}
		if err != nil {
			return err
		}
	}
	if len(s.groups) > 0 {
		g := s.groups[len(s.groups)-1]
		return s.fail(g, g+1, "unclosed group")
	}
	return nil
}

// emit copies runes [from, to) to the output and moves past them.
func (s *rustScan) emit(from, to int) {
	s.out.WriteString(string(s.r[from:to]))
	s.i = to
}

// open reads a group's opening: "(", "(?flags:", "(?flags)", "(?P<name>",
// "(?<name>"; look-around is refused.
func (s *rustScan) open() error {
	start := s.i
	s.groups = append(s.groups, start)
	s.empty = true
	if s.peek(1) != '?' {
		s.emit(start, start+1)
		return nil
	}
	rest := string(s.r[start+2 : min(len(s.r), start+4)])
	switch {
	case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"):
		return s.fail(start, start+3, "look-around, including look-ahead and look-behind, is not supported")
	case rest == "<=" || rest == "<!":
		return s.fail(start, start+4, "look-around, including look-ahead and look-behind, is not supported")
	case s.peek(2) == ')':
		return s.fail(start+1, start+2, "repetition operator missing expression")
	case strings.HasPrefix(rest, "P<"), strings.HasPrefix(rest, "<"):
		return s.name(start)
	}
	s.i = start + 2
	for ; s.i < len(s.r); s.i++ {
		switch c := s.r[s.i]; {
		case c == ':' || c == ')':
			if c == ')' {
				s.groups = s.groups[:len(s.groups)-1] // flags for the rest of the group
			}
			// Unicode mode ("u") is Go's only mode, and not a flag it knows.
			flags := strings.ReplaceAll(string(s.r[start+2:s.i]), "u", "")
			if strings.Trim(flags, "-") == "" {
				flags = ""
			}
			if flags == "" && c == ')' {
				s.i++
				return nil
			}
			s.out.WriteString("(?" + flags + string(c))
			s.i++
			return nil
		case !strings.ContainsRune("imsUuxR-", c):
			return s.fail(s.i, s.i+1, "unrecognized flag")
		}
	}
	return s.fail(len(s.r), len(s.r)+1, "expected flag but got end of regex")
}

// name reads "(?P<name>" or "(?<name>" from start.
func (s *rustScan) name(start int) error {
	i := start + 3
	if s.r[start+2] == 'P' {
		i++
	}
	first := i
	for ; i < len(s.r) && s.r[i] != '>'; i++ {
		c := s.r[i]
		ok := c == '_' || unicode.IsLetter(c) || (i > first && (unicode.IsDigit(c) || c == '.' || c == '[' || c == ']'))
		if !ok {
			return s.fail(i, i+1, "invalid capture group character")
		}
	}
	if i == len(s.r) {
		return s.fail(first, i, "unclosed capture group name")
	}
	if i == first {
		return s.fail(i, i+1, "empty capture group name")
	}
	s.out.WriteString("(?P<" + string(s.r[first:i]) + ">")
	s.i = i + 1
	return nil
}

// counted reads a counted repetition "{n}", "{n,}" or "{n,m}"; spaces may
// surround the numbers, as Rust allows.
func (s *rustScan) counted() error {
	start := s.i
	s.i++
	lo, err := s.decimal()
	if err != nil {
		return err
	}
	hi := lo
	switch s.peek(0) {
	case '}':
	case ',':
		s.i++
		s.spaces()
		hi = -1
		if s.peek(0) != '}' {
			if hi, err = s.decimal(); err != nil {
				return err
			}
		}
		if s.peek(0) != '}' {
			return s.fail(start, s.i, "unclosed counted repetition")
		}
	default:
		return s.fail(start, s.i, "unclosed counted repetition")
	}
	s.i++
	if hi >= 0 && lo > hi {
		return s.fail(start, s.i, "invalid repetition count range, the start must be <= the end")
	}
	switch {
	case hi < 0:
		fmt.Fprintf(&s.out, "{%d,}", lo)
	case hi == lo:
		fmt.Fprintf(&s.out, "{%d}", lo)
	default:
		fmt.Fprintf(&s.out, "{%d,%d}", lo, hi)
	}
	return nil
}

func (s *rustScan) spaces() {
	for s.peek(0) == ' ' {
		s.i++
	}
}

// decimal reads a number of a counted repetition and the spaces after it.
func (s *rustScan) decimal() (int, error) {
	s.spaces()
	start, n := s.i, 0
	for c := s.peek(0); c >= '0' && c <= '9'; c = s.peek(0) {
		n = min(n*10+int(c-'0'), 1<<30)
		s.i++
	}
	if s.i == start {
		return 0, s.fail(s.i, s.i+1, "repetition quantifier expects a valid decimal")
	}
	s.spaces()
	return n, nil
}

// escape reads a backslash escape, in a class or not.
func (s *rustScan) escape(inClass bool) error {
	start := s.i
	c := s.peek(1)
	switch {
	case c < 0:
		return s.fail(start, start+1, "incomplete escape sequence, reached end of pattern prematurely")
	case c >= '0' && c <= '9':
		return s.fail(start, start+2, "backreferences are not supported")
	case c == 'u' || c == 'U':
		return s.unicodeEscape(start, c)
	case c == '<' || c == '>':
		if inClass {
			return s.fail(start, start+2, "unrecognized escape sequence")
		}
		return s.wordBoundary(start, c)
	case c == 'p' || c == 'P':
		return s.property(start)
	case c < 0x80 && (unicode.IsLetter(c) || unicode.IsDigit(c)):
		if !strings.ContainsRune(rustEscapeLetters, c) {
			return s.fail(start, start+2, "unrecognized escape sequence")
		}
		if c == 'b' && s.peek(2) == '{' {
			return s.unsupported(`\b{...} boundaries are not supported; use \b`)
		}
		if class, ok := unicodePerlClass(c, inClass); ok {
			s.out.WriteString(class)
			s.i = start + 2
			return nil
		}
	case c >= 0x80:
		return s.fail(start, start+2, "unrecognized escape sequence")
	}
	s.emit(start, start+2)
	return nil
}

// The members of Rust's \d, \s and \w, which are Unicode's (Go's are ASCII's):
// decimal digits, White_Space, and letters, marks, digits, connector punctuation
// and the joiners.
const (
	unicodeDigit = `\p{Nd}`
	unicodeSpace = `\t\n\v\f\r\x{85}\p{Z}`
	unicodeWord  = `\p{L}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}`
)

// unicodePerlClass returns Go's spelling of Rust's \d, \D, \s, \S, \w or \W (c is
// the letter), inside a class or not; ok is false for another letter, and for \S
// and \W inside a class, which Go cannot unite with the rest of a class: they keep
// Go's ASCII meaning, which differs only on text that is not ASCII.
func unicodePerlClass(c rune, inClass bool) (string, bool) {
	members := map[rune]string{'d': unicodeDigit, 's': unicodeSpace, 'w': unicodeWord}
	switch {
	case c == 'D':
		return `\P{Nd}`, true
	case inClass && members[c] != "":
		return members[c], true
	case inClass:
		return "", false
	case members[c] != "":
		return "[" + members[c] + "]", true
	case members[unicode.ToLower(c)] != "":
		return "[^" + members[unicode.ToLower(c)] + "]", true
	}
	return "", false
}

// property reads \pX or \p{...}: a "{" without its "}" runs to the end.
func (s *rustScan) property(start int) error {
	if s.peek(2) != '{' {
		s.emit(start, min(start+3, len(s.r)))
		return nil
	}
	for i := start + 3; i < len(s.r); i++ {
		if s.r[i] == '}' {
			s.emit(start, i+1)
			return nil
		}
	}
	return s.fail(len(s.r), len(s.r)+1, "incomplete escape sequence, reached end of pattern prematurely")
}

// unicodeEscape reads \uXXXX, \UXXXXXXXX or \u{...}, written for Go as \x{...}.
func (s *rustScan) unicodeEscape(start int, c rune) error {
	digits := 4
	if c == 'U' {
		digits = 8
	}
	i := start + 2
	var hex string
	if s.peek(2) == '{' {
		end := i + 1
		for end < len(s.r) && s.r[end] != '}' {
			end++
		}
		if end == len(s.r) {
			return s.fail(len(s.r), len(s.r)+1, "incomplete escape sequence, reached end of pattern prematurely")
		}
		hex, i = string(s.r[i+1:end]), end+1
	} else {
		for ; i < len(s.r) && i < start+2+digits && strings.ContainsRune("0123456789abcdefABCDEF", s.r[i]); i++ {
		}
		if i < start+2+digits {
			return s.fail(i, i+1, "hexadecimal literal is not a Unicode scalar value")
		}
		hex = string(s.r[start+2 : i])
	}
	s.out.WriteString(`\x{` + hex + `}`)
	s.i = i
	return nil
}

// wordBoundary writes \< (start of a word) or \> (end of a word) as Go's \b where
// that means the same: next to a character of the pattern that is a word
// character. Elsewhere Go cannot say it, and the pattern is refused rather than
// searched for in another sense.
func (s *rustScan) wordBoundary(start int, c rune) error {
	isWord := func(i int) bool {
		return i >= 0 && i < len(s.r) && (s.r[i] == '_' || unicode.IsLetter(s.r[i]) || unicode.IsDigit(s.r[i]))
	}
	if (c == '<' && isWord(start+2)) || (c == '>' && isWord(start-1) && (start < 2 || s.r[start-2] != '\\')) {
		s.out.WriteString(`\b`)
		s.i = start + 2
		s.empty = false
		return nil
	}
	return s.unsupported(`\` + string(c) + " is supported only next to a letter, digit or _ of the pattern")
}

// class reads a bracketed class with the classes nested in it, which Rust unites
// with it and Go does not know: a nested class that is not negated is written
// without its brackets, which means the same; a negated one, and the set
// operations, are refused. A "[:name:]" Go knows is a POSIX class; Rust reads an
// unknown name as a nested class, and so does this.
func (s *rustScan) class() error {
	var open []int
	for s.i < len(s.r) {
		c := s.r[s.i]
		switch {
		case c == '[' && len(open) > 0 && s.posixName():
		case c == '[':
			start := s.i
			open = append(open, start)
			s.i++
			negated := s.peek(0) == '^'
			if negated {
				s.i++
			}
			if s.peek(0) == ']' {
				s.i++ // a "]" first is itself
			}
			switch {
			case len(open) == 1:
				s.emit(start, s.i)
			case negated:
				return s.unsupported("a negated class inside a class is not supported")
			default:
				s.emit(start+1, s.i)
			}
		case c == '\\':
			if err := s.escape(true); err != nil {
				return err
			}
		case c == ']':
			open = open[:len(open)-1]
			if len(open) == 0 {
				s.emit(s.i, s.i+1)
				return nil
			}
			s.i++
		case (c == '&' || c == '~' || c == '-') && s.peek(1) == c && s.peek(2) != ']':
			return s.unsupported("the class set operations &&, -- and ~~ are not supported")
		default:
			s.emit(s.i, s.i+1)
		}
	}
	o := open[len(open)-1]
	end := o + 1
	if end < len(s.r) && s.r[end] == '^' {
		end++
	}
	if end < len(s.r) && s.r[end] == ']' {
		end++
	}
	return s.fail(o, end, "unclosed character class")
}

// posixName reads a POSIX class such as "[:alpha:]" that Go knows, inside a class,
// and reports whether there was one.
func (s *rustScan) posixName() bool {
	rest := string(s.r[s.i:min(len(s.r), s.i+12)])
	if !strings.HasPrefix(rest, "[:") {
		return false
	}
	end := strings.Index(rest[2:], ":]")
	if end < 0 {
		return false
	}
	if _, err := syntax.Parse("["+rest[:2+end+2]+"]", syntax.Perl); err != nil {
		return false
	}
	s.emit(s.i, s.i+len([]rune(rest[:2+end+2])))
	return true
}

// goSyntaxError words an error of Go's parser, met after rustDialect let the
// pattern pass, as ripgrep words the same fault where Rust has it too.
func goSyntaxError(pattern string, err error) error {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return newOpError(codeBadPattern, "regex parse error: %v", err)
	}
	wrapped := "(?:" + pattern + ")"
	at := strings.Index(wrapped, se.Expr)
	if se.Code == syntax.ErrInvalidCharRange && at >= 0 {
		start := utf8.RuneCountInString(wrapped[:at])
		msg := "invalid character class range, the start must be <= the end"
		if strings.HasPrefix(se.Expr, `\p`) || strings.HasPrefix(se.Expr, `\P`) {
			msg = "Unicode property not found"
		}
		return newOpError(codeBadPattern, "%s", &rustSyntaxError{wrapped: []rune(wrapped), start: start, end: start + utf8.RuneCountInString(se.Expr), msg: msg})
	}
	// Rust took the pattern: what Go refuses is luatool's limit (a count over
	// 1000, a repetition of a repetition).
	return newOpError(codeUnsupported, "%s", &rustSyntaxError{wrapped: []rune(wrapped), unsupported: true,
		msg: strings.TrimPrefix(err.Error(), "error parsing regexp: ")})
}
