package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/luatool/luatool/internal/syncbuf"
)

// The MCP end-to-end tests build the real luatool binary and drive `luatool serve`
// with the go-sdk client, over a command transport (stdio) and over HTTP.

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// luatoolBinary builds cmd/luatool once per test run and returns its path.
func luatoolBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "luatool-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "luatool")
		out, err := exec.Command("go", "build", "-o", binary, "../cmd/luatool").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// mcpTools are the Lua tools the end-to-end tests serve beside the standard set.
var mcpTools = map[string]string{
	"echo.lua": `return {
  name = "Echo",
  prompt = "Echoes its text.",
  inputSchema = { type = "object", properties = { text = { type = "string" } }, required = { "text" } },
  isReadOnly = true,
  isConcurrencySafe = true,
  call = function(input) return "echo: " .. input.text end,
}
`,
	"steps.lua": `return {
  name = "Steps",
  prompt = "Reports three steps of progress.",
  inputSchema = { type = "object" },
  isReadOnly = true,
  call = function(_, ctx)
    for i = 1, 3 do ctx:progress({ progress = i, total = 3, message = "step " .. i }) end
    return "three steps"
  end,
}
`,
	"spin.lua": `return {
  name = "Spin",
  prompt = "Reports progress, then runs until it is cancelled.",
  inputSchema = { type = "object" },
  isReadOnly = true,
  call = function(_, ctx)
    ctx:progress("spinning")
    while true do end
  end,
}
`,
	"noisy.lua": `return {
  name = "Noisy",
  prompt = "Prints, then fails when asked to.",
  inputSchema = { type = "object", properties = { fail = { type = "boolean" } } },
  isReadOnly = true,
  call = function(input)
    print("printed by Noisy")
    if input.fail then error("Noisy failed on purpose") end
    return "quiet result"
  end,
}
`,
}

// mcpServer is a running `luatool serve` with a connected go-sdk client.
type mcpServer struct {
	session *mcp.ClientSession
	tools   string // the watched tool directory
	root    string // the workspace
	stderr  *syncbuf.Buffer
	changed chan struct{}
}

// serveStdio starts `luatool serve` on the tools of mcpTools (with the standard set)
// and connects a client to it, with the client options given (handlers added for
// list_changed).
func serveStdio(t *testing.T, opts *mcp.ClientOptions, extraArgs ...string) *mcpServer {
	t.Helper()
	return serveStdioAt(t, "", opts, extraArgs...)
}

// serveStdioAt is serveStdio with the client asking for a protocol version ("" for
// the latest).
func serveStdioAt(t *testing.T, protocol string, opts *mcp.ClientOptions, extraArgs ...string) *mcpServer {
	t.Helper()
	s := newMCPDirs(t)
	args := append([]string{"serve", "--standard-tools", "--tools", s.tools, "--root", s.root, "--debounce", "20ms"}, extraArgs...)
	cmd := exec.Command(luatoolBinary(t), args...)
	cmd.Stderr = s.stderr
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir())
	s.connect(t, &mcp.CommandTransport{Command: cmd}, opts, protocol)
	return s
}

func newMCPDirs(t *testing.T) *mcpServer {
	s := &mcpServer{tools: t.TempDir(), root: t.TempDir(), stderr: &syncbuf.Buffer{}, changed: make(chan struct{}, 16)}
	for name, src := range mcpTools {
		writeFile(t, filepath.Join(s.tools, name), src)
	}
	writeFile(t, filepath.Join(s.root, "notes.txt"), "first line\nsecond line\n")
	return s
}

func (s *mcpServer) connect(t *testing.T, transport mcp.Transport, opts *mcp.ClientOptions, protocol string) {
	t.Helper()
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) {
		s.changed <- struct{}{}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "luatool-test", Version: "v0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect: %v\nserver stderr:\n%s", err, s.stderr)
	}
	s.session = session
	t.Cleanup(func() { session.Close() })
}

func (s *mcpServer) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v\nserver stderr:\n%s", name, err, s.stderr)
	}
	return res
}

// toolNames lists the served tools.
func (s *mcpServer) toolNames(t *testing.T) map[string]*mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

// text returns the text of a result's content.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// eventually polls cond until it holds or 20 seconds pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkCommonCalls runs the calls every transport must serve alike.
func checkCommonCalls(t *testing.T, s *mcpServer) {
	t.Helper()
	tools := s.toolNames(t)
	for _, name := range []string{"Read", "Glob", "Grep", "Bash", "Edit", "Write", "Echo", "Steps"} {
		if tools[name] == nil {
			t.Errorf("tools/list lacks %s", name)
		}
	}
	if read := tools["Read"]; read != nil {
		if !read.Annotations.ReadOnlyHint || read.Title != "Read" || !strings.Contains(read.Description, "Reads a text file") {
			t.Errorf("Read listed as %+v (annotations %+v)", read, read.Annotations)
		}
		schema, _ := json.Marshal(read.InputSchema)
		if !strings.Contains(string(schema), `"file_path"`) {
			t.Errorf("Read inputSchema = %s", schema)
		}
	}
	if w := tools["Write"]; w != nil && w.Annotations.ReadOnlyHint {
		t.Errorf("Write is listed as read-only")
	}

	// A read-only tool runs.
	res := s.call(t, "Read", map[string]any{"file_path": filepath.Join(s.root, "notes.txt")})
	if res.IsError || !strings.Contains(text(res), "second line") {
		t.Errorf("Read: isError=%v %q", res.IsError, text(res))
	}
	// Invalid input is a tool result with isError and the validation text.
	res = s.call(t, "Read", map[string]any{"file_path": 3})
	if !res.IsError || !strings.Contains(text(res), "InputValidationError: Read failed") ||
		!strings.Contains(text(res), "`file_path` type is expected as `string` but provided as `number`") {
		t.Errorf("invalid input: isError=%v %q", res.IsError, text(res))
	}
	// A call that needs approval, with no one to ask, is denied and changes nothing.
	target := filepath.Join(s.root, "new.txt")
	res = s.call(t, "Write", map[string]any{"file_path": target, "content": "x"})
	if !res.IsError || !strings.Contains(text(res), "Permission to use Write was not granted") {
		t.Errorf("Write without approval: isError=%v %q", res.IsError, text(res))
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("the denied Write created %s", target)
	}
	// A failing tool is an error result, and the server goes on.
	res = s.call(t, "Noisy", map[string]any{"fail": true})
	if !res.IsError || !strings.Contains(text(res), "Noisy failed on purpose") {
		t.Errorf("failing tool: isError=%v %q", res.IsError, text(res))
	}
	if res = s.call(t, "Echo", map[string]any{"text": "still here"}); text(res) != "echo: still here" {
		t.Errorf("after a failure: %q", text(res))
	}
}

func TestMCPStdio(t *testing.T) {
	s := serveStdio(t, nil)
	checkCommonCalls(t, s)
	eventually(t, "Lua print on stderr", func() bool { return strings.Contains(s.stderr.String(), "printed by Noisy") })
}

func TestMCPHTTP(t *testing.T) {
	s := newMCPDirs(t)
	endpoint := startHTTP(t, s)
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") {
		t.Errorf("endpoint %s is not on loopback", endpoint)
	}
	token, _ := madeToken(t, s) // without --tokens, the local user's token serve made
	s.connect(t, &mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: withToken(token)}}, nil, "")
	checkCommonCalls(t, s)

	// The next tools/list has a tool added on disk. Calls in flight during the reload
	// have sessions of their own, with no stream to notify: no warning says so.
	stop := make(chan struct{})
	var calls sync.WaitGroup
	calls.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				// Not s.call: t.Fatal belongs to the test's goroutine.
				s.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "Echo", Arguments: map[string]any{"text": "busy"}})
			}
		}
	})
	writeFile(t, filepath.Join(s.tools, "added.lua"), toolSource("Added", "added over HTTP"))
	eventually(t, "Added in tools/list", func() bool { return s.toolNames(t)["Added"] != nil })
	close(stop)
	calls.Wait()
	if res := s.call(t, "Added", map[string]any{}); text(res) != "added over HTTP" {
		t.Errorf("Added: %q", text(res))
	}
	if strings.Contains(s.stderr.String(), "list_changed") {
		t.Errorf("the log warns of list_changed:\n%s", s.stderr)
	}
}

func TestMCPProgressNotifications(t *testing.T) {
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	s := serveStdio(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "Steps", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": "steps-1"}})
	if err != nil || text(res) != "three steps" {
		t.Fatalf("Steps: %v %v", err, res)
	}
	eventually(t, "three progress notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == 3
	})
	for i, p := range got {
		if p.ProgressToken != "steps-1" || p.Progress != float64(i+1) || p.Total != 3 || p.Message != fmt.Sprintf("step %d", i+1) {
			t.Errorf("notification %d = %+v", i, p)
		}
	}
}

// TestMCPProgressPlainTable: a tool reporting a table without a message sends a
// step counted past the last, with a human rendering as message, never the table's
// JSON.
func TestMCPProgressPlainTable(t *testing.T) {
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	s := serveStdio(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
		},
	})
	writeFile(t, filepath.Join(s.tools, "plain.lua"), `return {
  name = "Plain",
  prompt = "Reports progress as plain tables.",
  inputSchema = { type = "object" },
  isReadOnly = true,
  call = function(_, ctx)
    ctx:progress({ file = "a.txt" })
    ctx:progress({ file = "b.txt", progress = 5, total = 9 })
    return "done"
  end,
}
`)
	eventually(t, "the Plain tool", func() bool { return s.toolNames(t)["Plain"] != nil })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "Plain", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": "p"}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "two progress notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == 2
	})
	if p := got[0]; p.Progress != 1 || p.Total != 0 || p.Message != "working" {
		t.Errorf("first notification = %+v, want step 1 with a human message", p)
	}
	if p := got[1]; p.Progress != 5 || p.Total != 9 || p.Message != "5 of 9" {
		t.Errorf("second notification = %+v, want 5 of 9", p)
	}
}

// TestMCPOutputSchema serves the Items tool of the output_schema CLI script (the same
// file, read from the script): data that breaks the outputSchema is an error result,
// as for call, run and test; good data is structuredContent.
func TestMCPOutputSchema(t *testing.T) {
	ar, err := txtar.ParseFile("../cmd/luatool/testdata/script/output_schema.txtar")
	if err != nil {
		t.Fatal(err)
	}
	s := serveStdio(t, nil)
	for _, f := range ar.Files {
		if f.Name == "tools/items.lua" {
			writeFile(t, filepath.Join(s.tools, "items.lua"), string(f.Data))
		}
	}
	eventually(t, "the Items tool", func() bool { return s.toolNames(t)["Items"] != nil })
	bad := s.call(t, "Items", map[string]any{"n": 0})
	if !bad.IsError || bad.StructuredContent != nil || !strings.Contains(text(bad), "Items returned data that does not match its outputSchema") || !strings.Contains(text(bad), "json.array()") {
		t.Errorf("empty list: %+v %q", bad, text(bad))
	}
	good := s.call(t, "Items", map[string]any{"n": 2})
	sc, _ := json.Marshal(good.StructuredContent)
	if good.IsError || string(sc) != `{"items":["item 1","item 2"]}` {
		t.Errorf("two items: %v %s", good.IsError, sc)
	}
}

func TestMCPCancellation(t *testing.T) {
	started := make(chan struct{}, 1)
	s := serveStdio(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case started <- struct{}{}:
			default:
			}
		},
	}, "--timeout", "10m")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "Spin", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": 7}})
		done <- err
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatalf("Spin never reported progress\n%s", s.stderr)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	// Spin runs alone (it is not concurrency-safe): the next call can start only
	// once the cancellation has stopped it, long before its 10-minute deadline.
	if res := s.call(t, "Steps", map[string]any{}); text(res) != "three steps" {
		t.Errorf("after cancelling: %q", text(res))
	}
	eventually(t, "the interrupted call in the server's log", func() bool {
		return regexp.MustCompile(`level=WARN msg="tool call" tool=Spin duration=\S+ outcome=cancelled stage=call`).MatchString(s.stderr.String())
	})
}

// TestMCPElicitation answers permission asks through the client: with multi
// round-trip requests on the latest protocol, and with a classic elicitation/create
// request (sent by the SDK for us) on an older one.
func TestMCPElicitation(t *testing.T) {
	for _, protocol := range []string{"", "2025-06-18"} {
		t.Run("protocol="+protocol, func(t *testing.T) { testElicitation(t, protocol) })
	}
}

func testElicitation(t *testing.T, protocol string) {
	var mu sync.Mutex
	answer := map[string]any{"allow": true}
	var asked []string
	s := serveStdioAt(t, protocol, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, req.Params.Message)
			if answer == nil {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: answer}, nil
		},
	})
	target := filepath.Join(s.root, "approved.txt")
	res := s.call(t, "Write", map[string]any{"file_path": target, "content": "approved\n"})
	if res.IsError {
		t.Fatalf("approved Write failed: %q", text(res))
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "approved\n" {
		t.Errorf("approved Write wrote %q, %v", b, err)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "Write(") || !strings.Contains(asked[0], "approved.txt") {
		t.Errorf("elicitations = %q", asked)
	}

	mu.Lock()
	answer = map[string]any{"allow": false, "reason": "not that file"}
	mu.Unlock()
	res = s.call(t, "Write", map[string]any{"file_path": filepath.Join(s.root, "refused.txt"), "content": "x"})
	if !res.IsError || !strings.Contains(text(res), "The user said:\nnot that file") {
		t.Errorf("refused Write: isError=%v %q", res.IsError, text(res))
	}

	mu.Lock()
	answer = nil
	mu.Unlock()
	res = s.call(t, "Write", map[string]any{"file_path": filepath.Join(s.root, "declined.txt"), "content": "x"})
	if !res.IsError || !strings.Contains(text(res), "Permission to use Write has been denied") {
		t.Errorf("declined Write: isError=%v %q", res.IsError, text(res))
	}
	if _, err := os.Stat(filepath.Join(s.root, "declined.txt")); err == nil {
		t.Error("the declined Write wrote its file")
	}

	// "Always" keeps the suggested rule (for this file): the next write to it is not
	// asked about.
	mu.Lock()
	answer, asked = map[string]any{"allow": true, "always": true}, nil
	mu.Unlock()
	s.call(t, "Write", map[string]any{"file_path": filepath.Join(s.root, "always1.txt"), "content": "1"})
	mu.Lock()
	answer = nil
	mu.Unlock()
	res = s.call(t, "Write", map[string]any{"file_path": filepath.Join(s.root, "always1.txt"), "content": "2"})
	if res.IsError || len(asked) != 1 {
		t.Errorf("after allow always: isError=%v %q, asked %d times\n%s", res.IsError, text(res), len(asked), s.stderr)
	}
}

func TestMCPHotReload(t *testing.T) {
	s := serveStdio(t, nil)
	echo := filepath.Join(s.tools, "echo.lua")

	// An edit takes effect at once, without a list change.
	writeFile(t, echo, strings.Replace(mcpTools["echo.lua"], `"echo: "`, `"ECHO: "`, 1))
	eventually(t, "the edited Echo", func() bool {
		return text(s.call(t, "Echo", map[string]any{"text": "x"})) == "ECHO: x"
	})

	// A broken save is reported on stderr; the last good version keeps serving.
	writeFile(t, echo, "return {")
	eventually(t, "the diagnostic of the broken save", func() bool {
		return strings.Contains(s.stderr.String(), "echo.lua:1") && strings.Contains(s.stderr.String(), "the last good version keeps serving")
	})
	if got := text(s.call(t, "Echo", map[string]any{"text": "y"})); got != "ECHO: y" {
		t.Errorf("after a broken save: %q", got)
	}

	// A new file: list_changed, and the tool is listed and callable.
	drain(s.changed)
	writeFile(t, filepath.Join(s.tools, "fresh.lua"), toolSource("Fresh", "fresh result"))
	select {
	case <-s.changed:
	case <-time.After(20 * time.Second):
		t.Fatalf("no tools/list_changed after adding a tool\n%s", s.stderr)
	}
	if s.toolNames(t)["Fresh"] == nil {
		t.Fatal("Fresh is not listed after list_changed")
	}
	if got := text(s.call(t, "Fresh", map[string]any{})); got != "fresh result" {
		t.Errorf("Fresh: %q", got)
	}

	// Renaming a tool: list_changed, the old name gone, the new one listed.
	drain(s.changed)
	writeFile(t, filepath.Join(s.tools, "fresh.lua"), toolSource("Renamed", "renamed result"))
	select {
	case <-s.changed:
	case <-time.After(20 * time.Second):
		t.Fatal("no tools/list_changed after renaming a tool")
	}
	eventually(t, "Renamed listed and Fresh gone", func() bool {
		names := s.toolNames(t)
		return names["Renamed"] != nil && names["Fresh"] == nil
	})
}

func drain(c chan struct{}) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// TestMCPStdoutCarriesOnlyProtocol speaks JSON-RPC to `luatool serve` by hand and
// requires every line of its stdout to be a JSON-RPC message, while tools print,
// fail, run shell commands and break on reload.
func TestMCPStdoutCarriesOnlyProtocol(t *testing.T) {
	s := newMCPDirs(t)
	cmd := exec.Command(luatoolBinary(t), "serve", "--standard-tools", "--tools", s.tools, "--root", s.root, "--debounce", "20ms", "--allow", "Bash")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir())
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	responses := make(chan map[string]any, 64)
	var bad []string
	var badMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var msg map[string]any
			if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
				badMu.Lock()
				bad = append(bad, sc.Text())
				badMu.Unlock()
				continue
			}
			responses <- msg
		}
		close(responses)
	}()
	send := func(msg string) {
		if _, err := fmt.Fprintln(stdin, msg); err != nil {
			t.Fatal(err)
		}
	}
	// await returns the response with this id, keeping the others that arrive first.
	seen := map[float64]map[string]any{}
	await := func(id float64) map[string]any {
		timeout := time.After(30 * time.Second)
		for {
			if msg, ok := seen[id]; ok {
				return msg
			}
			select {
			case msg, ok := <-responses:
				if !ok {
					t.Fatalf("stdout closed before response %v\n%s", id, s.stderr)
				}
				if n, ok := msg["id"].(float64); ok {
					seen[n] = msg
				}
			case <-timeout:
				t.Fatalf("no response %v\n%s", id, s.stderr)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	await(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	calls := []string{
		`{"name":"Noisy","arguments":{}}`,
		`{"name":"Noisy","arguments":{"fail":true}}`,
		`{"name":"Bash","arguments":{"command":"echo shell-output; echo shell-error >&2"}}`,
		`{"name":"Read","arguments":{"file_path":"/nonexistent/file"}}`,
		`{"name":"NoSuchTool","arguments":{}}`,
	}
	for i, c := range calls {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+2, c))
	}
	results := map[int]map[string]any{}
	for i := range calls {
		results[i] = await(float64(i + 2))
	}
	// A reload that fails, and one that prints while loading.
	writeFile(t, filepath.Join(s.tools, "noisy.lua"), "print('printed while loading')\nreturn {")
	eventually(t, "the broken reload's diagnostic", func() bool { return strings.Contains(s.stderr.String(), "noisy.lua") })
	send(`{"jsonrpc":"2.0","id":99,"method":"tools/list"}`)
	await(99)
	stdin.Close()

	badMu.Lock()
	defer badMu.Unlock()
	if len(bad) > 0 {
		t.Errorf("stdout carried lines that are not JSON-RPC:\n%s", strings.Join(bad, "\n"))
	}
	bash, _ := json.Marshal(results[2])
	if !strings.Contains(string(bash), "shell-output") || !strings.Contains(string(bash), "shell-error") {
		t.Errorf("Bash's output is not in its result: %s", bash)
	}
	if e, _ := results[4]["error"].(map[string]any); e["code"] != float64(-32602) || e["message"] != "No such tool available: NoSuchTool" {
		t.Errorf("an unknown tool is not the protocol error of MCP in the engine's words: %v", results[4])
	}
	eventually(t, "Lua print on stderr", func() bool { return strings.Contains(s.stderr.String(), "printed by Noisy") })
}

// TestReadmeMCPConfig launches the server as the README's client configuration says,
// with its placeholder paths made real, and lists the tools.
func TestReadmeMCPConfig(t *testing.T) {
	section := readmeSection(t, "## Connect a client")
	langs, bodies := codeBlocks(section)
	var config struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	for i, lang := range langs {
		if lang == "json" {
			if err := json.Unmarshal([]byte(bodies[i]), &config); err != nil {
				t.Fatalf("the README's configuration is not JSON: %v", err)
			}
		}
	}
	entry, ok := config.MCPServers["luatool"]
	if !ok || entry.Command != "luatool" {
		t.Fatalf("no luatool server in the README's configuration: %+v", config)
	}
	s := newMCPDirs(t)
	args := make([]string, len(entry.Args))
	for i, a := range entry.Args {
		args[i] = strings.NewReplacer("/path/to/tools", s.tools, "/path/to/project", s.root).Replace(a)
	}
	cmd := exec.Command(luatoolBinary(t), args...)
	cmd.Stderr = s.stderr
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir())
	s.connect(t, &mcp.CommandTransport{Command: cmd}, nil, "")
	// The user's tools alone: Claude Code and Cursor have a Read of their own.
	tools := s.toolNames(t)
	if tools["Echo"] == nil || tools["Read"] != nil {
		t.Errorf("the README's configuration serves %d tools: want Echo, and not Read", len(tools))
	}
	// With --standard-tools, as the README says for a client without file tools of
	// its own, Read works under the README's --root.
	s = newMCPDirs(t)
	for i, a := range entry.Args {
		args[i] = strings.NewReplacer("/path/to/tools", s.tools, "/path/to/project", s.root).Replace(a)
	}
	cmd = exec.Command(luatoolBinary(t), append(args, "--standard-tools")...)
	cmd.Stderr = s.stderr
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir())
	s.connect(t, &mcp.CommandTransport{Command: cmd}, nil, "")
	if !strings.Contains(section, "`\"--standard-tools\"`") {
		t.Error(`the README does not say when to add "--standard-tools"`)
	}
	res := s.call(t, "Read", map[string]any{"file_path": filepath.Join(s.root, "notes.txt")})
	if !strings.Contains(text(res), "first line") {
		t.Errorf("Read under the README's --root: %q", text(res))
	}
}
