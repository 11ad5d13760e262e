package hostmod

import (
	"strings"
)

// The table: the programs whose words are a little language (sed, jq, test and [,
// echo, printf), each read by a parser of its own.

func init() {
	register(
		&program{name: "sed", opts: strictOptionSet(false, false, "-n --quiet --silent",
			"-E -r --regexp-extended", "-z", "--posix", "-e --expression=SCRIPT !", "-f --file=FILE !",
			"-i --in-place !", "-s --separate !", "-l --line-length=N !", "-u --unbuffered !", "--debug !",
			"--sandbox !", "--follow-symlinks !", "--null-data !", "-b --binary !"),
			operands: sedOperands,
			note:     "two forms only, the original's: with -n, scripts of p commands (p, 5p, 1,5p joined by ;) on any files; without it, one s/RE/TEXT/ with the flags g, p, i, I, m, M and a number, on the standard input only. The script is parsed as GNU sed parses it too; e, r, R, w and W never pass"},
		&program{name: "jq", check: jqCheck,
			note: "a parser of its own (jq's, full option names only): options before the filter, which is required; -f, -L, --rawfile and --slurpfile are not read-only, nor a word naming env, $ENV, include, import, modulemeta, get_search_list or system"},
		&program{name: "test", check: testCheck,
			note: "-v and -R are not read-only (bash evaluates an array subscript in their operand), nor -a, -o or an argument holding a [; the operands of -eq, -ne, -lt, -le, -gt, -ge and -t must be numbers"},
		&program{name: "[", check: testCheck, note: "as test, with a final ]"},
		withGlobs(&program{name: "echo", check: func(*argvCheck) bool { return true }, note: "any words"}),
		&program{name: "printf", check: printfCheck,
			note: "-v is not read-only; a format with a $ is refused; one with a numeric conversion takes numbers only"},
	)
}

// sedOperands: the original's two read-only forms of sed (see the table's note),
// the script also parsed as GNU sed parses it (sedScript).
func sedOperands(c *argvCheck, operands []string) bool {
	if len(operands) == 0 {
		return c.refuse("sed")
	}
	script, files := operands[0], operands[1:]
	if !sedScript(script) {
		return c.refuse(script)
	}
	if c.args.has("-n") {
		for _, line := range strings.Split(script, ";") {
			if !sedPrintLine(strings.TrimSpace(line)) {
				return c.refuse(script)
			}
		}
		return readsOperands(c, files)
	}
	if len(files) > 0 || c.args.has("-z") || !sedSubstitution(strings.TrimSpace(script)) {
		return c.refuse(script)
	}
	return true
}

// sedPrintLine reports whether a sed command is p with an optional line or range
// of line numbers: p, 5p, 1,5p.
func sedPrintLine(s string) bool {
	s, ok := strings.CutSuffix(s, "p")
	if !ok {
		return false
	}
	a, b, ranged := strings.Cut(s, ",")
	digits := func(x string) bool { return x != "" && strings.Trim(x, "0123456789") == "" }
	return s == "" || !ranged && digits(a) || ranged && digits(a) && digits(b)
}

// sedSubstitution reports whether a sed command is s/RE/TEXT/FLAGS with / as the
// delimiter (exactly two more unescaped), FLAGS among g, p, i, I, m, M and one
// digit.
func sedSubstitution(s string) bool {
	rest, ok := strings.CutPrefix(s, "s/")
	if !ok {
		return false
	}
	slashes, last := 0, -1
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++
		case '/':
			slashes, last = slashes+1, i
		}
	}
	if slashes != 2 {
		return false
	}
	digits := 0
	for _, f := range rest[last+1:] {
		switch {
		case strings.ContainsRune("gpimIM", f):
		case f >= '1' && f <= '9':
			digits++
		default:
			return false
		}
	}
	return digits <= 1
}

// A sedParser reads a sed script as GNU sed's compiler does, far enough to know
// every command and flag it holds.
type sedParser struct {
	s string
	i int
}

func (p *sedParser) eof() bool { return p.i >= len(p.s) }
func (p *sedParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

// skipBlanks skips spaces and tabs (not newlines).
func (p *sedParser) skipBlanks() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// sedScript reports whether a GNU sed script only reads its input and prints: every
// command is one of the allowed ones, and no s command writes or executes. Anything
// the parser does not understand makes it false.
func sedScript(script string) bool {
	p := &sedParser{s: script}
	for {
		for !p.eof() && (p.peek() == ';' || p.peek() == '\n' || p.peek() == ' ' || p.peek() == '\t') {
			p.i++
		}
		if p.eof() {
			return true
		}
		if p.peek() == '#' {
			p.skipLine()
			continue
		}
		if !p.address() {
			return false
		}
		p.skipBlanks()
		if p.peek() == ',' {
			p.i++
			p.skipBlanks()
			if !p.address() {
				return false
			}
			p.skipBlanks()
		}
		if p.peek() == '!' {
			p.i++
			p.skipBlanks()
		}
		if p.eof() {
			return false
		}
		cmd := p.s[p.i]
		p.i++
		switch cmd {
		case '{':
			continue
		case '}', '=', 'd', 'D', 'F', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z':
		case 'q', 'Q', 'l', 'L':
			p.skipBlanks()
			for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
				p.i++
			}
		case ':', 'b', 't', 'T', 'v':
			p.skipBlanks()
			for !p.eof() && !strings.ContainsRune("; \t\n", rune(p.peek())) {
				p.i++
			}
		case 'a', 'i', 'c':
			p.text()
			continue
		case 's':
			if !p.substitute() {
				return false
			}
			continue
		case 'y':
			d, ok := p.delimiter()
			if !ok || !p.delimited(d, false) || !p.delimited(d, false) {
				return false
			}
		default:
			// e, r, R, w, W and anything unknown
			return false
		}
		if !p.endOfCommand() {
			return false
		}
	}
}

// skipLine skips to the end of the line.
func (p *sedParser) skipLine() {
	for !p.eof() && p.peek() != '\n' {
		p.i++
	}
}

// endOfCommand accepts what may follow a command: blanks, then the end, ;, a
// newline, } or a comment.
func (p *sedParser) endOfCommand() bool {
	p.skipBlanks()
	switch p.peek() {
	case 0, ';', '\n':
		if !p.eof() {
			p.i++
		}
		return true
	case '}', '#':
		return true
	}
	return false
}

// address reads an optional address: a line number (with ~step), $, +N or ~N, or a
// regular expression /re/ or \cREc with its I and M flags.
func (p *sedParser) address() bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9', c == '+' || c == '~':
		p.i++
		for !p.eof() && (p.peek() >= '0' && p.peek() <= '9' || p.peek() == '~') {
			p.i++
		}
	case c == '$':
		p.i++
	case c == '/' || c == '\\':
		d := byte('/')
		if c == '\\' {
			p.i++
			if p.eof() || p.peek() == '\n' {
				return false
			}
			d = p.peek()
		}
		p.i++
		if !p.delimited(d, true) {
			return false
		}
		for p.peek() == 'I' || p.peek() == 'M' {
			p.i++
		}
	}
	return true
}

// delimiter reads the delimiter of an s or y command: any character but a newline
// or a backslash.
func (p *sedParser) delimiter() (byte, bool) {
	if p.eof() || p.peek() == '\n' || p.peek() == '\\' {
		return 0, false
	}
	d := p.peek()
	p.i++
	return d, true
}

// delimited skips a part ended by the delimiter d: a backslash escapes the next
// character, and in a regular expression (regex) a bracket expression runs to its
// closing ], the delimiter inside it being an ordinary character, as GNU sed reads
// it. A newline or the end first is an unterminated command.
func (p *sedParser) delimited(d byte, regex bool) bool {
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == '\\':
			p.i += 2
			continue
		case c == '\n':
			return false
		case c == d:
			p.i++
			return true
		case regex && c == '[':
			if !p.bracket() {
				return false
			}
			continue
		}
		p.i++
	}
	return false
}

// bracket skips a bracket expression: an optional ^, a ] first is a member, classes
// [:x:], [=x=] and [.x.] hold their own ], backslashes are ordinary.
func (p *sedParser) bracket() bool {
	p.i++ // [
	if p.peek() == '^' {
		p.i++
	}
	if p.peek() == ']' {
		p.i++
	}
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == '\n':
			return false
		case c == ']':
			p.i++
			return true
		case c == '[' && p.i+1 < len(p.s) && strings.IndexByte(":=.", p.s[p.i+1]) >= 0:
			end := strings.Index(p.s[p.i+2:], string(p.s[p.i+1])+"]")
			if end < 0 {
				return false
			}
			p.i += 2 + end + 2
			continue
		}
		p.i++
	}
	return false
}

// substitute reads the rest of an s command: the regular expression, the
// replacement, then flags among g, p, i, I, m, M and digits (blanks between them
// allowed, as GNU sed allows); w and e are not read-only.
func (p *sedParser) substitute() bool {
	d, ok := p.delimiter()
	if !ok || !p.delimited(d, true) || !p.delimited(d, false) {
		return false
	}
	for !p.eof() {
		switch c := p.peek(); {
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || c == ' ' || c == '\t' ||
			c >= '0' && c <= '9':
			p.i++
		case c == ';' || c == '\n':
			p.i++
			return true
		case c == '}' || c == '#':
			return true
		default:
			return false
		}
	}
	return true
}

// text skips the text of an a, i or c command: to the end of the line, a backslash
// escaping the next character (a newline too, which continues the text).
func (p *sedParser) text() {
	for !p.eof() {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '\n':
			p.i++
			return
		}
		p.i++
	}
}

// jqOptions are jq's options as it reads them: full names only, short ones
// clustered; --arg and --argjson take two words, --indent one.
var jqOptions = newOptionSet(exactSyntax, false,
	"-n --null-input", "-r --raw-output", "-j --join-output", "-a --ascii-output", "-s --slurp",
	"-c --compact-output", "-C --color-output", "-M --monochrome-output", "-S --sort-keys",
	"-e --exit-status", "-R --raw-input", "--tab", "--indent", "--seq", "--stream", "--stream-errors",
	"--unbuffered", "--raw-output0", "-h --help", "-V --version", "--build-configuration",
	"-f --from-file !", "-L=DIR !", "--rawfile !", "--slurpfile !")

// jqCheck reads jq's command line as the original takes it: options first (full
// names, short ones clustered), then the filter, required, then files, or values
// after --args and --jsonargs; --arg and --argjson take two words, --indent one,
// and once a word that is not an option has come, no option may follow. No word
// may name what jqForbidden holds.
func jqCheck(c *argvCheck) bool {
	args := c.argv[1:]
	var operands []string
	positional, words := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !jqFilter(a) {
			return c.refuse(a)
		}
		switch {
		case a == "--arg" || a == "--argjson":
			if words || i+2 >= len(args) {
				return c.refuse(a)
			}
			i += 2
			words = true
		case a == "--indent":
			if words || i+1 >= len(args) {
				return c.refuse(a)
			}
			i++
			words = true
		case a == "--args" || a == "--jsonargs":
			if words {
				return c.refuse(a)
			}
			positional = true
		case strings.HasPrefix(a, "-") && a != "-":
			if _, _, ok := jqOptions.parse([]string{a}); !ok || words {
				return c.refuse(a)
			}
		default:
			operands = append(operands, a)
			words = true
		}
	}
	if len(operands) == 0 {
		return c.refuse("jq")
	}
	if !positional {
		readsOperands(c, operands[1:])
	}
	return true
}

// jqForbidden are the names a jq filter may not hold: the environment (which
// holds what the host passes commands) and the functions that load or list module
// files.
var jqForbidden = map[string]bool{"env": true, "ENV": true, "include": true, "import": true,
	"modulemeta": true, "get_search_list": true, "system": true}

// jqFilter reports whether a filter holds none of jqForbidden as a word (strings
// included: a name in a string is refused too, which only refuses more).
func jqFilter(f string) bool {
	isWord := func(b byte) bool {
		return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
	}
	for i := 0; i < len(f); {
		if !isWord(f[i]) {
			i++
			continue
		}
		j := i
		for j < len(f) && isWord(f[j]) {
			j++
		}
		if jqForbidden[f[i:j]] {
			return false
		}
		i = j
	}
	return true
}

// testFileOps are test's unary operators on a file, whose operand it reads (its
// metadata); testFileBinary compare two files.
var (
	testFileOps    = map[string]bool{"-b": true, "-c": true, "-d": true, "-e": true, "-f": true, "-g": true, "-G": true, "-h": true, "-k": true, "-L": true, "-N": true, "-O": true, "-p": true, "-r": true, "-s": true, "-S": true, "-u": true, "-w": true, "-x": true}
	testFileBinary = map[string]bool{"-nt": true, "-ot": true, "-ef": true}
	testIntOps     = map[string]bool{"-eq": true, "-ne": true, "-lt": true, "-le": true, "-gt": true, "-ge": true}
)

// testCheck: test and [ evaluate nothing but -v and -R (bash evaluates an array
// subscript in the variable name: test -v 'a[$(cmd)]' runs cmd); -a, -o and a [ in
// any argument are refused as the original refuses them, and the operands of the
// integer comparisons and of -t must be numbers. The operands of file tests are
// files read.
func testCheck(c *argvCheck) bool {
	args := c.argv[1:]
	if c.argv[0] == "[" {
		if len(args) == 0 || args[len(args)-1] != "]" {
			return c.refuse(c.argv[0])
		}
		args = args[:len(args)-1]
	}
	for i, a := range args {
		switch {
		case a == "-v" || a == "-R" || a == "-a" || a == "-o" || strings.Contains(a, "["):
			return c.refuse(a)
		case testIntOps[a]:
			if i > 0 && !isInteger(args[i-1]) || i+1 < len(args) && !isInteger(args[i+1]) {
				return c.refuse(a)
			}
		case a == "-t":
			if i+1 < len(args) && !isInteger(args[i+1]) {
				return c.refuse(a)
			}
		case testFileOps[a] && i+1 < len(args):
			c.read(args[i+1])
		case testFileBinary[a] && i > 0 && i+1 < len(args):
			c.read(args[i-1], args[i+1])
		}
	}
	return true
}

// isInteger reports whether s is an optionally signed decimal integer.
func isInteger(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// printfCheck: the format and arguments are printed; -v assigns a variable (whose
// name may hold a subscript bash evaluates). When the format converts numbers, the
// arguments must be numbers, and a format with \u escapes is refused, as Claude Code
// refuses them.
func printfCheck(c *argvCheck) bool {
	args := c.argv[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return c.refuse("printf")
	}
	format := args[0]
	if strings.Contains(format, "$") {
		return c.refuse(format)
	}
	if printfConvertsNumbers(format) {
		for _, a := range args[1:] {
			if !isNumber(a) {
				return c.refuse(a)
			}
		}
	}
	return true
}

// printfConvertsNumbers reports whether a printf format has a conversion other than
// %s, %b, %q and %%, or a * width.
func printfConvertsNumbers(f string) bool {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(f) && strings.IndexByte("-+ #0123456789.'", f[j]) >= 0 {
			j++
		}
		if j >= len(f) {
			return true
		}
		switch f[j] {
		case '%':
			if j == i+1 {
				i = j
				continue
			}
			return true
		case 's', 'b', 'q':
			i = j
			continue
		}
		return true
	}
	return false
}

// isNumber reports whether s is a plain number: decimal, hexadecimal or a decimal
// fraction, optionally signed.
func isNumber(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return len(s) > 2 && strings.Trim(s[2:], "0123456789abcdefABCDEF") == ""
	}
	return s != "" && strings.Trim(s, "0123456789.") == "" && strings.Count(s, ".") <= 1 && s != "."
}
