package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/feature"
	"github.com/luatool/luatool/engine/luaload"
)

// Prompts and resources from Lua files: loaded beside the tools, checked with
// file:line, served by GetPrompt and ReadResource.

const reviewPrompt = `return {
  kind = "prompt",
  name = "review",
  description = "Review a file",
  arguments = {
    {name = "file", description = "the file to review", required = true},
    {name = "focus"},
  },
  get = function(args, ctx)
    local focus = args.focus or "everything"
    return {
      {role = "user", content = "Review " .. args.file .. " for " .. focus .. " in " .. ctx.cwd},
      {role = "assistant", content = {type = "text", text = "I will read it first."}},
    }
  end,
}
`

const readmeResource = `return {
  kind = "resource",
  uri = "docs://readme",
  name = "readme",
  mimeType = "text/markdown",
  read = function(uri) return "# Readme of " .. uri end,
}
`

const notesTemplate = `return {
  kind = "resource",
  uriTemplate = "notes://{topic}/{id}",
  name = "note",
  read = function(uri, ctx, params)
    if params.topic == "secret" then return nil, "no such topic" end
    return {text = params.topic .. "#" .. params.id, mimeType = "text/plain"}
  end,
}
`

func TestPromptsAndResourcesLoad(t *testing.T) {
	e := luaEngine(t, engine.Options{Cwd: "/work"}, map[string]string{
		"tool.lua":   namedTool("Read", "read"),
		"review.lua": reviewPrompt,
		"readme.lua": readmeResource,
		"notes.lua":  notesTemplate,
	})
	reg := e.Registry()
	if got := reg.Names(); !reflect.DeepEqual(got, []string{"Read"}) {
		t.Errorf("tools = %v, want [Read]: a prompt or resource is no tool", got)
	}
	if ps := feature.Prompts(reg); len(ps) != 1 || ps[0].Name() != "review" || ps[0].Source() != "t/review.lua" || len(ps[0].Arguments()) != 2 || !ps[0].Arguments()[0].Required {
		t.Fatalf("prompts = %+v", ps)
	}
	var uris []string
	for _, r := range feature.Resources(reg) {
		uris = append(uris, r.URI())
	}
	if !reflect.DeepEqual(uris, []string{"docs://readme", "notes://{topic}/{id}"}) || !feature.Resources(reg)[1].IsTemplate() {
		t.Errorf("resources = %v", uris)
	}

	got, err := feature.GetPrompt(bg, e, "review", map[string]string{"file": "main.go"})
	if err != nil {
		t.Fatal(err)
	}
	want := []feature.PromptMessage{
		{Role: "user", Content: engine.ContentBlock{Type: "text", Text: "Review main.go for everything in /work"}},
		{Role: "assistant", Content: engine.ContentBlock{Type: "text", Text: "I will read it first."}},
	}
	if !reflect.DeepEqual(got.Messages, want) || got.Description != "Review a file" {
		t.Errorf("GetPrompt = %+v, want %+v", got, want)
	}

	for _, tc := range []struct {
		args map[string]string
		is   error
		msg  string
	}{
		{map[string]string{"focus": "bugs"}, feature.ErrPromptArguments, `prompt review: missing required argument "file"`},
		{map[string]string{"file": "a", "fcous": "x"}, feature.ErrPromptArguments, `unknown argument "fcous" (did you mean focus?)`},
	} {
		_, err := feature.GetPrompt(bg, e, "review", tc.args)
		if !errors.Is(err, tc.is) || err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("GetPrompt(%v) = %v, want %q", tc.args, err, tc.msg)
		}
	}
	if _, err := feature.GetPrompt(bg, e, "reveiw", nil); !errors.Is(err, feature.ErrUnknownPrompt) || !strings.Contains(err.Error(), "did you mean review?") {
		t.Errorf("GetPrompt of a mistyped name = %v", err)
	}

	c, err := feature.ReadResource(bg, e, "docs://readme")
	if err != nil || c.Text != "# Readme of docs://readme" || c.MIMEType != "text/markdown" || c.URI != "docs://readme" {
		t.Errorf("ReadResource(readme) = %+v, %v", c, err)
	}
	c, err = feature.ReadResource(bg, e, "notes://go/42")
	if err != nil || c.Text != "go#42" || c.MIMEType != "text/plain" {
		t.Errorf("ReadResource(template) = %+v, %v", c, err)
	}
	if _, err := feature.ReadResource(bg, e, "notes://secret/1"); err == nil || err.Error() != "resource notes://secret/1: no such topic" {
		t.Errorf("a read failing with nil, message = %v", err)
	}
	if _, err := feature.ReadResource(bg, e, "docs://readm"); !errors.Is(err, feature.ErrUnknownResource) || !strings.Contains(err.Error(), "did you mean docs://readme?") {
		t.Errorf("ReadResource of an unknown URI = %v", err)
	}
}

func TestPromptAndResourceDiagnostics(t *testing.T) {
	_, diags := loadLua(t, engine.Options{}, map[string]string{
		"bad_kind.lua":  "return {\n  kind = \"promt\",\n  name = \"x\",\n}\n",
		"no_get.lua":    "return {\n  kind = \"prompt\",\n  name = \"x\",\n  descripton = \"typo\",\n}\n",
		"bad_args.lua":  "return {\n  kind = \"prompt\",\n  name = \"y\",\n  arguments = {{name = \"a\", requird = true}},\n  get = function() return \"\" end,\n}\n",
		"relative.lua":  "return {\n  kind = \"resource\",\n  name = \"r\",\n  uri = \"readme.md\",\n  read = function() return \"\" end,\n}\n",
		"dup_a.lua":     "return {kind = \"prompt\", name = \"same\", get = function() return \"a\" end}",
		"dup_b.lua":     "return {kind = \"prompt\", name = \"same\", get = function() return \"b\" end}",
		"touches.lua":   "local fs = require('fs')\nreturn {kind = \"prompt\", name = \"z\", get = function() return \"\" end}",
		"good_tool.lua": namedTool("Read", "read"),
	})
	for _, want := range []struct{ file, msg string }{
		{"t/bad_kind.lua:2", `kind must be "prompt" or "resource" (or absent, for a tool), got the string "promt"`},
		{"t/no_get.lua:4", `unknown member "descripton" of a prompt (did you mean description?)`},
		{"t/no_get.lua", "a prompt must have a get function"},
		{"t/bad_args.lua:4", "argument 1: unknown field requird (did you mean required?)"},
		{"t/relative.lua:4", `uri "readme.md" must be absolute, with a scheme (docs://readme)`},
		{"t/dup_b.lua", `prompt name "same" is also declared by t/dup_a.lua; neither is loaded`},
	} {
		found := false
		for _, d := range diags {
			if d.Severity == diag.SeverityError && strings.HasPrefix(d.Pos.Prefix(), want.file) && strings.Contains(d.Message, want.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("want an error at %s: %s; got:\n%s", want.file, want.msg, diagText(diags))
		}
	}
}

func TestPromptRunsSealed(t *testing.T) {
	// A prompt's or resource's code may not touch the world: host functions refuse
	// as at load time, while pure modules work.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	mods, err := hostmod.Standard([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	e := engine.NewTestEngine(t, engine.Options{Roots: []string{dir}, Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}})
	if diags := e.Load(engine.Source{Name: "t", FS: toolFS(map[string]string{
		"p.lua": `return {kind = "prompt", name = "p", get = function() return require("fs").read(` + strconv.Quote(filepath.Join(dir, "secret.txt")) + `) end}`,
		"r.lua": `return {kind = "resource", uri = "x://r", name = "r", read = function() return require("base64").encode("hi") end}`,
		"q.lua": `return {kind = "prompt", name = "q", get = function() return 42 end}`,
	})}); diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	if r, err := feature.GetPrompt(bg, e, "p", nil); err == nil || strings.Contains(fmt.Sprint(r), "s3cret") ||
		!strings.Contains(err.Error(), "fs.read is not available in get, which may only compute") {
		t.Errorf("a prompt read a file: %+v, %v", r, err)
	}
	if c, err := feature.ReadResource(bg, e, "x://r"); err != nil || c.Text != "aGk=" {
		t.Errorf("ReadResource with a pure module = %+v, %v", c, err)
	}
	_, err = feature.GetPrompt(bg, e, "q", nil)
	if err == nil || !strings.Contains(err.Error(), "t/q.lua:1: get returned a number; it must return a string or a list of messages") {
		t.Errorf("GetPrompt of a bad return = %v", err)
	}
}

// Under Watch, a prompt file is hot-reloaded like a tool: added, a broken version
// reported while the last good one keeps serving, then removed.
func TestPromptHotReload(t *testing.T) {
	dir := t.TempDir()
	e := newLuaEngine(t, engine.Options{})
	e.Load(engine.DirSource(dir))
	events := make(chan engine.Event, 64)
	defer e.Subscribe(func(ev engine.Event) { events <- ev })()
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() { done <- e.Watch(ctx, engine.WatchOptions{Poll: true, PollInterval: 20 * time.Millisecond}) }()
	defer func() { cancel(); <-done }()
	next := func(kind engine.EventKind) engine.Event {
		t.Helper()
		for {
			select {
			case ev := <-events:
				if ev.Kind == kind {
					return ev
				}
			case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
				t.Fatalf("no %s event", kind)
			}
		}
	}
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "p.lua"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`return {kind = "prompt", name = "p", get = function() return "v1" end}`)
	if ev := next(feature.PromptAdded); ev.Name != "p" || ev.File != filepath.Join(dir, "p.lua") {
		t.Errorf("added event = %+v", ev)
	}
	write("return {kind = \"prompt\", name = \"p\",\n get = function() return \"v2\" end end}")
	if ev := next(engine.LoadFailed); !strings.Contains(diagText(ev.Diagnostics), "p.lua:2:") {
		t.Errorf("failed event = %+v", ev)
	}
	if r, err := feature.GetPrompt(bg, e, "p", nil); err != nil || r.Messages[0].Content.Text != "v1" {
		t.Errorf("the last good version: %+v, %v", r, err)
	}
	if err := os.Remove(filepath.Join(dir, "p.lua")); err != nil {
		t.Fatal(err)
	}
	next(feature.PromptRemoved)
	if _, err := feature.GetPrompt(bg, e, "p", nil); !errors.Is(err, feature.ErrUnknownPrompt) {
		t.Errorf("a removed prompt: %v", err)
	}
}
