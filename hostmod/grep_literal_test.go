package hostmod

import (
	"fmt"
	"regexp"
	"slices"
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
	q := &grepQuery{mode: modeContent, re: re, literal: requiredLiteral(re)}
	h, ok := q.searchFile(data)
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
		if _, ok := q.searchFile([]byte(data)); ok != want {
			t.Errorf("search of %q: %v, want %v", data, ok, want)
		}
	}
}
