package mcpserver_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/mcpserver"
	"github.com/luatool/luatool/engine/rules"
)

// bearer adds a bearer token to a client's requests.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// A host serves many users over HTTP: each bearer token names a principal, whose
// calls see their own session, and whose profile may hide tools. Here bob's profile
// denies Deploy, so he is not listed it; a request without a token is refused.
func ExampleServer_HTTPHandler() {
	answer := func(text string) func(context.Context, map[string]any, *engine.CallContext) (*engine.ToolResult, error) {
		return func(context.Context, map[string]any, *engine.CallContext) (*engine.ToolResult, error) {
			return &engine.ToolResult{Data: text}, nil
		}
	}
	prompt := func(text string) func(context.Context, engine.PromptOptions) (string, error) {
		return func(context.Context, engine.PromptOptions) (string, error) { return text, nil }
	}
	cwd, _ := os.Getwd()
	eng, err := engine.New(engine.Options{Cwd: cwd, Tools: []engine.ToolDef{
		{Name: "Status", Prompt: prompt("Says how things are."), InputSchema: map[string]any{"type": "object"}, Call: answer("all well")},
		{Name: "Deploy", Prompt: prompt("Deploys."), InputSchema: map[string]any{"type": "object"}, Call: answer("deployed")},
	}})
	if err != nil {
		panic(err)
	}
	noDeploy, err := eng.NewProfile(rules.Settings{Deny: []rules.Rule{{Text: "Deploy", Source: "bob's profile"}}})
	if err != nil {
		panic(err)
	}
	tokens, err := mcpserver.NewTokens([]mcpserver.Credential{
		{Name: "alice", Token: "alice-0123456789abcdef"},
		{Name: "bob", Token: "bob-0123456789abcdef", Profile: noDeploy},
	})
	if err != nil {
		panic(err)
	}
	srv := mcpserver.New(eng, mcpserver.Options{Name: "example"})
	defer srv.Close()
	hs := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{Tokens: tokens}))
	defer hs.Close()

	for _, token := range []string{"alice-0123456789abcdef", "bob-0123456789abcdef"} {
		transport := &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearer(token)}}
		session, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(context.Background(), transport, nil)
		if err != nil {
			panic(err)
		}
		list, err := session.ListTools(context.Background(), nil)
		if err != nil {
			panic(err)
		}
		var names []string
		for _, t := range list.Tools {
			names = append(names, t.Name)
		}
		fmt.Println(strings.SplitN(token, "-", 2)[0], "is listed", names)
		session.Close()
	}
	resp, err := http.Post(hs.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("without a token:", resp.Status, resp.Header.Get("WWW-Authenticate"))
	// Output:
	// alice is listed [Deploy Status]
	// bob is listed [Status]
	// without a token: 401 Unauthorized Bearer realm="luatool"
}
