package hostmod

import (
	"regexp"
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
