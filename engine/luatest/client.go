package luatest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/engine/client"
)

// stubClient is the client of one t:call (its opts.client): the test's functions
// answer the tool's ctx:sample and ctx:elicit, and what the tool logs to the client
// is kept for the result's messages. A function the test leaves out is a client
// that does not offer the feature, so that a test shows what the tool does then.
//
// A stub is given the request as MCP sends it (a table) and returns the answer as
// a client would: a table, checked as every client's answer is (so a test can show
// what the tool does with a malformed one), or nil and a kind ("declined",
// "failed") to refuse.
type stubClient struct {
	stubs          *caseStubs
	sample, elicit *lua.LFunction

	mu       sync.Mutex
	messages []client.LogMessage
}

// newStubClient reads opts.client of t:call: a table with sample and elicit, each
// a function or absent.
func newStubClient(L *lua.LState, t *lua.LTable, stubs *caseStubs) *stubClient {
	c := &stubClient{stubs: stubs}
	fns := map[string]**lua.LFunction{"sample": &c.sample, "elicit": &c.elicit}
	t.ForEach(func(k, v lua.LValue) {
		fn, known := fns[k.String()]
		if _, isString := k.(lua.LString); !isString || !known {
			L.RaiseError("t:call: opts.client has sample and elicit only, not %s", k.String())
		}
		f, isFunc := v.(*lua.LFunction)
		if !isFunc {
			L.RaiseError("t:call: opts.client.%s must be a function, got %s", k.String(), v.Type())
		}
		*fn = f
	})
	return c
}

func (c *stubClient) Log(_ context.Context, m client.LogMessage) {
	c.mu.Lock()
	c.messages = append(c.messages, m)
	c.mu.Unlock()
}

func (c *stubClient) Sample(ctx context.Context, r *client.SamplingRequest) (*client.SamplingResult, error) {
	if c.sample == nil {
		return nil, client.Unavailable("the client does not offer sampling (the test's client has no sample)")
	}
	var res client.SamplingResult
	return &res, c.ask(ctx, "client.sample", c.sample, r, &res)
}

func (c *stubClient) Elicit(ctx context.Context, r *client.ElicitRequest) (*client.ElicitResult, error) {
	if c.elicit == nil {
		return nil, client.Unavailable("the client does not offer elicitation (the test's client has no elicit)")
	}
	var res client.ElicitResult
	return &res, c.ask(ctx, "client.elicit", c.elicit, r, &res)
}

// ask runs a stub with the request and decodes its answer into out as a client's
// answer is decoded: a field MCP does not have makes it malformed.
func (c *stubClient) ask(ctx context.Context, what string, fn *lua.LFunction, req, out any) error {
	results, err := c.stubs.callJSON(ctx, what, fn, client.JSON(req))
	if err != nil {
		return err
	}
	if len(results) == 0 || results[0] == nil {
		kind := ""
		if len(results) > 1 {
			kind, _ = results[1].(string)
		}
		switch kind {
		case "declined":
			return fmt.Errorf("%w: the test's user declined", client.ErrDeclined)
		case "failed":
			return fmt.Errorf("%s: the test's client failed", what)
		}
		return client.Malformed("%s returned no answer", what)
	}
	b, _ := json.Marshal(results[0])
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(out); err != nil {
		return client.Malformed("%s: %v", what, err)
	}
	return nil
}

// messagesTable renders what the tool logged to the client, in order:
// {level=, logger=, data=}; nil when it logged nothing.
func (c *stubClient) messagesTable(vm *bindings.VM) (lua.LValue, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.messages) == 0 {
		return nil, nil
	}
	list := make([]any, len(c.messages))
	for i, m := range c.messages {
		e := map[string]any{"level": string(m.Level), "data": m.Data}
		if m.Logger != "" {
			e["logger"] = m.Logger
		}
		list[i] = e
	}
	return vm.ToLua(list)
}
