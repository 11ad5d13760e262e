package luaload

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

// TestToolsShareLuaModules: tool files require the modules of lib/ beside them,
// dotted names reaching subdirectories; a module's error names its own file; a
// change to a module reloads the tools of the directory, and a tool file that
// requires a missing module fails to load with the name.
func TestToolsShareLuaModules(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"a.lua": `local text = require("text")
return { name = "A", prompt = "a", inputSchema = { type = "object" }, isReadOnly = true,
  call = function() return text.shout("a") .. require("util.pad").pad("x") end }`,
		"b.lua": `local text = require("text")
return { name = "B", prompt = "b", inputSchema = { type = "object" }, isReadOnly = true,
  call = function() return text.shout("b") end }`,
	})
	write := func(rel, src string) {
		t.Helper()
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lib/text.lua", `local M = {} function M.shout(s) return s:upper() .. "!" end return M`)
	write("lib/util/pad.lua", `return { pad = function(s) return "[" .. s .. "]" end }`)
	e := newTestEngine(t, engine.Options{})
	if diags := e.Load(engine.DirSource(dir)); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	call := func(name string) string {
		return e.Call(bg, engine.ToolUse{ID: "1", Name: name}).Block.Content.String()
	}
	if got := call("A"); got != "A![x]" {
		t.Errorf("A = %q", got)
	}
	if got := call("B"); got != "B!" {
		t.Errorf("B = %q", got)
	}

	write("lib/text.lua", `local M = {} function M.shout(s) return s:lower() .. "?" end return M`)
	if diags := e.Refresh(); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	if got := call("A"); got != "a?[x]" {
		t.Errorf("after lib/text.lua changed, A = %q", got)
	}
	if got := call("B"); got != "b?" {
		t.Errorf("after lib/text.lua changed, B = %q", got)
	}

	write("lib/text.lua", "local M = {}\nfunction M.shout(s)\n  error('too loud')\nend\nreturn M")
	e.Refresh()
	r := e.Call(bg, engine.ToolUse{ID: "2", Name: "B"})
	if !strings.Contains(r.Err.Error(), filepath.Join(dir, "lib", "text.lua")+":3: too loud") {
		t.Errorf("an error in a module: %v", r.Err)
	}

	write("c.lua", `local gone = require("gone")
return { name = "C", prompt = "c", inputSchema = { type = "object" }, call = function() return "c" end }`)
	diags := e.Refresh()
	if d, ok := findDiag(diags, diag.SeverityError, "module 'gone' not found"); !ok || !strings.HasSuffix(d.File, "c.lua") {
		t.Errorf("a missing module:\n%s", diagText(diags))
	}
}

// TestLoadPhaseHasNoCapabilities: a tool file's main chunk, and a module it requires
// while it loads, cannot read or touch the world; the file fails to load, saying so,
// and nothing was done.
func TestLoadPhaseHasNoCapabilities(t *testing.T) {
	root := t.TempDir()
	mods, err := hostmod.Standard([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	for name, chunk := range map[string]string{
		"fs.write":  `require("fs").write("x.txt", "hi")`,
		"shell.run": `require("shell").run("touch x.txt")`,
		"fs.read":   `require("fs").read("secret.txt")`,
		"glob.find": `require("glob").find("*")`,
	} {
		dir := writeDir(t, map[string]string{"t.lua": chunk + "\n" + luaSource("")})
		e := newTestEngine(t, engine.Options{Roots: []string{root}}, Options{Modules: mods})
		diags := e.Load(engine.DirSource(dir))
		if _, ok := findDiag(diags, diag.SeverityError, name+" is not available while the tool file loads: call it from call()"); !ok {
			t.Errorf("%s at load: %s", name, diagText(diags))
		}
	}
	if _, err := os.Stat(filepath.Join(root, "x.txt")); !os.IsNotExist(err) {
		t.Errorf("loading wrote x.txt (%v)", err)
	}
}

// TestMembersOtherThanCallAreReadOnly: a prompt, an isReadOnly or a checkPermissions
// that tries to write gets the read-only refusal; a read from a member works.
func TestMembersOtherThanCallAreReadOnly(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	mods, err := hostmod.Standard([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	dir := writeDir(t, map[string]string{"t.lua": `local fs, shell = require("fs"), require("shell")
return {
  name = "T",
  prompt = function()
    local ok, err, code = fs.write("p.txt", "x")
    return "wrote: " .. tostring(ok) .. " " .. tostring(code) .. " read: " .. (fs.read("in.txt"))
  end,
  inputSchema = { type = "object" },
  checkPermissions = function()
    local r, err, code = shell.run("touch c.txt")
    return { behavior = "deny", message = tostring(r) .. " " .. tostring(code) }
  end,
  call = function() return "ran" end,
}`})
	e := newTestEngine(t, engine.Options{Roots: []string{root}}, Options{Modules: mods})
	if diags := e.Load(engine.DirSource(dir)); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	tool, _ := e.Registry().Lookup("T")
	prompt, err := tool.Prompt(bg, engine.PromptOptions{})
	if err != nil || prompt != "wrote: nil readonly read: data" {
		t.Errorf("prompt = %q, %v", prompt, err)
	}
	r := e.Call(bg, engine.ToolUse{ID: "1", Name: "T"})
	if r.Stage != engine.StagePermission || r.Block.Content.String() != "nil readonly" {
		t.Errorf("a checkPermissions that runs a command: %s %q", r.Stage, r.Block.Content.String())
	}
	for _, f := range []string{"p.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(root, f)); !os.IsNotExist(err) {
			t.Errorf("a member other than call made %s", f)
		}
	}
}

// TestWatchFollowsLuaModules: Watch reloads the tools of a directory when a module
// of its lib/ changes, in a lib/ that existed and in one made after Watch started.
func TestWatchFollowsLuaModules(t *testing.T) {
	dir := writeDir(t, map[string]string{"a.lua": `return { name = "A", prompt = "a", inputSchema = { type = "object" }, isReadOnly = true,
  call = function() local ok, m = pcall(require, "word") return ok and m.word or "none" end }`})
	e := newTestEngine(t, engine.Options{})
	if diags := e.Load(engine.DirSource(dir)); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	go e.Watch(ctx, engine.WatchOptions{Debounce: 10 * time.Millisecond})
	call := func() string { return e.Call(bg, engine.ToolUse{ID: "1", Name: "A"}).Block.Content.String() }
	eventually := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for call() != want {
			if time.Now().After(deadline) {
				t.Fatalf("A = %q, want %q", call(), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// Whenever Watch gets to add its watches, before or after lib/ appears and
	// word.lua is written, it reads the directory again once they are in place.
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lib", "word.lua"), []byte(`return { word = "one" }`), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually("one")
	if err := os.WriteFile(filepath.Join(dir, "lib", "word.lua"), []byte(`return { word = "two" }`), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually("two")
}

// TestInputDeeperThanLuaTakesIsInvalidInput: an input the loader's states could not
// convert (deeper than Limits.MaxDepth) fails validation, before any Lua runs; one at
// the limit reaches call.
func TestInputDeeperThanLuaTakesIsInvalidInput(t *testing.T) {
	dir := writeDir(t, map[string]string{"t.lua": luaSource(`isReadOnly = true,`)})
	e := newTestEngine(t, engine.Options{}, Options{Limits: bindings.Limits{MaxDepth: 4}})
	if diags := e.Load(engine.DirSource(dir)); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	deep := e.Call(bg, engine.ToolUse{ID: "1", Name: "T", Input: []byte(`{"a": {"b": {"c": {"d": {"e": {}}}}}}`)})
	if deep.Stage != engine.StageInput || !strings.Contains(deep.Block.Content.String(), "at most 4 are allowed") {
		t.Errorf("too deep: %s %q", deep.Stage, deep.Block.Content.String())
	}
	ok := e.Call(bg, engine.ToolUse{ID: "2", Name: "T", Input: []byte(`{"a": {"b": {"c": {}}}}`)})
	if ok.Stage != engine.StageDone {
		t.Errorf("at the limit: %s %q", ok.Stage, ok.Block.Content.String())
	}
}

// TestLibrariesShareCompiledModules: the libraries of one loader compile a module
// once while its source stays the same, and again when it changes.
func TestLibrariesShareCompiledModules(t *testing.T) {
	var cache programCache
	fsys := func(src string) fstest.MapFS {
		return fstest.MapFS{"lib/m.lua": {Data: []byte(src)}}
	}
	lookup := func(src string) *bindings.Program {
		t.Helper()
		prog, err := newLibrary(fsys(src), "dir", bindings.Limits{}, &cache).lookup("m")
		if err != nil || prog == nil {
			t.Fatalf("lookup m: %v, %v", prog, err)
		}
		return prog
	}
	first := lookup("return 1")
	if again := lookup("return 1"); again != first {
		t.Error("a second library of the same source compiled the module again")
	}
	if changed := lookup("return 2"); changed == first || changed.Hash == first.Hash {
		t.Error("a library of a changed source got the old module")
	}
}
