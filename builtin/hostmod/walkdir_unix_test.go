//go:build unix

package hostmod

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWalkDirSwappedEntries: an entry the walk read as a regular file or a directory
// and that a symbolic link (or another kind of file) replaced before it was opened is
// not followed: opening it fails with errNotWalked or the error of O_NOFOLLOW, and
// nothing of the link's target is read or listed.
func TestWalkDirSwappedEntries(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	walked := filepath.Join(dir, "walked")
	for name, content := range map[string]string{"secret/key.txt": "the secret", "secret/inner/x.txt": "x", "walked/file.txt": "plain", "walked/sub/y.txt": "y"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := openTestDir(t, walked)
	entries, err := d.entries()
	if err != nil || len(entries) != 2 || !entries[0].typ.IsRegular() || !entries[1].typ.IsDir() {
		t.Fatalf("entries %v, %v", entries, err)
	}
	if data, _, err := d.readFile("file.txt", nil, true); err != nil || string(data) != "plain" {
		t.Fatalf("before the swap: %q, %v", data, err)
	}
	// The swap, after the directory was read.
	for name, target := range map[string]string{"file.txt": filepath.Join(secret, "key.txt"), "sub": filepath.Join(secret, "inner")} {
		p := filepath.Join(walked, name)
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	if data, _, err := d.readFile("file.txt", nil, true); err == nil {
		t.Errorf("a file swapped for a link was read: %q", data)
	}
	if _, err := d.modTime("file.txt"); !errors.Is(err, errNotWalked) {
		t.Errorf("modTime of a file swapped for a link: %v, want errNotWalked", err)
	}
	if sub, err := d.openDir("sub"); err == nil {
		sub.close()
		t.Error("a directory swapped for a link was opened")
	}
	// A regular file swapped for a named pipe, which must not block the walk either
	// (opening it for reading would wait for a writer).
	if err := os.Remove(filepath.Join(walked, "file.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(walked, "file.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.readFile("file.txt", nil, true); !errors.Is(err, errNotWalked) {
		t.Errorf("a file swapped for a named pipe: %v, want errNotWalked", err)
	}
	for _, name := range []string{"..", ".", "", "sub/../..", "a/b"} {
		if _, _, err := d.readFile(name, nil, true); !errors.Is(err, errNotWalked) {
			t.Errorf("readFile(%q): %v, want errNotWalked", name, err)
		}
		if _, err := d.openDir(name); !errors.Is(err, errNotWalked) {
			t.Errorf("openDir(%q): %v, want errNotWalked", name, err)
		}
	}
}

// openTestDir opens dir for a walk, closed at the end of the test.
func openTestDir(t *testing.T, dir string) walkDir {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d, err := openWalkRoot(r, ".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.close)
	return d
}
