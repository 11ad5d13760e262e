package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/internal/syncbuf"
)

// completionFiles are a prompt and a template whose arguments complete in each way.
var completionFiles = map[string]string{
	"pick.lua": `return {
  kind = "prompt", name = "pick", description = "Pick things",
  arguments = {
    { name = "lang", complete = { "go", "Gleam", "lua", "python" } },
    { name = "many", complete = function(value)
        local out = {}
        for i = 1, 150 do out[i] = value .. i end
        return out
      end },
    { name = "file", complete = function(value, args, ctx)
        return { value .. ".go", "in " .. (args.lang or "nothing") }
      end },
    { name = "fails", complete = function() error("the index is gone") end },
    { name = "refuses", complete = function() return nil, "not now" end },
    { name = "numbers", complete = function() return { 1, 2 } end },
    { name = "notlist", complete = function() return "go" end },
    { name = "plain" },
  },
  get = function(args) return "picked" end,
}`,
	"notes.lua": `return {
  kind = "resource", uriTemplate = "notes://{topic}/{page}", name = "note",
  complete = {
    topic = { "lua", "luatool", "go" },
    page = function(value, args) return { args.topic .. "-" .. value } end,
  },
  read = function(uri, ctx, params) return params.topic end,
}`,
	"readme.lua": readmeResource,
}

// completeServer serves files to an in-memory client and returns what the server
// logs.
func completeServer(t *testing.T, files map[string]string) (*mcp.ClientSession, *syncbuf.Buffer) {
	t.Helper()
	eng := featureEngine(t, t.TempDir(), files)
	var log syncbuf.Buffer
	srv := New(eng, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	t.Cleanup(srv.Close)
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, &log
}

func TestCompletion(t *testing.T) {
	cs, log := completeServer(t, completionFiles)
	if caps := cs.InitializeResult().Capabilities; caps.Completions == nil {
		t.Errorf("capabilities %+v: no completions", caps)
	}
	ctx := context.Background()
	prompt := func(arg, value string, args map[string]string) (mcp.CompletionResultDetails, error) {
		p := &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "pick"}, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
		if args != nil {
			p.Context = &mcp.CompleteContext{Arguments: args}
		}
		r, err := cs.Complete(ctx, p)
		if err != nil {
			return mcp.CompletionResultDetails{}, err
		}
		return r.Completion, nil
	}
	for _, tt := range []struct {
		arg, value string
		args       map[string]string
		want       mcp.CompletionResultDetails
	}{
		// A list offers what starts with the value, whatever its case.
		{"lang", "g", nil, mcp.CompletionResultDetails{Values: []string{"go", "Gleam"}, Total: 2}},
		{"lang", "", nil, mcp.CompletionResultDetails{Values: []string{"go", "Gleam", "lua", "python"}, Total: 4}},
		{"lang", "rust", nil, mcp.CompletionResultDetails{Values: []string{}}},
		// A function sees the value and the other arguments given.
		{"file", "main", map[string]string{"lang": "go"}, mcp.CompletionResultDetails{Values: []string{"main.go", "in go"}, Total: 2}},
		{"file", "x", nil, mcp.CompletionResultDetails{Values: []string{"x.go", "in nothing"}, Total: 2}},
		// An argument without a completion offers nothing.
		{"plain", "a", nil, mcp.CompletionResultDetails{Values: []string{}}},
	} {
		got, err := prompt(tt.arg, tt.value, tt.args)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("complete %s %q = %+v, %v; want %+v", tt.arg, tt.value, got, err, tt.want)
		}
	}

	// At most 100 values go out; the total says how many there are.
	got, err := prompt("many", "v", nil)
	if err != nil || len(got.Values) != 100 || got.Values[99] != "v100" || got.Total != 150 || !got.HasMore {
		t.Errorf("complete many = %d values, total %d, hasMore %v, %v", len(got.Values), got.Total, got.HasMore, err)
	}

	// A function that fails, or answers what is not a list of strings, offers
	// nothing, and the server's log says why.
	for arg, why := range map[string]string{
		"fails":   "the index is gone",
		"refuses": "not now",
		"numbers": "complete returned a list whose item 1 is a number",
		"notlist": "complete returned the string",
	} {
		got, err := prompt(arg, "", nil)
		if err != nil || got.Values == nil || len(got.Values) != 0 {
			t.Errorf("complete %s = %+v, %v; want no values", arg, got, err)
		}
		if !strings.Contains(log.String(), why) || !strings.Contains(log.String(), "argument="+arg) {
			t.Errorf("complete %s: the log does not say %q:\n%s", arg, why, log.String())
		}
	}
	// The server still answers.
	if got, err := prompt("lang", "l", nil); err != nil || !reflect.DeepEqual(got.Values, []string{"lua"}) {
		t.Errorf("complete after the failures = %+v, %v", got, err)
	}

	// A template's variables complete by ref/resource and the template.
	resource := func(uri, arg, value string, args map[string]string) (mcp.CompletionResultDetails, error) {
		r, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: uri},
			Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}, Context: &mcp.CompleteContext{Arguments: args}})
		if err != nil {
			return mcp.CompletionResultDetails{}, err
		}
		return r.Completion, nil
	}
	if got, err := resource("notes://{topic}/{page}", "topic", "lu", nil); err != nil || !reflect.DeepEqual(got.Values, []string{"lua", "luatool"}) {
		t.Errorf("complete topic = %+v, %v", got, err)
	}
	if got, err := resource("notes://{topic}/{page}", "page", "3", map[string]string{"topic": "go"}); err != nil || !reflect.DeepEqual(got.Values, []string{"go-3"}) {
		t.Errorf("complete page = %+v, %v", got, err)
	}

	// What names nothing is invalid params, as MCP specifies, with the closest name.
	for _, tt := range []struct {
		ref       mcp.CompleteReference
		arg, want string
	}{
		{mcp.CompleteReference{Type: "ref/prompt", Name: "pik"}, "lang", "no such prompt: pik (did you mean pick?)"},
		{mcp.CompleteReference{Type: "ref/prompt", Name: "pick"}, "lnag", `prompt pick takes no argument "lnag" (did you mean lang?)`},
		{mcp.CompleteReference{Type: "ref/resource", URI: "notes://{topik}/{page}"}, "topic", "no such resource: notes://{topik}/{page} (did you mean notes://{topic}/{page}?)"},
		{mcp.CompleteReference{Type: "ref/resource", URI: "notes://{topic}/{page}"}, "topik", `resource template notes://{topic}/{page} has no variable "topik" (did you mean topic?)`},
		{mcp.CompleteReference{Type: "ref/resource", URI: "docs://readme"}, "x", "resource docs://readme is not a template"},
	} {
		_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &tt.ref, Argument: mcp.CompleteParamsArgument{Name: tt.arg}})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, tt.want) {
			t.Errorf("complete %+v %s = %v; want invalid params saying %q", tt.ref, tt.arg, err, tt.want)
		}
	}
}

// Completions are checked as the file loads: each names what it completes, and is a
// list of strings or a function.
func TestCompletionLoadErrors(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{`return { kind = "prompt", name = "p", get = function() return "x" end,
  arguments = { { name = "a", complet = { "x" } } } }`, "argument 1: unknown field complet (did you mean complete?)"},
		{`return { kind = "prompt", name = "p", get = function() return "x" end,
  arguments = { { name = "a", complete = "x" } } }`, `argument 1: complete must be a list of strings or a function (value, args, ctx), got the string "x"`},
		{`return { kind = "prompt", name = "p", get = function() return "x" end,
  arguments = { { name = "a", complete = { "x", 2 } } } }`, "argument 1: complete must be a list of strings"},
		{`return { kind = "resource", uriTemplate = "n://{topic}", name = "n", read = function() return "" end,
  complete = { topik = { "x" } } }`, `complete: uriTemplate "n://{topic}" has no variable "topik" (did you mean topic?)`},
		{`return { kind = "resource", uri = "n://x", name = "n", read = function() return "" end,
  complete = { topic = { "x" } } }`, "complete is for the variables of a uriTemplate; a uri has none"},
		{`return { kind = "resource", uriTemplate = "n://{topic}", name = "n", read = function() return "" end,
  complete = { topic = 3 } }`, "complete.topic must be a list of strings or a function (value, args, ctx), got a number"},
		{`return { kind = "resource", uriTemplate = "n://{topic}", name = "n", read = function() return "" end,
  completes = {} }`, `unknown member "completes" of a resource (did you mean complete?)`},
	} {
		dir := t.TempDir()
		if err := writeFile(dir, "f.lua", tt.file); err != nil {
			t.Fatal(err)
		}
		eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Loaders: []engine.Loader{luaload.New(luaload.Options{})}})
		if err != nil {
			t.Fatal(err)
		}
		diags := eng.Load(engine.DirSource(dir))
		if !diag.HasErrors(diags) || !strings.Contains(fmt.Sprint(diags), tt.want) {
			t.Errorf("loading\n%s\n= %v; want an error saying %q", tt.file, diags, tt.want)
		}
	}
}
