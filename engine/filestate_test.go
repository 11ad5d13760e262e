package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

func TestFileStatesLRU(t *testing.T) {
	f := NewFileStatesLimited(3, 1000)
	for i := range 3 {
		f.Set(fmt.Sprintf("/f%d", i), FileState{Hash: "h", Mtime: float64(i)})
	}
	if _, ok := f.Get("/f0"); !ok { // f0 becomes the most recently used
		t.Fatal("f0 missing")
	}
	f.Set("/f3", FileState{Hash: "h"})
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
	f := NewFileStatesLimited(100, 100)
	f.Set("/a", FileState{Content: strings.Repeat("a", 60)})
	f.Set("/b", FileState{Content: strings.Repeat("b", 30)})
	f.Set("/c", FileState{Content: strings.Repeat("c", 30)})
	if _, ok := f.Get("/a"); ok {
		t.Error("/a should have been evicted to stay under 100 bytes")
	}
	f.Set("/big", FileState{Content: strings.Repeat("x", 200)})
	if _, ok := f.Get("/big"); ok {
		t.Error("an entry over the limit by itself was kept")
	}
	if f.Len() != 2 {
		t.Errorf("len = %d", f.Len())
	}
	f.Set("/b", FileState{Hash: "small"}) // replacing frees the old content
	if f.bytes != len("/b")+len("small")+len("/c")+30 {
		t.Errorf("bytes = %d", f.bytes)
	}
}

func TestFileStatesConcurrent(t *testing.T) {
	f := NewFileStates()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				p := fmt.Sprintf("/g%d/%d", g, i%150)
				f.Set(p, FileState{Hash: p})
				f.Get(p)
				if i%7 == 0 {
					f.Delete(p)
				}
			}
		})
	}
	wg.Wait()
	if f.Len() > DefaultFileStateEntries {
		t.Errorf("len %d over the limit", f.Len())
	}
}

// TestLuaReadFileState drives ctx.readFileState from a Lua tool: entries round-trip,
// are shared with the Engine's FileStates, and bad calls raise clear errors.
func TestLuaReadFileState(t *testing.T) {
	files := NewFileStates()
	e := newTestEngine(t, Options{Files: files})
	src := `return {
  name = "Files",
  prompt = "uses readFileState",
  isReadOnly = true,
  inputSchema = {type = "object"},
  call = function(input, ctx)
    local rfs = ctx.readFileState
    local out = {}
    rfs:set("/w/a.txt", {hash = "h1", mtime = 12.5, offset = 3, limit = 4, partial = true})
    local e = rfs:get("/w/./a.txt")
    out[#out + 1] = table.concat({e.hash, e.mtime, e.offset, e.limit, tostring(e.partial), tostring(e.content)}, ",")
    rfs:set("/w/b.txt", {mtime = 1})
    local b = rfs:get("/w/b.txt")
    out[#out + 1] = table.concat({b.hash, tostring(b.offset), tostring(b.partial)}, ",")
    rfs:delete("/w/b.txt")
    out[#out + 1] = tostring(rfs:get("/w/b.txt"))
    for _, bad in ipairs({
      function() rfs.get("/w/a.txt") end,
      function() rfs:get("relative") end,
      function() rfs:set("/w/c", {hash = "h"}) end,
      function() rfs:set("/w/c", {mtime = "soon"}) end,
      function() rfs:set("/w/c", {mtime = 1, offset = -1}) end,
      function() rfs:set("/w/c", {mtime = 1, partial = "yes"}) end,
      function() rfs:set("/w/c", {mtime = 1, mtim = 2}) end,
      function() rfs:set("/w/c") end,
    }) do
      local ok, err = pcall(bad)
      out[#out + 1] = ok and "no error" or tostring(err)
    end
    return table.concat(out, "\n")
  end,
}`
	for _, d := range e.Load(Source{Name: "t", FS: fstest.MapFS{"files.lua": {Data: []byte(src)}}}) {
		if d.Severity != SeverityNotice {
			t.Fatalf("load: %s", d)
		}
	}
	r := e.Call(context.Background(), ToolUse{ID: "t1", Name: "Files", Input: []byte(`{}`)})
	if r.Block.IsError {
		t.Fatalf("call: %s", r.Block.Content)
	}
	lines := strings.Split(r.Block.Content.String(), "\n")
	want := []string{
		"h1,12.5,3,4,true,nil",
		",nil,false",
		"nil",
		"call ctx.readFileState:get(...) with a colon",
		"absolute path expected, got relative",
		"field 'mtime' is required",
		"field 'mtime' must be a finite number",
		"field 'offset' must be a non-negative integer",
		"field 'partial' must be a boolean",
		"unknown field 'mtim'",
		"table expected",
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(lines), r.Block.Content)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d: %q does not contain %q", i+1, lines[i], w)
		}
	}
	if s, ok := files.Get("/w/a.txt"); !ok || s.Hash != "h1" || !s.Partial {
		t.Errorf("the engine's FileStates has %+v, %v", s, ok)
	}
}
