package mcpserver

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
)

// clientEngine has a tool with an outputSchema and a mapResult of its own, and
// tools with each kind of maxResultSizeChars.
func clientEngine(t *testing.T) *engine.Engine {
	t.Helper()
	fsys := fstest.MapFS{
		"count.lua": {Data: []byte(`return {
  name = "Count",
  prompt = "p",
  inputSchema = { type = "object" },
  outputSchema = { type = "object", properties = { n = { type = "integer" } }, required = { "n" } },
  isReadOnly = true,
  maxResultSizeChars = 1234.5,
  call = function() return { data = { n = 3 } } end,
  mapResult = function(data) return "Found " .. data.n .. " files" end,
}`)},
		"plain.lua": {Data: []byte(`return { name = "Plain", prompt = "p", inputSchema = { type = "object" }, call = function() return "x" end }`)},
		"whole.lua": {Data: []byte(`return { name = "Whole", prompt = "p", inputSchema = { type = "object" }, maxResultSizeChars = math.huge, call = function() return "x" end }`)},
	}
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Loaders: []engine.Loader{luaload.New(luaload.Options{})}})
	if err != nil {
		t.Fatal(err)
	}
	if diags := eng.Load(engine.Source{Name: "t", FS: fsys}); diag.HasErrors(diags) {
		t.Fatal(diags)
	}
	return eng
}

// connectAs connects a client that names itself name.
func connectAs(t *testing.T, eng *engine.Engine, name string) *mcp.ClientSession {
	t.Helper()
	_, session := connectNamed(t, eng, name, nil)
	return session
}

func listed(t *testing.T, s *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	return tools
}

// Every client is sent each tool's persistence threshold as
// anthropic/maxResultSizeChars: the engine sends nothing larger inline.
func TestMaxResultSizeCharsListed(t *testing.T) {
	tools := listed(t, connectAs(t, clientEngine(t), "test"))
	for name, want := range map[string]float64{"Count": 1235, "Plain": engine.DefaultMaxResultSizeChars, "Whole": 500000} {
		if got := tools[name].Meta["anthropic/maxResultSizeChars"]; got != want {
			t.Errorf("%s: anthropic/maxResultSizeChars = %v, want %v", name, got, want)
		}
	}
}

// A client that shows structuredContent (any but Claude Code) is listed the
// outputSchema and gets the data as structuredContent and the mapped text as
// content; Claude Code, which would show the model the data in place of the text,
// gets neither outputSchema nor structuredContent, and its model reads the text.
func TestStructuredContentPerClient(t *testing.T) {
	eng := clientEngine(t)
	for _, tc := range []struct {
		client     string
		structured bool
	}{{"test", true}, {"claude-code", false}} {
		s := connectAs(t, eng, tc.client)
		tool := listed(t, s)["Count"]
		if hasSchema := tool.OutputSchema != nil; hasSchema != tc.structured {
			t.Errorf("%s: outputSchema listed %v, want %v", tc.client, hasSchema, tc.structured)
		}
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Count", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s: %v", tc.client, err)
		}
		var text []string
		for _, c := range res.Content {
			text = append(text, c.(*mcp.TextContent).Text)
		}
		if got := strings.Join(text, "\n"); got != "Found 3 files" || res.IsError {
			t.Errorf("%s: content %q (isError %v), want the mapped text", tc.client, got, res.IsError)
		}
		m, ok := res.StructuredContent.(map[string]any)
		if tc.structured && (!ok || m["n"] != float64(3)) {
			t.Errorf("%s: structuredContent %#v, want the data", tc.client, res.StructuredContent)
		}
		if !tc.structured && res.StructuredContent != nil {
			t.Errorf("%s: structuredContent %#v, want none", tc.client, res.StructuredContent)
		}
	}
	// The list of one client does not change another's.
	if listed(t, connectAs(t, eng, "test"))["Count"].OutputSchema == nil {
		t.Error("a Claude Code client's list took the outputSchema from the registered tool")
	}
}

// Over the stateless protocol a request names its client in _meta.
func TestClientNameFromRequestMeta(t *testing.T) {
	params := &mcp.CallToolParamsRaw{Meta: mcp.Meta{mcp.MetaKeyClientInfo: map[string]any{"name": "claude-code", "version": "2.1.328"}}}
	if wantsStructured(nil, params) {
		t.Error("a request naming claude-code in _meta is sent structuredContent")
	}
	if !wantsStructured(nil, &mcp.CallToolParamsRaw{}) || !wantsStructured(nil, (*mcp.CallToolParamsRaw)(nil)) {
		t.Error("a request of an unnamed client is not sent structuredContent")
	}
}
