package luaload

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"

	"github.com/luatool/luatool/bindings"
)

// probeTool is a Lua tool that runs the tools module: op "list" returns tools.list()
// as JSON, op "discover" returns what tools.discover(names) marked.
const probeTool = `local tools = require("tools")
local json = require("json")
return {
  name = "Probe",
  prompt = function(opts) return "probes " .. #opts.tools .. " tools" end,
  isReadOnly = true,
  inputSchema = { type = "object", properties = { op = { type = "string" }, names = { type = "array", items = { type = "string" } } } },
  call = function(input)
    if input.op == "list" then
      return json.encode(tools.list())
    end
    if input.op == "bad" then
      return json.encode(tools.discover({ "Probe", 3 }))
    end
    return json.encode(json.array(tools.discover(input.names)))
  end,
}`

func newModuleEngine(t *testing.T) *engine.Engine {
	t.Helper()
	hidden := minimalDef()
	hidden.Name, hidden.SearchHint, hidden.ShouldDefer = "Hidden", "a hidden tool", true
	hidden.Aliases = []string{"Secret"}
	hidden.InputSchema = map[string]any{"type": "object", "required": []string{"path"}, "properties": map[string]any{"path": map[string]any{"type": "string"}}}
	e, diags := loadDirs(t, engine.Options{Tools: []engine.ToolDef{hidden}}, writeDir(t, map[string]string{"probe.lua": probeTool}))
	if diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	return e
}

func probe(t *testing.T, e *engine.Engine, input string) (string, bool) {
	t.Helper()
	r := e.Call(bg, engine.ToolUse{ID: "toolu_1", Name: "Probe", Input: json.RawMessage(input)})
	return r.Block.Content.String(), r.Block.IsError
}

func TestToolsModuleList(t *testing.T) {
	e := newModuleEngine(t)
	out, isErr := probe(t, e, `{"op": "list"}`)
	if isErr {
		t.Fatal(out)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []map[string]any{
		{"name": "Hidden", "searchHint": "a hidden tool", "deferred": true, "prompt": "prompt",
			"inputSchema": map[string]any{"type": "object", "required": []any{"path"}, "properties": map[string]any{"path": map[string]any{"type": "string"}}}},
		{"name": "Probe", "searchHint": "", "deferred": false, "prompt": "probes 2 tools",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"op": map[string]any{"type": "string"}, "names": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tools.list() =\n%v\nwant\n%v", got, want)
	}
}

func TestToolsModuleDiscover(t *testing.T) {
	e := newModuleEngine(t)
	if slices.Contains(e.DiscoveredTools(bg), "Hidden") {
		t.Fatal("Hidden discovered before any discovery")
	}
	out, isErr := probe(t, e, `{"names": ["Secret", "Nope", "Hidden"]}`)
	if isErr || out != `["Hidden"]` {
		t.Fatalf("discover = %s (error %v)", out, isErr)
	}
	if !slices.Contains(e.DiscoveredTools(bg), "Hidden") || slices.Contains(e.DiscoveredTools(bg), "Nope") {
		t.Error("discovery not recorded as marked")
	}
	if got := e.DiscoveredTools(bg); !reflect.DeepEqual(got, []string{"Hidden"}) {
		t.Errorf("DiscoveredTools = %v", got)
	}
	out, isErr = probe(t, e, `{"op": "bad"}`)
	if !isErr || !strings.Contains(out, "bad argument #1 to 'tools.discover'") {
		t.Errorf("bad names: %s (error %v)", out, isErr)
	}
}

// TestModulesCheckedUpFront: a host module named tools or json, two of one name, or a
// value Lua cannot hold is a programming error New reports at once, with a panic,
// rather than a failure of some tool file later.
func TestModulesCheckedUpFront(t *testing.T) {
	for _, tc := range []struct {
		mods []*bindings.Module
		want string
	}{
		{[]*bindings.Module{{Name: ToolsModuleName}}, "reserved"},
		{[]*bindings.Module{{Name: "json"}}, "registered twice"},
		{[]*bindings.Module{{Name: "a"}, {Name: "a"}}, "registered twice"},
		{[]*bindings.Module{{Name: "c", Values: map[string]any{"ch": make(chan int)}}}, "module value c.ch"},
	} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), tc.want) {
					t.Errorf("New with %v: panic %v, want one saying %q", tc.mods[0].Name, p, tc.want)
				}
			}()
			New(Options{Modules: tc.mods})
		}()
	}
}

func TestUndiscoveredHintOnlyForDeferred(t *testing.T) {
	e := newModuleEngine(t)
	r := e.Call(bg, engine.ToolUse{ID: "toolu_1", Name: "Hidden", Input: json.RawMessage(`{}`)})
	if got := r.Block.Content.String(); !r.Block.IsError || !strings.Contains(got, `"select:Hidden"`) {
		t.Errorf("undiscovered deferred tool: %s", got)
	}
	e.Discover(bg, "Hidden")
	r = e.Call(bg, engine.ToolUse{ID: "toolu_2", Name: "Hidden", Input: json.RawMessage(`{}`)})
	if got := r.Block.Content.String(); !r.Block.IsError || strings.Contains(got, "ToolSearch") {
		t.Errorf("discovered tool: %s", got)
	}
	if got, isErr := probe(t, e, `{"names": 3}`); !isErr || strings.Contains(got, "ToolSearch") {
		t.Errorf("tool that is not deferred: %s", got)
	}
}

// TestPureModulesOffered: every tool may require the pure modules, in its main chunk
// too, without the host listing them; a host module of the same name replaces one,
// and Modules lists what tools may require.
func TestPureModulesOffered(t *testing.T) {
	const src = `local re, time, base64 = require("re"), require("time"), require("base64")
local word = re.compile([[\w+]]) -- the load phase may use them
return {
  name = "Pure", prompt = "p", isReadOnly = true, inputSchema = { type = "object" },
  call = function()
    return table.concat({ (re.gsub("a b", [[\w]], "<$0>")), base64.encode("hi"), tostring(time.now() > 0), word:match("  hey") }, " ")
  end,
}`
	e, diags := loadDirs(t, engine.Options{}, writeDir(t, map[string]string{"pure.lua": src}))
	if diag.HasErrors(diags) {
		t.Fatal(diagText(diags))
	}
	r := e.Call(bg, engine.ToolUse{ID: "toolu_1", Name: "Pure", Input: json.RawMessage(`{}`)})
	if got := r.Block.Content.String(); r.Block.IsError || got != "<a> <b> aGk= true hey" {
		t.Errorf("got %q (error %v)", got, r.Block.IsError)
	}

	own := &bindings.Module{Name: "time", Pure: true, Values: map[string]any{"now": func() int { return -1 }}}
	l := New(Options{Modules: []*bindings.Module{own}})
	var names []string
	for _, m := range l.Modules() {
		names = append(names, m.Name)
		if m.Name == "time" && m != own {
			t.Error("the host's time module did not replace the pure one")
		}
	}
	if want := []string{"time", "re", "base64", "hex", "url", "crypto", "uuid"}; !slices.Equal(names, want) {
		t.Errorf("Modules: %v, want %v", names, want)
	}
}
