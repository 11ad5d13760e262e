package hostmod

import (
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// Every type's globs compile, and the names models use most are there.
func TestFileTypes(t *testing.T) {
	types := fileTypes
	for name, globs := range types {
		for _, g := range globs {
			if !doublestar.ValidatePattern(g) {
				t.Errorf("type %s: glob %q does not compile", name, g)
			}
		}
	}
	for _, name := range []string{"go", "py", "python", "js", "ts", "typescript", "rust", "java", "md", "markdown", "yaml", "json", "sh", "c", "cpp", "lua", "docker"} {
		if len(types[name]) == 0 {
			t.Errorf("no type %s", name)
		}
	}
	if len(types) != 206 {
		t.Errorf("%d types, want ripgrep 14.1.1's 206", len(types))
	}
}
