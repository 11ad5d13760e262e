package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/luaload"
)

// modernMeta is the _meta a client of protocol 2026-07-28 puts on every request:
// that era has no initialize.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// subscriptionID is the listen request a notification says it belongs to, as
// written.
func subscriptionID(t *testing.T, m map[string]json.RawMessage) string {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(m["params"], &p); err != nil {
		t.Fatalf("params of %s: %v", m["method"], err)
	}
	return string(p.Meta["io.modelcontextprotocol/subscriptionId"])
}

// A client of 2026-07-28 over stdio gets its subscriptions/listen acknowledged, and
// the changes it listens for notified, under the id it gave the listen request (the
// client matches them to it by that id, and waits forever for one it cannot match);
// and at the end of its input the server returns though the listen is open.
func TestStdioListenKeepsTheClientsID(t *testing.T) {
	dir := t.TempDir()
	tool := `return { name = %q, prompt = "p", inputSchema = { type = "object" }, isReadOnly = true, call = function() return "ok" end }`
	if err := writeFile(dir, "a.lua", strings.ReplaceAll(tool, "%q", `"A"`)); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Options{Cwd: t.TempDir(), Loaders: []engine.Loader{luaload.New(luaload.Options{})}})
	if err != nil {
		t.Fatal(err)
	}
	eng.Load(engine.DirSource(dir))
	srv := New(eng, Options{})
	defer srv.Close()
	c := startStdio(t, srv, StdioOptions{})

	c.send(`{"jsonrpc":"2.0","id":"listen:0","method":"subscriptions/listen","params":{` + modernMeta + `,"notifications":{"toolsListChanged":true}}}`)
	ack := c.recv()
	if string(ack["method"]) != `"notifications/subscriptions/acknowledged"` {
		t.Fatalf("first message after listen: %s", ack)
	}
	if got := subscriptionID(t, ack); got != `"listen:0"` {
		t.Errorf("the acknowledgement names subscription %s, want the client's id \"listen:0\"", got)
	}

	if err := writeFile(dir, "b.lua", strings.ReplaceAll(tool, "%q", `"B"`)); err != nil {
		t.Fatal(err)
	}
	eng.Refresh()
	changed := c.recv()
	if string(changed["method"]) != `"notifications/tools/list_changed"` {
		t.Fatalf("after a new tool: %s", changed)
	}
	if got := subscriptionID(t, changed); got != `"listen:0"` {
		t.Errorf("list_changed names subscription %s, want the client's id \"listen:0\"", got)
	}

	// A call still works beside the open listen.
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + modernMeta + `,"name":"B","arguments":{}}}`)
	if m := c.recv(); string(m["id"]) != "7" || resultText(m) != "ok" {
		t.Fatalf("call beside a listen: %s", m)
	}

	if err := c.end(); err != nil {
		t.Errorf("ServeStdio at the end of its input, a listen open: %v", err)
	}
	// What the server wrote after the end of its input names no id of its own.
	for line := range c.lines {
		if m := message(t, line); m["id"] != nil && string(m["id"]) != `"listen:0"` {
			t.Errorf("after the end of input the server wrote %s", line)
		}
	}
}
