package luatool_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool"
	"github.com/luatool/luatool/engine/mcpserver"
)

// workspace makes a directory holding files, by name, for an example; remove it
// with os.RemoveAll.
func workspace(files map[string]string) string {
	dir, err := os.MkdirTemp("", "workspace")
	if err == nil {
		err = writeTree(dir, files)
	}
	if err != nil {
		panic(err)
	}
	return dir
}

// A Runtime serves the standard tools, confined to its roots, and a tool directory of
// the host's: a call goes through the whole pipeline, and a path outside the roots
// is out of every tool's reach.
func Example() {
	dir := workspace(map[string]string{
		"notes.txt": "one\ntwo\n",
		"tools/shout.lua": `return {
  name = "Shout",
  prompt = "Upper-cases a text.",
  inputSchema = { type = "object", properties = { text = { type = "string" } }, required = { "text" } },
  isReadOnly = true,
  call = function(input) return input.text:upper() .. "!" end,
}`,
	})
	defer os.RemoveAll(dir)
	ctx := context.Background()

	rt, err := luatool.New(luatool.Options{Roots: []string{dir}, ToolDirs: []string{filepath.Join(dir, "tools")}})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	fmt.Println(rt.Call(ctx, "Glob", `{"pattern": "*.txt"}`).Block.Content)
	fmt.Println(rt.Call(ctx, "Shout", `{"text": "hello"}`).Block.Content)
	res := rt.Call(ctx, "Read", `{"file_path": "/etc/hostname"}`)
	fmt.Println(res.Block.IsError)
	// Output:
	// notes.txt
	// HELLO!
	// true
}

type weatherIn struct {
	City string `json:"city" jsonschema:"the city to look up"`
}

type weatherOut struct {
	City    string  `json:"city"`
	Celsius float64 `json:"celsius"`
}

// AddTool adds a Go tool: its input schema comes from the input type, and what it
// returns is the result's data. A tool that is read-only for every input says so;
// one that does not is asked about (see Options.Ask).
func ExampleAddTool() {
	dir := workspace(nil)
	defer os.RemoveAll(dir)
	rt, err := luatool.New(luatool.Options{Roots: []string{dir}, NoStandardTools: true})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	luatool.AddTool(rt, luatool.Tool[weatherIn, weatherOut]{
		Name: "Weather", Prompt: "Tells the weather of a city.", ReadOnly: true,
		Call: func(_ context.Context, in weatherIn, _ *luatool.CallContext) (weatherOut, error) {
			return weatherOut{City: in.City, Celsius: 21.5}, nil
		},
	})
	fmt.Println(rt.Call(context.Background(), "Weather", `{"city": "Oslo"}`).Block.Content)
	fmt.Println(rt.Call(context.Background(), "Weather", `{"town": "Oslo"}`).Block.Content)
	// Output:
	// {"celsius":21.5,"city":"Oslo"}
	// <tool_use_error>InputValidationError: Weather failed due to the following issues:
	// The required parameter `city` is missing
	// An unexpected parameter `town` was provided</tool_use_error>
}

// Ask answers what the permission pipeline leaves open. An "allow always" answer
// allows the calls the request suggests from then on; a call that would write
// something protected (here the tool directory) is denied without asking, unless
// AskProtected says that Ask asks a person.
func ExampleOptions_ask() {
	dir := workspace(map[string]string{"tools/.keep": ""})
	defer os.RemoveAll(dir)
	ctx := context.Background()
	rt, err := luatool.New(luatool.Options{Roots: []string{dir}, ToolDirs: []string{filepath.Join(dir, "tools")},
		Ask: func(_ context.Context, req luatool.PermissionRequest) luatool.Answer {
			fmt.Println("asked:", req.Description, req.Suggestions)
			return luatool.AllowAlways
		}})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	for _, command := range []string{"mkdir -p build", "mkdir -p build"} {
		fmt.Printf("%q\n", rt.Call(ctx, "Bash", `{"command": "`+command+`"}`).Block.Content)
	}
	res := rt.Call(ctx, "Write", `{"file_path": "`+filepath.Join(dir, "tools", "evil.lua")+`", "content": "return {}"}`)
	fmt.Println(res.Block.IsError, res.Stage, res.Block.Content)
	// Output:
	// asked: Run shell command [Bash(mkdir -p build)]
	// "(Bash completed with no output)"
	// "(Bash completed with no output)"
	// true permission Permission to use Write has been denied.
}

// Run takes the tool_use blocks of one model turn and returns one result for each,
// in order.
func ExampleRuntime_Run() {
	dir := workspace(map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"})
	defer os.RemoveAll(dir)
	rt, err := luatool.New(luatool.Options{Roots: []string{dir}})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	results := rt.Run(context.Background(), []luatool.ToolUse{
		{ID: "toolu_1", Name: "Grep", Input: []byte(`{"pattern": "alpha"}`)},
		{ID: "toolu_2", Name: "Grep", Input: []byte(`{"pattern": "beta"}`)},
		{ID: "toolu_3", Name: "Greb", Input: []byte(`{}`)},
	})
	for _, r := range results {
		fmt.Println(r.Block.ToolUseID, r.Block.Content)
	}
	// Output:
	// toolu_1 Found 1 file
	// a.txt
	// toolu_2 Found 1 file
	// b.txt
	// toolu_3 <tool_use_error>Error: No such tool available: Greb. Did you mean Grep?</tool_use_error>
}

// Watch keeps the tool directories current: a saved file serves its next call.
func ExampleRuntime_Watch() {
	tool := func(text string) string {
		return `return { name = "Hello", prompt = "Greets.", inputSchema = { type = "object" },
  isReadOnly = true, call = function() return "` + text + `" end }`
	}
	dir := workspace(map[string]string{"tools/hello.lua": tool("hello")})
	defer os.RemoveAll(dir)
	rt, err := luatool.New(luatool.Options{Roots: []string{dir}, ToolDirs: []string{filepath.Join(dir, "tools")}, NoStandardTools: true})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go rt.Watch(ctx)

	fmt.Println(rt.Call(ctx, "Hello", `{}`).Block.Content)
	if err := os.WriteFile(filepath.Join(dir, "tools", "hello.lua"), []byte(tool("bonjour")), 0o644); err != nil {
		panic(err)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if res := rt.Call(ctx, "Hello", `{}`); res.Block.Content.String() != "hello" {
			fmt.Println(res.Block.Content)
			break
		}
	}
	// Output:
	// hello
	// bonjour
}

// HTTPHandler serves the tools over MCP's streamable HTTP; here to a client of the
// MCP SDK, with a bearer token for the local user.
func ExampleRuntime_HTTPHandler() {
	dir := workspace(map[string]string{"notes.txt": "one\ntwo\n"})
	defer os.RemoveAll(dir)
	rt, err := luatool.New(luatool.Options{Roots: []string{dir}})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	const token = "local-0123456789abcdef"
	tokens, err := mcpserver.LocalUserTokens(token)
	if err != nil {
		panic(err)
	}
	hs := httptest.NewServer(rt.HTTPHandler(luatool.HTTPOptions{Tokens: tokens}))
	defer hs.Close()

	ctx := context.Background()
	transport := &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearer(token)}}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		panic(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "Glob", Arguments: map[string]any{"pattern": "*.txt"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// notes.txt
}

// bearer sends a bearer token with every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
