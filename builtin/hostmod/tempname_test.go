package hostmod

import (
	"path"
	"regexp"
	"testing"
)

func TestTempName(t *testing.T) {
	shape := regexp.MustCompile(`^src/\.main\.go\.luatool-tmp-[0-9a-f]{16}$`)
	a, b := tempName("src/main.go"), tempName("src/main.go")
	for _, n := range []string{a, b} {
		if !shape.MatchString(n) {
			t.Errorf("tempName(src/main.go) = %q, want .main.go.luatool-tmp-<16 hex> in src", n)
		}
		if !isTempName(path.Base(n)) {
			t.Errorf("isTempName(%q) = false for a name tempName gave", path.Base(n))
		}
	}
	if a == b {
		t.Errorf("two temporary names for one target are the same: %q", a)
	}
	if n := tempName("top.txt"); path.Dir(n) != "." || !isTempName(n) {
		t.Errorf("tempName(top.txt) = %q, want a hidden name beside it", n)
	}
}

func TestIsTempName(t *testing.T) {
	for name, want := range map[string]bool{
		".a.luatool-tmp-0123456789abcdef":          true,
		".main.go.luatool-tmp-fedcba9876543210":    true,
		".a\nb.luatool-tmp-0123456789abcdef":       true,
		"a.luatool-tmp-0123456789abcdef":           false, // not hidden
		"..luatool-tmp-0123456789abcdef":           false, // no target name
		".a.luatool-tmp-0123456789abcde":           false, // 15 digits
		".a.luatool-tmp-0123456789abcdef0":         false, // 17 digits
		".a.luatool-tmp-0123456789ABCDEF":          false, // upper case
		".a.luatool-tmp-0123456789abcdeg":          false,
		".a.tmp-0123456789abcdef":                  false, // fs.write's former naming
		".a.luatool-tmp-0123456789abcdef.txt":      false,
		".luatool-tmp-0123456789abcdef":            false,
		".x.luatool-tmp-0123456789abcdef.luatool-": false,
		"main.go": false,
		"":        false,
	} {
		if got := isTempName(name); got != want {
			t.Errorf("isTempName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestTempNameOf(t *testing.T) {
	for _, c := range []struct {
		name, target string
		want         bool
	}{
		{path.Base(tempName("d/a.txt")), "a.txt", true},
		{".a.txt.luatool-tmp-0123456789abcdef", "a.txt", true},
		{".a.txt.luatool-tmp-0123456789abcdef", "a", false}, // another target's
		{".ab.luatool-tmp-0123456789abcdef", "a", false},
		{"a.txt", "a.txt", false},
	} {
		if got := tempNameOf(c.name, c.target); got != c.want {
			t.Errorf("tempNameOf(%q, %q) = %v, want %v", c.name, c.target, got, c.want)
		}
	}
}
