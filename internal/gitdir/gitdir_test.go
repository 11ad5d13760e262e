package gitdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIs(t *testing.T) {
	dir := t.TempDir()
	if Is(dir) {
		t.Fatal("an empty directory is a git directory")
	}
	for _, sub := range []string{"objects", "refs"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if Is(dir) {
		t.Fatal("a directory without HEAD is a git directory")
	}
	if err := os.Mkdir(filepath.Join(dir, "HEAD"), 0o755); err != nil {
		t.Fatal(err)
	}
	if Is(dir) {
		t.Fatal("a HEAD directory makes a git directory")
	}
	if err := os.Remove(filepath.Join(dir, "HEAD")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !Is(dir) {
		t.Fatal("HEAD, objects and refs are not a git directory")
	}
}
