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

// Unknown names the first field a shape does not have, in sorted order, and what
// it most likely meant.
func TestUnknown(t *testing.T) {
	allowed := []string{"uri", "mimeType", "text"}
	if k, m := Unknown(map[string]int{"uri": 1, "mimetype": 2, "zzz": 3}, allowed); k != "mimetype" || m != "mimeType" {
		t.Errorf("got %q, %q", k, m)
	}
	if k, m := Unknown(map[string]any{"uri": 1, "text": 2}, allowed); k != "" || m != "" {
		t.Errorf("every key allowed: got %q, %q", k, m)
	}
}
