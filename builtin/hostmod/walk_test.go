package hostmod

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWalkLargeDirectory: the parts of a directory's entries that goroutines share
// visit every file once, however the entries were split, and the files of its
// subdirectories too.
func TestWalkLargeDirectory(t *testing.T) {
	dir := t.TempDir()
	want := map[string]bool{}
	for i := range 20*splitEntries + 7 {
		name := fmt.Sprintf("f%04d.txt", i)
		if i%100 == 0 {
			name = fmt.Sprintf("d%04d/inner.txt", i)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		want[name] = true
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var mu sync.Mutex
	seen := map[string]int{}
	w := &walker{ctx: context.Background(), root: root, start: ".", file: func(rel string, d walkDir, name string, _ bool) error {
		data, _, err := d.readFile(name, nil, true)
		if err != nil || string(data) != rel {
			t.Errorf("%s: read %q, %v", rel, data, err)
		}
		mu.Lock()
		seen[rel]++
		mu.Unlock()
		return nil
	}}
	if err := w.walk(); err != nil {
		t.Fatal(err)
	}
	for name := range want {
		if seen[name] != 1 {
			t.Errorf("%s visited %d times", name, seen[name])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d files visited, want %d", len(seen), len(want))
	}
}
