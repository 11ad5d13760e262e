package hostmod

import (
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
