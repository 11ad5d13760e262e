package spell

import "testing"

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
