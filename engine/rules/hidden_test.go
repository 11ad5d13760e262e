package rules

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHiddenPathsFromReadDenyRules(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "work")
	rs, err := Parse(Settings{
		Deny: []Rule{
			{Text: "Read(/private/**)", Source: sourceSession, Root: root},
			{Text: "Edit(./edited/**)", Source: sourceSession, Root: root},
			{Text: "Bash(cat:*)", Source: sourceSession, Root: root},
			{Text: "Read", Source: sourceSession, Root: root},
		},
		Ask:   []Rule{{Text: "Read(./asked/**)", Source: sourceSession, Root: root}},
		Allow: []Rule{{Text: "Read(./allowed/**)", Source: sourceSession, Root: root}},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	if rs2, _ := Parse(Settings{}, ""); rs2.HiddenPaths(cwd) != nil {
		t.Error("no rules: hiddenPaths is not nil")
	}
	// A turn's deny rule counts too, relative to the call's cwd.
	rs = rs.With(Additions{Deny: []string{"Read(.env)"}}, cwd)
	hidden := rs.HiddenPaths(cwd)
	if hidden == nil {
		t.Fatal("hiddenPaths is nil with Read deny rules")
	}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{filepath.Join(root, "private"), true},
		{filepath.Join(root, "private", "a", "b.txt"), true},
		{filepath.Join(cwd, ".env"), true},
		{filepath.Join(cwd, "sub", ".env"), true},
		{filepath.Join(cwd, "edited", "x"), false},
		{filepath.Join(cwd, "asked", "x"), false},
		{filepath.Join(cwd, "allowed", "x"), false},
		{filepath.Join(cwd, "open.txt"), false},
	} {
		if got := hidden(tc.path); got != tc.want {
			t.Errorf("hidden(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
	// The test of directories comes from the same rules: true where a Read deny
	// rule may hide something at or below, false where none can reach.
	if rs2, _ := Parse(Settings{}, ""); rs2.HiddenBelow(cwd) != nil {
		t.Error("no rules: hiddenBelow is not nil")
	}
	below := rs.HiddenBelow(cwd)
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{root, true},
		{filepath.Dir(root), true},
		{filepath.Join(root, "private", "deep"), true},
		{filepath.Join(root, "Private"), true}, // compared without regard to case
		{cwd, true},                            // .env may lie at any depth below cwd
		{filepath.Join(cwd, "edited"), true},
		{filepath.Join(root, "public"), false},
		{filepath.Join(root, "asked"), false},
	} {
		if got := below(tc.dir); got != tc.want {
			t.Errorf("hiddenBelow(%s) = %v, want %v", tc.dir, got, tc.want)
		}
	}
}

// BenchmarkHiddenPaths measures what the kernel sandbox's walk pays the engine per
// entry with a rule on .env at any depth: the test of a file, and of a directory.
func BenchmarkHiddenPaths(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "src", "pkg", "sub", "deeper")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	rs, err := Parse(Settings{Deny: []Rule{{Text: "Read(.env)", Source: sourceSession, Root: root}}}, "")
	if err != nil {
		b.Fatal(err)
	}
	hidden, below := rs.HiddenPaths(root), rs.HiddenBelow(root)
	b.Run("file", func(b *testing.B) {
		for b.Loop() {
			if hidden(file) {
				b.Fatal("hidden")
			}
		}
	})
	b.Run("directory", func(b *testing.B) {
		for b.Loop() {
			if hidden(dir) || !below(dir) {
				b.Fatal("wrong")
			}
		}
	})
}
