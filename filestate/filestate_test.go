package filestate

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestFileStatesLRU(t *testing.T) {
	f := NewMemory(3, 1000)
	for i := range 3 {
		f.Set(fmt.Sprintf("/f%d", i), Entry{Hash: "h", Mtime: float64(i)})
	}
	if _, ok := f.Get("/f0"); !ok { // f0 becomes the most recently used
		t.Fatal("f0 missing")
	}
	f.Set("/f3", Entry{Hash: "h"})
	if _, ok := f.Get("/f1"); ok {
		t.Error("f1, the least recently used, was not evicted")
	}
	for _, p := range []string{"/f0", "/f2", "/f3"} {
		if _, ok := f.Get(p); !ok {
			t.Errorf("%s evicted", p)
		}
	}
	if s, _ := f.Get("/x/../f2"); s.Mtime != 2 {
		t.Errorf("paths are not cleaned: %+v", s)
	}
	f.Delete("/f2")
	if _, ok := f.Get("/f2"); ok || f.Len() != 2 {
		t.Errorf("delete: len %d", f.Len())
	}
}

func TestFileStatesByteLimit(t *testing.T) {
	f := NewMemory(100, 100)
	f.Set("/a", Entry{Hash: strings.Repeat("a", 60)})
	f.Set("/b", Entry{Hash: strings.Repeat("b", 30)})
	f.Set("/c", Entry{Hash: strings.Repeat("c", 30)})
	if _, ok := f.Get("/a"); ok {
		t.Error("/a should have been evicted to stay under 100 bytes")
	}
	f.Set("/big", Entry{Hash: strings.Repeat("x", 200)})
	if _, ok := f.Get("/big"); ok {
		t.Error("an entry over the limit by itself was kept")
	}
	if f.Len() != 2 {
		t.Errorf("len = %d", f.Len())
	}
	f.Set("/b", Entry{Hash: "small"}) // replacing frees the old entry
	if f.bytes != len("/b")+len("small")+len("/c")+30 {
		t.Errorf("bytes = %d", f.bytes)
	}
}

func TestFileStatesConcurrent(t *testing.T) {
	f := NewMemory(0, 0)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				p := fmt.Sprintf("/g%d/%d", g, i%150)
				f.Set(p, Entry{Hash: p})
				f.Get(p)
				if i%7 == 0 {
					f.Delete(p)
				}
			}
		})
	}
	wg.Wait()
	if f.Len() > DefaultEntries {
		t.Errorf("len %d over the limit", f.Len())
	}
}
