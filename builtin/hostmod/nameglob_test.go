package hostmod

import (
	"path"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// TestNameGlobShortcuts: the globs newNameGlob matches without doublestar ("**/"
// patterns as names, "*suffix" by the name's end) match what doublestar matches.
func TestNameGlobShortcuts(t *testing.T) {
	paths := []string{"a_test.go", "x/a_test.go", "x/y/a_test.go", "_test.go", "x/.go", "go", "x/a.go.txt", "a.go/b", "x/test.go", "x/a_test.gox", "x/A_TEST.GO"}
	for _, c := range []struct {
		pattern  string
		anchored bool
	}{
		{"*_test.go", false}, {"*.go", false}, {"**/*_test.go", true}, {"**/*.go", true}, {"**/go", true},
		{"x/*.go", true}, {"**/x/*.go", true}, {"*", false}, {"**/**", true}, {"*.{go,txt}", false}, {`*\*`, false},
	} {
		g := newNameGlob(c.pattern, c.anchored)
		for _, rel := range paths {
			subject := rel
			if !c.anchored {
				subject = path.Base(rel)
			}
			want := doublestar.MatchUnvalidated(c.pattern, subject)
			if got := g.match(rel); got != want {
				t.Errorf("%q (anchored %v) on %q: %v, want %v", c.pattern, c.anchored, rel, got, want)
			}
		}
	}
	if g := newNameGlob("**/*_test.go", true); g.anchored || g.suffix != "_test.go" {
		t.Errorf("**/*_test.go: %+v, want the name glob *_test.go by its suffix", g)
	}
}
