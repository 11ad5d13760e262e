package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
)

// The tools/call requests ServeStdio serves itself are answered byte for byte as
// the SDK answers them, and so are those it hands on: a session run each way on the
// same lines writes the same lines.
func TestStdioDirectAnswersAsSDK(t *testing.T) {
	plain := []string{
		// Before initialize: the SDK's error.
		echoCall("1", "early"),
		`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		echoCall("2", "a <b> & c"),
		echoCall(`"str-id"`, "é \u2028 \\ \""),
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"Echo","arguments":{"text":"m"},"_meta":{"claudecode/toolUseId":"toolu_1"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"Echoo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"Echo","arguments":[1]}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"Echo","arguments":{"text":"x"},"task":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Echo","arguments":{"text":5}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"Steps","arguments":{},"_meta":{"progressToken":12345678901234567890}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"Steps","arguments":{},"_meta":{"progressToken":"tok"}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"arguments":{}}}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/call"}`,
	}
	// A client that can be asked: Write's permission ask is put to it as an
	// elicitation, allowed the first time and declined the second.
	eliciting := []string{
		`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Write","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Write","arguments":{}}}`,
		echoCall("3", "read-only, not asked"),
	}
	for _, lines := range [][]string{plain, eliciting} {
		direct, sdk := stdioAnswers(t, lines, false), stdioAnswers(t, lines, true)
		if len(direct) != len(sdk) {
			t.Fatalf("%d lines served directly, %d by the SDK:\n%q\n%q", len(direct), len(sdk), direct, sdk)
		}
		for i := range direct {
			if direct[i] != sdk[i] {
				t.Errorf("line %d:\ndirect %s\nsdk    %s", i, direct[i], sdk[i])
			}
		}
	}
}

// stdioAnswers serves lines over ServeStdio, each request answered before the next
// is sent, so that what the server writes comes in one order, and returns the lines
// it wrote. The server's elicitations are answered at once: allow the first, decline
// the others.
func stdioAnswers(t *testing.T, lines []string, viaSDK bool) []string {
	srv := New(stdioEngine(t, nil), Options{})
	defer srv.Close()
	c := startStdio(t, srv, StdioOptions{viaSDK: viaSDK})
	var out []string
	asked := 0
	for _, line := range lines {
		c.send(line)
		if line == `{"jsonrpc":"2.0","method":"notifications/initialized"}` {
			continue
		}
		// Each request is answered before the next is sent, so that the lines
		// come in one order; a progress notification comes before its result.
		for {
			data := c.recvLine()
			out = append(out, string(data))
			m := message(t, data)
			if m["id"] != nil && m["method"] != nil {
				answer := `{"action":"decline"}`
				if asked++; asked == 1 {
					answer = `{"action":"accept","content":{"allow":true}}`
				}
				c.send(`{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"result":` + answer + `}`)
				continue
			}
			if m["id"] != nil {
				break
			}
		}
	}
	if err := c.end(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Plain tools/call requests of an initialized session are served directly; those
// that need more of the SDK are not.
func TestDirectTakesPlainCalls(t *testing.T) {
	srv := New(stdioEngine(t, nil), Options{})
	defer srv.Close()
	session := func(version string, opts *mcp.ClientOptions) *mcp.ServerSession {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, opts).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return ss
	}
	plain := session("2025-06-18", nil)
	for _, tt := range []struct {
		params string
		want   bool
	}{
		{`{"name":"Echo","arguments":{"text":"x"}}`, true},
		{`{"name":"Echo"}`, true},
		{`{"name":"Echo","arguments":{},"_meta":{"progressToken":"t"}}`, true},
		{`{"name":"Nope","arguments":{}}`, false},
		{`{"name":"Echo","arguments":[]}`, false},
		{`{"name":"Echo","arguments":null}`, false},
		{`{"name":"Echo","_meta":null}`, false},
		{`{"name":7}`, false},
		{`{"name":"Echo","task":{}}`, false},
		{`{"name":"Echo","Name":"Echo"}`, false},
		{`{"name":"Echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, false},
		{`{"name":"Echo","inputResponses":{},"requestState":"s"}`, false},
	} {
		if _, got := srv.direct(plain, json.RawMessage(tt.params)); got != tt.want {
			t.Errorf("%s: served directly %v, want %v", tt.params, got, tt.want)
		}
	}
	// A client that can be asked is served directly too (its asks are put to it
	// as the SDK puts them).
	eliciting := session("2025-06-18", &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}})
	if _, got := srv.direct(eliciting, json.RawMessage(`{"name":"Echo","arguments":{}}`)); !got {
		t.Error("a call of a client that elicits was not served directly")
	}
	// Results of the stateless protocol carry the SDK's resultType.
	if _, got := srv.direct(session(statelessProtocol, nil), json.RawMessage(`{"name":"Echo","arguments":{}}`)); got {
		t.Error("a call of the stateless protocol was served directly")
	}
}

// On cancellation, ServeStdio returns only once the calls it served itself have
// ended and written their answers: nothing is written to out after it returns.
func TestStdioWaitsForDirectCallsOnCancel(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	hold := goTool("Hold", true, func(context.Context, map[string]any) (*engine.ToolResult, error) {
		close(entered)
		<-release // deaf to the cancellation, as a tool in a system call may be
		return &engine.ToolResult{Data: "held"}, nil
	})
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Tools: []engine.ToolDef{hold}})
	if err != nil {
		t.Fatal(err)
	}
	srv := New(eng, Options{})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var returned atomic.Bool
	out := &afterReturn{returned: &returned}
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() {
		err := srv.ServeStdio(ctx, inR, out, StdioOptions{})
		returned.Store(true)
		done <- err
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Hold","arguments":{}}}`+"\n")
	<-entered
	cancel()
	select {
	case <-done:
		t.Fatal("ServeStdio returned while a call it served itself was still running")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-done
	if out.late.Load() {
		t.Error("a write reached out after ServeStdio returned")
	}
}

// afterReturn is an out that notes a write made once returned is set.
type afterReturn struct {
	returned *atomic.Bool
	late     atomic.Bool
}

func (w *afterReturn) Write(p []byte) (int, error) {
	if w.returned.Load() {
		w.late.Store(true)
	}
	return len(p), nil
}
