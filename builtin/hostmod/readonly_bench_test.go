package hostmod

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkClassifyCommand classifies everyday commands as Bash does on every call
// (four times a call: isReadOnly, isConcurrencySafe, checkPermissions, and the run's
// own check): paths resolved, a glob expanded, a git repository's configuration read.
func BenchmarkClassifyCommand(b *testing.B) {
	root := b.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git", "objects"), 0o755); err != nil {
		b.Fatal(err)
	}
	for name, text := range map[string]string{
		".git/HEAD": "ref: refs/heads/main\n", ".git/config": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
		"a.txt": "a\n", "b.txt": "b\n", "sub/util.go": "package sub\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	rs, err := newRootSet([]string{root})
	if err != nil {
		b.Fatal(err)
	}
	for _, cmd := range []string{
		"cat a.txt | sort | uniq -c",
		"grep -rn hello sub",
		"ls *.txt",
		"git log --oneline -5",
		"find . -name '*.go' | xargs wc -l",
	} {
		b.Run(cmd, func(b *testing.B) {
			for b.Loop() {
				if v, why := rs.classifyCommand(cmd, "", nil, true); v != commandReadOnly {
					b.Fatalf("%q: %v %q", cmd, v, why)
				}
			}
		})
	}
}
