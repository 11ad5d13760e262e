package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/txtar"
)

// startHTTP starts `luatool serve --http 127.0.0.1:0` on s's tools with the extra
// arguments, and returns the endpoint it says it serves. What the server logs goes
// to s.stderr, the lines before the endpoint included.
func startHTTP(t *testing.T, s *mcpServer, extraArgs ...string) string {
	t.Helper()
	return startServe(t, s, nil, append([]string{"--http", "127.0.0.1:0"}, extraArgs...)...)
}

// startServe starts `luatool serve` on s's tools with args, in an environment of
// its own (XDG_CONFIG_HOME, HOME and XDG_RUNTIME_DIR in temporary directories)
// with env added, and returns where it says it serves: an http:// endpoint, or
// unix:PATH. What the server logs goes to s.stderr.
func startServe(t *testing.T, s *mcpServer, env []string, args ...string) string {
	t.Helper()
	return startServeProcess(t, s, env, args...).endpoint
}

// A serveProcess is a `luatool serve` the test started.
type serveProcess struct {
	cmd      *exec.Cmd
	endpoint string
	// done is closed once the process has ended and its log is read; err is then
	// what Wait returned.
	done chan struct{}
	err  error
}

// startServeProcess is startServe, returning the process too. It serves the
// standard tools beside s.tools unless args say --no-standard-tools. It is
// interrupted, if still running, when the test ends, and waited for.
func startServeProcess(t *testing.T, s *mcpServer, env []string, args ...string) *serveProcess {
	t.Helper()
	standard := "--standard-tools"
	if slices.Contains(args, "--no-standard-tools") {
		standard = "--no-standard-tools"
		args = slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == standard })
	}
	args = append([]string{"serve", standard, "--tools", s.tools, "--root", s.root, "--debounce", "20ms"}, args...)
	p := &serveProcess{cmd: exec.Command(luatoolBinary(t), args...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir(), "XDG_RUNTIME_DIR="+t.TempDir())
	p.cmd.Env = append(p.cmd.Env, env...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.cmd.Process.Signal(os.Interrupt)
		<-p.done
		if t.Failed() {
			t.Logf("the server's log:\n%s", s.stderr)
		}
	})
	addr := regexp.MustCompile(`serving MCP at ((?:http://|unix:)[^\s"]+)`)
	found := make(chan string, 1)
	go func() {
		lines, told := bufio.NewScanner(stderr), false
		for lines.Scan() {
			fmt.Fprintln(s.stderr, lines.Text())
			if m := addr.FindStringSubmatch(lines.Text()); m != nil && !told {
				found <- m[1]
				told = true
			}
		}
		p.err = p.cmd.Wait() // after the log is read to its end: Wait closes the pipe
		close(found)
		close(p.done)
	}()
	p.endpoint = <-found
	if p.endpoint == "" {
		t.Fatalf("the server never said where it listens:\n%s", s.stderr)
	}
	return p
}

// withToken sends a bearer token with every request.
type withToken string

func (tok withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(tok))
	return http.DefaultTransport.RoundTrip(r)
}

// clientAs connects a go-sdk client to endpoint with a token.
func clientAs(t *testing.T, endpoint, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	transport := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: withToken(token)}}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "luatool-test", Version: "v0"}, opts).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect with %s's token: %v", token, err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

func callOn(t *testing.T, session *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	return res
}

func listedOn(t *testing.T, session *mcp.ClientSession) map[string]bool {
	t.Helper()
	res, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tool := range res.Tools {
		out[tool.Name] = true
	}
	return out
}

// authConf unpacks testdata/mcp_auth.txtar, the principals' token file (tokens.txt,
// mode 0600, as serve requires), their profiles and the Note tool, in a temporary
// directory, and returns it.
func authConf(t *testing.T) string {
	t.Helper()
	conf := t.TempDir()
	unpack(t, "testdata/mcp_auth.txtar", conf)
	if err := os.Chmod(filepath.Join(conf, "tokens.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	return conf
}

// unpack writes the files of a txtar archive under dir.
func unpack(t *testing.T, archive, dir string) {
	t.Helper()
	ar, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		path := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, string(f.Data))
	}
}

const (
	aliceToken = "alice-token-0123456789abcdef"
	bobToken   = "bob-token-0123456789abcdef0"
	carolToken = "carol-token-0123456789abcdef"
)

// TestMCPHTTPPrincipals serves two principals of a token file (testdata/mcp_auth.txtar)
// and checks that neither sees what belongs to the other: ctx.state, what the model
// was shown of a file, "allow always" answers; that a profile's denied tool is
// absent from its list and unknown to its calls, so that a read-only principal
// (carol) cannot write; what clients without a good token, or browsers of other
// origins, are answered; and that each call is logged with its principal, never
// its token.
func TestMCPHTTPPrincipals(t *testing.T) {
	s := newMCPDirs(t)
	conf := authConf(t)
	writeFile(t, filepath.Join(s.tools, "note.lua"), mustRead(t, filepath.Join(conf, "tools", "note.lua")))
	endpoint := startHTTP(t, s, "--tokens", filepath.Join(conf, "tokens.txt"), "--auth-server", "https://auth.example.com", "--allow-origin", "https://app.example.com")
	base := strings.TrimSuffix(endpoint, "/mcp")

	var mu sync.Mutex
	asked := map[string]int{}
	answer := func(who string, always bool) *mcp.ClientOptions {
		return &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked[who]++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true, "always": always}}, nil
		}}
	}
	alice := clientAs(t, endpoint, aliceToken, answer("alice", true))
	bob := clientAs(t, endpoint, bobToken, answer("bob", false))

	// ctx.state, and the "always" answer alice gives.
	for _, note := range []string{"alice's note", "alice again"} {
		if res := callOn(t, alice, "Note", map[string]any{"text": note}); res.IsError || text(res) != "noted" {
			t.Fatalf("alice's Note: %q\n%s", text(res), s.stderr)
		}
	}
	if got := text(callOn(t, bob, "Note", map[string]any{})); got != "(no note)" {
		t.Errorf("bob reads the note %q, want none: the state is alice's", got)
	}
	callOn(t, bob, "Note", map[string]any{"text": "bob's note"})
	if got := text(callOn(t, alice, "Note", map[string]any{})); got != "alice again" {
		t.Errorf("alice reads %q", got)
	}
	mu.Lock()
	if asked["alice"] != 1 || asked["bob"] != 1 {
		t.Errorf("asked %v: want alice once (then her \"always\" holds) and bob once (it is not his)", asked)
	}
	mu.Unlock()

	// What the model was shown of a file: alice's Read lets her Edit, not bob.
	notes := filepath.Join(s.root, "notes.txt")
	if res := callOn(t, alice, "Read", map[string]any{"file_path": notes}); res.IsError {
		t.Fatalf("alice's Read: %q", text(res))
	}
	edit := func(session *mcp.ClientSession, to string) *mcp.CallToolResult {
		return callOn(t, session, "Edit", map[string]any{"file_path": notes, "old_string": "first line", "new_string": to})
	}
	if res := edit(bob, "bob was here"); !res.IsError || !strings.Contains(text(res), "File has not been read yet. Read it first before writing to it.") {
		t.Errorf("bob's Edit of a file only alice read: isError=%v %q", res.IsError, text(res))
	}
	if res := edit(alice, "alice was here"); res.IsError {
		t.Errorf("alice's Edit after her Read (her profile allows Edit): %q", text(res))
	}
	if got := mustRead(t, notes); got != "alice was here\nsecond line\n" {
		t.Errorf("notes.txt = %q", got)
	}

	// bob's profile denies Glob: absent from his list, unknown to his calls.
	if tools := listedOn(t, alice); !tools["Glob"] || !tools["Note"] {
		t.Errorf("alice's tools lack Glob or Note: %v", tools)
	}
	if tools := listedOn(t, bob); tools["Glob"] || !tools["Grep"] {
		t.Errorf("bob's tools: %v, want Glob hidden and Grep listed", tools)
	}
	_, err := bob.CallTool(context.Background(), &mcp.CallToolParams{Name: "Glob", Arguments: map[string]any{"pattern": "*"}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || rpcErr.Message != "No such tool available: Glob" {
		t.Errorf("bob's Glob: %v, want the unknown-tool error", err)
	}

	// carol's profile denies every tool that writes: she is not listed them, and a
	// call of one is a call of no tool.
	carol := clientAs(t, endpoint, carolToken, answer("carol", false))
	tools := listedOn(t, carol)
	for _, name := range []string{"Bash", "Edit", "Write"} {
		if tools[name] {
			t.Errorf("carol is listed %s: %v", name, tools)
		}
		_, err := carol.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"file_path": notes, "content": "carol", "command": "true"}})
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(rpcErr.Message, "No such tool available: "+name) {
			t.Errorf("carol's %s: %v, want the unknown-tool error", name, err)
		}
	}
	if res := callOn(t, carol, "Read", map[string]any{"file_path": notes}); res.IsError || !strings.Contains(text(res), "alice was here") {
		t.Errorf("carol's Read: %q", text(res))
	}
	if got := mustRead(t, notes); got != "alice was here\nsecond line\n" {
		t.Errorf("notes.txt after carol's calls = %q", got)
	}

	// No token, a wrong one: 401, naming the metadata, which names the server.
	for _, token := range []string{"", "wrong-token-0123456789abcdef"} {
		resp := post(t, endpoint, token, "")
		want := `Bearer resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp"`
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
			t.Errorf("token %q: %s, WWW-Authenticate %q, want 401 and %q", token, resp.Status, resp.Header.Get("WWW-Authenticate"), want)
		}
	}
	resp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if json.Unmarshal(body, &meta) != nil || meta.Resource != endpoint || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != "https://auth.example.com" {
		t.Errorf("metadata: %s", body)
	}

	// Browsers: a foreign origin is 403, one on the list is served.
	if resp := post(t, endpoint, aliceToken, "https://evil.example"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign origin: %s", resp.Status)
	}
	if resp := post(t, endpoint, aliceToken, "https://app.example.com"); resp.StatusCode != http.StatusOK {
		t.Errorf("an allowed origin: %s", resp.Status)
	}

	// The log says who called, what, for how long and how it ended, and never a
	// token.
	callOn(t, bob, "Noisy", map[string]any{})
	// The server writes these lines as the call ends, and they reach the test
	// through a pipe: wait for the last.
	eventually(t, "bob's tool log and call line", func() bool {
		return regexp.MustCompile(`msg="tool log" principal=bob tool=Noisy line="printed by Noisy"`).MatchString(s.stderr.String()) &&
			regexp.MustCompile(`msg="tool call" principal=bob tool=Noisy`).MatchString(s.stderr.String())
	})
	for _, line := range []string{
		`level=INFO msg="tool call" principal=alice tool=Read duration=\S+ outcome=ok`,
		`level=INFO msg="tool call" principal=bob tool=Edit duration=\S+ outcome=invalid`,
		`level=INFO msg="tool call" principal=bob tool=Noisy duration=\S+ outcome=ok`,
	} {
		if !regexp.MustCompile(line).MatchString(s.stderr.String()) {
			t.Errorf("no %s in the log:\n%s", line, s.stderr)
		}
	}
	for _, token := range []string{aliceToken, bobToken, carolToken} {
		if strings.Contains(s.stderr.String(), token) {
			t.Errorf("the log holds a token:\n%s", s.stderr)
		}
	}
}

// post sends a tools/list request by hand, with a token and an Origin ("" for none).
func post(t *testing.T, endpoint, token, origin string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
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
	resp.Body.Close()
	return resp
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMCPHTTPInsecureNoAuth: a non-loopback address without tokens is served only
// with --insecure-no-auth, which is warned of before anything is served.
func TestMCPHTTPInsecureNoAuth(t *testing.T) {
	s := newMCPDirs(t)
	cmd := exec.Command(luatoolBinary(t), "serve", "--http", "0.0.0.0:0", "--insecure-no-auth", "--tools", s.tools, "--root", s.root)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	var seen []string
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.Contains(lines.Text(), "serving MCP at") {
		seen = append(seen, lines.Text())
	}
	warned := regexp.MustCompile(`level=WARN msg="serving \S+ without authentication \(--insecure-no-auth\): anyone who reaches it may call every tool`)
	if !warned.MatchString(strings.Join(seen, "\n")) {
		t.Errorf("no warning before serving:\n%s", strings.Join(seen, "\n"))
	}
}

// TestMCPLogFormatJSON: with --log-format json, every line serve writes to stderr
// is a JSON object with a level and a message, tool logs and failures included.
func TestMCPLogFormatJSON(t *testing.T) {
	s := serveStdio(t, nil, "--log-format", "json")
	s.call(t, "Noisy", map[string]any{"fail": true})
	eventually(t, "the failed call in the log", func() bool { return strings.Contains(s.stderr.String(), `"outcome":"error"`) })
	var msgs []string
	failed := false
	for _, line := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n") {
		var rec struct {
			Level, Msg, Tool, Outcome, Error string
			Duration                         int64
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Level == "" || rec.Msg == "" {
			t.Errorf("not a JSON log line: %s", line)
		}
		msgs = append(msgs, rec.Msg)
		if rec.Msg == "tool call" && rec.Outcome == "error" {
			failed = rec.Level == "WARN" && rec.Tool == "Noisy" && rec.Duration > 0 && rec.Error != ""
		}
	}
	if !failed {
		t.Errorf("the failed call is not a WARN line with the tool, its duration and the error:\n%s", s.stderr)
	}
	for _, want := range []string{"shell sandbox: ", "tool list", "tool log", "tool call"} {
		if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, want) }) {
			t.Errorf("no %q among the messages %q", want, msgs)
		}
	}
}
