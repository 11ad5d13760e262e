package hostmod

import (
	"strings"
	"testing"
)

// The errors are ripgrep 14.1.1's (the one Claude Code 2.1.328 runs), as it printed
// them for these patterns.
func TestRustDialectErrors(t *testing.T) {
	cases := []struct{ pattern, caret, msg string }{
		{"(abc", "^", "unclosed group"},
		{"((a)", "^", "unclosed group"},
		{`ab\`, "^", "unclosed group"},
		{"abc)", "       ^", "unopened group"},
		{"a)b)", "      ^", "unopened group"},
		{"[abc", "   ^", "unclosed character class"},
		{"[]", "   ^^", "unclosed character class"},
		{"[^]", "   ^^^", "unclosed character class"},
		{"[a[b", "     ^", "unclosed character class"},
		{"foo(?=bar)", "      ^^^", "look-around, including look-ahead and look-behind, is not supported"},
		{"(?<=foo)bar", "   ^^^^", "look-around, including look-ahead and look-behind, is not supported"},
		{`(abc)\1`, "        ^^", "backreferences are not supported"},
		{`\101`, "   ^^", "backreferences are not supported"},
		{`\0`, "   ^^", "backreferences are not supported"},
		{"a{3,1}", "    ^^^^^", "invalid repetition count range, the start must be <= the end"},
		{`\w{2,1}`, "     ^^^^^", "invalid repetition count range, the start must be <= the end"},
		{"*abc", "   ^", "repetition operator missing expression"},
		{"a|*", "     ^", "repetition operator missing expression"},
		{"{2}", "   ^", "repetition operator missing expression"},
		{"(?)", "    ^", "repetition operator missing expression"},
		{"x{", "     ^", "repetition quantifier expects a valid decimal"},
		{"x{,3}", "     ^", "repetition quantifier expects a valid decimal"},
		{"x{2,", "       ^", "repetition quantifier expects a valid decimal"},
		{"x{2", "    ^^", "unclosed counted repetition"},
		{`\y`, "   ^^", "unrecognized escape sequence"},
		{`\Qa.b\E`, "   ^^", "unrecognized escape sequence"},
		{`\e`, "   ^^", "unrecognized escape sequence"},
		{"(?z)foo", "     ^", "unrecognized flag"},
		{"(?#c)", "     ^", "unrecognized flag"},
		{"(?P<1>x)", "       ^", "invalid capture group character"},
		{`\p{Greek`, "            ^", "incomplete escape sequence, reached end of pattern prematurely"},
	}
	for _, c := range cases {
		_, err := rustDialect(c.pattern)
		want := "regex parse error:\n    (?:" + c.pattern + ")\n    " + c.caret + "\nerror: " + c.msg
		if strings.HasPrefix(c.msg, "look-around") || strings.HasPrefix(c.msg, "backreferences") {
			want += pcre2Hint
		}
		if err == nil || err.Error() != want {
			t.Errorf("rustDialect(%q) = %v\nwant %s", c.pattern, err, want)
		}
	}
}

// What Rust reads as Go does passes unchanged; what it spells otherwise is
// translated; what Go's parser refuses after that is worded as ripgrep words it.
func TestRustDialectTranslation(t *testing.T) {
	cases := []struct{ pattern, want string }{
		{`func\s+\w+\(`, `func[` + unicodeSpace + `]+[` + unicodeWord + `]+\(`},
		{`\d\D\W[\w\d-]`, `[\p{Nd}]\P{Nd}[^` + unicodeWord + `][` + unicodeWord + `\p{Nd}-]`},
		{`(?i)foo|bar{2,}x{1, 3}`, `(?i)foo|bar{2,}x{1,3}`},
		{`(?<n>a)(?P<m>b)`, `(?P<n>a)(?P<m>b)`},
		{`(?u:x)(?u)y`, `(?:x)y`},
		{`\<foo\>`, `\bfoo\b`},
		{`[[:nope:]]`, `[:nope:]`},
		{`[[:alpha:]_]`, `[[:alpha:]_]`},
		{`[a[bc]]`, `[abc]`},
		{`[]a]`, `[]a]`},
		{`\u00e9\U0001F600\u{41}`, `\x{00e9}\x{0001F600}\x{41}`},
		{`\/\:`, `\/\:`},
	}
	for _, c := range cases {
		got, err := rustDialect(c.pattern)
		if err != nil || got != c.want {
			t.Errorf("rustDialect(%q) = %q, %v; want %q", c.pattern, got, err, c.want)
		}
	}
	for pattern, want := range map[string]string{
		`[z-a]`:    "regex parse error:\n    (?:[z-a])\n        ^^^\nerror: invalid character class range, the start must be <= the end",
		`\p{Nope}`: "regex parse error:\n    (?:\\p{Nope})\n       ^^^^^^^^\nerror: Unicode property not found",
	} {
		_, err := compilePattern(pattern, false, false)
		if err == nil || err.Error() != want {
			t.Errorf("compilePattern(%q) = %v\nwant %s", pattern, err, want)
		}
	}
}

// What Rust takes and Go cannot search for is refused as luatool's limit, not
// worded as ripgrep's error, and never searched for in another sense.
func TestRustDialectUnsupported(t *testing.T) {
	for pattern, want := range map[string]string{
		`[a-z&&[^aeiou]]`: "the class set operations &&, -- and ~~ are not supported",
		`[a[^b]]`:         "a negated class inside a class is not supported",
		`\<(x)`:           `\< is supported only next to a letter, digit or _ of the pattern`,
		`\b{start}x`:      `\b{...} boundaries are not supported; use \b`,
		`a{2000}`:         "invalid repeat count: `{2000}`",
		`fo**`:            "invalid nested repetition operator: `**`",
	} {
		_, err := compilePattern(pattern, false, false)
		oe, ok := err.(*opError)
		if !ok || oe.code != codeUnsupported || !strings.HasSuffix(oe.msg, ": "+want) ||
			!strings.HasPrefix(oe.msg, "luatool's regular expression engine (Go's RE2) cannot search for \""+strings.ReplaceAll(pattern, `\`, `\\`)+"\"") {
			t.Errorf("compilePattern(%q) = %#v, want code unsupported and %q", pattern, err, want)
		}
	}
}

// \w, \d and \s are Unicode's, as in ripgrep.
func TestRustDialectUnicodeClasses(t *testing.T) {
	re, err := compilePattern(`\w+ \d`, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := re.FindString("-- Élan٣ ٣"); got != "Élan٣ ٣" {
		t.Errorf(`\w+ \d found %q in "-- Élan٣ ٣", want "Élan٣ ٣"`, got)
	}
	re, err = compilePattern(`a\sb`, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if !re.MatchString("a\u00a0b") {
		t.Error(`\s does not match a no-break space`)
	}
}
