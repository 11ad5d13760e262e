package hostmod

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFdDirEntries: the entries getdents gives are those os.ReadDir gives, with the
// same types, sorted, across more than one buffer of records.
func TestFdDirEntries(t *testing.T) {
	dir := t.TempDir()
	for i := range 1500 { // about 60 KB of records: two getdents calls at least
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-with-a-long-name-%04d.txt", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := openTestDir(t, dir)
	got, err := d.entries()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].name != want[i].Name() || got[i].typ != want[i].Type() {
			t.Errorf("entry %d: %s %v, want %s %v", i, got[i].name, got[i].typ, want[i].Name(), want[i].Type())
		}
	}
}

// TestStatType: each file type of a stat's mode maps as os.FileMode does it, and a
// type that is none of them is irregular.
func TestStatType(t *testing.T) {
	for mode, want := range map[uint32]os.FileMode{
		syscall.S_IFREG | 0o644:  0,
		syscall.S_IFDIR | 0o755:  os.ModeDir,
		syscall.S_IFLNK | 0o777:  os.ModeSymlink,
		syscall.S_IFIFO:          os.ModeNamedPipe,
		syscall.S_IFSOCK:         os.ModeSocket,
		syscall.S_IFCHR:          os.ModeDevice | os.ModeCharDevice,
		syscall.S_IFBLK:          os.ModeDevice,
		0o644:                    os.ModeIrregular,
		syscall.S_IFMT &^ 0x1000: os.ModeIrregular,
	} {
		if got := statType(mode); got != want {
			t.Errorf("statType(%#o) = %v, want %v", mode, got, want)
		}
	}
}
