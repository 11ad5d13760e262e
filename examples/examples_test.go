package examples

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/builtin/hostmod"
	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/env"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/luatest"
	"github.com/luatool/luatool/engine/mcpserver"
	"github.com/luatool/luatool/engine/netpolicy"
)

// token is the GitHub token the host hands GitHubIssues in the MCP test.
const token = "ghp_exampletoken0123456789"

// TestLuaTests runs the Lua tests beside each example tool, as luatool test does.
func TestLuaTests(t *testing.T) {
	files, err := filepath.Glob("*/*_test.lua")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Lua tests: %v", err)
	}
	for _, f := range files {
		dir := filepath.Dir(f)
		r := luatest.RunFile(context.Background(), f, luatest.Options{NewEngine: func(root, scratch string) (*engine.Engine, error) {
			mods, err := hostmod.Standard([]string{root})
			if err != nil {
				return nil, err
			}
			e, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})},
				Roots: []string{root}, Cwd: root, ResultsDir: scratch})
			if err != nil {
				return nil, err
			}
			abs, _ := filepath.Abs(dir)
			if diags := e.Load(engine.Source{Name: dir, Dir: abs}); diag.HasErrors(diags) {
				return nil, fmt.Errorf("load %s: %v", dir, diags)
			}
			return e, nil
		}})
		if r.Err != nil {
			t.Fatalf("%s: %v", f, r.Err)
		}
		for _, c := range r.Cases {
			if c.Err != nil {
				t.Errorf("%s: %s: %v", f, c.Name, c.Err)
			}
		}
		if len(r.Cases) == 0 {
			t.Errorf("%s: no case ran", f)
		}
	}
}

// githubResolver sends api.github.com to the local server; every other name is
// unknown, so nothing in the test reaches the network.
type githubResolver struct{}

func (githubResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if host == "api.github.com" {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// TestGitHubIssuesOverMCP serves GitHubIssues over MCP, as luatool serve would, with
// its http module reaching a local TLS server in place of api.github.com and the
// token handed to it as a secret: the client gets the issues, the server got the
// token, and an error echoing the token reaches the client redacted.
func TestGitHubIssuesOverMCP(t *testing.T) {
	var gotAuth []string
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = append(gotAuth, r.Header.Get("Authorization"))
		switch r.URL.Path {
		case "/repos/golang/go/issues":
			if r.URL.Query().Get("labels") != "bug" || r.URL.Query().Get("per_page") != "2" {
				http.Error(w, "unexpected query "+r.URL.RawQuery, http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `[{"number": 7, "title": "panic in net/http", "user": {"login": "gopher"}, "labels": [{"name": "bug"}]}]`)
		default:
			// An API that echoes what it was sent, the commonest way a key leaks.
			w.WriteHeader(http.StatusTeapot)
			fmt.Fprintf(w, "echo: %s", r.Header.Get("Authorization"))
		}
	}))
	defer api.Close()
	tlsConfig := api.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	tlsConfig.RootCAs = x509.NewCertPool()
	tlsConfig.RootCAs.AddCert(api.Certificate())
	tlsConfig.ServerName = "example.com" // the name httptest's certificate is for
	// The local server is a loopback address: the host's allow list must name it.
	policy, err := netpolicy.NewPolicy(nil, []string{"api.github.com"})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	mods, err := hostmod.StandardWith(hostmod.Options{Roots: []string{root},
		HTTP: hostmod.HTTPOptions{Policy: policy, Resolver: githubResolver{}, TLS: tlsConfig}})
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(api.URL, "https://"), ":")
	env, err := env.New([]env.Var{
		{Name: "GITHUB_TOKEN", Value: token, Secret: true, Tools: []string{"GitHubIssues"}},
		{Name: "GITHUB_API_URL", Value: "https://api.github.com:" + port},
	})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{Modules: mods})},
		Roots: []string{root}, Cwd: root, ResultsDir: t.TempDir(), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() }) // after the session and server serveExample closes
	ctx := context.Background()
	session := serveExample(t, e, "github")

	call := func(args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "GitHubIssues", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	text := func(res *mcp.CallToolResult) string { return res.Content[0].(*mcp.TextContent).Text }

	res := call(map[string]any{"repo": "golang/go", "labels": "bug", "limit": 2})
	if res.IsError || text(res) != "#7 panic in net/http (@gopher) [bug]" {
		t.Fatalf("isError=%v %q", res.IsError, text(res))
	}
	if len(gotAuth) != 1 || gotAuth[0] != "Bearer "+token {
		t.Errorf("the API got Authorization %q", gotAuth)
	}
	// The error text quotes what the API answered, the token included: the client
	// sees it redacted.
	res = call(map[string]any{"repo": "golang/echo"})
	if !res.IsError || strings.Contains(text(res), token) || !strings.Contains(text(res), "418: echo: Bearer [redacted:GITHUB_TOKEN]") {
		t.Errorf("an answer echoing the token: isError=%v %q", res.IsError, text(res))
	}
}

// TestPromptsOverMCP serves the prompts/ directory over MCP: the prompt is listed
// with its arguments and rendered for them, a bad argument value is the prompt's own
// error, the resource template is listed and read, and the prompt's style and the
// template's language complete.
func TestPromptsOverMCP(t *testing.T) {
	root := t.TempDir()
	e, err := engine.New(engine.Options{Loaders: []engine.Loader{luaload.New(luaload.Options{})}, Roots: []string{root}, Cwd: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() }) // after the session and server serveExample closes
	ctx := context.Background()
	session := serveExample(t, e, "prompts")

	prompts, err := session.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "commit_message" || len(prompts.Prompts[0].Arguments) != 2 {
		t.Fatalf("prompts/list = %+v, %v", prompts, err)
	}
	got, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "commit_message", Arguments: map[string]string{"style": "conventional", "issue": "42"}})
	if err != nil {
		t.Fatal(err)
	}
	text := got.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, "Start the subject with a type") || !strings.HasSuffix(text, "Closes #42") || got.Messages[1].Role != "assistant" {
		t.Errorf("prompts/get = %q, %+v", text, got.Messages[1])
	}
	if _, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "commit_message", Arguments: map[string]string{"style": "haiku"}}); err == nil ||
		!strings.Contains(err.Error(), "style must be conventional or plain, not haiku") {
		t.Errorf("prompts/get with a bad style = %v", err)
	}

	templates, err := session.ListResourceTemplates(ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "style://{language}" {
		t.Fatalf("resources/templates/list = %+v, %v", templates, err)
	}
	read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "style://go"})
	if err != nil || !strings.HasPrefix(read.Contents[0].Text, "# Go") || read.Contents[0].MIMEType != "text/markdown" {
		t.Errorf("resources/read style://go = %+v, %v", read, err)
	}
	if _, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "style://cobol"}); err == nil || !strings.Contains(err.Error(), "no style guide for cobol") {
		t.Errorf("resources/read style://cobol = %v", err)
	}

	for _, tt := range []struct {
		ref        mcp.CompleteReference
		arg, typed string
		want       []string
	}{
		{mcp.CompleteReference{Type: "ref/prompt", Name: "commit_message"}, "style", "c", []string{"conventional"}},
		{mcp.CompleteReference{Type: "ref/prompt", Name: "commit_message"}, "style", "", []string{"conventional", "plain"}},
		{mcp.CompleteReference{Type: "ref/resource", URI: "style://{language}"}, "language", "", []string{"go", "lua"}},
		{mcp.CompleteReference{Type: "ref/resource", URI: "style://{language}"}, "language", "l", []string{"lua"}},
	} {
		got, err := session.Complete(ctx, &mcp.CompleteParams{Ref: &tt.ref, Argument: mcp.CompleteParamsArgument{Name: tt.arg, Value: tt.typed}})
		if err != nil || !slices.Equal(got.Completion.Values, tt.want) {
			t.Errorf("completion/complete %s %s %q = %+v, %v; want %v", tt.ref.Name+tt.ref.URI, tt.arg, tt.typed, got, err, tt.want)
		}
	}
}

// serveExample loads the example directory dir into e without a problem and
// serves it to an MCP client over an in-memory transport, for the rest of the test.
func serveExample(t *testing.T, e *engine.Engine, dir string) *mcp.ClientSession {
	t.Helper()
	abs, _ := filepath.Abs(dir)
	if diags := e.Load(engine.Source{Name: dir, Dir: abs}); len(diags) > 0 {
		t.Fatalf("load %s: %v", dir, diags)
	}
	srv := mcpserver.New(e, mcpserver.Options{Name: "examples"})
	t.Cleanup(srv.Close)
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(context.Background(), serverEnd, nil); err != nil {
		t.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}
