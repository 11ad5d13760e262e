package engine_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

// TestNewCodeIsAnnounced: every file whose code reaches a served tool set is
// announced by a reload's events, naming the file: a tool, a hook file, and a lib/
// module that appears, changes or goes (the tools that may require it are reloaded
// too, and say so).
func TestNewCodeIsAnnounced(t *testing.T) {
	fsys := toolFS(map[string]string{
		"uses.lua":      luaSourceWith(`name = "Uses",`, memberPrompt, memberSchema, `isReadOnly = true,`, `call = function() return require("util").word end,`),
		"lib/util.lua":  `return { word = "one" }`,
		"lib/other.lua": `return {}`,
	})
	e := newLuaEngine(t, engine.Options{})
	if diags := e.Load(engine.Source{Name: "t", FS: fsys}); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	var events []string
	defer e.Subscribe(func(ev engine.Event) { events = append(events, ev.String()) })()
	step := func(what string, change func(), want ...string) {
		t.Helper()
		events = nil
		change()
		e.Refresh()
		if !slices.Equal(events, want) {
			t.Errorf("%s: events %q, want %q", what, events, want)
		}
	}
	step("a new module and a changed one", func() {
		fsys["lib/util.lua"] = &fstest.MapFile{Data: []byte(`return { word = "two" }`)}
		fsys["lib/new.lua"] = &fstest.MapFile{Data: []byte(`return {}`)}
	}, "module added: t/lib/new.lua", "module updated: t/lib/util.lua", "updated: Uses (t/uses.lua)")
	step("a module gone", func() { delete(fsys, "lib/other.lua") },
		"module removed: t/lib/other.lua", "updated: Uses (t/uses.lua)")
	step("a hook file", func() {
		fsys["guard.lua"] = &fstest.MapFile{Data: []byte(`return { event = "PreToolUse", matcher = "Bash", run = function() end }`)}
	}, "hook added: PreToolUse Bash (t/guard.lua)")
	step("a hook file changed", func() {
		fsys["guard.lua"] = &fstest.MapFile{Data: []byte(`return { event = "PreToolUse", matcher = "Bash|Edit", run = function() end }`)}
	}, "hook updated: PreToolUse Bash|Edit (t/guard.lua)")
	step("a hook file gone", func() { delete(fsys, "guard.lua") }, "hook removed: PreToolUse Bash|Edit (t/guard.lua)")
	step("a tool", func() {
		fsys["fresh.lua"] = &fstest.MapFile{Data: []byte(namedTool("Fresh", "f"))}
	}, "added: Fresh (t/fresh.lua)")
}

// TestEventsCarryTheWarningsOfATool: a tool that loads with a warning is announced
// with it, at load and at each change, so that a watcher says what check says; a
// version without the mistake is announced without.
func TestEventsCarryTheWarningsOfATool(t *testing.T) {
	typo := luaSourceWith(`name = "Typo",`, memberPrompt,
		`inputSchema = {type = "object", properties = {file_path = {type = "string"}}, required = {"filepath"}},`, memberCall)
	fsys := toolFS(map[string]string{"typo.lua": typo})
	e := newLuaEngine(t, engine.Options{})
	var events []engine.Event
	defer e.Subscribe(func(ev engine.Event) { events = append(events, ev) })()
	e.Load(engine.Source{Name: "t", FS: fsys})
	want := `required names "filepath", which properties does not declare (did you mean file_path?)`
	check := func(what string, kind engine.EventKind, warned bool) {
		t.Helper()
		if len(events) != 1 || events[0].Kind != kind {
			t.Fatalf("%s: events %v, want one %s", what, events, kind)
		}
		got := diagText(events[0].Diagnostics)
		if has := strings.Contains(got, want); has != warned {
			t.Errorf("%s: the event's diagnostics are %q; want the warning: %v", what, got, warned)
		}
		events = nil
	}
	check("loaded", engine.ToolAdded, true)
	fsys["typo.lua"] = &fstest.MapFile{Data: []byte(typo + "-- changed\n")}
	e.Refresh()
	check("changed", engine.ToolUpdated, true)
	fsys["typo.lua"] = &fstest.MapFile{Data: []byte(strings.Replace(typo, `"filepath"`, `"file_path"`, 1))}
	e.Refresh()
	check("mended", engine.ToolUpdated, false)
}
