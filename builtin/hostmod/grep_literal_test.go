package hostmod

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestRequiredLiteral(t *testing.T) {
	for pattern, want := range map[string]string{
		`func \w+\(ctx context\.Context`: "(ctx context.Context",
		`ErrUnexpectedEOF`:               "ErrUnexpectedEOF",
		`^package (main|foo)$`:           "package ",
		`a|bcd`:                          "",
		`(?i)Hello`:                      "",
		`x+yz`:                           "yz",
		`(abc)+`:                         "abc",
		`\d+`:                            "",
	} {
		if got := string(requiredLiteral(regexp.MustCompile(pattern))); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", pattern, got, want)
		}
	}
}

// TestSearchFileLiteralLines checks the line numbers of a search that jumps from one
// occurrence of the required literal to the next: lines holding the literal but not
// matching, several occurrences on one line, CRLF endings and a last line without a
// newline.
func TestSearchFileLiteralLines(t *testing.T) {
	data := []byte("zero\nfunc main() {}\r\nfunc mainly\nx\nfunc main func main\n\nfunc main")
	re := regexp.MustCompile(`func main\b`)
	q := &grepQuery{mode: modeContent, re: re, find: requiredFinder(re)}
	h, ok := q.searchFile(data, false)
	if !ok {
		t.Fatal("no match")
	}
	var got []int
	for _, g := range h.groups {
		for _, l := range g {
			if l.match {
				got = append(got, l.n)
			}
		}
	}
	if want := []int{2, 5, 7}; !slices.Equal(got, want) || h.count != 3 {
		t.Errorf("matching lines %v (count %d), want %v", got, h.count, want)
	}
}

func TestRequiredAlternatives(t *testing.T) {
	for pattern, want := range map[string]string{
		`ErrShortWrite|ErrUnexpectedEOF`: "[ShortWrite UnexpectedEOF]", // after the common prefix
		`(foo\d+|\w+bar)`:                "[foo bar]",
		`foo|\d+`:                        "[]", // a branch with no literal
		`foo|`:                           "[]",
		`(?i)foo|bar`:                    "[]", // case-folded: no byte literal
		`func main`:                      "[]", // no alternation
	} {
		var got []string
		for _, lit := range requiredAlternatives(regexp.MustCompile(pattern)) {
			got = append(got, string(lit))
		}
		if s := fmt.Sprint(got); s != want {
			t.Errorf("requiredAlternatives(%q) = %s, want %s", pattern, s, want)
		}
	}
	// A file holding none of the literals is skipped; one holding either is searched.
	re := regexp.MustCompile(`ErrShortWrite|ErrUnexpectedEOF`)
	q := &grepQuery{mode: modeFiles, re: re, anyOf: requiredAlternatives(re)}
	for data, want := range map[string]bool{"x ErrUnexpectedEOF\n": true, "ErrShortWrite": true, "io.EOF\n": false} {
		if _, ok := q.searchFile([]byte(data), false); ok != want {
			t.Errorf("search of %q: %v, want %v", data, ok, want)
		}
	}
}

func TestRequiredFoldLiteral(t *testing.T) {
	for pattern, want := range map[string]string{
		`(?i)ErrUnexpectedEOF`:   "errunexpectedeof",
		`(?i)task queue`:         " queue", // k folds to the Kelvin sign, s to the long s
		`(?i)func \w+\(ctx`:      "func ",
		`(?i)(?:abc)+x`:          "abc",
		`(?i)é`:                  "",
		`(?i)a|bcd`:              "",
		`(?i)\d+`:                "",
		`Hello`:                  "hello", // a case-sensitive literal holds its folded text
		`(?i)k`:                  "",
		`(?i)[0-9]+ errors? in `: " error",
	} {
		if got := string(requiredFoldLiteral(regexp.MustCompile(pattern))); got != want {
			t.Errorf("requiredFoldLiteral(%q) = %q, want %q", pattern, got, want)
		}
	}
}

// TestLiteralScan: a literalScan finds what a regular expression of its text finds
// first (case-insensitive when it folds), from each offset in turn, over texts with
// the pivot in either case, near misses, overlaps, the text at both ends, and a
// content that stops an exact search at its pivot often enough to go on with
// bytes.Index.
func TestLiteralScan(t *testing.T) {
	texts := []string{"errunexpectedeof", "ErrUnexpectedEOF", "a.b", "xx", "q", "UUUUx"}
	contents := []string{
		"", "x", "ErrUnexpectedEOF", "errUNEXPECTEDeof and ERRUNEXPECTEDEOF", "errunexpectedeo", "rrunexpectedeof",
		"A.B a.b a_b A.b.", "xXxXx", "XX", "Qq", "the end: errunexpectedEOF", "Xerrunexpectedeox errunexpectedeofX",
		strings.Repeat("U", 3000) + "x" + strings.Repeat("UUUX", 100) + "UUUUx",
	}
	for _, text := range texts {
		for _, fold := range []bool{false, true} {
			if fold && strings.ToLower(text) != text {
				continue
			}
			f := newLiteralFinder([]byte(text), fold)
			expr := regexp.QuoteMeta(text)
			if fold {
				expr = "(?i)" + expr
			}
			re := regexp.MustCompile(expr)
			for _, content := range contents {
				data := []byte(content)
				s := f.scan(data)
				for off := 0; off <= len(data); off++ {
					want := -1
					if loc := re.FindIndex(data[off:]); loc != nil {
						want = off + loc[0]
					}
					if got := s.index(off); got != want {
						t.Fatalf("text %q (fold %v) in %.40q from %d: %d, want %d", text, fold, content, off, got, want)
					}
				}
			}
		}
	}
}

// TestSearchFileFoldLiteral: a case-insensitive search skips a file without the
// folded text and finds every line that holds it in any case.
func TestSearchFileFoldLiteral(t *testing.T) {
	re := regexp.MustCompile(`(?i)errunexpectedeof`)
	q := &grepQuery{mode: modeContent, re: re, find: requiredFinder(re)}
	if _, ok := q.searchFile([]byte("io.EOF\nerr unexpected eof\n"), false); ok {
		t.Error("a file without the text matched")
	}
	h, ok := q.searchFile([]byte("ErrUnexpectedEOF\nx\nerrunexpectedeof\r\nERRUNEXPECTEDEOF"), false)
	if !ok || h.count != 3 || len(h.groups) != 2 || h.groups[0][0].n != 1 || len(h.groups[1]) != 2 || h.groups[1][1].n != 4 {
		t.Errorf("got %+v, %v", h, ok)
	}
}
