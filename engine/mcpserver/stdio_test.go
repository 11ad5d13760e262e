package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/internal/extdata"
)

// liveness bounds every wait of these tests for something that must happen: it is
// not a measure of speed, only a stop for a test that would otherwise hang.
const liveness = 30 * time.Second

// stdioEngine is the engine the stdio tests serve: Echo returns its text, Wait runs
// until release is closed or the call is cancelled, Steps reports progress, and
// Write asks for permission.
func stdioEngine(t testing.TB, release <-chan struct{}) *engine.Engine {
	t.Helper()
	echo := goTool("Echo", true, func(_ context.Context, in map[string]any) (*engine.ToolResult, error) {
		return &engine.ToolResult{Data: fmt.Sprint(in["text"])}, nil
	})
	wait := goTool("Wait", true, func(ctx context.Context, _ map[string]any) (*engine.ToolResult, error) {
		select {
		case <-release:
			return &engine.ToolResult{Data: "released"}, nil
		case <-ctx.Done():
			return &engine.ToolResult{Data: "cancelled"}, nil
		}
	})
	steps := goTool("Steps", true, nil)
	steps.Call = func(_ context.Context, _ map[string]any, cc *engine.CallContext) (*engine.ToolResult, error) {
		cc.Progress(map[string]any{"progress": 1, "total": 1, "message": "one"})
		return &engine.ToolResult{Data: "stepped"}, nil
	}
	write := goTool("Write", false, func(context.Context, map[string]any) (*engine.ToolResult, error) {
		return &engine.ToolResult{Data: "written"}, nil
	})
	write.IsReadOnly = nil
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Timeout: liveness, Tools: []engine.ToolDef{echo, wait, steps, write}})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// A rawClient speaks to ServeStdio line by line, as a client process does.
type rawClient struct {
	t     testing.TB
	w     *io.PipeWriter
	lines chan []byte
	done  chan error
}

// startStdio serves srv over pipes to a new rawClient, which reads every line the
// server writes.
func startStdio(t testing.TB, srv *Server, opts StdioOptions) *rawClient {
	t.Helper()
	return startPipes(t, func(in *io.PipeReader, out *io.PipeWriter) error {
		return srv.ServeStdio(context.Background(), in, out, opts)
	})
}

// startPipes runs serve over pipes to a new rawClient.
func startPipes(t testing.TB, serve func(in *io.PipeReader, out *io.PipeWriter) error) *rawClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &rawClient{t: t, w: inW, lines: make(chan []byte, 1024), done: make(chan error, 1)}
	go func() {
		c.done <- serve(inR, outW)
		outW.Close()
	}()
	go func() {
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				close(c.lines)
				return
			}
			c.lines <- line
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
	})
	return c
}

// send writes one line, adding the newline.
func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("writing %.80q: %v", line, err)
	}
}

// recvLine returns the next line the server writes.
func (c *rawClient) recvLine() []byte {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the server's output ended")
		}
		return line
	case <-time.After(liveness):
		c.t.Fatal("no message from the server")
	}
	return nil
}

// recv returns the next message of the server's, checked to be a JSON-RPC 2.0
// object.
func (c *rawClient) recv() map[string]json.RawMessage {
	c.t.Helper()
	return message(c.t, c.recvLine())
}

// message decodes a JSON-RPC 2.0 object the server wrote.
func message(t testing.TB, data []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
		t.Fatalf("the server wrote %q: not a JSON-RPC 2.0 message (%v)", data, err)
	}
	return m
}

// recvBatch returns the next line of the server's, checked to be an array of
// JSON-RPC 2.0 objects.
func (c *rawClient) recvBatch() []map[string]json.RawMessage {
	c.t.Helper()
	line := c.recvLine()
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil {
		c.t.Fatalf("the server wrote %q: not a batch (%v)", line, err)
	}
	var ms []map[string]json.RawMessage
	for _, e := range elems {
		ms = append(ms, message(c.t, e))
	}
	return ms
}

// initialize opens the session with the 2025-06-18 protocol; elicit says whether
// the client can be asked.
func (c *rawClient) initialize(elicit bool) {
	c.t.Helper()
	c.initializeAs("2025-06-18", elicit)
}

// initializeAs opens the session with the given protocol version.
func (c *rawClient) initializeAs(version string, elicit bool) {
	c.t.Helper()
	caps := `{}`
	if elicit {
		caps = `{"elicitation":{}}`
	}
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":` + caps + `,"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := c.recv(); string(m["id"]) != `"init"` || m["result"] == nil {
		c.t.Fatalf("initialize: %s", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// end closes the client's stdin and returns what ServeStdio returned.
func (c *rawClient) end() error {
	c.t.Helper()
	c.w.Close()
	select {
	case err := <-c.done:
		return err
	case <-time.After(liveness):
		c.t.Fatal("ServeStdio did not return at the end of its input")
	}
	return nil
}

// echoCall is a tools/call of Echo with text, under id.
func echoCall(id, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"Echo","arguments":{"text":%q}}}`, id, text)
}

// resultText is the text of a tools/call result, or what is wrong with it.
func resultText(m map[string]json.RawMessage) string {
	var r struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(m["result"], &r); err != nil || len(r.Content) != 1 || r.IsError {
		return fmt.Sprintf("not a result with one text: %s", m)
	}
	return r.Content[0].Text
}

// errorCode is the code of an error response, or 0.
func errorCode(m map[string]json.RawMessage) (int, string) {
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(m["error"], &e) != nil {
		return 0, ""
	}
	return e.Code, e.Message
}

// After every malformed frame the same session answers a valid tools/call, and
// each malformed request gets the error it should, under its id when the id can be
// found; what must not be answered (blank lines, notifications, responses) is not.
func TestStdioBadFrames(t *testing.T) {
	srv := New(stdioEngine(t, nil), Options{})
	defer srv.Close()
	const maxFrame = 1 << 20
	c := startStdio(t, srv, StdioOptions{MaxFrameBytes: maxFrame})
	c.initialize(false)

	deep := strings.Repeat("[", 2000) + strings.Repeat("]", 2000)
	tests := []struct {
		name, line string
		code       int    // 0: no response
		id         string // the id of the error response
		message    string // a part of its message
	}{
		{"not JSON", "hello", -32700, "null", "invalid character 'h'"},
		{"cut off, id recovered", `{"jsonrpc":"2.0","id":7,"method":"ping"`, -32700, "7", "unexpected end"},
		{"trailing data", `{"jsonrpc":"2.0","id":8,"method":"ping"} {}`, -32700, "8", "after top-level value"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"x\":\"\xff\"}", -32700, "3", "not valid UTF-8"},
		{"bare number", "5", -32600, "null", "not a number"},
		{"bare string", `"ping"`, -32600, "null", "not a string"},
		{"null", "null", -32600, "null", "not null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, "null", "protocol version 2025-06-18 has no batches (MCP 2025-06-18 removed JSON-RPC batching)"},
		{"batch of notifications", `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, -32600, "null", "has no batches"},
		{"empty batch", `[]`, -32600, "null", "an empty batch is not a message"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null", `"id" must be a string or a number, not a boolean`},
		{"object id", `{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}`, -32600, "null", "not an object"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"Echo","arguments":{"text":"x"}}}`, -32600, "null", `"id" is null`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600, "1", `"jsonrpc" must be "2.0", not "1.0"`},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":"v","method":"ping"}`, -32600, `"v"`, `not 2.0`},
		{"no jsonrpc", `{"id":2,"method":"ping"}`, -32600, "2", `missing "jsonrpc"`},
		{"no method", `{"jsonrpc":"2.0","id":4}`, -32600, "4", `missing "method"`},
		{"method misspelt", `{"jsonrpc":"2.0","id":4,"Method":"ping"}`, -32600, "4", `did you mean "Method"?`},
		{"method a number", `{"jsonrpc":"2.0","id":5,"method":5}`, -32600, "5", `"method" must be a string, not a number`},
		{"nested 2000 deep", deep, -32600, "null", "deeper than 256 levels"},
		{"nested deep in params", `{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"x":` + deep + `}}`, -32600, `"deep"`, "deeper than 256"},
		{"over the size limit", `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"` + strings.Repeat("a", maxFrame) + `"}}`, -32600, `"big"`, "longer than 1048576 bytes"},
		{"params a string", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":"all"}`, -32600, "6", `"params" must be an object, not a string`},
		{"params an array", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":["Echo"]}`, -32602, "6", "not an array"},
		{"params of the wrong types", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":5}}`, -32602, "9", ""},
		{"unknown method", `{"jsonrpc":"2.0","id":10,"method":"tools/frobnicate"}`, -32601, "10", "method not found"},
		{"empty line", "", 0, "", ""},
		{"whitespace", " \t  \r", 0, "", ""},
		{"a response of the client's", `{"jsonrpc":"2.0","id":11,"result":{}}`, 0, "", ""},
		{"an error response of the client's", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, 0, "", ""},
		{"notification with jsonrpc 1.0", `{"jsonrpc":"1.0","method":"notifications/initialized"}`, 0, "", ""},
		{"notification with a number method", `{"jsonrpc":"2.0","method":7}`, 0, "", ""},
		{"notification with params an array", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}`, 0, "", ""},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/frobnicated"}`, 0, "", ""},
		{"cancellation of no request", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"none"}}`, 0, "", ""},
	}
	for i, tt := range tests {
		c.send(tt.line)
		id := fmt.Sprintf(`"after-%d"`, i)
		c.send(echoCall(id, tt.name))
		want := 1
		if tt.code != 0 {
			want = 2
		}
		var answered, failed bool
		for range want {
			m := c.recv()
			switch string(m["id"]) {
			case id:
				answered = true
				if got := resultText(m); got != tt.name {
					t.Errorf("%s: the tools/call after it got %s", tt.name, got)
				}
			default:
				code, msg := errorCode(m)
				if failed || tt.code == 0 || code != tt.code || string(m["id"]) != tt.id || !strings.Contains(msg, tt.message) {
					t.Errorf("%s: got %s, want code %d, id %s and %q in the message", tt.name, truncate(must(json.Marshal(m))), tt.code, tt.id, tt.message)
				}
				failed = true
			}
		}
		if !answered {
			t.Errorf("%s: the tools/call after it was not answered", tt.name)
		}
	}
	// Nothing more is pending: the next response is the next request's.
	c.send(`{"jsonrpc":"2.0","id":"last","method":"ping"}`)
	if m := c.recv(); string(m["id"]) != `"last"` {
		t.Errorf("after the table: %s", m)
	}
	if err := c.end(); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A request's id comes back exactly as sent, whatever the SDK would make of it.
func TestStdioIDsRoundTrip(t *testing.T) {
	srv := New(stdioEngine(t, nil), Options{})
	defer srv.Close()
	c := startStdio(t, srv, StdioOptions{})
	c.initialize(false)
	ids := []string{
		`1e30`, `12345678901234567890`, `-0`, `1.5`, `0`, `-7`, `9007199254740993`, `1E+2`, `0.1e-5`,
		`"a\u0062c"`, `"é \ud83d\ude00"`, `""`, `"` + strings.Repeat("x", 10000) + `"`, `"1"`,
	}
	for _, id := range ids {
		c.send(echoCall(id, "x"))
		m := c.recv()
		if string(m["id"]) != id || resultText(m) != "x" {
			t.Errorf("id %.40s came back as %.40s: %.200s", id, m["id"], must(json.Marshal(m)))
		}
	}
	c.end()
}

// A numeric progress token comes back as sent in the progress notifications.
func TestStdioProgressTokenRoundTrip(t *testing.T) {
	srv := New(stdioEngine(t, nil), Options{})
	defer srv.Close()
	c := startStdio(t, srv, StdioOptions{})
	c.initialize(false)
	for _, token := range []string{`12345678901234567890`, `7`, `"t"`, `1.5`} {
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Steps","arguments":{},"_meta":{"progressToken":` + token + `}}}`)
		progress := c.recv()
		var p struct {
			ProgressToken json.RawMessage `json:"progressToken"`
			Message       string          `json:"message"`
		}
		json.Unmarshal(progress["params"], &p)
		if string(progress["method"]) != `"notifications/progress"` || string(p.ProgressToken) != token || p.Message != "one" {
			t.Errorf("token %s: progress %s", token, must(json.Marshal(progress)))
		}
		if m := c.recv(); string(m["id"]) != "1" || resultText(m) != "stepped" {
			t.Errorf("token %s: %s", token, must(json.Marshal(m)))
		}
	}
	c.end()
}

// An id in use by a request in flight is refused for another; a cancellation names
// the request by the id the client gave it, however odd; once answered, an id may
// be used again.
func TestStdioIDsInFlight(t *testing.T) {
	release := make(chan struct{})
	srv := New(stdioEngine(t, release), Options{})
	defer srv.Close()
	c := startStdio(t, srv, StdioOptions{})
	c.initialize(false)

	c.send(`{"jsonrpc":"2.0","id":1e30,"method":"tools/call","params":{"name":"Wait","arguments":{}}}`)
	c.send(echoCall("1e30", "dup"))
	if m := c.recv(); string(m["id"]) != "1e30" || !strings.Contains(string(m["error"]), "already in use") {
		t.Errorf("a second request under 1e30: %s", must(json.Marshal(m)))
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1e30,"reason":"test"}}`)
	// Wait ends only when cancelled (release is still open): an answer means the
	// cancellation reached it. The SDK answers a cancelled call, with what the tool
	// returned, or, when the pipeline saw the cancellation first, its interruption,
	// or with the context's error when its handler returned before the tool did.
	if m := c.recv(); string(m["id"]) != "1e30" || (m["result"] == nil && m["error"] == nil) {
		t.Errorf("the cancelled call: %s", must(json.Marshal(m)))
	}
	c.send(echoCall("1e30", "again"))
	if m := c.recv(); string(m["id"]) != "1e30" || resultText(m) != "again" {
		t.Errorf("1e30 used again: %s", must(json.Marshal(m)))
	}
	close(release)
	c.end()
}

// A permission ask reaches the client as an elicitation; while the server waits
// for the answer, a request beyond MaxInFlight is refused as busy instead of
// waiting for a slot the answer behind it would free, and the answer is read.
func TestStdioBusyWhileAwaitingTheClient(t *testing.T) {
	srv := New(stdioEngine(t, nil), Options{})
	defer srv.Close()
	c := startStdio(t, srv, StdioOptions{MaxInFlight: 1})
	c.initialize(true)

	c.send(`{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"Write","arguments":{}}}`)
	ask := c.recv()
	if string(ask["method"]) != `"elicitation/create"` || ask["id"] == nil {
		t.Fatalf("the permission ask: %s", must(json.Marshal(ask)))
	}
	c.send(echoCall(`"e"`, "busy"))
	if m := c.recv(); string(m["id"]) != `"e"` {
		t.Fatalf("the request beyond the limit: %s", must(json.Marshal(m)))
	} else if code, msg := errorCode(m); code != codeBusy || !strings.Contains(msg, "server busy") {
		t.Errorf("the request beyond the limit: %d %s", code, msg)
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(ask["id"]) + `,"result":{"action":"accept","content":{"allow":true}}}`)
	if m := c.recv(); string(m["id"]) != `"w"` || resultText(m) != "written" {
		t.Errorf("the call asked about: %s", must(json.Marshal(m)))
	}
	c.send(echoCall(`"e"`, "free"))
	if m := c.recv(); string(m["id"]) != `"e"` || resultText(m) != "free" {
		t.Errorf("the request sent again: %s", must(json.Marshal(m)))
	}
	c.end()
}

// At the end of stdin, every request read is answered before ServeStdio returns.
func TestStdioAnswersAllAtEOF(t *testing.T) {
	srv := New(stdioEngine(t, nil), Options{})
	defer srv.Close()
	var out bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
` + echoCall("1", "one") + "\n" + echoCall("2", "two") + "\nnot json\n" + echoCall("3", "three")) // no final newline
	if err := srv.ServeStdio(context.Background(), in, &out, StdioOptions{}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for line := range strings.Lines(out.String()) {
		var m map[string]json.RawMessage
		json.Unmarshal([]byte(line), &m)
		if code, _ := errorCode(m); code != 0 {
			got[string(m["id"])] = fmt.Sprint(code)
		} else if string(m["id"]) != "0" {
			got[string(m["id"])] = resultText(m)
		}
	}
	want := map[string]string{"1": "one", "2": "two", "3": "three", "null": "-32700"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("answers %v, want %v", got, want)
	}
}

// A session of a protocol version with batches (2025-03-26) gets one array of
// answers per batch, in the order of its requests, once every request in it is
// answered; malformed members are answered in it, notifications are not. Before
// initialize, and past MaxInFlight requests, a batch is refused.
func TestStdioBatches(t *testing.T) {
	release := make(chan struct{})
	srv := New(stdioEngine(t, release), Options{})
	defer srv.Close()
	c := startStdio(t, srv, StdioOptions{MaxInFlight: 3})

	c.send(`[` + echoCall("1", "early") + `]`)
	if m := c.recv(); string(m["id"]) != "null" || !strings.Contains(string(m["error"]), "before the session is initialized") {
		t.Errorf("a batch before initialize: %s", must(json.Marshal(m)))
	}
	c.initializeAs("2025-03-26", false)

	c.send(`[` + echoCall("1e30", "a") + `, {"jsonrpc":"2.0","method":"notifications/frobnicated"}, 1,` +
		echoCall(`"b"`, "b") + `,{"jsonrpc":"2.0","id":true,"method":"ping"}]`)
	got := c.recvBatch()
	if len(got) != 4 || string(got[0]["id"]) != "1e30" || resultText(got[0]) != "a" ||
		string(got[2]["id"]) != `"b"` || resultText(got[2]) != "b" {
		t.Fatalf("a batch of two calls: %s", must(json.Marshal(got)))
	}
	for _, i := range []int{1, 3} {
		if code, _ := errorCode(got[i]); code != -32600 || string(got[i]["id"]) != "null" {
			t.Errorf("member %d of the batch: %s", i, must(json.Marshal(got[i])))
		}
	}

	c.send(`[1,2,3]`)
	if got := c.recvBatch(); len(got) != 3 {
		t.Errorf("[1,2,3]: %s", must(json.Marshal(got)))
	}
	// A batch of notifications has no answer: the next line answers the next request.
	c.send(`[{"jsonrpc":"2.0","method":"notifications/frobnicated"}]`)
	c.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := c.recv(); string(m["id"]) != `"p"` {
		t.Errorf("after a batch of notifications: %s", must(json.Marshal(m)))
	}
	c.send(`[` + strings.Repeat(echoCall("2", "x")+",", 3) + echoCall("2", "x") + `]`)
	if m := c.recv(); string(m["id"]) != "null" || !strings.Contains(string(m["error"]), "has 4 requests, more than the 3") {
		t.Errorf("a batch over MaxInFlight: %s", must(json.Marshal(m)))
	}

	// The batch waits for its slowest request; requests after it are answered
	// meanwhile.
	c.send(`[{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"Wait","arguments":{}}},` + echoCall(`"e"`, "e") + `]`)
	c.send(echoCall(`"alone"`, "alone"))
	if m := c.recv(); string(m["id"]) != `"alone"` {
		t.Errorf("a call after a batch in flight: %s", must(json.Marshal(m)))
	}
	close(release)
	if got := c.recvBatch(); len(got) != 2 || resultText(got[0]) != "released" || resultText(got[1]) != "e" {
		t.Errorf("the batch with Wait: %s", must(json.Marshal(got)))
	}
	if err := c.end(); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// At the end of stdin, a call waiting for the client's answer to a permission ask
// is denied, saying why (the ask failed: nothing runs), a call in flight runs to
// its end, and ServeStdio returns once both are answered.
func TestStdioEOFWhileAwaitingTheClient(t *testing.T) {
	release := make(chan struct{})
	srv := New(stdioEngine(t, release), Options{})
	defer srv.Close()
	c := startStdio(t, srv, StdioOptions{})
	c.initialize(true)
	// Write runs alone: Wait waits for it, and runs once the ask has failed.
	c.send(`{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"Write","arguments":{}}}`)
	if ask := c.recv(); string(ask["method"]) != `"elicitation/create"` {
		t.Fatalf("the permission ask: %s", must(json.Marshal(ask)))
	}
	c.send(`{"jsonrpc":"2.0","id":"wait","method":"tools/call","params":{"name":"Wait","arguments":{}}}`)
	c.w.Close()
	if m := c.recv(); string(m["id"]) != `"w"` || !strings.Contains(string(m["result"]), `"isError":true`) ||
		!strings.Contains(string(m["result"]), `approval could not be asked: calling \"elicitation/create\": no answer: the client closed its input first`) {
		t.Errorf("the call asked about: %s", must(json.Marshal(m)))
	}
	close(release)
	if m := c.recv(); string(m["id"]) != `"wait"` || resultText(m) != "released" {
		t.Errorf("the call in flight: %s", must(json.Marshal(m)))
	}
	if err := c.end(); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// With MaxInFlight requests in flight, reading pauses until one is answered, and
// the request read meanwhile is answered after it, not refused.
func TestStdioPausesAtMaxInFlight(t *testing.T) {
	release := make(chan struct{})
	full := make(chan struct{}, 1)
	srv := New(stdioEngine(t, release), Options{})
	defer srv.Close()
	c := startStdio(t, srv, StdioOptions{MaxInFlight: 2, onFull: func() {
		select {
		case full <- struct{}{}:
		default:
		}
	}})
	c.initialize(false)
	for _, id := range []string{`"w1"`, `"w2"`} {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"Wait","arguments":{}}}`)
	}
	c.send(echoCall(`"third"`, "third"))
	select {
	case <-full:
	case <-time.After(liveness):
		t.Fatal("reading did not pause with 2 requests in flight")
	}
	close(release)
	got := map[string]string{}
	for range 3 {
		m := c.recv()
		got[string(m["id"])] = resultText(m)
	}
	if want := map[string]string{`"w1"`: "released", `"w2"`: "released", `"third"`: "third"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("answers %v, want %v", got, want)
	}
	c.end()
}

// A client that writes 20,000 requests (100,000 at full length: LUATOOL_LONG_TESTS=1,
// as in CI) without reading the answers is held back by the pipe: the server reads
// no more than MaxInFlight requests ahead of the answers the client takes, so its
// heap stays far below what holding them all would take (under the SDK's own stdio
// transport, luatool serve grew to 520 MB of RSS for 40,000).
func TestStdioHeapBoundedUnderFlood(t *testing.T) {
	// bound is the heap allowed, all of the test's process included; a run of this
	// test measured about 6 MiB.
	const bound = 64 << 20
	requests := extdata.Long(t, 20_000, 100_000)
	full := make(chan struct{}, 1)
	srv := New(stdioEngine(t, nil), Options{})
	defer srv.Close()
	c := startStdio(t, srv, StdioOptions{onFull: func() {
		select {
		case full <- struct{}{}:
		default:
		}
	}})
	c.initialize(false)
	go func() {
		w := bufio.NewWriter(c.w)
		for i := range requests {
			// ping, answered by the SDK, costs the least to serve: the test is about
			// the transport, not the pipeline (which takes most of a tools/call).
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"n":"%0100d"}}}`+"\n", i, i)
		}
		w.Flush()
	}()
	var peak uint64
	measure := func() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	// The test takes no answer until the server has paused: they fill the client's
	// buffer of lines, then the pipe, and the server stops reading.
	select {
	case <-full:
	case <-time.After(10 * liveness):
		t.Fatal("the server did not pause reading")
	}
	measure()
	answered := make([]bool, requests)
	for n := 1; n <= requests; n++ {
		var m struct {
			ID     int
			Result json.RawMessage
		}
		if line := c.recvLine(); json.Unmarshal(line, &m) != nil || m.Result == nil || m.ID < 0 || m.ID >= requests || answered[m.ID] {
			t.Fatalf("answer %d: %s", n, line)
		}
		answered[m.ID] = true
		if n%10_000 == 0 {
			measure()
		}
	}
	t.Logf("peak heap %.1f MiB over %d requests", float64(peak)/(1<<20), requests)
	if peak > bound {
		t.Errorf("the heap reached %d MiB, more than %d MiB", peak>>20, bound>>20)
	}
	if err := c.end(); err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// BenchmarkServeStdio is the rate of tools/call over stdio with 8 calls in flight,
// through the SDK's own transport and through ServeStdio: what the framing layer
// costs.
func BenchmarkServeStdio(b *testing.B) {
	for _, tr := range []struct {
		name  string
		serve func(srv *Server) func(in *io.PipeReader, out *io.PipeWriter) error
	}{
		{"sdk", func(srv *Server) func(in *io.PipeReader, out *io.PipeWriter) error {
			return func(in *io.PipeReader, out *io.PipeWriter) error {
				return srv.MCP().Run(context.Background(), &mcp.IOTransport{Reader: in, Writer: out})
			}
		}},
		{"framed", func(srv *Server) func(in *io.PipeReader, out *io.PipeWriter) error {
			return func(in *io.PipeReader, out *io.PipeWriter) error {
				return srv.ServeStdio(context.Background(), in, out, StdioOptions{})
			}
		}},
	} {
		b.Run(tr.name, func(b *testing.B) {
			srv := New(stdioEngine(b, nil), Options{})
			defer srv.Close()
			c := startPipes(b, tr.serve(srv))
			c.initialize(false)
			tokens := make(chan struct{}, 8)
			b.ResetTimer()
			go func() {
				for i := range b.N {
					tokens <- struct{}{}
					io.WriteString(c.w, echoCall(fmt.Sprint(i), "x")+"\n")
				}
			}()
			for range b.N {
				c.recvLine()
				<-tokens
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// A batch sent right behind initialize, without waiting for its answer, is judged
// by the version initialize settles on.
func TestStdioBatchBehindInitialize(t *testing.T) {
	srv := New(stdioEngine(t, nil), Options{})
	defer srv.Close()
	for _, tt := range []struct{ version, want string }{
		{"2025-03-26", `[{"jsonrpc":"2.0","id":1,"result":{}}]`},
		{"2025-06-18", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: protocol version 2025-06-18 has no batches`},
	} {
		var out bytes.Buffer
		in := strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + tt.version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
[{"jsonrpc":"2.0","id":1,"method":"ping"}]
`)
		if err := srv.ServeStdio(context.Background(), in, &out, StdioOptions{}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[1], tt.want) {
			t.Errorf("%s: %s", tt.version, out.String())
		}
	}
}
