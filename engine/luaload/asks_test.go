package luaload

import (
	"context"
	"strings"
	"testing"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/client"
)

// askTool is a tool whose call runs body, and whose validateInput tries an ask.
func askTool(t *testing.T, opts engine.Options, body string) *engine.Engine {
	t.Helper()
	dir := writeDir(t, map[string]string{"ask.lua": `return {
  name = "Ask", prompt = "p", inputSchema = { type = "object" }, isReadOnly = true,
  validateInput = function(input, ctx)
    if input.inValidate then ctx:elicit("m", { properties = {} }) end
    return { result = true }
  end,
  call = function(input, ctx) ` + body + ` end,
}`})
	e := newTestEngine(t, opts)
	if diags := e.Load(engine.DirSource(dir)); len(diags) > 0 {
		t.Fatalf("load: %v", diags)
	}
	return e
}

// A schema MCP does not allow is the author's error, named by property, before
// anything is sent; and only call may ask.
func TestElicitRefusesSchemasMCPRefuses(t *testing.T) {
	asked := false
	e := askTool(t, engine.Options{Client: elicitFunc(func(*client.ElicitRequest) { asked = true })},
		`return ctx:elicit("where?", { properties = { address = { type = "object", properties = {} } } })`)
	r := e.Call(context.Background(), engine.ToolUse{ID: "1", Name: "Ask", Input: []byte(`{}`)})
	if !r.Block.IsError || !strings.Contains(r.Block.Content.String(), `property "address": type object is not allowed`) || asked {
		t.Errorf("a nested object: %s (asked: %v)", r.Block.Content, asked)
	}
	r = e.Call(context.Background(), engine.ToolUse{ID: "2", Name: "Ask", Input: []byte(`{"inValidate": true}`)})
	if !r.Block.IsError || !strings.Contains(r.Block.Content.String(), "only call() may ask the client's user") || asked {
		t.Errorf("an ask from validateInput: %s (asked: %v)", r.Block.Content, asked)
	}
}

// ctx:log with a level reaches the client with it; without one it is print at info.
func TestLogReachesTheClient(t *testing.T) {
	var got []client.LogMessage
	e := askTool(t, engine.Options{Client: logFunc(func(m client.LogMessage) { got = append(got, m) })},
		`ctx:log("warning", "low disk", { free = 5 }); ctx:log("plain", 1); ctx:log("error") return "ok"`)
	r := e.Call(context.Background(), engine.ToolUse{ID: "1", Name: "Ask", Input: []byte(`{}`)})
	if r.Block.IsError || len(got) != 3 || got[0].Level != client.Warning || got[1].Level != client.Info || got[1].Data != "plain\t1" ||
		got[2].Data != "error" {
		t.Fatalf("%s: %+v", r.Block.Content, got)
	}
	if d, _ := got[0].Data.(map[string]any); d["message"] != "low disk" || d["data"].(map[string]any)["free"] != float64(5) {
		t.Errorf("data: %+v", got[0].Data)
	}
	if strings.Join(r.Log, "|") != `[warning] low disk {"free":5}|plain	1|error` {
		t.Errorf("the call's log: %q", r.Log)
	}
}

// A tool logging in a loop stops reaching the client where its call's log is
// full: the client's stream is bounded as the log is.
func TestLogToTheClientIsBounded(t *testing.T) {
	var got []client.LogMessage
	e := askTool(t, engine.Options{Client: logFunc(func(m client.LogMessage) { got = append(got, m) })},
		`for i = 1, 100000 do ctx:log("info", string.rep("x", 100)) end return "ok"`)
	r := e.Call(context.Background(), engine.ToolUse{ID: "1", Name: "Ask", Input: []byte(`{}`)})
	if r.Block.IsError {
		t.Fatalf("call: %s", r.Block.Content)
	}
	// Each line is "[info] " and 100 bytes; the log keeps 64 KiB (bindings.DefaultMaxLogBytes).
	if len(got) == 0 || len(got) > (64<<10)/107+1 || len(got) != len(r.Log) {
		t.Errorf("%d messages reached the client, %d lines the log", len(got), len(r.Log))
	}
	// One message larger than the whole budget reaches the client cut as the log cuts it.
	got = nil
	e = askTool(t, engine.Options{Client: logFunc(func(m client.LogMessage) { got = append(got, m) })},
		`ctx:log("info", string.rep("y", 5000000)) return "ok"`)
	r = e.Call(context.Background(), engine.ToolUse{ID: "2", Name: "Ask", Input: []byte(`{}`)})
	if text, _ := got[0].Data.(string); len(got) != 1 || len(text) > 64<<10+32 || !strings.HasSuffix(text, "[log truncated]") {
		t.Errorf("a 5 MB message reached the client as %d bytes", len(text))
	}
}

// A URL elicitation is sent with an id made up for it; its answer has no content.
func TestElicitURL(t *testing.T) {
	var got *client.ElicitRequest
	e := askTool(t, engine.Options{Client: elicitFunc(func(r *client.ElicitRequest) { got = r })},
		`local a = ctx:elicit{ url = "https://example.com/login", message = "Log in" } return a.action`)
	r := e.Call(context.Background(), engine.ToolUse{ID: "1", Name: "Ask", Input: []byte(`{}`)})
	if r.Block.Content.String() != "cancel" || got == nil || !got.URLMode() || got.URL != "https://example.com/login" || len(got.ElicitationID) != 32 {
		t.Errorf("%s: %+v", r.Block.Content, got)
	}
	e = askTool(t, engine.Options{Client: elicitFunc(func(*client.ElicitRequest) {})}, `return ctx:elicit{ url = "ftp://x", message = "m" }`)
	if r := e.Call(context.Background(), engine.ToolUse{ID: "2", Name: "Ask", Input: []byte(`{}`)}); !strings.Contains(r.Block.Content.String(), "url must be an absolute http or https URL") {
		t.Errorf("an ftp URL: %s", r.Block.Content)
	}
}

type elicitFunc func(*client.ElicitRequest)

func (elicitFunc) Log(context.Context, client.LogMessage) {}
func (elicitFunc) Sample(context.Context, *client.SamplingRequest) (*client.SamplingResult, error) {
	return nil, client.Unavailable("no")
}
func (f elicitFunc) Elicit(_ context.Context, r *client.ElicitRequest) (*client.ElicitResult, error) {
	f(r)
	return &client.ElicitResult{Action: "cancel"}, nil
}

type logFunc func(client.LogMessage)

func (f logFunc) Log(_ context.Context, m client.LogMessage) { f(m) }
func (logFunc) Sample(context.Context, *client.SamplingRequest) (*client.SamplingResult, error) {
	return nil, client.Unavailable("no")
}
func (logFunc) Elicit(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
	return nil, client.Unavailable("no")
}
