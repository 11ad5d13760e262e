package scripts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/scripts"
)

// deferredTool is the source of a Lua tool taking one required number, cell.
func deferredTool(name, hint, prompt string, deferred bool) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(fmt.Sprintf(`return {
  name = %q,
  searchHint = %q,
  shouldDefer = %v,
  prompt = %q,
  inputSchema = { type = "object", properties = { cell = { type = "number" } }, required = { "cell" }, additionalProperties = false },
  call = function(input) return "ok " .. input.cell end,
}`, name, hint, deferred, prompt))}
}

// newSearchEnv serves the standard tools and a few extra ones, most of them deferred.
func newSearchEnv(t *testing.T) *engine.Engine {
	t.Helper()
	root := t.TempDir()
	mods, err := hostmod.Standard([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})}, Roots: []string{root}, ResultsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	extra := fstest.MapFS{
		"notebook.lua": deferredTool("NotebookEdit", "edit jupyter notebook cells", "Edits a cell of a Jupyter notebook.", true),
		"webfetch.lua": deferredTool("WebFetch", "fetch a web page by url", "Fetches a URL. Handy for notebook docs.", true),
		"send.lua":     deferredTool("mcp__slack__send_message", "post a message to a slack channel", "Sends a message.", true),
		"list.lua":     deferredTool("mcp__slack__list_channels", "", "Lists channels.", true),
		"mail.lua":     deferredTool("SendMail", "send an email", "Sends mail.", true),
		"echo.lua":     deferredTool("Echo", "echo a notebook cell", "Echoes a notebook cell.", false),
	}
	for _, d := range e.Load(engine.Source{Name: "scripts/tools", FS: scripts.Tools()}, engine.Source{Name: "extra", FS: extra}) {
		if d.Severity != diag.SeverityNotice {
			t.Fatalf("load: %s", d)
		}
	}
	return e
}

// search runs ToolSearch and returns its matches and result text.
func search(t *testing.T, e *engine.Engine, input string) ([]string, string) {
	t.Helper()
	r := e.Call(context.Background(), engine.ToolUse{ID: "toolu_1", Name: "ToolSearch", Input: json.RawMessage(input)})
	if r.Block.IsError {
		t.Fatalf("ToolSearch %s: %s", input, r.Block.Content.String())
	}
	var names []string
	for _, m := range r.Data.(map[string]any)["matches"].([]any) {
		names = append(names, m.(string))
	}
	return names, r.Block.Content.String()
}

func TestToolSearchSelect(t *testing.T) {
	e := newSearchEnv(t)
	names, text := search(t, e, `{"query": "SELECT:NotebookEdit, Read ,Nope,NotebookEdit"}`)
	if want := []string{"NotebookEdit", "Read"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("matches = %v, want %v", names, want)
	}
	want := `<functions>` + "\n" +
		`<function>{"description":"Edits a cell of a Jupyter notebook.","name":"NotebookEdit","parameters":{"additionalProperties":false,"properties":{"cell":{"type":"number"}},"required":["cell"],"type":"object"}}</function>` + "\n"
	if !strings.HasPrefix(text, want) || !strings.Contains(text, `"name":"Read","parameters":{`) || !strings.HasSuffix(text, "</function>\n</functions>") {
		t.Errorf("result:\n%s", text)
	}
	for name, want := range map[string]bool{"NotebookEdit": true, "Read": true, "Nope": false, "WebFetch": false} {
		if slices.Contains(e.DiscoveredTools(context.Background()), name) != want {
			t.Errorf("Discovered(%s) = %v, want %v", name, !want, want)
		}
	}
	if got := e.DiscoveredTools(context.Background()); !reflect.DeepEqual(got, []string{"NotebookEdit", "Read"}) {
		t.Errorf("DiscoveredTools = %v", got)
	}
}

func TestToolSearchKeywords(t *testing.T) {
	cases := []struct {
		input string
		want  []string
	}{
		// NotebookEdit: name part 10 + hint 4 + description 2; WebFetch: description 2.
		// Echo is not deferred: keyword search covers deferred tools only.
		{`{"query": "notebook"}`, []string{"NotebookEdit", "WebFetch"}},
		{`{"query": "notebook", "max_results": 1}`, []string{"NotebookEdit"}},
		{`{"query": "note"}`, []string{"NotebookEdit"}},
		// +slack keeps SendMail out although it matches "send".
		{`{"query": "+slack send"}`, []string{"mcp__slack__send_message", "mcp__slack__list_channels"}},
		// SendMail: name part 10 + hint 4; the MCP tool: name part 12.
		{`{"query": "send"}`, []string{"SendMail", "mcp__slack__send_message"}},
		{`{"query": "+nothing send"}`, nil},
		// Exact name (any case) and the mcp__ prefix.
		{`{"query": "webfetch"}`, []string{"WebFetch"}},
		{`{"query": "echo"}`, []string{"Echo"}},
		{`{"query": "mcp__slack"}`, []string{"mcp__slack__list_channels", "mcp__slack__send_message"}},
		{`{"query": "jupyter cells"}`, []string{"NotebookEdit"}},
	}
	for _, c := range cases {
		e := newSearchEnv(t)
		got, _ := search(t, e, c.input)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: matches = %v, want %v", c.input, got, c.want)
		}
		for _, name := range c.want {
			if !slices.Contains(e.DiscoveredTools(context.Background()), name) {
				t.Errorf("%s: %s not discovered", c.input, name)
			}
		}
	}
}

func TestToolSearchNoMatch(t *testing.T) {
	e := newSearchEnv(t)
	for _, in := range []string{`{"query": "zzzz"}`, `{"query": "select:Nope"}`} {
		names, text := search(t, e, in)
		if len(names) != 0 || text != "No matching deferred tools found" {
			t.Errorf("%s: %v %q", in, names, text)
		}
	}
	if got := e.DiscoveredTools(context.Background()); len(got) != 0 {
		t.Errorf("DiscoveredTools = %v", got)
	}
}

func TestUndiscoveredToolHint(t *testing.T) {
	e := newSearchEnv(t)
	call := func(name string) string {
		r := e.Call(context.Background(), engine.ToolUse{ID: "toolu_2", Name: name, Input: json.RawMessage(`{"cell": "one"}`)})
		if !r.Block.IsError {
			t.Fatalf("%s: not an error", name)
		}
		return r.Block.Content.String()
	}
	const hint = `ToolSearch with query "select:NotebookEdit"`
	if got := call("NotebookEdit"); !strings.Contains(got, "InputValidationError") || !strings.Contains(got, hint) {
		t.Errorf("undiscovered: %s", got)
	}
	if got := call("Echo"); strings.Contains(got, "ToolSearch") {
		t.Errorf("not deferred: %s", got)
	}
	search(t, e, `{"query": "select:NotebookEdit"}`)
	if got := call("NotebookEdit"); strings.Contains(got, "ToolSearch") {
		t.Errorf("discovered: %s", got)
	}
}

func TestToolSearchNotDeferred(t *testing.T) {
	e := newSearchEnv(t)
	ts, ok := e.Registry().Lookup("ToolSearch")
	if !ok || ts.Deferred() {
		t.Fatal("ToolSearch must be loaded and never deferred")
	}
}
