package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
)

// TestLuaReadFileStateIsTheEngines: Lua reads ctx.readFileState and cannot write it;
// the entries are made by fs.lines and fs.read with record = true, with the content's
// hash, once the call has succeeded (a call that read and then failed showed the model
// nothing), and by fs.write; partial reads are recorded as such, unless the model was
// shown the same content in full before.
func TestLuaReadFileStateIsTheEngines(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mods, err := hostmod.Standard([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	src := `local fs, json = require("fs"), require("json")
return {
  name = "Files",
  prompt = "uses readFileState",
  isReadOnly = true,
  inputSchema = { type = "object", properties = { op = { type = "string" }, path = { type = "string" } } },
  call = function(input, ctx)
    local rfs = ctx.readFileState
    if input.op == "forge" then
      return tostring(rfs.set) .. " " .. tostring(rfs.delete)
    elseif input.op == "read" then
      fs.lines(input.path, { record = true })
      return "read"
    elseif input.op == "part" then
      fs.lines(input.path, { offset = 2, limit = 1, record = true })
      return "part"
    elseif input.op == "readfail" then
      fs.read(input.path, { record = true })
      error("the tool failed after reading")
    elseif input.op == "plain" then
      fs.read(input.path)
      return "plain"
    end
    local e = rfs:get(input.path)
    if not e then return "none" end
    return json.encode(e)
  end,
}`
	e := engine.NewTestEngine(t, engine.Options{Roots: []string{root},
		Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}})
	if diags := e.Load(engine.Source{Name: "t", FS: toolFS(map[string]string{"files.lua": src})}); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	path := filepath.Join(root, "a.txt")
	call := func(op string) string {
		r := e.Call(bg, engine.ToolUse{ID: "1", Name: "Files", Input: []byte(`{"op": "` + op + `", "path": "` + path + `"}`)})
		return r.Block.Content.String()
	}
	if got := call("forge"); got != "nil nil" {
		t.Errorf("ctx.readFileState has set/delete: %q", got)
	}
	for _, op := range []string{"readfail", "plain"} {
		call(op)
		if got := call("get"); got != "none" {
			t.Errorf("after %s the file is recorded: %s", op, got)
		}
	}
	call("part")
	if got := call("get"); !strings.Contains(got, `"partial":true`) || !strings.Contains(got, `"offset":2`) || !strings.Contains(got, `"limit":1`) {
		t.Errorf("a partial read is recorded as %s", got)
	}
	call("read")
	entry, ok := e.Files(bg).Get(path)
	if got := call("get"); !ok || entry.Partial || !strings.Contains(got, `"partial":false`) || !strings.Contains(got, `"hash":"`+entry.Hash+`"`) {
		t.Errorf("a full read is recorded as %s (store: %+v)", got, entry)
	}
	// A ranged read of the content the model was shown in full takes nothing away;
	// of content that changed since, it is what the model knows.
	call("part")
	if got, _ := e.Files(bg).Get(path); got != entry {
		t.Errorf("a ranged read after a full read of the same content made the record %+v, want %+v", got, entry)
	}
	if err := os.WriteFile(path, []byte("one\ntwo\nfour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	call("part")
	if got, _ := e.Files(bg).Get(path); !got.Partial || got.Hash == entry.Hash {
		t.Errorf("a ranged read of changed content is recorded as %+v", got)
	}
}
