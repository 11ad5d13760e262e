package luaload

import (
	"context"
	"encoding/json"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine/client"
)

// defaultMaxTokens is the maxTokens of a ctx:sample request that names none: MCP
// requires one.
const defaultMaxTokens = 1024

// log is ctx:log(level, message, data): a message for the client's log at one of
// MCP's eight levels (its data the message, or {message=, data=} when data is
// given), and a line "[level] message data" in the call's log. A first argument
// that is no level makes it print: the arguments joined by tabs, at info, which
// is what ctx:log did before it had levels. The call's log limit
// (bindings.Limits.MaxLogBytes) bounds both: the message that reaches it is cut
// where the log cuts it, and later ones are dropped.
func (c *luaContext) log(L *lua.LState) int {
	vm := c.vm
	msg := client.LogMessage{Level: client.Info}
	var line string
	if s, ok := L.Get(2).(lua.LString); ok && L.GetTop() >= 3 {
		level, isLevel := client.ParseLevel(string(s))
		if isLevel {
			a := bindings.NewArgs(L, "ctx:log")
			text := a.String(3)
			msg.Level, msg.Data, line = level, text, "["+string(level)+"] "+text
			if L.GetTop() >= 4 && L.Get(4) != lua.LNil {
				data, err := vm.FromLua(L.Get(4))
				if err != nil {
					a.Error(3, "data must be a JSON value: "+err.Error())
				}
				msg.Data = map[string]any{"message": text, "data": data}
				if b, err := json.Marshal(data); err == nil {
					line += " " + string(b)
				}
			}
		}
	}
	if line == "" {
		parts := make([]string, 0, L.GetTop())
		for i := 2; i <= L.GetTop(); i++ {
			parts = append(parts, L.ToStringMeta(L.Get(i)).String())
		}
		line = strings.Join(parts, "\t")
		msg.Data = line
	}
	// The client's messages share the call's log budget: a tool logging in a loop,
	// or one huge message, fills the client's stream no more than the call's log.
	kept := vm.Log(line)
	if kept == "" {
		return 0
	}
	if kept != line { // cut at the limit: the client gets what the log kept
		msg.Data = kept
	}
	if cl := c.cc.Client; cl != nil {
		cl.Log(callContext(L), msg)
	}
	return 0
}

// sample is ctx:sample(request): request is MCP's sampling/createMessage params as
// a table (maxTokens defaults to defaultMaxTokens), or a string, one user message.
// It returns the model's message {role=, content={type=, text=|data=, mimeType=},
// model=, stopReason=, text=} (text the content's, when it is text), or nil, why,
// and "unavailable", "declined", "failed" or "malformed" (the client's answer
// breaks MCP's shape). A request MCP does not allow is the author's error: raised.
func (c *luaContext) sample(L *lua.LState) int {
	a := bindings.NewArgs(L, "ctx:sample")
	c.onlyInCall(L, "ctx:sample", "ask the client's model")
	var v any
	switch arg := L.Get(2).(type) {
	case lua.LString:
		v = map[string]any{"messages": []any{map[string]any{"role": "user",
			"content": map[string]any{"type": "text", "text": string(arg)}}}}
	case *lua.LTable:
		var err error
		if v, err = c.vm.FromLua(arg); err != nil {
			a.Error(1, "the request must be a JSON value: "+err.Error())
		}
	default:
		a.Error(1, "a request table or a string expected, got "+arg.Type().String())
	}
	if m, ok := v.(map[string]any); ok {
		if _, ok := m["maxTokens"]; !ok {
			m["maxTokens"] = defaultMaxTokens
		}
	}
	req, err := client.DecodeSamplingRequest(v)
	if err != nil {
		a.Error(1, err.Error())
	}
	var res *client.SamplingResult
	c.blocking(L, "ctx:sample", func(ctx context.Context) { res, err = c.cc.Client.Sample(ctx, req) })
	if err == nil {
		err = res.Check()
	}
	if err != nil {
		return pushFailure(L, "sample", err)
	}
	out := client.JSON(res).(map[string]any)
	if res.Content.Type == "text" {
		out["text"] = res.Content.Text
	}
	return c.push(L, out)
}

// elicit is ctx:elicit(message, schema), a form, or ctx:elicit{url=, message=,
// elicitationId=}, a page to send the user to. It returns {action=, content=}
// (content only for an accepted form, checked against the schema and with the
// defaults of what the user left out), or nil, why and "unavailable", "failed"
// or "malformed" (an answer that breaks the schema). A schema MCP does not allow
// (a nested object, say) is the author's error: raised, naming the property.
func (c *luaContext) elicit(L *lua.LState) int {
	a := bindings.NewArgs(L, "ctx:elicit")
	c.onlyInCall(L, "ctx:elicit", "ask the client's user")
	req := &client.ElicitRequest{}
	if _, ok := L.Get(2).(*lua.LTable); ok {
		o := a.Options(2, "url", "message", "elicitationId")
		req.Mode, req.URL, req.Message, req.ElicitationID = "url", o.String("url", ""), o.String("message", ""), o.String("elicitationId", "")
	} else {
		req.Message = a.String(2)
		v, err := c.vm.FromLua(a.Table(3))
		if err != nil {
			a.Error(2, "the schema must be a JSON value: "+err.Error())
		}
		schema, ok := v.(map[string]any)
		if !ok {
			a.Error(2, "the schema must be a table of properties")
		}
		req.RequestedSchema = schema
	}
	if err := req.Check(); err != nil {
		L.RaiseError("ctx:elicit: %s", err.Error())
	}
	var res *client.ElicitResult
	var err error
	c.blocking(L, "ctx:elicit", func(ctx context.Context) { res, err = c.cc.Client.Elicit(ctx, req) })
	if err == nil {
		err = client.CheckResult(req, res)
	}
	if err != nil {
		return pushFailure(L, "elicit", err)
	}
	out := map[string]any{"action": res.Action}
	if res.Content != nil {
		out["content"] = res.Content
	}
	return c.push(L, out)
}

// onlyInCall raises an error unless the code running is a tool's call (what a
// question asks of a tool must not reach a person or a model).
func (c *luaContext) onlyInCall(L *lua.LState, fn, what string) {
	if !acting(bindings.CurrentCall(L)) {
		L.RaiseError("%s is not available here: only call() may %s", fn, what)
	}
	if c.cc.Client == nil {
		L.RaiseError("%s: this call has no client", fn)
	}
}

// blocking runs fn, which waits for the client, with the call's Lua slot given
// back (bindings.Blocking).
func (c *luaContext) blocking(L *lua.LState, fn string, run func(ctx context.Context)) {
	ctx := callContext(L)
	if werr := bindings.Blocking(L, func() { run(ctx) }); werr != nil {
		L.RaiseError("%s: stopped: %v", fn, werr)
	}
}

// push pushes a JSON value for Lua.
func (c *luaContext) push(L *lua.LState, v any) int {
	lv, err := c.vm.ToLua(v)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	L.Push(lv)
	return 1
}

// callContext is the context of the running call.
func callContext(L *lua.LState) context.Context {
	if ctx := L.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
