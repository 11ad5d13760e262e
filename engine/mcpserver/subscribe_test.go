package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
)

// resourceFile is a resource of one URI whose content is text.
func resourceFile(uri, text string) string {
	return fmt.Sprintf(`return { kind = "resource", uri = %q, name = "r", read = function() return %q end }`, uri, text)
}

// touchTool reports a change of the resource at input.uri.
const touchTool = `return { name = "Touch", prompt = "p", isReadOnly = true,
  inputSchema = { type = "object", properties = { uri = { type = "string" } } },
  call = function(input, ctx) ctx:resourceUpdated(input.uri) return "touched" end }`

// A subscriber is a client session, the URIs it was told were updated, and the
// acknowledgements of its subscriptions/listen.
type subscriber struct {
	*mcp.ClientSession
	updated chan string
	acked   chan struct{}
}

// newSubscriber returns a client that records what a subscriber is told.
func newSubscriber() (*mcp.Client, subscriber) {
	s := subscriber{updated: make(chan string, 64), acked: make(chan struct{}, 8)}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { s.updated <- req.Params.URI },
	})
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				s.acked <- struct{}{}
			}
			return next(ctx, method, req)
		}
	})
	return c, s
}

// listen subscribes a client of protocol 2026-07-28 to uri: the SDK's Subscribe
// sends a subscriptions/listen and returns, and the server holds the subscription
// once it acknowledges the listen.
func (s subscriber) listen(t *testing.T, uri string) {
	t.Helper()
	if err := s.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.acked:
	case <-time.After(20 * time.Second): // a hang guard
		t.Fatal("the listen was not acknowledged")
	}
}

// next returns the next URI the subscriber is told of.
func (s subscriber) next(t *testing.T) string {
	t.Helper()
	select {
	case uri := <-s.updated:
		return uri
	case <-time.After(20 * time.Second): // a hang guard
		t.Fatal("no notifications/resources/updated")
		return ""
	}
}

// subscriptionServer serves the files of dir (written first) and returns the engine
// and a function that connects a client to the server, of protocol version
// (2025-11-25, the last before subscriptions/listen, when "").
func subscriptionServer(t *testing.T, dir string, files map[string]string) (*engine.Engine, *Server, func(version string) subscriber) {
	t.Helper()
	eng := featureEngine(t, dir, files)
	srv := New(eng, Options{})
	t.Cleanup(srv.Close)
	return eng, srv, func(version string) subscriber {
		if version == "" {
			version = "2025-11-25"
		}
		client, s := newSubscriber()
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.MCP().Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		s.ClientSession = cs
		return s
	}
}

// A client subscribed to a resource is told when its file is saved and when a tool
// reports a change; a client not subscribed to it is not, and one that unsubscribed
// is told no more. Notifications go out in the order of the changes, so a client
// told of a later change would have been told of an earlier one first.
func TestResourceSubscriptions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	eng, _, connect := subscriptionServer(t, dir, map[string]string{
		"readme.lua": resourceFile("docs://readme", "v1"), "other.lua": resourceFile("docs://other", "v1"),
		"notes.lua": notesTemplate, "touch.lua": touchTool,
		"early.lua": `return { name = "Early", prompt = "p", isReadOnly = true, inputSchema = { type = "object" },
  validateInput = function(input, ctx) ctx:resourceUpdated("docs://readme") return true end,
  call = function() return "called" end }`,
	})
	a, b := connect(""), connect("")
	if caps := a.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
		t.Errorf("capabilities: resources %+v; want subscribe", caps.Resources)
	}
	for _, uri := range []string{"docs://readme", "notes://lua"} {
		if err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	if err := b.Subscribe(ctx, &mcp.SubscribeParams{URI: "docs://other"}); err != nil {
		t.Fatal(err)
	}
	save := func(name, body string) {
		t.Helper()
		if err := writeFile(dir, name, body); err != nil {
			t.Fatal(err)
		}
		if diags := eng.Refresh(); diag.HasErrors(diags) {
			t.Fatal(diags)
		}
	}
	touch := func(s subscriber, uri string) {
		t.Helper()
		if text, isError := callTextArgs(t, s.ClientSession, "Touch", map[string]any{"uri": uri}); isError {
			t.Fatalf("Touch %s: %s", uri, text)
		}
	}

	save("readme.lua", resourceFile("docs://readme", "v2"))
	if got := a.next(t); got != "docs://readme" {
		t.Errorf("a was told of %s; want docs://readme", got)
	}
	save("other.lua", resourceFile("docs://other", "v2"))
	if got := b.next(t); got != "docs://other" {
		t.Errorf("b was told of %s, not subscribed to it", got)
	}
	// A template's file serves every URI it matches.
	save("notes.lua", strings.Replace(notesTemplate, "note on", "a note on", 1))
	if got := a.next(t); got != "notes://lua" {
		t.Errorf("a was told of %s; want notes://lua", got)
	}
	// A tool's report reaches the subscribers, whoever called it.
	touch(b, "notes://lua")
	if got := a.next(t); got != "notes://lua" {
		t.Errorf("a was told of %s; want notes://lua", got)
	}
	touch(a, "docs://other")
	if got := b.next(t); got != "docs://other" {
		t.Errorf("b was told of %s; want docs://other", got)
	}

	if err := a.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	save("readme.lua", resourceFile("docs://readme", "v3"))
	touch(b, "docs://readme")
	touch(b, "notes://lua")
	if got := a.next(t); got != "notes://lua" {
		t.Errorf("a was told of %s after unsubscribing", got)
	}
	if len(a.updated)+len(b.updated) > 0 {
		t.Errorf("told of more than was subscribed to: a %d, b %d", len(a.updated), len(b.updated))
	}

	// A tool may only report a URI a resource serves, and only from call.
	text, isError := callTextArgs(t, a.ClientSession, "Touch", map[string]any{"uri": "docs://readm"})
	if !isError || !strings.Contains(text, "ctx:resourceUpdated: no such resource: docs://readm (did you mean docs://readme?)") {
		t.Errorf("Touch of an unknown URI = %q, %v", text, isError)
	}
	text, isError = callTextArgs(t, a.ClientSession, "Early", map[string]any{})
	if !isError || !strings.Contains(text, "ctx:resourceUpdated is not available here: only call() may report a change") {
		t.Errorf("ctx:resourceUpdated in validateInput = %q, %v", text, isError)
	}
}

// A subscription to a URI no resource serves is refused as its read would be, with
// the closest URI; one session holds at most maxSubscriptions, and the subscriptions
// of a session that ends are dropped.
func TestResourceSubscriptionLimits(t *testing.T) {
	ctx := context.Background()
	_, srv, connect := subscriptionServer(t, t.TempDir(), map[string]string{"readme.lua": readmeResource, "notes.lua": notesTemplate})
	a := connect("")
	var rpcErr *jsonrpc.Error
	err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: "docs://readm"})
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeResourceNotFound || !strings.Contains(rpcErr.Message, "no such resource: docs://readm (did you mean docs://readme?)") {
		t.Errorf("subscribe to an unknown URI = %v", err)
	}
	for i := range maxSubscriptions {
		if err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: fmt.Sprintf("notes://%d", i)}); err != nil {
			t.Fatalf("subscription %d: %v", i+1, err)
		}
	}
	err = a.Subscribe(ctx, &mcp.SubscribeParams{URI: "docs://readme"})
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, "subscribed to 100 resources, the most it may be") {
		t.Errorf("subscription past the bound = %v", err)
	}
	// Subscribing again to what it holds is no new subscription; after an
	// unsubscribe there is room.
	if err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: "notes://0"}); err != nil {
		t.Errorf("subscribing again: %v", err)
	}
	if err := a.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "notes://0"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: "docs://readme"}); err != nil {
		t.Errorf("subscribing after an unsubscribe: %v", err)
	}
	// Another session has a bound of its own.
	b := connect("")
	if err := b.Subscribe(ctx, &mcp.SubscribeParams{URI: "docs://readme"}); err != nil {
		t.Errorf("another session: %v", err)
	}

	if got := sessionSubscriptions(srv); !slices.Equal(got, []int{1, maxSubscriptions}) {
		t.Fatalf("subscriptions per session = %v", got)
	}
	a.Close()
	waitSubscriptions(t, srv, []int{1})
}

// waitSubscriptions waits until the sessions hold want subscriptions
// (sessionSubscriptions), which the server drops on its own goroutines.
func waitSubscriptions(t *testing.T, srv *Server, want []int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !slices.Equal(sessionSubscriptions(srv), want); { // a hang guard
		if time.Now().After(deadline) {
			t.Fatalf("subscriptions per session = %v; want %v", sessionSubscriptions(srv), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// sessionSubscriptions returns how many URIs each session is subscribed to, sorted.
func sessionSubscriptions(srv *Server) []int {
	srv.subs.mu.Lock()
	defer srv.subs.mu.Unlock()
	var n []int
	for _, set := range srv.subs.of {
		n = append(n, len(set))
	}
	slices.Sort(n)
	return n
}

// A client of protocol 2026-07-28 subscribes through subscriptions/listen, and is
// told of changes on that stream while it listens.
func TestResourceSubscriptionListen(t *testing.T) {
	dir := t.TempDir()
	eng, srv, connect := subscriptionServer(t, dir, map[string]string{"readme.lua": readmeResource, "touch.lua": touchTool})
	a, b := connect("2026-07-28"), connect("2026-07-28")
	a.listen(t, "docs://readme")
	if text, isError := callTextArgs(t, b.ClientSession, "Touch", map[string]any{"uri": "docs://readme"}); isError {
		t.Fatalf("Touch: %s", text)
	}
	if got := a.next(t); got != "docs://readme" {
		t.Fatalf("told of %s", got)
	}
	if err := writeFile(dir, "readme.lua", resourceFile("docs://readme", "v2")); err != nil {
		t.Fatal(err)
	}
	eng.Refresh()
	if got := a.next(t); got != "docs://readme" {
		t.Fatalf("told of %s", got)
	}
	if len(b.updated) > 0 {
		t.Errorf("b, not listening, was told of %s", <-b.updated)
	}
	// Unsubscribing ends the listen, and with it the subscription.
	if err := a.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	waitSubscriptions(t, srv, []int{0})
}

// Over stdio, through ServeStdio as luatool serve runs it, a client is told of
// prompts and resources added and changed (list_changed), and of a change of a
// resource it subscribed to; its completions are answered.
func TestFeaturesOverStdio(t *testing.T) {
	dir := t.TempDir()
	eng := featureEngine(t, dir, map[string]string{"readme.lua": resourceFile("docs://readme", "v1")})
	srv := New(eng, Options{})
	t.Cleanup(srv.Close)
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(context.Background(), serverIn, serverOut, StdioOptions{}) }()
	events := make(chan string, 16)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { events <- "prompts" },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { events <- "resources" },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			events <- "updated " + req.Params.URI
		},
	}).Connect(context.Background(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	wait := func(want string) {
		t.Helper()
		for {
			select {
			case got := <-events:
				if got == want {
					return
				}
			case <-time.After(20 * time.Second): // a hang guard
				t.Fatalf("no %s", want)
			}
		}
	}
	save := func(name, body string) {
		t.Helper()
		if err := writeFile(dir, name, body); err != nil {
			t.Fatal(err)
		}
		eng.Refresh()
	}
	ctx := context.Background()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	save("readme.lua", resourceFile("docs://readme", "v2"))
	wait("updated docs://readme")
	save("pick.lua", `return { kind = "prompt", name = "pick", description = "d",
  arguments = { { name = "lang", complete = { "go", "lua" } } }, get = function() return "x" end }`)
	wait("prompts")
	r, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "pick"}, Argument: mcp.CompleteParamsArgument{Name: "lang", Value: "l"}})
	if err != nil || !slices.Equal(r.Completion.Values, []string{"lua"}) {
		t.Errorf("completion over stdio = %+v, %v", r, err)
	}
	save("readme.lua", strings.Replace(resourceFile("docs://readme", "v3"), `name = "r"`, `name = "readme"`, 1))
	wait("resources")
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// Over stateless HTTP, a client of protocol 2026-07-28 subscribes through
// subscriptions/listen and is told of changes on that stream; a client of an
// earlier protocol is answered {} (its session ends with the POST, and there is no
// stream to tell it on).
func TestResourceSubscriptionsOverHTTP(t *testing.T) {
	dir := t.TempDir()
	_, srv, _ := subscriptionServer(t, dir, map[string]string{"readme.lua": readmeResource, "touch.lua": touchTool})
	hs := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
	t.Cleanup(hs.Close)
	connect := func(version string) subscriber {
		client, s := newSubscriber()
		cs, err := client.Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		s.ClientSession = cs
		return s
	}
	ctx := context.Background()
	old, modern := connect("2025-11-25"), connect("2026-07-28")
	if err := old.Subscribe(ctx, &mcp.SubscribeParams{URI: "docs://readme"}); err != nil {
		t.Errorf("subscribe, protocol 2025-11-25: %v", err)
	}
	modern.listen(t, "docs://readme")
	if text, isError := callTextArgs(t, old.ClientSession, "Touch", map[string]any{"uri": "docs://readme"}); isError {
		t.Fatalf("Touch: %s", text)
	}
	if got := modern.next(t); got != "docs://readme" {
		t.Errorf("told of %s", got)
	}
	// The old client's subscription ended with its POST; the listen holds on.
	waitSubscriptions(t, srv, []int{1})
}
