package engine_test

import (
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
)

// TestLuaReadFileState drives ctx.readFileState from a Lua tool: entries round-trip,
// are shared with the Engine's FileStates, and bad calls raise clear errors.
func TestLuaReadFileState(t *testing.T) {
	files := engine.NewFileStates()
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
	e, diags := loadLua(t, engine.Options{Files: files}, map[string]string{"files.lua": src})
	for _, d := range diags {
		if d.Severity != engine.SeverityNotice {
			t.Fatalf("load: %s", d)
		}
	}
	r := e.Call(bg, engine.ToolUse{ID: "t1", Name: "Files", Input: []byte(`{}`)})
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
