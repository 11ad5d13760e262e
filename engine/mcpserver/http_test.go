package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/luaload"
	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/internal/syncbuf"
)

const (
	aliceToken = "alice-token-0123456789"
	bobToken   = "bob-token-0123456789ab"
)

// httpFixture is an engine served over HTTP, with tokens for alice and bob; bob's
// profile denies Secret.
type httpFixture struct {
	srv     *Server
	url     string
	release chan struct{} // closing it (once: releaseAll) ends the Block calls
	entered chan struct{} // a Block call has started
	once    sync.Once
	log     syncbuf.Buffer // what the server logged, as slog text
	// sessions is set when the handler keeps sessions: its clients then speak a
	// protocol that has them (2026-07-28 has none).
	sessions bool
}

// releaseAll ends every Block call, so that the clients and the server can close
// (a client's Close waits for its calls) after a test failed in the middle.
func (f *httpFixture) releaseAll() {
	if f.release != nil {
		f.once.Do(func() { close(f.release) })
	}
}

func newHTTPFixture(t *testing.T, opts HTTPOptions) *httpFixture {
	t.Helper()
	f := &httpFixture{release: make(chan struct{}), entered: make(chan struct{}, 8), sessions: opts.Sessions}
	count := goTool("Count", true, nil)
	count.Call = func(_ context.Context, _ map[string]any, cc *engine.CallContext) (*engine.ToolResult, error) {
		n, _, err := cc.State.Get("n")
		if err != nil {
			return nil, err
		}
		next := 1.0
		if v, ok := n.(float64); ok {
			next = v + 1
		}
		return &engine.ToolResult{Data: fmt.Sprint(next)}, cc.State.Set("n", next)
	}
	block := goTool("Block", true, func(ctx context.Context, _ map[string]any) (*engine.ToolResult, error) {
		f.entered <- struct{}{}
		select {
		case <-f.release:
			return &engine.ToolResult{Data: "released"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	// {"alone": true} makes a call that must run alone.
	block.IsConcurrencySafe = func(_ context.Context, input map[string]any) (bool, error) { return input["alone"] != true, nil }
	change := goTool("Change", false, func(context.Context, map[string]any) (*engine.ToolResult, error) {
		return &engine.ToolResult{Data: "changed"}, nil
	})
	change.IsReadOnly = nil // not read-only: it needs permission
	secret := goTool("Secret", true, func(context.Context, map[string]any) (*engine.ToolResult, error) {
		return &engine.ToolResult{Data: "the secret"}, nil
	})
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Timeout: time.Minute, Tools: []engine.ToolDef{count, block, change, secret}})
	if err != nil {
		t.Fatal(err)
	}
	noSecret, err := eng.NewProfile(rules.Settings{Deny: []rules.Rule{{Text: "Secret", Source: "bob's profile"}}})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Tokens == nil {
		opts.Tokens, err = NewTokens([]Credential{
			{Name: "alice", Token: aliceToken},
			{Name: "bob", Token: bobToken, Profile: noSecret},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	srv := New(eng, Options{Logger: slog.New(slog.NewTextHandler(&f.log, nil))})
	t.Cleanup(srv.Close)
	f.srv = srv
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(opts))
	if len(opts.AuthServers) > 0 {
		meta := ProtectedResourceMetadata("/mcp", opts.AuthServers)
		mux.Handle(MetadataPath, meta)
		mux.Handle(MetadataPath+"/mcp", meta)
	}
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		f.releaseAll()
		hs.Close()
	})
	f.url = hs.URL
	return f
}

// bearer adds a bearer token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// client connects to the fixture with a token ("" for none).
func (f *httpFixture) client(t *testing.T, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	transport := &mcp.StreamableClientTransport{Endpoint: f.url + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)}}
	var so *mcp.ClientSessionOptions
	if f.sessions {
		so = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, opts).Connect(context.Background(), transport, so)
	if err != nil {
		t.Fatalf("connect with %q: %v", token, err)
	}
	if f.sessions && s.ID() == "" {
		t.Fatal("the client has no session: the handler keeps sessions")
	}
	t.Cleanup(func() {
		f.releaseAll()
		s.Close()
	})
	return s
}

// post sends one JSON-RPC request by hand.
func (f *httpFixture) post(t *testing.T, token, origin, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const listRequest = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`

func toolSet(t *testing.T, s *mcp.ClientSession) map[string]bool {
	t.Helper()
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tool := range list.Tools {
		out[tool.Name] = true
	}
	return out
}

// A request without a token, or with a wrong one, is 401 with a WWW-Authenticate
// header naming the metadata, which answers with the authorization server.
func TestHTTPRequiresToken(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{AuthServers: []string{"https://auth.example.com"}})
	want := fmt.Sprintf(`Bearer resource_metadata="%s%s/mcp"`, f.url, MetadataPath)
	for _, token := range []string{"", "not-the-token-of-anyone", aliceToken + "x", aliceToken[:len(aliceToken)-1]} {
		resp := f.post(t, token, "", listRequest)
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
			t.Errorf("token %q: %s, WWW-Authenticate %q; want 401 and %q", token, resp.Status, resp.Header.Get("WWW-Authenticate"), want)
		}
	}
	if resp := f.post(t, aliceToken, "", listRequest); resp.StatusCode != http.StatusOK || resp.Header.Get("WWW-Authenticate") != "" {
		t.Errorf("alice's token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}

	for path, resource := range map[string]string{MetadataPath + "/mcp": f.url + "/mcp", MetadataPath: f.url} {
		resp, err := http.Get(f.url + path)
		if err != nil {
			t.Fatal(err)
		}
		var meta oauthex.ProtectedResourceMetadata
		err = json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if err != nil || meta.Resource != resource || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != "https://auth.example.com" {
			t.Errorf("GET %s: %+v, %v", path, meta, err)
		}
	}
	// The SDK's own discovery (what its OAuth clients do) accepts the metadata.
	if _, err := oauthex.GetProtectedResourceMetadata(context.Background(), want[len(`Bearer resource_metadata="`):len(want)-1], f.url+"/mcp", http.DefaultClient); err != nil {
		t.Errorf("the SDK's discovery: %v", err)
	}
}

// Without authorization servers there is no metadata: a 401 is the bare challenge.
func TestHTTPRequiresTokenWithoutMetadata(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{})
	for _, token := range []string{"", "not-the-token-of-anyone"} {
		resp := f.post(t, token, "", listRequest)
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Bearer realm="luatool"` {
			t.Errorf("token %q: %s, WWW-Authenticate %q", token, resp.Status, resp.Header.Get("WWW-Authenticate"))
		}
	}
	if resp := f.post(t, bobToken, "", listRequest); resp.StatusCode != http.StatusOK || resp.Header.Get("WWW-Authenticate") != "" {
		t.Errorf("bob's token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	resp, err := http.Get(f.url + MetadataPath + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("metadata without authorization servers: %s", resp.Status)
	}
}

// Each principal has its own state and "allow always" rules, and sees the tools its
// profile does not hide; a hidden tool is unknown to it.
func TestHTTPPrincipals(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{})
	var mu sync.Mutex
	asked := map[string]int{}
	answering := func(who string) *mcp.ClientOptions {
		return &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked[who]++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true, "always": true}}, nil
		}}
	}
	alice := f.client(t, aliceToken, answering("alice"))
	alice2 := f.client(t, aliceToken, nil) // another client of alice's
	bob := f.client(t, bobToken, answering("bob"))

	for i, want := range []string{"1", "2"} {
		if got, _ := callText(t, alice, "Count"); got != want {
			t.Errorf("alice's call %d of Count: %q, want %q", i+1, got, want)
		}
	}
	if got, _ := callText(t, alice2, "Count"); got != "3" {
		t.Errorf("alice's other client: %q, want 3 (her session is one)", got)
	}
	if got, _ := callText(t, bob, "Count"); got != "1" {
		t.Errorf("bob's first Count: %q, want 1 (alice's state is hers)", got)
	}

	// alice allows Change always: her next call is not asked; bob is asked.
	for range 2 {
		if text, isError := callText(t, alice, "Change"); isError {
			t.Fatalf("alice's Change: %s", text)
		}
	}
	if text, isError := callText(t, bob, "Change"); isError {
		t.Fatalf("bob's Change: %s", text)
	}
	if asked["alice"] != 1 || asked["bob"] != 1 {
		t.Errorf("asked %v, want alice once (then always) and bob once", asked)
	}

	if tools := toolSet(t, alice); !tools["Secret"] || !tools["Count"] {
		t.Errorf("alice's tools: %v", tools)
	}
	if tools := toolSet(t, bob); tools["Secret"] || !tools["Count"] {
		t.Errorf("bob's tools: %v, want Secret hidden", tools)
	}
	if got, isError := callText(t, alice, "Secret"); isError || got != "the secret" {
		t.Errorf("alice's Secret: %q", got)
	}
	_, err := bob.CallTool(context.Background(), &mcp.CallToolParams{Name: "Secret", Arguments: map[string]any{}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || rpcErr.Message != "No such tool available: Secret" {
		t.Errorf("bob's Secret: %v, want the unknown-tool error", err)
	}
	// The lists are the principals' own: no cache may share them.
	resp := f.post(t, bobToken, "", listRequest)
	if body, _ := io.ReadAll(resp.Body); !strings.Contains(string(body), `"cacheScope":"private"`) {
		t.Errorf("bob's list is not private: %s", body)
	}
}

// Past MaxCalls calls of one principal in flight, the next is refused at once with
// a JSON-RPC error; its other requests, and other principals' calls, even those
// that must run alone, are not held up.
func TestHTTPMaxCalls(t *testing.T) { forModes(t, testHTTPMaxCalls) }

func testHTTPMaxCalls(t *testing.T, sessions bool) {
	f := newHTTPFixture(t, HTTPOptions{MaxCalls: 1, Sessions: sessions})
	alice := f.client(t, aliceToken, nil)
	bob := f.client(t, bobToken, nil)
	type outcome struct {
		text string
		err  error
	}
	block := func(s *mcp.ClientSession, args map[string]any) chan outcome {
		done := make(chan outcome, 1)
		go func() {
			res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Block", Arguments: args})
			if err != nil {
				done <- outcome{err: err}
				return
			}
			done <- outcome{text: res.Content[0].(*mcp.TextContent).Text}
		}()
		return done
	}
	// A guard, not a timed assertion: a call held up would hang the test instead of
	// failing it.
	wait := func(what string) {
		t.Helper()
		select {
		case <-f.entered:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s never started", what)
		}
	}
	aliceDone := block(alice, map[string]any{})
	wait("alice's first call")

	_, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "Block", Arguments: map[string]any{}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32000 || rpcErr.Message != "too many calls in flight for alice: at most 1 at once; call again once one has ended" {
		t.Errorf("alice's second call: %v", err)
	}
	if tools := toolSet(t, alice); !tools["Block"] {
		t.Errorf("alice's tools/list while her call runs: %v", tools)
	}
	bobDone := block(bob, map[string]any{"alone": true})
	wait("bob's call that must run alone, beside alice's")

	f.release <- struct{}{}
	f.release <- struct{}{}
	for who, done := range map[string]chan outcome{"alice": aliceDone, "bob": bobDone} {
		if o := <-done; o.err != nil || o.text != "released" {
			t.Errorf("%s's Block: %+v", who, o)
		}
	}
	// The slot is free once the call has been answered.
	next := block(alice, map[string]any{})
	wait("alice's call after hers ended")
	f.release <- struct{}{}
	if o := <-next; o.err != nil {
		t.Errorf("alice's call after hers ended: %v", o.err)
	}
}

// Every call is one log line with the principal, the tool, the time it took and how
// it ended; no token is ever logged.
func TestHTTPCallLog(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{})
	alice := f.client(t, aliceToken, nil)
	bob := f.client(t, bobToken, nil) // cannot be asked: an ask is a deny
	callText(t, alice, "Count")
	callText(t, bob, "Change")
	log := f.log.String()
	for _, want := range []string{
		`level=INFO msg="tool call" principal=alice tool=Count duration=[0-9.]+[µnm]?s outcome=ok\n`,
		`level=INFO msg="tool call" principal=bob tool=Change duration=[0-9.]+[µnm]?s outcome=denied\n`,
	} {
		if !regexp.MustCompile(want).MatchString(log) {
			t.Errorf("no line %s in the log:\n%s", want, log)
		}
	}
	if strings.Contains(log, aliceToken) || strings.Contains(log, bobToken) {
		t.Errorf("a token is in the log:\n%s", log)
	}
}

// A body that stalls after its first byte is answered 408 and its connection closed
// once BodyTimeout is up; a body over MaxBodyBytes is 413.
func TestHTTPBodyLimits(t *testing.T) {
	f := newHTTPFixture(t, HTTPOptions{BodyTimeout: 50 * time.Millisecond, MaxBodyBytes: 1000})
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Not a timed assertion: a guard so that a server that never answers fails the
	// test instead of hanging it.
	conn.SetDeadline(time.Now().Add(time.Minute))
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", strings.TrimPrefix(f.url, "http://"), aliceToken)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
		t.Errorf("stalled body: %s, close %v", resp.Status, resp.Close)
	}
	if _, err := conn.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the connection of a stalled body is still open: %v", err)
	}

	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"pad":"` + strings.Repeat("x", 2000) + `"}}}`
	if resp := f.post(t, aliceToken, "", big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit: %s", resp.Status)
	}
	// A batch of calls at the limit is served, though the server tags its calls.
	call := func(id int, pad string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"Count","arguments":{},"_meta":{"pad":"%s"}}}`, id, pad)
	}
	batch := "[" + call(1, "") + "," + call(2, "") + "]"
	batch = "[" + call(1, strings.Repeat("x", 1000-len(batch))) + "," + call(2, "") + "]"
	resp = f.request(t, context.Background(), http.MethodPost, aliceToken, "", batch, "Mcp-Protocol-Version", "2025-03-26")
	if body, _ := io.ReadAll(resp.Body); len(batch) != 1000 || resp.StatusCode != http.StatusOK {
		t.Errorf("a batch of %d bytes, at the limit: %s %s", len(batch), resp.Status, body)
	}
}

// A browser origin is 403 unless it is on the list (or a loopback page on a loopback
// connection); one on the list gets CORS headers, and its preflight is answered.
func TestHTTPOrigin(t *testing.T) { forModes(t, testHTTPOrigin) }

func testHTTPOrigin(t *testing.T, sessions bool) {
	f := newHTTPFixture(t, HTTPOptions{AllowOrigins: []string{"https://App.example.com"}, Sessions: sessions})
	listRequest := listRequest
	if sessions { // a request that opens a session
		listRequest = initializeRequest
	}
	if resp := f.post(t, aliceToken, "https://evil.example", listRequest); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign origin: %s", resp.Status)
	}
	if resp := f.post(t, "", "https://evil.example", listRequest); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign origin without a token: %s, want 403 before authentication", resp.Status)
	}
	for _, o := range []string{"https://app.example.com", "http://localhost:5173", "http://127.0.0.1:8080"} {
		resp := f.post(t, aliceToken, o, listRequest)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != o {
			t.Errorf("origin %s: %s, Access-Control-Allow-Origin %q", o, resp.Status, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}
	req, _ := http.NewRequest(http.MethodOptions, f.url+"/mcp", nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "authorization") {
		t.Errorf("preflight: %s %v", resp.Status, resp.Header)
	}
}

func TestNewTokens(t *testing.T) {
	_, err := NewTokens([]Credential{
		{Name: "alice", Token: aliceToken, Source: "t:1"},
		{Name: "alice", Token: bobToken, Source: "t:2"},
		{Name: "carol", Token: aliceToken, Source: "t:3"},
		{Name: "dave", Token: "short", Source: "t:4"},
		{Name: "e ve", Token: "e-token-0123456789ab", Source: "t:5"},
	})
	for _, want := range []string{
		"t:2: alice is named already, at t:1",
		"t:3: the token of carol is the token of alice (t:1) already",
		"t:4: the token of dave is 5 bytes long; a token must have at least 16",
		`t:5: "e ve" is not a principal name`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	tokens, err := NewTokens([]Credential{{Name: "alice", Token: aliceToken}, {Name: "bob", Token: bobToken}})
	if err != nil {
		t.Fatal(err)
	}
	if ti, err := tokens.verify(context.Background(), bobToken, nil); err != nil || ti.UserID != "bob" {
		t.Errorf("bob's token: %+v %v", ti, err)
	}
	if _, err := tokens.verify(context.Background(), bobToken[:len(bobToken)-1], nil); err == nil {
		t.Error("a prefix of bob's token was taken")
	}
}

// A server's own token (LocalUserTokens) admits its clients as the local user, and
// nobody without it.
func TestLocalUserTokens(t *testing.T) {
	if _, err := LocalUserTokens("short"); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("a short token: %v", err)
	}
	const token = "0123456789abcdef0123456789abcdef"
	tokens, err := LocalUserTokens(token)
	if err != nil {
		t.Fatal(err)
	}
	f := newHTTPFixture(t, HTTPOptions{Tokens: tokens})
	for _, tok := range []string{"", aliceToken, token[1:]} {
		if resp := f.post(t, tok, "", listRequest); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %q: %s", tok, resp.Status)
		}
	}
	if got, isErr := callText(t, f.client(t, token, nil), "Count"); isErr || got != "1" {
		t.Errorf("Count with the server's token: %q", got)
	}
	if !regexp.MustCompile(`level=INFO msg="tool call" tool=Count duration=\S+ outcome=ok\n`).MatchString(f.log.String()) {
		t.Errorf("the call is not the local user's (no principal) in the log:\n%s", f.log.String())
	}
}

// An unknown tool is a protocol error in the engine's words, with the closest name.
func TestUnknownTool(t *testing.T) {
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Tools: []engine.ToolDef{goTool("Echo", true, func(context.Context, map[string]any) (*engine.ToolResult, error) {
		return &engine.ToolResult{Data: "echo"}, nil
	})}})
	if err != nil {
		t.Fatal(err)
	}
	_, session := connect(t, eng, nil)
	for name, want := range map[string]string{
		"Ecoh":     "No such tool available: Ecoh. Did you mean Echo?",
		"Unheard0": "No such tool available: Unheard0",
	} {
		_, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || rpcErr.Message != want {
			t.Errorf("%s: %v, want -32602 %q", name, err, want)
		}
	}
}

// The SDK's warnings of notifications it could not deliver are dropped; its other
// warnings are kept.
func TestQuieterDropsUndeliveredNotifications(t *testing.T) {
	var b strings.Builder
	log := quieter(slog.New(slog.NewTextHandler(&b, nil)))
	log.Info("session started")
	log.Warn("calling notifications/tools/list_changed: rejected by transport: undelivered message: stream not connected or already closed")
	log.Warn("failed to connect: boom")
	if got := b.String(); strings.Contains(got, "session started") || strings.Contains(got, "list_changed") || !strings.Contains(got, "failed to connect: boom") {
		t.Errorf("logged:\n%s", got)
	}
}

// A principal is told of changes to the tools it sees, not of those its profile
// hides.
func TestHTTPListChangedPerProfile(t *testing.T) {
	dir := t.TempDir()
	tool := `return { name = "%s", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true, call = function() return "ok" end }`
	write := func(name string) {
		t.Helper()
		if err := writeFile(dir, name+".lua", fmt.Sprintf(tool, name)); err != nil {
			t.Fatal(err)
		}
	}
	write("First")
	f, eng, srv := newProfileFixture(t, dir, "Hidden")
	changed := map[string]chan struct{}{"alice": make(chan struct{}, 8), "bob": make(chan struct{}, 8)}
	notified := func(who string) *mcp.ClientOptions {
		return &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed[who] <- struct{}{} }}
	}
	alice := f.client(t, aliceToken, notified("alice"))
	bob := f.client(t, bobToken, notified("bob"))
	// A client is subscribed once it has listed the tools.
	toolSet(t, alice)
	toolSet(t, bob)
	wait := func(who string) {
		t.Helper()
		select {
		case <-changed[who]:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s was not told of a change", who)
		}
	}

	write("Hidden")
	eng.Refresh()
	srv.Sync(context.Background())
	wait("alice")
	write("Visible")
	eng.Refresh()
	srv.Sync(context.Background())
	wait("alice")
	wait("bob")
	if n := len(changed["bob"]); n != 0 {
		t.Errorf("bob was told of %d more changes: Hidden is not his to see", n)
	}
	if tools := toolSet(t, bob); tools["Hidden"] || !tools["Visible"] {
		t.Errorf("bob's tools: %v", tools)
	}
	if tools := toolSet(t, alice); !tools["Hidden"] || !tools["Visible"] {
		t.Errorf("alice's tools: %v", tools)
	}
}

// newProfileFixture serves the tools of dir over HTTP to two principals, alice with
// the server's rules and bob with a profile that denies the tool named hidden; the
// engine and the server are returned for the test to reload and sync. opts, if
// given, are those of the handler, but for its tokens.
func newProfileFixture(t *testing.T, dir, hidden string, opts ...HTTPOptions) (*httpFixture, *engine.Engine, *Server) {
	t.Helper()
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Loaders: []engine.Loader{luaload.New(luaload.Options{})}})
	if err != nil {
		t.Fatal(err)
	}
	eng.Load(engine.DirSource(dir))
	profile, err := eng.NewProfile(rules.Settings{Deny: []rules.Rule{{Text: hidden, Source: "test"}}})
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := NewTokens([]Credential{{Name: "alice", Token: aliceToken}, {Name: "bob", Token: bobToken, Profile: profile}})
	if err != nil {
		t.Fatal(err)
	}
	srv := New(eng, Options{})
	t.Cleanup(srv.Close)
	o := HTTPOptions{}
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Tokens = tokens
	hs := httptest.NewServer(srv.HTTPHandler(o))
	t.Cleanup(hs.Close)
	return &httpFixture{url: hs.URL}, eng, srv
}

// Replace swaps the credentials a table authenticates by: a token it drops is
// refused from then on, one it adds is taken.
func TestTokensReplace(t *testing.T) {
	tokens, err := NewTokens([]Credential{{Name: "alice", Token: aliceToken}, {Name: "bob", Token: bobToken}})
	if err != nil {
		t.Fatal(err)
	}
	f := newHTTPFixture(t, HTTPOptions{Tokens: tokens})
	if resp := f.post(t, bobToken, "", listRequest); resp.StatusCode != http.StatusOK {
		t.Fatalf("bob before the replacement: %s", resp.Status)
	}
	const carolToken = "carol-token-0123456789abcdef"
	next, err := NewTokens([]Credential{{Name: "alice", Token: aliceToken}, {Name: "carol", Token: carolToken}})
	if err != nil {
		t.Fatal(err)
	}
	tokens.Replace(next)
	for tok, want := range map[string]int{bobToken: http.StatusUnauthorized, aliceToken: http.StatusOK, carolToken: http.StatusOK} {
		if resp := f.post(t, tok, "", listRequest); resp.StatusCode != want {
			t.Errorf("token %.5s after the replacement: %s, want %d", tok, resp.Status, want)
		}
	}
}
