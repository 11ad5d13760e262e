package mcpserver

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/luaload"
)

// asksEngine serves the conformance examples (ctx:log, ctx:sample, ctx:elicit) and
// Twice, which asks its user twice and its model once, Write, which needs
// approval, and Confirm, which needs approval and asks its user.
func asksEngine(t *testing.T) *engine.Engine {
	t.Helper()
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Loaders: []engine.Loader{luaload.New(luaload.Options{})},
		Tools: []engine.ToolDef{func() engine.ToolDef {
			w := goTool("Write", false, func(context.Context, map[string]any) (*engine.ToolResult, error) {
				return &engine.ToolResult{Data: "written"}, nil
			})
			w.IsReadOnly = nil
			return w
		}()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if diags := eng.Load(engine.DirSource("../../examples/conformance"), engine.Source{Name: "t", FS: fstest.MapFS{"twice.lua": {Data: []byte(`return {
  name = "Twice", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true,
  call = function(_, ctx)
    local form = { properties = { n = { type = "integer" } }, required = { "n" } }
    local a, err = ctx:elicit("first?", form)
    if not a then return nil, err end
    local b, err2 = ctx:elicit("second?", form)
    if not b then return nil, err2 end
    local m, err3 = ctx:sample("sum " .. a.content.n .. " and " .. b.content.n)
    if not m then return nil, err3 end
    return ("%d %d %s"):format(a.content.n, b.content.n, m.text)
  end,
}`)}, "confirm.lua": {Data: []byte(`return {
  name = "Confirm", prompt = "p", inputSchema = { type = "object" },
  call = function(_, ctx)
    local a, err = ctx:elicit("how many?", { properties = { n = { type = "integer" } }, required = { "n" } })
    if not a then return nil, err end
    return "n=" .. a.content.n
  end,
}`)}}}); len(diags) > 0 {
		t.Fatalf("load: %v", diags)
	}
	return eng
}

// asksServer serves asksEngine, its tools listed.
func asksServer(t *testing.T) *Server {
	t.Helper()
	srv := New(asksEngine(t), Options{})
	t.Cleanup(srv.Close)
	srv.Sync(context.Background())
	return srv
}

// answering is a client that answers every form with n, counting from 1, and
// every sampling request with the text it was sent.
func answering(asked *[]string) *mcp.ClientOptions {
	var mu sync.Mutex
	return &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			*asked = append(*asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": len(*asked)}}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m",
				Content: &mcp.TextContent{Text: "model: " + req.Params.Messages[0].Content.(*mcp.TextContent).Text}}, nil
		},
	}
}

// A tool's asks reach the client that made the call: as requests over a session
// (protocols before 2026-07-28) and in rounds (2026-07-28), with the same answers.
func TestToolAsksReachTheClient(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		var asked []string
		srv := asksServer(t)
		cs := connectVersion(t, srv, version, answering(&asked))
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "Twice", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != "1 2 model: sum 1 and 2" || strings.Join(asked, ",") != "first?,second?" {
			t.Errorf("%s: %s (asked %q)", version, text, asked)
		}
	}
}

// connectVersion connects a client of the protocol version to srv's SDK server.
func connectVersion(t *testing.T, srv *Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectHTTP connects a client of protocol 2025-11-25 over streamable HTTP.
func connectHTTP(t *testing.T, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// toolText calls a tool and returns its text and isError.
func toolText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// A client without the capability, and a stateless server's client that cannot be
// asked, give the tool nil and a message that says why: the call is a result.
func TestToolAsksUnavailable(t *testing.T) {
	srv := asksServer(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cs := connectVersion(t, srv, version, nil)
		if text, _ := toolText(t, cs, "test_sampling", map[string]any{"prompt": "p"}); text != "sampling unavailable: sample: unavailable: the client does not offer sampling" {
			t.Errorf("%s: %s", version, text)
		}
		if text, _ := toolText(t, cs, "test_elicitation", map[string]any{"message": "m"}); text != "elicitation unavailable: elicit: unavailable: the client does not offer elicitation (form mode)" {
			t.Errorf("%s: %s", version, text)
		}
	}
	hs := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
	t.Cleanup(hs.Close)
	var asked []string
	cs := connectHTTP(t, hs.URL, answering(&asked))
	if text, _ := toolText(t, cs, "test_elicitation", map[string]any{"message": "m"}); !strings.Contains(text, "a server started with sessions (--sessions)") || len(asked) > 0 {
		t.Errorf("stateless HTTP: %s", text)
	}
}

// Over HTTP with sessions, the server asks the client during the call.
func TestToolAsksOverHTTPSessions(t *testing.T) {
	srv := asksServer(t)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, &mcp.StreamableHTTPOptions{}))
	t.Cleanup(hs.Close)
	var asked []string
	cs := connectHTTP(t, hs.URL, answering(&asked))
	if text, isError := toolText(t, cs, "Twice", map[string]any{}); isError || text != "1 2 model: sum 1 and 2" {
		t.Errorf("%s", text)
	}
}

// A malformed answer to a permission ask (the form's allow missing: the client of
// issue 29 failed the whole tools/call with "missing properties: [\"allow\"]")
// denies the call, saying why: over a session, where the server asks, and in
// rounds, where the client calls again with the answer.
func TestMalformedPermissionAnswerDenies(t *testing.T) {
	srv := asksServer(t)
	c := startStdio(t, srv, StdioOptions{})
	c.initialize(true)
	c.send(`{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"Write","arguments":{}}}`)
	ask := c.recv()
	if string(ask["method"]) != `"elicitation/create"` {
		t.Fatalf("the permission ask: %s", must(json.Marshal(ask)))
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(ask["id"]) + `,"result":{"action":"accept","content":{"reason":"x"}}}`)
	m := c.recv()
	if res := string(m["result"]); !strings.Contains(res, `"isError":true`) ||
		!strings.Contains(res, `The user's approval could not be asked: malformed: elicitation result content does not match requested schema`) ||
		!strings.Contains(res, `missing properties: [\"allow\"]`) {
		t.Errorf("over a session: %s", must(json.Marshal(m)))
	}
	c.end()

	cs := connectVersion(t, srv, "2026-07-28", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil }})
	params := &mcp.CallToolParams{Name: "Write", Arguments: map[string]any{}}
	first, err := cs.CallTool(context.Background(), params)
	if err != nil || len(first.InputRequests) != 1 || onlyAsk(first.InputRequests) == "" {
		t.Fatalf("the first round: %v %+v", err, first)
	}
	for answer, want := range map[*mcp.ElicitResult]string{
		{Action: "accept", Content: map[string]any{"reason": "x"}}:  `malformed: elicitation answer: the required property "allow" is missing`,
		{Action: "accept", Content: map[string]any{"allow": "yes"}}: `malformed: elicitation answer: "allow": a boolean is expected, got a string`,
		{Action: "maybe"}: `malformed: elicitation answer: action must be "accept", "decline" or "cancel", got "maybe"`,
	} {
		second := *params
		second.InputResponses, second.RequestState = mcp.InputResponseMap{onlyAsk(first.InputRequests): answer}, first.RequestState
		res, err := cs.CallTool(context.Background(), &second)
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "The user's approval could not be asked: "+want) {
			t.Errorf("in rounds, %+v: %v %+v", answer, err, res)
		}
	}
	// An answer given for another call is not taken: the call asks again.
	other := *params
	other.Arguments = map[string]any{"x": 1}
	other.InputResponses, other.RequestState = mcp.InputResponseMap{onlyAsk(first.InputRequests): &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}}, first.RequestState
	if res, err := cs.CallTool(context.Background(), &other); err != nil || onlyAsk(res.InputRequests) == "" {
		t.Errorf("an answer for another call: %v %+v", err, res)
	}
}

// onlyAsk returns the key of the one request of a round that asks, or "".
func onlyAsk(m mcp.InputRequestMap) string {
	if len(m) != 1 {
		return ""
	}
	for k := range m {
		return k
	}
	return ""
}

// In rounds, an answer goes to the question it answers: when "allow always" makes
// the permission ask vanish from the next round, the tool's own form still gets
// its own answer, not the permission form's (and a form never gets another's).
func TestRoundsMatchAnswersToTheirAsks(t *testing.T) {
	var asked []string
	cs := connectVersion(t, asksServer(t), "2026-07-28", &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			if strings.HasSuffix(req.Params.Message, "?") && strings.Contains(req.Params.Message, "Allow") {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true, "always": true}}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": 3}}, nil
		}})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "Confirm", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != "n=3" || len(asked) != 2 {
		t.Errorf("%s (asked %q)", text, asked)
	}
}

// A user who rejects a sampling request (MCP's error -1) declined it.
func TestSamplingRejected(t *testing.T) {
	cs := connectVersion(t, asksServer(t), "2025-11-25", &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, &jsonrpc.Error{Code: -1, Message: "User rejected sampling request"}
		}})
	if text, _ := toolText(t, cs, "test_sampling", map[string]any{"prompt": "p"}); text != "sampling declined: sample: declined: User rejected sampling request" {
		t.Errorf("%s", text)
	}
}

// A malformed answer to a tool's form reaches the tool as nil and why, over a
// session and in rounds.
func TestMalformedElicitAnswer(t *testing.T) {
	srv := asksServer(t)
	c := startStdio(t, srv, StdioOptions{})
	c.initialize(true)
	c.send(`{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"m"}}}`)
	ask := c.recv()
	c.send(`{"jsonrpc":"2.0","id":` + string(ask["id"]) + `,"result":{"action":"accept","content":{"username":7}}}`)
	if m := c.recv(); !strings.Contains(string(m["result"]), `"text":"elicitation malformed: elicit: malformed: elicitation result content does not match`) {
		t.Errorf("over a session: %s", must(json.Marshal(m)))
	}
	c.end()

	cs := connectVersion(t, srv, "2026-07-28", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil }})
	params := &mcp.CallToolParams{Name: "test_elicitation", Arguments: map[string]any{"message": "m"}}
	first, err := cs.CallTool(context.Background(), params)
	if err != nil || onlyAsk(first.InputRequests) == "" {
		t.Fatalf("the first round: %v %+v", err, first)
	}
	second := *params
	second.InputResponses = mcp.InputResponseMap{onlyAsk(first.InputRequests): &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": 7.0, "email": "a@b"}}}
	second.RequestState = first.RequestState
	res, err := cs.CallTool(context.Background(), &second)
	if err != nil || res.Content[0].(*mcp.TextContent).Text != `elicitation malformed: elicit: malformed: elicitation answer: "username": a string is expected, got a number` {
		t.Errorf("in rounds: %v %+v", err, res)
	}
}

// ctx:log reaches the client as notifications/message at or above its level: over
// a session, the session's level; over stateless HTTP, the level the principal set
// in an earlier POST, whether the call is served by the SDK or directly.
func TestLogNotifications(t *testing.T) {
	type got struct {
		mu    sync.Mutex
		msgs  []string
		three chan struct{} // closed at the third message
	}
	handler := func(g *got) *mcp.ClientOptions {
		return &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			g.mu.Lock()
			defer g.mu.Unlock()
			d, _ := req.Params.Data.(string)
			if m, ok := req.Params.Data.(map[string]any); ok {
				d, _ = m["message"].(string)
			}
			g.msgs = append(g.msgs, string(req.Params.Level)+":"+req.Params.Logger+":"+d)
			if len(g.msgs) == 3 {
				close(g.three)
			}
		}}
	}
	srv := asksServer(t)
	hs := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
	t.Cleanup(hs.Close)
	stateless := func(g *got) *mcp.ClientSession { return connectHTTP(t, hs.URL, handler(g)) }
	const all = "info:test_tool_with_logging:Tool execution started,info:test_tool_with_logging:Tool processing data,info:test_tool_with_logging:Tool execution completed"
	for _, c := range []struct {
		name, level, want string
		connect           func(g *got) *mcp.ClientSession
	}{
		{"session", "debug", all, func(g *got) *mcp.ClientSession { return connectVersion(t, srv, "2025-11-25", handler(g)) }},
		{"session", "warning", "", func(g *got) *mcp.ClientSession { return connectVersion(t, srv, "2025-11-25", handler(g)) }},
		{"2026-07-28", "debug", all, func(g *got) *mcp.ClientSession { return connectVersion(t, srv, "2026-07-28", handler(g)) }},
		{"2026-07-28", "warning", "", func(g *got) *mcp.ClientSession { return connectVersion(t, srv, "2026-07-28", handler(g)) }},
		{"stateless HTTP", "debug", all, stateless},
		{"stateless HTTP", "error", "", stateless},
	} {
		var g got
		cs := c.connect(&g)
		// A client of 2026-07-28 sends its level with each request.
		perCall := mcp.Meta{}
		if c.name == "2026-07-28" {
			perCall[mcp.MetaKeyLogLevel] = c.level
		} else if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(c.level)}); err != nil {
			t.Fatal(err)
		}
		// Without a progress token a stateless call is served directly; with one, by
		// the SDK: both send the messages before the result.
		for _, token := range []any{nil, "p"} {
			meta := maps.Clone(perCall)
			if token != nil {
				meta["progressToken"] = token
			}
			g.mu.Lock()
			g.msgs, g.three = nil, make(chan struct{})
			three := g.three
			g.mu.Unlock()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Meta: meta, Name: "test_tool_with_logging", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %v", c.name, err, res)
			}
			// The client handles notifications apart from the result: wait for
			// those it should have.
			if c.want != "" {
				select {
				case <-three:
				case <-time.After(10 * time.Second):
				}
			}
			g.mu.Lock()
			if strings.Join(g.msgs, ",") != c.want {
				t.Errorf("%s at %s (progress token %v): got %q", c.name, c.level, token, g.msgs)
			}
			g.mu.Unlock()
		}
	}
}

// The server declares logging.
func TestLoggingCapability(t *testing.T) {
	srv := asksServer(t)
	cs := connectVersion(t, srv, "2025-11-25", nil)
	if cs.InitializeResult().Capabilities.Logging == nil {
		t.Error("no logging capability")
	}
}
