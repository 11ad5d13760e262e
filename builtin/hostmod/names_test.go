package hostmod

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuoteName(t *testing.T) {
	cases := []struct{ name, shown string }{
		{"src/main.go", "src/main.go"},
		{"dir with spaces/café ✓.txt", "dir with spaces/café ✓.txt"},
		{`back\slash.txt`, `back\slash.txt`},
		{`say "hi".txt`, `say "hi".txt`},
		{"a\nb.txt", `"a\nb.txt"`},
		{"tab\there", `"tab\there"`},
		{"\x1b[31mred.log", `"\x1b[31mred.log"`},
		{"nul\x00and del\x7f", `"nul\x00and del\x7f"`},
		{"caf\xe9.txt", `"caf\xe9.txt"`},
		{"nbsp\u00a0x", `"nbsp\u00a0x"`},
		{"rtl\u202etxt.exe", `"rtl\u202etxt.exe"`},
		{"line\u2028sep", `"line\u2028sep"`},
		// A real name with quotes names itself unless it reads as a quoted form:
		// then it is quoted in turn.
		{`"notes"`, `"notes"`},
		{`"draft".txt`, `"draft".txt`},
		{`"a\tb"`, `"\"a\\tb\""`},
		{`"a\qb"`, `"a\qb"`}, // not a valid Go string: it names itself
	}
	for _, c := range cases {
		if got := quoteName(c.name); got != c.shown {
			t.Errorf("quoteName(%q) = %s, want %s", c.name, got, c.shown)
		}
		if got := unquoteName(c.shown); got != c.name {
			t.Errorf("unquoteName(%s) = %q, want %q", c.shown, got, c.name)
		}
	}
}

func TestUnquoteNameAcceptsOtherEscapes(t *testing.T) {
	// A model may spell an escape another way than strconv.Quote does.
	for shown, name := range map[string]string{
		`"a\u000ab"`: "a\nb",
		`"\x41.txt"`: "A.txt",
		`"\101.txt"`: "A.txt",
		`"a\"b"`:     `a"b`,
	} {
		if got := unquoteName(shown); got != name {
			t.Errorf("unquoteName(%s) = %q, want %q", shown, got, name)
		}
	}
	// Not the quoted form: no backslash, an unclosed quote, or a raw newline.
	for _, s := range []string{`""`, `"`, `"x"`, `"a\nb`, "\"a\nb\\t\"", `x"\n"`} {
		if got := unquoteName(s); got != s {
			t.Errorf("unquoteName(%q) = %q, want it unchanged", s, got)
		}
	}
}

// FuzzQuoteName checks the promise of the shown form for any name: it reads back
// as the name, and it is valid UTF-8 of printable characters, with no line break.
func FuzzQuoteName(f *testing.F) {
	for _, s := range []string{"a.go", "a\nb", "\xff\xfe", `"x"`, `"a\tb"`, `"\"`, "\x1b[0m", "\r\n", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		shown := quoteName(name)
		if got := unquoteName(shown); got != name {
			t.Fatalf("quoteName(%q) = %s reads back as %q", name, shown, got)
		}
		if !utf8.ValidString(shown) || strings.ContainsFunc(shown, func(r rune) bool { return !strconv.IsPrint(r) }) {
			t.Fatalf("quoteName(%q) = %q holds a character that is not printable", name, shown)
		}
	})
}
