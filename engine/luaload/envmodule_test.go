package luaload

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/env"
)

// envTool is a tool named name whose call returns what env.get gives for each name
// of its input's names (false for nil), and env.names().
func envTool(name string) string {
	return `local env = require("env")
local json = require("json")
return {
  name = "` + name + `", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true,
  call = function(input)
    local got = {}
    for _, n in ipairs(input.names or {}) do
      local v = env.get(n)
      if v == nil then v = false end
      got[n] = v
    end
    return { data = { got = got, names = json.array(env.names()) } }
  end,
}`
}

// newEnvEngine loads files with an engine whose Env is vars.
func newEnvEngine(t *testing.T, vars []env.Var, files map[string]string) (*engine.Engine, []diag.Diagnostic) {
	t.Helper()
	env, err := env.New(vars)
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEngine(t, engine.Options{Env: env})
	fsys := fstest.MapFS{}
	for name, src := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(src)}
	}
	return e, e.Load(engine.Source{Name: "tools", FS: fsys})
}

// envCall calls tool with the names and returns the data.
func envCall(t *testing.T, e *engine.Engine, tool string, names ...string) (got map[string]any, listed []any) {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"names": names})
	r := e.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: tool, Input: in})
	if r.Block.IsError {
		t.Fatalf("%s: %s", tool, r.Block.Content)
	}
	data := r.Data.(map[string]any)
	return data["got"].(map[string]any), data["names"].([]any)
}

// A tool reads the values given to every tool and those given to it by name, and
// nothing else: a name no one gave, or one given to another tool only, is nil, and
// env.names lists what the tool may read.
func TestEnvGetPerTool(t *testing.T) {
	e, diags := newEnvEngine(t, []env.Var{
		{Name: "UNITS", Value: "metric"},
		{Name: "WEATHER_URL", Value: "https://weather.example", Tools: []string{"Weather"}},
		{Name: "OTHER", Value: "for another", Tools: []string{"Other"}},
	}, map[string]string{"weather.lua": envTool("Weather"), "news.lua": envTool("News")})
	if diag.HasErrors(diags) {
		t.Fatal(diags)
	}
	got, names := envCall(t, e, "Weather", "UNITS", "WEATHER_URL", "OTHER", "HOME", "PATH")
	want := map[string]any{"UNITS": "metric", "WEATHER_URL": "https://weather.example", "OTHER": false, "HOME": false, "PATH": false}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("Weather: env.get(%q) = %v, want %v", k, got[k], v)
		}
	}
	if strings.Join(anyStrings(names), ",") != "UNITS,WEATHER_URL" {
		t.Errorf("Weather: env.names() = %v", names)
	}
	got, names = envCall(t, e, "News", "UNITS", "WEATHER_URL")
	if got["UNITS"] != "metric" || got["WEATHER_URL"] != false {
		t.Errorf("News: %v", got)
	}
	if strings.Join(anyStrings(names), ",") != "UNITS" {
		t.Errorf("News: env.names() = %v", names)
	}
}

// Without an Env, env is there and gives nothing: a tool that reads a value loads
// and runs everywhere.
func TestEnvWithoutValues(t *testing.T) {
	e, diags := newEnvEngine(t, nil, map[string]string{"w.lua": envTool("Weather")})
	if diag.HasErrors(diags) {
		t.Fatal(diags)
	}
	got, names := envCall(t, e, "Weather", "UNITS")
	if got["UNITS"] != false || len(names) != 0 {
		t.Errorf("got %v, names %v", got, names)
	}
}

// A secret is read by call, and redacted from what the call hands on; a member
// other than call that reads it fails, naming the member (and not the value), while
// a value that is not secret may be read there.
func TestEnvSecretOnlyInCall(t *testing.T) {
	const key = "sk-test-0123456789"
	vars := []env.Var{{Name: "API_KEY", Value: key, Secret: true}, {Name: "UNITS", Value: "metric"}}
	e, diags := newEnvEngine(t, vars, map[string]string{
		"w.lua": `local env = require("env")
return {
  name = "W", inputSchema = { type = "object" }, isReadOnly = true,
  prompt = function() return "units: " .. env.get("UNITS") end,
  call = function() return "the key is " .. env.get("API_KEY") end,
}`,
		"p.lua": `local env = require("env")
return { name = "P", inputSchema = { type = "object" }, call = function() return "" end,
  prompt = function() return env.get("API_KEY") end }`,
	})
	if diag.HasErrors(diags) {
		t.Fatal(diags)
	}
	w, _ := e.Registry().Lookup("W")
	if p, err := w.Prompt(context.Background(), engine.PromptOptions{}); err != nil || p != "units: metric" {
		t.Errorf("prompt = %q, %v", p, err)
	}
	r := e.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "W"})
	if got := r.Block.Content.String(); got != "the key is [redacted:API_KEY]" {
		t.Errorf("call: %q", got)
	}
	p, _ := e.Registry().Lookup("P")
	_, err := p.Prompt(context.Background(), engine.PromptOptions{})
	if err == nil || !strings.Contains(err.Error(), "p.lua:3: env.get: API_KEY is a secret, which only call() may read, not prompt") ||
		strings.Contains(err.Error(), key) {
		t.Errorf("a prompt reading a secret: %v", err)
	}
}

// env refuses while the tool file loads, checks its argument in the standard
// wording, and is a name the host may not give a module of its own.
func TestEnvErrors(t *testing.T) {
	_, diags := newEnvEngine(t, []env.Var{{Name: "X", Value: "1"}}, map[string]string{
		"t.lua": `local v = require("env").get("X")
return { name = "T", prompt = "p", inputSchema = { type = "object" }, call = function() return v end }`,
	})
	if !strings.Contains(diagText(diags), "tools/t.lua:1: error: env.get is not available while the tool file loads") {
		t.Errorf("env.get at load: %s", diagText(diags))
	}

	e, _ := newEnvEngine(t, nil, map[string]string{"t.lua": `return { name = "T", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true,
  call = function() return require("env").get() end }`})
	r := e.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "T"})
	if got := r.Block.Content.String(); !strings.Contains(got, "bad argument #1 to 'env.get' (string expected, got nil)") {
		t.Errorf("env.get(): %q", got)
	}

	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "module env: the name is reserved") {
			t.Errorf("a host module named env: %v", r)
		}
	}()
	New(Options{Modules: []*bindings.Module{envModule()}})
}

func anyStrings(list []any) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i], _ = v.(string)
	}
	return out
}
