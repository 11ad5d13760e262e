package spell

import (
	"strings"
	"testing"
)

func TestSuggest(t *testing.T) {
	cands := []string{"Read", "Write", "Grep", "Glob", "Bash"}
	tests := []struct{ in, want string }{
		{"Reed", "Read"},
		{"grep", "Grep"},
		{"Glb", "Glob"},
		{"WebFetch", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Suggest(tt.in, cands); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Suggest("x", nil); got != "" {
		t.Errorf("Suggest with no candidates = %q", got)
	}
}

// A name far longer than every candidate is not compared character by character:
// a client's name of a megabyte costs a count, not a table of a million rows.
func TestSuggestSkipsFarLengths(t *testing.T) {
	huge := strings.Repeat("Reed", 1<<18)
	allocs := testing.AllocsPerRun(1, func() {
		if s := Suggest(huge, []string{"Read", "Write", "Edit"}); s != "" {
			t.Errorf("suggested %q for a megabyte name", s)
		}
	})
	if allocs > 10 {
		t.Errorf("%v allocations for one suggestion", allocs)
	}
	if s := Suggest("Raed", []string{"Read", strings.Repeat("x", 100)}); s != "Read" {
		t.Errorf("Raed: %q", s)
	}
}
