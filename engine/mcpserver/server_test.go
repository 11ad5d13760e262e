package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/engine/luaload"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
)

// connect serves eng to an in-memory client and returns the client's session.
func connect(t *testing.T, eng *engine.Engine, opts *mcp.ClientOptions) (*Server, *mcp.ClientSession) {
	t.Helper()
	return connectNamed(t, eng, "test", opts)
}

// connectNamed is connect for a client that names itself name.
func connectNamed(t *testing.T, eng *engine.Engine, name string, opts *mcp.ClientOptions) (*Server, *mcp.ClientSession) {
	t.Helper()
	srv := New(eng, Options{})
	t.Cleanup(srv.Close)
	ctx := context.Background()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, serverEnd, nil); err != nil {
		t.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts).Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return srv, session
}

func goTool(name string, safe bool, call func(ctx context.Context, input map[string]any) (*engine.ToolResult, error)) engine.ToolDef {
	return engine.ToolDef{
		Name:              name,
		InputSchema:       map[string]any{"type": "object"},
		Prompt:            func(context.Context, engine.PromptOptions) (string, error) { return name, nil },
		IsReadOnly:        func(context.Context, map[string]any) (bool, error) { return true, nil },
		IsConcurrencySafe: func(context.Context, map[string]any) (bool, error) { return safe, nil },
		Call: func(ctx context.Context, input map[string]any, _ *engine.CallContext) (*engine.ToolResult, error) {
			return call(ctx, input)
		},
	}
}

func callText(t *testing.T, s *mcp.ClientSession, name string) (string, bool) {
	t.Helper()
	return callTextArgs(t, s, name, map[string]any{})
}

// callTextArgs calls a tool with args and returns its text and isError.
func callTextArgs(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, c.(*mcp.TextContent).Text)
	}
	return strings.Join(parts, "\n"), res.IsError
}

// Calls that are not concurrency-safe run alone; safe ones overlap.
func TestCallsRunAloneUnlessSafe(t *testing.T) {
	var inside, most atomic.Int32
	exclusive := func(ctx context.Context, _ map[string]any) (*engine.ToolResult, error) {
		n := inside.Add(1)
		defer inside.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		return &engine.ToolResult{Data: "done"}, nil
	}
	var arrived sync.WaitGroup
	arrived.Add(2)
	shared := func(ctx context.Context, _ map[string]any) (*engine.ToolResult, error) {
		arrived.Done()
		both := make(chan struct{})
		go func() { arrived.Wait(); close(both) }()
		select {
		case <-both:
			return &engine.ToolResult{Data: "overlapped"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Timeout: 20 * time.Second, Tools: []engine.ToolDef{
		goTool("Exclusive", false, exclusive), goTool("Shared", true, shared),
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, session := connect(t, eng, nil)

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { callText(t, session, "Exclusive") })
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d calls that are not concurrency-safe ran at once", most.Load())
	}
	results := make([]string, 2)
	for i := range results {
		wg.Go(func() { results[i], _ = callText(t, session, "Shared") })
	}
	wg.Wait()
	if results[0] != "overlapped" || results[1] != "overlapped" {
		t.Errorf("concurrency-safe calls did not overlap: %q", results)
	}
}

func TestStructuredContent(t *testing.T) {
	src := `return {
  name = %q,
  prompt = "p",
  inputSchema = { type = "object" },
  outputSchema = { type = "object", properties = { n = { type = "integer" } }, required = { "n" } },
  isReadOnly = true,
  call = function() return { data = %s, mcpMeta = { source = "test" } } end,
}`
	fsys := fstest.MapFS{
		"good.lua": {Data: []byte(strings.NewReplacer("%q", `"Good"`, "%s", `{ n = 3 }`).Replace(src))},
		"bad.lua":  {Data: []byte(strings.NewReplacer("%q", `"Bad"`, "%s", `{ n = "three" }`).Replace(src))},
	}
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Loaders: []engine.Loader{luaload.New(luaload.Options{})}})
	if err != nil {
		t.Fatal(err)
	}
	if diags := eng.Load(engine.Source{Name: "t", FS: fsys}); diag.HasErrors(diags) {
		t.Fatal(diags)
	}
	_, session := connect(t, eng, nil)
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "Good", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := res.StructuredContent.(map[string]any); !ok || m["n"] != float64(3) || res.IsError || res.Meta["source"] != "test" {
		t.Errorf("Good: structured %#v, isError %v, meta %v", res.StructuredContent, res.IsError, res.Meta)
	}
	text, isError := callText(t, session, "Bad")
	if !isError || !strings.Contains(text, "Bad returned data that does not match its outputSchema") {
		t.Errorf("Bad: isError=%v %q", isError, text)
	}
}

// A reload that changes only behaviour sends no list_changed; a new tool does.
func TestSyncNotifiesListChanges(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := writeFile(dir, name, body); err != nil {
			t.Fatal(err)
		}
	}
	tool := `return { name = %q, prompt = "p", inputSchema = { type = "object" }, call = function() return %q end }`
	write("a.lua", strings.NewReplacer("%q", `"A"`).Replace(tool))
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Loaders: []engine.Loader{luaload.New(luaload.Options{})}})
	if err != nil {
		t.Fatal(err)
	}
	eng.Load(engine.DirSource(dir))
	changed := make(chan struct{}, 8)
	srv, session := connect(t, eng, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})

	write("a.lua", `return { name = "A", prompt = "p", inputSchema = { type = "object" }, call = function() return "new" end }`)
	eng.Refresh()
	srv.Sync(context.Background())
	select {
	case <-changed:
		t.Error("list_changed for a change of behaviour only")
	case <-time.After(100 * time.Millisecond):
	}

	write("b.lua", `return { name = "B", prompt = "p", inputSchema = { type = "object" }, call = function() return "b" end }`)
	eng.Refresh()
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no list_changed for a new tool")
	}
	list, err := session.ListTools(context.Background(), nil)
	if err != nil || len(list.Tools) != 2 {
		t.Fatalf("tools after adding B: %v %v", list, err)
	}
}

func writeFile(dir, name, body string) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
}

// Progress starts where the tool says, 0 included, and never goes back nor stands
// still (MCP: it must increase): a plain report, or an explicit value not above the
// last, counts one past the last.
func TestProgressIncreases(t *testing.T) {
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Loaders: []engine.Loader{luaload.New(luaload.Options{})}})
	if err != nil {
		t.Fatal(err)
	}
	eng.Load(engine.Source{Name: "t", FS: fstest.MapFS{"p.lua": {Data: []byte(`return {
  name = "P", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true,
  call = function(_, ctx)
    ctx:progress({ progress = 0, total = 100 })
    ctx:progress({ progress = 50, total = 100 })
    ctx:progress("plain")
    ctx:progress({ progress = 10 })
    ctx:progress({ progress = 52 })
    return "done"
  end,
}`)}}})
	var mu sync.Mutex
	var got []float64
	_, session := connect(t, eng, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, req.Params.Progress)
		mu.Unlock()
	}})
	if _, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "P", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": "t"}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n == 5 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(got) != "[0 50 51 52 53]" {
		t.Errorf("progress values %v, want [0 50 51 52 53]", got)
	}
}

// Over HTTP the engine is shared by every client: "allow always" is neither offered
// nor kept.
func TestNoAlwaysWhenShared(t *testing.T) {
	for _, shared := range []bool{false, true} {
		writes := 0
		write := goTool("Write", false, func(context.Context, map[string]any) (*engine.ToolResult, error) {
			writes++
			return &engine.ToolResult{Data: "written"}, nil
		})
		write.IsReadOnly = nil
		eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Tools: []engine.ToolDef{write}})
		if err != nil {
			t.Fatal(err)
		}
		var forms []map[string]any
		srv, session := connect(t, eng, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			schema, _ := req.Params.RequestedSchema.(map[string]any)
			props, _ := schema["properties"].(map[string]any)
			forms = append(forms, props)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true, "always": true}}, nil
		}})
		if shared {
			srv.HTTPHandler(HTTPOptions{})
		}
		for range 2 {
			if text, isError := callText(t, session, "Write"); isError {
				t.Fatalf("shared=%v: %s", shared, text)
			}
		}
		_, offered := forms[0]["always"]
		if offered == shared || (shared && len(forms) != 2) || (!shared && len(forms) != 1) || writes != 2 {
			t.Errorf("shared=%v: always offered %v, asked %d times, %d writes", shared, offered, len(forms), writes)
		}
	}
}
