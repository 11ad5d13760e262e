package engine_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

// The engine's loading of tool directories (Load, names, sources, isEnabled), with Lua
// tool files.

// namedTool is a read-only tool (so that calls need no permission) answering result.
func namedTool(name, result string) string {
	return luaSourceWith(`name = "`+name+`",`, memberPrompt, memberSchema, `call = function() return "`+result+`" end,`, `isReadOnly = true,`)
}

// source is a source of tool files held in memory.
func source(name string, files map[string]string) engine.Source {
	return engine.Source{Name: name, FS: toolFS(files)}
}

func TestLoadDirectory(t *testing.T) {
	e, diags := loadLua(t, engine.Options{}, map[string]string{
		"read.lua":          namedTool("Read", "read"),
		"write.lua":         namedTool("Write", "write"),
		"broken.lua":        "return {",
		"read_test.lua":     "this is not lua",
		"types.d.lua":       "neither is this",
		".hidden.lua":       "nor this",
		"notes.txt":         "text",
		"disabled.lua":      luaSourceWith(`name = "T",`, memberPrompt, memberSchema, memberCall, `isEnabled = false,`),
		"disabled_fn.lua":   luaSourceWith(`name = "D2",`, memberPrompt, memberSchema, memberCall, `isEnabled = function() error("x") end,`),
		"also_disabled.lua": luaSourceWith(`name = "D3",`, memberPrompt, memberSchema, memberCall, `isEnabled = function() return false end,`),
	})
	if got := e.Registry().Names(); !reflect.DeepEqual(got, []string{"Read", "Write"}) {
		t.Errorf("registry = %v, want [Read Write]", got)
	}
	d, ok := findDiag(diags, diag.SeverityError, "")
	if !ok || d.File != "t/broken.lua" {
		t.Errorf("want an error for broken.lua:\n%s", diagText(diags))
	}
	for _, d := range diags {
		for _, skipped := range []string{"read_test.lua", "types.d.lua", ".hidden.lua", "notes.txt"} {
			if strings.HasSuffix(d.File, skipped) {
				t.Errorf("%s is not a tool file but was loaded: %s", skipped, d)
			}
		}
	}
	// A disabled tool is not offered: calling it is calling an unknown tool.
	for _, name := range []string{"T", "D2", "D3"} {
		r := e.Call(bg, engine.ToolUse{ID: "1", Name: name, Input: []byte(`{}`)})
		if !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "No such tool available: "+name) {
			t.Errorf("call of disabled %s = %q", name, r.Block.Content.String())
		}
	}
}

func TestDuplicateNamesInOneDirectory(t *testing.T) {
	e, diags := loadLua(t, engine.Options{}, map[string]string{
		"a.lua": namedTool("Dup", "a"),
		"b.lua": namedTool("Dup", "b"),
		"c.lua": namedTool("Other", "c"),
	})
	d, ok := findDiag(diags, diag.SeverityError, `"Dup"`)
	if !ok {
		t.Fatalf("no error about the duplicate:\n%s", diagText(diags))
	}
	if !strings.Contains(d.File+" "+d.Message, "a.lua") || !strings.Contains(d.File+" "+d.Message, "b.lua") {
		t.Errorf("the error must name both files: %s", d)
	}
	if _, ok := e.Registry().Lookup("Dup"); ok {
		t.Error("one of the duplicates is served")
	}
	if _, ok := e.Registry().Lookup("Other"); !ok {
		t.Error("the other tool of the directory is not served")
	}
}

func TestLaterSourceOverridesEarlierWithANotice(t *testing.T) {
	first := source("first", map[string]string{"t.lua": namedTool("T", "first"), "keep.lua": namedTool("Keep", "keep")})
	second := source("second", map[string]string{"t.lua": namedTool("T", "second")})
	goTool := engine.ToolDef{
		Name:        "Keep",
		Prompt:      func(context.Context, engine.PromptOptions) (string, error) { return "go", nil },
		InputSchema: map[string]any{"type": "object"},
		Call: func(context.Context, map[string]any, *engine.CallContext) (*engine.ToolResult, error) {
			return &engine.ToolResult{Data: "go"}, nil
		},
	}
	e := newLuaEngine(t, engine.Options{Tools: []engine.ToolDef{goTool}})
	diags := e.Load(first, second)
	if diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	d, ok := findDiag(diags, diag.SeverityNotice, "tool T overrides the one from first/t.lua")
	if !ok || d.File != "second/t.lua" {
		t.Errorf("no override notice for T:\n%s", diagText(diags))
	}
	if _, ok := findDiag(diags, diag.SeverityNotice, "tool Keep overrides the one from go:Keep"); !ok {
		t.Errorf("no override notice for the Go tool:\n%s", diagText(diags))
	}
	if r := e.Call(bg, engine.ToolUse{ID: "1", Name: "T", Input: []byte(`{}`)}); r.Block.Content.String() != "second" {
		t.Errorf("T answered %q, want the later source's", r.Block.Content.String())
	}
	if r := e.Call(bg, engine.ToolUse{ID: "2", Name: "Keep", Input: []byte(`{}`)}); r.Block.Content.String() != "keep" {
		t.Errorf("Keep answered %q, want the Lua tool's", r.Block.Content.String())
	}
	// Loading again without the second source brings the first T back.
	e.Load(first)
	if r := e.Call(bg, engine.ToolUse{ID: "3", Name: "T", Input: []byte(`{}`)}); r.Block.Content.String() != "first" {
		t.Errorf("after reloading, T answered %q", r.Block.Content.String())
	}
}

// TestLoadReportsDroppedSource: Load sets the whole list, so a source left out of a
// second Load is dropped with its tools; the diagnostics and the log name it and them,
// where before the tools just went (a host meaning to add a directory lost the
// standard tools with no word).
func TestLoadReportsDroppedSource(t *testing.T) {
	log := &engine.RecordingHandler{}
	e := newLuaEngine(t, engine.Options{Logger: slog.New(log)})
	std := source("<standard>", map[string]string{"glob.lua": namedTool("Glob", "g"), "grep.lua": namedTool("Grep", "r")})
	mine := source("mine", map[string]string{"mine.lua": namedTool("Mine", "m")})
	if diags := e.Load(std); len(diags) > 0 {
		t.Fatal(diagText(diags))
	}
	diags := e.Load(mine)
	want := "source <standard> is no longer loaded: Load sets the whole list of sources (AddSources adds to it); with it went tool Glob, tool Grep"
	if d, ok := findDiag(diags, diag.SeverityNotice, want); !ok || d.File != "<standard>" {
		t.Errorf("no notice of the dropped source:\n%s", diagText(diags))
	}
	if msgs := log.Messages(); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
		t.Errorf("log: %q, want one line saying %q", msgs, want)
	}
	if got := e.Registry().Names(); !reflect.DeepEqual(got, []string{"Mine"}) {
		t.Errorf("tools %v, want only Mine", got)
	}
	// The notice is news of that Load, not a standing problem of the set.
	if diags := e.Refresh(); len(diags) > 0 {
		t.Errorf("Refresh repeats the notice:\n%s", diagText(diags))
	}
}

// TestAddSources: AddSources keeps the sources loaded and adds after them, so a
// later source overrides as in Load; a source of a name already loaded takes its
// place and is read again; nothing is reported dropped.
func TestAddSources(t *testing.T) {
	e := newLuaEngine(t, engine.Options{})
	if diags := e.Load(source("std", map[string]string{"glob.lua": namedTool("Glob", "g"), "t.lua": namedTool("T", "std")})); len(diags) > 0 {
		t.Fatal(diagText(diags))
	}
	diags := e.AddSources(source("mine", map[string]string{"t.lua": namedTool("T", "mine")}))
	if _, ok := findDiag(diags, diag.SeverityNotice, "no longer loaded"); ok {
		t.Errorf("AddSources dropped a source:\n%s", diagText(diags))
	}
	if _, ok := findDiag(diags, diag.SeverityNotice, "tool T overrides the one from std/t.lua"); !ok {
		t.Errorf("the added source does not come after the loaded one:\n%s", diagText(diags))
	}
	if got := e.Registry().Names(); !reflect.DeepEqual(got, []string{"Glob", "T"}) {
		t.Errorf("tools %v, want Glob and T", got)
	}
	// The same name again: its new files replace the old, in the first place.
	diags = e.AddSources(source("std", map[string]string{"glob.lua": namedTool("Glob", "g2"), "t.lua": namedTool("T", "std2")}))
	if _, ok := findDiag(diags, diag.SeverityNotice, "tool T overrides the one from std/t.lua"); !ok {
		t.Errorf("std did not keep its place before mine:\n%s", diagText(diags))
	}
	for name, want := range map[string]string{"Glob": "g2", "T": "mine"} {
		if r := e.Call(bg, engine.ToolUse{ID: name, Name: name, Input: []byte(`{}`)}); r.Block.Content.String() != want {
			t.Errorf("%s answered %q, want %q", name, r.Block.Content.String(), want)
		}
	}
}

func TestAliasesLookup(t *testing.T) {
	e := luaEngine(t, engine.Options{}, map[string]string{"t.lua": luaSourceWith(`name = "Grep",`, `aliases = {"Search", "FindText"},`, memberPrompt, memberSchema,
		`call = function(input, ctx) return "grep via " .. ctx.toolUseId end,`, `isReadOnly = true,`)})
	for _, name := range []string{"Grep", "Search", "FindText"} {
		tool, ok := e.Registry().Lookup(name)
		if !ok || tool.Name() != "Grep" {
			t.Errorf("Lookup(%s) = %v, %v", name, tool, ok)
		}
		r := e.Call(bg, engine.ToolUse{ID: name, Name: name, Input: []byte(`{}`)})
		if r.Block.IsError || r.Block.Content.String() != "grep via "+name {
			t.Errorf("call by %s = %q", name, r.Block.Content.String())
		}
	}
	if got := e.Registry().Names(); !reflect.DeepEqual(got, []string{"Grep"}) {
		t.Errorf("aliases must not be listed as tools: %v", got)
	}
}

// An alias that is another tool's name cannot take the tool over, and does not cost
// the other tools their snapshot: it is ignored with a warning.
func TestAliasCollisionIsIgnored(t *testing.T) {
	e, diags := loadLua(t, engine.Options{}, map[string]string{
		"a.lua": namedTool("A", "a2"),
		"b.lua": luaSourceWith(`name = "B",`, `aliases = {"A"},`, memberPrompt, memberSchema, memberCall),
	})
	if _, ok := findDiag(diags, diag.SeverityWarning, "alias A of tool B is ignored"); !ok {
		t.Errorf("no warning for the alias collision:\n%s", diagText(diags))
	}
	if r := e.Call(bg, engine.ToolUse{ID: "1", Name: "A", Input: []byte(`{}`)}); r.Block.Content.String() != "a2" {
		t.Errorf("A answered %q; the alias must not take over the name", r.Block.Content.String())
	}
	if _, ok := e.Registry().Lookup("B"); !ok {
		t.Error("B is not served")
	}
}

func TestLoadMissingDirectory(t *testing.T) {
	e := newLuaEngine(t, engine.Options{})
	diags := e.Load(engine.DirSource(filepath.Join(t.TempDir(), "nope")))
	if !diag.HasErrors(diags) {
		t.Errorf("loading a missing directory gave no error: %v", diags)
	}
}

// TestIsEnabledIsBounded: a tool whose isEnabled never returns must not hang Load (and
// every reload). Here isEnabled spins for a minute, far past the 200 ms member
// timeout: Load must come back long before, leave the tool out (isEnabled failing is
// false) and say so.
func TestIsEnabledIsBounded(t *testing.T) {
	e := newLuaEngine(t, engine.Options{MemberTimeout: 200 * time.Millisecond})
	start := time.Now()
	diags := e.Load(source("t", map[string]string{
		"slow.lua": luaSourceWith(`name = "T",`, memberPrompt, memberSchema, memberCall,
			`isEnabled = function() local t0 = os.clock() while os.clock() - t0 < 60 do end return true end,`),
		"ok.lua": namedTool("Ok", "ok"),
	}))
	if _, ok := findDiag(diags, diag.SeverityWarning, "isEnabled failed"); !ok {
		t.Errorf("no warning for the isEnabled that timed out:\n%s", diagText(diags))
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Load took %v: isEnabled runs without a deadline", d.Round(time.Millisecond))
	}
	if _, ok := e.Registry().Lookup("T"); ok {
		t.Error("a tool whose isEnabled overran the timeout is offered")
	}
	if _, ok := e.Registry().Lookup("Ok"); !ok {
		t.Error("the other tool is not offered")
	}
}

// A source given by its Dir alone is read from that directory; one with neither FS
// nor Dir is an error diagnostic, not a panic.
func TestLoadSourceByDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "read.lua"), []byte(namedTool("Read", "read")), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newLuaEngine(t, engine.Options{})
	if diags := e.Load(engine.Source{Name: "d", Dir: dir}); diag.HasErrors(diags) {
		t.Fatalf("a source by Dir:\n%s", diagText(diags))
	}
	if got := e.Registry().Names(); !reflect.DeepEqual(got, []string{"Read"}) {
		t.Errorf("registry = %v", got)
	}
	diags := e.Load(engine.Source{Name: "empty"})
	if d, ok := findDiag(diags, diag.SeverityError, "the source has no files: set its FS or Dir"); !ok || d.File != "empty" {
		t.Errorf("a source with neither FS nor Dir:\n%s", diagText(diags))
	}
}
